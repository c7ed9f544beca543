/* Secure Boot's image check (UEFI 2.10 section 32.5): the Authenticode
 * digest of a PE/COFF file (Microsoft's "Windows Authenticode Portable
 * Executable Signature Format": the file hashed without its checksum, its
 * certificate table entry and the certificate table) and the decision
 * against db and dbx, as EDK2's DxeImageVerificationLib makes it. */
#ifndef HANDOVER_AUTHENTICODE_H
#define HANDOVER_AUTHENTICODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AUTHENTICODE_DIGEST_SIZE 32   /* SHA-256, the one digest served */

/* The file's Authenticode SHA-256 into digest, and where its certificate
 * table is (*cert_size 0: none). -1 with the fault in err if the headers,
 * sections or certificate table do not fit the file. */
int authenticode_digest(const uint8_t *file, size_t size, uint8_t digest[AUTHENTICODE_DIGEST_SIZE],
                        size_t *cert_offset, size_t *cert_size, char *err, size_t errlen);

/* May the image run? Refused if its digest is in dbx, or any of its
 * signatures carries a dbx certificate or verifies with one as its anchor;
 * else allowed if a signature verifies with a db certificate as its
 * anchor, or its digest is in db. why says what decided (db and dbx
 * are well-formed signature lists; NULL: empty). */
bool authenticode_allowed(const uint8_t *file, size_t size, const uint8_t *db, size_t db_size, const uint8_t *dbx,
                          size_t dbx_size, char *why, size_t whylen);

#endif
