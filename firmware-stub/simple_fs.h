/* The --esp volume as the guest sees it (simple_fs.c): a handle with the
 * device path VenHw(...)/HD(1,GPT,...) and EFI_SIMPLE_FILE_SYSTEM_PROTOCOL,
 * whose EFI_FILE_PROTOCOLs read the volume (volume.h) and write to an
 * overlay; and the same volume as a disk (esp_disk.h) for block_io.c. */
#ifndef HANDOVER_SIMPLE_FS_H
#define HANDOVER_SIMPLE_FS_H

#include "service.h"

struct volume;      /* volume.h */
struct esp_disk;    /* esp_disk.h */
/* firmware_attach_esp's volume (esp.h): the partition's handle with its
 * device path and EFI_SIMPLE_FILE_SYSTEM_PROTOCOL, in pool pages it
 * allocates now, and the top-level image's device and file path. */
int fw_esp_volume_attach(struct firmware *fw, const struct volume *base, const char *image_path);
/* The partition's handle, and the disk's device path, VenHw(...)/End (a
 * guest address); 0 without --esp. */
uint64_t fw_esp_handle(const struct firmware *fw);
uint64_t fw_esp_disk_device_path(const struct firmware *fw);
/* The volume as a disk: built when attached and again after the guest's
 * writes, always to the partition size its device path gives. NULL
 * without --esp, or if it cannot be built. */
const struct esp_disk *fw_esp_disk(struct firmware *fw);

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
