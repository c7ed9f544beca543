/* libFuzzer harness for --add's ELF reader (loader/elf_deps.c).
 * Input: the bytes of a file --add is given, as vmm/host/add_files.c
 * hands them over (the whole file, no NUL after it: libFuzzer's buffer is
 * exactly the input, so ASan reports a read past it).
 *
 * Checks, from elf_deps.h and the System V gABI: -1 exactly when the file
 * is no little-endian ELF32 with its program header table inside it, nor a
 * little-endian ELF64 with one of at most 256 entries (the reader's own
 * bound) inside it, and then deps all zeros. An ELF32, or an ELF64 for
 * another machine than x86-64, gives foreign_dynamic exactly when a
 * PT_INTERP or PT_DYNAMIC is there, and nothing else. For an x86-64 one,
 * foreign_dynamic is false, the interpreter is the string the first
 * PT_INTERP names, as fs/binfmt_elf.c reads it (p_filesz of 2 to PATH_MAX
 * bytes inside the file, the last a NUL), or "" if it names none that
 * fits, at most
 * ELF_DEPS_MAX libraries (more_needed set exactly when a further one
 * follows), each the string a DT_NEEDED entry (before
 * DT_NULL) names in the DT_STRTAB that a PT_LOAD maps, in the order of the
 * dynamic section, every name NUL-terminated inside its buffer and the
 * unused slots zero; unreadable_needed exactly when a DT_NEEDED read
 * before that (more_needed stops the reading) names no such string. The reader is deterministic. abort() otherwise. */
#include <elf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../loader/elf_deps.h"
#include "fuzz_harness.h"

/* The string at file offset off if it ends (NUL) inside the file and
 * fits a name buffer; NULL otherwise. */
static const char *string_at(const uint8_t *d, size_t n, uint64_t off)
{
    if (off >= n)
        return NULL;
    const uint8_t *nul = memchr(d + off, 0, n - off);
    return nul && (size_t)(nul - (d + off)) < ELF_DEPS_NAME ? (const char *)d + off : NULL;
}

static bool all_zero(const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i])
            return false;
    return true;
}

/* A name buffer: NUL-terminated inside it. */
static void check_name(const char *name)
{
    CHECK(memchr(name, 0, ELF_DEPS_NAME));
}

static Elf64_Phdr phdr(const uint8_t *d, const Elf64_Ehdr *eh, unsigned i)
{
    Elf64_Phdr p;
    memcpy(&p, d + eh->e_phoff + (uint64_t)i * sizeof(p), sizeof(p));
    return p;
}

/* A program for another machine: whether it is dynamic, and nothing else. */
static void check_foreign(const struct elf_deps *deps, bool dynamic)
{
    CHECK(deps->foreign_dynamic == dynamic && !deps->nneeded && !deps->more_needed && !deps->unreadable_needed);
    CHECK(all_zero(deps->interp, sizeof(deps->interp)) && all_zero(deps->needed, sizeof(deps->needed)));
}

/* An ELF32: read when its program header table lies inside it. */
static void check_elf32(const uint8_t *d, size_t n, int rc, const struct elf_deps *deps)
{
    Elf32_Ehdr eh;
    bool ok = n >= sizeof(eh);
    if (ok) {
        memcpy(&eh, d, sizeof(eh));
        ok = eh.e_phentsize == sizeof(Elf32_Phdr) && eh.e_phoff <= n &&
             (uint64_t)eh.e_phnum * sizeof(Elf32_Phdr) <= n - eh.e_phoff;
    }
    if (!ok) {
        CHECK(rc == -1 && all_zero(deps, sizeof(*deps)));
        return;
    }
    CHECK(rc == 0);
    bool dynamic = false;
    for (unsigned i = 0; i < eh.e_phnum; i++) {
        Elf32_Phdr p;
        memcpy(&p, d + eh.e_phoff + i * sizeof(p), sizeof(p));
        dynamic |= p.p_type == PT_INTERP || p.p_type == PT_DYNAMIC;
    }
    check_foreign(deps, dynamic);
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    static struct elf_deps deps, again;
    memset(&deps, 0xa5, sizeof(deps));
    int rc = elf_deps_read(d, n, &deps);
    memset(&again, 0x5a, sizeof(again));
    CHECK(elf_deps_read(d, n, &again) == rc && !memcmp(&deps, &again, sizeof(deps)));

    if (n >= EI_NIDENT && !memcmp(d, ELFMAG, SELFMAG) && d[EI_CLASS] == ELFCLASS32 && d[EI_DATA] == ELFDATA2LSB) {
        check_elf32(d, n, rc, &deps);
        return 0;
    }
    Elf64_Ehdr eh;
    bool elf = n >= sizeof(eh);
    if (elf) {
        memcpy(&eh, d, sizeof(eh));
        elf = !memcmp(eh.e_ident, ELFMAG, SELFMAG) && eh.e_ident[EI_CLASS] == ELFCLASS64 &&
              eh.e_ident[EI_DATA] == ELFDATA2LSB && eh.e_phentsize == sizeof(Elf64_Phdr) &&
              eh.e_phnum <= 256 && eh.e_phoff <= n && eh.e_phnum * sizeof(Elf64_Phdr) <= n - eh.e_phoff;
    }
    if (!elf) {
        CHECK(rc == -1 && all_zero(&deps, sizeof(deps)));
        return 0;
    }
    CHECK(rc == 0);

    /* The interpreter: the first PT_INTERP's string, or none. */
    const char *interp = NULL;
    const Elf64_Phdr *dyn = NULL;
    Elf64_Phdr ph[256];
    for (unsigned i = 0; i < eh.e_phnum; i++) {
        ph[i] = phdr(d, &eh, i);
        if (ph[i].p_type == PT_INTERP && !interp) {
            const Elf64_Phdr *p = &ph[i];
            bool whole = p->p_filesz >= 2 && p->p_filesz <= PATH_MAX && p->p_offset <= n &&
                         p->p_filesz <= n - p->p_offset && !d[p->p_offset + p->p_filesz - 1];
            const char *s = whole ? string_at(d, n, p->p_offset) : NULL;
            interp = s ? s : "";
        }
        if (ph[i].p_type == PT_DYNAMIC)
            dyn = &ph[i];
    }
    if (eh.e_machine != EM_X86_64) {
        check_foreign(&deps, interp || dyn);
        return 0;
    }
    CHECK(!deps.foreign_dynamic);
    if (!interp)
        interp = "";
    check_name(deps.interp);
    CHECK(!strcmp(deps.interp, interp));

    CHECK(deps.nneeded <= ELF_DEPS_MAX);
    for (unsigned i = 0; i < ELF_DEPS_MAX; i++) {
        if (i < deps.nneeded)
            check_name(deps.needed[i]);
        else
            CHECK(all_zero(deps.needed[i], ELF_DEPS_NAME));
    }

    /* The libraries: DT_NEEDED offsets into the string table DT_STRTAB
     * points at, through the PT_LOAD that maps it. */
    unsigned want = 0;
    bool unreadable = false;
    if (dyn && dyn->p_offset <= n && dyn->p_filesz <= n - dyn->p_offset) {
        size_t count = dyn->p_filesz / sizeof(Elf64_Dyn);
        uint64_t strtab = 0;
        bool bad = false;
        for (size_t i = 0; i < count; i++) {
            Elf64_Dyn e;
            memcpy(&e, d + dyn->p_offset + i * sizeof(e), sizeof(e));
            if (e.d_tag == DT_NULL)
                break;
            if (e.d_tag != DT_STRTAB)
                continue;
            bool mapped = false;
            for (unsigned k = 0; k < eh.e_phnum && !mapped; k++)
                if (ph[k].p_type == PT_LOAD && e.d_un.d_ptr >= ph[k].p_vaddr &&
                    e.d_un.d_ptr - ph[k].p_vaddr < ph[k].p_filesz) {
                    strtab = ph[k].p_offset + (e.d_un.d_ptr - ph[k].p_vaddr);
                    mapped = true;
                }
            if (!mapped) {
                bad = true;   /* a string table the file does not hold: no name readable */
                break;
            }
        }
        for (size_t i = 0; i < count && want <= ELF_DEPS_MAX; i++) {
            Elf64_Dyn e;
            memcpy(&e, d + dyn->p_offset + i * sizeof(e), sizeof(e));
            if (e.d_tag == DT_NULL)
                break;
            if (e.d_tag != DT_NEEDED)
                continue;
            const char *s = bad || !strtab || strtab + e.d_un.d_val < strtab ? NULL
                                                                             : string_at(d, n, strtab + e.d_un.d_val);
            if (!s) {
                unreadable = true;
                continue;
            }
            CHECK(want == ELF_DEPS_MAX || (want < deps.nneeded && !strcmp(deps.needed[want], s)));
            want++;
        }
    }
    /* One name past ELF_DEPS_MAX is said, never dropped. */
    CHECK(deps.more_needed == (want > ELF_DEPS_MAX));
    CHECK(deps.nneeded == (want > ELF_DEPS_MAX ? ELF_DEPS_MAX : want));
    CHECK(deps.unreadable_needed == unreadable);
    return 0;
}
