/* --esp DIR: the host folder read into the base volume the firmware
 * serves (firmware-stub/volume.h), once, before the guest runs; the guest
 * sees copies, and nothing it does reaches the folder. Every path is
 * opened beneath DIR (openat2 RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS): a
 * symlink leading out of DIR, or ".." above it, is left out. */
#ifndef HANDOVER_ESP_DIR_H
#define HANDOVER_ESP_DIR_H

#include <stddef.h>

#include "../../firmware-stub/volume.h"

/* Read DIR into vol (volume_init'd here; volume_free it, also after a
 * failure). Entries left out are each said through note: a symlink out of
 * DIR or back to a directory it is in (a loop), anything but a regular
 * file or a directory, a name that is not UTF-8 of the BMP (UCS-2) or
 * that a volume may not hold (a control character, one of
 * " * : < > ? \ |: volume_name_valid), a name another entry has but for
 * case (FAT tells no case apart). -1 with the reason in err when a file
 * is larger than VOLUME_FILE_MAX, all files together than
 * VOLUME_BASE_MAX, there are more than VOLUME_NODES_MAX entries or
 * VOLUME_DEPTH_MAX levels, or something cannot be read. */
int esp_dir_read(const char *dir, struct volume *vol, void (*note)(const char *line), char *err, size_t errlen);

/* The image's path below DIR ("EFI/BOOT/BOOTX64.EFI") into out, when the
 * image (its real path, symlinks resolved) lies in DIR and the path fits
 * len bytes: 0; -1 if not. */
int esp_dir_image_path(const char *dir, const char *image, char *out, size_t len);

#endif
