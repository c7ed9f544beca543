/* EFI_RUNTIME_SERVICES (UEFI 2.10 section 4.5): the table of its services. */
#ifndef HANDOVER_FW_RUNTIME_SERVICES_H
#define HANDOVER_FW_RUNTIME_SERVICES_H

#include "service.h"

extern const struct fw_service fw_runtime_services[RT_COUNT];

struct firmware;
/* The EFI_RT_SUPPORTED_* mask of the services fw serves after
 * ExitBootServices (EFI_RT_PROPERTIES_TABLE). */
uint32_t fw_runtime_services_supported(const struct firmware *fw);

#endif
