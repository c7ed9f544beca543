/* EFI_SIGNATURE_LIST sequences, the contents of PK, KEK, db and dbx
 * (UEFI 2.10 section 32.4.1): each list is a signature type, its size, a
 * header, and signatures of one size, each an owner GUID and its data. */
#ifndef HANDOVER_SIGNATURE_LIST_H
#define HANDOVER_SIGNATURE_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "efi.h"

#define SIGLIST_HEADER_SIZE 28   /* SignatureType, SignatureListSize, SignatureHeaderSize, SignatureSize */
#define SIGLIST_OWNER_SIZE  16   /* EFI_SIGNATURE_DATA.SignatureOwner */

/* One signature's data, without its owner: an X.509 certificate in DER,
 * a SHA-256 digest, or a TBSCertificate's SHA-256 and its revocation
 * time. Returns true to stop the walk. */
typedef bool siglist_fn(const efi_guid_t *type, const uint8_t *data, size_t size, void *ctx);

/* Check the lists in d (n bytes, which they fill exactly) and call fn
 * (may be NULL) on each signature, in order. Returns 1 if fn stopped the
 * walk, 0 once every signature was seen, -1 with the fault in err if the
 * lists are malformed: fn is called only on well-formed lists, each one
 * checked whole before its first signature. A SHA-256 signature is 32
 * bytes of data, an X.509 SHA-256 one 48 (the digest and an EFI_TIME);
 * an X.509 one at least one byte. */
int siglist_walk(const uint8_t *d, size_t n, siglist_fn *fn, void *ctx, char *err, size_t errlen);

/* Is the SHA-256 digest in the lists (a well-formed d)? */
bool siglist_has_sha256(const uint8_t *d, size_t n, const uint8_t digest[32]);

/* Is the SHA-256 of a TBSCertificate in the lists' EFI_CERT_X509_SHA256
 * signatures (a well-formed d)? Their revocation time is not read. */
bool siglist_has_x509_sha256(const uint8_t *d, size_t n, const uint8_t tbs_digest[32]);

/* The signatures of the lists add (n bytes) that the lists have do not
 * hold yet (the same type and the same EFI_SIGNATURE_DATA, owner and
 * data), written to out (n bytes) as lists, each keeping its header; a
 * list left with none is dropped. Returns out's size, 0 if add is
 * malformed. An append to a signature database adds only these (UEFI
 * 2.10 section 8.2.2; EDK2's FilterSignatureList). */
size_t siglist_new_signatures(const uint8_t *have, size_t have_size, const uint8_t *add, size_t n, uint8_t *out);

#endif
