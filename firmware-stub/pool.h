/* Pool allocations: AllocatePool's, and the buffers the firmware hands
 * out itself (LocateHandleBuffer, ProtocolsPerHandle, LoadImage's info
 * page). Whole pages of the pool's type from the memory map, kept so that
 * FreePool gives exactly those back. */
#ifndef HANDOVER_FW_POOL_H
#define HANDOVER_FW_POOL_H

#include <stdbool.h>
#include <stdint.h>

#include "state.h"

efi_status_t fw_pool_alloc(struct firmware *fw, uint32_t type, uint64_t size, uint64_t *addr);
/* A pool allocation the firmware keeps for itself while it serves what
 * lies there (LoadImage's info page, the --esp volume's protocols). */
efi_status_t fw_pool_take(struct firmware *fw, uint32_t type, uint64_t size, uint64_t *addr);
/* EFI_INVALID_PARAMETER for an address no pool allocation returned, and
 * unless own, for one fw_pool_take returned: FreePool passes false, as
 * the guest did not allocate those (UEFI 2.10 section 7.2.5). */
efi_status_t fw_pool_free(struct firmware *fw, uint64_t buffer, bool own);

#endif
