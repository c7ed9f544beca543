/* loader/bzimage.c: a synthetic bzImage (setup header as in boot.rst,
 * protocol 2.15, an optional MZ/PE32+ header as the EFI stub's header.S
 * lays it out) accepted, then broken one field at a time; loading it flat
 * and as a PE image; building the zero page. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "../../loader/bzimage.h"
#include "../../loader/place.h"
#include "../../guest/layout.h"

/* ---- a synthetic image ---------------------------------------------------- */

#define SETUP_SECTS    3
#define SETUP_SIZE     ((SETUP_SECTS + 1) * 512)      /* 0x800 */
#define PM_SIZE        0x3000
#define IMG_SIZE       (SETUP_SIZE + PM_SIZE)
#define INIT_SIZE      0x10000
#define HANDOVER       0x190
#define VERSION_OFF    0x300                          /* kernel_version string */
#define VERSION_STR    "6.1.0-unit (test@handover) #1"

#define PE_OFF         0x40
#define COFF_OFF       (PE_OFF + 4)
#define OPT_OFF        (COFF_OFF + 20)
#define OPT_SIZE       240                            /* PE32+ with 16 data directories */
#define SECT_OFF       (OPT_OFF + OPT_SIZE)
#define TEXT_VA        0x1000
#define BSS_VA         0x4000
#define BSS_SIZE       0x2000
#define SIZE_OF_IMAGE  0x6000
#define PE_ENTRY       (TEXT_VA + 0x400)

static void wr16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
static void wr32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }

static struct setup_header *hdr_of(uint8_t *img) { return (struct setup_header *)(img + SETUP_HEADER_OFFSET); }

static uint8_t pm_byte(size_t i) { return (uint8_t)(i * 7 + 3); }

/* Section Characteristics as header.S gives them. */
#define SCN_TEXT 0x60000020u   /* CNT_CODE | MEM_READ | MEM_EXECUTE */
#define SCN_BSS  0xc0000080u   /* CNT_UNINITIALIZED_DATA | MEM_READ | MEM_WRITE */

static void pe_section(uint8_t *img, unsigned i, const char *name, uint32_t va, uint32_t vsize,
                       uint32_t raw, uint32_t rawsize, uint32_t flags)
{
    uint8_t *s = img + SECT_OFF + 40 * i;
    memset(s, 0, 40);
    memcpy(s, name, strlen(name));
    wr32(s + 8, vsize);
    wr32(s + 12, va);
    wr32(s + 16, rawsize);
    wr32(s + 20, raw);
    wr32(s + 36, flags);
}

/* MZ stub, "PE\0\0", COFF header, PE32+ optional header, .text over the
 * protected-mode part of the file and a .bss with no raw data. */
static void add_pe(uint8_t *img)
{
    img[0] = 'M';
    img[1] = 'Z';
    wr32(img + 0x3c, PE_OFF);
    memcpy(img + PE_OFF, "PE\0\0", 4);
    uint8_t *coff = img + COFF_OFF;
    wr16(coff, 0x8664);                 /* Machine */
    wr16(coff + 2, 2);                  /* NumberOfSections */
    wr16(coff + 16, OPT_SIZE);          /* SizeOfOptionalHeader */
    wr16(coff + 18, 0x206);             /* Characteristics */
    uint8_t *o = img + OPT_OFF;
    wr16(o, 0x20b);                     /* Magic: PE32+ */
    wr32(o + 16, PE_ENTRY);             /* AddressOfEntryPoint */
    wr32(o + 20, TEXT_VA);              /* BaseOfCode */
    wr32(o + 32, 0x1000);               /* SectionAlignment */
    wr32(o + 36, 0x200);                /* FileAlignment */
    wr32(o + 56, SIZE_OF_IMAGE);        /* SizeOfImage */
    wr32(o + 60, SETUP_SIZE);           /* SizeOfHeaders */
    wr16(o + 68, 10);                   /* Subsystem: EFI application */
    wr32(o + 108, 16);                  /* NumberOfRvaAndSizes */
    pe_section(img, 0, ".text", TEXT_VA, PM_SIZE, SETUP_SIZE, PM_SIZE, SCN_TEXT);
    pe_section(img, 1, ".bss", BSS_VA, BSS_SIZE, 0, 0, SCN_BSS);
}

/* A valid protocol-2.15 image: 64-bit, EFI handover, relocatable. */
static void build_image(uint8_t *img, bool with_pe)
{
    memset(img, 0, IMG_SIZE);
    struct setup_header h = {
        .setup_sects = SETUP_SECTS,
        .syssize = PM_SIZE / 16,
        .vid_mode = 0xffff,
        .boot_flag = BOOT_FLAG_MAGIC,
        .jump = 0x6aeb,                 /* jmp 0x26c: the header ends there */
        .header = SETUP_HDRS_MAGIC,
        .version = 0x020f,
        .kernel_version = VERSION_OFF - 0x200,
        .loadflags = LOADED_HIGH | CAN_USE_HEAP,
        .code32_start = 0x100000,
        .heap_end_ptr = 0x5000,
        .initrd_addr_max = 0x7fffffff,
        .kernel_alignment = 0x200000,
        .relocatable_kernel = 1,
        .min_alignment = 21,
        .xloadflags = XLF_KERNEL_64 | XLF_CAN_BE_LOADED_ABOVE_4G | XLF_EFI_HANDOVER_64,
        .cmdline_size = 2047,
        .pref_address = 0x1000000,
        .init_size = INIT_SIZE,
        .handover_offset = HANDOVER,
    };
    memcpy(img + SETUP_HEADER_OFFSET, &h, sizeof(h));
    memcpy(img + VERSION_OFF, VERSION_STR, sizeof(VERSION_STR));
    for (size_t i = 0; i < PM_SIZE; i++)
        img[SETUP_SIZE + i] = pm_byte(i);
    if (with_pe)
        add_pe(img);
}

static uint8_t image[IMG_SIZE];
static struct bzimage bz;
static char err[BZIMAGE_ERR_LEN];

static int parse(void) { return bzimage_parse(&bz, image, sizeof(image), err, sizeof(err)); }

/* Guest RAM for the load and boot_params tests (checked fixture). */
#define RAM_SIZE (32ULL << 20)
#define LOAD_ADDR 0x1000000ULL
static uint8_t *ram;
static struct guest_mem gm;

static void ram_setup(void)
{
    ram = malloc(RAM_SIZE);
    ck_assert_ptr_nonnull(ram);
    memset(ram, 0xaa, RAM_SIZE);   /* dirty: loaders must zero what they own */
    guest_mem_init(&gm, ram, RAM_SIZE);
    build_image(image, true);
    ck_assert_int_eq(parse(), 0);
}

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

/* ---- accepted images ------------------------------------------------------ */

START_TEST(valid_image_with_pe_header_is_accepted)
{
    build_image(image, true);
    ck_assert_msg(parse() == 0, "refused: %s", err);
    ck_assert(bz.has_pe);
    ck_assert_uint_eq(bz.setup_size, SETUP_SIZE);
    ck_assert_uint_eq(bz.pm_size, PM_SIZE);
    ck_assert_uint_eq(bz.hdr.version, 0x020f);
    ck_assert_uint_eq(bz.hdr.handover_offset, HANDOVER);
    ck_assert_uint_eq(bz.pe.entry, PE_ENTRY);
    ck_assert_uint_eq(bz.pe.size_of_image, SIZE_OF_IMAGE);
    ck_assert_uint_eq(bz.pe.size_of_headers, SETUP_SIZE);
    ck_assert_uint_eq(bz.pe.nsections, 2);
    ck_assert_str_eq(bz.pe.sections[0].name, ".text");
    ck_assert_str_eq(bz.pe.sections[1].name, ".bss");
    ck_assert_uint_eq(bz.pe.sections[1].virtual_size, BSS_SIZE);
    ck_assert_str_eq(bz.kernel_version, VERSION_STR);
    ck_assert_int_eq(bzimage_check_entry(&bz, ENTRY_PE, err, sizeof(err)), 0);
    ck_assert_int_eq(bzimage_check_entry(&bz, ENTRY_HANDOVER, err, sizeof(err)), 0);
}
END_TEST

START_TEST(image_without_pe_header_offers_only_the_handover_entry)
{
    build_image(image, false);
    ck_assert_msg(parse() == 0, "refused: %s", err);
    ck_assert(!bz.has_pe);
    ck_assert_int_eq(bzimage_check_entry(&bz, ENTRY_HANDOVER, err, sizeof(err)), 0);
    ck_assert_int_eq(bzimage_check_entry(&bz, ENTRY_PE, err, sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, "PE"));
}
END_TEST

/* Neither 64-bit entry: each refusal says so, and points at no other
 * entry, or at --entry, as a way out. */
START_TEST(image_with_neither_entry_points_at_no_other)
{
    build_image(image, false);
    hdr_of(image)->xloadflags &= (uint16_t)~XLF_EFI_HANDOVER_64;
    ck_assert_msg(parse() == 0, "refused: %s", err);
    ck_assert_int_eq(bzimage_check_entry(&bz, ENTRY_HANDOVER, err, sizeof(err)), -1);
    ck_assert_msg(!strstr(err, "boots through the PE entry"), "%s", err);
    ck_assert_msg(strstr(err, "no PE entry either"), "%s", err);
    ck_assert_int_eq(bzimage_check_entry(&bz, ENTRY_PE, err, sizeof(err)), -1);
    ck_assert_msg(!strstr(err, "try --entry handover"), "%s", err);
    ck_assert_msg(strstr(err, "no handover entry either"), "%s", err);
}
END_TEST

START_TEST(setup_sects_zero_means_four)
{
    build_image(image, false);
    hdr_of(image)->setup_sects = 0;
    hdr_of(image)->syssize = (IMG_SIZE - 5 * 512) / 16;
    ck_assert_msg(parse() == 0, "refused: %s", err);
    ck_assert_uint_eq(bz.setup_size, 5 * 512);
    ck_assert_uint_eq(bz.pm_size, IMG_SIZE - 5 * 512);
}
END_TEST

START_TEST(kernel_version_pointer_outside_setup_gives_empty_string)
{
    build_image(image, true);
    hdr_of(image)->kernel_version = SETUP_SIZE;   /* + 0x200: past the setup code */
    ck_assert_int_eq(parse(), 0);
    ck_assert_str_eq(bz.kernel_version, "");
}
END_TEST

START_TEST(load_size_is_init_size_rounded_to_pages_and_at_least_the_file)
{
    build_image(image, false);
    hdr_of(image)->init_size = INIT_SIZE + 1;
    ck_assert_int_eq(parse(), 0);
    ck_assert_uint_eq(bzimage_load_size(&bz), INIT_SIZE + 0x1000);
    hdr_of(image)->init_size = 0;   /* unknown: the protected-mode part */
    ck_assert_int_eq(parse(), 0);
    ck_assert_uint_eq(bzimage_load_size(&bz), PM_SIZE);
}
END_TEST

/* ---- refused images: each error names the field --------------------------- */

enum stage { AT_PARSE, AT_HANDOVER_ENTRY, AT_PE_ENTRY };

struct variant {
    const char *what;
    void (*mutate)(uint8_t *img);
    const char *field;   /* must appear in the message */
    enum stage stage;
};

#define MUTATOR(name, body) static void name(uint8_t *img) { struct setup_header *h = hdr_of(img); (void)h; body; }
MUTATOR(m_boot_flag, h->boot_flag = 0)
MUTATOR(m_header, h->header = 0x53726449)
MUTATOR(m_version, h->version = 0x0209)
MUTATOR(m_jump_short, img[0x201] = 0x40)
MUTATOR(m_setup_sects, h->setup_sects = 0xff)
MUTATOR(m_syssize_zero, h->syssize = 0)
MUTATOR(m_syssize_big, h->syssize = PM_SIZE / 16 + 1)
MUTATOR(m_loadflags, h->loadflags = 0)
MUTATOR(m_xlf_kernel64, h->xloadflags &= (uint16_t)~XLF_KERNEL_64)
MUTATOR(m_align_not_pow2, h->kernel_alignment = 0x300000)
MUTATOR(m_align_small, h->kernel_alignment = 0x800)
MUTATOR(m_pref_address, h->pref_address = 0x1000800)
MUTATOR(m_init_size_small, h->init_size = 0x100)
MUTATOR(m_init_size_huge, h->init_size = 0x80000000u)
MUTATOR(m_cmdline_size, h->cmdline_size = 0)
MUTATOR(m_initrd_addr_max, h->initrd_addr_max = 0xfffff)
MUTATOR(m_lfanew, wr32(img + 0x3c, IMG_SIZE - 8))
MUTATOR(m_pe_signature, img[PE_OFF + 1] = 'X')
MUTATOR(m_machine, wr16(img + COFF_OFF, 0x14c))
/* A whole PE32 header (Magic 0x10b, NumberOfRvaAndSizes at 92; the data
 * directories at 96 end before the section table at 240). */
MUTATOR(m_pe32, wr16(img + COFF_OFF, 0x14c); wr16(img + OPT_OFF, 0x10b); wr32(img + OPT_OFF + 92, 16))
MUTATOR(m_optsize, wr16(img + COFF_OFF + 16, 64))
MUTATOR(m_magic, wr16(img + OPT_OFF, 0x10b))
MUTATOR(m_section_alignment, wr32(img + OPT_OFF + 32, 0x1800))
MUTATOR(m_size_of_image_zero, wr32(img + OPT_OFF + 56, 0))
MUTATOR(m_size_of_image_huge, wr32(img + OPT_OFF + 56, 0x80000000u))
MUTATOR(m_size_of_headers, wr32(img + OPT_OFF + 60, SIZE_OF_IMAGE + 0x1000))
MUTATOR(m_entry_zero, wr32(img + OPT_OFF + 16, 0))
MUTATOR(m_entry_past_image, wr32(img + OPT_OFF + 16, SIZE_OF_IMAGE))
MUTATOR(m_entry_in_no_section, wr32(img + OPT_OFF + 16, 0x800))
MUTATOR(m_nsections_zero, wr16(img + COFF_OFF + 2, 0))
MUTATOR(m_nsections_many, wr16(img + COFF_OFF + 2, PE_MAX_SECTIONS + 1))
/* An optional header reaching to 40 bytes before the end: no room for 2 sections. */
MUTATOR(m_section_table_past_end, wr16(img + COFF_OFF + 16, IMG_SIZE - OPT_OFF - 40))
MUTATOR(m_section_raw_outside, pe_section(img, 0, ".text", TEXT_VA, PM_SIZE, 0x1000, PM_SIZE, SCN_TEXT))
MUTATOR(m_section_raw_wraps, pe_section(img, 0, ".text", TEXT_VA, PM_SIZE, 0xfffff000u, 0x2000, SCN_TEXT))
MUTATOR(m_section_past_image, pe_section(img, 1, ".bss", BSS_VA, BSS_SIZE + 0x1000, 0, 0, SCN_BSS))
MUTATOR(m_pref_address_wraps, h->pref_address = 0xfffffffffffff000ull)
MUTATOR(m_sections_overlap, pe_section(img, 1, ".bss", TEXT_VA + 0x1000, BSS_SIZE, 0, 0, SCN_BSS))
MUTATOR(m_section_over_headers, wr32(img + OPT_OFF + 60, TEXT_VA + 0x200))
MUTATOR(m_xlf_handover64, h->xloadflags &= (uint16_t)~XLF_EFI_HANDOVER_64)
MUTATOR(m_handover_offset, h->handover_offset = PM_SIZE - 0x200)
MUTATOR(m_handover_offset_zero, h->handover_offset = 0)
MUTATOR(m_relocs_stripped, wr16(img + COFF_OFF + 18, 0x207))

static const struct variant variants[] = {
    { "boot_flag not 0xAA55", m_boot_flag, "boot_flag", AT_PARSE },
    { "no HdrS magic", m_header, "header", AT_PARSE },
    { "protocol 2.09", m_version, "version", AT_PARSE },
    { "header shorter than 2.15's", m_jump_short, "jump", AT_PARSE },
    { "setup past the end", m_setup_sects, "setup_sects", AT_PARSE },
    { "syssize zero", m_syssize_zero, "syssize", AT_PARSE },
    { "syssize larger than the file", m_syssize_big, "syssize", AT_PARSE },
    { "not LOADED_HIGH", m_loadflags, "loadflags", AT_PARSE },
    { "no XLF_KERNEL_64, handover entry", m_xlf_kernel64, "lacks XLF_KERNEL_64", AT_HANDOVER_ENTRY },
    { "no XLF_KERNEL_64, PE entry", m_xlf_kernel64, "lacks XLF_KERNEL_64", AT_PE_ENTRY },
    { "kernel_alignment not a power of two", m_align_not_pow2, "kernel_alignment", AT_PARSE },
    { "kernel_alignment below 4 KiB", m_align_small, "kernel_alignment", AT_PARSE },
    { "pref_address unaligned", m_pref_address, "pref_address", AT_PARSE },
    { "pref_address that wraps when aligned", m_pref_address_wraps, "pref_address", AT_PARSE },
    { "PE sections overlapping", m_sections_overlap, "overlaps section .text", AT_PARSE },
    { "PE section over the headers", m_section_over_headers, "inside the headers", AT_PARSE },
    { "init_size below the file", m_init_size_small, "init_size", AT_PARSE },
    { "init_size above 1 GiB", m_init_size_huge, "init_size", AT_PARSE },
    { "cmdline_size zero", m_cmdline_size, "cmdline_size", AT_PARSE },
    { "initrd_addr_max below 1 MiB", m_initrd_addr_max, "initrd_addr_max", AT_PARSE },
    { "e_lfanew near the end", m_lfanew, "e_lfanew", AT_PARSE },
    { "PE signature", m_pe_signature, "signature", AT_PARSE },
    { "i386 machine", m_machine, "Machine 0x14c", AT_PARSE },
    { "IA-32 PE32 header in a 64-bit kernel", m_pe32, "PE: Machine 0x14c in a 64-bit kernel", AT_PARSE },
    { "optional header too small", m_optsize, "SizeOfOptionalHeader", AT_PARSE },
    { "PE32 magic", m_magic, "Magic", AT_PARSE },
    { "SectionAlignment not a power of two", m_section_alignment, "SectionAlignment", AT_PARSE },
    { "SizeOfImage zero", m_size_of_image_zero, "SizeOfImage", AT_PARSE },
    { "SizeOfImage 2 GiB", m_size_of_image_huge, "SizeOfImage", AT_PARSE },
    { "SizeOfHeaders above SizeOfImage", m_size_of_headers, "SizeOfHeaders", AT_PARSE },
    { "entry point zero", m_entry_zero, "AddressOfEntryPoint", AT_PARSE },
    { "entry point past SizeOfImage", m_entry_past_image, "AddressOfEntryPoint", AT_PARSE },
    { "entry point in no section", m_entry_in_no_section, "AddressOfEntryPoint", AT_PARSE },
    { "no sections", m_nsections_zero, "NumberOfSections", AT_PARSE },
    { "17 sections", m_nsections_many, "NumberOfSections", AT_PARSE },
    { "section table past the end", m_section_table_past_end, "section table", AT_PARSE },
    { "section raw data outside the file", m_section_raw_outside, "outside the file", AT_PARSE },
    { "section raw data wrapping 4 GiB", m_section_raw_wraps, "outside the file", AT_PARSE },
    { "section past SizeOfImage", m_section_past_image, "SizeOfImage", AT_PARSE },
    { "no XLF_EFI_HANDOVER_64", m_xlf_handover64, "xloadflags", AT_HANDOVER_ENTRY },
    { "handover_offset past the kernel", m_handover_offset, "handover_offset", AT_HANDOVER_ENTRY },
    { "handover_offset zero: startup_64", m_handover_offset_zero, "handover_offset: 0 names startup_64", AT_HANDOVER_ENTRY },
    { "PE relocations stripped", m_relocs_stripped, "RELOCS_STRIPPED", AT_PE_ENTRY },
};
#define NVARIANTS ((int)(sizeof(variants) / sizeof(variants[0])))

START_TEST(malformed_image_is_refused_naming_the_field)
{
    const struct variant *v = &variants[_i];
    build_image(image, true);
    v->mutate(image);
    err[0] = 0;
    int rc = parse();
    if (v->stage != AT_PARSE) {
        ck_assert_msg(rc == 0, "%s: refused at parse: %s", v->what, err);
        rc = bzimage_check_entry(&bz, v->stage == AT_PE_ENTRY ? ENTRY_PE : ENTRY_HANDOVER, err, sizeof(err));
    }
    ck_assert_msg(rc == -1, "%s: accepted", v->what);
    ck_assert_msg(strstr(err, v->field) != NULL, "%s: message \"%s\" does not name \"%s\"", v->what, err, v->field);
}
END_TEST

/* An i386 kernel (boot.rst: no XLF_KERNEL_64, XLF_EFI_HANDOVER_32): parsed,
 * its IA-32 PE header (Machine 0x14c) left unread, entered only at its
 * 32-bit handover entry. */
START_TEST(i386_kernel_parses_and_offers_only_the_32_bit_handover_entry)
{
    build_image(image, true);
    struct setup_header *h = hdr_of(image);
    h->xloadflags = XLF_EFI_HANDOVER_32;
    m_machine(image);
    ck_assert_msg(parse() == 0, "refused: %s", err);
    ck_assert(!bz.kernel_64);
    ck_assert(!bz.has_pe);
    ck_assert_int_eq(bzimage_check_handover32(&bz, err, sizeof(err)), 0);
    ck_assert_int_eq(bzimage_check_entry(&bz, ENTRY_HANDOVER, err, sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, "a 32-bit (i386) kernel"));
    ck_assert_int_eq(bzimage_check_entry(&bz, ENTRY_PE, err, sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, "lacks XLF_KERNEL_64"));
    ck_assert_ptr_nonnull(strstr(err, "--firmware-bits 32 enters it"));
    /* handover_offset 0 is startup_32 itself, no EFI handover entry. */
    h->handover_offset = 0;
    ck_assert_msg(parse() == 0, "refused: %s", err);
    ck_assert(!bzimage_offers_handover32(&bz));
    ck_assert_int_eq(bzimage_check_handover32(&bz, err, sizeof(err)), -1);
    ck_assert_msg(strstr(err, "handover_offset: 0 names startup_32"), "%s", err);
    h->handover_offset = HANDOVER;
    /* Without the 32-bit handover entry no firmware width enters it. */
    h->xloadflags = 0;
    ck_assert_msg(parse() == 0, "refused: %s", err);
    ck_assert_int_eq(bzimage_check_entry(&bz, ENTRY_HANDOVER, err, sizeof(err)), -1);
    ck_assert_msg(!strstr(err, "--firmware-bits 32 enters it"), "%s", err);
    ck_assert_msg(strstr(err, "no 32-bit handover entry either"), "%s", err);
}
END_TEST

/* boot.rst, xloadflags: the handover entry's kernel goes above 4 GiB only
 * with XLF_CAN_BE_LOADED_ABOVE_4G; the PE entry's is an EFI image,
 * loaded anywhere; an IA-32 firmware's is below 4 GiB either way. */
START_TEST(only_xlf_can_be_loaded_above_4g_lets_the_handover_kernel_above_4g)
{
    build_image(image, true);
    ck_assert_msg(parse() == 0, "refused: %s", err);
    ck_assert(!bzimage_needs_below_4g(&bz, ENTRY_HANDOVER, 64));
    ck_assert(!bzimage_needs_below_4g(&bz, ENTRY_PE, 64));
    ck_assert(bzimage_needs_below_4g(&bz, ENTRY_HANDOVER, 32));
    ck_assert(bzimage_needs_below_4g(&bz, ENTRY_PE, 32));
    hdr_of(image)->xloadflags &= (uint16_t)~XLF_CAN_BE_LOADED_ABOVE_4G;
    ck_assert_msg(parse() == 0, "refused: %s", err);
    ck_assert(bzimage_needs_below_4g(&bz, ENTRY_HANDOVER, 64));
    ck_assert(!bzimage_needs_below_4g(&bz, ENTRY_PE, 64));
}
END_TEST

/* Protocol 2.11 had handover_offset but not xloadflags (padding until
 * 2.12): refused for that reason, not as an i386 kernel. */
START_TEST(a_protocol_2_11_kernel_is_refused_for_its_missing_xloadflags)
{
    build_image(image, true);
    hdr_of(image)->version = 0x020b;
    hdr_of(image)->xloadflags = 0;
    ck_assert_msg(parse() == 0, "refused: %s", err);
    for (int entry = ENTRY_HANDOVER; entry <= ENTRY_PE; entry++) {
        ck_assert_int_eq(bzimage_check_entry(&bz, (enum boot_entry)entry, err, sizeof(err)), -1);
        ck_assert_msg(strstr(err, "boot protocol 2.11 predates xloadflags") && !strstr(err, "i386"), "%s", err);
    }
    ck_assert_int_eq(bzimage_check_handover32(&bz, err, sizeof(err)), -1);
    ck_assert_msg(strstr(err, "boot protocol 2.11 predates xloadflags"), "%s", err);
}
END_TEST

/* Every prefix of a valid image: refused, never read past its end (the
 * copy is exactly len bytes, so ASan sees any overrun). */
START_TEST(every_truncation_of_a_pe_image_is_refused)
{
    build_image(image, true);
    for (size_t len = 0; len < IMG_SIZE; len++) {
        uint8_t *copy = malloc(len ? len : 1);
        ck_assert_ptr_nonnull(copy);
        memcpy(copy, image, len);
        err[0] = 0;
        int rc = bzimage_parse(&bz, copy, len, err, sizeof(err));
        free(copy);
        ck_assert_msg(rc == -1, "a %zu-byte prefix was accepted", len);
        ck_assert_msg(err[0] != 0, "a %zu-byte prefix was refused without a message", len);
    }
}
END_TEST

START_TEST(every_truncation_of_a_flat_image_is_refused_or_bounded)
{
    build_image(image, false);
    for (size_t len = 0; len < IMG_SIZE; len++) {
        uint8_t *copy = malloc(len ? len : 1);
        ck_assert_ptr_nonnull(copy);
        memcpy(copy, image, len);
        int rc = bzimage_parse(&bz, copy, len, err, sizeof(err));
        if (rc == 0) {
            /* syssize counts 16-byte paragraphs: only the last 15 bytes may go. */
            ck_assert_uint_ge(len, IMG_SIZE - 15);
            ck_assert_uint_eq(bz.setup_size + bz.pm_size, len);
        }
        free(copy);
    }
}
END_TEST

START_TEST(truncation_message_names_truncation)
{
    build_image(image, true);
    ck_assert_int_eq(bzimage_parse(&bz, image, 0x100, err, sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, "truncated"));
    ck_assert_int_eq(bzimage_parse(&bz, image, 0x240, err, sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, "truncated"));
}
END_TEST

/* ---- loading ---------------------------------------------------------------- */

START_TEST(load_flat_copies_the_kernel_and_leaves_init_size_to_fresh_ram)
{
    ck_assert_int_eq(bzimage_load_flat(&bz, &gm, LOAD_ADDR), 0);
    ck_assert_mem_eq(ram + LOAD_ADDR, image + SETUP_SIZE, PM_SIZE);
    ck_assert(all_bytes(ram + LOAD_ADDR + PM_SIZE, 0xaa, INIT_SIZE - PM_SIZE));   /* not written */
    ck_assert(all_bytes(ram + LOAD_ADDR + INIT_SIZE, 0xaa, 0x1000));   /* nothing past load_size */
    ck_assert(all_bytes(ram + LOAD_ADDR - 0x1000, 0xaa, 0x1000));
}
END_TEST

START_TEST(load_flat_where_it_does_not_fit_writes_nothing)
{
    ck_assert_int_eq(bzimage_load_flat(&bz, &gm, RAM_SIZE - 0x8000), -1);
    ck_assert(all_bytes(ram + RAM_SIZE - 0x8000, 0xaa, 0x8000));
    ck_assert_int_eq(bzimage_load_flat(&bz, &gm, 0xfffffffffffff000ULL), -1);
}
END_TEST

START_TEST(load_pe_maps_headers_sections_and_zeroes_the_rest)
{
    ck_assert_int_eq(bzimage_load_pe(&bz, &gm, LOAD_ADDR), 0);
    const uint8_t *base = ram + LOAD_ADDR;
    ck_assert_mem_eq(base, image, SETUP_SIZE);                              /* headers */
    ck_assert(all_bytes(base + SETUP_SIZE, 0, TEXT_VA - SETUP_SIZE));       /* gap */
    ck_assert_mem_eq(base + TEXT_VA, image + SETUP_SIZE, PM_SIZE);          /* .text */
    ck_assert(all_bytes(base + BSS_VA, 0, BSS_SIZE));                       /* .bss */
    ck_assert(all_bytes(base + SIZE_OF_IMAGE, 0xaa, 0x1000));               /* nothing past the image */
    ck_assert_uint_eq(bzimage_pe_image_size(&bz), SIZE_OF_IMAGE);
}
END_TEST

START_TEST(load_pe_copies_no_more_than_virtual_size)
{
    pe_section(image, 0, ".text", TEXT_VA, 0x1800, SETUP_SIZE, PM_SIZE, SCN_TEXT);
    ck_assert_int_eq(parse(), 0);
    ck_assert_int_eq(bzimage_load_pe(&bz, &gm, LOAD_ADDR), 0);
    ck_assert_mem_eq(ram + LOAD_ADDR + TEXT_VA, image + SETUP_SIZE, 0x1800);
    ck_assert(all_bytes(ram + LOAD_ADDR + TEXT_VA + 0x1800, 0, PM_SIZE - 0x1800));
}
END_TEST

START_TEST(load_pe_refuses_an_image_without_pe_header)
{
    build_image(image, false);
    ck_assert_int_eq(parse(), 0);
    ck_assert_int_eq(bzimage_load_pe(&bz, &gm, LOAD_ADDR), -1);
    ck_assert(all_bytes(ram + LOAD_ADDR, 0xaa, 0x1000));
}
END_TEST

START_TEST(handover_entry_is_startup_64_plus_handover_offset)
{
    ck_assert_uint_eq(bzimage_handover_entry(&bz, LOAD_ADDR), LOAD_ADDR + 0x200 + HANDOVER);
    ck_assert_uint_eq(bzimage_handover_entry(&bz, 0x140000000ULL), 0x140000000ULL + 0x200 + HANDOVER);
}
END_TEST

/* ---- the zero page ---------------------------------------------------------- */

#define BP_ADDR 0x8000ULL

START_TEST(boot_params_carry_the_header_and_what_the_loader_fills)
{
    struct boot_placement pl = { .code32_start = LOAD_ADDR, .cmdline_addr = 0x20000,
                                 .initrd_addr = 0x1800000, .initrd_size = 0x12345 };
    ck_assert_int_eq(bootparams_build(&bz, &gm, BP_ADDR, &pl), 0);
    const struct boot_params *bp = (const struct boot_params *)(ram + BP_ADDR);
    ck_assert_uint_eq(bp->hdr.type_of_loader, TYPE_OF_LOADER_HANDOVER);
    ck_assert_uint_eq(bp->hdr.code32_start, LOAD_ADDR);
    ck_assert_uint_eq(bp->hdr.cmd_line_ptr, 0x20000);
    ck_assert_uint_eq(bp->ext_cmd_line_ptr, 0);
    ck_assert_uint_eq(bp->hdr.ramdisk_image, 0x1800000);
    ck_assert_uint_eq(bp->hdr.ramdisk_size, 0x12345);
    ck_assert_uint_eq(bp->ext_ramdisk_image, 0);
    ck_assert_uint_eq(bp->hdr.setup_data, 0);
    ck_assert_uint_eq(bp->hdr.loadflags & CAN_USE_HEAP, 0);   /* no heap_end_ptr given */
    ck_assert_uint_eq(bp->hdr.loadflags & LOADED_HIGH, LOADED_HIGH);
    /* The rest of the header comes from the image. */
    ck_assert_uint_eq(bp->hdr.boot_flag, BOOT_FLAG_MAGIC);
    ck_assert_uint_eq(bp->hdr.header, SETUP_HDRS_MAGIC);
    ck_assert_uint_eq(bp->hdr.version, 0x020f);
    ck_assert_uint_eq(bp->hdr.setup_sects, SETUP_SECTS);
    ck_assert_uint_eq(bp->hdr.xloadflags, hdr_of(image)->xloadflags);
    ck_assert_uint_eq(bp->hdr.init_size, INIT_SIZE);
    ck_assert_uint_eq(bp->hdr.handover_offset, HANDOVER);
    ck_assert_uint_eq(bp->hdr.kernel_alignment, 0x200000);
    ck_assert_uint_eq(bp->hdr.pref_address, 0x1000000);
}
END_TEST

START_TEST(boot_params_outside_the_header_are_zero)
{
    struct boot_placement pl = { .code32_start = LOAD_ADDR, .cmdline_addr = 0x20000 };
    ck_assert_int_eq(bootparams_build(&bz, &gm, BP_ADDR, &pl), 0);
    const uint8_t *p = ram + BP_ADDR;
    ck_assert(all_bytes(p, 0, SETUP_HEADER_OFFSET));                     /* incl. sentinel, e820_entries */
    ck_assert(all_bytes(p + 0x290, 0, 4096 - 0x290));                    /* e820 table, eddbuf */
    ck_assert(all_bytes(p + 4096, 0xaa, 16));                            /* one page only */
}
END_TEST

START_TEST(boot_params_split_addresses_above_4g_into_ext_fields)
{
    struct boot_placement pl = { .code32_start = LOAD_ADDR, .cmdline_addr = 0x123456000ULL,
                                 .initrd_addr = 0x234567000ULL, .initrd_size = 0x100001000ULL };
    ck_assert_int_eq(bootparams_build(&bz, &gm, BP_ADDR, &pl), 0);
    const struct boot_params *bp = (const struct boot_params *)(ram + BP_ADDR);
    ck_assert_uint_eq(bp->hdr.cmd_line_ptr, 0x23456000);
    ck_assert_uint_eq(bp->ext_cmd_line_ptr, 1);
    ck_assert_uint_eq(bp->hdr.ramdisk_image, 0x34567000);
    ck_assert_uint_eq(bp->ext_ramdisk_image, 2);
    ck_assert_uint_eq(bp->hdr.ramdisk_size, 0x1000);
    ck_assert_uint_eq(bp->ext_ramdisk_size, 1);
}
END_TEST

START_TEST(boot_params_outside_ram_are_refused)
{
    struct boot_placement pl = { .code32_start = LOAD_ADDR };
    ck_assert_int_eq(bootparams_build(&bz, &gm, RAM_SIZE - 0x800, &pl), -1);
    ck_assert(all_bytes(ram + RAM_SIZE - 0x800, 0xaa, 0x800));
    ck_assert_int_eq(bootparams_build(&bz, &gm, 0xffffffffffffff00ULL, &pl), -1);
}
END_TEST

/* ---- a real kernel (only when HANDOVER_TINY_KERNEL names one) --------------- */

START_TEST(real_tiny_kernel_parses_with_both_entries)
{
    const char *path = getenv("HANDOVER_TINY_KERNEL");
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    rewind(f);
    uint8_t *data = malloc((size_t)size);
    ck_assert_ptr_nonnull(data);
    size_t got = fread(data, 1, (size_t)size, f);
    fclose(f);
    struct bzimage k;
    int rc = got == (size_t)size ? bzimage_parse(&k, data, (size_t)size, err, sizeof(err)) : -1;
    int pe = rc ? -1 : bzimage_check_entry(&k, ENTRY_PE, err, sizeof(err));
    int ho = rc ? -1 : bzimage_check_entry(&k, ENTRY_HANDOVER, err, sizeof(err));
    bool kv = !rc && !strncmp(k.kernel_version, "6.", 2);
    uint16_t version = k.hdr.version;
    free(data);
    ck_assert_msg(rc == 0, "%s refused: %s", path, err);
    ck_assert_msg(pe == 0 && ho == 0, "%s: entry refused: %s", path, err);
    ck_assert_uint_ge(version, 0x020f);
    ck_assert(kv);
}
END_TEST

/* place_image: the kernel's placement in a 256 MiB guest. */
#define PLACE_RAM (256ULL << 20)
static struct memmap place_map;

static void place_setup(void)
{
    memmap_init(&place_map);
    ck_assert_int_eq(memmap_add_ram(&place_map, 0, PLACE_RAM), 0);
}

static struct image_constraints kernel(uint64_t pref, uint64_t align, bool relocatable)
{
    return (struct image_constraints){ .size = 0x2000000, .pref_address = pref, .align = align,
                                       .relocatable = relocatable, .top = PLACE_RAM };
}

START_TEST(place_honours_pref_address)
{
    const struct image_constraints c = kernel(0x1000000, 0x200000, true);
    uint64_t at = 0;
    ck_assert_int_eq(place_image(&place_map, &c, &at), 0);
    ck_assert_uint_eq(at, 0x1000000);
    ck_assert_int_eq(memmap_type_at(&place_map, at), EFI_LOADER_CODE);
    ck_assert_int_eq(memmap_type_at(&place_map, at + c.size - 1), EFI_LOADER_CODE);
    ck_assert_int_eq(memmap_type_at(&place_map, at + c.size), EFI_CONVENTIONAL_MEMORY);
}
END_TEST

START_TEST(place_rounds_pref_address_up_to_the_alignment)
{
    const struct image_constraints c = kernel(0x1100000, 0x200000, false);
    uint64_t at = 0;
    ck_assert_uint_eq(place_wanted(&c), 0x1200000);
    ck_assert_int_eq(place_image(&place_map, &c, &at), 0);
    ck_assert_uint_eq(at, 0x1200000);
}
END_TEST

START_TEST(place_moves_a_relocatable_kernel_where_it_fits)
{
    /* Something already at pref_address: the lowest aligned free range from 16 MiB. */
    ck_assert_int_eq(memmap_reserve(&place_map, 0x1000000, 0x1800, EFI_BOOT_SERVICES_DATA), EFI_SUCCESS);
    const struct image_constraints c = kernel(0x1000000, 0x1000000, true);
    uint64_t at = 0;
    ck_assert_int_eq(place_image(&place_map, &c, &at), 0);
    ck_assert_uint_eq(at, 0x3000000);
    ck_assert_uint_eq(at % c.align, 0);
    ck_assert_uint_ge(at, GUEST_KERNEL_MIN);
}
END_TEST

START_TEST(place_refuses_when_nothing_fits)
{
    ck_assert_int_eq(memmap_reserve(&place_map, 0x1000000, 0x1000, EFI_BOOT_SERVICES_DATA), EFI_SUCCESS);
    struct image_constraints c = kernel(0x1000000, 0x200000, false);
    uint64_t at = 0x1234;
    ck_assert_int_eq(place_image(&place_map, &c, &at), -1);   /* not relocatable */
    c.relocatable = true;
    c.size = PLACE_RAM - 0x1000000;   /* no free range that large above 16 MiB */
    ck_assert_int_eq(place_image(&place_map, &c, &at), -1);
    ck_assert_uint_eq(at, 0x1234);
    ck_assert_int_eq(memmap_type_at(&place_map, 0x3000000), EFI_CONVENTIONAL_MEMORY);   /* nothing reserved */
}
END_TEST

START_TEST(place_load_addr_is_there_or_nowhere)
{
    struct image_constraints c = kernel(0x1000000, 0x200000, true);
    c.load_addr = 0x4000000;
    uint64_t at = 0;
    ck_assert_uint_eq(place_wanted(&c), 0x4000000);
    ck_assert_int_eq(place_image(&place_map, &c, &at), 0);
    ck_assert_uint_eq(at, 0x4000000);
    /* Taken now: a relocatable kernel still does not move away from --load-addr. */
    ck_assert_int_eq(place_image(&place_map, &c, &at), -1);
    ck_assert_uint_eq(at, 0x4000000);
}
END_TEST

/* A 32-bit entry (--firmware-bits 32) reaches 4 GiB at most: top says so,
 * and a pref_address or --load-addr above it is not taken, even where
 * there is RAM. */
START_TEST(place_keeps_the_image_below_top)
{
    struct memmap m;
    memmap_init(&m);
    ck_assert_int_eq(memmap_add_ram(&m, 0, 8ULL << 30), 0);
    struct image_constraints c = kernel(4ULL << 30, 0x200000, false);
    c.top = 4ULL << 30;
    uint64_t at = 0x1234;
    ck_assert_int_eq(place_image(&m, &c, &at), -1);   /* not relocatable */
    ck_assert_uint_eq(at, 0x1234);
    ck_assert_int_eq(memmap_type_at(&m, 4ULL << 30), EFI_CONVENTIONAL_MEMORY);
    c.relocatable = true;
    ck_assert_int_eq(place_image(&m, &c, &at), 0);
    ck_assert_uint_eq(at, GUEST_KERNEL_MIN);
    c.load_addr = 5ULL << 30;
    ck_assert_int_eq(place_image(&m, &c, &at), -1);
    ck_assert_int_eq(memmap_type_at(&m, 5ULL << 30), EFI_CONVENTIONAL_MEMORY);
    /* Ending exactly at top fits. */
    c.load_addr = (4ULL << 30) - c.size;
    ck_assert_int_eq(place_image(&m, &c, &at), 0);
    ck_assert_uint_eq(at, c.load_addr);
    /* Without the limit, pref_address above 4 GiB is taken as before. */
    c = kernel(6ULL << 30, 0x200000, false);
    c.top = 8ULL << 30;
    ck_assert_int_eq(place_image(&m, &c, &at), 0);
    ck_assert_uint_eq(at, 6ULL << 30);
}
END_TEST

/* What a refusal says was tried: --load-addr alone, whatever the kernel
 * allows. */
START_TEST(place_says_where_it_looked)
{
    struct image_constraints c = kernel(0x1000000, 0x200000, true);
    ck_assert_str_eq(place_tried(&c), " or anywhere above 16 MiB");
    c.relocatable = false;
    ck_assert_str_eq(place_tried(&c), " (not relocatable)");
    c.load_addr = 0x4000000;
    ck_assert_str_eq(place_tried(&c), " (--load-addr: there only)");
    c.relocatable = true;
    ck_assert_str_eq(place_tried(&c), " (--load-addr: there only)");
}
END_TEST

Suite *bzimage_suite(void)
{
    Suite *s = suite_create("bzimage");

    TCase *tc = tcase_create("parse");
    tcase_add_test(tc, valid_image_with_pe_header_is_accepted);
    tcase_add_test(tc, image_without_pe_header_offers_only_the_handover_entry);
    tcase_add_test(tc, image_with_neither_entry_points_at_no_other);
    tcase_add_test(tc, setup_sects_zero_means_four);
    tcase_add_test(tc, kernel_version_pointer_outside_setup_gives_empty_string);
    tcase_add_test(tc, load_size_is_init_size_rounded_to_pages_and_at_least_the_file);
    tcase_add_loop_test(tc, malformed_image_is_refused_naming_the_field, 0, NVARIANTS);
    tcase_add_test(tc, truncation_message_names_truncation);
    tcase_add_test(tc, i386_kernel_parses_and_offers_only_the_32_bit_handover_entry);
    tcase_add_test(tc, a_protocol_2_11_kernel_is_refused_for_its_missing_xloadflags);
    suite_add_tcase(s, tc);

    tc = tcase_create("truncation");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, every_truncation_of_a_pe_image_is_refused);
    tcase_add_test(tc, every_truncation_of_a_flat_image_is_refused_or_bounded);
    suite_add_tcase(s, tc);

    tc = tcase_create("load");
    tcase_add_checked_fixture(tc, ram_setup, ram_teardown);
    tcase_add_test(tc, load_flat_copies_the_kernel_and_leaves_init_size_to_fresh_ram);
    tcase_add_test(tc, load_flat_where_it_does_not_fit_writes_nothing);
    tcase_add_test(tc, load_pe_maps_headers_sections_and_zeroes_the_rest);
    tcase_add_test(tc, load_pe_copies_no_more_than_virtual_size);
    tcase_add_test(tc, load_pe_refuses_an_image_without_pe_header);
    tcase_add_test(tc, handover_entry_is_startup_64_plus_handover_offset);
    tcase_add_test(tc, only_xlf_can_be_loaded_above_4g_lets_the_handover_kernel_above_4g);
    tcase_add_test(tc, boot_params_carry_the_header_and_what_the_loader_fills);
    tcase_add_test(tc, boot_params_outside_the_header_are_zero);
    tcase_add_test(tc, boot_params_split_addresses_above_4g_into_ext_fields);
    tcase_add_test(tc, boot_params_outside_ram_are_refused);
    suite_add_tcase(s, tc);

    tc = tcase_create("place");
    tcase_add_checked_fixture(tc, place_setup, NULL);
    tcase_add_test(tc, place_honours_pref_address);
    tcase_add_test(tc, place_rounds_pref_address_up_to_the_alignment);
    tcase_add_test(tc, place_moves_a_relocatable_kernel_where_it_fits);
    tcase_add_test(tc, place_refuses_when_nothing_fits);
    tcase_add_test(tc, place_load_addr_is_there_or_nowhere);
    tcase_add_test(tc, place_keeps_the_image_below_top);
    tcase_add_test(tc, place_says_where_it_looked);
    suite_add_tcase(s, tc);

    const char *tiny = getenv("HANDOVER_TINY_KERNEL");
    if (tiny && *tiny) {
        fprintf(stderr, "bzimage: also parsing the real kernel %s (HANDOVER_TINY_KERNEL)\n", tiny);
        tc = tcase_create("real-kernel");
        tcase_add_test(tc, real_tiny_kernel_parses_with_both_entries);
        suite_add_tcase(s, tc);
    }
    return s;
}
