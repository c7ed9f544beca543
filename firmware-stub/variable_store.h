/* The variable store (UEFI 2.10 section 8.2): the firmware's variables,
 * host-side and volatile, in creation order, within a limit per variable
 * and one for the whole store. The variable services (variables.h) and
 * Secure Boot's keys (secure_boot_keys.h) keep their variables here. */
#ifndef HANDOVER_FW_VARIABLE_STORE_H
#define HANDOVER_FW_VARIABLE_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "auth_variable.h"
#include "state.h"

#define VAR_NAME_MAX   512            /* characters, with the NUL */
#define VAR_DATA_MAX   (64u << 10)    /* bytes per variable */
#define VAR_STORE_MAX  (1u << 20)     /* bytes in all */

struct fw_variable {
    struct fw_variable *next;
    efi_guid_t guid;
    uint32_t attrs;
    uint16_t name[VAR_NAME_MAX];
    size_t name_len;             /* characters, without the NUL */
    uint8_t *data;
    uint64_t size;
    uint8_t timestamp[EFI_TIME_SIZE];   /* an authenticated variable's latest TimeStamp */
};

/* Can the store hold total bytes of data for the variable at p (NULL: a
 * new one)? EFI_SUCCESS; past a variable's VAR_DATA_MAX
 * EFI_INVALID_PARAMETER (UEFI 2.10 section 8.2: DataSize exceeds the
 * maximum; EDK2's UpdateVariable likewise for an append); past the store
 * EFI_OUT_OF_RESOURCES. */
efi_status_t fw_variable_room(const struct firmware *fw, struct fw_variable *const *p, uint64_t total);
/* The most data a new variable can hold now: VAR_DATA_MAX, less as the
 * store fills (what fw_variable_room takes). */
uint64_t fw_variable_largest(const struct firmware *fw);
/* Does the guest see the variable now: every one before
 * ExitBootServices, after it those with RUNTIME_ACCESS. */
bool fw_variable_visible(const struct firmware *fw, const struct fw_variable *var);
/* The link to the variable named name (len characters) under g, or NULL. */
struct fw_variable **fw_variable_find(struct firmware *fw, const uint16_t *name, size_t len, const efi_guid_t *g);
/* The variable at p (NULL: a new one, added last so that
 * GetNextVariableName walks in creation order) holds bytes (taken) from
 * now on; NULL if out of memory (bytes freed). */
struct fw_variable *fw_variable_put(struct firmware *fw, struct fw_variable **p, const uint16_t *name, size_t len,
                                    const efi_guid_t *g, uint32_t attrs, uint8_t *bytes, uint64_t size);
void fw_variable_delete(struct firmware *fw, struct fw_variable **p);
/* ascii as a UCS-2 name (no NUL written): its length. */
size_t fw_variable_ascii_name(const char *ascii, uint16_t *name);
/* The variable named ascii under g: its data, or false if there is none. */
bool fw_variable_data(const struct firmware *fw, const char *ascii, const efi_guid_t *g, const uint8_t **data,
                      uint64_t *size);
void fw_variables_free(struct firmware *fw);
/* dst's store (empty) becomes a copy of src's; -1 if out of memory. */
int fw_variables_copy(struct firmware *dst, const struct firmware *src);

#endif
