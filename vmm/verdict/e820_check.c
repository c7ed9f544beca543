#include "e820_check.h"

#include <string.h>

const char *e820_type_name(uint32_t t)
{
    switch (t) {
    case E820_TYPE_RAM: return "RAM";
    case E820_TYPE_RESERVED: return "reserved";
    case E820_TYPE_ACPI: return "ACPI";
    case E820_TYPE_NVS: return "NVS";
    case E820_TYPE_UNUSABLE: return "unusable";
    case E820_TYPE_PMEM: return "persistent";
    case E820_TYPE_SOFT_RESERVED: return "soft-reserved";
    default: return "unknown";
    }
}

/* The zero page holds E820_MAX_ENTRIES_ZEROPAGE entries; setup_e820 puts
 * the rest in a SETUP_E820_EXT setup_data entry. */
bool e820_read_whole(const struct guest_mem *gm, const struct boot_params *bp, struct boot_e820_entry *out,
                     unsigned *n)
{
    bool whole = bp->e820_entries <= E820_MAX_ENTRIES_ZEROPAGE;
    *n = whole ? bp->e820_entries : E820_MAX_ENTRIES_ZEROPAGE;
    memcpy(out, bp->e820_table, *n * sizeof(*out));
    uint64_t sd = bp->hdr.setup_data;
    for (int hops = 0; sd; hops++) {
        struct setup_data_header h;
        if (hops == 64 || !guest_mem_read(gm, sd, &h, sizeof(h)))
            return false;
        if (h.type == SETUP_E820_EXT) {
            unsigned extra = h.len / sizeof(*out);
            if (extra > MAX_E820 - *n) {
                extra = MAX_E820 - *n;
                whole = false;
            }
            if (!guest_mem_read(gm, sd + sizeof(h), out + *n, extra * sizeof(*out)))
                return false;
            *n += extra;
        }
        sd = h.next;
    }
    return whole;
}

unsigned e820_read(const struct guest_mem *gm, const struct boot_params *bp, struct boot_e820_entry *out)
{
    unsigned n;
    e820_read_whole(gm, bp, out, &n);
    return n;
}

/* setup_e820: types converted, neighbours of one type merged. */
unsigned e820_expected(const struct memmap *m, struct boot_e820_entry *out)
{
    unsigned n = 0;
    for (unsigned i = 0; i < m->n; i++) {
        uint32_t t = memmap_e820_type(m->e[i].type);
        uint64_t size = m->e[i].pages << 12;
        if (!t)
            continue;
        if (n && out[n - 1].type == t && out[n - 1].addr + out[n - 1].size == m->e[i].start) {
            out[n - 1].size += size;
            continue;
        }
        out[n++] = (struct boot_e820_entry){ m->e[i].start, size, t };
    }
    return n;
}

static bool kernel_knows(uint32_t t)
{
    switch (t) {
    case E820_TYPE_RAM:
    case E820_TYPE_RESERVED:
    case E820_TYPE_ACPI:
    case E820_TYPE_NVS:
    case E820_TYPE_UNUSABLE:
    case E820_TYPE_PMEM:
    case E820_TYPE_PRAM:
    case E820_TYPE_SOFT_RESERVED:
        return true;
    default:
        return false;
    }
}

unsigned e820_as_kernel_reads(struct boot_e820_entry *e, unsigned n)
{
    unsigned out = 0;
    for (unsigned i = 0; i < n; i++) {
        struct boot_e820_entry r = e[i];
        if (!kernel_knows(r.type))
            r.type = E820_TYPE_RESERVED;
        if (out && e[out - 1].type == r.type && e[out - 1].addr + e[out - 1].size == r.addr) {
            e[out - 1].size += r.size;
            continue;
        }
        e[out++] = r;
    }
    return out;
}

bool e820_equal(const struct boot_e820_entry *a, unsigned na, const struct boot_e820_entry *b, unsigned nb)
{
    bool same = na == nb;
    for (unsigned i = 0; same && i < na; i++)
        same = a[i].addr == b[i].addr && a[i].size == b[i].size && a[i].type == b[i].type;
    return same;
}
