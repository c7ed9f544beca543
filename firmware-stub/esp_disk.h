/* The --esp volume as a disk, for what reads disks through
 * EFI_BLOCK_IO and its own partition and FAT drivers (GRUB): a GPT disk
 * whose one partition is the volume as a FAT file system (fat_image.h),
 * synthesized and read-only, never written to the host. Pure. */
#ifndef HANDOVER_FW_ESP_DISK_H
#define HANDOVER_FW_ESP_DISK_H

#include <stdint.h>

#include "efi.h"

#define ESP_DISK_BLOCK_SIZE      512
#define ESP_DISK_PARTITION_START 2048   /* LBA of the partition, as partitioning tools align it */

struct volume;
struct esp_disk;

/* A GPT disk (UEFI 2.10 section 5.3: protective MBR, primary header and 128 entries at LBA 1-33, backup at
 * the end) with one partition, type EFI System Partition (C12A7328-F81F-11D2-BA4B-00A0C93EC93B), unique GUID
 * *partition_guid, from ESP_DISK_PARTITION_START, holding a FAT file system with vol's live tree (deleted
 * nodes left out) and vol->label as its label, at least min_partition_blocks long (a size that stays when
 * the disk is built again for a tree that fits it). NULL if host memory runs out or the tree cannot fit FAT.
 * The files' bytes are read from their nodes' data on esp_disk_read: vol's data must outlive the disk and
 * keep its sizes (after a write to the volume, build the disk again). The same volume and GUID give the
 * same bytes. */
struct esp_disk *esp_disk_build(const struct volume *vol, const efi_guid_t *partition_guid,
                                uint64_t min_partition_blocks);
/* A min_partition_blocks that every volume of at most nodes nodes whose
 * files come to at most file_bytes is built to (fat_image.h's
 * fat_image_sectors_to_hold): what the guest writes, within those bounds,
 * never moves the partition's end. */
uint64_t esp_disk_partition_blocks_to_hold(uint64_t file_bytes, unsigned nodes);
uint64_t esp_disk_blocks(const struct esp_disk *d);            /* the whole disk, in ESP_DISK_BLOCK_SIZE blocks */
uint64_t esp_disk_partition_blocks(const struct esp_disk *d);  /* the partition's */
/* len bytes at byte offset off of the whole disk into buf; the caller keeps off + len <= blocks * 512. */
void esp_disk_read(const struct esp_disk *d, uint64_t off, void *buf, uint64_t len);
void esp_disk_free(struct esp_disk *d);

#endif
