/* --esp: the volume (firmware-stub/volume.c), its protocols as the guest
 * calls them (firmware-stub/simple_fs.c: UEFI 2.10 sections 13.4 and
 * 13.5) over a buffer standing for guest RAM, and the host folder read
 * into it (vmm/host/esp_dir.c): paths never leave the folder, and the
 * guest's writes never reach it. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fw_fixture.h"
#include "suites.h"
#include "../../firmware-stub/firmware.h"
#include "../../firmware-stub/guids.h"
#include "../../firmware-stub/esp.h"
#include "../../firmware-stub/volume.h"
#include "../../vmm/host/esp_dir.h"

#define MODE_READ    0x1ULL
#define MODE_RW      0x3ULL
#define MODE_CREATE  0x8000000000000003ULL
#define INFO_NAME    80      /* EFI_FILE_INFO.FileName */
#define FILE_FN(i)   (8 + 8 * (i))   /* EFI_FILE_PROTOCOL: Revision, then the functions */

#define F(x) FW_ID_FILE(FILE_##x)

static struct volume base;
static const char hello[] = "hello, world";

/* ---- the fixture: a volume, the firmware serving it ------------------------------------ */

static void add_path(struct volume *vol, const char *path, const char *data)
{
    unsigned at = VOLUME_ROOT;
    const char *p = path;
    while (*p) {
        uint16_t name[64];
        unsigned n = 0;
        while (*p && *p != '/')
            name[n++] = (uint8_t)*p++;
        bool last = !*p;
        long child = volume_child(vol, at, name, n);
        if (child < 0) {
            uint8_t *copy = last && data ? (uint8_t *)strdup(data) : NULL;
            child = volume_add(vol, at, name, n, !(last && data), copy, copy ? strlen(data) : 0, 1700000000);
        }
        ck_assert_int_ge(child, 0);
        at = (unsigned)child;
        while (*p == '/')
            p++;
    }
}

/* After the firmware's (fw_fixture.h): the volume, served. */
static void setup(void)
{
    ck_assert_int_eq(volume_init(&base, 1700000000), 0);
    add_path(&base, "EFI/BOOT/BOOTX64.EFI", "MZ not really");
    add_path(&base, "loader/entries/b.conf", "title B\n");
    add_path(&base, "loader/entries/a.conf", "title A\n");
    add_path(&base, "loader/loader.conf", "timeout 0\n");
    add_path(&base, "hello.txt", hello);
    ck_assert_int_eq(firmware_attach_esp(&fw, &base, "EFI/BOOT/BOOTX64.EFI"), 0);
}

/* The firmware's copy of the volume holds no pointer into base it would
 * follow when freed: either may go first. */
static void teardown(void)
{
    volume_free(&base);
}

static struct efi_loaded_image *loaded_image(void) { return hp(fw.loaded_image); }

/* The volume's root through the device handle, as shim and the kernel's stub find it. */
static uint64_t open_root(void)
{
    uint64_t sfs_p = put_u64(0), root_p = put_u64(0);
    ck_assert_uint_eq(CALL(FW_ID_BS(BS_HANDLE_PROTOCOL), loaded_image()->device_handle,
                           put_guid(GUID_SIMPLE_FILE_SYSTEM), sfs_p), EFI_SUCCESS);
    uint64_t sfs = rd64(sfs_p);
    ck_assert_uint_eq(rd64(sfs), 0x00010000);                       /* Revision */
    ck_assert_uint_eq(rd64(sfs + 8), firmware_thunk(&fw, FW_ID_FILE_SYSTEM));
    ck_assert_uint_eq(CALL(FW_ID_FILE_SYSTEM, sfs, root_p), EFI_SUCCESS);
    uint64_t root = rd64(root_p);
    ck_assert_uint_eq(rd64(root), 0x00010000);
    ck_assert_uint_eq(rd64(root + FILE_FN(FILE_READ)), firmware_thunk(&fw, F(READ)));
    return root;
}

static efi_status_t open_at(uint64_t dir, const char *path, uint64_t mode, uint64_t attributes, uint64_t *file)
{
    uint64_t fp = put_u64(0);
    efi_status_t s = CALL(F(OPEN), dir, fp, put_ucs2(path), mode, attributes);
    *file = rd64(fp);
    return s;
}

static uint64_t open_ok(uint64_t dir, const char *path, uint64_t mode)
{
    uint64_t f;
    ck_assert_uint_eq(open_at(dir, path, mode, 0, &f), EFI_SUCCESS);
    return f;
}

/* Read up to len bytes into a scratch buffer; its address, *got the bytes read. */
static uint64_t read_file(uint64_t f, uint64_t len, uint64_t *got, efi_status_t want)
{
    uint64_t size_p = put_u64(len), buf = scratch(len ? len : 1);
    ck_assert_uint_eq(CALL(F(READ), f, size_p, buf), want);
    *got = rd64(size_p);
    return buf;
}

/* ---- the device, LoadedImage and the protocol ------------------------------------------ */

START_TEST(the_image_is_loaded_from_the_volume)
{
    struct efi_loaded_image *li = loaded_image();
    ck_assert_uint_ne(li->device_handle, 0);
    /* FilePath: File(\EFI\BOOT\BOOTX64.EFI)/End */
    const uint8_t *fp = hp(li->file_path);
    ck_assert_uint_eq(fp[0], EFI_DEV_MEDIA);
    ck_assert_uint_eq(fp[1], EFI_DEV_MEDIA_FILE_PATH);
    ck_assert(ucs2_equals(li->file_path + 4, "\\EFI\\BOOT\\BOOTX64.EFI"));
    unsigned len = fp[2] | fp[3] << 8;
    ck_assert_uint_eq(len, 4 + 2 * 22);
    ck_assert_uint_eq(fp[len], EFI_DEV_END_PATH);
    /* The device: VenHw(<disk>)/HD(1,GPT,<guid>,0x800,...)/End (UEFI 2.10
     * sections 10.3.2.4 and 10.3.5.1), a partition of the volume's disk. */
    uint64_t dp_p = put_u64(0);
    ck_assert_uint_eq(CALL(FW_ID_BS(BS_HANDLE_PROTOCOL), li->device_handle, put_guid(GUID_DEVICE_PATH), dp_p),
                      EFI_SUCCESS);
    const uint8_t *dev = hp(rd64(dp_p)), *hd = dev + 20;
    ck_assert_uint_eq(dev[0], EFI_DEV_HARDWARE);
    ck_assert_uint_eq(dev[1], EFI_DEV_HARDWARE_VENDOR);
    ck_assert_uint_eq(dev[2], 20);
    ck_assert_uint_eq(hd[0], EFI_DEV_MEDIA);
    ck_assert_uint_eq(hd[1], EFI_DEV_MEDIA_HARD_DRIVE);
    ck_assert_uint_eq(hd[2], 42);
    ck_assert_uint_eq(hd[4], 1);                 /* PartitionNumber */
    ck_assert_uint_eq(rd64(rd64(dp_p) + 20 + 8), 2048);   /* PartitionStart */
    ck_assert_uint_eq(hd[40], 2);                /* MBRType: GPT */
    ck_assert_uint_eq(hd[41], 2);                /* SignatureType: GUID */
    ck_assert_uint_eq(hd[42], EFI_DEV_END_PATH);
    /* LoadedImageDevicePath: VenHw(...)/HD(...)/File(...)/End */
    ck_assert_uint_eq(CALL(FW_ID_BS(BS_HANDLE_PROTOCOL), fw.image_handle, put_guid(GUID_LOADED_IMAGE_DEVICE_PATH),
                           dp_p), EFI_SUCCESS);
    ck_assert_int_eq(memcmp(hp(rd64(dp_p)), dev, 62), 0);
    ck_assert_int_eq(memcmp(hp(rd64(dp_p) + 62), fp, len + 4), 0);
}
END_TEST

START_TEST(an_image_outside_the_folder_has_an_empty_file_path)
{
    firmware_free(&fw);
    struct fw_config cfg = { .base = FW_BASE };
    ck_assert_int_eq(firmware_init(&fw, &gm, &cfg), 0);
    ck_assert_int_eq(firmware_attach_esp(&fw, &base, NULL), 0);
    ck_assert_uint_ne(loaded_image()->device_handle, 0);
    ck_assert_uint_eq(*(uint8_t *)hp(loaded_image()->file_path), EFI_DEV_END_PATH);
    ck_assert_uint_ne(open_root(), 0);
}
END_TEST

START_TEST(open_read_and_file_info)
{
    uint64_t root = open_root(), f, got;
    /* FAT names: any case; '\' first: from the root. */
    ck_assert_uint_eq(open_at(root, "\\HELLO.TXT", MODE_READ, 0, &f), EFI_SUCCESS);
    /* EFI_FILE_INFO: the size needed first, then the info. */
    uint64_t size_p = put_u64(0), info_g = put_guid(GUID_FILE_INFO);
    ck_assert_uint_eq(CALL(F(GET_INFO), f, info_g, size_p, 0), EFI_BUFFER_TOO_SMALL);
    ck_assert_uint_eq(rd64(size_p), INFO_NAME + 2 * 10);
    uint64_t info = scratch(rd64(size_p));
    ck_assert_uint_eq(CALL(F(GET_INFO), f, info_g, size_p, info), EFI_SUCCESS);
    ck_assert_uint_eq(rd64(info), INFO_NAME + 2 * 10);             /* Size */
    ck_assert_uint_eq(rd64(info + 8), strlen(hello));              /* FileSize */
    ck_assert_uint_eq(rd64(info + 72), VOLUME_ATTR_ARCHIVE);       /* Attribute */
    ck_assert_uint_eq(*(uint16_t *)hp(info + 24), 2023);           /* CreateTime.Year of 1700000000 */
    ck_assert(ucs2_equals(info + INFO_NAME, "hello.txt"));
    /* Read in pieces, the position following. */
    uint64_t buf = read_file(f, 5, &got, EFI_SUCCESS);
    ck_assert_uint_eq(got, 5);
    ck_assert_int_eq(memcmp(hp(buf), "hello", 5), 0);
    uint64_t pos_p = put_u64(0);
    ck_assert_uint_eq(CALL(F(GET_POSITION), f, pos_p), EFI_SUCCESS);
    ck_assert_uint_eq(rd64(pos_p), 5);
    buf = read_file(f, 100, &got, EFI_SUCCESS);
    ck_assert_uint_eq(got, strlen(hello) - 5);
    ck_assert_int_eq(memcmp(hp(buf), hello + 5, got), 0);
    read_file(f, 100, &got, EFI_SUCCESS);                          /* at the end: nothing */
    ck_assert_uint_eq(got, 0);
    /* The size as shim's loader finds it: SetPosition(end), GetPosition. */
    ck_assert_uint_eq(CALL(F(SET_POSITION), f, 0), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(F(SET_POSITION), f, UINT64_MAX), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(F(GET_POSITION), f, pos_p), EFI_SUCCESS);
    ck_assert_uint_eq(rd64(pos_p), strlen(hello));
    /* Beyond the end: an error (UEFI 2.10 section 13.5.6). */
    ck_assert_uint_eq(CALL(F(SET_POSITION), f, 100), EFI_SUCCESS);
    read_file(f, 10, &got, EFI_DEVICE_ERROR);
    ck_assert_uint_eq(CALL(F(CLOSE), f), EFI_SUCCESS);
    /* A closed handle is no handle. */
    ck_assert_uint_eq(CALL(F(CLOSE), f), EFI_INVALID_PARAMETER);
    read_file(f, 10, &got, EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(open_at(root, "\\nothing.txt", MODE_READ, 0, &f), EFI_NOT_FOUND);
}
END_TEST

START_TEST(paths_are_relative_to_a_directory_and_never_leave_the_root)
{
    uint64_t root = open_root(), f;
    uint64_t loader = open_ok(root, "\\loader\\", MODE_READ);   /* shim opens a directory with a trailing '\' */
    ck_assert_uint_eq(open_at(loader, "entries\\a.conf", MODE_READ, 0, &f), EFI_SUCCESS);
    /* From a file handle, a relative path starts in its directory. */
    ck_assert_uint_eq(open_at(f, "b.conf", MODE_READ, 0, &f), EFI_SUCCESS);
    ck_assert_uint_eq(open_at(loader, "..\\hello.txt", MODE_READ, 0, &f), EFI_SUCCESS);
    ck_assert_uint_eq(open_at(loader, ".\\.\\loader.conf", MODE_READ, 0, &f), EFI_SUCCESS);
    ck_assert_uint_eq(open_at(root, "\\loader\\entries\\..\\..\\hello.txt", MODE_READ, 0, &f), EFI_SUCCESS);
    /* Above the root is nowhere. */
    ck_assert_uint_eq(open_at(root, "..", MODE_READ, 0, &f), EFI_NOT_FOUND);
    ck_assert_uint_eq(open_at(loader, "..\\..\\hello.txt", MODE_READ, 0, &f), EFI_NOT_FOUND);
    ck_assert_uint_eq(open_at(root, "\\..\\etc\\passwd", MODE_READ, 0, &f), EFI_NOT_FOUND);
    /* A file is no directory on the way, nor at the end of a path that
     * ends in '\\' (which names a directory, as EDK2's FatLocateOFile
     * has it); such a path creates a directory only. */
    ck_assert_uint_eq(open_at(root, "hello.txt\\x", MODE_READ, 0, &f), EFI_NOT_FOUND);
    ck_assert_uint_eq(open_at(root, "hello.txt\\", MODE_READ, 0, &f), EFI_NOT_FOUND);
    ck_assert_uint_eq(open_at(root, "new.txt\\", MODE_CREATE, 0, &f), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(open_at(root, "new.txt", MODE_READ, 0, &f), EFI_NOT_FOUND);
    ck_assert_uint_eq(open_at(root, "newdir\\", MODE_CREATE, VOLUME_ATTR_DIRECTORY, &f), EFI_SUCCESS);
    /* Modes of UEFI 2.10 section 13.5.2 only. */
    ck_assert_uint_eq(open_at(root, "hello.txt", 0x2, 0, &f), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(open_at(root, "hello.txt", 0, 0, &f), EFI_INVALID_PARAMETER);
}
END_TEST

START_TEST(a_directory_reads_as_file_info_entries)
{
    uint64_t root = open_root();
    uint64_t dir = open_ok(root, "\\loader\\entries", MODE_READ);
    const char *want[] = { "b.conf", "a.conf" };   /* in the volume's order */
    for (int pass = 0; pass < 2; pass++) {
        for (unsigned i = 0; i < 2; i++) {
            uint64_t got, size_p = put_u64(INFO_NAME);
            ck_assert_uint_eq(CALL(F(READ), dir, size_p, scratch(INFO_NAME)), EFI_BUFFER_TOO_SMALL);
            ck_assert_uint_eq(rd64(size_p), INFO_NAME + 2 * 7);
            uint64_t buf = read_file(dir, rd64(size_p), &got, EFI_SUCCESS);
            ck_assert_uint_eq(got, INFO_NAME + 2 * 7);
            ck_assert(ucs2_equals(buf + INFO_NAME, want[i]));
            ck_assert_uint_eq(rd64(buf + 72), VOLUME_ATTR_ARCHIVE);
        }
        uint64_t got;
        read_file(dir, 0x200, &got, EFI_SUCCESS);
        ck_assert_uint_eq(got, 0);                 /* the end */
        ck_assert_uint_eq(CALL(F(SET_POSITION), dir, 0), EFI_SUCCESS);
    }
    ck_assert_uint_eq(CALL(F(SET_POSITION), dir, 1), EFI_UNSUPPORTED);
    ck_assert_uint_eq(CALL(F(GET_POSITION), dir, put_u64(0)), EFI_UNSUPPORTED);
    uint64_t got, buf = read_file(root, 0x200, &got, EFI_SUCCESS);
    ck_assert(ucs2_equals(buf + INFO_NAME, "EFI"));
    ck_assert_uint_eq(rd64(buf + 72), VOLUME_ATTR_DIRECTORY);
}
END_TEST

START_TEST(the_volume_describes_itself)
{
    uint64_t root = open_root(), size_p = put_u64(0x100), info = scratch(0x100);
    ck_assert_uint_eq(CALL(F(GET_INFO), root, put_guid(GUID_FILE_SYSTEM_INFO), size_p, info), EFI_SUCCESS);
    ck_assert_uint_eq(rd64(size_p), 36 + 2 * 4);
    ck_assert_uint_eq(*(uint8_t *)hp(info + 8), 0);                       /* ReadOnly: writes go to the overlay */
    ck_assert_uint_eq(rd64(info + 24), VOLUME_OVERLAY_MAX);                /* FreeSpace */
    ck_assert_uint_eq(*(uint32_t *)hp(info + 32), 512);                    /* BlockSize */
    ck_assert(ucs2_equals(info + 36, "ESP"));
    wr64(size_p, 0x100);
    ck_assert_uint_eq(CALL(F(GET_INFO), root, put_guid(GUID_FILE_SYSTEM_VOLUME_LABEL), size_p, info), EFI_SUCCESS);
    ck_assert(ucs2_equals(info, "ESP"));
    ck_assert_uint_eq(CALL(F(GET_INFO), root, put_guid(GUID_DEVICE_PATH), size_p, info), EFI_UNSUPPORTED);
}
END_TEST

START_TEST(writes_go_to_the_overlay)
{
    uint64_t root = open_root(), got, f = open_ok(root, "hello.txt", MODE_RW);
    uint64_t size_p = put_u64(5);
    ck_assert_uint_eq(CALL(F(WRITE), f, size_p, put("HELLO", 5)), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(F(FLUSH), f), EFI_SUCCESS);
    uint64_t g = open_ok(root, "hello.txt", MODE_READ), buf = read_file(g, 100, &got, EFI_SUCCESS);
    ck_assert_uint_eq(got, strlen(hello));
    ck_assert_int_eq(memcmp(hp(buf), "HELLO, world", got), 0);
    /* The base volume (the host folder's copy) is untouched. */
    long node = volume_child(&base, VOLUME_ROOT, u"hello.txt", 9);
    ck_assert_int_ge(node, 0);
    ck_assert_int_eq(memcmp(base.node[node].data, hello, strlen(hello)), 0);
    /* Read-only handles write nothing. */
    ck_assert_uint_eq(CALL(F(WRITE), g, size_p, put("x", 1)), EFI_ACCESS_DENIED);
    ck_assert_uint_eq(CALL(F(FLUSH), g), EFI_ACCESS_DENIED);
    ck_assert_uint_eq(CALL(F(WRITE), root, size_p, put("x", 1)), EFI_UNSUPPORTED);
    /* A new file and a new directory, as systemd-boot's random seed would be. */
    uint64_t n;
    ck_assert_uint_eq(open_at(root, "\\loader\\new", MODE_CREATE, VOLUME_ATTR_DIRECTORY, &n), EFI_SUCCESS);
    ck_assert_uint_eq(open_at(n, "seed", MODE_CREATE, 0, &n), EFI_SUCCESS);
    wr64(size_p, 4);
    ck_assert_uint_eq(CALL(F(WRITE), n, size_p, put("abcd", 4)), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(F(SET_POSITION), n, 8), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(F(WRITE), n, size_p, put("efgh", 4)), EFI_SUCCESS);   /* a gap of zeros */
    buf = read_file(open_ok(root, "\\loader\\NEW\\seed", MODE_READ), 100, &got, EFI_SUCCESS);
    ck_assert_uint_eq(got, 12);
    ck_assert_int_eq(memcmp(hp(buf), "abcd\0\0\0\0efgh", 12), 0);
    ck_assert_uint_eq(volume_child(&base, VOLUME_ROOT, u"loader", 6) >= 0 &&
                      volume_child(&base, (unsigned)volume_child(&base, VOLUME_ROOT, u"loader", 6), u"new", 3) < 0, 1);
    /* Delete: only what was opened for writing, only an empty directory. */
    uint64_t dir = open_ok(root, "\\loader\\new", MODE_RW);
    ck_assert_uint_eq(CALL(F(DELETE), dir), EFI_WARN_DELETE_FAILURE);
    ck_assert_uint_eq(CALL(F(DELETE), open_ok(root, "\\loader\\new\\seed", MODE_READ)), EFI_WARN_DELETE_FAILURE);
    ck_assert_uint_eq(CALL(F(DELETE), n), EFI_SUCCESS);
    ck_assert_uint_eq(open_at(root, "\\loader\\new\\seed", MODE_READ, 0, &n), EFI_NOT_FOUND);
    ck_assert_uint_eq(CALL(F(DELETE), open_ok(root, "\\loader\\new", MODE_RW)), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(F(DELETE), root), EFI_WARN_DELETE_FAILURE);
}
END_TEST

/* EFI_FILE_MODE_CREATE of a name that is there opens what is there:
 * Attributes are "the attribute bits for the newly created file" (UEFI
 * 2.10 13.5.2), and EDK2's FatOFileOpen opens the entry FatLocateOFile
 * found whatever they say. Only a name ending in '\' must be a directory
 * (FatLocateOFile: EFI_NOT_FOUND). */
START_TEST(a_create_of_a_name_that_is_there_opens_it)
{
    uint64_t root = open_root(), f, d, got;
    ck_assert_uint_eq(open_at(root, "hello.txt", MODE_CREATE, VOLUME_ATTR_DIRECTORY, &f), EFI_SUCCESS);
    uint64_t buf = read_file(f, 100, &got, EFI_SUCCESS);
    ck_assert_uint_eq(got, strlen(hello));
    ck_assert_int_eq(memcmp(hp(buf), hello, got), 0);
    ck_assert_uint_eq(open_at(root, "hello.txt\\", MODE_CREATE, VOLUME_ATTR_DIRECTORY, &f), EFI_NOT_FOUND);
    ck_assert_uint_eq(open_at(root, "loader", MODE_CREATE, 0, &d), EFI_SUCCESS);
    open_ok(d, "loader.conf", MODE_READ);   /* relative to a directory: inside it */
}
END_TEST

START_TEST(set_info_resizes_and_renames_within_bounds)
{
    uint64_t root = open_root(), f = open_ok(root, "hello.txt", MODE_RW), size_p = put_u64(0x100);
    uint64_t info = scratch(0x100), info_g = put_guid(GUID_FILE_INFO), got;
    ck_assert_uint_eq(CALL(F(GET_INFO), f, info_g, size_p, info), EFI_SUCCESS);
    wr64(info + 8, 5);                                              /* FileSize */
    ck_assert_uint_eq(CALL(F(SET_INFO), f, info_g, rd64(size_p), info), EFI_SUCCESS);
    read_file(open_ok(root, "hello.txt", MODE_READ), 100, &got, EFI_SUCCESS);
    ck_assert_uint_eq(got, 5);
    /* The overlay is bounded: EFI_VOLUME_FULL, nothing changed. */
    wr64(info + 8, VOLUME_OVERLAY_MAX + 1);
    ck_assert_uint_eq(CALL(F(SET_INFO), f, info_g, rd64(size_p), info), EFI_VOLUME_FULL);
    wr64(info + 8, 5);
    uint64_t renamed = put_ucs2("renamed.txt");
    memcpy(hp(info + INFO_NAME), hp(renamed), 2 * 12);
    wr64(info, INFO_NAME + 2 * 12);
    ck_assert_uint_eq(CALL(F(SET_INFO), f, info_g, INFO_NAME + 2 * 12, info), EFI_SUCCESS);
    ck_assert_uint_eq(open_at(root, "renamed.TXT", MODE_READ, 0, &got), EFI_SUCCESS);
    ck_assert_uint_eq(open_at(root, "hello.txt", MODE_READ, 0, &got), EFI_NOT_FOUND);
    /* A directory stays one; a read-only handle renames nothing. */
    wr64(info + 72, VOLUME_ATTR_DIRECTORY);
    ck_assert_uint_eq(CALL(F(SET_INFO), f, info_g, INFO_NAME + 2 * 12, info), EFI_ACCESS_DENIED);
    wr64(info + 72, 0);
    wr64(info, INFO_NAME + 12);
    memcpy(hp(info + INFO_NAME), hp(put_ucs2("x.txt")), 12);
    ck_assert_uint_eq(CALL(F(SET_INFO), open_ok(root, "renamed.txt", MODE_READ), info_g, INFO_NAME + 12, info),
                      EFI_ACCESS_DENIED);
}
END_TEST

/* SetInfo that asks for a new name and a size past the overlay, or a
 * new size and a name a sibling has, fails whole: neither the name nor
 * the size changes. */
START_TEST(a_refused_set_info_changes_nothing)
{
    uint64_t root = open_root(), f = open_ok(root, "hello.txt", MODE_RW), size_p = put_u64(0x100), got;
    uint64_t info = scratch(0x100), info_g = put_guid(GUID_FILE_INFO);
    ck_assert_uint_eq(CALL(F(GET_INFO), f, info_g, size_p, info), EFI_SUCCESS);
    memcpy(hp(info + INFO_NAME), hp(put_ucs2("renamed.txt")), 2 * 12);
    wr64(info, INFO_NAME + 2 * 12);
    wr64(info + 8, VOLUME_OVERLAY_MAX + 1);
    ck_assert_uint_eq(CALL(F(SET_INFO), f, info_g, INFO_NAME + 2 * 12, info), EFI_VOLUME_FULL);
    ck_assert_uint_eq(open_at(root, "renamed.txt", MODE_READ, 0, &got), EFI_NOT_FOUND);
    ck_assert_uint_eq(open_at(root, "hello.txt", MODE_READ, 0, &got), EFI_SUCCESS);
    memcpy(hp(info + INFO_NAME), hp(put_ucs2("loader")), 2 * 7);    /* a directory's name */
    wr64(info, INFO_NAME + 2 * 7);
    wr64(info + 8, 5);
    ck_assert_uint_eq(CALL(F(SET_INFO), f, info_g, INFO_NAME + 2 * 7, info), EFI_ACCESS_DENIED);
    read_file(open_ok(root, "hello.txt", MODE_READ), 100, &got, EFI_SUCCESS);
    ck_assert_uint_eq(got, strlen(hello));
}
END_TEST

/* A FAT directory holds 65536 entries (fatgen103 section 6): a name the
 * directory could not hold on the disk is EFI_VOLUME_FULL, so that the
 * volume stays a disk BlockIo can read. A name of 255 characters takes
 * its short entry and 20 long-name entries: with "." and "..", 3120 of
 * them are 65522 entries. */
START_TEST(a_directory_fat_cannot_hold_takes_no_more_names)
{
    uint64_t root = open_root(), dir, f;
    ck_assert_uint_eq(open_at(root, "full", MODE_CREATE, VOLUME_ATTR_DIRECTORY, &dir), EFI_SUCCESS);
    char name[VOLUME_NAME_MAX + 1];
    memset(name, 'x', VOLUME_NAME_MAX);
    name[VOLUME_NAME_MAX] = 0;
    uint64_t name_at = put_ucs2(name), f_p = put_u64(0);
    for (unsigned i = 0; i <= 3120; i++) {
        char digits[5];
        snprintf(digits, sizeof(digits), "%04u", i);
        memcpy(name, digits, 4);
        for (unsigned k = 0; k < 4; k++)
            ((uint16_t *)hp(name_at))[k] = (uint8_t)digits[k];
        efi_status_t s = CALL(F(OPEN), dir, f_p, name_at, MODE_CREATE, 0);
        ck_assert_msg(s == (i < 3120 ? EFI_SUCCESS : EFI_VOLUME_FULL), "name %u: %#llx", i, (unsigned long long)s);
        if (s == EFI_SUCCESS)
            ck_assert_uint_eq(CALL(F(CLOSE), rd64(f_p)), EFI_SUCCESS);
    }
    ck_assert_uint_eq(open_at(dir, name, MODE_READ, 0, &f), EFI_NOT_FOUND);
    /* An 8.3 name, one entry, still fits; renamed to a long name it would not. */
    f = open_ok(dir, "A.TXT", MODE_CREATE);
    uint64_t size_p = put_u64(0x300), info = scratch(0x300), info_g = put_guid(GUID_FILE_INFO);
    ck_assert_uint_eq(CALL(F(GET_INFO), f, info_g, size_p, info), EFI_SUCCESS);
    memcpy(hp(info + INFO_NAME), hp(put_ucs2(name)), 2 * (VOLUME_NAME_MAX + 1));
    wr64(info, INFO_NAME + 2 * (VOLUME_NAME_MAX + 1));
    ck_assert_uint_eq(CALL(F(SET_INFO), f, info_g, INFO_NAME + 2 * (VOLUME_NAME_MAX + 1), info), EFI_VOLUME_FULL);
    ck_assert_uint_eq(open_at(dir, "a.txt", MODE_READ, 0, &f), EFI_SUCCESS);
    /* The disk is built with every name: its partition reads. */
    uint64_t bio_p = put_u64(0), buf = scratch(512);
    ck_assert_uint_eq(CALL(FW_ID_BS(BS_HANDLE_PROTOCOL), loaded_image()->device_handle, put_guid(GUID_BLOCK_IO),
                           bio_p), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(FW_ID_BLOCK_IO(BLOCK_IO_READ_BLOCKS), rd64(bio_p), 0, 0, 512, buf), EFI_SUCCESS);
    ck_assert_uint_eq(((uint8_t *)hp(buf))[510] | ((uint8_t *)hp(buf))[511] << 8, 0xaa55);   /* the boot sector's signature */
}
END_TEST

START_TEST(hostile_pointers_are_refused)
{
    uint64_t root = open_root(), f;
    ck_assert_uint_eq(CALL(F(OPEN), root + 8, put_u64(0), put_ucs2("hello.txt"), MODE_READ, 0),
                      EFI_INVALID_PARAMETER);                               /* not a handle */
    ck_assert_uint_eq(CALL(F(OPEN), root, RAM_SIZE - 4, put_ucs2("hello.txt"), MODE_READ, 0),
                      EFI_INVALID_PARAMETER);                               /* NewHandle outside RAM */
    ram[RAM_SIZE - 2] = 'a';                                                /* a name running off RAM */
    ck_assert_uint_eq(CALL(F(OPEN), root, put_u64(0), RAM_SIZE - 2, MODE_READ, 0), EFI_INVALID_PARAMETER);
    f = open_ok(root, "hello.txt", MODE_READ);
    ck_assert_uint_eq(CALL(F(READ), f, put_u64(12), RAM_SIZE - 6), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(F(READ), f, RAM_SIZE, scratch(16)), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(F(GET_INFO), f, RAM_SIZE, put_u64(0x100), scratch(0x100)), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(FW_ID_FILE_SYSTEM, root, put_u64(0)), EFI_INVALID_PARAMETER);   /* not the protocol */
    /* A path longer than any the volume holds. */
    char longname[VOLUME_PATH_MAX + 8];
    memset(longname, 'a', sizeof(longname) - 1);
    longname[sizeof(longname) - 1] = 0;
    ck_assert_uint_eq(open_at(root, longname, MODE_READ, 0, &f), EFI_INVALID_PARAMETER);
}
END_TEST

START_TEST(every_handle_open_is_out_of_resources)
{
    uint64_t root = open_root(), f;
    efi_status_t s;
    unsigned n = 0;
    while ((s = open_at(root, "hello.txt", MODE_READ, 0, &f)) == EFI_SUCCESS)
        n++;
    ck_assert_uint_eq(s, EFI_OUT_OF_RESOURCES);
    ck_assert_uint_ge(n, 64);
    ck_assert_uint_eq(CALL(F(CLOSE), root), EFI_SUCCESS);
    ck_assert_uint_eq(open_at(open_root(), "hello.txt", MODE_READ, 0, &f), EFI_OUT_OF_RESOURCES);
}
END_TEST

/* Open with EFI_FILE_MODE_CREATE that has no handle to give creates nothing. */
START_TEST(a_create_without_a_free_handle_creates_nothing)
{
    uint64_t root = open_root(), f, hello_f = 0;
    while (open_at(root, "hello.txt", MODE_READ, 0, &f) == EFI_SUCCESS)
        hello_f = f;
    ck_assert_uint_eq(open_at(root, "new.txt", MODE_CREATE, 0, &f), EFI_OUT_OF_RESOURCES);
    ck_assert_uint_eq(CALL(F(CLOSE), hello_f), EFI_SUCCESS);
    ck_assert_uint_eq(open_at(root, "new.txt", MODE_READ, 0, &f), EFI_NOT_FOUND);
}
END_TEST

/* EFI_FILE_READ_ONLY, as EDK2's FAT driver has it: Open(CREATE) with it
 * in Attributes is EFI_INVALID_PARAMETER, nothing created (FatOpenEx);
 * set with SetInfo, it denies opening a file for writing, not a
 * directory (FatOFileOpen). */
static void set_attribute(uint64_t f, uint64_t attribute)
{
    uint64_t size_p = put_u64(0x100), info = scratch(0x100), info_g = put_guid(GUID_FILE_INFO);
    ck_assert_uint_eq(CALL(F(GET_INFO), f, info_g, size_p, info), EFI_SUCCESS);
    wr64(info + 72, attribute);
    ck_assert_uint_eq(CALL(F(SET_INFO), f, info_g, rd64(size_p), info), EFI_SUCCESS);
}

START_TEST(read_only_files_and_directories)
{
    uint64_t root = open_root(), f;
    ck_assert_uint_eq(open_at(root, "rofile", MODE_CREATE, VOLUME_ATTR_READ_ONLY, &f), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(open_at(root, "ro", MODE_CREATE, VOLUME_ATTR_DIRECTORY | VOLUME_ATTR_READ_ONLY, &f),
                      EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(open_at(root, "rofile", MODE_READ, 0, &f), EFI_NOT_FOUND);
    ck_assert_uint_eq(open_at(root, "ro", MODE_READ, 0, &f), EFI_NOT_FOUND);
    set_attribute(open_ok(root, "hello.txt", MODE_RW), VOLUME_ATTR_READ_ONLY);
    ck_assert_uint_eq(open_at(root, "hello.txt", MODE_RW, 0, &f), EFI_ACCESS_DENIED);
    ck_assert_uint_eq(open_at(root, "hello.txt", MODE_READ, 0, &f), EFI_SUCCESS);
    set_attribute(open_ok(root, "loader", MODE_RW), VOLUME_ATTR_DIRECTORY | VOLUME_ATTR_READ_ONLY);
    uint64_t dir = open_ok(root, "loader", MODE_RW);
    ck_assert_uint_eq(open_at(dir, "x.txt", MODE_CREATE, 0, &f), EFI_SUCCESS);
}
END_TEST

START_TEST(a_read_fails_on_purpose)
{
    uint64_t root = open_root(), got, f = open_ok(root, "hello.txt", MODE_READ);
    ck_assert_int_eq(inject_parse(&fw.cfg.inject, "file-read-error@2", (char[80]){ 0 }, 80), 0);
    read_file(f, 5, &got, EFI_SUCCESS);
    read_file(f, 5, &got, EFI_DEVICE_ERROR);
    ck_assert_uint_eq(fw.cfg.inject.count[INJECT_FILE_READ_ERROR], 1);
}
END_TEST

START_TEST(a_copy_has_its_own_overlay)
{
    uint64_t root = open_root(), got, f = open_ok(root, "hello.txt", MODE_RW);
    struct firmware copy;
    ck_assert_int_eq(firmware_copy(&copy, &fw), 0);
    ck_assert_uint_eq(CALL(F(WRITE), f, put_u64(5), put("HELLO", 5)), EFI_SUCCESS);
    struct firmware written = fw;
    fw = copy;   /* the snapshot, with the file still open at 0 */
    uint64_t buf = read_file(f, 5, &got, EFI_SUCCESS);
    ck_assert_int_eq(memcmp(hp(buf), "hello", 5), 0);
    firmware_free(&copy);
    fw = written;
    ck_assert_uint_ge(firmware_copy_bytes(&fw), sizeof(fw) + 5);
}
END_TEST

START_TEST(file_services_end_with_boot_services)
{
    uint64_t root = open_root(), got, size_p = put_u64(0), key_p = put_u64(0), dsize_p = put_u64(0);
    ck_assert_uint_eq(CALL(FW_ID_BS(BS_GET_MEMORY_MAP), size_p, 0, key_p, dsize_p, put_u64(0)), EFI_BUFFER_TOO_SMALL);
    uint64_t map = scratch(rd64(size_p) + 0x100);
    wr64(size_p, rd64(size_p) + 0x100);
    ck_assert_uint_eq(CALL(FW_ID_BS(BS_GET_MEMORY_MAP), size_p, map, key_p, dsize_p, put_u64(0)), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(FW_ID_BS(BS_EXIT_BOOT_SERVICES), fw.image_handle, rd64(key_p)), EFI_SUCCESS);
    read_file(root, 0x100, &got, EFI_UNSUPPORTED);
}
END_TEST

/* ---- the volume itself ------------------------------------------------------------------ */

START_TEST(names_are_fat_names)
{
    long a = volume_child(&base, VOLUME_ROOT, u"LOADER", 6);
    ck_assert_int_gt(a, 0);
    /* A second name for the same entry, however cased, is refused; so are "." and "..". */
    ck_assert_int_lt(volume_add(&base, VOLUME_ROOT, u"Loader", 6, true, NULL, 0, 0), 0);
    ck_assert_int_lt(volume_add(&base, VOLUME_ROOT, u"..", 2, true, NULL, 0, 0), 0);
    ck_assert_int_lt(volume_add(&base, VOLUME_ROOT, u"a\\b", 3, true, NULL, 0, 0), 0);
    /* Nor may a long name hold " * / : < > ? | (Microsoft's FAT specification, sections 6.1 and 7). */
    for (const uint16_t *c = u"\"*/:<>?|"; *c; c++) {
        uint16_t name[3] = { 'a', *c, 'b' };
        ck_assert_msg(volume_add(&base, VOLUME_ROOT, name, 3, false, NULL, 0, 0) < 0, "a%cb", (char)*c);
    }
    ck_assert_int_gt(volume_add(&base, VOLUME_ROOT, u"a+,;=[]b c", 10, false, NULL, 0, 0), 0);   /* these it may */
    /* Latin-1's small letters have capitals too, as in EDK2's FAT driver
     * (EnglishDxe's collation): not the division sign against the
     * multiplication sign 0x20 below it, nor y with diaeresis. */
    long apple = volume_add(&base, VOLUME_ROOT, u"\u00e4pfel", 5, false, NULL, 0, 0);
    ck_assert_int_gt(apple, 0);
    ck_assert_int_eq(volume_child(&base, VOLUME_ROOT, u"\u00c4PFEL", 5), apple);
    ck_assert_int_lt(volume_add(&base, VOLUME_ROOT, u"\u00c4pfel", 5, false, NULL, 0, 0), 0);
    ck_assert_int_gt(volume_add(&base, VOLUME_ROOT, u"\u00f7", 1, false, NULL, 0, 0), 0);
    ck_assert_int_gt(volume_add(&base, VOLUME_ROOT, u"\u00d7", 1, false, NULL, 0, 0), 0);
    ck_assert_int_gt(volume_add(&base, VOLUME_ROOT, u"\u00ff", 1, false, NULL, 0, 0), 0);
    ck_assert_int_gt(volume_add(&base, VOLUME_ROOT, u"\u00df", 1, false, NULL, 0, 0), 0);
    /* The guest cannot create one either (EDK2's FatFileNameIsValid: EFI_INVALID_PARAMETER). */
    uint64_t root = open_root(), f;
    ck_assert_uint_eq(open_at(root, "what?.txt", MODE_CREATE, 0, &f), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(open_at(root, "what?.txt", MODE_READ, 0, &f), EFI_NOT_FOUND);
    ck_assert_int_lt(volume_add(&base, (unsigned)volume_child(&base, VOLUME_ROOT, u"hello.txt", 9), u"x", 1, false,
                                NULL, 0, 0), 0);   /* a file holds no entries */
    ck_assert_int_lt(volume_add(&base, VOLUME_ROOT, u"big", 3, false, NULL, VOLUME_FILE_MAX + 1, 0), 0);
}
END_TEST

/* ---- the host folder (vmm/host/esp_dir.c) ----------------------------------------------- */

static char notes[4096];
static void note(const char *line) { strncat(notes, line, sizeof(notes) - strlen(notes) - 2); strcat(notes, "\n"); }

static void write_host(const char *path, const char *data)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(data, f);
    fclose(f);
}

/* The folder read into *vol, its notes in notes: the read must succeed. */
static void read_folder(const char *dir, struct volume *vol)
{
    char err[256] = "";
    notes[0] = 0;
    ck_assert_msg(esp_dir_read(dir, vol, note, err, sizeof(err)) == 0, "esp_dir_read: %s", err);
}

static void remove_folder(const char *dir)
{
    char cmd[96];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}

/* An empty folder is a volume with its root alone. */
START_TEST(an_empty_folder_is_an_empty_volume)
{
    char top[] = "/tmp/handover-esp-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(top));
    struct volume vol;
    read_folder(top, &vol);
    ck_assert_uint_eq(vol.n, 1);
    volume_free(&vol);
    ck_assert_int_eq(rmdir(top), 0);
}
END_TEST

START_TEST(the_host_folder_is_read_beneath_itself)
{
    char top[] = "/tmp/handover-esp-XXXXXX", dir[64], p[128], err[256];
    ck_assert_ptr_nonnull(mkdtemp(top));
    snprintf(dir, sizeof(dir), "%s/esp", top);
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    snprintf(p, sizeof(p), "%s/secret", top);
    write_host(p, "outside");
    snprintf(p, sizeof(p), "%s/EFI", dir);
    ck_assert_int_eq(mkdir(p, 0755), 0);
    snprintf(p, sizeof(p), "%s/EFI/app.efi", dir);
    write_host(p, "app");
    snprintf(p, sizeof(p), "%s/inside", dir);
    ck_assert_int_eq(symlink("EFI/app.efi", p), 0);          /* stays in: kept */
    snprintf(p, sizeof(p), "%s/up", dir);
    ck_assert_int_eq(symlink("../secret", p), 0);             /* leads out: left out */
    snprintf(p, sizeof(p), "%s/abs", dir);
    ck_assert_int_eq(symlink("/etc/passwd", p), 0);           /* leads out: left out */
    snprintf(p, sizeof(p), "%s/fifo", dir);
    ck_assert_int_eq(mkfifo(p, 0600), 0);                      /* never opened */
    snprintf(p, sizeof(p), "%s/dangling", dir);
    ck_assert_int_eq(symlink("nothing", p), 0);                /* just before the FIFO, in name order */
    notes[0] = 0;
    struct volume vol;
    ck_assert_int_eq(esp_dir_read(dir, &vol, note, err, sizeof(err)), 0);
    ck_assert_int_ge(volume_child(&vol, VOLUME_ROOT, u"inside", 6), 0);
    ck_assert_int_lt(volume_child(&vol, VOLUME_ROOT, u"up", 2), 0);
    ck_assert_int_lt(volume_child(&vol, VOLUME_ROOT, u"abs", 3), 0);
    ck_assert_int_lt(volume_child(&vol, VOLUME_ROOT, u"fifo", 4), 0);
    ck_assert_ptr_nonnull(strstr(notes, "up: a symlink leading out of the folder: left out"));
    ck_assert_ptr_nonnull(strstr(notes, "abs: a symlink leading out of the folder: left out"));
    ck_assert_ptr_nonnull(strstr(notes, "fifo: not a regular file or a directory: left out"));
    ck_assert_ptr_nonnull(strstr(notes, "dangling: a dangling symlink: left out"));
    char rel[64];
    snprintf(p, sizeof(p), "%s/EFI/app.efi", dir);
    ck_assert_int_eq(esp_dir_image_path(dir, p, rel, sizeof(rel)), 0);
    ck_assert_str_eq(rel, "EFI/app.efi");
    snprintf(p, sizeof(p), "%s/secret", top);
    ck_assert_int_eq(esp_dir_image_path(dir, p, rel, sizeof(rel)), -1);

    /* The guest writes the file; the host's stays as it was. */
    firmware_free(&fw);
    struct fw_config cfg = { .base = FW_BASE };
    ck_assert_int_eq(firmware_init(&fw, &gm, &cfg), 0);
    ck_assert_int_eq(firmware_attach_esp(&fw, &vol, "EFI/app.efi"), 0);
    uint64_t f = open_ok(open_root(), "\\EFI\\APP.EFI", MODE_RW);
    ck_assert_uint_eq(CALL(F(WRITE), f, put_u64(3), put("APP", 3)), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(F(DELETE), open_ok(open_root(), "inside", MODE_RW)), EFI_SUCCESS);
    char back[8] = { 0 };
    snprintf(p, sizeof(p), "%s/EFI/app.efi", dir);
    FILE *h = fopen(p, "r");
    ck_assert_ptr_nonnull(h);
    ck_assert_uint_eq(fread(back, 1, sizeof(back), h), 3);
    fclose(h);
    ck_assert_str_eq(back, "app");
    snprintf(p, sizeof(p), "%s/inside", dir);
    ck_assert_int_eq(access(p, F_OK), 0);

    /* A file over the bound refuses the folder, naming it (sparse: no bytes written). */
    snprintf(p, sizeof(p), "%s/big", dir);
    int fd = open(p, O_CREAT | O_WRONLY, 0600);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(ftruncate(fd, (off_t)VOLUME_FILE_MAX + 1), 0);
    close(fd);
    struct volume refused;
    ck_assert_int_eq(esp_dir_read(dir, &refused, note, err, sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, "big: 268435457 bytes, more than a file may have (256 MiB)"));
    volume_free(&refused);
    snprintf(p, sizeof(p), "%s/nothing", top);
    ck_assert_int_eq(esp_dir_read(p, &refused, note, err, sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, "No such file or directory"));
    volume_free(&refused);

    firmware_free(&fw);
    volume_free(&vol);
    remove_folder(top);
    ck_assert_int_eq(firmware_init(&fw, &gm, &cfg), 0);   /* for the teardown */
}
END_TEST

/* Linux names FAT cannot hold: a '\\' (the volume's separator), a
 * control character, or one of " * : < > ? |. Each is left out, said on
 * a line; the rest of the folder is served. */
START_TEST(a_host_name_fat_cannot_hold_is_left_out)
{
    char top[] = "/tmp/handover-esp-XXXXXX", p[128];
    ck_assert_ptr_nonnull(mkdtemp(top));
    const char *names[] = { "back\\slash", "new\nline", "tab\there", "what?", "a:b", "kept.txt" };
    for (unsigned i = 0; i < 6; i++) {
        snprintf(p, sizeof(p), "%s/%s", top, names[i]);
        write_host(p, "x");
    }
    struct volume vol;
    read_folder(top, &vol);
    ck_assert_uint_eq(vol.n, 2);
    ck_assert_int_ge(volume_child(&vol, VOLUME_ROOT, u"kept.txt", 8), 0);
    ck_assert_ptr_nonnull(strstr(notes, "back\\slash: its name holds a character FAT names cannot hold"));
    ck_assert_ptr_nonnull(strstr(notes, "new\nline: its name holds a character FAT names cannot hold"));
    ck_assert_ptr_nonnull(strstr(notes, "what?: its name holds a character FAT names cannot hold"));
    ck_assert_ptr_nonnull(strstr(notes, "a:b: its name holds a character FAT names cannot hold"));
    volume_free(&vol);
    remove_folder(top);
}
END_TEST

/* A symlink back to a directory it is in (openSUSE's /boot/boot -> .) is
 * left out, said on a line: followed, it would copy the folder into itself
 * level after level until a bound refused the whole folder. A symlink to
 * a directory beside it is followed. */
START_TEST(a_symlink_loop_is_left_out)
{
    char top[] = "/tmp/handover-esp-XXXXXX", p[128];
    ck_assert_ptr_nonnull(mkdtemp(top));
    static const char *const links[][2] = { { "boot", "." }, { "EFI/up", ".." }, { "same", "EFI" } };
    snprintf(p, sizeof(p), "%s/EFI", top);
    ck_assert_int_eq(mkdir(p, 0755), 0);
    strcat(p, "/app.efi");
    write_host(p, "app");
    for (unsigned i = 0; i < 3; i++) {
        snprintf(p, sizeof(p), "%s/%s", top, links[i][0]);
        ck_assert_int_eq(symlink(links[i][1], p), 0);
    }
    struct volume vol;
    read_folder(top, &vol);
    ck_assert_int_lt(volume_child(&vol, VOLUME_ROOT, u"boot", 4), 0);
    long efi = volume_child(&vol, VOLUME_ROOT, u"EFI", 3), same = volume_child(&vol, VOLUME_ROOT, u"same", 4);
    ck_assert_int_ge(efi, 0);
    ck_assert_int_lt(volume_child(&vol, (unsigned)efi, u"up", 2), 0);
    ck_assert_int_ge(same, 0);
    ck_assert_int_ge(volume_child(&vol, (unsigned)same, u"app.efi", 7), 0);
    ck_assert_ptr_nonnull(strstr(notes, "boot: a symlink back to a directory it is in (a loop): left out"));
    ck_assert_ptr_nonnull(strstr(notes, "EFI/up: a symlink back to a directory it is in (a loop): left out"));
    volume_free(&vol);
    remove_folder(top);
}
END_TEST

Suite *simple_fs_suite(void)
{
    Suite *s = suite_create("simple_fs");
    TCase *t = fw_tcase(s, "esp");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_set_timeout(t, 60);   /* a directory filled to its FAT bound: 3121 creates, seconds under ASan */
    tcase_add_test(t, the_image_is_loaded_from_the_volume);
    tcase_add_test(t, an_image_outside_the_folder_has_an_empty_file_path);
    tcase_add_test(t, open_read_and_file_info);
    tcase_add_test(t, paths_are_relative_to_a_directory_and_never_leave_the_root);
    tcase_add_test(t, a_directory_reads_as_file_info_entries);
    tcase_add_test(t, the_volume_describes_itself);
    tcase_add_test(t, writes_go_to_the_overlay);
    tcase_add_test(t, a_create_of_a_name_that_is_there_opens_it);
    tcase_add_test(t, set_info_resizes_and_renames_within_bounds);
    tcase_add_test(t, a_refused_set_info_changes_nothing);
    tcase_add_test(t, a_directory_fat_cannot_hold_takes_no_more_names);
    tcase_add_test(t, hostile_pointers_are_refused);
    tcase_add_test(t, every_handle_open_is_out_of_resources);
    tcase_add_test(t, a_create_without_a_free_handle_creates_nothing);
    tcase_add_test(t, read_only_files_and_directories);
    tcase_add_test(t, a_read_fails_on_purpose);
    tcase_add_test(t, a_copy_has_its_own_overlay);
    tcase_add_test(t, file_services_end_with_boot_services);
    tcase_add_test(t, names_are_fat_names);
    tcase_add_test(t, an_empty_folder_is_an_empty_volume);
    tcase_add_test(t, the_host_folder_is_read_beneath_itself);
    tcase_add_test(t, a_host_name_fat_cannot_hold_is_left_out);
    tcase_add_test(t, a_symlink_loop_is_left_out);
    return s;
}
