#include "elf_deps.h"

#include <elf.h>
#include <limits.h>
#include <string.h>

/* A NUL-terminated string at file offset off, copied into out. */
static int copy_string(const uint8_t *d, size_t n, uint64_t off, char *out)
{
    if (off >= n)
        return -1;
    const uint8_t *end = memchr(d + off, 0, n - off);
    if (!end || (size_t)(end - (d + off)) >= ELF_DEPS_NAME)
        return -1;
    memcpy(out, d + off, (size_t)(end - (d + off)) + 1);
    return 0;
}

/* PT_INTERP's path as the kernel reads it (fs/binfmt_elf.c,
 * load_elf_binary): p_filesz bytes at p_offset, 2 to PATH_MAX of them,
 * the last a NUL; the path is the string they start with. */
static int copy_interp(const uint8_t *d, size_t n, const Elf64_Phdr *ph, char *out)
{
    if (ph->p_filesz < 2 || ph->p_filesz > PATH_MAX || ph->p_offset > n || ph->p_filesz > n - ph->p_offset ||
        d[ph->p_offset + ph->p_filesz - 1])
        return -1;
    return copy_string(d, n, ph->p_offset, out);
}

/* The file offset of virtual address va, through the PT_LOAD segments. */
static int va_to_offset(const Elf64_Phdr *ph, unsigned phnum, uint64_t va, uint64_t *off)
{
    for (unsigned i = 0; i < phnum; i++)
        if (ph[i].p_type == PT_LOAD && va >= ph[i].p_vaddr && va - ph[i].p_vaddr < ph[i].p_filesz) {
            *off = ph[i].p_offset + (va - ph[i].p_vaddr);
            return 0;
        }
    return -1;
}

/* An ELF32 program (i386): 0 and foreign_dynamic set if it has a PT_INTERP
 * or PT_DYNAMIC; -1 if its program headers are not within the file. */
static int read_elf32(const uint8_t *d, size_t n, struct elf_deps *deps)
{
    Elf32_Ehdr eh;
    if (n < sizeof(eh))
        return -1;
    memcpy(&eh, d, sizeof(eh));
    if (eh.e_phentsize != sizeof(Elf32_Phdr) || eh.e_phoff > n ||
        (uint64_t)eh.e_phnum * sizeof(Elf32_Phdr) > n - eh.e_phoff)
        return -1;
    for (unsigned i = 0; i < eh.e_phnum; i++) {
        Elf32_Phdr ph;
        memcpy(&ph, d + eh.e_phoff + i * sizeof(ph), sizeof(ph));
        if (ph.p_type == PT_INTERP || ph.p_type == PT_DYNAMIC)
            deps->foreign_dynamic = true;
    }
    return 0;
}

/* The DT_NEEDED names of the count entries at dyn (up to DT_NULL), as
 * offsets into the string table at file offset strtab (0: none). One
 * whose string the file does not hold whole (or that does not fit a name)
 * sets unreadable_needed: the program needs a library that cannot be
 * named, and packing it without that one would say it has all it needs. */
static void read_needed(const uint8_t *d, size_t n, const uint8_t *dyn, size_t count, uint64_t strtab,
                        struct elf_deps *deps)
{
    char spare[ELF_DEPS_NAME];   /* a name past ELF_DEPS_MAX: read to be counted, not kept */
    for (size_t i = 0; i < count && !deps->more_needed; i++) {
        Elf64_Dyn e;
        memcpy(&e, dyn + i * sizeof(e), sizeof(e));
        if (e.d_tag == DT_NULL)
            break;
        if (e.d_tag != DT_NEEDED)
            continue;
        char *out = deps->nneeded < ELF_DEPS_MAX ? deps->needed[deps->nneeded] : spare;
        if (!strtab || strtab + e.d_un.d_val < strtab || copy_string(d, n, strtab + e.d_un.d_val, out))
            deps->unreadable_needed = true;
        else if (out == spare)
            deps->more_needed = true;
        else
            deps->nneeded++;
    }
}

int elf_deps_read(const uint8_t *d, size_t n, struct elf_deps *deps)
{
    memset(deps, 0, sizeof(*deps));
    Elf64_Ehdr eh;
    if (n < EI_NIDENT || memcmp(d, ELFMAG, SELFMAG) || d[EI_DATA] != ELFDATA2LSB)
        return -1;
    if (d[EI_CLASS] == ELFCLASS32)
        return read_elf32(d, n, deps);
    if (n < sizeof(eh))
        return -1;
    memcpy(&eh, d, sizeof(eh));
    if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum > 256 ||
        eh.e_phoff > n || (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr) > n - eh.e_phoff)
        return -1;
    Elf64_Phdr ph[256];
    memcpy(ph, d + eh.e_phoff, eh.e_phnum * sizeof(Elf64_Phdr));
    const Elf64_Phdr *dyn = NULL, *interp = NULL;
    for (unsigned i = 0; i < eh.e_phnum; i++) {
        if (ph[i].p_type == PT_INTERP && !interp)
            interp = &ph[i];   /* the kernel runs the first one */
        if (ph[i].p_type == PT_DYNAMIC)
            dyn = &ph[i];
    }
    /* Its interpreter and libraries would be the host's x86-64 ones. */
    if (eh.e_machine != EM_X86_64) {
        deps->foreign_dynamic = interp || dyn;
        return 0;
    }
    if (interp && copy_interp(d, n, interp, deps->interp))
        deps->interp[0] = 0;
    if (!dyn || dyn->p_offset > n || dyn->p_filesz > n - dyn->p_offset)
        return 0;
    size_t count = dyn->p_filesz / sizeof(Elf64_Dyn);
    uint64_t strtab = 0;
    for (size_t i = 0; i < count; i++) {
        Elf64_Dyn e;
        memcpy(&e, d + dyn->p_offset + i * sizeof(e), sizeof(e));
        if (e.d_tag == DT_NULL)
            break;
        if (e.d_tag == DT_STRTAB && va_to_offset(ph, eh.e_phnum, e.d_un.d_ptr, &strtab)) {
            strtab = 0;   /* a string table the file does not hold: no name can be read */
            break;
        }
    }
    read_needed(d, n, d + dyn->p_offset, count, strtab, deps);
    return 0;
}
