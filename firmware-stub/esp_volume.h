/* The --esp volume's state (esp_volume.c): a copy of the host folder's
 * volume (volume.h) on a handle of its own whose device path is a
 * hard-drive media node on a disk, VenHw(...)/HD(1,GPT,...)/End, as a
 * firmware gives an ESP partition; the same volume as that disk
 * (esp_disk.h), which block_io.c serves; and the files the guest has open
 * through EFI_FILE_PROTOCOL (simple_fs.c). The guest's writes land in the
 * copy (the overlay), never in the host folder. */
#ifndef HANDOVER_ESP_VOLUME_H
#define HANDOVER_ESP_VOLUME_H

#include <stdbool.h>
#include <stdint.h>

#include "esp_disk.h"
#include "service.h"
#include "volume.h"

/* In the pool pages fw_esp_volume_attach allocates: */
#define ESP_SFS               0x000   /* EFI_SIMPLE_FILE_SYSTEM_PROTOCOL: Revision, OpenVolume */
#define ESP_FILES             0x1000  /* an EFI_FILE_PROTOCOL per open file, FILE_SLOT_SIZE bytes each */
#define ESP_PAGES             4
#define FILE_SLOT_SIZE        0x60
#define ESP_MAX_FILES         ((ESP_PAGES * 0x1000 - ESP_FILES) / FILE_SLOT_SIZE)

struct fw_file {
    bool open;
    unsigned node;
    uint64_t position;           /* a file's byte offset; a directory's last entry read (0: none yet) */
    uint64_t mode;               /* EFI_FILE_MODE_* it was opened with */
};

struct fw_esp {
    struct volume vol;           /* the host folder's copy, with the guest's writes */
    uint64_t page, handle;       /* guest addresses */
    uint64_t partition_blocks;   /* the partition's size, fixed: the disk is rebuilt to it */
    bool has_disk;               /* the volume could be a disk when attached */
    struct esp_disk *disk;       /* the volume as a disk; NULL: to be built */
    bool disk_stale;             /* the guest wrote since it was built */
    struct fw_file file[ESP_MAX_FILES];   /* EFI_FILE_PROTOCOL at page + ESP_FILES + i * FILE_SLOT_SIZE */
};


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
/* Whether directory dir may take a child named name (len characters), a
 * new one or child replacing renamed (-1: none), and the volume still be
 * a disk: a FAT directory holds 65536 entries. Always true for a volume
 * that was no disk to begin with. */
bool fw_esp_dir_may_hold(const struct firmware *fw, unsigned dir, long replacing, const uint16_t *name,
                         unsigned len);
/* The volume's size as the device path and EFI_FILE_SYSTEM_INFO give it:
 * the host's files and room for the overlay. */
uint64_t fw_esp_volume_bytes(const struct volume *vol);

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
