/* --esp as a disk (firmware-stub/esp_disk.c, fat_image.c, fat_name.c):
 * the GPT disk and FAT file system synthesized from a volume, checked with
 * tools nobody here wrote (sfdisk of fdisk reads the partition table,
 * fsck.fat of dosfstools the file system, mtools and GRUB's own drivers
 * (grub-fstest) list the names and read every file back), and its reads
 * directly: across a file's end, across the partition's start, the backup
 * GPT header's CRCs. */
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include "suites.h"
#include "../../firmware-stub/esp_disk.h"
#include "../../firmware-stub/fat_name.h"
#include "../../firmware-stub/volume.h"

#define BLOCK        ESP_DISK_BLOCK_SIZE
#define PART_OFF     ((uint64_t)ESP_DISK_PARTITION_START * BLOCK)
#define MTIME        1700000000   /* 2023-11-14 22:13:20 UTC */
#define BIG          (1u << 20)
#define OUT_MAX      (4u << 20)
#define PATH_SBIN    "PATH=\"$PATH:/usr/sbin:/sbin\" "
#define ESP_TYPE     "C12A7328-F81F-11D2-BA4B-00A0C93EC93B"
#define PART_UUID    "68616E64-6F76-4572-8E53-500000000001"
#define DISK_UUID    "68616E64-6F76-4572-8E53-440000000001"

static const efi_guid_t partition_guid =
    EFI_GUID(0x68616e64, 0x6f76, 0x4572, 0x8e, 0x53, 0x50, 0x00, 0x00, 0x00, 0x00, 0x01);

static struct volume base, vol;   /* vol: a copy of base, one file deleted and a label set */
static struct esp_disk *disk;
static char dir[] = "/tmp/handover-esp-disk-XXXXXX";
static char disk_file[64], part_file[64];
static char *out;                  /* a command's output */

/* A file of the fixture and the bytes it holds. */
struct fixture_file {
    const char *path;
    size_t size;
    unsigned seed;                 /* its bytes: pattern(seed, i) */
    int64_t mtime;
};

static const struct fixture_file fixture[] = {
    { "EFI/BOOT/BOOTX64.EFI", 4000, 1, MTIME },
    { "EFI/debian/grub.cfg", 37, 2, MTIME },
    { "boot/vmlinuz-6.1.0-amd64", 3000, 3, MTIME },    /* both VMLINU~N.0-A in 8.3 */
    { "boot/vmlinuz-6.12.0-amd64", 5000, 4, MTIME },
    { "boot/VMLINU~1.0-A", 10, 5, MTIME },             /* a real 8.3 name the tails must pass */
    { "boot/initrd.img-6.1.0-amd64", BIG, 6, MTIME },
    { "Long File Name With Case.txt", 700, 7, MTIME },
    { "empty", 0, 8, MTIME },
    { "README.TXT", 512, 9, MTIME },
    { "hello.txt", 12, 10, MTIME },
    { "a/b/c/d/e/f/deep.txt", 1, 11, MTIME },
    { "old.txt", 2, 12, 0 },                           /* before 1980: its first second */
    { "future.txt", 3, 13, 5000000000LL },             /* after 2107: its last */
    { "odd.txt", 4, 14, MTIME + 1 },                   /* an odd second */
};

static uint8_t pattern(unsigned seed, size_t i)
{
    return (uint8_t)((i * (2 * seed + 1) + seed + (i >> 8)) & 0xff);
}

/* Whether len bytes are the pattern of seed from its byte from. */
static bool same_as_pattern(const uint8_t *p, unsigned seed, size_t from, size_t len)
{
    size_t i = 0;
    while (i < len && p[i] == pattern(seed, from + i))
        i++;
    return i == len;
}

/* Add path's directories and, unless dir_only, its file. */
static long add_path(struct volume *v, const char *path, bool dir_only, size_t size, unsigned seed, int64_t mtime)
{
    unsigned at = VOLUME_ROOT;
    const char *p = path;
    for (;;) {
        uint16_t name[VOLUME_NAME_MAX];
        unsigned n = 0;
        while (*p && *p != '/')
            name[n++] = (uint8_t)*p++;
        bool last = !*p;
        long child = volume_child(v, at, name, n);
        if (child < 0 && last && !dir_only) {
            uint8_t *data = malloc(size ? size : 1);
            ck_assert_ptr_nonnull(data);
            for (size_t i = 0; i < size; i++)
                data[i] = pattern(seed, i);
            child = volume_add(v, at, name, n, false, data, size, mtime);
        } else if (child < 0) {
            child = volume_add(v, at, name, n, true, NULL, 0, MTIME);
        }
        ck_assert_int_ge(child, 0);
        if (last)
            return child;
        at = (unsigned)child;
        p++;
    }
}

/* The disk's bytes from off, len of them, into a file: sparse, zeros
 * left as holes. */
static void write_image(const struct esp_disk *d, const char *path, uint64_t off, uint64_t len)
{
    enum { CHUNK = 1 << 20 };
    static uint8_t buf[CHUNK], zero[CHUNK];
    int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
    ck_assert_int_ge(fd, 0);
    for (uint64_t at = 0; at < len; at += CHUNK) {
        uint64_t n = len - at < CHUNK ? len - at : CHUNK;
        esp_disk_read(d, off + at, buf, n);
        if (memcmp(buf, zero, n))
            ck_assert_int_eq(pwrite(fd, buf, n, (off_t)at), (ssize_t)n);
    }
    ck_assert_int_eq(ftruncate(fd, (off_t)len), 0);
    ck_assert_int_eq(close(fd), 0);
}

/* Run a shell command; its exit status, its stdout (with stderr if
 * merge) in out, out_len bytes. */
static int run(const char *cmd, bool merge, size_t *out_len)
{
    char full[1024];
    snprintf(full, sizeof(full), "%s%s", cmd, merge ? " 2>&1" : "");
    FILE *p = popen(full, "r");
    ck_assert_ptr_nonnull(p);
    size_t n = fread(out, 1, OUT_MAX - 1, p);
    out[n] = 0;
    if (out_len)
        *out_len = n;
    int status = pclose(p);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void need_tool(const char *tool, const char *package)
{
    char cmd[128];
    snprintf(cmd, sizeof(cmd), PATH_SBIN "command -v %s", tool);
    ck_assert_msg(run(cmd, true, NULL) == 0, "%s not found: install the %s package (scripts/packages.txt)", tool,
                  package);
}

static void setup(void)
{
    out = malloc(OUT_MAX);
    ck_assert_ptr_nonnull(out);
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(disk_file, sizeof(disk_file), "%s/disk.img", dir);
    snprintf(part_file, sizeof(part_file), "%s/part.img", dir);
    ck_assert_int_eq(volume_init(&base, MTIME), 0);
    for (size_t i = 0; i < sizeof(fixture) / sizeof(fixture[0]); i++)
        add_path(&base, fixture[i].path, false, fixture[i].size, fixture[i].seed, fixture[i].mtime);
    add_path(&base, "emptydir", true, 0, 0, MTIME);
    long gone = add_path(&base, "boot/gone.txt", false, 5, 15, MTIME);
    long hidden = add_path(&base, "hidden.txt", false, 6, 16, MTIME);
    base.node[hidden].attribute = VOLUME_ATTR_HIDDEN | VOLUME_ATTR_READ_ONLY;
    ck_assert_int_eq(volume_copy(&vol, &base), 0);
    ck_assert_int_eq(volume_delete(&vol, (unsigned)gone), 0);
    memcpy(vol.label, u"handover test", sizeof(u"handover test"));
    disk = esp_disk_build(&vol, &partition_guid, 0);
    ck_assert_ptr_nonnull(disk);
}

static void teardown(void)
{
    esp_disk_free(disk);
    volume_free(&vol);
    volume_free(&base);
    unlink(disk_file);
    unlink(part_file);
    rmdir(dir);
    memcpy(dir + strlen(dir) - 6, "XXXXXX", 6);
    free(out);
}

/* ---- tools nobody here wrote --------------------------------------------------------------- */

static json_int_t json_int(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    ck_assert_msg(json_is_integer(v), "sfdisk --json: no integer %s", key);
    return json_integer_value(v);
}

static const char *json_str(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    ck_assert_msg(json_is_string(v), "sfdisk --json: no string %s", key);
    return json_string_value(v);
}

START_TEST(sfdisk_reads_one_esp_partition_at_2048)
{
    need_tool("sfdisk", "fdisk");
    write_image(disk, disk_file, 0, esp_disk_blocks(disk) * BLOCK);
    char cmd[256];
    snprintf(cmd, sizeof(cmd), PATH_SBIN "sfdisk --json %s 2>&1 >/dev/null", disk_file);
    ck_assert_int_eq(run(cmd, false, NULL), 0);
    ck_assert_msg(!out[0], "sfdisk warns: %s", out);
    snprintf(cmd, sizeof(cmd), PATH_SBIN "sfdisk --json %s", disk_file);
    ck_assert_int_eq(run(cmd, false, NULL), 0);
    json_error_t err;
    json_t *root = json_loads(out, 0, &err);
    ck_assert_msg(root != NULL, "sfdisk --json: %s", err.text);
    json_t *table = json_object_get(root, "partitiontable");
    ck_assert_str_eq(json_str(table, "label"), "gpt");
    ck_assert_str_eq(json_str(table, "id"), DISK_UUID);
    ck_assert_int_eq(json_int(table, "firstlba"), 34);
    ck_assert_int_eq(json_int(table, "lastlba"), (json_int_t)esp_disk_blocks(disk) - 34);
    json_t *parts = json_object_get(table, "partitions");
    ck_assert_int_eq(json_array_size(parts), 1);
    json_t *p = json_array_get(parts, 0);
    ck_assert_int_eq(json_int(p, "start"), ESP_DISK_PARTITION_START);
    ck_assert_int_eq(json_int(p, "size"), (json_int_t)esp_disk_partition_blocks(disk));
    ck_assert_str_eq(json_str(p, "type"), ESP_TYPE);
    ck_assert_str_eq(json_str(p, "uuid"), PART_UUID);
    ck_assert_str_eq(json_str(p, "name"), "EFI System Partition");
    json_decref(root);
    snprintf(cmd, sizeof(cmd), PATH_SBIN "sfdisk --verify %s", disk_file);
    ck_assert_int_eq(run(cmd, true, NULL), 0);
    ck_assert_msg(strstr(out, "No errors detected"), "sfdisk --verify: %s", out);
}
END_TEST

START_TEST(fsck_fat_finds_nothing_to_fix)
{
    need_tool("fsck.fat", "dosfstools");
    write_image(disk, part_file, PART_OFF, esp_disk_partition_blocks(disk) * BLOCK);
    char cmd[256];
    snprintf(cmd, sizeof(cmd), PATH_SBIN "fsck.fat -n -V %s", part_file);
    ck_assert_msg(run(cmd, true, NULL) == 0, "fsck.fat: %s", out);
    /* Its version line, its two passes' and the summary: no more. 27
     * entries: 15 files, 11 directories and the label. */
    unsigned lines = 0;
    for (const char *c = out; *c; c++)
        lines += *c == '\n';
    ck_assert_msg(lines == 4 && strstr(out, "Starting verification pass.\n") && strstr(out, ": 27 files, "),
                  "fsck.fat says more: %s", out);
}
END_TEST

START_TEST(mtools_lists_the_names_and_reads_every_file_back)
{
    need_tool("mdir", "mtools");
    write_image(disk, disk_file, 0, esp_disk_blocks(disk) * BLOCK);
    char cmd[512];
    size_t len;
    /* Every file by its long name, with its case; the deleted one gone. */
    snprintf(cmd, sizeof(cmd), "mdir -/ -b -i %s@@%llu ::/", disk_file, (unsigned long long)PART_OFF);
    ck_assert_msg(run(cmd, true, NULL) == 0, "mdir: %s", out);
    char *listing = strdup(out);
    ck_assert_ptr_nonnull(listing);
    for (size_t i = 0; i < sizeof(fixture) / sizeof(fixture[0]); i++) {
        char want[300];
        snprintf(want, sizeof(want), "::/%s\n", fixture[i].path);
        ck_assert_msg(strstr(listing, want), "mdir does not list %s: %s", fixture[i].path, listing);
    }
    ck_assert_msg(strstr(listing, "::/emptydir/"), "mdir: %s", listing);
    ck_assert_msg(!strstr(listing, "gone.txt"), "a deleted file is listed: %s", listing);
    free(listing);

    /* The short names: the clashing ones after the real VMLINU~1.0-A. */
    snprintf(cmd, sizeof(cmd), "mdir -i %s@@%llu ::/boot", disk_file, (unsigned long long)PART_OFF);
    ck_assert_msg(run(cmd, true, NULL) == 0, "mdir: %s", out);
    ck_assert_msg(strstr(out, "VMLINU~2 0-A      3000 2023-11-14  22:13  vmlinuz-6.1.0-amd64"), "%s", out);
    ck_assert_msg(strstr(out, "VMLINU~3 0-A      5000 2023-11-14  22:13  vmlinuz-6.12.0-amd64"), "%s", out);
    ck_assert_msg(strstr(out, "VMLINU~1 0-A        10 2023-11-14  22:13 \n"), "%s", out);
    snprintf(cmd, sizeof(cmd), "mdir -i %s@@%llu ::/", disk_file, (unsigned long long)PART_OFF);
    ck_assert_msg(run(cmd, true, NULL) == 0, "mdir: %s", out);
    ck_assert_msg(strstr(out, "Volume in drive : is HANDOVER TE"), "%s", out);
    ck_assert_msg(strstr(out, "OLD      TXT         2 1980-01-01   0:00  old.txt"), "%s", out);
    ck_assert_msg(strstr(out, "FUTURE   TXT         3 2107-12-31  23:59  future.txt"), "%s", out);
    ck_assert_msg(strstr(out, "README   TXT       512 2023-11-14  22:13 \n"), "%s", out);
    ck_assert_msg(strstr(out, "EMPTYDIR     <DIR>     2023-11-14  22:13  emptydir"), "%s", out);
    snprintf(cmd, sizeof(cmd), "mattrib -i %s@@%llu ::/hidden.txt", disk_file, (unsigned long long)PART_OFF);
    ck_assert_msg(run(cmd, true, NULL) == 0, "mattrib: %s", out);
    ck_assert_msg(strstr(out, "HR     ::/hidden.txt"), "mattrib: %s", out);

    /* Every file's bytes, as the volume holds them. */
    for (size_t i = 0; i < sizeof(fixture) / sizeof(fixture[0]); i++) {
        snprintf(cmd, sizeof(cmd), "mcopy -n -i %s@@%llu '::/%s' -", disk_file, (unsigned long long)PART_OFF,
                 fixture[i].path);
        ck_assert_msg(run(cmd, false, &len) == 0, "mcopy %s: %s", fixture[i].path, out);
        ck_assert_msg(len == fixture[i].size, "mcopy %s: %zu bytes, not %zu", fixture[i].path, len,
                      fixture[i].size);
        ck_assert_msg(same_as_pattern((const uint8_t *)out, fixture[i].seed, 0, len), "mcopy %s: bytes differ",
                      fixture[i].path);
    }
}
END_TEST

START_TEST(grub_reads_the_partition_and_every_file)
{
    /* GRUB's own GPT and FAT drivers, which Debian's signed GRUB reads its
     * grub.cfg and the kernel with (grub-fstest of grub-common). */
    need_tool("grub-fstest", "grub-common");
    write_image(disk, disk_file, 0, esp_disk_blocks(disk) * BLOCK);
    char cmd[512];
    snprintf(cmd, sizeof(cmd), "grub-fstest %s ls '(loop0,gpt1)/boot/'", disk_file);
    ck_assert_msg(run(cmd, true, NULL) == 0, "grub-fstest: %s", out);
    ck_assert_msg(strstr(out, "vmlinuz-6.1.0-amd64 ") && strstr(out, "vmlinuz-6.12.0-amd64 ") &&
                  strstr(out, "initrd.img-6.1.0-amd64 ") && !strstr(out, "gone.txt"), "grub-fstest ls: %s", out);
    for (size_t i = 0; i < sizeof(fixture) / sizeof(fixture[0]); i++) {
        uint8_t *want = malloc(fixture[i].size + 1);
        ck_assert_ptr_nonnull(want);
        for (size_t k = 0; k < fixture[i].size; k++)
            want[k] = pattern(fixture[i].seed, k);
        char crc[16];
        snprintf(crc, sizeof(crc), "%08lx\n", crc32(0, want, (uInt)fixture[i].size));
        free(want);
        snprintf(cmd, sizeof(cmd), "grub-fstest %s crc '(loop0,gpt1)/%s'", disk_file, fixture[i].path);
        ck_assert_msg(run(cmd, true, NULL) == 0, "grub-fstest crc %s: %s", fixture[i].path, out);
        ck_assert_msg(!strcmp(out, crc), "grub-fstest crc %s: %s, not %s", fixture[i].path, out, crc);
    }
}
END_TEST

START_TEST(names_at_the_edges_of_fat_pass_the_tools)
{
    /* Names a short name cannot hold, long names of exactly one and two
     * entries (no NUL, no padding), and one outside ASCII; no label. */
    static const char *const names[] = {
        "a..b", "...x", "x y z", "plus+comma,semi;eq=br[a]ck", " lead space", "UPPER.txt", "Mixed.Ext.More",
        "~1", "a.b.c.d.e", "abcdefghijklm", "abcdefghijklmnopqrstuvwxyz", "x.ab", "no_extension_and_long", "trailing.", "trailing space ",
    };
    const unsigned count = sizeof(names) / sizeof(names[0]);
    struct volume odd;
    ck_assert_int_eq(volume_init(&odd, MTIME), 0);
    for (unsigned i = 0; i < count; i++)
        add_path(&odd, names[i], false, i + 1, i, MTIME);
    ck_assert_int_ge(volume_add(&odd, VOLUME_ROOT, u"\u00fcn\u00efc\u00f6d\u00e9.txt", 11, false, NULL, 0, MTIME), 0);
    memset(odd.label, 0, sizeof(odd.label));
    struct esp_disk *d = esp_disk_build(&odd, &partition_guid, 0);
    ck_assert_ptr_nonnull(d);
    need_tool("fsck.fat", "dosfstools");
    need_tool("mdir", "mtools");
    need_tool("grub-fstest", "grub-common");
    write_image(d, part_file, PART_OFF, esp_disk_partition_blocks(d) * BLOCK);
    write_image(d, disk_file, 0, esp_disk_blocks(d) * BLOCK);
    char cmd[512];
    snprintf(cmd, sizeof(cmd), PATH_SBIN "fsck.fat -n %s", part_file);
    ck_assert_msg(run(cmd, true, NULL) == 0 && strstr(out, ": 16 files, "), "fsck.fat: %s", out);
    snprintf(cmd, sizeof(cmd), "mdir -b -i %s@@%llu ::/", disk_file, (unsigned long long)PART_OFF);
    ck_assert_msg(run(cmd, true, NULL) == 0, "mdir: %s", out);
    for (unsigned i = 0; i < count; i++) {
        char want[64];
        snprintf(want, sizeof(want), "::/%s\n", names[i]);
        ck_assert_msg(strstr(out, want), "mdir does not list '%s': %s", names[i], out);
    }
    snprintf(cmd, sizeof(cmd), "mdir -i %s@@%llu ::/", disk_file, (unsigned long long)PART_OFF);
    ck_assert_msg(run(cmd, true, NULL) == 0 && strstr(out, "Volume in drive : has no label"), "mdir: %s", out);
    snprintf(cmd, sizeof(cmd), "grub-fstest %s ls '(loop0,gpt1)/'", disk_file);
    ck_assert_msg(run(cmd, true, NULL) == 0 && strstr(out, "\u00fcn\u00efc\u00f6d\u00e9.txt "), "grub-fstest: %s", out);
    esp_disk_free(d);
    volume_free(&odd);
}
END_TEST

/* A label the guest sets with leading spaces (SetInfo of
 * EFI_FILE_SYSTEM_VOLUME_LABEL takes any): FAT's label entry and
 * BS_VolLab may not start with one (fatgen103 section 6.1). */
START_TEST(a_label_with_leading_spaces_leaves_them_out)
{
    memcpy(vol.label, u"  lead", sizeof(u"  lead"));
    struct esp_disk *d = esp_disk_build(&vol, &partition_guid, 0);
    ck_assert_ptr_nonnull(d);
    uint8_t boot[BLOCK];
    esp_disk_read(d, PART_OFF, boot, sizeof(boot));
    ck_assert_mem_eq(boot + 71, "LEAD       ", 11);
    need_tool("fsck.fat", "dosfstools");
    write_image(d, part_file, PART_OFF, esp_disk_partition_blocks(d) * BLOCK);
    char cmd[256];
    snprintf(cmd, sizeof(cmd), PATH_SBIN "fsck.fat -n %s", part_file);
    ck_assert_msg(run(cmd, true, NULL) == 0 && !strstr(out, "label"), "fsck.fat: %s", out);
    esp_disk_free(d);
}
END_TEST

/* ---- the reads --------------------------------------------------------------------------- */

/* The byte offset of a file in the disk, found by its first bytes at a
 * block's start. */
static uint64_t find_file(unsigned seed)
{
    uint8_t want[64], block[BLOCK];
    for (size_t i = 0; i < sizeof(want); i++)
        want[i] = pattern(seed, i);
    for (uint64_t lba = ESP_DISK_PARTITION_START; lba < esp_disk_blocks(disk); lba++) {
        esp_disk_read(disk, lba * BLOCK, block, BLOCK);
        if (!memcmp(block, want, sizeof(want)))
            return lba * BLOCK;
    }
    ck_abort_msg("file %u not found on the disk", seed);
    return 0;
}

START_TEST(a_read_across_a_files_end_gives_zeros_to_its_cluster_end)
{
    /* vmlinuz-6.1.0-amd64: 3000 bytes, 72 short of its last 512-byte cluster. */
    uint64_t at = find_file(3);
    uint8_t buf[300];
    esp_disk_read(disk, at + 2900, buf, sizeof(buf));
    for (size_t i = 0; i < 100; i++)
        ck_assert_uint_eq(buf[i], pattern(3, 2900 + i));
    for (size_t i = 100; i < 172; i++)
        ck_assert_uint_eq(buf[i], 0);
    uint8_t next[128];
    esp_disk_read(disk, at + 3072, next, sizeof(next));
    ck_assert_mem_eq(buf + 172, next, sizeof(next));
    /* The 1 MiB file, read 64 KiB at a time as GRUB does. */
    uint64_t big = find_file(6);
    uint8_t *chunk = malloc(64 << 10);
    ck_assert_ptr_nonnull(chunk);
    for (uint64_t off = 0; off < BIG; off += 64 << 10) {
        esp_disk_read(disk, big + off, chunk, 64 << 10);
        ck_assert(same_as_pattern(chunk, 6, off, 64 << 10));
    }
    free(chunk);
}
END_TEST

START_TEST(a_read_across_the_partition_start)
{
    uint8_t buf[BLOCK], boot[BLOCK];
    esp_disk_read(disk, PART_OFF - 256, buf, sizeof(buf));
    esp_disk_read(disk, PART_OFF, boot, sizeof(boot));
    for (size_t i = 0; i < 256; i++)
        ck_assert_uint_eq(buf[i], 0);
    ck_assert_mem_eq(buf + 256, boot, 256);
    ck_assert_mem_eq(boot, "\xeb\x58\x90", 3);
    ck_assert_uint_eq(boot[510], 0x55);
    ck_assert_uint_eq(boot[511], 0xaa);
    ck_assert_mem_eq(boot + 82, "FAT32   ", 8);
    uint32_t hidden, serial;
    memcpy(&hidden, boot + 28, 4);
    ck_assert_uint_eq(hidden, ESP_DISK_PARTITION_START);
    memcpy(&serial, boot + 67, 4);   /* BS_VolID: the partition GUID's CRC-32, the same in every build */
    ck_assert_uint_eq(serial, (uint32_t)crc32(0, (const uint8_t *)&partition_guid, sizeof(partition_guid)));
    ck_assert_mem_eq(boot + 71, "HANDOVER TE", 11);
}
END_TEST

START_TEST(reads_in_odd_pieces_equal_one_read)
{
    uint64_t size = esp_disk_blocks(disk) * BLOCK;
    uint8_t *whole = malloc(size), *piece = malloc(size);
    ck_assert_ptr_nonnull(whole);
    ck_assert_ptr_nonnull(piece);
    esp_disk_read(disk, 0, whole, size);
    for (uint64_t off = 0, n = 1; off < size; off += n, n = n * 7 % 65521 + 1)
        esp_disk_read(disk, off, piece + off, n < size - off ? n : size - off);
    ck_assert_int_eq(memcmp(whole, piece, size), 0);
    free(whole);
    free(piece);
}
END_TEST

static uint64_t get64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static uint32_t get32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* A GPT header's checks (UEFI 2.10 section 5.3.2): its signature, its own
 * CRC and its entries'; the entries' CRC returned. */
static uint32_t check_header(uint64_t lba, uint64_t alternate)
{
    uint8_t h[BLOCK];
    esp_disk_read(disk, lba * BLOCK, h, BLOCK);
    ck_assert_mem_eq(h, "EFI PART", 8);
    ck_assert_uint_eq(get32(h + 12), 92);
    uint32_t crc = get32(h + 16);
    memset(h + 16, 0, 4);
    ck_assert_uint_eq(crc, (uint32_t)crc32(0, h, 92));
    ck_assert_uint_eq(get64(h + 24), lba);
    ck_assert_uint_eq(get64(h + 32), alternate);
    ck_assert_uint_eq(get64(h + 40), 34);
    ck_assert_uint_eq(get64(h + 48), esp_disk_blocks(disk) - 34);
    ck_assert_uint_eq(get32(h + 80), 128);
    ck_assert_uint_eq(get32(h + 84), 128);
    uint8_t entries[128 * 128];
    esp_disk_read(disk, get64(h + 72) * BLOCK, entries, sizeof(entries));
    ck_assert_uint_eq(get32(h + 88), (uint32_t)crc32(0, entries, sizeof(entries)));
    ck_assert_uint_eq(get64(entries + 32), ESP_DISK_PARTITION_START);
    ck_assert_uint_eq(get64(entries + 40), ESP_DISK_PARTITION_START + esp_disk_partition_blocks(disk) - 1);
    ck_assert_mem_eq(entries + 16, &partition_guid, 16);
    return get32(h + 88);
}

START_TEST(the_backup_gpt_header_and_its_crcs)
{
    uint64_t last = esp_disk_blocks(disk) - 1;
    uint32_t backup = check_header(last, 1);
    ck_assert_uint_eq(check_header(1, last), backup);
    uint8_t h[BLOCK];
    esp_disk_read(disk, last * BLOCK, h, BLOCK);
    ck_assert_uint_eq(get64(h + 72), last - 32);
    /* The protective MBR: one 0xEE record from LBA 1. */
    uint8_t mbr[BLOCK];
    esp_disk_read(disk, 0, mbr, BLOCK);
    ck_assert_uint_eq(mbr[446 + 4], 0xee);
    ck_assert_uint_eq(get32(mbr + 446 + 8), 1);
    ck_assert_uint_eq(get32(mbr + 446 + 12), last);
    ck_assert_uint_eq(mbr[510], 0x55);
    ck_assert_uint_eq(mbr[511], 0xaa);
}
END_TEST

START_TEST(the_same_volume_gives_the_same_bytes)
{
    struct esp_disk *again = esp_disk_build(&vol, &partition_guid, 0);
    ck_assert_ptr_nonnull(again);
    ck_assert_uint_eq(esp_disk_blocks(again), esp_disk_blocks(disk));
    uint64_t size = esp_disk_blocks(disk) * BLOCK;
    uint8_t *a = malloc(size), *b = malloc(size);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    esp_disk_read(disk, 0, a, size);
    esp_disk_read(again, 0, b, size);
    ck_assert_int_eq(memcmp(a, b, size), 0);
    free(a);
    free(b);
    esp_disk_free(again);
}
END_TEST

START_TEST(short_names_and_long_name_entries)
{
    const uint16_t *names[] = { u"vmlinuz-6.1.0-amd64", u"VMLINU~1.0-A", u"hello.txt", u"README.TXT", u"...",
                                u"a b.c d", u"x.tar.gz" };
    unsigned lens[7];
    for (unsigned i = 0; i < 7; i++)
        lens[i] = volume_name_len(names[i]);
    uint8_t short_name[7][FAT_SHORT_NAME];
    bool long_name[7];
    ck_assert_int_eq(fat_short_names(names, lens, 7, short_name, long_name), 0);
    const char *want[] = { "VMLINU~20-A", "VMLINU~10-A", "HELLO   TXT", "README  TXT", "_~1        ", "AB~1    CD ",
                           "X~1     GZ " };
    const bool want_long[] = { true, false, true, false, true, true, true };
    for (unsigned i = 0; i < 7; i++) {
        ck_assert_mem_eq(short_name[i], want[i], FAT_SHORT_NAME);
        ck_assert_int_eq(long_name[i], want_long[i]);
    }
    /* 27 characters: three entries, the last part first, NUL then 0xFFFF after the name. */
    const uint16_t name[] = u"Long File Name With Case.tx";
    ck_assert_uint_eq(fat_lfn_entries(27), 3);
    ck_assert_uint_eq(fat_lfn_entries(26), 2);
    uint8_t e[3 * FAT_DIR_ENTRY_SIZE];
    fat_lfn_write(e, name, 27, short_name[0]);
    ck_assert_uint_eq(e[0], 0x43);
    ck_assert_uint_eq(e[32], 0x02);
    ck_assert_uint_eq(e[64], 0x01);
    ck_assert_uint_eq(e[11], FAT_ATTR_LONG_NAME);
    ck_assert_uint_eq(e[13], fat_short_name_checksum(short_name[0]));
    ck_assert_uint_eq(e[1], 'x');   /* character 27 */
    ck_assert_uint_eq(e[3], 0);     /* the NUL */
    ck_assert_uint_eq(e[4], 0);
    ck_assert_uint_eq(e[5], 0xff);  /* padding */
    ck_assert_uint_eq(e[65], 'L');
    uint8_t label[FAT_SHORT_NAME];
    ck_assert(!fat_label(u"", label));
    ck_assert_mem_eq(label, "NO NAME    ", FAT_SHORT_NAME);
    ck_assert(fat_label(u"esp:boot partition", label));
    ck_assert_mem_eq(label, "ESP_BOOT PA", FAT_SHORT_NAME);
}
END_TEST

/* ---- the bounds -------------------------------------------------------------------------- */

/* A name of VOLUME_NAME_MAX characters ending in i. */
static void long_name(uint16_t *name, unsigned i)
{
    for (unsigned k = 0; k < VOLUME_NAME_MAX; k++)
        name[k] = 'n';
    for (unsigned k = 0; k < 5; k++, i /= 10)
        name[VOLUME_NAME_MAX - 1 - k] = (uint16_t)('0' + i % 10);
}

START_TEST(a_volume_at_every_bound_builds)
{
    /* VOLUME_DEPTH_MAX directories deep, VOLUME_BASE_MAX bytes in files of
     * VOLUME_FILE_MAX (one zeroed mapping, never written), and the rest of
     * VOLUME_NODES_MAX as files of the longest names, spread over the
     * directories. */
    const uint8_t *zeros = mmap(NULL, VOLUME_FILE_MAX, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    ck_assert_ptr_ne(zeros, MAP_FAILED);
    struct volume big;
    ck_assert_int_eq(volume_init(&big, MTIME), 0);
    unsigned dirs[VOLUME_DEPTH_MAX + 1] = { VOLUME_ROOT };
    for (unsigned i = 1; i <= VOLUME_DEPTH_MAX; i++) {
        long d = volume_add(&big, dirs[i - 1], u"directory", 9, true, NULL, 0, MTIME);
        ck_assert_int_ge(d, 0);
        dirs[i] = (unsigned)d;
    }
    unsigned huge = VOLUME_BASE_MAX / VOLUME_FILE_MAX;
    for (unsigned i = 0; i < huge; i++) {
        uint16_t name[] = u"huge0";
        name[4] = (uint16_t)('0' + i);
        long f = volume_add(&big, dirs[VOLUME_DEPTH_MAX], name, 5, false, NULL, 0, MTIME);
        ck_assert_int_ge(f, 0);
        big.node[f].data = zeros;
        big.node[f].size = VOLUME_FILE_MAX;
    }
    for (unsigned i = 0; big.n < VOLUME_NODES_MAX; i++) {
        uint16_t name[VOLUME_NAME_MAX];
        long_name(name, i);
        uint8_t *one = malloc(1);
        ck_assert_ptr_nonnull(one);
        *one = (uint8_t)i;
        ck_assert_int_ge(volume_add(&big, dirs[i % (VOLUME_DEPTH_MAX + 1)], name, VOLUME_NAME_MAX, false, one, 1,
                                    MTIME), 0);
    }
    struct esp_disk *d = esp_disk_build(&big, &partition_guid, 0);
    ck_assert_ptr_nonnull(d);
    ck_assert_uint_gt(esp_disk_partition_blocks(d), VOLUME_BASE_MAX / BLOCK);
    /* The last byte of the last huge file, then its cluster's slack. */
    need_tool("fsck.fat", "dosfstools");
    write_image(d, part_file, PART_OFF, esp_disk_partition_blocks(d) * BLOCK);
    char cmd[256];
    snprintf(cmd, sizeof(cmd), PATH_SBIN "fsck.fat -n %s", part_file);
    ck_assert_msg(run(cmd, true, NULL) == 0, "fsck.fat: %s", out);
    ck_assert_msg(strstr(out, "4096 files") || strstr(out, " files,"), "fsck.fat: %s", out);
    esp_disk_free(d);
    for (unsigned i = 0; i < big.n; i++)
        if (big.node[i].data == zeros)
            big.node[i].data = NULL;
    volume_free(&big);
    munmap((void *)zeros, VOLUME_FILE_MAX);
}
END_TEST

/* The partition a volume's disk is built to (esp_volume.c asks for the
 * host's files and the overlay) holds whatever the guest makes of it
 * within the bounds: the worst of them, VOLUME_NODES_MAX entries of the
 * longest names as directories and files of one byte (a cluster's slack
 * each) and the rest of file_bytes in files of an odd size, builds to the
 * size an empty volume does, at either cluster size. */
START_TEST(every_volume_within_the_bounds_keeps_the_partition_size)
{
    const uint8_t *zeros = mmap(NULL, VOLUME_FILE_MAX, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    ck_assert_ptr_ne(zeros, MAP_FAILED);
    const uint64_t totals[] = { VOLUME_OVERLAY_MAX, VOLUME_BASE_MAX + VOLUME_OVERLAY_MAX };
    for (unsigned t = 0; t < 2; t++) {
        uint64_t hold = esp_disk_partition_blocks_to_hold(totals[t], VOLUME_NODES_MAX);
        struct volume full, empty;
        ck_assert_int_eq(volume_init(&full, MTIME), 0);
        ck_assert_int_eq(volume_init(&empty, MTIME), 0);
        unsigned dirs[VOLUME_DEPTH_MAX + 1] = { VOLUME_ROOT }, huge = 0;
        uint16_t name[VOLUME_NAME_MAX];
        for (unsigned i = 1; i <= VOLUME_DEPTH_MAX; i++) {
            long_name(name, i);
            long d = volume_add(&full, dirs[i - 1], name, VOLUME_NAME_MAX, true, NULL, 0, MTIME);
            ck_assert_int_ge(d, 0);
            dirs[i] = (unsigned)d;
        }
        uint64_t left = totals[t] - (VOLUME_NODES_MAX - full.n);   /* one byte for each node yet to come */
        for (unsigned i = 0; full.n < VOLUME_NODES_MAX; i++) {
            long_name(name, 100 + i);
            uint64_t size = 1;
            if (left > 1) {
                size = left < VOLUME_FILE_MAX - 1 ? left : VOLUME_FILE_MAX - 1;
                left -= size - 1;
            }
            uint8_t *data = size == 1 ? malloc(1) : NULL;
            long f = volume_add(&full, dirs[i % (VOLUME_DEPTH_MAX + 1)], name, VOLUME_NAME_MAX, false, data,
                                data ? 1 : 0, MTIME);
            ck_assert_int_ge(f, 0);
            if (!data) {
                full.node[f].data = zeros;
                full.node[f].size = size;
                huge++;
            }
        }
        ck_assert_uint_gt(huge, 0);
        ck_assert_uint_eq(left, 1);
        struct esp_disk *a = esp_disk_build(&full, &partition_guid, hold);
        struct esp_disk *b = esp_disk_build(&empty, &partition_guid, hold);
        ck_assert_ptr_nonnull(a);
        ck_assert_ptr_nonnull(b);
        ck_assert_uint_eq(esp_disk_partition_blocks(a), esp_disk_partition_blocks(b));
        if (t == 0) {   /* a small folder's partition, as handover serves it */
            need_tool("fsck.fat", "dosfstools");
            write_image(a, part_file, PART_OFF, esp_disk_partition_blocks(a) * BLOCK);
            char cmd[256];
            snprintf(cmd, sizeof(cmd), PATH_SBIN "fsck.fat -n %s", part_file);
            ck_assert_msg(run(cmd, true, NULL) == 0, "fsck.fat: %s", out);
        }
        esp_disk_free(a);
        esp_disk_free(b);
        for (unsigned i = 0; i < full.n; i++)
            if (full.node[i].data == zeros)
                full.node[i].data = NULL;
        volume_free(&full);
        volume_free(&empty);
    }
    munmap((void *)zeros, VOLUME_FILE_MAX);
}
END_TEST

/* A size asked for just under fatgen103's bound of 512-byte clusters
 * (260 MB, 532480 sectors) comes out past it, rounded up to whole tracks:
 * asked for again, that size gives the same file system, not one of
 * 4 KiB clusters of another size. */
START_TEST(a_size_at_the_cluster_sizes_bound_is_the_same_built_again)
{
    struct volume empty;
    ck_assert_int_eq(volume_init(&empty, MTIME), 0);
    for (uint64_t min = 532480 - 70; min <= 532480; min++) {
        struct esp_disk *a = esp_disk_build(&empty, &partition_guid, min);
        ck_assert_ptr_nonnull(a);
        struct esp_disk *b = esp_disk_build(&empty, &partition_guid, esp_disk_partition_blocks(a));
        ck_assert_ptr_nonnull(b);
        ck_assert_uint_eq(esp_disk_partition_blocks(b), esp_disk_partition_blocks(a));
        uint8_t boot_a[BLOCK], boot_b[BLOCK];
        esp_disk_read(a, PART_OFF, boot_a, BLOCK);
        esp_disk_read(b, PART_OFF, boot_b, BLOCK);
        ck_assert_uint_eq(boot_b[13], boot_a[13]);   /* BPB_SecPerClus */
        esp_disk_free(a);
        esp_disk_free(b);
    }
    volume_free(&empty);
}
END_TEST

START_TEST(what_fat_cannot_hold_is_refused)
{
    /* A directory of more than 65536 entries: 4095 names of 21 entries each. */
    struct volume wide;
    ck_assert_int_eq(volume_init(&wide, MTIME), 0);
    for (unsigned i = 0; wide.n < VOLUME_NODES_MAX; i++) {
        uint16_t name[VOLUME_NAME_MAX];
        long_name(name, i);
        ck_assert_int_ge(volume_add(&wide, VOLUME_ROOT, name, VOLUME_NAME_MAX, false, NULL, 0, MTIME), 0);
    }
    ck_assert_ptr_null(esp_disk_build(&wide, &partition_guid, 0));
    volume_free(&wide);
    /* A file of 4 GiB, which no volume makes (VOLUME_FILE_MAX), but which
     * DIR_FileSize could not say. */
    struct volume four;
    ck_assert_int_eq(volume_init(&four, MTIME), 0);
    long f = volume_add(&four, VOLUME_ROOT, u"four", 4, false, NULL, 0, MTIME);
    ck_assert_int_ge(f, 0);
    four.node[f].size = 1ULL << 32;
    ck_assert_ptr_null(esp_disk_build(&four, &partition_guid, 0));
    four.node[f].size = 0;
    volume_free(&four);
}
END_TEST

Suite *esp_disk_suite(void)
{
    Suite *s = suite_create("esp_disk");
    TCase *t = tcase_create("esp_disk");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_set_timeout(t, 120);
    tcase_add_test(t, sfdisk_reads_one_esp_partition_at_2048);
    tcase_add_test(t, fsck_fat_finds_nothing_to_fix);
    tcase_add_test(t, mtools_lists_the_names_and_reads_every_file_back);
    tcase_add_test(t, grub_reads_the_partition_and_every_file);
    tcase_add_test(t, names_at_the_edges_of_fat_pass_the_tools);
    tcase_add_test(t, a_label_with_leading_spaces_leaves_them_out);
    tcase_add_test(t, a_read_across_a_files_end_gives_zeros_to_its_cluster_end);
    tcase_add_test(t, a_read_across_the_partition_start);
    tcase_add_test(t, reads_in_odd_pieces_equal_one_read);
    tcase_add_test(t, the_backup_gpt_header_and_its_crcs);
    tcase_add_test(t, the_same_volume_gives_the_same_bytes);
    tcase_add_test(t, short_names_and_long_name_entries);
    tcase_add_test(t, a_volume_at_every_bound_builds);
    tcase_add_test(t, every_volume_within_the_bounds_keeps_the_partition_size);
    tcase_add_test(t, a_size_at_the_cluster_sizes_bound_is_the_same_built_again);
    tcase_add_test(t, what_fat_cannot_hold_is_refused);
    suite_add_tcase(s, t);
    return s;
}
