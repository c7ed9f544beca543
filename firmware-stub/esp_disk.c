/* The --esp volume as a GPT disk (esp_disk.h; UEFI 2.10 section 5.3):
 * LBA 0 the protective MBR, LBA 1 the GPT header, LBA 2-33 its 128
 * partition entries, the FAT partition from LBA 2048, and right after it
 * the backup entries and, in the last block, the backup header. */
#include "esp_disk.h"
#include "fat_image.h"
#include "le_bytes.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define BLOCK               ESP_DISK_BLOCK_SIZE
#define GPT_ENTRIES         128
#define GPT_ENTRY_SIZE      128
#define GPT_ENTRY_BLOCKS    (GPT_ENTRIES * GPT_ENTRY_SIZE / BLOCK)
#define GPT_HEADER_LBA      1
#define GPT_ENTRY_LBA       2
#define GPT_HEADER_SIZE     92
#define GPT_REVISION        0x00010000u
#define HEAD_BLOCKS         (GPT_ENTRY_LBA + GPT_ENTRY_BLOCKS)   /* MBR, header, entries */
#define TAIL_BLOCKS         (GPT_ENTRY_BLOCKS + 1)               /* backup entries, backup header */
#define MBR_PARTITION       446     /* the first of the MBR's four partition records */
#define MBR_TYPE_PROTECTIVE 0xee
#define CHS_HEADS           255
#define CHS_SECTORS         63
#define CHS_CYLINDERS       1024
#define ESP_NAME            u"EFI System Partition"
#define ESP_TYPE_GUID       EFI_GUID(0xc12a7328, 0xf81f, 0x11d2, 0xba, 0x4b, 0x00, 0xa0, 0xc9, 0x3e, 0xc9, 0x3b)
/* The disk's own GUID, the same for every --esp: "hand" "ov" "Er" ... 'D'. */
#define DISK_GUID           EFI_GUID(0x68616e64, 0x6f76, 0x4572, 0x8e, 0x53, 0x44, 0x00, 0x00, 0x00, 0x00, 0x01)

struct esp_disk {
    struct fat_image *fat;
    uint64_t blocks, partition_blocks;
    uint8_t head[HEAD_BLOCKS * BLOCK];
    uint8_t tail[TAIL_BLOCKS * BLOCK];
};

/* A CHS address of the MBR (head, sector and cylinder's high bits,
 * cylinder), 0xFFFFFF when lba lies beyond what CHS can say. */
static void chs(uint8_t out[3], uint64_t lba)
{
    uint64_t cylinder = lba / (CHS_HEADS * CHS_SECTORS);
    if (cylinder >= CHS_CYLINDERS) {
        memset(out, 0xff, 3);
        return;
    }
    unsigned head = (unsigned)(lba / CHS_SECTORS % CHS_HEADS), sector = (unsigned)(lba % CHS_SECTORS) + 1;
    out[0] = (uint8_t)head;
    out[1] = (uint8_t)(sector | (cylinder >> 8) << 6);
    out[2] = (uint8_t)cylinder;
}

/* The protective MBR (UEFI 2.10 section 5.2.3): one record of type 0xEE
 * over the whole disk from LBA 1. */
static void write_mbr(uint8_t *mbr, uint64_t blocks)
{
    uint8_t *r = mbr + MBR_PARTITION;
    chs(r + 1, GPT_HEADER_LBA);
    r[4] = MBR_TYPE_PROTECTIVE;
    chs(r + 5, blocks - 1);
    put32(r + 8, GPT_HEADER_LBA);
    put32(r + 12, blocks - 1 > UINT32_MAX ? UINT32_MAX : (uint32_t)(blocks - 1));
    put16(mbr + 510, 0xaa55);
}

static void write_entry(uint8_t *e, const efi_guid_t *partition_guid, uint64_t first, uint64_t last)
{
    static const uint16_t name[] = ESP_NAME;
    const efi_guid_t type = ESP_TYPE_GUID;
    memcpy(e, &type, sizeof(type));
    memcpy(e + 16, partition_guid, sizeof(*partition_guid));
    put64(e + 32, first);
    put64(e + 40, last);
    for (unsigned i = 0; name[i]; i++)   /* PartitionName, 36 UCS-2 characters at 56 */
        put16(e + 56 + 2 * i, name[i]);
}

/* A GPT header (UEFI 2.10 section 5.3.2) at my_lba, its entries at
 * entry_lba with their CRC-32 entries_crc. */
static void write_header(uint8_t *h, const struct esp_disk *d, uint64_t my_lba, uint64_t alternate_lba,
                         uint64_t entry_lba, uint32_t entries_crc)
{
    const efi_guid_t disk_guid = DISK_GUID;
    memcpy(h, "EFI PART", 8);
    put32(h + 8, GPT_REVISION);
    put32(h + 12, GPT_HEADER_SIZE);
    put64(h + 24, my_lba);
    put64(h + 32, alternate_lba);
    put64(h + 40, HEAD_BLOCKS);                    /* FirstUsableLBA */
    put64(h + 48, d->blocks - TAIL_BLOCKS - 1);    /* LastUsableLBA */
    memcpy(h + 56, &disk_guid, sizeof(disk_guid));
    put64(h + 72, entry_lba);
    put32(h + 80, GPT_ENTRIES);
    put32(h + 84, GPT_ENTRY_SIZE);
    put32(h + 88, entries_crc);
    put32(h + 16, (uint32_t)crc32(0, h, GPT_HEADER_SIZE));   /* HeaderCRC32, computed with itself 0 */
}

struct esp_disk *esp_disk_build(const struct volume *vol, const efi_guid_t *partition_guid,
                                uint64_t min_partition_blocks)
{
    struct esp_disk *d = calloc(1, sizeof(*d));
    if (!d)
        return NULL;
    /* The volume serial number: the partition GUID's CRC-32, so that it
     * stays when the disk is built again after the guest's writes. */
    uint32_t serial = (uint32_t)crc32(0, (const uint8_t *)partition_guid, sizeof(*partition_guid));
    d->fat = fat_image_build(vol, serial, ESP_DISK_PARTITION_START, min_partition_blocks);
    if (!d->fat) {
        free(d);
        return NULL;
    }
    d->partition_blocks = fat_image_sectors(d->fat);
    d->blocks = ESP_DISK_PARTITION_START + d->partition_blocks + TAIL_BLOCKS;

    uint8_t *entries = d->head + GPT_ENTRY_LBA * BLOCK;
    write_mbr(d->head, d->blocks);
    write_entry(entries, partition_guid, ESP_DISK_PARTITION_START,
                ESP_DISK_PARTITION_START + d->partition_blocks - 1);
    uint32_t entries_crc = (uint32_t)crc32(0, entries, GPT_ENTRIES * GPT_ENTRY_SIZE);
    write_header(d->head + GPT_HEADER_LBA * BLOCK, d, GPT_HEADER_LBA, d->blocks - 1, GPT_ENTRY_LBA, entries_crc);
    memcpy(d->tail, entries, GPT_ENTRY_BLOCKS * BLOCK);
    write_header(d->tail + GPT_ENTRY_BLOCKS * BLOCK, d, d->blocks - 1, GPT_HEADER_LBA, d->blocks - TAIL_BLOCKS,
                 entries_crc);
    return d;
}

_Static_assert(FAT_IMAGE_SECTOR_SIZE == BLOCK, "a partition block is a file system sector");

uint64_t esp_disk_partition_blocks_to_hold(uint64_t file_bytes, unsigned nodes)
{
    return fat_image_sectors_to_hold(file_bytes, nodes);
}

uint64_t esp_disk_blocks(const struct esp_disk *d)
{
    return d->blocks;
}

uint64_t esp_disk_partition_blocks(const struct esp_disk *d)
{
    return d->partition_blocks;
}

void esp_disk_read(const struct esp_disk *d, uint64_t off, void *buf, uint64_t len)
{
    uint8_t *out = buf;
    uint64_t end = off + len;
    uint64_t part = (uint64_t)ESP_DISK_PARTITION_START * BLOCK, part_end = part + d->partition_blocks * BLOCK;
    uint64_t tail = (d->blocks - TAIL_BLOCKS) * BLOCK;
    memset(out, 0, len);
    if (off < sizeof(d->head))
        memcpy(out, d->head + off, (end < sizeof(d->head) ? end : sizeof(d->head)) - off);
    if (off < part_end && end > part) {
        uint64_t from = off > part ? off : part, to = end < part_end ? end : part_end;
        fat_image_read(d->fat, from - part, out + (from - off), to - from);
    }
    if (end > tail) {
        uint64_t from = off > tail ? off : tail;
        memcpy(out + (from - off), d->tail + (from - tail), end - from);
    }
}

void esp_disk_free(struct esp_disk *d)
{
    if (!d)
        return;
    fat_image_free(d->fat);
    free(d);
}
