/* Memory allocation services (UEFI 2.10 section 7.2), for the
 * boot-services table. */
#ifndef HANDOVER_FW_MEMORY_H
#define HANDOVER_FW_MEMORY_H

#include <stdbool.h>
#include <stdint.h>

#include "service.h"

fw_handler fw_allocate_pages;
fw_handler fw_free_pages;
fw_handler fw_get_memory_map;
fw_handler fw_allocate_pool;
fw_handler fw_free_pool;
fw_decoder fw_decode_allocate_pages;
fw_decoder fw_decode_free_pages;
fw_decoder fw_decode_get_memory_map;
fw_decoder fw_decode_allocate_pool;
fw_decoder fw_decode_free_pool;

/* AllocatePages' *Memory, read after the call. */
bool fw_allocated_pages(const struct guest_view *v, const uint64_t *a, uint64_t *addr);

#endif
