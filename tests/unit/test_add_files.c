/* vmm/host/add_files.c: the archive --add builds, read back as the
 * kernel's init/initramfs.c unpacks it. Host folders made in /tmp stand
 * for the host's own (merged /usr's /lib -> usr/lib). */
#include <elf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log_capture.h"
#include "suites.h"
#include "../../vmm/host/add_files.h"

#define MODE_TYPE 0170000u
#define MODE_DIR  0040000u
#define MODE_LINK 0120000u
#define MODE_FILE 0100000u

struct entry {
    const char *name;
    unsigned mode;
    const char *data;
    size_t size;
};

static unsigned newc_field(const char *hdr, unsigned i)
{
    char hex[9];
    memcpy(hex, hdr + 6 + 8 * i, 8);
    hex[8] = 0;
    return (unsigned)strtoul(hex, NULL, 16);
}

/* The archive's entries up to the trailer, in order (newc: a 110-byte
 * header, the name and its NUL padded to 4 bytes, the data padded too). */
static size_t read_newc(const char *buf, size_t len, struct entry *out, size_t max)
{
    size_t n = 0;
    for (size_t at = 0; at + 110 <= len && n < max;) {
        ck_assert(!memcmp(buf + at, "070701", 6));
        unsigned namesize = newc_field(buf + at, 11);
        struct entry e = { buf + at + 110, newc_field(buf + at, 1), NULL, newc_field(buf + at, 6) };
        size_t data_at = (at + 110 + namesize + 3) & ~(size_t)3;
        ck_assert_uint_le(data_at + e.size, len);
        e.data = buf + data_at;
        if (!strcmp(e.name, "TRAILER!!!"))
            break;
        out[n++] = e;
        at = (data_at + e.size + 3) & ~(size_t)3;
    }
    return n;
}

/* The index of the first entry called name, or -1. */
static int find(const struct entry *e, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(e[i].name, name))
            return (int)i;
    return -1;
}

static char top[64];   /* the host folder: /tmp/handover-add-XXXXXX */

static void make_host_folder(void)
{
    snprintf(top, sizeof(top), "/tmp/handover-add-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(top));
    char p[PATH_MAX];
    snprintf(p, sizeof(p), "%s/d", top);
    ck_assert_int_eq(mkdir(p, 0755), 0);
    snprintf(p, sizeof(p), "%s/l", top);
    ck_assert_int_eq(symlink("d", p), 0);              /* as /lib -> usr/lib */
    snprintf(p, sizeof(p), "%s/abs", top);
    char to[PATH_MAX];
    snprintf(to, sizeof(to), "%s/d", top);
    ck_assert_int_eq(symlink(to, p), 0);
    snprintf(p, sizeof(p), "%s/up", top);
    ck_assert_int_eq(symlink("../d", p), 0);
    snprintf(p, sizeof(p), "%s/loop", top);
    ck_assert_int_eq(symlink("loop", p), 0);
}

static void remove_host_folder(void)
{
    static const char *const names[] = { "l", "abs", "up", "loop", "d" };
    char p[PATH_MAX];
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        snprintf(p, sizeof(p), "%s/%s", top, names[i]);
        remove(p);
    }
    rmdir(top);
}

/* A guest path's parent that is a symlink on the host goes in as that
 * symlink, after the folder it points to, never as a folder: the kernel
 * replaces whatever the initrd has at a name by the archive's entry of
 * another type (init/initramfs.c, clean_path), so a folder "lib" would
 * take the place of a merged-/usr initrd's lib -> usr/lib. */
START_TEST(add_keeps_the_symlinks_of_the_parents_as_the_host_has_them)
{
    make_host_folder();
    char spec[4][PATH_MAX];
    static const char *const via[] = { "l", "abs", "up", "loop" };
    const char *adds[4];
    for (unsigned i = 0; i < 4; i++) {
        snprintf(spec[i], sizeof(spec[i]), "tests/unit/test_cpio.c:%s/%s/f", top, via[i]);
        adds[i] = spec[i];
    }
    struct add_files_request r = { .adds = adds, .nadds = 4 };
    struct cpio_builder b;
    ck_assert_int_eq(add_files_archive(&r, &b), 0);
    static struct entry e[256];
    size_t n = read_newc(b.buf, b.len, e, 256);
    const char *t = top + 1;
    char name[PATH_MAX], want[PATH_MAX];

    /* l -> d (relative): d a folder first, then the link. */
    snprintf(name, sizeof(name), "%s/l", t);
    int link = find(e, n, name);
    ck_assert_int_ge(link, 0);
    ck_assert_uint_eq(e[link].mode & MODE_TYPE, MODE_LINK);
    ck_assert_uint_eq(e[link].size, 1);
    ck_assert(!memcmp(e[link].data, "d", 1));
    snprintf(name, sizeof(name), "%s/d", t);
    int dir = find(e, n, name);
    ck_assert_int_ge(dir, 0);
    ck_assert_int_lt(dir, link);
    ck_assert_uint_eq(e[dir].mode & MODE_TYPE, MODE_DIR);
    snprintf(name, sizeof(name), "%s/l/f", t);
    int file = find(e, n, name);
    ck_assert_int_gt(file, link);
    ck_assert_uint_eq(e[file].mode & MODE_TYPE, MODE_FILE);

    /* abs -> /tmp/.../d: the target as the host has it. */
    snprintf(name, sizeof(name), "%s/abs", t);
    link = find(e, n, name);
    ck_assert_int_ge(link, 0);
    ck_assert_uint_eq(e[link].mode & MODE_TYPE, MODE_LINK);
    snprintf(want, sizeof(want), "%s/d", top);
    ck_assert_uint_eq(e[link].size, strlen(want));
    ck_assert(!memcmp(e[link].data, want, strlen(want)));

    /* up -> ../d leaves its folder: a folder, as before. */
    snprintf(name, sizeof(name), "%s/up", t);
    dir = find(e, n, name);
    ck_assert_int_ge(dir, 0);
    ck_assert_uint_eq(e[dir].mode & MODE_TYPE, MODE_DIR);

    /* loop -> loop resolves to no folder on the host: a folder. */
    snprintf(name, sizeof(name), "%s/loop", t);
    dir = find(e, n, name);
    ck_assert_int_ge(dir, 0);
    ck_assert_uint_eq(e[dir].mode & MODE_TYPE, MODE_DIR);
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(strcmp(e[i].name, name) || (e[i].mode & MODE_TYPE) == MODE_DIR, "%s is not a folder", name);
    cpio_free(&b);
    remove_host_folder();
}
END_TEST

/* A guest path the archive holds already is refused, never packed twice
 * (the kernel keeps the later file) nor dropped: handover's own
 * /handover/cmd, or an earlier --add's. */
START_TEST(add_refuses_a_guest_path_already_taken)
{
    struct cpio_builder b;
    const char *over_cmd[] = { "tests/unit/test_cpio.c:/handover/cmd" };
    struct add_files_request r = { .exec = "true", .run_id = "0123456789abcdef", .adds = over_cmd, .nadds = 1 };
    ck_assert_int_eq(add_files_archive(&r, &b), -1);
    ck_assert_ptr_null(b.buf);
    ck_assert_ptr_nonnull(strstr(log_captured(), "--add tests/unit/test_cpio.c:/handover/cmd: /handover/cmd is in the "
                                                 "archive already (handover's own file"));

    const char *twice[] = { "tests/unit/test_cpio.c:/x", "tests/unit/test_dtb.c:/x" };
    r = (struct add_files_request){ .adds = twice, .nadds = 2 };
    ck_assert_int_eq(add_files_archive(&r, &b), -1);
    ck_assert_ptr_nonnull(strstr(log_captured(), "--add tests/unit/test_dtb.c:/x: /x is in the archive already"));

    const char *apart[] = { "tests/unit/test_cpio.c:/x", "tests/unit/test_dtb.c:/y" };
    r = (struct add_files_request){ .exec = "true", .run_id = "0123456789abcdef", .adds = apart, .nadds = 2 };
    ck_assert_int_eq(add_files_archive(&r, &b), 0);
    static struct entry e[64];
    size_t n = read_newc(b.buf, b.len, e, 64);
    ck_assert_int_ge(find(e, n, "handover/cmd"), 0);
    ck_assert_int_ge(find(e, n, "x"), 0);
    ck_assert_int_ge(find(e, n, "y"), 0);
    cpio_free(&b);
}
END_TEST

/* A host file of the bytes given, at a fresh path in /tmp (its name in path). */
static void temp_file(char path[32], const void *data, size_t len)
{
    strcpy(path, "/tmp/handover-add-XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
    ck_assert_int_eq(close(fd), 0);
}

/* --add of a host file of these bytes at guest path /bin/NAME, the file
 * removed after; add_files_archive's result. */
static int add_program(const void *prog, size_t len, const char *name, struct cpio_builder *b)
{
    char host[32], spec[64];
    temp_file(host, prog, len);
    snprintf(spec, sizeof(spec), "%s:/bin/%s", host, name);
    const char *adds[] = { spec };
    struct add_files_request r = { .adds = adds, .nadds = 1 };
    int rc = add_files_archive(&r, b);
    ck_assert_int_eq(unlink(host), 0);
    return rc;
}

/* An i386 program that needs ld-linux.so.2 would get none, for the host's
 * libraries are x86-64 ones: refused, where a static one is packed. */
START_TEST(add_refuses_a_dynamic_program_for_another_machine)
{
    static const char interp[] = "/lib/ld-linux.so.2";
    struct {
        Elf32_Ehdr eh;
        Elf32_Phdr ph;
        char path[sizeof(interp)];
    } prog = {
        .eh = { .e_ident = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS32, ELFDATA2LSB, EV_CURRENT },
                .e_type = ET_EXEC, .e_machine = EM_386, .e_version = EV_CURRENT, .e_phoff = sizeof(Elf32_Ehdr),
                .e_ehsize = sizeof(Elf32_Ehdr), .e_phentsize = sizeof(Elf32_Phdr), .e_phnum = 1 },
        .ph = { .p_type = PT_INTERP, .p_offset = sizeof(Elf32_Ehdr) + sizeof(Elf32_Phdr), .p_filesz = sizeof(interp) },
    };
    memcpy(prog.path, interp, sizeof(interp));
    struct cpio_builder b;
    ck_assert_int_eq(add_program(&prog, sizeof(prog), "prog32", &b), -1);
    ck_assert_ptr_nonnull(strstr(log_captured(), "a dynamically linked program for another machine than x86-64"));

    prog.ph.p_type = PT_LOAD;   /* static */
    ck_assert_int_eq(add_program(&prog, sizeof(prog), "prog32", &b), 0);
    static struct entry e[16];
    ck_assert_int_ge(find(e, read_newc(b.buf, b.len, e, 16), "bin/prog32"), 0);
    cpio_free(&b);
}
END_TEST

/* An x86-64 program whose DT_NEEDED names a string past the end of the
 * file: the library it needs cannot be found, and packing the program
 * alone would leave it unable to run in the guest. Refused. */
struct dynamic_program {
    Elf64_Ehdr eh;
    Elf64_Phdr ph[2];
    Elf64_Dyn dyn[3];
    char strings[2];
};

START_TEST(add_refuses_a_program_needing_a_name_it_does_not_hold)
{
    struct dynamic_program prog = {
        .eh = { .e_ident = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB, EV_CURRENT },
                .e_type = ET_DYN, .e_machine = EM_X86_64, .e_version = EV_CURRENT, .e_phoff = sizeof(Elf64_Ehdr),
                .e_ehsize = sizeof(Elf64_Ehdr), .e_phentsize = sizeof(Elf64_Phdr), .e_phnum = 2 },
        .ph = { { .p_type = PT_LOAD, .p_filesz = sizeof(prog), .p_memsz = sizeof(prog), .p_align = 4096 },
                { .p_type = PT_DYNAMIC, .p_offset = offsetof(struct dynamic_program, dyn),
                  .p_vaddr = offsetof(struct dynamic_program, dyn), .p_filesz = sizeof(prog.dyn) } },
        .dyn = { { .d_tag = DT_STRTAB, .d_un.d_ptr = offsetof(struct dynamic_program, strings) },
                 { .d_tag = DT_NEEDED, .d_un.d_val = 0x10000 }, { .d_tag = DT_NULL } },
    };
    struct cpio_builder b;
    ck_assert_int_eq(add_program(&prog, sizeof(prog), "prog", &b), -1);
    ck_assert_ptr_nonnull(strstr(log_captured(), "a DT_NEEDED entry names no library the file holds"));
}
END_TEST

Suite *add_files_suite(void)
{
    Suite *s = suite_create("add-files");
    TCase *t = tcase_create("add-files");
    tcase_add_checked_fixture(t, log_capture_start, log_capture_stop);
    tcase_add_test(t, add_keeps_the_symlinks_of_the_parents_as_the_host_has_them);
    tcase_add_test(t, add_refuses_a_guest_path_already_taken);
    tcase_add_test(t, add_refuses_a_dynamic_program_for_another_machine);
    tcase_add_test(t, add_refuses_a_program_needing_a_name_it_does_not_hold);
    suite_add_tcase(s, t);
    return s;
}
