/* EFI_VARIABLE_AUTHENTICATION_2 (auth_variable.h). */
#include "auth_variable.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guids.h"

/* WIN_CERTIFICATE_UEFI_GUID: dwLength, wRevision, wCertificateType, CertType */
#define WIN_CERT_UEFI_GUID_HEADER 24
#define WIN_CERT_REVISION_2_0 0x0200
#define WIN_CERT_TYPE_EFI_GUID 0x0EF1

static uint16_t le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }

int auth2_parse(const uint8_t *d, size_t n, struct auth2 *a, char *err, size_t errlen)
{
    if (n < EFI_TIME_SIZE + WIN_CERT_UEFI_GUID_HEADER) {
        snprintf(err, errlen, "%zu bytes cannot hold EFI_VARIABLE_AUTHENTICATION_2 (%d at least)", n,
                 EFI_TIME_SIZE + WIN_CERT_UEFI_GUID_HEADER);
        return -1;
    }
    /* EFI_TIME: Year, Month, Day, Hour, Minute, Second, Pad1, Nanosecond,
     * TimeZone, Daylight, Pad2; all from Pad1 on are zero here (section 8.2.2). */
    static const uint8_t zero[EFI_TIME_SIZE - 7];
    if (memcmp(d + 7, zero, sizeof(zero))) {
        snprintf(err, errlen, "the TimeStamp's Pad1, Nanosecond, TimeZone, Daylight and Pad2 are not all zero");
        return -1;
    }
    const uint8_t *cert = d + EFI_TIME_SIZE;
    uint32_t len;
    efi_guid_t type;
    memcpy(&len, cert, 4);
    memcpy(&type, cert + 8, sizeof(type));
    if (len <= WIN_CERT_UEFI_GUID_HEADER || len > n - EFI_TIME_SIZE) {
        snprintf(err, errlen, "AuthInfo's dwLength %u does not fit the %zu bytes after the TimeStamp", len,
                 n - EFI_TIME_SIZE);
        return -1;
    }
    if (le16(cert + 4) != WIN_CERT_REVISION_2_0 || le16(cert + 6) != WIN_CERT_TYPE_EFI_GUID ||
        !guid_equal(&type, &GUID_CERT_TYPE_PKCS7)) {
        snprintf(err, errlen, "AuthInfo is not a WIN_CERTIFICATE_UEFI_GUID of EFI_CERT_TYPE_PKCS7_GUID "
                 "(revision 0x%04x, type 0x%04x)", le16(cert + 4), le16(cert + 6));
        return -1;
    }
    memcpy(a->timestamp, d, EFI_TIME_SIZE);
    a->signature = cert + WIN_CERT_UEFI_GUID_HEADER;
    a->signature_size = len - WIN_CERT_UEFI_GUID_HEADER;
    a->payload = cert + len;
    a->payload_size = n - EFI_TIME_SIZE - len;
    return 0;
}

int auth2_verify(const struct auth2 *a, const uint16_t *name, size_t len, const efi_guid_t *guid, uint32_t attrs,
                 const struct signed_data_anchors *anchors, char *err, size_t errlen)
{
    size_t size = 2 * len + sizeof(*guid) + 4 + EFI_TIME_SIZE + a->payload_size;
    uint8_t *signed_bytes = malloc(size);
    if (!signed_bytes) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    uint8_t *p = signed_bytes;
    memcpy(p, name, 2 * len);
    p += 2 * len;
    memcpy(p, guid, sizeof(*guid));
    p += sizeof(*guid);
    memcpy(p, &attrs, 4);
    p += 4;
    memcpy(p, a->timestamp, EFI_TIME_SIZE);
    p += EFI_TIME_SIZE;
    if (a->payload_size)
        memcpy(p, a->payload, a->payload_size);
    struct signed_data *sd = signed_data_parse(a->signature, a->signature_size, true, err, errlen);
    int rc = -1;
    /* "Only a digest algorithm of SHA-256 is accepted" (section 8.2.2;
     * EDK2's VerifyTimeBasedPayload checks the OID as much). */
    if (sd && !signed_data_digests_are_sha256(sd))
        snprintf(err, errlen, "PKCS#7: a digestAlgorithm is not SHA-256, the one section 8.2.2 accepts");
    else if (sd)
        rc = signed_data_verify(sd, signed_bytes, size, anchors, err, errlen);
    signed_data_free(sd);
    free(signed_bytes);
    return rc;
}

int efi_time_compare(const uint8_t a[EFI_TIME_SIZE], const uint8_t b[EFI_TIME_SIZE])
{
    int ya = le16(a), yb = le16(b);
    if (ya != yb)
        return ya < yb ? -1 : 1;
    /* Month, Day, Hour, Minute, Second: one byte each, most significant first */
    return memcmp(a + 2, b + 2, 5);
}

static bool named(const uint16_t *name, size_t len, const char *ascii)
{
    size_t n = strlen(ascii);
    if (n != len)
        return false;
    for (size_t i = 0; i < n; i++)
        if (name[i] != (uint8_t)ascii[i])
            return false;
    return true;
}

enum secure_boot_key secure_boot_key_of(const uint16_t *name, size_t len, const efi_guid_t *guid)
{
    if (guid_equal(guid, &GUID_GLOBAL_VARIABLE))
        return named(name, len, "PK") ? SB_PK : named(name, len, "KEK") ? SB_KEK : SB_NOT_A_KEY;
    if (guid_equal(guid, &GUID_IMAGE_SECURITY_DATABASE))
        return named(name, len, "db") ? SB_DB : named(name, len, "dbx") ? SB_DBX : SB_NOT_A_KEY;
    return SB_NOT_A_KEY;
}

bool secure_boot_mode_variable(const uint16_t *name, size_t len, const efi_guid_t *guid)
{
    return guid_equal(guid, &GUID_GLOBAL_VARIABLE) &&
           (named(name, len, "SecureBoot") || named(name, len, "SetupMode") || named(name, len, "AuditMode") ||
            named(name, len, "DeployedMode"));
}
