/* Secure Boot (cfg.secure_boot): PK, KEK, db and dbx in the variable
 * store, written only with a signature, and the mode variables derived
 * from PK: Setup Mode until PK is enrolled, then User Mode, where
 * LoadImage admits only what db allows and dbx does not forbid (UEFI 2.10
 * sections 8.2.2 and 32.3). */
#ifndef HANDOVER_FW_SECURE_BOOT_KEYS_H
#define HANDOVER_FW_SECURE_BOOT_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "auth_variable.h"
#include "state.h"

enum firmware_secure_boot_state { FW_SECURE_BOOT_OFF, FW_SECURE_BOOT_SETUP_MODE, FW_SECURE_BOOT_USER_MODE };
/* The mode variables, derived from the store (Setup Mode when empty); -1
 * if out of memory. */
int fw_secure_boot_init(struct firmware *fw);
/* SetVariable of key (name, len characters, under g) with the size bytes
 * at data, an EFI_VARIABLE_AUTHENTICATION_2 and the new signature lists;
 * a refusal is logged with its reason. */
efi_status_t fw_set_key_variable(struct firmware *fw, const struct guest_view *v, enum secure_boot_key key,
                                 const uint16_t *name, size_t len, const efi_guid_t *g, uint64_t attrs, uint64_t size,
                                 uint64_t data);
/* Enrol a key as SetVariable would write it: key_name is PK, KEK, db or
 * dbx, data an EFI_VARIABLE_AUTHENTICATION_2 and the signature lists
 * (sign-efi-sig-list's .auth file). -1 with the status and why in err. */
int firmware_secure_boot_enroll(struct firmware *fw, const char *key_name, const uint8_t *data, size_t size, char *err,
                          size_t errlen);
enum firmware_secure_boot_state firmware_secure_boot_state(const struct firmware *fw);
/* May the image file run? Always in Setup Mode or without Secure Boot;
 * in User Mode as db and dbx decide (authenticode.h). why says why. */
bool firmware_secure_boot_allows(struct firmware *fw, const uint8_t *file, size_t size, char *why, size_t whylen);

#endif
