/* The --esp volume as the guest sees it (simple_fs.c): a handle with the
 * device path HD(1,GPT,...) and EFI_SIMPLE_FILE_SYSTEM_PROTOCOL, whose
 * EFI_FILE_PROTOCOLs read the volume (volume.h) and write to an overlay. */
#ifndef HANDOVER_SIMPLE_FS_H
#define HANDOVER_SIMPLE_FS_H

#include "service.h"

struct volume;      /* volume.h */
/* --esp: serve a copy of the volume base (which must outlive fw) on a
 * handle of its own with the device path HD(1,GPT,...) and
 * EFI_SIMPLE_FILE_SYSTEM_PROTOCOL, in pool pages it allocates now. The
 * top-level image's LoadedImage.DeviceHandle becomes that handle; its
 * FilePath the file path node of image_path (UTF-8, '/'-separated,
 * relative to the volume's root) when the image lies on the volume, an
 * end node otherwise (image_path NULL). -1 if guest memory or host
 * memory runs out, or image_path is too long for a device path. */
int firmware_attach_esp(struct firmware *fw, const struct volume *base, const char *image_path);
#define FW_ESP_IMAGE_PATH_MAX 500   /* bytes of image_path: its file path node fits a device path */

extern const struct fw_service fw_file_system_service;
extern const struct fw_service fw_file_services[FILE_COUNT];

/* The file a device path (copied, len bytes before its end node) names on
 * the volume, for LoadImage: its bytes, the volume's own, in *data and
 * *size; EFI_NOT_FOUND if the path leads to no file there. */
efi_status_t fw_esp_file(struct firmware *fw, const struct guest_view *v, const uint8_t *path, long len,
                         const uint8_t **data, uint64_t *size);
void fw_esp_free(struct firmware *fw);
/* dst (a copy of src) gets its own copy of src's volume state; -1 if out of memory. */
int fw_esp_copy(struct firmware *dst, const struct firmware *src);
uint64_t fw_esp_copy_bytes(const struct firmware *fw);

#endif
