/* EFI_LOAD_FILE2_PROTOCOL.LoadFile for the initrd (UEFI 2.10 section
 * 13.2): a size probe answers EFI_BUFFER_TOO_SMALL with the size, then the
 * bytes are copied into the caller's buffer. BootPolicy must be FALSE for
 * LoadFile2. */
#include "internal.h"

static efi_status_t load_file(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t size;
    if (a[0] != fw->initrd_lf2 || !a[3] || !guest_view_read_u64(v, a[3], &size))
        return EFI_INVALID_PARAMETER;
    if (a[2])
        return EFI_UNSUPPORTED;
    if (!a[4] || size < fw->cfg.initrd_size) {
        guest_view_write_u64(v, a[3], fw->cfg.initrd_size);
        return EFI_BUFFER_TOO_SMALL;
    }
    if (!guest_view_write(v, a[4], fw->cfg.initrd, fw->cfg.initrd_size))
        return EFI_INVALID_PARAMETER;
    guest_view_write_u64(v, a[3], fw->cfg.initrd_size);
    return EFI_SUCCESS;
}

const struct fw_service fw_loadfile2_service = { FW_ID_LOADFILE2, "LoadFile2.LoadFile", 5, load_file };
