/* EFI_SYSTEM_TABLE kept up to date after the firmware built it: the
 * tables' CRCs, the configuration tables, and the boot-time fields gone
 * once boot services end (UEFI 2.10 chapter 4). */
#ifndef HANDOVER_FW_SYSTEM_TABLE_H
#define HANDOVER_FW_SYSTEM_TABLE_H

#include <stdint.h>

#include "state.h"

/* The CRC32 of the system table, fw->bs or fw->rt, after a change. */
void fw_update_crc(struct firmware *fw, uint64_t table);
/* InstallConfigurationTable's work: add, replace or (table 0) remove the
 * GUID's entry. */
efi_status_t fw_install_config_table(struct firmware *fw, const efi_guid_t *guid, uint64_t table);
/* ExitBootServices once its event group's notify functions have run
 * (map_key: the one it was given): the runtime phase begins. */
efi_status_t fw_finish_exit_boot_services(struct firmware *fw, uint64_t map_key);

#endif
