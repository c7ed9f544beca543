/* firmware-stub/pe.c: a synthetic PE32+ EFI application (MS-DOS stub, COFF and
 * optional headers, .text, .data with a BSS tail, and a .reloc with DIR64,
 * HIGHLOW and ABSOLUTE entries, as the PE/COFF specification lays them
 * out) loaded at its ImageBase and elsewhere, then broken one field at a
 * time; the same as an IA-32 PE32 image (HIGHLOW relocations), so; the synthetic payload's real EFI stub header mapped as the old
 * loader mapped it; the .compat section of a mixed-mode kernel read and
 * broken. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "../../loader/bzimage.h"
#include "../../loader/efi_app.h"
#include "../../loader/pe_compat.h"
#include "../../firmware-stub/pe.h"

/* ---- a synthetic image ---------------------------------------------------- */

#define PE_OFF        0x40
#define COFF_OFF      (PE_OFF + 4)
#define OPT_OFF       (COFF_OFF + 20)
#define OPT_SIZE      240                     /* PE32+: 16 data directories at 112 */
#define OPT32_SIZE    224                     /* PE32: 16 data directories at 96 */
#define HEADERS_SIZE  0x200

#define TEXT_VA       0x1000
#define TEXT_RAW      0x200
#define DATA_VA       0x2000
#define DATA_RAW      0x400
#define DATA_VSIZE    0x1800                  /* 0x200 from the file, then BSS */
#define RELOC_VA      0x4000
#define RELOC_RAW     0x600
#define RELOC_SIZE    0x1c
#define FILE_SIZE     0x800
#define SIZE_OF_IMAGE 0x5000
#define IMAGE_BASE    0x100000ULL
#define ENTRY         (TEXT_VA + 0x20)

/* Relocation targets (RVAs) and the value each holds at ImageBase. */
#define T_TEXT        (TEXT_VA + 0x10)        /* DIR64: a movabs immediate */
#define T_DATA0       (DATA_VA + 0x00)        /* DIR64 */
#define T_DATA1       (DATA_VA + 0x08)        /* DIR64 */
#define T_HIGHLOW     (DATA_VA + 0x18)        /* HIGHLOW */
#define T_PLAIN       (DATA_VA + 0x10)        /* no relocation */
#define PLAIN_VALUE   0x1122334455667788ULL

#define SCN_TEXT 0x60000020u   /* CNT_CODE | MEM_READ | MEM_EXECUTE */
#define SCN_DATA 0xc0000040u   /* CNT_INITIALIZED_DATA | MEM_READ | MEM_WRITE */
#define SCN_RELOC 0x42000040u  /* CNT_INITIALIZED_DATA | MEM_DISCARDABLE | MEM_READ */

#define REL(type, off) ((uint16_t)((type) << 12 | (off)))

static void wr16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
static void wr32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void wr64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }
static uint32_t rd32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t rd64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

static bool is_pe32(const uint8_t *f) { return f[COFF_OFF] == 0x4c && f[COFF_OFF + 1] == 0x01; }
static size_t dir_off(const uint8_t *f, unsigned i) { return OPT_OFF + (is_pe32(f) ? 96 : 112) + 8 * i; }
static size_t sect_off(const uint8_t *f) { return OPT_OFF + (is_pe32(f) ? OPT32_SIZE : OPT_SIZE); }

static void section(uint8_t *f, unsigned i, const char *name, uint32_t va, uint32_t vsize, uint32_t raw,
                    uint32_t rawsize, uint32_t flags)
{
    uint8_t *s = f + sect_off(f) + 40 * i;
    memset(s, 0, 40);
    memcpy(s, name, strlen(name));
    wr32(s + 8, vsize);
    wr32(s + 12, va);
    wr32(s + 16, rawsize);
    wr32(s + 20, raw);
    wr32(s + 36, flags);
}

static void reloc_dir(uint8_t *f, uint32_t rva, uint32_t size)
{
    wr32(f + dir_off(f, 5), rva);
    wr32(f + dir_off(f, 5) + 4, size);
}

static uint8_t file_byte(size_t i) { return (uint8_t)(i * 13 + 5); }

static void build_pe(uint8_t *f)
{
    memset(f, 0, FILE_SIZE);
    f[0] = 'M';
    f[1] = 'Z';
    wr32(f + 0x3c, PE_OFF);
    memcpy(f + PE_OFF, "PE\0\0", 4);
    uint8_t *coff = f + COFF_OFF;
    wr16(coff, 0x8664);                 /* Machine */
    wr16(coff + 2, 3);                  /* NumberOfSections */
    wr16(coff + 16, OPT_SIZE);          /* SizeOfOptionalHeader */
    wr16(coff + 18, 0x206);             /* Characteristics: EXECUTABLE_IMAGE | DEBUG_STRIPPED | LINE_NUMS_STRIPPED */
    uint8_t *o = f + OPT_OFF;
    wr16(o, 0x20b);                     /* Magic: PE32+ */
    wr32(o + 16, ENTRY);                /* AddressOfEntryPoint */
    wr64(o + 24, IMAGE_BASE);           /* ImageBase */
    wr32(o + 32, 0x1000);               /* SectionAlignment */
    wr32(o + 36, 0x200);                /* FileAlignment */
    wr32(o + 56, SIZE_OF_IMAGE);        /* SizeOfImage */
    wr32(o + 60, HEADERS_SIZE);         /* SizeOfHeaders */
    wr16(o + 68, PE_SUBSYSTEM_EFI_APPLICATION);
    wr16(o + 70, PE_DLLCHARACTERISTICS_NX_COMPAT);
    wr32(o + 108, 16);                  /* NumberOfRvaAndSizes */
    reloc_dir(f, RELOC_VA, RELOC_SIZE);
    section(f, 0, ".text", TEXT_VA, 0x200, TEXT_RAW, 0x200, SCN_TEXT);
    section(f, 1, ".data", DATA_VA, DATA_VSIZE, DATA_RAW, 0x200, SCN_DATA);
    section(f, 2, ".reloc", RELOC_VA, 0x200, RELOC_RAW, 0x200, SCN_RELOC);

    for (size_t i = TEXT_RAW; i < RELOC_RAW; i++)
        f[i] = file_byte(i);
    wr64(f + TEXT_RAW + (T_TEXT - TEXT_VA), IMAGE_BASE + DATA_VA);
    wr64(f + DATA_RAW + (T_DATA0 - DATA_VA), IMAGE_BASE + TEXT_VA);
    wr64(f + DATA_RAW + (T_DATA1 - DATA_VA), IMAGE_BASE + DATA_VA + 0x100);
    wr64(f + DATA_RAW + (T_PLAIN - DATA_VA), PLAIN_VALUE);
    wr32(f + DATA_RAW + (T_HIGHLOW - DATA_VA), (uint32_t)(IMAGE_BASE + 0x1234));

    /* "Base Relocation Block": PageRVA, SizeOfBlock, then entries; each
     * block padded to 4 bytes with an ABSOLUTE entry. */
    uint8_t *r = f + RELOC_RAW;
    wr32(r, TEXT_VA);
    wr32(r + 4, 12);
    wr16(r + 8, REL(PE_REL_BASED_DIR64, T_TEXT - TEXT_VA));
    wr16(r + 10, REL(PE_REL_BASED_ABSOLUTE, 0));
    wr32(r + 12, DATA_VA);
    wr32(r + 16, 16);
    wr16(r + 20, REL(PE_REL_BASED_DIR64, T_DATA0 - DATA_VA));
    wr16(r + 22, REL(PE_REL_BASED_DIR64, T_DATA1 - DATA_VA));
    wr16(r + 24, REL(PE_REL_BASED_HIGHLOW, T_HIGHLOW - DATA_VA));
    wr16(r + 26, REL(PE_REL_BASED_ABSOLUTE, 0));
}

/* The same image as IA-32's PE32 ("Optional Header (Image Only)"): Machine
 * 0x14c, Magic 0x10b, a 4-byte ImageBase at 28 (BaseOfData before it),
 * 4-byte stack and heap sizes, so NumberOfRvaAndSizes at 92 and the data
 * directories at 96; its relocations all HIGHLOW, which move the low
 * dword of each target (the high one of these qwords is zero). */
static void build_pe32(uint8_t *f)
{
    build_pe(f);
    uint8_t sections[3 * 40];
    memcpy(sections, f + sect_off(f), sizeof(sections));
    memset(f + OPT_OFF, 0, HEADERS_SIZE - OPT_OFF);
    wr16(f + COFF_OFF, 0x14c);          /* Machine: IA-32 */
    wr16(f + COFF_OFF + 16, OPT32_SIZE);
    uint8_t *o = f + OPT_OFF;
    wr16(o, 0x10b);                     /* Magic: PE32 */
    wr32(o + 16, ENTRY);
    wr32(o + 28, (uint32_t)IMAGE_BASE);
    wr32(o + 32, 0x1000);
    wr32(o + 36, 0x200);
    wr32(o + 56, SIZE_OF_IMAGE);
    wr32(o + 60, HEADERS_SIZE);
    wr16(o + 68, PE_SUBSYSTEM_EFI_APPLICATION);
    wr16(o + 70, PE_DLLCHARACTERISTICS_NX_COMPAT);
    wr32(o + 92, 16);                   /* NumberOfRvaAndSizes */
    memcpy(f + sect_off(f), sections, sizeof(sections));
    reloc_dir(f, RELOC_VA, RELOC_SIZE);
    uint8_t *r = f + RELOC_RAW;
    wr16(r + 8, REL(PE_REL_BASED_HIGHLOW, T_TEXT - TEXT_VA));
    wr16(r + 20, REL(PE_REL_BASED_HIGHLOW, T_DATA0 - DATA_VA));
    wr16(r + 22, REL(PE_REL_BASED_HIGHLOW, T_DATA1 - DATA_VA));
}

static uint8_t file[FILE_SIZE];
static struct pe_image pe;
static char err[BZIMAGE_ERR_LEN];

static int parse(void) { return pe_parse(&pe, file, sizeof(file), err, sizeof(err)); }

/* Guest RAM (checked fixture), dirty so the loader must zero what it owns. */
#define RAM_SIZE (8ULL << 20)
#define OTHER_BASE 0x500000ULL
#define LOW_BASE 0x10000ULL
static uint8_t *ram;
static struct guest_mem gm;

static void ram_setup_with(void (*build)(uint8_t *f))
{
    ram = malloc(RAM_SIZE);
    ck_assert_ptr_nonnull(ram);
    memset(ram, 0xaa, RAM_SIZE);
    guest_mem_init(&gm, ram, RAM_SIZE);
    build(file);
    ck_assert_msg(parse() == 0, "refused: %s", err);
}

static void ram_setup(void) { ram_setup_with(build_pe); }
static void ram_setup32(void) { ram_setup_with(build_pe32); }

static void ram_teardown(void)
{
    free(ram);
    ram = NULL;
}

static bool all_bytes(const uint8_t *p, uint8_t c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != c)
            return false;
    return true;
}

static int load(uint64_t base) { return pe_load(&pe, &gm, base, err, sizeof(err)); }

/* ---- accepted and loaded -------------------------------------------------- */

START_TEST(valid_pe_is_accepted_with_its_fields)
{
    ck_assert_uint_eq(pe.machine, is_pe32(file) ? PE_MACHINE_I386 : PE_MACHINE_X64);
    ck_assert_uint_eq(pe.subsystem, PE_SUBSYSTEM_EFI_APPLICATION);
    ck_assert_uint_eq(pe.image_base, IMAGE_BASE);
    ck_assert_uint_eq(pe.entry, ENTRY);
    ck_assert_uint_eq(pe.size_of_image, SIZE_OF_IMAGE);
    ck_assert_uint_eq(pe.size_of_headers, HEADERS_SIZE);
    ck_assert_uint_eq(pe.reloc_rva, RELOC_VA);
    ck_assert_uint_eq(pe.reloc_size, RELOC_SIZE);
    ck_assert_uint_eq(pe.nsections, 3);
    ck_assert_str_eq(pe.sections[2].name, ".reloc");
    ck_assert_uint_eq(pe.sections[0].characteristics, SCN_TEXT);
    ck_assert_uint_eq(pe_image_size(&pe), SIZE_OF_IMAGE);
}
END_TEST

START_TEST(load_at_image_base_maps_headers_sections_and_zeroes_bss)
{
    ck_assert_msg(load(IMAGE_BASE) == 0, "%s", err);
    const uint8_t *m = ram + IMAGE_BASE;
    ck_assert_mem_eq(m, file, HEADERS_SIZE);
    ck_assert(all_bytes(m + HEADERS_SIZE, 0, TEXT_VA - HEADERS_SIZE));
    ck_assert_mem_eq(m + TEXT_VA, file + TEXT_RAW, 0x200);
    ck_assert_mem_eq(m + DATA_VA, file + DATA_RAW, 0x200);
    ck_assert(all_bytes(m + DATA_VA + 0x200, 0, DATA_VSIZE - 0x200));          /* BSS */
    ck_assert(all_bytes(m + DATA_VA + DATA_VSIZE, 0, RELOC_VA - DATA_VA - DATA_VSIZE));
    ck_assert_mem_eq(m + RELOC_VA, file + RELOC_RAW, RELOC_SIZE);
    ck_assert(all_bytes(m + RELOC_VA + RELOC_SIZE, 0, SIZE_OF_IMAGE - RELOC_VA - RELOC_SIZE));
    ck_assert(all_bytes(m + SIZE_OF_IMAGE, 0xaa, 0x1000));
    ck_assert(all_bytes(m - 0x1000, 0xaa, 0x1000));
}
END_TEST

/* Loaded at base, the image differs from its ImageBase mapping exactly at
 * the relocation targets, each moved by the delta. */
static void check_relocated(uint64_t base)
{
    ck_assert_msg(load(IMAGE_BASE) == 0, "%s", err);
    uint8_t *ref = malloc(SIZE_OF_IMAGE);
    ck_assert_ptr_nonnull(ref);
    memcpy(ref, ram + IMAGE_BASE, SIZE_OF_IMAGE);
    ck_assert_msg(load(base) == 0, "%s", err);
    const uint8_t *m = ram + base;
    uint64_t delta = base - IMAGE_BASE;
    ck_assert_uint_eq(rd64(m + T_TEXT), IMAGE_BASE + DATA_VA + delta);
    ck_assert_uint_eq(rd64(m + T_DATA0), IMAGE_BASE + TEXT_VA + delta);
    ck_assert_uint_eq(rd64(m + T_DATA1), IMAGE_BASE + DATA_VA + 0x100 + delta);
    ck_assert_uint_eq(rd32(m + T_HIGHLOW), (uint32_t)(IMAGE_BASE + 0x1234 + delta));
    ck_assert_uint_eq(rd64(m + T_PLAIN), PLAIN_VALUE);
    static const struct { uint32_t rva, len; } moved[] = {
        { T_TEXT, 8 }, { T_DATA0, 8 }, { T_DATA1, 8 }, { T_HIGHLOW, 4 },
    };
    for (uint32_t i = 0; i < SIZE_OF_IMAGE; i++) {
        bool target = false;
        for (size_t k = 0; k < sizeof(moved) / sizeof(moved[0]); k++)
            target |= i >= moved[k].rva && i < moved[k].rva + moved[k].len;
        if (!target)
            ck_assert_msg(m[i] == ref[i], "RVA 0x%x changed by the move", i);
    }
    free(ref);
}

START_TEST(load_elsewhere_moves_relocated_qwords_by_the_delta)
{
    check_relocated(OTHER_BASE);
}
END_TEST

START_TEST(load_below_image_base_applies_a_negative_delta)
{
    check_relocated(LOW_BASE);
}
END_TEST

/* arch/x86/boot/tools/build.c (6.1): a .reloc of one block, SizeOfBlock
 * 10, holding one ABSOLUTE entry, so that firmware finds a .reloc. Applied
 * at any delta it changes nothing. */
START_TEST(kernel_style_empty_reloc_block_changes_nothing)
{
    uint8_t *r = file + RELOC_RAW;
    memset(r, 0, 0x200);
    wr32(r, RELOC_VA + 10);
    wr32(r + 4, 10);
    reloc_dir(file, RELOC_VA, 10);
    ck_assert_msg(parse() == 0, "refused: %s", err);
    ck_assert_msg(load(IMAGE_BASE) == 0, "%s", err);
    ck_assert_msg(load(OTHER_BASE) == 0, "%s", err);
    ck_assert_mem_eq(ram + OTHER_BASE, ram + IMAGE_BASE, SIZE_OF_IMAGE);
}
END_TEST

START_TEST(image_without_relocations_loads_anywhere_unchanged)
{
    reloc_dir(file, 0, 0);
    ck_assert_msg(parse() == 0, "refused: %s", err);
    ck_assert_int_eq(load(IMAGE_BASE), 0);
    ck_assert_int_eq(load(OTHER_BASE), 0);
    ck_assert_mem_eq(ram + OTHER_BASE, ram + IMAGE_BASE, SIZE_OF_IMAGE);
}
END_TEST

START_TEST(relocs_stripped_image_loads_only_at_image_base)
{
    wr16(file + COFF_OFF + 18, 0x207);
    ck_assert_int_eq(parse(), 0);
    ck_assert_int_eq(load(IMAGE_BASE), 0);
    ck_assert_int_eq(load(OTHER_BASE), -1);
    ck_assert_ptr_nonnull(strstr(err, "RELOCS_STRIPPED"));
    ck_assert(all_bytes(ram + OTHER_BASE, 0xaa, SIZE_OF_IMAGE));
}
END_TEST

START_TEST(load_where_it_does_not_fit_writes_nothing)
{
    ck_assert_int_eq(load(RAM_SIZE - 0x4000), -1);
    ck_assert_ptr_nonnull(strstr(err, "outside guest RAM"));
    ck_assert(all_bytes(ram + RAM_SIZE - 0x4000, 0xaa, 0x4000));
    ck_assert_int_eq(load(0xfffffffffffff000ULL), -1);
}
END_TEST

/* A PE32 image's 32-bit code reaches no byte past 4 GiB: pe_load refuses
 * a base that puts any of it there, before it looks at guest RAM. */
START_TEST(pe32_loads_only_below_4_gib)
{
    ck_assert_int_eq(load(0x100000000ULL), -1);
    ck_assert_ptr_nonnull(strstr(err, "past 4 GiB"));
    ck_assert_int_eq(load(0x100000000ULL - 0x4000), -1);
    ck_assert_ptr_nonnull(strstr(err, "past 4 GiB"));
    ck_assert_msg(load(RAM_SIZE - SIZE_OF_IMAGE) == 0, "%s", err);
}
END_TEST

START_TEST(writable_executable_section_is_accepted_without_nx_compat)
{
    section(file, 0, ".text", TEXT_VA, 0x200, TEXT_RAW, 0x200, SCN_TEXT | PE_SCN_MEM_WRITE);
    ck_assert_int_eq(parse(), -1);
    wr16(file + OPT_OFF + 70, 0);
    ck_assert_msg(parse() == 0, "refused: %s", err);
}
END_TEST

START_TEST(certificate_table_is_a_file_offset_not_an_rva)
{
    wr32(file + dir_off(file, 4), FILE_SIZE + 0x10000);
    wr32(file + dir_off(file, 4) + 4, 0x800);
    ck_assert_msg(parse() == 0, "refused: %s", err);
}
END_TEST

/* ---- refused images: each error names the field --------------------------- */

struct variant {
    const char *what;
    void (*mutate)(uint8_t *f);
    const char *field;   /* must appear in the message */
};

#define RELOC(p) (f + RELOC_RAW + (p))
#define MUTATOR(name, body) static void name(uint8_t *f) { body; }
MUTATOR(m_machine, wr16(f + COFF_OFF, 0xaa64))
MUTATOR(m_subsystem, wr16(f + OPT_OFF + 68, 3))
MUTATOR(m_subsystem_rom, wr16(f + OPT_OFF + 68, 13))
MUTATOR(m_image_base_unaligned, wr64(f + OPT_OFF + 24, IMAGE_BASE + 0x800))
MUTATOR(m_image_base_wraps, wr64(f + OPT_OFF + 24, 0xfffffffffffff000ULL))
MUTATOR(m_ndirs_many, wr32(f + OPT_OFF + 108, 17))
MUTATOR(m_ndirs_past_opt, wr16(f + COFF_OFF + 16, 200))
MUTATOR(m_table_past_headers, wr32(f + OPT_OFF + 60, sect_off(f) + 2 * 40))
MUTATOR(m_debug_dir_outside, wr32(f + dir_off(f, 6), SIZE_OF_IMAGE - 4); wr32(f + dir_off(f, 6) + 4, 0x1c))
MUTATOR(m_reloc_dir_outside, reloc_dir(f, SIZE_OF_IMAGE - 8, RELOC_SIZE))
MUTATOR(m_reloc_dir_in_bss, reloc_dir(f, DATA_VA + 0x400, RELOC_SIZE))
MUTATOR(m_reloc_dir_past_raw, reloc_dir(f, RELOC_VA, 0x300))
MUTATOR(m_entry_in_data, wr32(f + OPT_OFF + 16, DATA_VA + 0x20))
MUTATOR(m_text_wx, section(f, 0, ".text", TEXT_VA, 0x200, TEXT_RAW, 0x200, SCN_TEXT | PE_SCN_MEM_WRITE))
MUTATOR(m_block_small, wr32(RELOC(4), 4))
MUTATOR(m_block_zero, wr32(RELOC(4), 0))
MUTATOR(m_block_past_dir, wr32(RELOC(16), 20))
MUTATOR(m_block_odd, wr32(RELOC(4), 11))
MUTATOR(m_dir_tail, reloc_dir(f, RELOC_VA, RELOC_SIZE + 4))
MUTATOR(m_page_outside, wr32(RELOC(12), SIZE_OF_IMAGE))
MUTATOR(m_target_straddles_end, wr32(RELOC(12), SIZE_OF_IMAGE - 0x1000); wr16(RELOC(20), REL(PE_REL_BASED_DIR64, 0xffc)))
MUTATOR(m_page_wraps, wr32(RELOC(0), 0xfffff000u))
MUTATOR(m_type_high, wr16(RELOC(22), REL(1, 8)))
MUTATOR(m_type_riscv, wr16(RELOC(8), REL(5, 0x10)))
MUTATOR(m_type_unknown_in_padding, wr16(RELOC(26), REL(11, 0)))
MUTATOR(m_magic_pe32, wr16(f + OPT_OFF, 0x10b))
/* The PE32 image (built anew over the PE32+ one), broken. */
MUTATOR(m32_magic_pe32plus, build_pe32(f); wr16(f + OPT_OFF, 0x20b))
MUTATOR(m32_opt_too_small, build_pe32(f); wr16(f + COFF_OFF + 16, 92))
MUTATOR(m32_ndirs_many, build_pe32(f); wr32(f + OPT_OFF + 92, 17))
MUTATOR(m32_ndirs_past_opt, build_pe32(f); wr16(f + COFF_OFF + 16, 200))
MUTATOR(m32_image_base_unaligned, build_pe32(f); wr32(f + OPT_OFF + 28, (uint32_t)IMAGE_BASE + 0x800))
MUTATOR(m32_image_past_4gib, build_pe32(f); wr32(f + OPT_OFF + 28, 0xfffff000u))
MUTATOR(m32_debug_dir_outside, build_pe32(f); m_debug_dir_outside(f))
MUTATOR(m32_reloc_dir_outside, build_pe32(f); m_reloc_dir_outside(f))
MUTATOR(m32_table_past_headers, build_pe32(f); m_table_past_headers(f))
MUTATOR(m32_target_straddles_end, build_pe32(f); m_target_straddles_end(f))

static const struct variant variants[] = {
    { "ARM64 machine", m_machine, "PE: Machine 0xaa64 is not x86-64 (0x8664) or IA-32 (0x14c)" },
    { "Windows CUI subsystem", m_subsystem, "Subsystem 3" },
    { "EFI ROM subsystem", m_subsystem_rom, "Subsystem 13" },
    { "ImageBase not section-aligned", m_image_base_unaligned, "ImageBase" },
    { "ImageBase that wraps", m_image_base_wraps, "ImageBase" },
    { "17 data directories", m_ndirs_many, "NumberOfRvaAndSizes" },
    { "data directories past the optional header", m_ndirs_past_opt, "NumberOfRvaAndSizes" },
    { "third section header past SizeOfHeaders", m_table_past_headers, "runs past SizeOfHeaders" },
    { "debug directory past SizeOfImage", m_debug_dir_outside, "Debug" },
    { "relocation directory past SizeOfImage", m_reloc_dir_outside, "Base Relocation Table" },
    { "relocation directory in BSS", m_reloc_dir_in_bss, "Base Relocation Table" },
    { "relocation directory past the raw data", m_reloc_dir_past_raw, "Base Relocation Table" },
    { "entry point in a data section", m_entry_in_data, "MEM_EXECUTE" },
    { "W+X section in an NX_COMPAT image", m_text_wx, "writable and executable" },
    { "SizeOfBlock 4", m_block_small, "SizeOfBlock" },
    { "SizeOfBlock 0", m_block_zero, "SizeOfBlock" },
    { "SizeOfBlock past the directory", m_block_past_dir, "SizeOfBlock" },
    { "odd SizeOfBlock", m_block_odd, "SizeOfBlock" },
    { "4 stray bytes after the last block", m_dir_tail, "PageRVA and SizeOfBlock" },
    { "PageRVA at SizeOfImage", m_page_outside, "PageRVA" },
    { "DIR64 straddling SizeOfImage", m_target_straddles_end, "outside SizeOfImage" },
    { "PageRVA near 4 GiB", m_page_wraps, "PageRVA" },
    { "HIGH relocation", m_type_high, "Type 1" },
    { "RISC-V relocation", m_type_riscv, "Type 5" },
    { "unknown type where padding was", m_type_unknown_in_padding, "Type 11" },
    { "PE32 Magic on x86-64", m_magic_pe32, "Machine 0x8664 has optional header Magic 0x10b, not PE32+ (0x20b)" },
    /* The PE32 image: its own fields at its offsets, and a few of the above. */
    { "PE32+ Magic on IA-32", m32_magic_pe32plus, "Machine 0x14c has optional header Magic 0x20b, not PE32 (0x10b)" },
    { "PE32 SizeOfOptionalHeader below the data directories", m32_opt_too_small, "SizeOfOptionalHeader 92" },
    { "PE32 with 17 data directories", m32_ndirs_many, "NumberOfRvaAndSizes 17" },
    { "PE32 data directories past the optional header", m32_ndirs_past_opt, "NumberOfRvaAndSizes" },
    { "PE32 ImageBase not section-aligned", m32_image_base_unaligned, "ImageBase" },
    { "PE32 ImageBase 4 KiB below 4 GiB", m32_image_past_4gib, "runs past 4 GiB" },
    { "PE32 debug directory past SizeOfImage", m32_debug_dir_outside, "Debug" },
    { "PE32 relocation directory past SizeOfImage", m32_reloc_dir_outside, "Base Relocation Table" },
    { "PE32 third section header past SizeOfHeaders", m32_table_past_headers, "runs past SizeOfHeaders" },
    { "PE32 relocation straddling SizeOfImage", m32_target_straddles_end, "outside SizeOfImage" },
};
#define NVARIANTS ((int)(sizeof(variants) / sizeof(variants[0])))

START_TEST(malformed_pe_is_refused_naming_the_field)
{
    const struct variant *v = &variants[_i];
    build_pe(file);
    v->mutate(file);
    err[0] = 0;
    ck_assert_msg(parse() == -1, "%s: accepted", v->what);
    ck_assert_msg(strstr(err, v->field) != NULL, "%s: message \"%s\" does not name \"%s\"", v->what, err, v->field);
    ck_assert_msg(!strncmp(err, "PE: ", 4), "%s: message \"%s\" does not start with \"PE: \"", v->what, err);
}
END_TEST

/* Every prefix of the file: refused with a message, never read past its
 * end (each copy is exactly len bytes, so ASan sees any overrun). */
static void check_every_truncation(void (*build)(uint8_t *f))
{
    build(file);
    for (size_t len = 0; len < FILE_SIZE; len++) {
        uint8_t *copy = malloc(len ? len : 1);
        ck_assert_ptr_nonnull(copy);
        memcpy(copy, file, len);
        err[0] = 0;
        int rc = pe_parse(&pe, copy, len, err, sizeof(err));
        free(copy);
        ck_assert_msg(rc == -1, "a %zu-byte prefix was accepted", len);
        ck_assert_msg(!strncmp(err, "PE: ", 4), "a %zu-byte prefix: message \"%s\"", len, err);
    }
}

START_TEST(every_truncation_is_refused)
{
    check_every_truncation(build_pe);
    check_every_truncation(build_pe32);
}
END_TEST

/* ---- a real EFI stub header ------------------------------------------------ */

/* The synthetic payload as the build made it (its PE header is the one
 * header.S writes), kept as a fuzzing seed; the tests run from the top of
 * the tree. */
#define PAYLOAD_SEED "tests/fuzz/corpus/bzimage/payload.bzImage"

static uint8_t *read_file(const char *path, size_t *size)
{
    FILE *fp = fopen(path, "rb");
    ck_assert_msg(fp != NULL, "cannot open %s (run from the top of the tree)", path);
    uint8_t *buf = malloc(1 << 20);
    ck_assert_ptr_nonnull(buf);
    *size = fread(buf, 1, 1 << 20, fp);
    fclose(fp);
    return buf;
}

/* The mapping bzimage_load_pe made before pe.c (commit 803d574): zero
 * SizeOfImage rounded to pages, copy the headers, copy each section's raw
 * data up to VirtualSize. The kernel boots from it with golden traces
 * compared byte for byte, so pe_load must reproduce it exactly. */
static void map_as_before(const struct pe_image *p, uint8_t *dst)
{
    memset(dst, 0, pe_image_size(p));
    memcpy(dst, p->data, p->size_of_headers);
    for (unsigned i = 0; i < p->nsections; i++) {
        const struct pe_section *s = &p->sections[i];
        uint32_t n = s->raw_size < s->virtual_size || !s->virtual_size ? s->raw_size : s->virtual_size;
        memcpy(dst + s->virtual_address, p->data + s->raw_offset, n);
    }
}

START_TEST(payload_stub_maps_byte_for_byte_as_before_at_any_base)
{
    size_t size;
    uint8_t *img = read_file(PAYLOAD_SEED, &size);
    struct bzimage bz;
    int rc = bzimage_parse(&bz, img, size, err, sizeof(err));
    uint8_t *ref = malloc(RAM_SIZE);
    ck_assert_ptr_nonnull(ref);
    if (rc == 0 && bz.has_pe)
        map_as_before(&bz.pe, ref);
    bool fits = rc == 0 && bz.has_pe && bzimage_pe_image_size(&bz) <= 0x100000;
    bool same1 = fits && bzimage_load_pe(&bz, &gm, 0x100000) == 0 &&
                 !memcmp(ram + 0x100000, ref, bzimage_pe_image_size(&bz));
    bool same2 = fits && bzimage_load_pe(&bz, &gm, 0x200000) == 0 &&
                 !memcmp(ram + 0x200000, ref, bzimage_pe_image_size(&bz));
    free(ref);
    free(img);
    ck_assert_msg(rc == 0, "payload refused: %s", err);
    ck_assert(fits);
    ck_assert_msg(same1 && same2, "the payload's PE image differs from the old mapping");
}
END_TEST

/* ---- EFI applications (loader/efi_app.c) ----------------------------------- */

START_TEST(an_mz_file_without_a_setup_header_is_an_efi_application)
{
    build_pe(file);
    ck_assert_int_eq(image_kind(file, sizeof(file)), IMAGE_EFI_APP);
    ck_assert_int_eq(efi_app_parse(&pe, file, sizeof(file), err, sizeof(err)), 0);
    ck_assert_uint_eq(pe.entry, ENTRY);
    /* "HdrS" at 0x202, or boot_flag 0xAA55 at 0x1fe, makes it a bzImage,
     * whatever else it carries. */
    memcpy(file + 0x202, "HdrS", 4);
    ck_assert_int_eq(image_kind(file, sizeof(file)), IMAGE_BZIMAGE);
    build_pe(file);
    wr16(file + 0x1fe, 0xaa55);
    ck_assert_int_eq(image_kind(file, sizeof(file)), IMAGE_BZIMAGE);
    /* Both, with a setup header (protocol 2.05 or later) that says the
     * kernel cannot be relocated: the EFI application it also is, as
     * memtest86+; relocatable, a bzImage. */
    memcpy(file + 0x202, "HdrS", 4);
    wr16(file + 0x206, 0x20c);
    file[0x234] = 0;
    ck_assert_int_eq(image_kind(file, sizeof(file)), IMAGE_EFI_APP);
    file[0x234] = 1;
    ck_assert_int_eq(image_kind(file, sizeof(file)), IMAGE_BZIMAGE);
    file[0x234] = 0;
    wr16(file + OPT_OFF + 68, PE_SUBSYSTEM_EFI_BOOT_SERVICE_DRIVER);
    ck_assert_int_eq(image_kind(file, sizeof(file)), IMAGE_BZIMAGE);
    build_pe(file);
    /* Neither: a bzImage, so that bzimage_parse says what is wrong. */
    uint8_t junk[0x300] = { 0 };
    ck_assert_int_eq(image_kind(junk, sizeof(junk)), IMAGE_BZIMAGE);
    ck_assert_int_eq(image_kind(junk, 0), IMAGE_BZIMAGE);
    /* Too short for a setup header: a truncated bzImage as much as
     * anything, which bzimage_parse reports as such. Past it, a cut
     * application is one, and pe_parse names what is missing. */
    build_pe(file);
    ck_assert_int_eq(image_kind(file, 0x205), IMAGE_BZIMAGE);
    ck_assert_int_eq(image_kind(file, 0x206), IMAGE_EFI_APP);
    ck_assert_int_eq(efi_app_parse(&pe, file, 0x206, err, sizeof(err)), -1);
    ck_assert_msg(!strncmp(err, "PE: ", 4), "message \"%s\"", err);
    /* The synthetic payload, a bzImage with an EFI stub PE header. */
    size_t size;
    uint8_t *img = read_file(PAYLOAD_SEED, &size);
    enum image_kind k = image_kind(img, size);
    free(img);
    ck_assert_int_eq(k, IMAGE_BZIMAGE);
}
END_TEST

/* An IA-32 application (PE32) is an application too, alone or with a
 * setup header that cannot be relocated (memtest86+ia32.efi); its machine
 * tells the caller which firmware runs it. */
START_TEST(an_ia32_pe32_file_is_an_efi_application_of_its_machine)
{
    build_pe32(file);
    ck_assert_int_eq(image_kind(file, sizeof(file)), IMAGE_EFI_APP);
    ck_assert_msg(efi_app_parse(&pe, file, sizeof(file), err, sizeof(err)) == 0, "%s", err);
    ck_assert_uint_eq(pe.machine, PE_MACHINE_I386);
    memcpy(file + 0x202, "HdrS", 4);
    wr16(file + 0x206, 0x20c);
    file[0x234] = 0;
    ck_assert_int_eq(image_kind(file, sizeof(file)), IMAGE_EFI_APP);
}
END_TEST

START_TEST(efi_drivers_are_refused_as_applications_naming_the_subsystem)
{
    build_pe(file);
    wr16(file + OPT_OFF + 68, PE_SUBSYSTEM_EFI_BOOT_SERVICE_DRIVER);
    ck_assert_int_eq(efi_app_parse(&pe, file, sizeof(file), err, sizeof(err)), -1);
    ck_assert_str_eq(err, "PE: Subsystem 11 is an EFI boot service driver, not an application (10): a boot manager "
                          "starts only applications");
    wr16(file + OPT_OFF + 68, PE_SUBSYSTEM_EFI_RUNTIME_DRIVER);
    ck_assert_int_eq(efi_app_parse(&pe, file, sizeof(file), err, sizeof(err)), -1);
    ck_assert_msg(strstr(err, "Subsystem 12 is an EFI runtime driver"), "message \"%s\"", err);
    wr16(file + OPT_OFF + 68, 3);   /* a Windows console program */
    ck_assert_int_eq(efi_app_parse(&pe, file, sizeof(file), err, sizeof(err)), -1);
    ck_assert_msg(strstr(err, "Subsystem 3 "), "message \"%s\"", err);
}
END_TEST

/* ---- .compat: a mixed-mode kernel's IA-32 entry ---------------------------- */

#define COMPAT_ENTRY (TEXT_VA + 0x40)

/* The synthetic image with a .compat section in .reloc's place (and no
 * relocations): VirtualSize vsize, 0x200 bytes in the file, the first n
 * of them entries, the rest zero. */
static void build_compat(const uint8_t *entries, size_t n, uint32_t vsize)
{
    build_pe(file);
    reloc_dir(file, 0, 0);
    section(file, 2, ".compat", RELOC_VA, vsize, RELOC_RAW, 0x200, SCN_RELOC);
    memset(file + RELOC_RAW, 0, 0x200);
    memcpy(file + RELOC_RAW, entries, n);
    ck_assert_msg(parse() == 0, "refused: %s", err);
}

/* header.S's entry: Version 1, Size 8, IMAGE_FILE_MACHINE_I386, the RVA. */
#define I386_ENTRY(rva) 1, 8, 0x4c, 0x01, (rva) & 0xff, ((rva) >> 8) & 0xff, ((rva) >> 16) & 0xff, (rva) >> 24

START_TEST(kernel_style_compat_lists_the_ia32_entry)
{
    const uint8_t e[] = { I386_ENTRY(COMPAT_ENTRY), 0 };
    build_compat(e, sizeof(e), 0x200);
    uint32_t rva = 0;
    ck_assert_msg(pe_compat_entry(&pe, PE_MACHINE_I386, &rva, err, sizeof(err)) == 0, "%s", err);
    ck_assert_uint_eq(rva, COMPAT_ENTRY);
}
END_TEST

START_TEST(compat_skips_other_machines_and_unknown_types)
{
    const uint8_t e[] = { 1, 8, 0x64, 0xaa, 0, 0x10, 0, 0,   /* AArch64 */
                          7, 4, 0xff, 0xff,                  /* a later type, skipped by its size */
                          I386_ENTRY(COMPAT_ENTRY + 4), 0 };
    build_compat(e, sizeof(e), 0x200);
    uint32_t rva = 0;
    ck_assert_msg(pe_compat_entry(&pe, PE_MACHINE_I386, &rva, err, sizeof(err)) == 0, "%s", err);
    ck_assert_uint_eq(rva, COMPAT_ENTRY + 4);
}
END_TEST

START_TEST(image_without_compat_is_refused_naming_the_section)
{
    build_pe(file);
    ck_assert_msg(parse() == 0, "refused: %s", err);
    uint32_t rva = 0;
    ck_assert_int_eq(pe_compat_entry(&pe, PE_MACHINE_I386, &rva, err, sizeof(err)), -1);
    ck_assert_msg(strstr(err, "PE: no .compat section"), "message \"%s\"", err);
}
END_TEST

static const struct compat_variant {
    const char *what;
    uint8_t bytes[16];
    size_t n;
    uint32_t vsize;      /* the section's VirtualSize */
    const char *field;   /* what the message must say */
} compat_variants[] = {
    { "no IA-32 entry", { 1, 8, 0x64, 0xaa, 0, 0x10, 0, 0 }, 8, 0x200, "lists no entry for machine 0x14c" },
    { "empty section", { 0 }, 1, 0x200, "lists no entry for machine 0x14c" },
    { "size 0", { 1, 0 }, 2, 0x200, "size 0 is below 2" },
    { "size 1", { 5, 1 }, 2, 0x200, "size 1 is below 2" },
    { "entry of 4 bytes", { 1, 4, 0x4c, 0x01 }, 4, 0x200, "an entry point needs 8" },
    { "entry past VirtualSize", { I386_ENTRY(COMPAT_ENTRY) }, 8, 6, "runs past the section's 0x6 bytes" },
    { "size byte past VirtualSize", { I386_ENTRY(COMPAT_ENTRY) }, 8, 1, "size byte is past" },
    { "entry in .data", { I386_ENTRY(DATA_VA) }, 8, 0x200, "RVA 0x2000 is not in an executable section" },
    { "entry past SizeOfImage", { I386_ENTRY(0xfffffff0u) }, 8, 0x200, "not in an executable section" },
};
#define NCOMPAT ((int)(sizeof(compat_variants) / sizeof(compat_variants[0])))

START_TEST(malformed_compat_is_refused_naming_the_fault)
{
    const struct compat_variant *v = &compat_variants[_i];
    build_compat(v->bytes, v->n, v->vsize);
    uint32_t rva = 0x1234;
    err[0] = 0;
    ck_assert_msg(pe_compat_entry(&pe, PE_MACHINE_I386, &rva, err, sizeof(err)) == -1, "%s: accepted", v->what);
    ck_assert_msg(strstr(err, v->field) != NULL, "%s: message \"%s\" does not say \"%s\"", v->what, err, v->field);
    ck_assert_uint_eq(rva, 0x1234);
}
END_TEST

/* A section whose every byte is an entry's size: each walk ends inside
 * the section (ASan sees an overrun of the file copy). */
START_TEST(compat_of_any_bytes_stays_in_the_section)
{
    uint8_t e[32];
    for (unsigned seed = 0; seed < 256; seed++) {
        for (size_t i = 0; i < sizeof(e); i++)
            e[i] = (uint8_t)(seed * 31 + i * 7);
        build_compat(e, sizeof(e), sizeof(e));
        uint32_t rva;
        if (pe_compat_entry(&pe, PE_MACHINE_I386, &rva, err, sizeof(err)) == 0)
            ck_assert_uint_lt(rva, SIZE_OF_IMAGE);
    }
}
END_TEST

Suite *pe_suite(void)
{
    Suite *s = suite_create("pe");
    TCase *load_tc = tcase_create("load");
    tcase_add_checked_fixture(load_tc, ram_setup, ram_teardown);
    tcase_add_test(load_tc, valid_pe_is_accepted_with_its_fields);
    tcase_add_test(load_tc, load_at_image_base_maps_headers_sections_and_zeroes_bss);
    tcase_add_test(load_tc, load_elsewhere_moves_relocated_qwords_by_the_delta);
    tcase_add_test(load_tc, load_below_image_base_applies_a_negative_delta);
    tcase_add_test(load_tc, kernel_style_empty_reloc_block_changes_nothing);
    tcase_add_test(load_tc, image_without_relocations_loads_anywhere_unchanged);
    tcase_add_test(load_tc, relocs_stripped_image_loads_only_at_image_base);
    tcase_add_test(load_tc, load_where_it_does_not_fit_writes_nothing);
    tcase_add_test(load_tc, writable_executable_section_is_accepted_without_nx_compat);
    tcase_add_test(load_tc, certificate_table_is_a_file_offset_not_an_rva);
    tcase_add_test(load_tc, payload_stub_maps_byte_for_byte_as_before_at_any_base);
    suite_add_tcase(s, load_tc);

    /* The same tests on the PE32 image, and its own. */
    TCase *pe32 = tcase_create("pe32");
    tcase_add_checked_fixture(pe32, ram_setup32, ram_teardown);
    tcase_add_test(pe32, valid_pe_is_accepted_with_its_fields);
    tcase_add_test(pe32, load_at_image_base_maps_headers_sections_and_zeroes_bss);
    tcase_add_test(pe32, load_elsewhere_moves_relocated_qwords_by_the_delta);
    tcase_add_test(pe32, load_below_image_base_applies_a_negative_delta);
    tcase_add_test(pe32, kernel_style_empty_reloc_block_changes_nothing);
    tcase_add_test(pe32, image_without_relocations_loads_anywhere_unchanged);
    tcase_add_test(pe32, relocs_stripped_image_loads_only_at_image_base);
    tcase_add_test(pe32, load_where_it_does_not_fit_writes_nothing);
    tcase_add_test(pe32, writable_executable_section_is_accepted_without_nx_compat);
    tcase_add_test(pe32, certificate_table_is_a_file_offset_not_an_rva);
    tcase_add_test(pe32, pe32_loads_only_below_4_gib);
    suite_add_tcase(s, pe32);

    TCase *app = tcase_create("efi-app");
    tcase_add_test(app, an_mz_file_without_a_setup_header_is_an_efi_application);
    tcase_add_test(app, efi_drivers_are_refused_as_applications_naming_the_subsystem);
    tcase_add_test(app, an_ia32_pe32_file_is_an_efi_application_of_its_machine);
    suite_add_tcase(s, app);

    TCase *bad = tcase_create("refused");
    tcase_add_loop_test(bad, malformed_pe_is_refused_naming_the_field, 0, NVARIANTS);
    tcase_add_test(bad, every_truncation_is_refused);
    suite_add_tcase(s, bad);

    TCase *compat = tcase_create("compat");
    tcase_add_test(compat, kernel_style_compat_lists_the_ia32_entry);
    tcase_add_test(compat, compat_skips_other_machines_and_unknown_types);
    tcase_add_test(compat, image_without_compat_is_refused_naming_the_section);
    tcase_add_loop_test(compat, malformed_compat_is_refused_naming_the_fault, 0, NCOMPAT);
    tcase_add_test(compat, compat_of_any_bytes_stays_in_the_section);
    suite_add_tcase(s, compat);
    return s;
}
