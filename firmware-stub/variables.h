/* The variable store behind the variable services (UEFI 2.10 section 8.2). */
#ifndef HANDOVER_FW_VARIABLES_H
#define HANDOVER_FW_VARIABLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "state.h"

efi_status_t fw_get_variable(struct firmware *fw, const struct guest_view *v, uint64_t name, uint64_t guid,
                             uint64_t attrs, uint64_t size, uint64_t data);
efi_status_t fw_get_next_variable_name(struct firmware *fw, const struct guest_view *v, uint64_t size,
                                       uint64_t name, uint64_t guid);
efi_status_t fw_set_variable(struct firmware *fw, const struct guest_view *v, uint64_t name, uint64_t guid,
                             uint64_t attrs, uint64_t size, uint64_t data);
efi_status_t fw_query_variable_info(struct firmware *fw, const struct guest_view *v, uint64_t attrs,
                                    uint64_t max_storage, uint64_t remaining, uint64_t max_size);
void fw_variables_free(struct firmware *fw);
/* The variable named ascii under g: its data, or false if there is none. */
bool fw_variable_data(const struct firmware *fw, const char *ascii, const efi_guid_t *g, const uint8_t **data,
                      uint64_t *size);

/* Secure Boot (cfg.secure_boot): Setup Mode until PK is enrolled, then
 * User Mode, where LoadImage admits only what db allows and dbx does not
 * forbid (UEFI 2.10 section 32.3). */
enum firmware_secure_boot_state { FW_SECURE_BOOT_OFF, FW_SECURE_BOOT_SETUP_MODE, FW_SECURE_BOOT_USER_MODE };
/* The mode variables, derived from the store (Setup Mode when empty); -1
 * if out of memory. */
int fw_secure_boot_init(struct firmware *fw);
/* Enrol a key as SetVariable would write it: key_name is PK, KEK, db or
 * dbx, data an EFI_VARIABLE_AUTHENTICATION_2 and the signature lists
 * (sign-efi-sig-list's .auth file). -1 with the status and why in err. */
int firmware_secure_boot_enroll(struct firmware *fw, const char *key_name, const uint8_t *data, size_t size, char *err,
                          size_t errlen);
enum firmware_secure_boot_state firmware_secure_boot_state(const struct firmware *fw);
/* May the image file run? Always in Setup Mode or without Secure Boot;
 * in User Mode as db and dbx decide (authenticode.h). why says why. */
bool firmware_secure_boot_allows(struct firmware *fw, const uint8_t *file, size_t size, char *why, size_t whylen);
/* dst's store (empty) becomes a copy of src's; -1 if out of memory. */
int fw_variables_copy(struct firmware *dst, const struct firmware *src);

#endif
