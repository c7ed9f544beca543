/* EFI_LOAD_FILE2_PROTOCOL.LoadFile for the initrd (UEFI 2.10 section
 * 13.2): a size probe answers EFI_BUFFER_TOO_SMALL with the size, then the
 * bytes are copied into the caller's buffer. BootPolicy must be FALSE for
 * LoadFile2, and FilePath the end node alone: the initrd is the whole
 * device. */
#include "loadfile2.h"

#include "handles.h"
#include "trace_decode.h"
#include "width.h"

static efi_status_t load_file(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t this = a[0], file_path = a[1], size_ptr = a[3], buffer = a[4];
    uint8_t boot_policy = (uint8_t)a[2];   /* a BOOLEAN: the rest of its register or stack slot is not the caller's */
    uint64_t size;
    uint8_t path[FW_DEVICE_PATH_SIZE];
    /* Without --initrd there is no protocol: its thunk serves nothing. */
    if (!fw->initrd_lf2 || this != fw->initrd_lf2 || !size_ptr || !fw_read_uintn(fw, v, size_ptr, &size))
        return EFI_INVALID_PARAMETER;
    long path_len = fw_device_path_copy(v, file_path, path);
    if (path_len < 0)
        return EFI_INVALID_PARAMETER;
    if (boot_policy)
        return EFI_UNSUPPORTED;
    /* FilePath is what LocateDevicePath left of the initrd's path (the
     * stub's efi_load_initrd_dev_path passes it on): the initrd is the
     * whole device, so only the end node names it. */
    if (path_len)
        return EFI_NOT_FOUND;
    if (!buffer || size < fw->cfg.initrd_size) {
        fw_write_uintn(fw, v, size_ptr, fw->cfg.initrd_size);
        return EFI_BUFFER_TOO_SMALL;
    }
    if (!guest_view_write(v, buffer, fw->cfg.initrd, fw->cfg.initrd_size))
        return EFI_INVALID_PARAMETER;
    fw_write_uintn(fw, v, size_ptr, fw->cfg.initrd_size);
    return EFI_SUCCESS;
}

static void decode_load_file(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                             const uint64_t *a, efi_status_t status)
{
    (void)s, (void)status;
    fw_trace_ptr_uintn(o, "buffer_size", v, a[3], false);
}

const struct fw_service fw_loadfile2_service = {
    .id = FW_ID_LOADFILE2, .name = "LoadFile2.LoadFile", .nargs = 5, .fn = load_file, .decode = decode_load_file,
};
