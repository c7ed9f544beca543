/* EFI_RUNTIME_SERVICES (UEFI 2.10 section 4.5): the table of its services. */
#ifndef HANDOVER_FW_RUNTIME_SERVICES_H
#define HANDOVER_FW_RUNTIME_SERVICES_H

#include "service.h"

extern const struct fw_service fw_runtime_services[RT_COUNT];

#endif
