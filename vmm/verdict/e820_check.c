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

/* e820_nomerge: ranges that may mark platform boundaries stay apart. */
static bool kernel_keeps_apart(uint32_t t)
{
    return t == E820_TYPE_PRAM || t == E820_TYPE_SOFT_RESERVED;
}

/* The type e820__update_table gives the point at: the largest of the
 * entries over it, 0 if none is. */
static uint32_t type_at(const struct boot_e820_entry *e, unsigned n, uint64_t at)
{
    uint32_t t = 0;
    for (unsigned i = 0; i < n; i++)
        if (e[i].addr <= at && at - e[i].addr < e[i].size && e[i].type > t)
            t = e[i].type;
    return t;
}

/* The start and end points of the entries, ascending, each once. */
static unsigned change_points(const struct boot_e820_entry *e, unsigned n, uint64_t *pt)
{
    unsigned np = 0;
    for (unsigned i = 0; i < 2 * n; i++) {
        uint64_t a = i < n ? e[i].addr : e[i - n].addr + e[i - n].size;
        unsigned k = np;
        while (k && pt[k - 1] > a)
            k--;
        if (k && pt[k - 1] == a)
            continue;
        memmove(pt + k + 1, pt + k, (np - k) * sizeof(*pt));
        pt[k] = a;
        np++;
    }
    return np;
}

unsigned e820_as_kernel_reads(struct boot_e820_entry *e, unsigned n)
{
    static uint64_t pt[2 * MAX_E820];
    static struct boot_e820_entry in[MAX_E820];
    /* e820__update_table leaves a table with an entry that wraps as it is. */
    for (unsigned i = 0; i < n; i++)
        if (e[i].addr + e[i].size < e[i].addr)
            return n;
    memcpy(in, e, n * sizeof(*e));
    unsigned np = change_points(in, n, pt), out = 0;
    for (unsigned k = 0; k + 1 < np; k++) {
        uint32_t t = type_at(in, n, pt[k]);
        if (!t)
            continue;
        if (!kernel_knows(t))
            t = E820_TYPE_RESERVED;
        struct boot_e820_entry *last = out ? &e[out - 1] : NULL;
        if (last && last->type == t && last->addr + last->size == pt[k] && !kernel_keeps_apart(t))
            last->size += pt[k + 1] - pt[k];
        else
            e[out++] = (struct boot_e820_entry){ pt[k], pt[k + 1] - pt[k], t };
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
