/* The entry of a kernel another boot loader placed (kernel_entry.h). */
#include "kernel_entry.h"

#include <stddef.h>
#include <string.h>

#include "../guest/bootparam.h"
#include "../guest/layout.h"

const uint8_t kernel_entry_trap[KERNEL_ENTRY_TRAP_LEN] = { 0xe6, GUEST_PORT_HYPERCALL };

static bool loader_memory(const struct memmap *map, uint64_t addr)
{
    int type = memmap_type_at(map, addr);
    return type == EFI_LOADER_CODE || type == EFI_LOADER_DATA;
}

/* The entries a header names: code32_start, and startup_64 past it with
 * XLF_KERNEL_64 (xloadflags: protocol 2.12). Returns their number. */
static unsigned entries_named(const struct setup_header *h, uint64_t at[KERNEL_ENTRY_MAX])
{
    unsigned n = 0;
    at[n++] = h->code32_start;
    if (h->version >= 0x020c && (h->xloadflags & XLF_KERNEL_64))
        at[n++] = (uint64_t)h->code32_start + KERNEL_ENTRY_64_OFFSET;
    return n;
}

/* Every byte of the trap at an entry in the loader's memory, where the
 * kernel it placed lies: never over the firmware's own pages, or any
 * other the loader did not allocate. */
static bool trappable(const struct memmap *map, uint64_t at)
{
    return loader_memory(map, at) && loader_memory(map, at + KERNEL_ENTRY_TRAP_LEN - 1);
}

/* The boot_params a loader built at page, with its entries, into out. */
static bool built_by_loader(const struct guest_mem *gm, const struct memmap *map, uint64_t page,
                            struct kernel_entry *out)
{
    struct setup_header h;
    if (!guest_mem_read(gm, page + offsetof(struct boot_params, hdr), &h, sizeof(h)) ||
        h.header != SETUP_HDRS_MAGIC || h.version < 0x0200 || !h.type_of_loader)
        return false;
    uint64_t at[KERNEL_ENTRY_MAX] = { 0 };
    unsigned n = entries_named(&h, at);
    for (unsigned i = 0; i < n; i++)
        if (!trappable(map, at[i]))
            return false;
    *out = (struct kernel_entry){ .boot_params = page, .at = { at[0], at[1] }, .n = n };
    return true;
}

bool kernel_entry_find(const struct guest_mem *gm, const struct memmap *map, struct kernel_entry *out)
{
    *out = (struct kernel_entry){ 0 };
    for (unsigned i = 0; i < map->n; i++) {
        const struct memmap_entry *d = &map->e[i];
        if (d->type != EFI_LOADER_CODE && d->type != EFI_LOADER_DATA)
            continue;
        for (uint64_t p = 0; p < d->pages; p++)
            if (built_by_loader(gm, map, d->start + (p << 12), out))
                return true;
    }
    return false;
}

bool kernel_entry_arm(const struct guest_mem *gm, const struct kernel_entry *e)
{
    /* All or none: a trap written over one entry while another cannot be
     * would be stopped at by nobody, and the kernel would run its bytes. */
    uint8_t *at[KERNEL_ENTRY_MAX];
    for (unsigned i = 0; i < e->n; i++)
        if (!(at[i] = guest_mem_ptr(gm, e->at[i], sizeof(kernel_entry_trap))))
            return false;
    for (unsigned i = 0; i < e->n; i++)
        memcpy(at[i], kernel_entry_trap, sizeof(kernel_entry_trap));
    return true;
}

int kernel_entry_index(const struct kernel_entry *e, uint64_t rip)
{
    for (unsigned i = 0; i < e->n; i++)
        if (e->at[i] == rip)
            return (int)i;
    return -1;
}
