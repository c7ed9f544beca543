/* Pool allocations: AllocatePool's, and the buffers the firmware hands
 * out itself (LocateHandleBuffer, ProtocolsPerHandle, LoadImage's info
 * page). Whole pages of the pool's type from the memory map, kept so that
 * FreePool gives exactly those back. */
#ifndef HANDOVER_FW_POOL_H
#define HANDOVER_FW_POOL_H

#include <stdint.h>

#include "state.h"

efi_status_t fw_pool_alloc(struct firmware *fw, uint32_t type, uint64_t size, uint64_t *addr);
/* EFI_INVALID_PARAMETER for an address no pool allocation returned. */
efi_status_t fw_pool_free(struct firmware *fw, uint64_t buffer);

#endif
