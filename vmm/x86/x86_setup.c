#include "x86_setup.h"

#include <string.h>

#include "../../guest/layout.h"

#define IDT_LIMIT (32 * 16 - 1)   /* 32 gates of 16 bytes */

static unsigned identity_gib(const struct guest_mem *gm)
{
    uint64_t top = guest_mem_top(gm);
    unsigned gib = (unsigned)((top + (1ULL << 30) - 1) >> 30);
    return gib < 4 ? 4 : gib;
}

int x86_setup_page_tables(const struct guest_mem *gm)
{
    unsigned gib = identity_gib(gm);
    if (gib > GUEST_MAX_PD)
        return -1;
    uint64_t *pml4 = guest_mem_ptr(gm, GUEST_PML4, 4096);
    uint64_t *alt = guest_mem_ptr(gm, GUEST_PML4_ALT, 4096);
    uint64_t *pdpt = guest_mem_ptr(gm, GUEST_PDPT, 4096);
    uint64_t *pd = guest_mem_ptr(gm, GUEST_PD, 4096ULL * gib);
    if (!pml4 || !alt || !pdpt || !pd)
        return -1;
    memset(pml4, 0, 4096);
    memset(pdpt, 0, 4096);
    pml4[0] = GUEST_PDPT | PTE_PRESENT | PTE_WRITE;
    memcpy(alt, pml4, 4096);
    for (unsigned g = 0; g < gib; g++) {
        pdpt[g] = (GUEST_PD + 4096ULL * g) | PTE_PRESENT | PTE_WRITE;
        for (unsigned i = 0; i < 512; i++)
            pd[g * 512 + i] = (((uint64_t)g << 30) + ((uint64_t)i << 21)) | PTE_PRESENT | PTE_WRITE | PTE_LARGE;
    }
    return (int)gib;
}

void x86_set_nx_outside(const struct guest_mem *gm, const uint64_t (*keep)[2], unsigned nkeep, bool nx)
{
    unsigned gib = identity_gib(gm);
    uint64_t *pd = guest_mem_ptr(gm, GUEST_PD, 4096ULL * gib);
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

uint64_t x86_setup_pae_root(const struct guest_mem *gm)
{
    uint64_t *pdpt = guest_mem_ptr(gm, GUEST_PDPT_PAE, 4 * 8);
    if (!pdpt)
        return 0;
    /* SDM vol. 3A, 4.4.1: a PDPTE holds P and the address; its R/W and U/S
     * bits are reserved. */
    for (unsigned g = 0; g < 4; g++)
        pdpt[g] = (GUEST_PD + 4096ULL * g) | PTE_PRESENT;
    return GUEST_PDPT_PAE;
}

/* The firmware's two flat segments, each written once: the kvm_segment
 * KVM_SET_SREGS loads and the GDT entry are both derived from it
 * (Firecracker's arch/x86_64/gdt.rs does the same). */
static struct kvm_segment flat_segment(uint16_t sel, uint8_t type, bool code)
{
    return (struct kvm_segment){ .base = 0, .limit = 0xffffffff, .selector = sel, .type = type,
                                 .present = 1, .dpl = 0, .db = code ? 0 : 1, .s = 1, .l = code ? 1 : 0, .g = 1 };
}

static struct kvm_segment code_segment(void) { return flat_segment(GUEST_SEL_CODE64, 0xb, true); }   /* execute/read, accessed */
static struct kvm_segment data_segment(void) { return flat_segment(GUEST_SEL_DATA, 0x3, false); }    /* read/write, accessed */

/* The IA-32 firmware's: 32-bit code (D set, L clear) and data. */
static struct kvm_segment code32_segment(void)
{
    struct kvm_segment s = flat_segment(GUEST_SEL_CODE32, 0xb, true);
    s.l = 0;
    s.db = 1;
    return s;
}
static struct kvm_segment data32_segment(void) { return flat_segment(GUEST_SEL_DATA32, 0x3, false); }

/* A segment descriptor (Intel SDM vol. 3A, 3.4.5): the limit in 4 KiB
 * units when G is set. */
uint64_t x86_gdt_entry(const struct kvm_segment *s)
{
    uint64_t limit = s->g ? s->limit >> 12 : s->limit;
    return (limit & 0xffff) | (s->base & 0xffffffULL) << 16 | (uint64_t)(s->type & 0xf) << 40 |
           (uint64_t)s->s << 44 | (uint64_t)(s->dpl & 3) << 45 | (uint64_t)s->present << 47 |
           (limit >> 16 & 0xf) << 48 | (uint64_t)s->avl << 52 | (uint64_t)s->l << 53 | (uint64_t)s->db << 54 |
           (uint64_t)s->g << 55 | (s->base >> 24 & 0xff) << 56;
}

void x86_setup_gdt(const struct guest_mem *gm)
{
    uint64_t *gdt = guest_mem_ptr(gm, GUEST_GDT, 4096);
    struct kvm_segment code = code_segment(), data = data_segment();
    memset(gdt, 0, 4096);
    gdt[GUEST_SEL_CODE64 / 8] = x86_gdt_entry(&code);
    gdt[GUEST_SEL_DATA / 8] = x86_gdt_entry(&data);
}

void x86_setup_gdt32(const struct guest_mem *gm)
{
    uint64_t *gdt = guest_mem_ptr(gm, GUEST_GDT, 4096);
    struct kvm_segment code = code32_segment(), data = data32_segment();
    memset(gdt, 0, 4096);
    gdt[GUEST_SEL_CODE32 / 8] = x86_gdt_entry(&code);
    gdt[GUEST_SEL_DATA32 / 8] = x86_gdt_entry(&data);
}

static void fill_idt(const struct guest_mem *gm, uint64_t (*handler)(unsigned vector, const void *ctx),
                     const void *ctx, uint8_t selector)
{
    uint8_t *idt = guest_mem_ptr(gm, GUEST_IDT, 4096);
    memset(idt, 0, 4096);
    for (unsigned v = 0; v < 32; v++) {
        uint64_t h = handler(v, ctx);
        uint8_t *g = idt + 16 * v;
        /* 64-bit interrupt gate (Intel SDM vol. 3A, 6.14.1). */
        g[0] = (uint8_t)h;
        g[1] = (uint8_t)(h >> 8);
        g[2] = selector;
        g[3] = 0;
        g[4] = 0;             /* IST */
        g[5] = 0x8e;          /* present, DPL 0, interrupt gate */
        g[6] = (uint8_t)(h >> 16);
        g[7] = (uint8_t)(h >> 24);
        memcpy(g + 8, (uint32_t[]){ (uint32_t)(h >> 32) }, 4);
    }
}

void x86_setup_idt(const struct guest_mem *gm, uint64_t (*handler)(unsigned vector, const void *ctx),
                   const void *ctx)
{
    fill_idt(gm, handler, ctx, GUEST_SEL_CODE64);
}

void x86_setup_idt_mixed(const struct guest_mem *gm, uint64_t (*handler)(unsigned vector, const void *ctx),
                         const void *ctx)
{
    fill_idt(gm, handler, ctx, GUEST_SEL_CODE32);
}

int x86_mixed_thunk_keep_firmware_idt(const struct guest_mem *gm, uint32_t ebx)
{
    uint8_t desc[10];   /* SIDT's in long mode: the limit, then an 8-byte base */
    const uint16_t limit = IDT_LIMIT;
    const uint64_t base = GUEST_IDT;
    memcpy(desc, &limit, 2);
    memcpy(desc + 2, &base, 8);
    return guest_mem_write(gm, (uint64_t)ebx + 16, desc, sizeof(desc)) ? 0 : -1;
}

void x86_setup_idt32(const struct guest_mem *gm, uint64_t (*handler)(unsigned vector, const void *ctx),
                     const void *ctx)
{
    uint8_t *idt = guest_mem_ptr(gm, GUEST_IDT, 4096);
    memset(idt, 0, 4096);
    for (unsigned v = 0; v < 32; v++) {
        uint32_t h = (uint32_t)handler(v, ctx);
        uint8_t *g = idt + 8 * v;
        /* 32-bit interrupt gate (Intel SDM vol. 3A, 6.11). */
        g[0] = (uint8_t)h;
        g[1] = (uint8_t)(h >> 8);
        g[2] = GUEST_SEL_CODE32;
        g[3] = 0;
        g[4] = 0;
        g[5] = 0x8e;          /* present, DPL 0, 32-bit interrupt gate */
        g[6] = (uint8_t)(h >> 16);
        g[7] = (uint8_t)(h >> 24);
    }
}

void x86_setup_sregs32(struct kvm_sregs *s)
{
    s->cs = code32_segment();
    s->ds = data32_segment();
    s->es = s->fs = s->gs = s->ss = s->ds;
    s->gdt.base = GUEST_GDT;
    s->gdt.limit = 4 * 8 - 1;
    s->idt.base = GUEST_IDT;
    s->idt.limit = IDT_LIMIT;
    s->cr0 = CR0_PE | CR0_MP | CR0_ET | CR0_NE;
    s->cr3 = 0;
    s->cr4 = CR4_OSFXSR | CR4_OSXMMEXCPT;
    s->efer = EFER_NXE;
}

void x86_setup_sregs(struct kvm_sregs *s)
{
    s->cs = code_segment();
    s->ds = data_segment();
    s->es = s->fs = s->gs = s->ss = s->ds;
    s->gdt.base = GUEST_GDT;
    s->gdt.limit = 3 * 8 - 1;
    s->idt.base = GUEST_IDT;
    s->idt.limit = IDT_LIMIT;
    s->cr0 = CR0_PE | CR0_MP | CR0_ET | CR0_NE | CR0_WP | CR0_AM | CR0_PG;
    s->cr3 = GUEST_PML4;
    s->cr4 = CR4_PAE | CR4_OSFXSR | CR4_OSXMMEXCPT;
    s->efer = EFER_LME | EFER_LMA | EFER_NXE;
}

struct guest_view x86_guest_view(const struct guest_mem *gm, const struct kvm_sregs *s)
{
    bool paging = s->cr0 & CR0_PG, long_mode = s->efer & EFER_LMA, pae = s->cr4 & CR4_PAE;
    return (struct guest_view){ .gm = gm, .cr3 = paging ? s->cr3 : 0, .la57 = long_mode && (s->cr4 & CR4_LA57),
                                .pae32 = pae && !long_mode, .paging32 = !pae && !long_mode,
                                .pse = (s->cr4 & CR4_PSE) != 0 };
}
