/* PKCS#7 SignedData as Secure Boot meets it, parsed and verified by
 * libcrypto: an Authenticode signature (a ContentInfo whose content is
 * Microsoft's SpcIndirectDataContent, the image digest inside) and an
 * authenticated variable's signature (a bare SignedData, detached: UEFI
 * 2.10 section 8.2.2). Trust anchors are the X.509 certificates of
 * EFI_SIGNATURE_LIST sequences (signature_list.h). */
#ifndef HANDOVER_SIGNED_DATA_H
#define HANDOVER_SIGNED_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SIGNED_DATA_MAX_ANCHORS 2   /* db and dbx's signers: KEK and PK */

struct signed_data;   /* a parsed signature; free with signed_data_free */

/* Signature lists whose X.509 certificates anchor a signature, but those
 * whose TBSCertificate's SHA-256 revoked (dbx; NULL: none) lists. */
struct signed_data_anchors {
    const uint8_t *list[SIGNED_DATA_MAX_ANCHORS];
    size_t size[SIGNED_DATA_MAX_ANCHORS];
    const uint8_t *revoked;
    size_t revoked_size;
};

/* Parse DER: a ContentInfo, or (bare) a SignedData alone. NULL with the
 * fault in err if it is not a SignedData. */
struct signed_data *signed_data_parse(const uint8_t *der, size_t n, bool bare, char *err, size_t errlen);
void signed_data_free(struct signed_data *sd);

/* An Authenticode signature's SpcIndirectDataContent (the bytes signed:
 * the SEQUENCE's contents) and the SHA-256 image digest it carries. -1
 * with the fault in err if it is not one, or its digest is not SHA-256. */
int signed_data_authenticode(const struct signed_data *sd, const uint8_t **content, size_t *content_size,
                             uint8_t digest[32], char *err, size_t errlen);

/* Does a signer's certificate verify over content, chained to an anchor
 * (the anchor itself, or a certificate it issued; validity dates are not
 * checked: the firmware has no trusted clock)? 0, or -1 with why not. */
int signed_data_verify(const struct signed_data *sd, const uint8_t *content, size_t content_size,
                       const struct signed_data_anchors *anchors, char *err, size_t errlen);

/* Is every digest the SignedData names SHA-256: each of its
 * digestAlgorithms (at least one) and each signer's? An authenticated
 * variable's signature may use no other (UEFI 2.10 section 8.2.2). */
bool signed_data_digests_are_sha256(const struct signed_data *sd);

/* Do the n bytes at der begin with a DER X.509 certificate, as libcrypto
 * reads one (EDK2 reads an EFI_CERT_X509_GUID signature as much)? */
bool signed_data_is_certificate(const uint8_t *der, size_t n);

/* Does a certificate the signature carries stand in the lists (dbx, NULL:
 * none), as one of their X.509 certificates or by the SHA-256 of its
 * TBSCertificate (EFI_CERT_X509_SHA256, UEFI 2.10 section 32.4.1)? */
enum signed_data_listing {
    SIGNED_DATA_NOT_LISTED,
    SIGNED_DATA_LISTED_CERTIFICATE,
    SIGNED_DATA_LISTED_TBS_SHA256,
};
enum signed_data_listing signed_data_carries_listed(const struct signed_data *sd, const uint8_t *lists, size_t size);

#endif
