/* ConOut and ConIn (UEFI 2.10 chapter 12): their service tables. */
#ifndef HANDOVER_FW_CONSOLE_H
#define HANDOVER_FW_CONSOLE_H

#include "service.h"

extern const struct fw_service fw_conout_services[CONOUT_COUNT];
extern const struct fw_service fw_conin_services[CONIN_COUNT];

#endif
