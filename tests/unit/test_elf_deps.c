/* loader/elf_deps.c: what a program --add packs needs besides itself (its
 * PT_INTERP and DT_NEEDED libraries). */
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
    /* Every truncation is refused or read within bounds (ASan checks). */
    for (size_t cut = 0; cut < 4096; cut += 7)
        (void)elf_deps_read(image, cut, &d);
    ck_assert_int_eq(elf_deps_read((const uint8_t *)"#!/bin/sh\n", 10, &d), -1);
}
END_TEST

Suite *elf_deps_suite(void)
{
    Suite *s = suite_create("elf-deps");
    TCase *t = tcase_create("elf-deps");
    tcase_add_test(t, elf_deps_of_this_program);
    suite_add_tcase(s, t);
    return s;
}
