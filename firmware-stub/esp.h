/* --esp: the folder's volume (esp_volume.h) served as a file system
 * (simple_fs.c) and as a disk (block_io.c), as a firmware serves an ESP. */
#ifndef HANDOVER_ESP_H
#define HANDOVER_ESP_H

#include "state.h"

struct volume;      /* volume.h */
/* Serve a copy of the volume base (which must outlive fw): its partition's
 * handle has EFI_SIMPLE_FILE_SYSTEM_PROTOCOL and EFI_BLOCK_IO_PROTOCOL, its
 * disk's EFI_BLOCK_IO_PROTOCOL (unless the volume cannot be a FAT disk,
 * which it says on a line). The top-level image's
 * LoadedImage.DeviceHandle becomes the partition's handle; its FilePath the
 * file path node of image_path (UTF-8, '/'-separated, relative to the
 * volume's root) when the image lies on the volume, an end node otherwise
 * (image_path NULL). On an IA-32 firmware every protocol and LoadedImage
 * field is written in the IA-32 layout (width.h). -1 if guest memory or
 * host memory runs out, or image_path is too long for a device path. */
int firmware_attach_esp(struct firmware *fw, const struct volume *base, const char *image_path);
#define FW_ESP_IMAGE_PATH_MAX 450   /* bytes of image_path: its file path node fits a device path */

#endif
