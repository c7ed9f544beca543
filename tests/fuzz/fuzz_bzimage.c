/* libFuzzer harness for the bzImage/PE parser and loaders.
 * Input: the bytes of an image file, as `handover BZIMAGE` would read it.
 * image_kind and, for an EFI application, efi_app_parse; bzimage_parse, bzimage_check_entry for both entries, pe_compat_entry
 * (the IA-32 entry of .compat) and, when the image parses, bzimage_load_flat / bzimage_load_pe / bootparams_build into a
 * 64 MiB guest buffer. Loads are placed flush with the end of the buffer,
 * so an overrun leaves it and ASan reports it. The checks below are the
 * contract bzimage.h states; a broken one aborts (counts as a crash). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../loader/bzimage.h"
#include "../../loader/efi_app.h"
#include "../../loader/pe_compat.h"
#include "../../guest/guest_text.h"
#include "fuzz_input.h"
#include "fuzz_harness.h"

#define MEM_SIZE (64ULL << 20)
#define PAGE     0x1000ULL

static uint8_t *mem;   /* guest RAM, allocated once; loads only write it */

/* An error message is one NUL-terminated, non-empty line of printable
 * text: it goes to the user's terminal, and may quote the file. */
static void check_err(const char *err, size_t len)
{
    const char *nul = memchr(err, 0, len);
    CHECK(nul);
    CHECK(nul != err);
    for (const char *p = err; p < nul; p++)
        CHECK(guest_text_printable((unsigned char)*p));
}

static void check_parsed(const struct bzimage *bz, const uint8_t *data, size_t size)
{
    CHECK(bz->data == data && bz->size == size);
    CHECK(bz->setup_size > 0 && bz->setup_size < size);
    CHECK(bz->setup_size + bz->pm_size == size);
    CHECK(memchr(bz->kernel_version, 0, sizeof(bz->kernel_version)));
    CHECK(bz->hdr.boot_flag == BOOT_FLAG_MAGIC && bz->hdr.header == SETUP_HDRS_MAGIC);
    if (!bz->has_pe)
        return;
    CHECK(bz->pe.nsections >= 1 && bz->pe.nsections <= PE_MAX_SECTIONS);
    CHECK(bz->pe.entry < bz->pe.size_of_image);
    CHECK(bz->pe.size_of_headers <= size && bz->pe.size_of_headers <= bz->pe.size_of_image);
    for (unsigned i = 0; i < bz->pe.nsections; i++) {
        const struct pe_section *s = &bz->pe.sections[i];
        CHECK((uint64_t)s->raw_offset + s->raw_size <= size);
        uint64_t span = s->virtual_size > s->raw_size ? s->virtual_size : s->raw_size;
        CHECK((uint64_t)s->virtual_address + span <= bz->pe.size_of_image);
    }
}

static void load_flat(const struct bzimage *bz, const struct guest_mem *gm, const uint8_t *data)
{
    uint64_t len = bzimage_load_size(bz);
    CHECK(len >= bz->pm_size && !(len & (PAGE - 1)));
    if (len > MEM_SIZE) {
        CHECK(bzimage_load_flat(bz, gm, 0) != 0);
        return;
    }
    uint64_t addr = MEM_SIZE - len;
    CHECK(bzimage_load_flat(bz, gm, addr) == 0);
    CHECK(!memcmp(mem + addr, data + bz->setup_size, bz->pm_size));
    CHECK(mem[MEM_SIZE - 1] == 0 || len == bz->pm_size);
    /* One page further does not fit: refused, nothing written. */
    CHECK(bzimage_load_flat(bz, gm, addr + PAGE) != 0);
    (void)bzimage_handover_entry(bz, addr);
}

static void load_pe(const struct bzimage *bz, const struct guest_mem *gm, const uint8_t *data)
{
    if (!bz->has_pe) {
        CHECK(bzimage_load_pe(bz, gm, 0) != 0);
        return;
    }
    uint64_t len = bzimage_pe_image_size(bz);
    CHECK(len >= bz->pe.size_of_image && !(len & (PAGE - 1)));
    if (len > MEM_SIZE) {
        CHECK(bzimage_load_pe(bz, gm, 0) != 0);
        return;
    }
    uint64_t base = MEM_SIZE - len;
    if (bz->pe.file_characteristics & PE_FILE_RELOCS_STRIPPED && base != bz->pe.image_base) {
        CHECK(bzimage_load_pe(bz, gm, base) != 0);
        return;
    }
    CHECK(bzimage_load_pe(bz, gm, base) == 0);
    /* Sections may overlap the headers; only a section-free header is
     * guaranteed to be a copy of the file. */
    bool headers_untouched = true;
    for (unsigned i = 0; i < bz->pe.nsections; i++)
        if (bz->pe.sections[i].virtual_address < bz->pe.size_of_headers)
            headers_untouched = false;
    if (headers_untouched)
        CHECK(!memcmp(mem + base, data, bz->pe.size_of_headers));
    CHECK(bzimage_load_pe(bz, gm, base + PAGE) != 0);
}

static void build_bootparams(const struct bzimage *bz, const struct guest_mem *gm)
{
    uint64_t bp = MEM_SIZE - sizeof(struct boot_params);
    struct boot_placement pl = {
        .code32_start = bz->hdr.pref_address,
        .cmdline_addr = 0x20000 | ((uint64_t)bz->hdr.cmdline_size << 32),
        .initrd_addr = bz->hdr.initrd_addr_max & ~0xfffULL,
        .initrd_size = bz->hdr.init_size,
    };
    CHECK(bootparams_build(bz, gm, bp, &pl) == 0);
    const struct boot_params *p = (const struct boot_params *)(mem + bp);
    CHECK(p->hdr.type_of_loader == TYPE_OF_LOADER_HANDOVER);
    CHECK(p->hdr.boot_flag == BOOT_FLAG_MAGIC && p->hdr.header == SETUP_HDRS_MAGIC);
    CHECK(p->hdr.cmd_line_ptr == 0x20000 && p->ext_cmd_line_ptr == bz->hdr.cmdline_size);
    CHECK(!(p->hdr.loadflags & CAN_USE_HEAP));
    CHECK(bootparams_build(bz, gm, bp + 1, &pl) != 0);
}

/* The file as main.c tells it: an application has "MZ" and parses as an
 * x64 PE32+ or IA-32 PE32 EFI application, or is refused with a message. */
static void check_app(const uint8_t *data, size_t size)
{
    if (image_kind(data, size) != IMAGE_EFI_APP)
        return;
    CHECK(pe_is_mz(data, size));
    struct pe_image pe;
    char err[BZIMAGE_ERR_LEN];
    memset(err, 'x', sizeof(err));
    if (efi_app_parse(&pe, data, size, err, sizeof(err)))
        check_err(err, sizeof(err));
    else
        CHECK(pe.subsystem == PE_SUBSYSTEM_EFI_APPLICATION && pe.entry < pe.size_of_image &&
              (pe.machine == PE_MACHINE_X64 || pe.machine == PE_MACHINE_I386));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!mem && !(mem = calloc(1, MEM_SIZE)))
        abort();
    struct guest_mem gm;
    guest_mem_init(&gm, mem, MEM_SIZE);
    check_app(data, size);

    struct bzimage bz;
    char err[BZIMAGE_ERR_LEN];
    memset(err, 'x', sizeof(err));
    if (bzimage_parse(&bz, data, size, err, sizeof(err))) {
        check_err(err, sizeof(err));
        return 0;
    }
    check_parsed(&bz, data, size);
    for (int e = ENTRY_HANDOVER; e <= ENTRY_PE; e++) {
        memset(err, 'x', sizeof(err));
        if (bzimage_check_entry(&bz, (enum boot_entry)e, err, sizeof(err)))
            check_err(err, sizeof(err));
        else if (e == ENTRY_HANDOVER)
            CHECK((uint64_t)bz.hdr.handover_offset + 0x200 < bz.pm_size);
        else
            CHECK(bz.has_pe && !(bz.pe.file_characteristics & PE_FILE_RELOCS_STRIPPED));
    }
    if (bz.has_pe) {
        CHECK(bz.pe.machine == PE_MACHINE_X64);   /* a 64-bit kernel's stub */
        uint32_t rva;
        memset(err, 'x', sizeof(err));
        if (pe_compat_entry(&bz.pe, PE_MACHINE_I386, &rva, err, sizeof(err)))
            check_err(err, sizeof(err));
        else
            CHECK(rva < bz.pe.size_of_image);
    }
    load_flat(&bz, &gm, data);
    load_pe(&bz, &gm, data);
    build_bootparams(&bz, &gm);
    return 0;
}
