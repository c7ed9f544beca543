#include "guest_mem.h"

#include <string.h>

void guest_mem_init(struct guest_mem *gm, void *host, uint64_t size)
{
    gm->host = host;
    gm->size = size;
    gm->low_size = size < GUEST_HOLE_START ? size : GUEST_HOLE_START;
    gm->touched = NULL;
}

/* The pages of [off, off + len) of the mapping, marked in gm->touched. */
static void mark_touched(const struct guest_mem *gm, uint64_t off, uint64_t len)
{
    if (!gm->touched || !len)
        return;
    for (uint64_t p = off / GUEST_PAGE_SIZE; p <= (off + len - 1) / GUEST_PAGE_SIZE; p++)
        gm->touched[p / 8] |= (uint8_t)(1u << (p % 8));
}

int guest_mem_ranges(const struct guest_mem *gm, struct guest_range out[2])
{
    out[0] = (struct guest_range){ 0, gm->low_size };
    if (gm->size == gm->low_size)
        return 1;
    out[1] = (struct guest_range){ GUEST_HIGH_START, gm->size - gm->low_size };
    return 2;
}

uint64_t guest_mem_top(const struct guest_mem *gm)
{
    if (gm->size == gm->low_size)
        return gm->size;
    return GUEST_HIGH_START + gm->size - gm->low_size;
}

/* The mapping's offset of [gpa, gpa + len); false if any byte is outside RAM. */
static bool mapping_offset(const struct guest_mem *gm, uint64_t gpa, uint64_t len, uint64_t *off)
{
    if (gpa < gm->low_size) {
        if (len > gm->low_size - gpa)
            return false;
        *off = gpa;
        return true;
    }
    if (gpa >= GUEST_HIGH_START && gm->size > gm->low_size) {
        uint64_t high = gm->size - gm->low_size;
        *off = gpa - GUEST_HIGH_START;
        if (*off >= high || len > high - *off)
            return false;
        *off += gm->low_size;
        return true;
    }
    return false;
}

void *guest_mem_ptr(const struct guest_mem *gm, uint64_t gpa, uint64_t len)
{
    uint64_t off;
    if (!mapping_offset(gm, gpa, len, &off))
        return NULL;
    mark_touched(gm, off, len);
    return gm->host + off;
}

bool guest_mem_read(const struct guest_mem *gm, uint64_t gpa, void *dst, uint64_t len)
{
    uint64_t off;
    if (!mapping_offset(gm, gpa, len, &off))
        return false;
    memcpy(dst, gm->host + off, len);
    return true;
}

bool guest_mem_write(const struct guest_mem *gm, uint64_t gpa, const void *src, uint64_t len)
{
    void *p = guest_mem_ptr(gm, gpa, len);
    if (!p)
        return false;
    memcpy(p, src, len);
    return true;
}

/* Intel SDM vol. 3A, 4.3: 32-bit paging. A 4 MiB page's address has
 * bits 39:32 in the directory entry's bits 20:13 (PSE-36). */
static bool translate_paging32(const struct guest_view *v, uint64_t va, uint64_t *pa)
{
    uint32_t pde, pte;
    if (va >> 32 || !guest_mem_read(v->gm, (v->cr3 & 0xfffff000) + (va >> 22) * 4, &pde, 4) || !(pde & PTE_PRESENT))
        return false;
    if (v->pse && (pde & PTE_LARGE)) {
        *pa = (pde & 0xffc00000) | ((uint64_t)(pde & 0x1fe000) << 19) | (va & 0x3fffff);
        return true;
    }
    if (!guest_mem_read(v->gm, (pde & 0xfffff000) + ((va >> 12) & 1023) * 4, &pte, 4) || !(pte & PTE_PRESENT))
        return false;
    *pa = (pte & 0xfffff000) | (va & 0xfff);
    return true;
}

/* Intel SDM vol. 3A, 4.5: 4-level and 5-level paging. */

bool guest_view_translate(const struct guest_view *v, uint64_t va, uint64_t *pa)
{
    if (!v->cr3) {
        *pa = va;
        return true;
    }
    if (v->paging32)
        return translate_paging32(v, va, pa);
    /* Intel SDM vol. 1, 3.3.7.1: in 64-bit mode an address whose bits 63:47
     * (63:56 with LA57) are not copies of bit 47 (56) is not canonical and
     * faults (#GP) without a walk; the walk's indexes would alias it onto
     * the canonical address with the same low bits. */
    unsigned top = v->la57 ? 56 : 47;
    if (!v->pae32 && va >> top && va >> top != ~0ULL >> top)
        return false;
    int levels = v->pae32 ? 3 : v->la57 ? 5 : 4;
    uint64_t table = v->pae32 ? (v->cr3 & 0xffffffe0) : (v->cr3 & PTE_ADDR);
    if (v->pae32 && va >> 32)
        return false;
    for (int level = levels; level >= 1; level--) {
        unsigned shift = 12 + 9 * (level - 1);
        uint64_t entry;
        if (!guest_mem_read(v->gm, table + ((va >> shift) & 511) * 8, &entry, 8))
            return false;
        if (!(entry & PTE_PRESENT))
            return false;
        /* 1 GiB (level 3, not in PAE's PDPT) and 2 MiB (level 2) pages. */
        if (level <= (v->pae32 ? 2 : 3) && level >= 2 && (entry & PTE_LARGE)) {
            uint64_t mask = (1ULL << shift) - 1;
            *pa = ((entry & PTE_ADDR) & ~mask) | (va & mask);
            return true;
        }
        table = entry & PTE_ADDR;
    }
    *pa = table | (va & 0xfff);
    return true;
}

/* Walk [va, va+len) page by page, handing each host span to fn. */
static bool view_each(const struct guest_view *v, uint64_t va, uint64_t len,
                      void (*fn)(void *host, uint64_t n, void *ctx), void *ctx)
{
    /* No access the VMM makes for a guest is larger than its RAM; the cap
     * also bounds the walk when hostile page tables alias a huge virtual
     * range onto a few pages. */
    if ((len && va + len - 1 < va) || len > v->gm->size)
        return false;
    while (len) {
        uint64_t pa, n = 4096 - (va & 0xfff);
        if (n > len)
            n = len;
        if (!guest_view_translate(v, va, &pa))
            return false;
        void *host = guest_mem_ptr(v->gm, pa, n);
        if (!host)
            return false;
        fn(host, n, ctx);
        va += n;
        len -= n;
    }
    return true;
}

/* Check that the whole range is accessible before touching any of it, so a
 * failed access has no partial effect. */
static void span_nop(void *host, uint64_t n, void *ctx) { (void)host; (void)n; (void)ctx; }
static void span_read(void *host, uint64_t n, void *ctx)
{
    uint8_t **dst = ctx;
    memcpy(*dst, host, n);
    *dst += n;
}
static void span_write(void *host, uint64_t n, void *ctx)
{
    const uint8_t **src = ctx;
    memcpy(host, *src, n);
    *src += n;
}
static void span_fill(void *host, uint64_t n, void *ctx) { memset(host, *(uint8_t *)ctx, n); }

bool guest_view_accessible(const struct guest_view *v, uint64_t va, uint64_t len)
{
    return view_each(v, va, len, span_nop, NULL);
}

bool guest_view_read(const struct guest_view *v, uint64_t va, void *dst, uint64_t len)
{
    uint8_t *p = dst;
    return guest_view_accessible(v, va, len) && view_each(v, va, len, span_read, &p);
}

bool guest_view_write(const struct guest_view *v, uint64_t va, const void *src, uint64_t len)
{
    const uint8_t *p = src;
    return guest_view_accessible(v, va, len) && view_each(v, va, len, span_write, &p);
}

bool guest_view_fill(const struct guest_view *v, uint64_t va, uint8_t c, uint64_t len)
{
    return guest_view_accessible(v, va, len) && view_each(v, va, len, span_fill, &c);
}

bool guest_view_read_u64(const struct guest_view *v, uint64_t va, uint64_t *out)
{
    return guest_view_read(v, va, out, 8);
}

bool guest_view_write_u64(const struct guest_view *v, uint64_t va, uint64_t val)
{
    return guest_view_write(v, va, &val, 8);
}
