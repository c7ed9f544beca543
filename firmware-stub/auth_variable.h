/* Time-based authenticated variables (UEFI 2.10 section 8.2.2): the
 * EFI_VARIABLE_AUTHENTICATION_2 descriptor that leads SetVariable's data,
 * the data its signature covers, and the Secure Boot variables whose
 * writes must carry one (section 32.3). */
#ifndef HANDOVER_AUTH_VARIABLE_H
#define HANDOVER_AUTH_VARIABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "efi.h"
#include "signed_data.h"

#define EFI_VARIABLE_TIME_BASED_AUTHENTICATED_WRITE_ACCESS 0x20u

/* The keys of Secure Boot, each written only with a signature. */
enum secure_boot_key { SB_NOT_A_KEY, SB_PK, SB_KEK, SB_DB, SB_DBX };

struct auth2 {
    uint8_t timestamp[EFI_TIME_SIZE];    /* EFI_TIME, as signed */
    const uint8_t *signature;            /* the bare PKCS#7 SignedData (WIN_CERTIFICATE_UEFI_GUID's CertData) */
    size_t signature_size;
    const uint8_t *payload;              /* the variable's new data */
    size_t payload_size;
};

/* Split SetVariable's data into its descriptor and payload. -1 with the
 * fault in err if the descriptor is malformed: not a PKCS#7
 * WIN_CERTIFICATE_UEFI_GUID, or a TimeStamp whose Pad1, Nanosecond,
 * TimeZone, Daylight and Pad2 are not zero. */
int auth2_parse(const uint8_t *data, size_t size, struct auth2 *a, char *err, size_t errlen);

/* Does a's signature, digested by SHA-256, verify over VariableName (len
 * characters, no NUL), VendorGuid, Attributes, TimeStamp and the payload,
 * with an anchor's certificate? 0, or -1 with why not. */
int auth2_verify(const struct auth2 *a, const uint16_t *name, size_t len, const efi_guid_t *guid, uint32_t attrs,
                 const struct signed_data_anchors *anchors, char *err, size_t errlen);

/* Order of two EFI_TIMEs: <0, 0, >0. */
int efi_time_compare(const uint8_t a[EFI_TIME_SIZE], const uint8_t b[EFI_TIME_SIZE]);

/* Which key the variable is: PK and KEK under EFI_GLOBAL_VARIABLE, db and
 * dbx under EFI_IMAGE_SECURITY_DATABASE_GUID. */
enum secure_boot_key secure_boot_key_of(const uint16_t *name, size_t len, const efi_guid_t *guid);
/* Is it one of the modes the firmware derives (SecureBoot, SetupMode,
 * AuditMode, DeployedMode), read-only to the guest? */
bool secure_boot_mode_variable(const uint16_t *name, size_t len, const efi_guid_t *guid);

#endif
