/* Page protection in handover's identity map (page_prot.h). Intel SDM
 * vol. 3A, 4.5 (4-level paging) and 4.6 (access rights: the restrictions
 * of every level add up). */
#include "page_prot.h"

#include "layout.h"

#define SIZE_4K 0x1000ULL
#define SIZE_2M (1ULL << 21)

static unsigned prot_of(uint64_t entry)
{
    return (entry & PTE_PRESENT ? 0 : PAGE_PROT_NOT_PRESENT) | (entry & PTE_WRITE ? 0 : PAGE_PROT_READ_ONLY) |
           (entry & PTE_NX ? PAGE_PROT_NO_EXECUTE : 0);
}

/* The leaf entry of an identity map for the page at base. */
static uint64_t leaf_entry(uint64_t base, unsigned prot, bool large)
{
    return base | (large ? PTE_LARGE : 0) | (prot & PAGE_PROT_NOT_PRESENT ? 0 : PTE_PRESENT) |
           (prot & PAGE_PROT_READ_ONLY ? 0 : PTE_WRITE) | (prot & PAGE_PROT_NO_EXECUTE ? PTE_NX : 0);
}

/* Where the leaf entry mapping a page is: its guest address, whether it
 * maps 2 MiB, and the restrictions of the entries above it. */
struct leaf {
    uint64_t at;
    bool large;
    unsigned above;
};

/* The leaf for addr, through the PDPT entry that must point at the page
 * directory x86_setup.c put there; false if the map does not reach addr.
 * A page directory entry not present is a 2 MiB leaf whatever its other
 * bits: nothing below it is used. */
static bool find_leaf(const struct guest_mem *gm, uint64_t addr, struct leaf *l)
{
    uint64_t gib = addr >> 30, pd = GUEST_PD + (gib << 12), pdpte, pde;
    if (gib >= GUEST_MAX_PD || !guest_mem_read(gm, GUEST_PDPT + 8 * gib, &pdpte, 8) ||
        (pdpte & (PTE_ADDR | PTE_PRESENT | PTE_LARGE)) != (pd | PTE_PRESENT))
        return false;
    l->at = pd + 8 * ((addr >> 21) & 511);
    l->above = prot_of(pdpte);
    if (!guest_mem_read(gm, l->at, &pde, 8))
        return false;
    l->large = (pde & PTE_LARGE) || !(pde & PTE_PRESENT);
    if (l->large)
        return true;
    uint64_t pt = pde & PTE_ADDR;
    l->above |= prot_of(pde);
    l->at = pt + 8 * ((addr >> 12) & 511);
    return guest_mem_ptr(gm, pt, SIZE_4K) != NULL;
}

bool page_prot_get(const struct guest_mem *gm, uint64_t addr, unsigned *prot, uint64_t *end)
{
    struct leaf l;
    uint64_t e;
    if (!find_leaf(gm, addr, &l) || !guest_mem_read(gm, l.at, &e, 8))
        return false;
    uint64_t size = l.large ? SIZE_2M : SIZE_4K;
    *prot = prot_of(e) | l.above;
    *end = (addr & ~(size - 1)) + size;
    return true;
}

int page_prot_uniform(const struct guest_mem *gm, uint64_t start, uint64_t len, unsigned *prot)
{
    uint64_t end = start + len, next;
    unsigned p;
    bool mixed = false;
    if (end < start)
        return -1;
    /* Every leaf is looked at, mixed or not: a range the map does not
     * reach is that, whatever its first pages hold. */
    for (uint64_t a = start; a < end; a = next) {
        if (!page_prot_get(gm, a, &p, &next))
            return -1;
        if (a == start)
            *prot = p;
        mixed |= p != *prot;
    }
    return !mixed;
}

/* The 2 MiB leaf holding addr becomes a page table of 4 KiB leaves with
 * the same protection, if this change alters it; -1 if alloc has no page. */
static int split(const struct guest_mem *gm, uint64_t addr, unsigned set, unsigned clear, page_table_alloc *alloc,
                 void *ctx)
{
    struct leaf l;
    uint64_t e;
    if (!find_leaf(gm, addr, &l) || !l.large || !guest_mem_read(gm, l.at, &e, 8))
        return 0;
    unsigned prot = prot_of(e);
    if (((prot | set) & ~clear) == prot)
        return 0;
    uint64_t pt = alloc(ctx);
    uint64_t *table = !pt || (pt & (SIZE_4K - 1)) ? NULL : guest_mem_ptr(gm, pt, SIZE_4K);
    if (!table)
        return -1;
    uint64_t base = addr & ~(SIZE_2M - 1);
    for (unsigned i = 0; i < 512; i++)
        table[i] = leaf_entry(base + i * SIZE_4K, prot, false);
    /* Above a table, the leaves decide: present, writable, executable. */
    uint64_t pde = pt | PTE_PRESENT | PTE_WRITE;
    guest_mem_write(gm, l.at, &pde, 8);
    return 0;
}

enum page_prot_change_result page_prot_change(const struct guest_mem *gm, uint64_t start, uint64_t len,
                                              unsigned set, unsigned clear, page_table_alloc *alloc, void *ctx)
{
    uint64_t end = start + len, next;
    unsigned prot;
    if (end < start)
        return PAGE_PROT_UNMAPPED;
    for (uint64_t a = start; a < end; a = next)
        if (!page_prot_get(gm, a, &prot, &next))
            return PAGE_PROT_UNMAPPED;
    /* The 2 MiB pages the range covers in part: its first and its last. */
    if ((start & (SIZE_2M - 1)) && split(gm, start, set, clear, alloc, ctx))
        return PAGE_PROT_NO_TABLE;
    if ((end & (SIZE_2M - 1)) && split(gm, end - 1, set, clear, alloc, ctx))
        return PAGE_PROT_NO_TABLE;
    enum page_prot_change_result r = PAGE_PROT_SAME;
    for (uint64_t a = start; a < end; a = next) {
        struct leaf l;
        uint64_t e;
        if (!find_leaf(gm, a, &l) || !guest_mem_read(gm, l.at, &e, 8))
            return PAGE_PROT_UNMAPPED;
        uint64_t size = l.large ? SIZE_2M : SIZE_4K, base = a & ~(size - 1);
        unsigned old = prot_of(e), new = (old | set) & ~clear;
        next = base + size;
        if (new == old)
            continue;
        e = leaf_entry(base, new, l.large);
        guest_mem_write(gm, l.at, &e, 8);
        r = PAGE_PROT_CHANGED;
    }
    return r;
}
