/* --esp: the volume, then the disk it is. */
#include "esp.h"

#include "block_io.h"
#include "esp_volume.h"

int firmware_attach_esp(struct firmware *fw, const struct volume *base, const char *image_path)
{
    if (fw_esp_volume_attach(fw, base, image_path))
        return -1;
    if (fw_esp_block_io_attach(fw)) {
        fw_esp_free(fw);
        return -1;
    }
    return 0;
}
