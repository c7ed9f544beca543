/* The --esp volume as a disk (block_io.c): EFI_BLOCK_IO_PROTOCOL on the
 * disk, a handle of its own with the device path VenHw(...)/End, and on
 * the ESP partition's handle, read-only, as a firmware's disk driver and
 * partition driver give them. GRUB reads its files through these. */
#ifndef HANDOVER_BLOCK_IO_H
#define HANDOVER_BLOCK_IO_H

#include "service.h"

/* After fw_esp_volume_attach: a new handle for the disk, with its device
 * path and EFI_BLOCK_IO_PROTOCOL, and the protocol on the partition's
 * handle too, in a pool page it allocates now; none, said on a line, if
 * the volume cannot be a disk. -1 if guest memory or handles run out. */
int fw_esp_block_io_attach(struct firmware *fw);

extern const struct fw_service fw_block_io_services[BLOCK_IO_COUNT];

#endif
