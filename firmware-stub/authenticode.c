/* The Authenticode digest and the db/dbx decision (authenticode.h). */
#include "authenticode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "guids.h"
#include "signature_list.h"
#include "signed_data.h"

#define PE_MAGIC_PE32      0x10b
#define PE_MAGIC_PE32_PLUS 0x20b
#define PE_DIRECTORY_SECURITY 4          /* the certificate table's data directory */
#define PE_SECTION_HEADER_SIZE 40
#define PE_MAX_HASHED_SECTIONS 96
/* WIN_CERTIFICATE (PE/COFF "The Attribute Certificate Table") */
#define WIN_CERT_HEADER_SIZE 8
#define WIN_CERT_REVISION_2_0 0x0200
#define WIN_CERT_TYPE_PKCS_SIGNED_DATA 0x0002
#define WIN_CERT_TYPE_EFI_GUID 0x0ef1
#define WIN_CERT_UEFI_GUID_HEADER_SIZE (WIN_CERT_HEADER_SIZE + 16)   /* and its CertType */

static uint16_t le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

struct raw_section { uint32_t offset, size; };

static int by_offset(const void *a, const void *b)
{
    uint32_t x = ((const struct raw_section *)a)->offset, y = ((const struct raw_section *)b)->offset;
    return (x > y) - (x < y);
}

static int fail(char *err, size_t errlen, const char *what)
{
    snprintf(err, errlen, "Authenticode: %s", what);
    return -1;
}

/* The regions hashed, in order: the headers around the checksum and the
 * certificate table entry, the sections by file offset, then what follows
 * them up to the certificate table (EDK2's HashPeImage). */
int authenticode_digest(const uint8_t *f, size_t n, uint8_t digest[AUTHENTICODE_DIGEST_SIZE], size_t *cert_offset,
                        size_t *cert_size, char *err, size_t errlen)
{
    if (n < 0x40 || f[0] != 'M' || f[1] != 'Z')
        return fail(err, errlen, "no MS-DOS header");
    size_t pe = le32(f + 0x3c);
    if (pe > n - 24 || memcmp(f + pe, "PE\0\0", 4))
        return fail(err, errlen, "no PE signature at e_lfanew");
    size_t opt = pe + 24, opt_size = le16(f + pe + 20), nsections = le16(f + pe + 6);
    if (opt_size < 96 || opt_size > n - opt)
        return fail(err, errlen, "SizeOfOptionalHeader goes past the file");
    uint16_t magic = le16(f + opt);
    size_t dirs = magic == PE_MAGIC_PE32_PLUS ? 112 : magic == PE_MAGIC_PE32 ? 96 : 0;
    if (!dirs || opt_size < dirs)
        return fail(err, errlen, "the optional header is neither PE32 nor PE32+");
    size_t checksum = opt + 64, ndirs = le32(f + opt + dirs - 4), headers = le32(f + opt + 60);
    size_t cert_entry = opt + dirs + 8 * PE_DIRECTORY_SECURITY;
    bool has_cert_entry = ndirs > PE_DIRECTORY_SECURITY && cert_entry + 8 <= opt + opt_size;
    size_t table = opt + opt_size;
    if (nsections > PE_MAX_HASHED_SECTIONS || headers > n || table + nsections * PE_SECTION_HEADER_SIZE > headers)
        return fail(err, errlen, "SizeOfHeaders does not hold the section table inside the file");
    *cert_offset = has_cert_entry ? le32(f + cert_entry) : 0;
    *cert_size = has_cert_entry ? le32(f + cert_entry + 4) : 0;
    if (*cert_size && (*cert_offset < headers || *cert_offset > n || *cert_size > n - *cert_offset))
        return fail(err, errlen, "the certificate table goes past the file");

    struct raw_section sec[PE_MAX_HASHED_SECTIONS];
    size_t nraw = 0, hashed = headers;   /* the specification's SUM_OF_BYTES_HASHED */
    for (size_t i = 0; i < nsections; i++) {
        const uint8_t *s = f + table + i * PE_SECTION_HEADER_SIZE;
        struct raw_section r = { le32(s + 20), le32(s + 16) };
        if (!r.size)
            continue;
        if (r.offset > n || r.size > n - r.offset)
            return fail(err, errlen, "a section's raw data goes past the file");
        sec[nraw++] = r;
        hashed += r.size;
    }
    /* The data after the sections is hashed up to the certificate table,
     * which ends the file: sections that run into it leave less than
     * nothing, and EDK2's HashPeImage refuses the image (mImageSize <
     * CertSize + SumOfBytesHashed). */
    if (hashed < n && *cert_size > n - hashed)
        return fail(err, errlen, "the sections' raw data runs into the certificate table");
    qsort(sec, nraw, sizeof(sec[0]), by_offset);

    EVP_MD_CTX *md = EVP_MD_CTX_new();
    bool ok = md && EVP_DigestInit_ex(md, EVP_sha256(), NULL) && EVP_DigestUpdate(md, f, checksum);
    if (has_cert_entry)
        ok = ok && EVP_DigestUpdate(md, f + checksum + 4, cert_entry - checksum - 4) &&
             EVP_DigestUpdate(md, f + cert_entry + 8, headers - cert_entry - 8);
    else
        ok = ok && EVP_DigestUpdate(md, f + checksum + 4, headers - checksum - 4);
    for (size_t i = 0; ok && i < nraw; i++)
        ok = EVP_DigestUpdate(md, f + sec[i].offset, sec[i].size);
    if (ok && hashed < n - *cert_size)
        ok = EVP_DigestUpdate(md, f + hashed, n - *cert_size - hashed);
    ok = ok && EVP_DigestFinal_ex(md, digest, NULL);
    EVP_MD_CTX_free(md);
    return ok ? 0 : fail(err, errlen, "SHA-256 failed in libcrypto");
}

static void hex(const uint8_t *d, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", d[i]);
}

/* The PKCS#7 SignedData a WIN_CERTIFICATE of len bytes at c holds, and
 * its size in n: WIN_CERT_TYPE_PKCS_SIGNED_DATA's, or that of a
 * WIN_CERTIFICATE_UEFI_GUID of type EFI_CERT_TYPE_PKCS7_GUID (UEFI 2.10
 * section 32.2.4; EDK2's DxeImageVerificationHandler reads both). NULL
 * for any other kind, which says nothing about the image. */
static const uint8_t *signed_data_of(const uint8_t *c, uint32_t len, size_t *n)
{
    if (le16(c + 4) != WIN_CERT_REVISION_2_0)
        return NULL;
    if (le16(c + 6) == WIN_CERT_TYPE_PKCS_SIGNED_DATA) {
        *n = len - WIN_CERT_HEADER_SIZE;
        return c + WIN_CERT_HEADER_SIZE;
    }
    efi_guid_t type;
    if (le16(c + 6) != WIN_CERT_TYPE_EFI_GUID || len <= WIN_CERT_UEFI_GUID_HEADER_SIZE)
        return NULL;
    memcpy(&type, c + WIN_CERT_HEADER_SIZE, sizeof(type));
    if (!guid_equal(&type, &GUID_CERT_TYPE_PKCS7))
        return NULL;
    *n = len - WIN_CERT_UEFI_GUID_HEADER_SIZE;
    return c + WIN_CERT_UEFI_GUID_HEADER_SIZE;
}

/* One WIN_CERTIFICATE's PKCS#7 against dbx and db: 1 allowed, -1 refused
 * by dbx, 0 not allowed by it (why says why). */
static int judge_signature(const uint8_t *der, size_t n, const uint8_t digest[AUTHENTICODE_DIGEST_SIZE],
                           const uint8_t *db, size_t db_size, const uint8_t *dbx, size_t dbx_size, char *why,
                           size_t whylen)
{
    char err[240];
    const uint8_t *content;
    size_t content_size;
    uint8_t signed_digest[AUTHENTICODE_DIGEST_SIZE];
    struct signed_data *sd = signed_data_parse(der, n, false, err, sizeof(err));
    int verdict = 0;
    enum signed_data_listing listed = SIGNED_DATA_NOT_LISTED;
    if (!sd || signed_data_authenticode(sd, &content, &content_size, signed_digest, err, sizeof(err))) {
        snprintf(why, whylen, "its signature is unusable: %s", err);
    } else if (memcmp(signed_digest, digest, AUTHENTICODE_DIGEST_SIZE)) {
        snprintf(why, whylen, "its signature is for another image (the digest signed differs from the file's)");
    } else if ((listed = signed_data_carries_listed(sd, dbx, dbx_size))) {
        /* EDK2's IsForbiddenByDbx: a carried certificate, or the SHA-256
         * of its TBSCertificate (IsCertHashFoundInDbx). A revocation time
         * spares a signature only through a timestamp dbt trusts
         * (PassTimestampCheck); dbt is not served, so none is spared. */
        snprintf(why, whylen, "its signature carries a certificate %s dbx",
                 listed == SIGNED_DATA_LISTED_CERTIFICATE ? "that is in" : "whose TBSCertificate's SHA-256 is in");
        verdict = -1;
    } else if (dbx && !signed_data_verify(sd, content, content_size,
                                          &(struct signed_data_anchors){ { dbx }, { dbx_size }, NULL, 0 }, err,
                                          sizeof(err))) {
        /* A dbx certificate it does not carry, such as the CA that issued
         * its signer's: EDK2's IsForbiddenByDbx verifies the signature with
         * each dbx certificate as its root. */
        snprintf(why, whylen, "its signature chains to a certificate that is in dbx");
        verdict = -1;
    } else if (signed_data_verify(sd, content, content_size,
                                  /* IsAllowedByDb: a db root whose TBSCertificate's SHA-256 is in dbx
                                   * anchors nothing (IsCertHashFoundInDbx on it) */
                                  &(struct signed_data_anchors){ { db }, { db_size }, dbx, dbx_size }, err,
                                  sizeof(err))) {
        snprintf(why, whylen, "its signature is not anchored in db: %s", err);
    } else {
        snprintf(why, whylen, "signed, and a db certificate anchors the signature");
        verdict = 1;
    }
    signed_data_free(sd);
    return verdict;
}

bool authenticode_allowed(const uint8_t *f, size_t n, const uint8_t *db, size_t db_size, const uint8_t *dbx,
                          size_t dbx_size, char *why, size_t whylen)
{
    uint8_t digest[AUTHENTICODE_DIGEST_SIZE];
    char digest_hex[2 * AUTHENTICODE_DIGEST_SIZE + 1], err[200];
    size_t at, size;
    if (authenticode_digest(f, n, digest, &at, &size, err, sizeof(err))) {
        snprintf(why, whylen, "%s", err);
        return false;
    }
    hex(digest, sizeof(digest), digest_hex);
    if (dbx && siglist_has_sha256(dbx, dbx_size, digest)) {
        snprintf(why, whylen, "its SHA-256 %s is in dbx", digest_hex);
        return false;
    }
    snprintf(why, whylen, "not signed, and its SHA-256 %s is not in db", digest_hex);
    /* The certificate table: WIN_CERTIFICATEs, each padded to 8 bytes, and
     * nothing else; EDK2's DxeImageVerificationHandler refuses an image
     * whose walk does not end at the table's end (OffSet != SecDataDirEnd).
     * Every signature is held against dbx, also those after one that db
     * allows (IsForbiddenByDbx for each). */
    bool signed_allowed = false;
    for (size_t off = 0; off < size;) {
        const uint8_t *c = f + at + off;
        uint32_t len = size - off > WIN_CERT_HEADER_SIZE ? le32(c) : 0;
        size_t padded = ((size_t)len + 7) & ~(size_t)7;
        if (len < WIN_CERT_HEADER_SIZE || padded > size - off) {
            snprintf(why, whylen, "Authenticode: the certificate table's last %zu bytes are not a WIN_CERTIFICATE "
                     "padded to 8 bytes (dwLength %u)", size - off, len);
            return false;
        }
        size_t signed_size;
        const uint8_t *signed_data = signed_data_of(c, len, &signed_size);
        if (signed_data) {
            char judged[400];
            /* Once db allowed one, the others only face dbx. */
            int verdict = judge_signature(signed_data, signed_size, digest, signed_allowed ? NULL : db, db_size, dbx,
                                          dbx_size, judged, sizeof(judged));
            if (verdict < 0 || !signed_allowed)
                snprintf(why, whylen, "%s", judged);
            if (verdict < 0)
                return false;
            signed_allowed |= verdict > 0;
        }
        off += padded;
    }
    if (signed_allowed)
        return true;
    if (db && siglist_has_sha256(db, db_size, digest)) {
        snprintf(why, whylen, "its SHA-256 %s is in db", digest_hex);
        return true;
    }
    return false;
}
