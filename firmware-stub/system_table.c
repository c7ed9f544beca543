/* The system table kept up to date (system_table.h). */
#include "system_table.h"

#include <stddef.h>
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

/* The configuration table (UEFI 2.10 section 4.6): entries of a GUID and a
 * pointer, 24 bytes on x64 and 20 on IA-32, and their count, a UINTN in
 * the system table; written byte by byte in the firmware's width. */
efi_status_t fw_install_config_table(struct firmware *fw, const efi_guid_t *guid, uint64_t table)
{
    unsigned w = fw_uintn_size(fw), es = (unsigned)sizeof(*guid) + w;
    size_t count_at = fw_ia32(fw) ? offsetof(struct efi_system_table32, number_of_table_entries)
                                  : offsetof(struct efi_system_table, number_of_table_entries);
    uint8_t *count = guest_mem_ptr(fw->gm, fw->systab + count_at, w);
    uint8_t *ct = guest_mem_ptr(fw->gm, fw->config_tables, (uint64_t)FW_MAX_CONFIG_TABLES * es);
    /* The count is the firmware's own: the copy in the system table is
     * guest memory and may have been overwritten. */
    uint64_t n = fw->nconfig;

    if (fw_ia32(fw) && table >> 32)
        return EFI_INVALID_PARAMETER;   /* no IA-32 pointer */
    uint64_t i = 0;
    while (i < n && memcmp(ct + i * es, guid, sizeof(*guid)))
        i++;
    if (i < n && table) {
        memcpy(ct + i * es + sizeof(*guid), &table, w);
    } else if (i < n) {
        memmove(ct + i * es, ct + (i + 1) * es, (n - i - 1) * es);
        fw->nconfig = n - 1;
    } else if (!table) {
        return EFI_NOT_FOUND;
    } else if (n >= FW_MAX_CONFIG_TABLES) {
        return EFI_OUT_OF_RESOURCES;
    } else {
        memcpy(ct + n * es, guid, sizeof(*guid));
        memcpy(ct + n * es + sizeof(*guid), &table, w);
        fw->nconfig = n + 1;
    }
    memcpy(count, &fw->nconfig, w);
    fw_update_crc(fw, fw->systab);
    return EFI_SUCCESS;
}

efi_status_t fw_finish_exit_boot_services(struct firmware *fw, uint64_t map_key)
{
    /* UEFI 2.10 section 7.1.1: those functions must not allocate memory. */
    if (map_key != fw->map.key)
        fw_log(fw, "guest bug: an ExitBootServices notify function changed the memory map");
    fw->phase = FW_PHASE_RUNTIME;
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
