/* The --esp volume as a disk (firmware-stub/block_io.c): EFI_BLOCK_IO on
 * the disk and on its ESP partition (UEFI 2.10 section 13.9), as GRUB's
 * efidisk finds them: the disk's device path a prefix of the partition's,
 * the partition's hard-drive node naming the GPT entry's start and size,
 * the media read-only, the blocks those of the volume's GPT disk
 * (firmware-stub/esp_disk.c), built again after the guest's writes. */
#include <stdlib.h>

#include "fw_fixture.h"
#include "../../firmware-stub/esp.h"
#include "../../firmware-stub/esp_disk.h"
#include "../../firmware-stub/esp_volume.h"
#include "../../firmware-stub/inject.h"
#include "../../firmware-stub/volume.h"

#define BIO(x)      FW_ID_BLOCK_IO(BLOCK_IO_##x)
#define F(x)        FW_ID_FILE(FILE_##x)
#define BLOCK       512
#define MODE_CREATE 0x8000000000000003ULL
#define FILE_FN(i)  (8 + 8 * (i))

static struct volume vol;
static const char grub_cfg[] = "linux /vmlinuz console=ttyS0\nboot\n";

static void attach(void)
{
    ck_assert_int_eq(volume_init(&vol, 1700000000), 0);
    long efi = volume_add(&vol, VOLUME_ROOT, u"EFI", 3, true, NULL, 0, 1700000000);
    long debian = volume_add(&vol, (unsigned)efi, u"debian", 6, true, NULL, 0, 1700000000);
    uint8_t *cfg = (uint8_t *)strdup(grub_cfg);
    ck_assert_int_ge(volume_add(&vol, (unsigned)debian, u"grub.cfg", 8, false, cfg, strlen(grub_cfg), 1700000000), 0);
    ck_assert_int_eq(firmware_attach_esp(&fw, &vol, NULL), 0);
}

/* The fixture's teardown frees the firmware; the base volume goes after it. */
static void detach(void)
{
    firmware_free(&fw);
    volume_free(&vol);
    struct fw_config cfg = { .base = FW_BASE, .console = con, .log = log_file };
    ck_assert_int_eq(firmware_init(&fw, &gm, &cfg), 0);
}

/* The handles with EFI_BLOCK_IO_PROTOCOL: the disk's first (it is made
 * after the partition's handle, LocateHandle lists in handle order). */
static void block_handles(uint64_t *disk, uint64_t *partition)
{
    uint64_t size_p = put_u64(64), buf = scratch(64);
    ck_assert_uint_eq(CALL(BS(LOCATE_HANDLE), EFI_BY_PROTOCOL, put_guid(GUID_BLOCK_IO), 0, size_p, buf), EFI_SUCCESS);
    ck_assert_uint_eq(rd64(size_p), 16);
    *partition = ((struct efi_loaded_image *)hp(fw.loaded_image))->device_handle;
    *disk = rd64(buf) == *partition ? rd64(buf + 8) : rd64(buf);
    ck_assert_uint_ne(*disk, *partition);
}

/* attach(), then the disk's or the partition's EFI_BLOCK_IO_PROTOCOL. */
static uint64_t attached_block_io(bool partition)
{
    uint64_t disk, part;
    efi_status_t s;
    attach();
    block_handles(&disk, &part);
    return interface_of(partition ? part : disk, GUID_BLOCK_IO, &s);
}

static efi_status_t read_blocks(uint64_t bio, uint64_t lba, uint64_t size, uint64_t buf)
{
    return CALL(BIO(READ_BLOCKS), bio, 0, lba, size, buf);
}

START_TEST(the_disk_and_its_partition_are_what_grub_looks_for)
{
    attach();
    uint64_t disk, part;
    efi_status_t s;
    block_handles(&disk, &part);
    uint64_t disk_dp = interface_of(disk, GUID_DEVICE_PATH, &s), part_dp = interface_of(part, GUID_DEVICE_PATH, &s);
    /* VenHw(...)/End, and VenHw(...)/HD(1,GPT,...,0x800,size)/End */
    const uint8_t *d = hp(disk_dp), *p = hp(part_dp);
    ck_assert_uint_eq(d[0], EFI_DEV_HARDWARE);
    ck_assert_uint_eq(d[1], EFI_DEV_HARDWARE_VENDOR);
    ck_assert_uint_eq(d[2], 20);
    ck_assert_uint_eq(d[20], EFI_DEV_END_PATH);
    ck_assert_int_eq(memcmp(d, p, 20), 0);
    ck_assert_uint_eq(p[20], EFI_DEV_MEDIA);
    ck_assert_uint_eq(p[21], EFI_DEV_MEDIA_HARD_DRIVE);
    ck_assert_uint_eq(rd64(part_dp + 20 + 8), ESP_DISK_PARTITION_START);
    uint64_t hd_blocks = rd64(part_dp + 20 + 16);
    ck_assert_uint_eq(p[62], EFI_DEV_END_PATH);

    uint64_t dbio = interface_of(disk, GUID_BLOCK_IO, &s), pbio = interface_of(part, GUID_BLOCK_IO, &s);
    ck_assert_uint_eq(rd64(dbio), 0x0002001f);                       /* Revision 3 */
    ck_assert_uint_eq(rd64(dbio + 24), firmware_thunk(&fw, BIO(READ_BLOCKS)));
    const uint8_t *dm = hp(rd64(dbio + 8)), *pm = hp(rd64(pbio + 8));
    ck_assert_uint_eq(dm[5], 1);             /* MediaPresent */
    ck_assert_uint_eq(dm[6], 0);             /* LogicalPartition: the disk */
    ck_assert_uint_eq(pm[6], 1);             /* the partition */
    ck_assert_uint_eq(dm[7], 1);             /* ReadOnly */
    ck_assert_uint_eq(rd32(rd64(dbio + 8) + 12), BLOCK);
    /* LogicalBlocksPerPhysicalBlock: the disk's one per block, the
     * partition's zero, as section 13.9 asks of a logical partition (as
     * are its LowestAlignedLba and OptimalTransferLengthGranularity). */
    ck_assert_uint_eq(rd32(rd64(dbio + 8) + 40), 1);
    ck_assert_uint_eq(rd64(rd64(pbio + 8) + 32), 0);
    ck_assert_uint_eq(rd32(rd64(pbio + 8) + 40), 0);
    ck_assert_uint_eq(rd32(rd64(pbio + 8) + 44), 0);
    /* The partition's size is the hard-drive node's, and the GPT entry's. */
    ck_assert_uint_eq(rd64(rd64(pbio + 8) + 24) + 1, hd_blocks);
    uint64_t disk_blocks = rd64(rd64(dbio + 8) + 24) + 1;
    ck_assert_uint_ge(disk_blocks, ESP_DISK_PARTITION_START + hd_blocks + 33);

    uint64_t buf = scratch(4 * BLOCK);
    ck_assert_uint_eq(read_blocks(dbio, 0, 2 * BLOCK, buf), EFI_SUCCESS);
    const uint8_t *b = hp(buf);
    ck_assert_uint_eq(b[450], 0xee);         /* the protective MBR's partition type */
    ck_assert_uint_eq(b[510], 0x55);
    ck_assert_uint_eq(b[511], 0xaa);
    ck_assert_int_eq(memcmp(b + BLOCK, "EFI PART", 8), 0);
    /* The first GPT entry (LBA 2): start and end as the hard-drive node says. */
    ck_assert_uint_eq(read_blocks(dbio, 2, BLOCK, buf), EFI_SUCCESS);
    ck_assert_uint_eq(rd64(buf + 32), ESP_DISK_PARTITION_START);
    ck_assert_uint_eq(rd64(buf + 40), ESP_DISK_PARTITION_START + hd_blocks - 1);
    /* The partition's block 0 is the disk's block 2048: a FAT boot sector. */
    ck_assert_uint_eq(read_blocks(pbio, 0, BLOCK, buf), EFI_SUCCESS);
    ck_assert_uint_eq(read_blocks(dbio, ESP_DISK_PARTITION_START, BLOCK, buf + BLOCK), EFI_SUCCESS);
    ck_assert_int_eq(memcmp(hp(buf), hp(buf + BLOCK), BLOCK), 0);
    ck_assert_uint_eq(b[510], 0x55);
    ck_assert_uint_eq(b[511], 0xaa);
    /* The last block of each reads; one past it does not. */
    ck_assert_uint_eq(read_blocks(dbio, disk_blocks - 1, BLOCK, buf), EFI_SUCCESS);
    ck_assert_uint_eq(read_blocks(pbio, hd_blocks - 1, BLOCK, buf), EFI_SUCCESS);
    ck_assert_uint_eq(read_blocks(pbio, hd_blocks - 1, 2 * BLOCK, buf), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(read_blocks(dbio, disk_blocks, BLOCK, buf), EFI_INVALID_PARAMETER);
    detach();
}
END_TEST

/* Every status section 13.9 gives ReadBlocks and WriteBlocks, and the
 * guest's wild pointers. */
START_TEST(bad_transfers_are_refused_and_writes_are_protected)
{
    uint64_t bio = attached_block_io(true), buf = scratch(BLOCK);
    ck_assert_uint_eq(CALL(BIO(READ_BLOCKS), bio, 1, 0, BLOCK, buf), EFI_MEDIA_CHANGED);
    ck_assert_uint_eq(read_blocks(bio, 0, BLOCK - 1, buf), EFI_BAD_BUFFER_SIZE);
    ck_assert_uint_eq(read_blocks(bio, 0, BLOCK, 0), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(read_blocks(bio, UINT64_MAX, BLOCK, buf), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(read_blocks(bio, 0, UINT64_MAX - BLOCK + 1, buf), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(read_blocks(bio, 0, BLOCK, RAM_SIZE - BLOCK / 2), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(read_blocks(bio, 0, 0, buf), EFI_SUCCESS);
    ck_assert_uint_eq(read_blocks(buf, 0, BLOCK, buf), EFI_INVALID_PARAMETER);     /* not a BlockIo */
    ck_assert_uint_eq(CALL(BIO(WRITE_BLOCKS), bio, 0, 0, BLOCK, buf), EFI_WRITE_PROTECTED);
    ck_assert_uint_eq(CALL(BIO(WRITE_BLOCKS), bio, 0, 0, BLOCK - 1, buf), EFI_BAD_BUFFER_SIZE);
    ck_assert_uint_eq(CALL(BIO(FLUSH_BLOCKS), bio), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(BIO(RESET), bio, 0), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(BIO(RESET), buf, 0), EFI_INVALID_PARAMETER);
    exit_boot_services();
    ck_assert_uint_eq(read_blocks(bio, 0, BLOCK, buf), EFI_UNSUPPORTED);   /* boot services only */
    detach();
}
END_TEST

/* LocateDevicePath(Protocol, &path) (UEFI 2.10 section 7.3.7): the handle
 * found, and how far into path it matched. */
static uint64_t locate(efi_guid_t protocol, uint64_t path, efi_status_t want, uint64_t *matched)
{
    uint64_t path_p = put_u64(path), handle_p = put_u64(0);
    ck_assert_uint_eq(CALL(BS(LOCATE_DEVICE_PATH), put_guid(protocol), path_p, handle_p), want);
    *matched = rd64(path_p) - path;
    return rd64(handle_p);
}

/* The ESP's paths as loaders walk them: a file's, VenHw/HD/File, leads to
 * the partition for EFI_BLOCK_IO and EFI_SIMPLE_FILE_SYSTEM (shim, GRUB),
 * leaving the file node; cut before its HD node (systemd-boot's search
 * for the disk's GPT), to the disk, which has no file system. */
START_TEST(the_esps_paths_lead_loaders_to_the_partition_and_the_disk)
{
    attach();
    uint64_t disk, part, matched;
    efi_status_t s;
    block_handles(&disk, &part);
    static const uint8_t file[] = { EFI_DEV_MEDIA, EFI_DEV_MEDIA_FILE_PATH, 10, 0, '\\', 0, 'x', 0, 0, 0 };
    static const uint8_t end[] = { EFI_DEV_END_PATH, EFI_DEV_END_ENTIRE, 4, 0 };
    uint8_t path[62 + sizeof(file) + sizeof(end)];
    memcpy(path, hp(interface_of(part, GUID_DEVICE_PATH, &s)), 62);
    memcpy(path + 62, file, sizeof(file));
    memcpy(path + 62 + sizeof(file), end, sizeof(end));
    uint64_t on_esp = put(path, sizeof(path));
    ck_assert_uint_eq(locate(GUID_BLOCK_IO, on_esp, EFI_SUCCESS, &matched), part);
    ck_assert_uint_eq(matched, 62);
    ck_assert_uint_eq(locate(GUID_SIMPLE_FILE_SYSTEM, on_esp, EFI_SUCCESS, &matched), part);
    ck_assert_uint_eq(matched, 62);
    memcpy(path + 20, end, sizeof(end));
    uint64_t disk_path = put(path, 20 + sizeof(end));
    ck_assert_uint_eq(locate(GUID_BLOCK_IO, disk_path, EFI_SUCCESS, &matched), disk);
    ck_assert_uint_eq(matched, 20);
    locate(GUID_SIMPLE_FILE_SYSTEM, disk_path, EFI_NOT_FOUND, &matched);
    detach();
}
END_TEST

/* Does the partition hold these bytes anywhere? */
static bool partition_holds(uint64_t bio, const char *text)
{
    efi_status_t s;
    (void)s;
    uint64_t blocks = rd64(rd64(bio + 8) + 24) + 1, chunk = 64, buf = scratch(chunk * BLOCK);
    for (uint64_t lba = 0; lba < blocks; lba += chunk) {
        uint64_t n = blocks - lba < chunk ? blocks - lba : chunk;
        ck_assert_uint_eq(read_blocks(bio, lba, n * BLOCK, buf), EFI_SUCCESS);
        if (memmem(hp(buf), n * BLOCK, text, strlen(text)))
            return true;
    }
    return false;
}

/* A file the guest writes through EFI_FILE_PROTOCOL is on the disk at the
 * next read: the disk is built again from the volume, to the same size. */
START_TEST(the_disk_shows_the_guests_writes)
{
    attach();
    uint64_t disk, part;
    efi_status_t s;
    block_handles(&disk, &part);
    uint64_t bio = interface_of(part, GUID_BLOCK_IO, &s);
    static const char text[] = "written by the guest through File.Write";
    ck_assert(partition_holds(bio, "linux /vmlinuz console=ttyS0"));
    ck_assert(!partition_holds(bio, text));
    uint64_t sfs = interface_of(part, GUID_SIMPLE_FILE_SYSTEM, &s), root_p = put_u64(0), f_p = put_u64(0);
    ck_assert_uint_eq(CALL(FW_ID_FILE_SYSTEM, sfs, root_p), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(F(OPEN), rd64(root_p), f_p, put_ucs2("new.txt"), MODE_CREATE, 0), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(F(WRITE), rd64(f_p), put_u64(sizeof(text) - 1), put(text, sizeof(text) - 1)), EFI_SUCCESS);
    ck_assert(partition_holds(bio, text));
    /* Built again to the same size: the GPT entry still ends where the
     * hard-drive node says. */
    uint64_t entry = scratch(BLOCK), dp = interface_of(part, GUID_DEVICE_PATH, &s);
    ck_assert_uint_eq(read_blocks(interface_of(disk, GUID_BLOCK_IO, &s), 2, BLOCK, entry), EFI_SUCCESS);
    ck_assert_uint_eq(rd64(entry + 40), ESP_DISK_PARTITION_START + rd64(dp + 20 + 16) - 1);
    detach();
}
END_TEST

/* The guest may fill the overlay (EFI_FILE_SYSTEM_INFO's FreeSpace): a
 * file of all of it, the FAT's clusters, tables and directory entries
 * around it, still fits the partition the hard-drive node and the media
 * gave when the disk is built again. */
START_TEST(a_full_overlay_keeps_the_partition_size)
{
    attach();
    uint64_t disk, part;
    efi_status_t s;
    block_handles(&disk, &part);
    uint64_t bio = interface_of(part, GUID_BLOCK_IO, &s), dbio = interface_of(disk, GUID_BLOCK_IO, &s);
    uint64_t hd_blocks = rd64(interface_of(part, GUID_DEVICE_PATH, &s) + 20 + 16);
    uint64_t disk_blocks = rd64(rd64(dbio + 8) + 24) + 1;
    uint64_t sfs = interface_of(part, GUID_SIMPLE_FILE_SYSTEM, &s), root_p = put_u64(0), f_p = put_u64(0);
    ck_assert_uint_eq(CALL(FW_ID_FILE_SYSTEM, sfs, root_p), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(F(OPEN), rd64(root_p), f_p, put_ucs2("full.bin"), MODE_CREATE, 0), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(F(SET_POSITION), rd64(f_p), VOLUME_OVERLAY_MAX - 1), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(F(WRITE), rd64(f_p), put_u64(1), put("!", 1)), EFI_SUCCESS);
    uint64_t entry = scratch(BLOCK), header = scratch(BLOCK);
    ck_assert_uint_eq(read_blocks(dbio, 2, BLOCK, entry), EFI_SUCCESS);
    ck_assert_uint_eq(rd64(entry + 40), ESP_DISK_PARTITION_START + hd_blocks - 1);
    ck_assert_uint_eq(read_blocks(dbio, 1, BLOCK, header), EFI_SUCCESS);
    ck_assert_uint_eq(rd64(header + 32), disk_blocks - 1);              /* AlternateLBA: the same last block */
    ck_assert_uint_eq(read_blocks(bio, hd_blocks - 1, BLOCK, header), EFI_SUCCESS);
    ck_assert_uint_eq(read_blocks(bio, hd_blocks, BLOCK, header), EFI_INVALID_PARAMETER);
    detach();
}
END_TEST

/* A disk that cannot be built again after the guest's writes (host
 * memory runs out; here a file past FAT's 4 GiB, which no guest write can
 * make) fails its reads with EFI_DEVICE_ERROR, as section 13.9 says of a
 * device in error, not EFI_INVALID_PARAMETER as if This were no BlockIo;
 * the next read that can build it does. */
START_TEST(a_disk_that_cannot_be_built_again_is_a_device_error)
{
    uint64_t bio = attached_block_io(true), buf = scratch(BLOCK);
    struct volume_lookup l;
    volume_resolve(&fw.esp->vol, VOLUME_ROOT, u"\\EFI\\debian\\grub.cfg", &l);
    ck_assert_int_eq(l.found, VOLUME_FOUND);
    fw.esp->vol.node[l.node].size = 1ULL << 32;
    fw.esp->disk_stale = true;
    ck_assert_uint_eq(read_blocks(bio, 0, BLOCK, buf), EFI_DEVICE_ERROR);
    ck_assert_uint_eq(CALL(BIO(WRITE_BLOCKS), bio, 0, 0, BLOCK, buf), EFI_DEVICE_ERROR);
    ck_assert_uint_eq(CALL(BIO(FLUSH_BLOCKS), bio), EFI_DEVICE_ERROR);
    fw.esp->vol.node[l.node].size = strlen(grub_cfg);
    ck_assert_uint_eq(read_blocks(bio, 0, BLOCK, buf), EFI_SUCCESS);
    detach();
}
END_TEST

START_TEST(a_read_fails_on_purpose)
{
    uint64_t bio = attached_block_io(false), buf = scratch(BLOCK);
    ck_assert_int_eq(inject_parse(&fw.cfg.inject, "block-read-error@2", (char[80]){ 0 }, 80), 0);
    ck_assert_uint_eq(read_blocks(bio, 0, BLOCK, buf), EFI_SUCCESS);
    ck_assert_uint_eq(read_blocks(bio, 1, BLOCK, buf), EFI_DEVICE_ERROR);
    ck_assert_uint_eq(fw.cfg.inject.count[INJECT_BLOCK_READ_ERROR], 1);
    detach();
}
END_TEST

Suite *fw_block_io_suite(void)
{
    Suite *s = suite_create("fw_block_io");
    fw_add_tcase(s, "block_io", (const TTest *const[]){
        the_disk_and_its_partition_are_what_grub_looks_for, bad_transfers_are_refused_and_writes_are_protected,
        the_esps_paths_lead_loaders_to_the_partition_and_the_disk,
        the_disk_shows_the_guests_writes, a_full_overlay_keeps_the_partition_size,
        a_disk_that_cannot_be_built_again_is_a_device_error, a_read_fails_on_purpose, NULL });
    return s;
}
