/* The --esp volume's file system (simple_fs.c): EFI_SIMPLE_FILE_SYSTEM_PROTOCOL
 * on the partition's handle (esp_volume.h), whose EFI_FILE_PROTOCOLs read
 * the volume and write to its overlay. */
#ifndef HANDOVER_SIMPLE_FS_H
#define HANDOVER_SIMPLE_FS_H

#include "service.h"

extern const struct fw_service fw_file_system_service;
extern const struct fw_service fw_file_services[FILE_COUNT];

#endif
