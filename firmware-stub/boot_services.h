/* EFI_BOOT_SERVICES (UEFI 2.10 section 4.4): the table of its services. */
#ifndef HANDOVER_FW_BOOT_SERVICES_H
#define HANDOVER_FW_BOOT_SERVICES_H

#include "service.h"

extern const struct fw_service fw_boot_services[BS_COUNT];

#endif
