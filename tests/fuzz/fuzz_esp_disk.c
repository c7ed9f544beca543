/* libFuzzer harness for the --esp folder as a disk (firmware-stub/
 * esp_disk.c, fat_image.c, fat_name.c): a volume built from the input, as
 * a host folder and the guest's writes shape one (any UCS-2 names, sizes,
 * times, attributes, deletions, a label), laid out by esp_disk_build, and
 * read back by esp_disk_read. Checks: the disk is at least 2048 + the
 * partition + 33 blocks and the partition at least the size asked for;
 * the protective MBR and both GPT headers are whole (signature, their
 * CRC-32s, each other's LBAs); building again gives the same bytes; reads
 * at any offset and length inside the disk equal the same bytes read
 * whole; a file's bytes appear in the partition (its first 16 bytes, when
 * a file has that many of its own); built to the size that holds any
 * volume of its nodes and bytes (esp_disk_partition_blocks_to_hold), it is
 * the size an empty volume is built to.
 *
 * Input format (missing bytes are zeros):
 *   min_blocks u32 (its low 22 bits: the partition's least size), label
 *   length byte (% 12) and that many UCS-2 characters (u16 each), then
 *   steps until the input ends, each an op byte, op % 4:
 *     0  dir:  a parent choice byte, a name
 *     1  file: a parent choice byte, a name, size u16 (* 1 + the op's high
 *        nibble * 4096), a fill byte (the bytes are fill + their index),
 *        mtime i64, attribute byte
 *     2  delete: a node choice byte (not the root; a directory only if empty)
 *     3  read: offset u32 (% the disk's bytes), length u16 (at most 64 KiB)
 *        to check after the build
 *   name: a length byte (% 40, then + 1) and that many u16 characters
 *   parent choice: % the nodes so far; a file there stands for the root */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "../../firmware-stub/esp_disk.h"
#include "../../firmware-stub/volume.h"
#include "fuzz_harness.h"
#include "fuzz_input.h"

#define BLOCK       ESP_DISK_BLOCK_SIZE
#define MAX_READS   16
#define MAX_FILE    (65535 + 15 * 4096)

struct read_at {
    uint64_t off, len;
};

static unsigned in_name(struct fuzz_in *in, uint16_t *name)
{
    unsigned n = in_u8(in) % 40 + 1;
    for (unsigned i = 0; i < n; i++)
        name[i] = in_u16(in);
    return n;
}

static unsigned parent_of(const struct volume *vol, uint8_t choice)
{
    unsigned p = choice % vol->n;
    return vol->node[p].dir && !vol->node[p].deleted ? p : VOLUME_ROOT;
}

static void add_file(struct volume *vol, struct fuzz_in *in, uint8_t op)
{
    uint16_t name[41];
    unsigned parent = parent_of(vol, in_u8(in)), n = in_name(in, name);
    uint64_t size = in_u16(in) + (uint64_t)(op >> 4) * 4096;
    uint8_t fill = in_u8(in);
    int64_t mtime = (int64_t)in_u64(in);
    uint8_t attribute = in_u8(in);
    uint8_t *data = size ? malloc(size) : NULL;
    if (size && !data)
        abort();
    for (uint64_t i = 0; i < size; i++)
        data[i] = (uint8_t)(fill + i);
    long node = volume_add(vol, parent, name, n, false, data, size, mtime);
    if (node < 0)
        free(data);
    else
        vol->node[node].attribute = attribute & (VOLUME_ATTR_VALID & ~VOLUME_ATTR_DIRECTORY);
}

/* The header at lba: "EFI PART", its own CRC, where it says it is. */
static void check_header(const struct esp_disk *d, uint64_t lba, uint64_t alternate)
{
    uint8_t h[BLOCK];
    esp_disk_read(d, lba * BLOCK, h, BLOCK);
    CHECK(!memcmp(h, "EFI PART", 8));
    uint32_t size, crc;
    uint64_t my, other;
    memcpy(&size, h + 12, 4);
    memcpy(&crc, h + 16, 4);
    memcpy(&my, h + 24, 8);
    memcpy(&other, h + 32, 8);
    CHECK(size >= 92 && size <= BLOCK);
    memset(h + 16, 0, 4);
    CHECK(crc == (uint32_t)crc32(0, h, size));
    CHECK(my == lba && other == alternate);
}

static void check_disk(const struct esp_disk *d, const struct esp_disk *again, uint64_t min_blocks,
                       const struct read_at *reads, unsigned nreads)
{
    uint64_t blocks = esp_disk_blocks(d), part = esp_disk_partition_blocks(d);
    CHECK(part >= min_blocks && blocks >= ESP_DISK_PARTITION_START + part + 33);
    CHECK(esp_disk_blocks(again) == blocks && esp_disk_partition_blocks(again) == part);
    uint8_t mbr[BLOCK];
    esp_disk_read(d, 0, mbr, BLOCK);
    CHECK(mbr[450] == 0xee && mbr[510] == 0x55 && mbr[511] == 0xaa);
    check_header(d, 1, blocks - 1);
    check_header(d, blocks - 1, 1);
    static uint8_t whole[65536 + 2 * BLOCK], piece[65536], other[65536];
    for (unsigned i = 0; i < nreads; i++) {
        uint64_t off = reads[i].off % (blocks * BLOCK), len = reads[i].len;
        if (len > blocks * BLOCK - off)
            len = blocks * BLOCK - off;
        uint64_t first = off / BLOCK * BLOCK, span = (off + len + BLOCK - 1) / BLOCK * BLOCK - first;
        esp_disk_read(d, first, whole, span);
        esp_disk_read(d, off, piece, len);
        esp_disk_read(again, off, other, len);
        CHECK(!memcmp(piece, whole + (off - first), len));
        CHECK(!memcmp(piece, other, len));
    }
}

/* The first 16 bytes of a file of at least that many lie somewhere in the
 * partition (files are whole, in their clusters). */
static void check_file(const struct esp_disk *d, const struct volume *vol)
{
    for (unsigned i = 0; i < vol->n; i++) {
        const struct volume_node *f = &vol->node[i];
        if (f->dir || f->deleted || f->size < 16)
            continue;
        static uint8_t buf[1 << 20];
        uint64_t at = (uint64_t)ESP_DISK_PARTITION_START * BLOCK, end = at + esp_disk_partition_blocks(d) * BLOCK;
        bool found = false;
        for (; at < end && !found; at += sizeof(buf) - 16) {
            uint64_t n = end - at < sizeof(buf) ? end - at : sizeof(buf);
            esp_disk_read(d, at, buf, n);
            found = memmem(buf, n, f->data, 16);
        }
        CHECK(found);
        return;
    }
}

/* Built to the partition size that holds any volume of as many nodes and
 * file bytes, the volume's disk is the empty volume's size. */
static void check_hold(const struct volume *vol, const efi_guid_t *guid)
{
    uint64_t bytes = 0;
    for (unsigned i = 0; i < vol->n; i++)
        if (!vol->node[i].dir && !vol->node[i].deleted)
            bytes += vol->node[i].size;
    uint64_t hold = esp_disk_partition_blocks_to_hold(bytes, vol->n);
    struct volume empty;
    if (volume_init(&empty, 0))
        abort();
    struct esp_disk *d = esp_disk_build(vol, guid, hold), *e = esp_disk_build(&empty, guid, hold);
    CHECK(e);
    if (d)
        CHECK(esp_disk_partition_blocks(d) == esp_disk_partition_blocks(e));
    esp_disk_free(d);
    esp_disk_free(e);
    volume_free(&empty);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_in in = { data, size };
    struct volume vol;
    if (volume_init(&vol, 1700000000))
        abort();
    uint64_t min_blocks = in_u32(&in) & 0x3fffff;
    unsigned label = in_u8(&in) % 12;
    for (unsigned i = 0; i < label; i++)
        vol.label[i] = in_u16(&in);
    struct read_at reads[MAX_READS];
    unsigned nreads = 0;
    while (in.n && vol.n < 200) {
        uint8_t op = in_u8(&in);
        uint16_t name[41];
        switch (op % 4) {
        case 0: {
            unsigned parent = parent_of(&vol, in_u8(&in)), n = in_name(&in, name);
            volume_add(&vol, parent, name, n, true, NULL, 0, (int64_t)in_u64(&in));
            break;
        }
        case 1:
            add_file(&vol, &in, op);
            break;
        case 2: {
            unsigned node = in_u8(&in) % vol.n;
            if (node != VOLUME_ROOT)
                volume_delete(&vol, node);
            break;
        }
        default:
            if (nreads < MAX_READS) {
                reads[nreads].off = in_u32(&in);
                reads[nreads++].len = in_u16(&in);
            }
        }
    }
    const efi_guid_t guid = EFI_GUID(0x68616e64, 0x6f76, 0x4572, 0x8e, 0x53, 0x50, 0, 0, 0, 0, 1);
    struct esp_disk *d = esp_disk_build(&vol, &guid, min_blocks);
    if (d) {
        struct esp_disk *again = esp_disk_build(&vol, &guid, esp_disk_partition_blocks(d));
        CHECK(again);
        check_disk(d, again, min_blocks, reads, nreads);
        check_file(d, &vol);
        check_hold(&vol, &guid);
        esp_disk_free(again);
    }
    esp_disk_free(d);
    volume_free(&vol);
    return 0;
}
