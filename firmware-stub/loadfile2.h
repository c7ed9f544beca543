/* EFI_LOAD_FILE2_PROTOCOL.LoadFile for the initrd (UEFI 2.10 section 13.2). */
#ifndef HANDOVER_FW_LOADFILE2_H
#define HANDOVER_FW_LOADFILE2_H

#include "service.h"

extern const struct fw_service fw_loadfile2_service;

#endif
