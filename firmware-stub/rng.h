/* EFI_RNG_PROTOCOL (UEFI 2.10 section 37.5): its service table. */
#ifndef HANDOVER_FW_RNG_H
#define HANDOVER_FW_RNG_H

#include "service.h"

extern const struct fw_service fw_rng_services[RNG_COUNT];

#endif
