/* A volume (volume.h) as a FAT32 file system (Microsoft's FAT
 * specification, "fatgen103"; UEFI 2.10 section 13.3.1.1 asks FAT32 of a
 * system partition), synthesized and read-only: the boot sector, FSInfo,
 * FATs and directories are made once and kept in host memory; a file's
 * bytes are read from its node's data when the image is read, each file in
 * contiguous clusters. Free space reads as zeros. */
#ifndef HANDOVER_FW_FAT_IMAGE_H
#define HANDOVER_FW_FAT_IMAGE_H

#include <stdbool.h>
#include <stdint.h>

#define FAT_IMAGE_SECTOR_SIZE 512

struct volume;
struct fat_image;

/* The file system of vol's live tree (deleted nodes left out), labelled
 * vol->label, with volume serial number serial; hidden_sectors is the
 * sector of the disk it starts at (BPB_HiddSec); at least min_sectors
 * long, the same size for the same min_sectors whatever tree that fits
 * it. The files' data is read
 * through their nodes' data pointers, which must outlive the image and
 * keep their sizes. NULL if host memory runs out or the tree does not fit
 * FAT (a directory of more than 65536 entries, a file of 4 GiB). */
struct fat_image *fat_image_build(const struct volume *vol, uint32_t serial, uint32_t hidden_sectors,
                                  uint64_t min_sectors);
/* A min_sectors with which every tree of at most nodes nodes (the root
 * included, names of at most VOLUME_NAME_MAX characters) whose files come
 * to at most file_bytes builds to one and the same size: room for each
 * file and directory rounded up to whole clusters, every name's long-name
 * entries and the FATs, at either cluster size. */
uint64_t fat_image_sectors_to_hold(uint64_t file_bytes, unsigned nodes);
/* Whether directory dir of vol's live tree, with its child replacing
 * (-1: none) named name (len characters) instead, or with a new child so
 * named, still holds the 65536 entries a FAT directory may (fatgen103
 * section 6): its children's short entries, their long-name entries, "."
 * and "..", or the root's label. False if host memory runs out. */
bool fat_image_dir_holds(const struct volume *vol, unsigned dir, long replacing, const uint16_t *name,
                         unsigned len);
/* Its size in FAT_IMAGE_SECTOR_SIZE sectors. */
uint64_t fat_image_sectors(const struct fat_image *img);
/* len bytes at byte offset off into buf; the caller keeps off + len within
 * the image. */
void fat_image_read(const struct fat_image *img, uint64_t off, void *buf, uint64_t len);
void fat_image_free(struct fat_image *img);

#endif
