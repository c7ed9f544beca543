#include "x86_setup.h"

#include <string.h>

#include "layout.h"

#define PTE_P   0x1ULL
#define PTE_RW  0x2ULL
#define PTE_PS  0x80ULL
#define PTE_NX  (1ULL << 63)


static unsigned identity_gib(const struct guest_mem *gm)
{
    uint64_t top = guest_mem_top(gm);
    unsigned gib = (unsigned)((top + (1ULL << 30) - 1) >> 30);
    return gib < 4 ? 4 : gib;
}

int x86_setup_page_tables(const struct guest_mem *gm)
{
    unsigned gib = identity_gib(gm);
    if (gib > LAYOUT_MAX_PD)
        return -1;
    uint64_t *pml4 = guest_mem_ptr(gm, LAYOUT_PML4, 4096);
    uint64_t *pdpt = guest_mem_ptr(gm, LAYOUT_PDPT, 4096);
    uint64_t *pd = guest_mem_ptr(gm, LAYOUT_PD, 4096ULL * gib);
    if (!pml4 || !pdpt || !pd)
        return -1;
    memset(pml4, 0, 4096);
    memset(pdpt, 0, 4096);
    pml4[0] = LAYOUT_PDPT | PTE_P | PTE_RW;
    for (unsigned g = 0; g < gib; g++) {
        pdpt[g] = (LAYOUT_PD + 4096ULL * g) | PTE_P | PTE_RW;
        for (unsigned i = 0; i < 512; i++)
            pd[g * 512 + i] = (((uint64_t)g << 30) + ((uint64_t)i << 21)) | PTE_P | PTE_RW | PTE_PS;
    }
    return (int)gib;
}

void x86_set_nx_outside(const struct guest_mem *gm, const uint64_t (*keep)[2], unsigned nkeep, bool nx)
{
    unsigned gib = identity_gib(gm);
    uint64_t *pd = guest_mem_ptr(gm, LAYOUT_PD, 4096ULL * gib);
    for (unsigned i = 0; i < gib * 512; i++) {
        uint64_t start = (uint64_t)i << 21, end = start + (1ULL << 21);
        bool kept = false;
        for (unsigned k = 0; k < nkeep; k++)
            kept |= start < keep[k][1] && keep[k][0] < end;
        if (nx && !kept)
            pd[i] |= PTE_NX;
        else
            pd[i] &= ~PTE_NX;
    }
}

void x86_setup_gdt(const struct guest_mem *gm)
{
    uint64_t *gdt = guest_mem_ptr(gm, LAYOUT_GDT, 4096);
    memset(gdt, 0, 4096);
    gdt[GDT_CODE64 / 8] = 0x00af9b000000ffffULL;  /* 64-bit code, DPL 0 */
    gdt[GDT_DATA / 8] = 0x00cf93000000ffffULL;    /* flat data */
}

void x86_setup_idt(const struct guest_mem *gm, uint64_t (*handler)(unsigned vector, const void *ctx),
                   const void *ctx)
{
    uint8_t *idt = guest_mem_ptr(gm, LAYOUT_IDT, 4096);
    memset(idt, 0, 4096);
    for (unsigned v = 0; v < 32; v++) {
        uint64_t h = handler(v, ctx);
        uint8_t *g = idt + 16 * v;
        /* 64-bit interrupt gate (Intel SDM vol. 3A, 6.14.1). */
        g[0] = (uint8_t)h;
        g[1] = (uint8_t)(h >> 8);
        g[2] = GDT_CODE64;
        g[3] = 0;
        g[4] = 0;             /* IST */
        g[5] = 0x8e;          /* present, DPL 0, interrupt gate */
        g[6] = (uint8_t)(h >> 16);
        g[7] = (uint8_t)(h >> 24);
        memcpy(g + 8, (uint32_t[]){ (uint32_t)(h >> 32) }, 4);
    }
}

static void segment(struct kvm_segment *s, uint16_t sel, uint8_t type, bool code)
{
    *s = (struct kvm_segment){ .base = 0, .limit = 0xffffffff, .selector = sel, .type = type,
                               .present = 1, .dpl = 0, .db = code ? 0 : 1, .s = 1, .l = code ? 1 : 0, .g = 1 };
}

void x86_setup_sregs(struct kvm_sregs *s)
{
    segment(&s->cs, GDT_CODE64, 0xb, true);
    segment(&s->ds, GDT_DATA, 0x3, false);
    s->es = s->fs = s->gs = s->ss = s->ds;
    s->gdt.base = LAYOUT_GDT;
    s->gdt.limit = 3 * 8 - 1;
    s->idt.base = LAYOUT_IDT;
    s->idt.limit = 32 * 16 - 1;
    s->cr0 = CR0_PE | CR0_MP | CR0_ET | CR0_NE | CR0_WP | CR0_AM | CR0_PG;
    s->cr3 = LAYOUT_PML4;
    s->cr4 = CR4_PAE | CR4_OSFXSR | CR4_OSXMMEXCPT;
    s->efer = EFER_LME | EFER_LMA | EFER_NXE;
}
