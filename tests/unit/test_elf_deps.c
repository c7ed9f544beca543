/* loader/elf_deps.c: what a program --add packs needs besides itself (its
 * PT_INTERP and DT_NEEDED libraries). */
#include <elf.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "suites.h"
#include "../../loader/elf_deps.h"

/* --add's ELF reader on a real dynamically linked program: this test
 * binary itself. */
START_TEST(elf_deps_of_this_program)
{
    FILE *f = fopen("/proc/self/exe", "rb");
    ck_assert_ptr_nonnull(f);
    static uint8_t image[64 << 20];
    size_t n = fread(image, 1, sizeof(image), f);
    fclose(f);
    struct elf_deps d;
    ck_assert_int_eq(elf_deps_read(image, n, &d), 0);
    ck_assert_str_eq(d.interp, "/lib64/ld-linux-x86-64.so.2");
    bool libc = false;
    for (unsigned i = 0; i < d.nneeded; i++)
        libc |= !strcmp(d.needed[i], "libc.so.6");
    ck_assert(libc);
    ck_assert(!d.unreadable_needed);
    /* Every truncation is refused or read within bounds (ASan checks). */
    for (size_t cut = 0; cut < 4096; cut += 7)
        (void)elf_deps_read(image, cut, &d);
    ck_assert_int_eq(elf_deps_read((const uint8_t *)"#!/bin/sh\n", 10, &d), -1);
}
END_TEST

/* A program whose PT_INTERP entries are interps[0..n), each p_filesz
 * bytes of its string (cut short when p_filesz is below its length). */
struct interp_entry {
    const char *path;
    uint64_t filesz;
};

static size_t elf_with_interps(uint8_t *f, const struct interp_entry *interps, unsigned n)
{
    Elf64_Ehdr eh = { .e_ident = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB, EV_CURRENT },
                      .e_type = ET_DYN, .e_machine = EM_X86_64, .e_version = EV_CURRENT,
                      .e_phoff = sizeof(Elf64_Ehdr), .e_ehsize = sizeof(Elf64_Ehdr),
                      .e_phentsize = sizeof(Elf64_Phdr), .e_phnum = (Elf64_Half)n };
    memcpy(f, &eh, sizeof(eh));
    size_t at = sizeof(eh) + n * sizeof(Elf64_Phdr);
    for (unsigned i = 0; i < n; i++) {
        Elf64_Phdr ph = { .p_type = PT_INTERP, .p_flags = PF_R, .p_offset = at, .p_filesz = interps[i].filesz,
                          .p_memsz = interps[i].filesz, .p_align = 1 };
        memcpy(f + sizeof(eh) + i * sizeof(ph), &ph, sizeof(ph));
        memcpy(f + at, interps[i].path, strlen(interps[i].path) + 1);
        at += strlen(interps[i].path) + 1;
    }
    return at;
}

/* fs/binfmt_elf.c (load_elf_binary) runs the first PT_INTERP and only
 * when its p_filesz bytes end in a NUL: --add packs that interpreter, or
 * none when the kernel would refuse the program. */
START_TEST(elf_deps_interpreter_is_the_first_pt_interp_the_kernel_reads)
{
    static uint8_t f[4096];
    struct elf_deps d;
    const char *glibc = "/lib64/ld-linux-x86-64.so.2", *musl = "/lib/ld-musl-x86_64.so.1";
    const struct interp_entry two[] = { { glibc, strlen(glibc) + 1 }, { musl, strlen(musl) + 1 } };
    ck_assert_int_eq(elf_deps_read(f, elf_with_interps(f, two, 2), &d), 0);
    ck_assert_str_eq(d.interp, glibc);

    const struct interp_entry second_cut[] = { { glibc, strlen(glibc) + 1 }, { musl, 4 } };
    ck_assert_int_eq(elf_deps_read(f, elf_with_interps(f, second_cut, 2), &d), 0);
    ck_assert_str_eq(d.interp, glibc);

    /* p_filesz stops before the NUL, or at one byte: the kernel refuses to run it. */
    const struct interp_entry cut[] = { { glibc, strlen(glibc) } };
    ck_assert_int_eq(elf_deps_read(f, elf_with_interps(f, cut, 1), &d), 0);
    ck_assert_str_eq(d.interp, "");
    const struct interp_entry one_byte[] = { { "", 1 } };
    ck_assert_int_eq(elf_deps_read(f, elf_with_interps(f, one_byte, 1), &d), 0);
    ck_assert_str_eq(d.interp, "");
}
END_TEST

/* An i386 program: a PT_LOAD, then a PT_INTERP if dynamic. */
static size_t elf32_program(uint8_t *f, bool dynamic)
{
    const char *interp = "/lib/ld-linux.so.2";
    Elf32_Ehdr eh = { .e_ident = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS32, ELFDATA2LSB, EV_CURRENT },
                      .e_type = ET_EXEC, .e_machine = EM_386, .e_version = EV_CURRENT,
                      .e_phoff = sizeof(Elf32_Ehdr), .e_ehsize = sizeof(Elf32_Ehdr),
                      .e_phentsize = sizeof(Elf32_Phdr), .e_phnum = dynamic ? 2 : 1 };
    size_t at = sizeof(eh) + eh.e_phnum * sizeof(Elf32_Phdr);
    Elf32_Phdr ph[2] = { { .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_filesz = (Elf32_Word)at, .p_align = 4096 },
                         { .p_type = PT_INTERP, .p_flags = PF_R, .p_offset = (Elf32_Off)at,
                           .p_filesz = (Elf32_Word)strlen(interp) + 1 } };
    memcpy(f, &eh, sizeof(eh));
    memcpy(f + sizeof(eh), ph, eh.e_phnum * sizeof(Elf32_Phdr));
    memcpy(f + at, interp, strlen(interp) + 1);
    return at + strlen(interp) + 1;
}

/* A program for another machine than x86-64 is read (a static one packs
 * alone), and a dynamic one is said to be so: the host's libraries are
 * x86-64 ones. */
START_TEST(elf_deps_of_a_program_for_another_machine)
{
    static uint8_t f[4096];
    struct elf_deps d;
    ck_assert_int_eq(elf_deps_read(f, elf32_program(f, true), &d), 0);
    ck_assert(d.foreign_dynamic);
    ck_assert_str_eq(d.interp, "");
    ck_assert_uint_eq(d.nneeded, 0);
    ck_assert_int_eq(elf_deps_read(f, elf32_program(f, false), &d), 0);
    ck_assert(!d.foreign_dynamic);
    size_t n = elf32_program(f, true);
    ck_assert_int_eq(elf_deps_read(f, sizeof(Elf32_Ehdr) + sizeof(Elf32_Phdr), &d), -1);   /* headers cut */
    f[EI_DATA] = ELFDATA2MSB;
    ck_assert_int_eq(elf_deps_read(f, n, &d), -1);

    const char *glibc = "/lib/ld-linux-aarch64.so.1";
    const struct interp_entry one[] = { { glibc, strlen(glibc) + 1 } };
    n = elf_with_interps(f, one, 1);
    ((Elf64_Ehdr *)f)->e_machine = EM_AARCH64;
    ck_assert_int_eq(elf_deps_read(f, n, &d), 0);
    ck_assert(d.foreign_dynamic);
    ck_assert_str_eq(d.interp, "");
}
END_TEST

/* A program mapped whole by one PT_LOAD (vaddr = offset), its dynamic
 * section DT_STRTAB at strtab_va, then a DT_NEEDED for each offset in
 * needed[0..n), then DT_NULL; the string table "\0libc.so.6\0" last in
 * the file, which ends with it unless cut. */
#define STRTAB_LIBC 1   /* "libc.so.6" in the string table */
static size_t elf_with_needed(uint8_t *f, uint64_t strtab_va, const uint64_t *needed, unsigned n)
{
    static const char strings[] = "\0libc.so.6";
    Elf64_Ehdr eh = { .e_ident = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB, EV_CURRENT },
                      .e_type = ET_DYN, .e_machine = EM_X86_64, .e_version = EV_CURRENT,
                      .e_phoff = sizeof(Elf64_Ehdr), .e_ehsize = sizeof(Elf64_Ehdr),
                      .e_phentsize = sizeof(Elf64_Phdr), .e_phnum = 2 };
    size_t dyn_at = sizeof(eh) + 2 * sizeof(Elf64_Phdr), dyn_size = (n + 2) * sizeof(Elf64_Dyn);
    size_t str_at = dyn_at + dyn_size, end = str_at + sizeof(strings);
    Elf64_Phdr ph[2] = { { .p_type = PT_LOAD, .p_flags = PF_R, .p_filesz = end, .p_memsz = end, .p_align = 4096 },
                         { .p_type = PT_DYNAMIC, .p_flags = PF_R, .p_offset = dyn_at, .p_vaddr = dyn_at,
                           .p_filesz = dyn_size, .p_memsz = dyn_size, .p_align = 8 } };
    memcpy(f, &eh, sizeof(eh));
    memcpy(f + sizeof(eh), ph, sizeof(ph));
    Elf64_Dyn strtab = { .d_tag = DT_STRTAB, .d_un.d_ptr = strtab_va ? strtab_va : str_at };
    memcpy(f + dyn_at, &strtab, sizeof(strtab));
    for (unsigned i = 0; i <= n; i++) {
        Elf64_Dyn e = { .d_tag = i < n ? DT_NEEDED : DT_NULL, .d_un.d_val = i < n ? needed[i] : 0 };
        memcpy(f + dyn_at + (i + 1) * sizeof(e), &e, sizeof(e));
    }
    memcpy(f + str_at, strings, sizeof(strings));
    return end;
}

/* A DT_NEEDED whose name the file does not hold (past its end, no NUL
 * before it, or no string table in the file) is said, not skipped: --add
 * would pack the program without a library it needs (System V gABI,
 * "Dynamic Section": DT_NEEDED is a string table offset of a
 * NUL-terminated name). */
START_TEST(elf_deps_says_a_needed_name_it_cannot_read)
{
    static uint8_t f[4096];
    struct elf_deps d;
    const uint64_t good[] = { STRTAB_LIBC }, past_end[] = { STRTAB_LIBC, 4096 };
    ck_assert_int_eq(elf_deps_read(f, elf_with_needed(f, 0, good, 1), &d), 0);
    ck_assert_uint_eq(d.nneeded, 1);
    ck_assert_str_eq(d.needed[0], "libc.so.6");
    ck_assert(!d.unreadable_needed);

    ck_assert_int_eq(elf_deps_read(f, elf_with_needed(f, 0, past_end, 2), &d), 0);
    ck_assert_uint_eq(d.nneeded, 1);
    ck_assert(d.unreadable_needed);

    size_t n = elf_with_needed(f, 0, good, 1);
    ck_assert_int_eq(elf_deps_read(f, n - 1, &d), 0);   /* the name's NUL cut off */
    ck_assert_uint_eq(d.nneeded, 0);
    ck_assert(d.unreadable_needed);

    ck_assert_int_eq(elf_deps_read(f, elf_with_needed(f, 0x10000, good, 1), &d), 0);   /* DT_STRTAB in no PT_LOAD */
    ck_assert_uint_eq(d.nneeded, 0);
    ck_assert(d.unreadable_needed);
}
END_TEST

Suite *elf_deps_suite(void)
{
    Suite *s = suite_create("elf-deps");
    TCase *t = tcase_create("elf-deps");
    tcase_add_test(t, elf_deps_of_this_program);
    tcase_add_test(t, elf_deps_interpreter_is_the_first_pt_interp_the_kernel_reads);
    tcase_add_test(t, elf_deps_of_a_program_for_another_machine);
    tcase_add_test(t, elf_deps_says_a_needed_name_it_cannot_read);
    suite_add_tcase(s, t);
    return s;
}
