#include "pe_compat.h"

#include <string.h>

#include "../guest/fail.h"

#define COMPAT_TYPE_ENTRY 1   /* header.S: Version 1, an entry point */
#define COMPAT_ENTRY_SIZE 8

static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t rd32(const uint8_t *p) { return rd16(p) | (uint32_t)rd16(p + 2) << 16; }

static const struct pe_section *find_section(const struct pe_image *pe, const char *name)
{
    for (unsigned i = 0; i < pe->nsections; i++)
        if (!strcmp(pe->sections[i].name, name))
            return &pe->sections[i];
    return NULL;
}

/* Whether rva lies in a section the image maps executable. */
static bool in_code(const struct pe_image *pe, uint32_t rva)
{
    for (unsigned i = 0; i < pe->nsections; i++) {
        const struct pe_section *s = &pe->sections[i];
        uint32_t span = s->virtual_size ? s->virtual_size : s->raw_size;
        if ((s->characteristics & PE_SCN_MEM_EXECUTE) && rva >= s->virtual_address &&
            rva - s->virtual_address < span)
            return true;
    }
    return false;
}

int pe_compat_entry(const struct pe_image *pe, uint16_t machine, uint32_t *rva, char *err, size_t errlen)
{
    const struct pe_section *s = find_section(pe, ".compat");
    if (!s)
        return fail(err, errlen, "PE: no .compat section: the image lists no entry for machine 0x%x (a 64-bit "
                    "kernel has the IA-32 one since 5.7 when built with CONFIG_EFI_MIXED)", machine);
    /* The bytes the file gives the section (pe_parse checked they lie in
     * the file); the rest of VirtualSize is zeros, a sentinel. */
    uint32_t len = s->virtual_size && s->virtual_size < s->raw_size ? s->virtual_size : s->raw_size;
    const uint8_t *d = pe->data + s->raw_offset;
    for (uint32_t off = 0; off < len && d[off];) {
        if (len - off < 2)
            return fail(err, errlen, "PE: .compat entry at offset 0x%x: its size byte is past the section's 0x%x bytes",
                        off, len);
        unsigned type = d[off], size = d[off + 1];
        if (size < 2 || size > len - off)
            return fail(err, errlen, "PE: .compat entry at offset 0x%x: size %u is below 2 or runs past the "
                        "section's 0x%x bytes", off, size, len);
        if (type == COMPAT_TYPE_ENTRY && size < COMPAT_ENTRY_SIZE)
            return fail(err, errlen, "PE: .compat entry at offset 0x%x: size %u, an entry point needs %u", off, size,
                        COMPAT_ENTRY_SIZE);
        if (type == COMPAT_TYPE_ENTRY && rd16(d + off + 2) == machine) {
            uint32_t entry = rd32(d + off + 4);
            if (!in_code(pe, entry))
                return fail(err, errlen, "PE: .compat entry for machine 0x%x: entry point RVA 0x%x is not in an "
                            "executable section", machine, entry);
            *rva = entry;
            return 0;
        }
        off += size;
    }
    return fail(err, errlen, "PE: .compat lists no entry for machine 0x%x", machine);
}
