/* The variable services (UEFI 2.10 section 8.2), on the variable store
 * (variable_store.h). */
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

#endif
