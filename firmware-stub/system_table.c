/* The system table kept up to date (system_table.h). */
#include "system_table.h"

#include <string.h>
#include <zlib.h>

#include "guids.h"
#include "log.h"
#include "width.h"

/* The header's CRC32 over the size the firmware made the table with: the
 * header_size in guest memory is the guest's to overwrite (another vCPU
 * can change it between two reads), so it is never read back, only set. */
void fw_update_crc(struct firmware *fw, uint64_t table)
{
    bool ia32 = fw_ia32(fw);
    uint32_t size = table == fw->systab ? (ia32 ? sizeof(struct efi_system_table32) : sizeof(struct efi_system_table))
                  : table == fw->bs     ? (ia32 ? EFI_BOOT_SERVICES32_SIZE : EFI_BOOT_SERVICES_SIZE)
                  : table == fw->rt     ? (ia32 ? EFI_RUNTIME_SERVICES32_SIZE : EFI_RUNTIME_SERVICES_SIZE) : 0;
    struct efi_table_header *h = size ? guest_mem_ptr(fw->gm, table, size) : NULL;
    if (!h)
        return;
    h->header_size = size;
    h->crc32 = 0;
    h->crc32 = (uint32_t)crc32(0, (const uint8_t *)h, size);
}

/* The IA-32 layouts' array (20-byte entries) and count. */
static efi_status_t install_config_table32(struct firmware *fw, const efi_guid_t *guid, uint64_t table)
{
    struct efi_system_table32 *st = guest_mem_ptr(fw->gm, fw->systab, sizeof(*st));
    struct efi_configuration_table32 *ct =
        guest_mem_ptr(fw->gm, fw->config_tables, FW_MAX_CONFIG_TABLES * sizeof(*ct));
    uint64_t n = fw->nconfig;

    if (table >> 32)
        return EFI_INVALID_PARAMETER;   /* no IA-32 pointer */
    for (uint64_t i = 0; i < n; i++) {
        if (!guid_equal(&ct[i].vendor_guid, guid))
            continue;
        if (table) {
            ct[i].vendor_table = (uint32_t)table;
        } else {
            memmove(&ct[i], &ct[i + 1], (n - i - 1) * sizeof(*ct));
            fw->nconfig = n - 1;
            st->number_of_table_entries = (uint32_t)fw->nconfig;
        }
        fw_update_crc(fw, fw->systab);
        return EFI_SUCCESS;
    }
    if (!table)
        return EFI_NOT_FOUND;
    if (n >= FW_MAX_CONFIG_TABLES)
        return EFI_OUT_OF_RESOURCES;
    ct[n].vendor_guid = *guid;
    ct[n].vendor_table = (uint32_t)table;
    fw->nconfig = n + 1;
    st->number_of_table_entries = (uint32_t)fw->nconfig;
    fw_update_crc(fw, fw->systab);
    return EFI_SUCCESS;
}

efi_status_t fw_install_config_table(struct firmware *fw, const efi_guid_t *guid, uint64_t table)
{
    if (fw_ia32(fw))
        return install_config_table32(fw, guid, table);
    struct efi_system_table *st = guest_mem_ptr(fw->gm, fw->systab, sizeof(*st));
    struct efi_configuration_table *ct =
        guest_mem_ptr(fw->gm, fw->config_tables, FW_MAX_CONFIG_TABLES * sizeof(*ct));
    /* The count is the firmware's own: the copy in the system table is
     * guest memory and may have been overwritten. */
    uint64_t n = fw->nconfig;

    for (uint64_t i = 0; i < n; i++) {
        if (!guid_equal(&ct[i].vendor_guid, guid))
            continue;
        if (table) {
            ct[i].vendor_table = table;
        } else {
            memmove(&ct[i], &ct[i + 1], (n - i - 1) * sizeof(*ct));
            st->number_of_table_entries = fw->nconfig = n - 1;
        }
        fw_update_crc(fw, fw->systab);
        return EFI_SUCCESS;
    }
    if (!table)
        return EFI_NOT_FOUND;
    if (n >= FW_MAX_CONFIG_TABLES)
        return EFI_OUT_OF_RESOURCES;
    ct[n].vendor_guid = *guid;
    ct[n].vendor_table = table;
    st->number_of_table_entries = fw->nconfig = n + 1;
    fw_update_crc(fw, fw->systab);
    return EFI_SUCCESS;
}

efi_status_t fw_finish_exit_boot_services(struct firmware *fw, uint64_t map_key)
{
    /* UEFI 2.10 section 7.1.1: those functions must not allocate memory. */
    if (map_key != fw->map.key)
        fw_log(fw, "guest bug: an ExitBootServices notify function changed the memory map");
    fw->phase = FW_PHASE_RUNTIME;
    fw->watchdog_seconds = 0;
    /* The boot-time fields of the system table go (as EDK2's
     * CoreExitBootServices does), so a stale use faults visibly. */
    if (fw_ia32(fw)) {
        struct efi_system_table32 *st = guest_mem_ptr(fw->gm, fw->systab, sizeof(*st));
        st->console_in_handle = st->con_in = 0;
        st->console_out_handle = st->con_out = 0;
        st->standard_error_handle = st->std_err = 0;
        st->boot_services = 0;
        fw_update_crc(fw, fw->systab);
        return EFI_SUCCESS;
    }
    struct efi_system_table *st = guest_mem_ptr(fw->gm, fw->systab, sizeof(*st));
    st->console_in_handle = st->con_in = 0;
    st->console_out_handle = st->con_out = 0;
    st->standard_error_handle = st->std_err = 0;
    st->boot_services = 0;
    fw_update_crc(fw, fw->systab);
    return EFI_SUCCESS;
}
