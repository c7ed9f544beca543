#include "pe.h"

#include <stdio.h>
#include <string.h>

#include "../guest/fail.h"
#include "../guest/guest_text.h"

static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t rd32(const uint8_t *p) { return rd16(p) | (uint32_t)rd16(p + 2) << 16; }
static uint64_t rd64(const uint8_t *p) { return rd32(p) | (uint64_t)rd32(p + 4) << 32; }
static void wr32(uint8_t *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> 8 * i); }
static void wr64(uint8_t *p, uint64_t v) { for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> 8 * i); }

static bool is_pow2(uint64_t x) { return x && !(x & (x - 1)); }

#define MZ_LFANEW        0x3c   /* MS-DOS stub: offset of the PE signature */
#define COFF_HEADER_SIZE 20
#define SECTION_SIZE     40
#define RELOC_BLOCK_HDR  8      /* PageRVA, SizeOfBlock */
#define GIB4             (1ULL << 32)

/* The optional header of each Machine ("Optional Header (Image Only)"):
 * PE32+ for x64; PE32 for IA-32, which has BaseOfData at 24, a 4-byte
 * ImageBase at 28 and 4-byte stack and heap sizes, so its
 * NumberOfRvaAndSizes and data directories come 16 bytes earlier. Every
 * other field this file reads is at the same offset in both. */
struct opt_format {
    uint16_t machine, magic;
    const char *name;
    unsigned image_base_at, image_base_size;
    unsigned dirs_at;          /* the data directories; also the header's least size */
};
static const struct opt_format opt_formats[] = {
    { PE_MACHINE_X64, 0x20b, "PE32+", 24, 8, 112 },
    { PE_MACHINE_I386, 0x10b, "PE32", 28, 4, 96 },
};

static const struct opt_format *opt_format_of(uint16_t machine)
{
    for (size_t i = 0; i < sizeof(opt_formats) / sizeof(opt_formats[0]); i++)
        if (opt_formats[i].machine == machine)
            return &opt_formats[i];
    return NULL;
}

/* Optional header data directories ("Optional Header Data Directories"),
 * in order. The certificate table holds a file offset, not an RVA. */
static const char *const dir_names[] = {
    "Export Table", "Import Table", "Resource Table", "Exception Table", "Certificate Table",
    "Base Relocation Table", "Debug", "Architecture", "Global Ptr", "TLS Table",
    "Load Config Table", "Bound Import", "IAT", "Delay Import Descriptor", "CLR Runtime Header",
    "Reserved",
};
#define NDIRS         ((unsigned)(sizeof(dir_names) / sizeof(dir_names[0])))
#define DIR_CERT      4
#define DIR_BASERELOC 5

bool pe_is_mz(const void *data, size_t size)
{
    const uint8_t *d = data;
    return size >= 0x40 && d[0] == 'M' && d[1] == 'Z';
}

/* The first section whose span (VirtualSize or SizeOfRawData, the larger)
 * holds rva, or NULL. */
static const struct pe_section *section_at(const struct pe_image *pe, uint64_t rva)
{
    for (unsigned i = 0; i < pe->nsections; i++) {
        const struct pe_section *s = &pe->sections[i];
        uint64_t span = s->virtual_size > s->raw_size ? s->virtual_size : s->raw_size;
        if (rva >= s->virtual_address && rva < s->virtual_address + span)
            return s;
    }
    return NULL;
}

/* Bytes section s copies from the file: SizeOfRawData, but no more than
 * VirtualSize when that is given ("Section Table": the rest of
 * VirtualSize is zero-filled). */
static uint32_t section_copied(const struct pe_section *s)
{
    return s->raw_size < s->virtual_size || !s->virtual_size ? s->raw_size : s->virtual_size;
}

/* The file bytes the mapped image holds at [rva, rva + len), or NULL when
 * they are not one run copied from the file (zero fill, or a gap). */
static const uint8_t *file_bytes_at(const struct pe_image *pe, uint64_t rva, uint64_t len)
{
    if (rva + len <= pe->size_of_headers)
        return pe->data + rva;
    for (unsigned i = 0; i < pe->nsections; i++) {
        const struct pe_section *s = &pe->sections[i];
        if (rva >= s->virtual_address && rva + len <= (uint64_t)s->virtual_address + section_copied(s))
            return pe->data + s->raw_offset + (rva - s->virtual_address);
    }
    return NULL;
}

/* Walk the base relocation blocks ("The .reloc Section (Image Only)"):
 * each a 4-byte PageRVA and 4-byte SizeOfBlock, then 2-byte entries of
 * Type (high 4 bits) and Offset (low 12). With img, add delta at every
 * target; without, only check every block and target. */
static int walk_relocs(const struct pe_image *pe, uint8_t *img, uint64_t delta, char *err, size_t errlen)
{
    if (!pe->reloc_size)
        return 0;
    const uint8_t *dir = file_bytes_at(pe, pe->reloc_rva, pe->reloc_size);
    if (!dir)
        return fail(err, errlen, "PE: Base Relocation Table (RVA 0x%x, size 0x%x) is not backed by the file's raw data",
                    pe->reloc_rva, pe->reloc_size);
    for (uint32_t off = 0; off < pe->reloc_size;) {
        if (pe->reloc_size - off < RELOC_BLOCK_HDR)
            return fail(err, errlen, "PE: base relocation block at offset 0x%x: %u bytes left, too few for PageRVA and SizeOfBlock",
                        off, pe->reloc_size - off);
        uint32_t page = rd32(dir + off), block = rd32(dir + off + 4);
        if (block < RELOC_BLOCK_HDR || block > pe->reloc_size - off)
            return fail(err, errlen, "PE: base relocation block at offset 0x%x: SizeOfBlock 0x%x is below 8 or runs past the directory (0x%x bytes)",
                        off, block, pe->reloc_size);
        if (block & 1)
            return fail(err, errlen, "PE: base relocation block at offset 0x%x: SizeOfBlock 0x%x is odd: not 8 bytes plus 2-byte entries",
                        off, block);
        for (uint32_t e = off + RELOC_BLOCK_HDR; e < off + block; e += 2) {
            unsigned type = rd16(dir + e) >> 12;
            uint64_t rva = (uint64_t)page + (rd16(dir + e) & 0xfff);
            unsigned width = type == PE_REL_BASED_DIR64 ? 8 : type == PE_REL_BASED_HIGHLOW ? 4 : 0;
            if (type == PE_REL_BASED_ABSOLUTE)
                continue;
            if (!width)
                return fail(err, errlen, "PE: base relocation at RVA 0x%llx: Type %u is not ABSOLUTE (0), HIGHLOW (3) or DIR64 (10)",
                            (unsigned long long)rva, type);
            if (rva + width > pe->size_of_image)
                return fail(err, errlen, "PE: base relocation at RVA 0x%llx (PageRVA 0x%x): its %u bytes are outside SizeOfImage 0x%x",
                            (unsigned long long)rva, page, width, pe->size_of_image);
            if (!img)
                continue;
            if (type == PE_REL_BASED_DIR64)
                wr64(img + rva, rd64(img + rva) + delta);
            else
                wr32(img + rva, rd32(img + rva) + (uint32_t)delta);
        }
        off += block;
    }
    return 0;
}

/* Data directories: NumberOfRvaAndSizes entries of RVA and Size after the
 * fixed part of the optional header. */
static int parse_dirs(struct pe_image *pe, const uint8_t *o, unsigned optsize, char *err, size_t errlen)
{
    const unsigned dirs_at = opt_format_of(pe->machine)->dirs_at;
    uint32_t ndirs = rd32(o + dirs_at - 4);
    if (ndirs > NDIRS || dirs_at + 8 * ndirs > optsize)
        return fail(err, errlen, "PE: NumberOfRvaAndSizes %u is above %u or past SizeOfOptionalHeader %u",
                    ndirs, NDIRS, optsize);
    for (unsigned i = 0; i < ndirs; i++) {
        uint32_t rva = rd32(o + dirs_at + 8 * i), size = rd32(o + dirs_at + 8 * i + 4);
        if (i == DIR_CERT || !size)
            continue;
        if ((uint64_t)rva + size > pe->size_of_image)
            return fail(err, errlen, "PE: data directory %s (RVA 0x%x, size 0x%x) is outside SizeOfImage 0x%x",
                        dir_names[i], rva, size, pe->size_of_image);
        if (i == DIR_BASERELOC) {
            pe->reloc_rva = rva;
            pe->reloc_size = size;
        }
    }
    return 0;
}

/* Where section i (its fields read) lies in the image, and what it may
 * be: within SizeOfImage, past the headers, over no earlier section,
 * and not both writable and executable in an NX_COMPAT image. */
static int check_section(const struct pe_image *pe, unsigned i, char *err, size_t errlen)
{
    const struct pe_section *ps = &pe->sections[i];
    uint64_t span = ps->virtual_size > ps->raw_size ? ps->virtual_size : ps->raw_size;
    if ((uint64_t)ps->virtual_address + span > pe->size_of_image)
        return fail(err, errlen, "PE: section %s: VirtualAddress 0x%x + size 0x%llx exceeds SizeOfImage 0x%x",
                    ps->name, ps->virtual_address, (unsigned long long)span, pe->size_of_image);
    /* "Section Table": sections are in ascending VirtualAddress order
     * and do not overlap; none may lie over the headers, which are
     * loaded at the image base too. */
    uint64_t extent = ps->virtual_size ? ps->virtual_size : ps->raw_size;
    if (ps->virtual_address < pe->size_of_headers)
        return fail(err, errlen, "PE: section %s: VirtualAddress 0x%x is inside the headers (SizeOfHeaders 0x%x)",
                    ps->name, ps->virtual_address, pe->size_of_headers);
    for (unsigned j = 0; j < i; j++) {
        const struct pe_section *q = &pe->sections[j];
        uint64_t q_extent = q->virtual_size ? q->virtual_size : q->raw_size;
        if (ps->virtual_address < q->virtual_address + q_extent && q->virtual_address < ps->virtual_address + extent)
            return fail(err, errlen, "PE: section %s (VirtualAddress 0x%x) overlaps section %s (0x%x)",
                        ps->name, ps->virtual_address, q->name, q->virtual_address);
    }
    /* "DLL Characteristics": an NX-compatible image keeps W^X, which
     * UEFI memory protection enforces per section. */
    uint32_t wx = PE_SCN_MEM_WRITE | PE_SCN_MEM_EXECUTE;
    if ((pe->dll_characteristics & PE_DLLCHARACTERISTICS_NX_COMPAT) && (ps->characteristics & wx) == wx)
        return fail(err, errlen, "PE: section %s: Characteristics 0x%08x are writable and executable in an NX_COMPAT image",
                    ps->name, ps->characteristics);
    return 0;
}

static int parse_sections(struct pe_image *pe, uint64_t sect, char *err, size_t errlen)
{
    const uint8_t *d = pe->data;
    size_t size = pe->size;
    /* SizeOfHeaders is "the combined size of an MS-DOS stub, PE header, and
     * section headers" (PE/COFF, "Optional Header Windows-Specific
     * Fields"): the mapped image's headers hold the whole section table,
     * which EDK2's loader requires too. check_optional_header put
     * SizeOfHeaders inside the file. */
    if (sect + (uint64_t)pe->nsections * SECTION_SIZE > pe->size_of_headers)
        return fail(err, errlen, "PE: section table (%u entries at 0x%llx) runs past SizeOfHeaders 0x%x",
                    pe->nsections, (unsigned long long)sect, pe->size_of_headers);
    for (unsigned i = 0; i < pe->nsections; i++) {
        const uint8_t *s = d + sect + i * SECTION_SIZE;
        struct pe_section *ps = &pe->sections[i];
        for (int c = 0; c < 8; c++)
            ps->name[c] = guest_text_printable(s[c]) ? (char)s[c] : (s[c] ? '?' : 0);
        ps->name[8] = 0;
        ps->virtual_size = rd32(s + 8);
        ps->virtual_address = rd32(s + 12);
        ps->raw_size = rd32(s + 16);
        ps->raw_offset = rd32(s + 20);
        ps->characteristics = rd32(s + 36);
        if ((uint64_t)ps->raw_offset + ps->raw_size > size)
            return fail(err, errlen, "PE: section %s: PointerToRawData 0x%x + SizeOfRawData 0x%x is outside the file",
                        ps->name, ps->raw_offset, ps->raw_size);
        if (check_section(pe, i, err, errlen))
            return -1;
    }
    return 0;
}

/* The MS-DOS header, the PE signature and the COFF File Header: the
 * optional header's file offset in *opt and its size in *optsize. */
static int parse_coff_header(struct pe_image *pe, uint64_t *opt, unsigned *optsize, char *err, size_t errlen)
{
    const uint8_t *d = pe->data;
    size_t size = pe->size;
    if (!pe_is_mz(d, size))
        return fail(err, errlen, "PE: no MS-DOS header (\"MZ\" and e_lfanew) in the %zu-byte file", size);
    uint32_t pe_off = rd32(d + MZ_LFANEW);
    if (pe_off > size || size - pe_off < 4 + COFF_HEADER_SIZE)
        return fail(err, errlen, "PE: e_lfanew 0x%x points outside the file", pe_off);
    if (memcmp(d + pe_off, "PE\0\0", 4))
        return fail(err, errlen, "PE: signature at 0x%x is not \"PE\\0\\0\"", pe_off);
    const uint8_t *coff = d + pe_off + 4;
    pe->machine = rd16(coff);
    const struct opt_format *f = opt_format_of(pe->machine);
    if (!f)
        return fail(err, errlen, "PE: Machine 0x%x is not x86-64 (0x8664) or IA-32 (0x14c)", pe->machine);
    pe->nsections = rd16(coff + 2);
    *optsize = rd16(coff + 16);
    pe->file_characteristics = rd16(coff + 18);
    *opt = (uint64_t)pe_off + 4 + COFF_HEADER_SIZE;
    if (*optsize < f->dirs_at || *opt + *optsize > size)
        return fail(err, errlen, "PE: SizeOfOptionalHeader %u is too small or outside the file", *optsize);
    return 0;
}

/* The optional header's standard and Windows-specific fields, o at its
 * start. */
static int parse_optional_header(struct pe_image *pe, const uint8_t *o, char *err, size_t errlen)
{
    const struct opt_format *f = opt_format_of(pe->machine);
    if (rd16(o) != f->magic)
        return fail(err, errlen, "PE: Machine 0x%x has optional header Magic 0x%x, not %s (0x%x)", pe->machine,
                    rd16(o), f->name, f->magic);
    pe->entry = rd32(o + 16);
    pe->image_base = f->image_base_size == 8 ? rd64(o + f->image_base_at) : rd32(o + f->image_base_at);
    pe->section_alignment = rd32(o + 32);
    pe->size_of_image = rd32(o + 56);
    pe->size_of_headers = rd32(o + 60);
    pe->subsystem = rd16(o + 68);
    pe->dll_characteristics = rd16(o + 70);
    return 0;
}

/* What the optional header says of the image: its alignment, its size
 * and its headers', its entry point, its base and its subsystem. */
static int check_optional_header(const struct pe_image *pe, char *err, size_t errlen)
{
    if (!is_pow2(pe->section_alignment))
        return fail(err, errlen, "PE: SectionAlignment 0x%x is not a power of two", pe->section_alignment);
    if (pe->size_of_image == 0 || pe->size_of_image > PE_MAX_IMAGE_SIZE)
        return fail(err, errlen, "PE: SizeOfImage 0x%x is zero or larger than 1 GiB", pe->size_of_image);
    if (pe->size_of_headers > pe->size_of_image || pe->size_of_headers > pe->size)
        return fail(err, errlen, "PE: SizeOfHeaders 0x%x exceeds SizeOfImage or the file", pe->size_of_headers);
    if (pe->entry == 0 || pe->entry >= pe->size_of_image)
        return fail(err, errlen, "PE: AddressOfEntryPoint 0x%x is outside SizeOfImage 0x%x", pe->entry,
                    pe->size_of_image);
    /* The image, at its preferred address, must neither wrap nor
     * misalign its sections. */
    if (pe->image_base & (pe->section_alignment - 1) || pe->image_base > UINT64_MAX - pe->size_of_image)
        return fail(err, errlen, "PE: ImageBase 0x%llx is not a multiple of SectionAlignment 0x%x or wraps with SizeOfImage",
                    (unsigned long long)pe->image_base, pe->section_alignment);
    /* A PE32 image's 32-bit code addresses no byte past 4 GiB. */
    if (pe->machine == PE_MACHINE_I386 && pe->image_base + pe->size_of_image > GIB4)
        return fail(err, errlen, "PE: ImageBase 0x%llx + SizeOfImage 0x%x runs past 4 GiB, which a PE32 image cannot reach",
                    (unsigned long long)pe->image_base, pe->size_of_image);
    if (pe->subsystem < PE_SUBSYSTEM_EFI_APPLICATION || pe->subsystem > PE_SUBSYSTEM_EFI_RUNTIME_DRIVER)
        return fail(err, errlen, "PE: Subsystem %u is not an EFI application (10), boot service driver (11) or runtime driver (12)",
                    pe->subsystem);
    return 0;
}

/* The entry point lies in an executable section. */
static int check_entry_section(const struct pe_image *pe, char *err, size_t errlen)
{
    const struct pe_section *es = section_at(pe, pe->entry);
    if (!es)
        return fail(err, errlen, "PE: AddressOfEntryPoint 0x%x is in no section", pe->entry);
    if (!(es->characteristics & PE_SCN_MEM_EXECUTE))
        return fail(err, errlen, "PE: AddressOfEntryPoint 0x%x is in section %s, whose Characteristics 0x%08x lack MEM_EXECUTE",
                    pe->entry, es->name, es->characteristics);
    return 0;
}

int pe_parse(struct pe_image *pe, const void *data, size_t size, char *err, size_t errlen)
{
    memset(pe, 0, sizeof(*pe));
    pe->data = data;
    pe->size = size;
    uint64_t opt = 0;
    unsigned optsize = 0;
    if (parse_coff_header(pe, &opt, &optsize, err, errlen) ||
        parse_optional_header(pe, pe->data + opt, err, errlen) || check_optional_header(pe, err, errlen) ||
        parse_dirs(pe, pe->data + opt, optsize, err, errlen))
        return -1;
    if (pe->nsections == 0 || pe->nsections > PE_MAX_SECTIONS)
        return fail(err, errlen, "PE: NumberOfSections %u is not in 1..%d", pe->nsections, PE_MAX_SECTIONS);
    if (parse_sections(pe, opt + optsize, err, errlen) || check_entry_section(pe, err, errlen))
        return -1;
    return walk_relocs(pe, NULL, 0, err, errlen);
}

uint64_t pe_image_size(const struct pe_image *pe)
{
    return ((uint64_t)pe->size_of_image + GUEST_PAGE_SIZE - 1) & ~(GUEST_PAGE_SIZE - 1);
}

int pe_load(const struct pe_image *pe, const struct guest_mem *gm, uint64_t base, char *err, size_t errlen)
{
    uint64_t len = pe_image_size(pe);
    if (pe->machine == PE_MACHINE_I386 && (base >= GIB4 || GIB4 - base < len))
        return fail(err, errlen, "PE: the 0x%llx-byte PE32 image at 0x%llx runs past 4 GiB, which its 32-bit code cannot reach",
                    (unsigned long long)len, (unsigned long long)base);
    uint8_t *dst = guest_mem_ptr(gm, base, len);
    if (!dst)
        return fail(err, errlen, "PE: the 0x%llx-byte image at 0x%llx is outside guest RAM", (unsigned long long)len,
                    (unsigned long long)base);
    if (base != pe->image_base && (pe->file_characteristics & PE_FILE_RELOCS_STRIPPED))
        return fail(err, errlen, "PE: Characteristics has IMAGE_FILE_RELOCS_STRIPPED: the image loads only at ImageBase 0x%llx, not 0x%llx",
                    (unsigned long long)pe->image_base, (unsigned long long)base);
    /* Checked again before anything is written: pe may not come from pe_parse. */
    if (walk_relocs(pe, NULL, 0, err, errlen))
        return -1;
    /* Everything not backed by raw data is zero: the 6.12 stub relies on a
     * zeroed BSS, as "Section Table" (VirtualSize beyond SizeOfRawData is
     * zero-filled) promises it. */
    memset(dst, 0, len);
    memcpy(dst, pe->data, pe->size_of_headers);
    for (unsigned i = 0; i < pe->nsections; i++) {
        const struct pe_section *s = &pe->sections[i];
        memcpy(dst + s->virtual_address, pe->data + s->raw_offset, section_copied(s));
    }
    return walk_relocs(pe, dst, base - pe->image_base, err, errlen);
}
