/* What a dynamically linked ELF program needs besides itself: its
 * interpreter (PT_INTERP) and the libraries its dynamic section names
 * (DT_NEEDED), as the System V gABI, "Dynamic Section", defines them. For
 * --add, which packs a host program into the guest's initramfs. Works on
 * the file's bytes; every offset is checked against them. */
#ifndef HANDOVER_ELF_DEPS_H
#define HANDOVER_ELF_DEPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ELF_DEPS_MAX  64
#define ELF_DEPS_NAME 256

struct elf_deps {
    char interp[ELF_DEPS_NAME];            /* the first PT_INTERP's; "" for a static program, or
                                              one whose PT_INTERP the kernel would refuse */
    char needed[ELF_DEPS_MAX][ELF_DEPS_NAME];
    unsigned nneeded;
    bool more_needed;                      /* DT_NEEDED names past the first ELF_DEPS_MAX */
    bool unreadable_needed;                /* a DT_NEEDED whose name the file does not hold (no
                                              string table in it, an offset past its end, no
                                              NUL there) or that is ELF_DEPS_NAME bytes or more */
    bool foreign_dynamic;                  /* an ELF32 or non-x86-64 program with PT_INTERP or
                                              PT_DYNAMIC: nothing else is read of it */
};

/* 0 and deps filled for a little-endian ELF file (a static x86-64 one has
 * no interpreter and nothing needed); -1 if it is not one (a data file). */
int elf_deps_read(const uint8_t *d, size_t n, struct elf_deps *deps);

#endif
