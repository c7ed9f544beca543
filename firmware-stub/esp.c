/* --esp: the volume, then the disk it is. */
#include "esp.h"

#include "block_io.h"
#include "esp_volume.h"
#include "log.h"
#include "width.h"

int firmware_attach_esp(struct firmware *fw, const struct volume *base, const char *image_path)
{
    /* EFI_FILE_PROTOCOL, EFI_BLOCK_IO_PROTOCOL, their UINTN outputs and
     * LoadedImage's DeviceHandle and FilePath are written in the x64
     * layouts only: an IA-32 caller would read them at other offsets. */
    if (fw_ia32(fw)) {
        fw_log(fw, "--esp: not served by an IA-32 firmware (its protocols are in the x64 layouts only)");
        return -1;
    }
    if (fw_esp_volume_attach(fw, base, image_path))
        return -1;
    if (fw_esp_block_io_attach(fw)) {
        fw_esp_free(fw);
        return -1;
    }
    return 0;
}
