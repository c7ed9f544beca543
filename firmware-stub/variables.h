/* The variable store behind the variable services (UEFI 2.10 section 8.2). */
#ifndef HANDOVER_FW_VARIABLES_H
#define HANDOVER_FW_VARIABLES_H

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
/* dst's store (empty) becomes a copy of src's; -1 if out of memory. */
int fw_variables_copy(struct firmware *dst, const struct firmware *src);

#endif
