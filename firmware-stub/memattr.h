/* EFI_MEMORY_ATTRIBUTE_PROTOCOL (UEFI 2.10 section 37.7): its service
 * table. */
#ifndef HANDOVER_FW_MEMATTR_H
#define HANDOVER_FW_MEMATTR_H

#include "service.h"

extern const struct fw_service fw_memattr_services[MEMATTR_COUNT];

#endif
