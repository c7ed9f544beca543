/* libFuzzer harness for the PE32+ and PE32 loader (firmware-stub/pe.c).
 * Input: the bytes of an EFI image file, as LoadImage would be handed it.
 * pe_parse and, when the image parses, pe_load into a 16 MiB guest buffer:
 * at its ImageBase when that fits (a zero delta) and flush with the end of
 * the buffer (any delta), so an overrun leaves it and ASan reports it. The
 * checks below are the contract pe.h states; a broken one aborts (counts as
 * a crash). Also efi_app.h's: image_kind, and efi_app_parse = pe_parse plus
 * Subsystem 10. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../loader/efi_app.h"
#include "../../firmware-stub/pe.h"
#include "../../guest/guest_text.h"
#include "fuzz_harness.h"

#define MEM_SIZE (16ULL << 20)
#define PAGE     0x1000ULL
#define ERR_LEN  256

static uint8_t *mem;   /* guest RAM, allocated once */
static uint8_t *ref;   /* the plain mapping, no relocations */

/* An error message is one printable line starting "PE: ". */
static void check_err(const char *err, size_t len)
{
    const char *nul = memchr(err, 0, len);
    CHECK(nul);
    CHECK(!strncmp(err, "PE: ", 4));
    for (const char *p = err; p < nul; p++)
        CHECK(guest_text_printable((unsigned char)*p));
}

static void check_parsed(const struct pe_image *pe, const uint8_t *data, size_t size)
{
    CHECK(pe->data == data && pe->size == size);
    CHECK(pe->subsystem >= PE_SUBSYSTEM_EFI_APPLICATION && pe->subsystem <= PE_SUBSYSTEM_EFI_RUNTIME_DRIVER);
    CHECK(pe->size_of_image > 0 && pe->size_of_image <= PE_MAX_IMAGE_SIZE);
    CHECK(pe->nsections >= 1 && pe->nsections <= PE_MAX_SECTIONS);
    CHECK(pe->entry > 0 && pe->entry < pe->size_of_image);
    CHECK(pe->size_of_headers <= size && pe->size_of_headers <= pe->size_of_image);
    /* The section table (after the PE signature, COFF header and optional
     * header e_lfanew and SizeOfOptionalHeader place) inside the headers
     * the image maps. */
    uint32_t lfanew;
    uint16_t optsize;
    memcpy(&lfanew, data + 0x3c, sizeof(lfanew));
    memcpy(&optsize, data + (uint64_t)lfanew + 4 + 16, sizeof(optsize));
    CHECK((uint64_t)lfanew + 4 + 20 + optsize + 40ull * pe->nsections <= pe->size_of_headers);
    CHECK((uint64_t)pe->reloc_rva + pe->reloc_size <= pe->size_of_image);
    CHECK(pe->image_base <= UINT64_MAX - pe->size_of_image);
    /* An IA-32 image lies below 4 GiB at its ImageBase. */
    CHECK(pe->machine == PE_MACHINE_X64 ||
          (pe->machine == PE_MACHINE_I386 && pe->image_base + pe->size_of_image <= 1ULL << 32));
    for (unsigned i = 0; i < pe->nsections; i++) {
        const struct pe_section *s = &pe->sections[i];
        CHECK(memchr(s->name, 0, sizeof(s->name)));
        CHECK((uint64_t)s->raw_offset + s->raw_size <= size);
        uint64_t span = s->virtual_size > s->raw_size ? s->virtual_size : s->raw_size;
        CHECK((uint64_t)s->virtual_address + span <= pe->size_of_image);
        CHECK(s->virtual_address >= pe->size_of_headers);
    }
}

/* What the image is with no relocation applied: the sections are disjoint
 * and clear of the headers (pe_parse checks), so the order is immaterial. */
static void map_plain(const struct pe_image *pe, uint64_t len)
{
    memset(ref, 0, len);
    memcpy(ref, pe->data, pe->size_of_headers);
    for (unsigned i = 0; i < pe->nsections; i++) {
        const struct pe_section *s = &pe->sections[i];
        uint32_t n = s->raw_size < s->virtual_size || !s->virtual_size ? s->raw_size : s->virtual_size;
        memcpy(ref + s->virtual_address, pe->data + s->raw_offset, n);
    }
}

static void load(const struct pe_image *pe, const struct guest_mem *gm, uint64_t len)
{
    char err[ERR_LEN];
    if (len > MEM_SIZE) {
        CHECK(pe_load(pe, gm, 0, err, sizeof(err)) == -1);
        check_err(err, sizeof(err));
        return;
    }
    map_plain(pe, len);
    bool stripped = pe->file_characteristics & PE_FILE_RELOCS_STRIPPED;

    /* At ImageBase nothing moves: exactly the plain mapping. */
    if (pe->image_base <= MEM_SIZE - len) {
        CHECK(pe_load(pe, gm, pe->image_base, err, sizeof(err)) == 0);
        CHECK(!memcmp(mem + pe->image_base, ref, len));
    }

    uint64_t top = MEM_SIZE - len;
    memset(err, 'x', sizeof(err));
    int rc = pe_load(pe, gm, top, err, sizeof(err));
    if (stripped && top != pe->image_base) {
        CHECK(rc == -1);
        check_err(err, sizeof(err));
    } else {
        CHECK(rc == 0);
        /* Each 2-byte relocation entry changes at most the 8 bytes of a qword. */
        uint64_t changed = 0;
        for (uint64_t i = 0; i < len; i++)
            changed += mem[top + i] != ref[i];
        CHECK(changed <= 4ULL * pe->reloc_size);
    }
    /* One page further does not fit: refused. */
    CHECK(pe_load(pe, gm, top + PAGE, err, sizeof(err)) == -1);
    check_err(err, sizeof(err));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!mem && (!(mem = calloc(1, MEM_SIZE)) || !(ref = malloc(MEM_SIZE))))
        abort();
    struct guest_mem gm;
    guest_mem_init(&gm, mem, MEM_SIZE);

    CHECK(image_kind(data, size) == IMAGE_BZIMAGE || pe_is_mz(data, size));
    struct pe_image app;
    char app_err[ERR_LEN];
    memset(app_err, 'x', sizeof(app_err));
    int app_rc = efi_app_parse(&app, data, size, app_err, sizeof(app_err));
    if (app_rc)
        check_err(app_err, sizeof(app_err));

    struct pe_image pe;
    char err[ERR_LEN];
    memset(err, 'x', sizeof(err));
    if (pe_parse(&pe, data, size, err, sizeof(err))) {
        check_err(err, sizeof(err));
        CHECK(app_rc == -1);
        return 0;
    }
    check_parsed(&pe, data, size);
    CHECK(app_rc == (pe.subsystem == PE_SUBSYSTEM_EFI_APPLICATION ? 0 : -1));
    CHECK(pe_is_mz(data, size));
    uint64_t len = pe_image_size(&pe);
    CHECK(len >= pe.size_of_image && !(len & (PAGE - 1)));
    load(&pe, &gm, len);
    return 0;
}
