/* EFI_BLOCK_IO_PROTOCOL (UEFI 2.10 section 13.9) over the --esp volume's
 * disk (esp_disk.h): the whole disk on one handle, its one partition, the
 * ESP, on the volume's handle. The media is read-only: the guest writes
 * through EFI_FILE_PROTOCOL (simple_fs.c), and the disk is built again
 * from the volume after it does. Every guest pointer goes through the
 * guest view. */
#include "block_io.h"

#include <string.h>

#include "esp_disk.h"
#include "guids.h"
#include "handles.h"
#include "log.h"
#include "pool.h"
#include "esp_volume.h"
#include "trace_decode.h"
#include "width.h"

#define BLOCK_IO_REVISION3 0x0002001fULL   /* EFI_BLOCK_IO_PROTOCOL_REVISION3: Media has every field */
/* The pool page fw_esp_block_io_attach allocates: for the disk and the
 * partition, an EFI_BLOCK_IO_PROTOCOL (Revision, Media, four functions)
 * and its EFI_BLOCK_IO_MEDIA. */
#define BIO_DISK           0x000
#define BIO_PARTITION      0x080
#define BIO_MEDIA          0x040   /* after each protocol */
#define BIO_SIZE           48
#define MEDIA_SIZE         48
#define MEDIA_ID           0
#define CHUNK              (64 * 1024)   /* bytes copied to the guest at a time */
_Static_assert(BIO_SIZE <= BIO_MEDIA && BIO_MEDIA + MEDIA_SIZE <= BIO_PARTITION, "a protocol and its media fit");

/* One of the two block devices: the disk it reads, where its blocks
 * start there and how many it has. */
struct block_device {
    const struct esp_disk *disk;
    uint64_t first, blocks;
};

/* The device whose protocol is at this: EFI_INVALID_PARAMETER for any
 * other address, EFI_DEVICE_ERROR when its disk cannot be built again
 * after the guest's writes (host memory ran out). The disk is built, or
 * built again, only for one of the two. */
static efi_status_t device_of(struct firmware *fw, uint64_t this, struct block_device *d)
{
    bool whole = this == fw->esp_block_io + BIO_DISK, partition = this == fw->esp_block_io + BIO_PARTITION;
    if (!fw->esp_block_io || (!whole && !partition))
        return EFI_INVALID_PARAMETER;
    if (!(d->disk = fw_esp_disk(fw)))
        return EFI_DEVICE_ERROR;
    d->first = whole ? 0 : ESP_DISK_PARTITION_START;
    d->blocks = whole ? esp_disk_blocks(d->disk) : esp_disk_partition_blocks(d->disk);
    return EFI_SUCCESS;
}

static void put_media(struct firmware *fw, uint64_t addr, uint64_t blocks, bool partition)
{
    uint8_t m[MEDIA_SIZE] = { 0 };
    /* LogicalBlocksPerPhysicalBlock: zero for a logical partition (UEFI
     * 2.10 section 13.9, EFI_BLOCK_IO_MEDIA), as its LowestAlignedLba and
     * OptimalTransferLengthGranularity are. */
    uint32_t block_size = ESP_DISK_BLOCK_SIZE, per_physical = partition ? 0 : 1;
    uint64_t last = blocks - 1;
    m[5] = 1;                    /* MediaPresent */
    m[6] = partition;            /* LogicalPartition */
    m[7] = 1;                    /* ReadOnly */
    memcpy(m + 12, &block_size, 4);
    memcpy(m + 24, &last, 8);    /* LastBlock; IoAlign 0: any buffer */
    memcpy(m + 40, &per_physical, 4);
    guest_mem_write(fw->gm, addr, m, sizeof(m));
}

/* Revision, then Media and the four functions (pointers: 4 bytes each on
 * IA-32). EFI_BLOCK_IO_MEDIA has no pointer or UINTN: one layout. */
static void put_protocol(struct firmware *fw, uint64_t addr)
{
    uint64_t p[1 + BLOCK_IO_COUNT] = { addr + BIO_MEDIA };
    for (unsigned i = 0; i < BLOCK_IO_COUNT; i++)
        p[1 + i] = firmware_thunk(fw, FW_ID_BLOCK_IO(i));
    fw_put_revision_interface(fw, addr, BLOCK_IO_REVISION3, p, 1 + BLOCK_IO_COUNT);
}

int fw_esp_block_io_attach(struct firmware *fw)
{
    uint64_t page, disk_handle, part_handle = fw_esp_handle(fw);
    const struct esp_disk *disk = fw_esp_disk(fw);
    if (part_handle && !disk) {
        fw_log(fw, "--esp: the folder cannot be laid out as a FAT disk (a directory of more entries than FAT "
                   "holds, or out of memory): no EFI_BLOCK_IO_PROTOCOL, its files only");
        return 0;
    }
    if (!part_handle || fw->nprotocols + 3 > FW_MAX_PROTOCOLS ||
        fw_pool_take(fw, EFI_BOOT_SERVICES_DATA, 0x1000, &page) != EFI_SUCCESS ||
        !(disk_handle = fw_new_handle(fw)))
        return -1;
    fw->esp_block_io = page;
    put_protocol(fw, page + BIO_DISK);
    put_media(fw, page + BIO_DISK + BIO_MEDIA, esp_disk_blocks(disk), false);
    put_protocol(fw, page + BIO_PARTITION);
    put_media(fw, page + BIO_PARTITION + BIO_MEDIA, esp_disk_partition_blocks(disk), true);
    fw_add_protocol(fw, disk_handle, &GUID_DEVICE_PATH, fw_esp_disk_device_path(fw));
    fw_add_protocol(fw, disk_handle, &GUID_BLOCK_IO, page + BIO_DISK);
    fw_add_protocol(fw, part_handle, &GUID_BLOCK_IO, page + BIO_PARTITION);
    return 0;
}

static efi_status_t block_io_reset(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    (void)v;
    struct block_device d;
    return device_of(fw, a[0], &d);
}

/* ReadBlocks and WriteBlocks' checks, in the order section 13.9 lists
 * their statuses: the device, MediaId, the size, then LBA and Buffer. */
static efi_status_t check_transfer(struct firmware *fw, const uint64_t *a, struct block_device *d)
{
    uint64_t this = a[0], media_id = a[1], lba = a[2], size = a[3], buffer = a[4];
    efi_status_t s = device_of(fw, this, d);
    if (s != EFI_SUCCESS)
        return s;
    if ((uint32_t)media_id != MEDIA_ID)
        return EFI_MEDIA_CHANGED;
    if (size % ESP_DISK_BLOCK_SIZE)
        return EFI_BAD_BUFFER_SIZE;
    if (lba >= d->blocks || size / ESP_DISK_BLOCK_SIZE > d->blocks - lba || (size && !buffer))
        return EFI_INVALID_PARAMETER;
    return EFI_SUCCESS;
}

static efi_status_t block_io_read(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t lba = a[2], size = a[3], buffer = a[4];
    struct block_device d;
    efi_status_t s = check_transfer(fw, a, &d);
    if (s != EFI_SUCCESS)
        return s;
    if (!guest_view_accessible(v, buffer, size))
        return EFI_INVALID_PARAMETER;
    uint8_t chunk[CHUNK];
    uint64_t at = (d.first + lba) * ESP_DISK_BLOCK_SIZE;
    for (uint64_t done = 0; done < size;) {
        uint64_t n = size - done < CHUNK ? size - done : CHUNK;
        esp_disk_read(d.disk, at + done, chunk, n);
        if (!guest_view_write(v, buffer + done, chunk, n))
            return EFI_INVALID_PARAMETER;
        done += n;
    }
    return EFI_SUCCESS;
}

static efi_status_t block_io_write(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    (void)v;
    struct block_device d;
    efi_status_t s = check_transfer(fw, a, &d);
    return s == EFI_SUCCESS ? EFI_WRITE_PROTECTED : s;
}

static efi_status_t block_io_flush(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    (void)v;
    struct block_device d;
    return device_of(fw, a[0], &d);
}

static void decode_transfer(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                            const uint64_t *a, efi_status_t status)
{
    (void)s, (void)v, (void)status;
    fw_trace_hex(o, "lba", a[2]);
    fw_trace_u64(o, "buffer_size", a[3]);
}

#define BLOCK_IO_ROW(i, ...) [i] = { .id = FW_ID_BLOCK_IO(i), __VA_ARGS__ }   /* i: enum efi_block_io_service */

const struct fw_service fw_block_io_services[BLOCK_IO_COUNT] = {
    BLOCK_IO_ROW(BLOCK_IO_RESET, .name = "BlockIo.Reset", .nargs = 2, .fn = block_io_reset),
    BLOCK_IO_ROW(BLOCK_IO_READ_BLOCKS, .name = "BlockIo.ReadBlocks", .nargs = 5, .wide = FW_WIDE(2),
                 .fn = block_io_read, .decode = decode_transfer, .faults = FW_FAULT(BLOCK_READ_ERROR)),
    BLOCK_IO_ROW(BLOCK_IO_WRITE_BLOCKS, .name = "BlockIo.WriteBlocks", .nargs = 5, .wide = FW_WIDE(2),
                 .fn = block_io_write, .decode = decode_transfer),
    BLOCK_IO_ROW(BLOCK_IO_FLUSH_BLOCKS, .name = "BlockIo.FlushBlocks", .nargs = 1, .fn = block_io_flush),
};
