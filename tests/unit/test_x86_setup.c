/* vmm/x86_setup.c: the long-mode state the vCPU starts in. The page tables
 * are checked by walking them with guest_view (cr3 = GUEST_PML4), the
 * descriptors against Intel SDM vol. 3A sections 3.4.5 and 6.14.1. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "suites.h"
#include "../../guest/layout.h"
#include "../../vmm/x86/x86_setup.h"

#define MiB(n) ((uint64_t)(n) << 20)
#define GiB(n) ((uint64_t)(n) << 30)
#define PTE_NX (1ULL << 63)

#define RAM_SIZE MiB(64)
static uint8_t *ram;
static struct guest_mem gm;

static void setup(void)
{
    ram = calloc(1, RAM_SIZE);
    ck_assert_ptr_nonnull(ram);
    guest_mem_init(&gm, ram, RAM_SIZE);
}

static void teardown(void)
{
    free(ram);
    ram = NULL;
}

static bool identity(const struct guest_mem *m, uint64_t va)
{
    struct guest_view v = { m, GUEST_PML4, false, false, false, false };
    uint64_t pa = ~0ULL;
    return guest_view_translate(&v, va, &pa) && pa == va;
}

static uint64_t pde(uint64_t va)
{
    uint64_t e;
    memcpy(&e, ram + GUEST_PD + 8 * (va >> 21), 8);
    return e;
}

START_TEST(page_tables_identity_map_4g_with_2m_pages)
{
    ck_assert_int_eq(x86_setup_page_tables(&gm), 4);
    const uint64_t probes[] = { 0, 0x1000, 0x123456, GUEST_PML4, RAM_SIZE - 1, GiB(1) + 0x1234,
                                GiB(3) - 1, 0xfee00000, GiB(4) - 1 };
    for (unsigned i = 0; i < sizeof(probes) / sizeof(probes[0]); i++)
        ck_assert_msg(identity(&gm, probes[i]), "0x%llx is not identity-mapped", (unsigned long long)probes[i]);
    struct guest_view v = { &gm, GUEST_PML4, false, false, false, false };
    uint64_t pa;
    ck_assert(!guest_view_translate(&v, GiB(4), &pa));
    ck_assert(!guest_view_translate(&v, 0xffff800000000000ULL, &pa));
    ck_assert_uint_eq(pde(0x200000), 0x200000 | 0x83);   /* present, writable, 2 MiB */
    /* The second PML4 holds the same map (switching to it flushes the TLB). */
    ck_assert_mem_eq(ram + GUEST_PML4_ALT, ram + GUEST_PML4, 4096);
    struct guest_view alt = { &gm, GUEST_PML4_ALT, false, false, false, false };
    ck_assert(guest_view_translate(&alt, GiB(3) - 1, &pa) && pa == GiB(3) - 1);
}
END_TEST

START_TEST(page_tables_reach_the_top_of_ram_above_4g)
{
    const uint64_t size = GiB(5);   /* 3 GiB low, 2 GiB from 4 GiB: top at 6 GiB */
    uint8_t *big = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    ck_assert_ptr_ne(big, MAP_FAILED);
    struct guest_mem bgm;
    guest_mem_init(&bgm, big, size);
    int n = x86_setup_page_tables(&bgm);
    bool low = identity(&bgm, GiB(2) + 0x5000), high = identity(&bgm, GiB(5) + 0x12345);
    bool top = identity(&bgm, GiB(6) - 1), past = identity(&bgm, GiB(6));
    munmap(big, size);
    ck_assert_int_eq(n, 6);
    ck_assert(low);
    ck_assert(high);
    ck_assert(top);
    ck_assert(!past);
}
END_TEST

START_TEST(page_tables_refuse_more_than_the_layout_allows)
{
    struct guest_mem huge;
    guest_mem_init(&huge, ram, (uint64_t)GUEST_MAX_PD << 30);   /* top = 65 GiB: one PD too many */
    ck_assert_int_eq(x86_setup_page_tables(&huge), -1);
    struct guest_mem tiny;
    guest_mem_init(&tiny, ram, GUEST_PML4);                       /* no room for the tables */
    ck_assert_int_eq(x86_setup_page_tables(&tiny), -1);
}
END_TEST

START_TEST(nx_is_set_outside_the_kept_ranges_and_cleared_again)
{
    ck_assert_int_eq(x86_setup_page_tables(&gm), 4);
    const uint64_t keep[2][2] = { { MiB(16), MiB(20) }, { MiB(33), MiB(33) + 0x1000 } };
    x86_set_nx_outside(&gm, keep, 2, true);
    ck_assert_uint_eq(pde(MiB(14)) & PTE_NX, PTE_NX);
    ck_assert_uint_eq(pde(MiB(16)) & PTE_NX, 0);
    ck_assert_uint_eq(pde(MiB(18)) & PTE_NX, 0);
    ck_assert_uint_eq(pde(MiB(20)) & PTE_NX, PTE_NX);
    ck_assert_uint_eq(pde(MiB(32)) & PTE_NX, 0);      /* one 4 KiB page keeps its 2 MiB page */
    ck_assert_uint_eq(pde(GiB(4) - MiB(2)) & PTE_NX, PTE_NX);
    ck_assert(identity(&gm, MiB(14) + 0x10));         /* still mapped */
    x86_set_nx_outside(&gm, keep, 2, false);
    for (uint64_t va = 0; va < GiB(4); va += MiB(2))
        ck_assert_uint_eq(pde(va) & PTE_NX, 0);
}
END_TEST

START_TEST(gdt_holds_flat_64_bit_code_and_data)
{
    x86_setup_gdt(&gm);
    uint64_t d[3];
    memcpy(d, ram + GUEST_GDT, sizeof(d));
    ck_assert_uint_eq(d[0], 0);
    uint64_t code = d[GUEST_SEL_CODE64 / 8], data = d[GUEST_SEL_DATA / 8];
    ck_assert_uint_eq((code >> 47) & 1, 1);      /* present */
    ck_assert_uint_eq((code >> 45) & 3, 0);      /* DPL 0 */
    ck_assert_uint_eq((code >> 44) & 1, 1);      /* code/data, not system */
    ck_assert_uint_eq((code >> 43) & 1, 1);      /* executable */
    ck_assert_uint_eq((code >> 53) & 1, 1);      /* L: 64-bit */
    ck_assert_uint_eq((code >> 54) & 1, 0);      /* D must be 0 with L */
    ck_assert_uint_eq((data >> 47) & 1, 1);
    ck_assert_uint_eq((data >> 43) & 1, 0);      /* not executable */
    ck_assert_uint_eq((data >> 41) & 1, 1);      /* writable */
    ck_assert_uint_eq((data >> 54) & 1, 1);      /* B: 32-bit stack */
    ck_assert_uint_eq((data & 0xffff) | ((data >> 32) & 0xf0000), 0xfffff);   /* limit, with G: 4 GiB */
    /* The kernel's GDT_ENTRY(0xa09b, 0, 0xfffff) and GDT_ENTRY(0xc093, 0, 0xfffff). */
    ck_assert_uint_eq(code, 0x00af9b000000ffffULL);
    ck_assert_uint_eq(data, 0x00cf93000000ffffULL);
}
END_TEST

static uint64_t handler_for(unsigned vector, const void *ctx)
{
    return *(const uint64_t *)ctx + 16 * vector;
}

START_TEST(idt_gates_point_at_the_handlers)
{
    const uint64_t base = 0xfedcba9876540000ULL;
    x86_setup_idt(&gm, handler_for, &base);
    for (unsigned v = 0; v < 32; v++) {
        const uint8_t *g = ram + GUEST_IDT + 16 * v;
        uint64_t off = g[0] | (uint64_t)g[1] << 8 | (uint64_t)g[6] << 16 | (uint64_t)g[7] << 24;
        uint32_t hi;
        memcpy(&hi, g + 8, 4);
        off |= (uint64_t)hi << 32;
        ck_assert_uint_eq(off, base + 16 * v);
        ck_assert_uint_eq(g[2] | g[3] << 8, GUEST_SEL_CODE64);
        ck_assert_uint_eq(g[4] & 7, 0);      /* no IST */
        ck_assert_uint_eq(g[5], 0x8e);       /* present, DPL 0, 64-bit interrupt gate */
        ck_assert_uint_eq(g[12] | g[13] | g[14] | g[15], 0);
    }
    ck_assert_uint_eq(ram[GUEST_IDT + 16 * 32 + 5], 0);   /* nothing past vector 31 */
}
END_TEST

START_TEST(sregs_enter_long_mode_with_paging)
{
    struct kvm_sregs s;
    memset(&s, 0xff, sizeof(s));
    x86_setup_sregs(&s);
    ck_assert_uint_eq(s.cr0 & 0x80000001u, 0x80000001u);   /* PG, PE */
    ck_assert_uint_eq(s.cr0 & (1u << 16), 1u << 16);        /* WP */
    ck_assert_uint_eq(s.cr4 & (1u << 5), 1u << 5);          /* PAE */
    ck_assert_uint_eq(s.cr4 & (1u << 12), 0);               /* not LA57 */
    ck_assert_uint_eq(s.efer & 0xd00, 0xd00);               /* LME, LMA, NXE */
    ck_assert_uint_eq(s.cr3, GUEST_PML4);
    ck_assert_uint_eq(s.cs.l, 1);
    ck_assert_uint_eq(s.cs.db, 0);
    ck_assert_uint_eq(s.cs.selector, GUEST_SEL_CODE64);
    ck_assert_uint_eq(s.cs.present, 1);
    ck_assert_uint_eq(s.ss.selector, GUEST_SEL_DATA);
    ck_assert_uint_eq(s.ds.type & 0x2, 0x2);                /* writable data */
    ck_assert_uint_eq(s.gdt.base, GUEST_GDT);
    ck_assert_uint_ge(s.gdt.limit, GUEST_SEL_DATA + 7);
    ck_assert_uint_eq(s.idt.base, GUEST_IDT);
    ck_assert_uint_eq(s.idt.limit, 32 * 16 - 1);
}
END_TEST

START_TEST(sregs_segments_agree_with_the_gdt)
{
    struct kvm_sregs s;
    memset(&s, 0, sizeof(s));
    x86_setup_sregs(&s);
    x86_setup_gdt(&gm);
    uint64_t code, data;
    memcpy(&code, ram + GUEST_GDT + GUEST_SEL_CODE64, 8);
    memcpy(&data, ram + GUEST_GDT + GUEST_SEL_DATA, 8);
    ck_assert_uint_eq(s.cs.type, (code >> 40) & 0xf);
    ck_assert_uint_eq(s.cs.l, (code >> 53) & 1);
    ck_assert_uint_eq(s.cs.g, (code >> 55) & 1);
    ck_assert_uint_eq(s.ds.type, (data >> 40) & 0xf);
    ck_assert_uint_eq(s.ds.db, (data >> 54) & 1);
}
END_TEST

/* An IA-32 firmware's: flat 32-bit code and data at __BOOT_CS and
 * __BOOT_DS (boot.rst, 32-bit boot protocol), which the mixed-mode kernel
 * saves and reloads for its calls (efi_mixed.S). */
START_TEST(gdt32_holds_flat_32_bit_code_and_data_at_the_boot_selectors)
{
    x86_setup_gdt32(&gm);
    uint64_t d[4];
    memcpy(d, ram + GUEST_GDT, sizeof(d));
    ck_assert_uint_eq(GUEST_SEL_CODE32, 0x10);
    ck_assert_uint_eq(GUEST_SEL_DATA32, 0x18);
    ck_assert_uint_eq(d[0] | d[1], 0);
    /* The kernel's GDT_ENTRY(0xc09b, 0, 0xfffff) and GDT_ENTRY(0xc093, 0, 0xfffff). */
    ck_assert_uint_eq(d[GUEST_SEL_CODE32 / 8], 0x00cf9b000000ffffULL);
    ck_assert_uint_eq(d[GUEST_SEL_DATA32 / 8], 0x00cf93000000ffffULL);
}
END_TEST

START_TEST(sregs32_enter_protected_mode_without_paging)
{
    struct kvm_sregs s;
    memset(&s, 0xff, sizeof(s));
    x86_setup_sregs32(&s);
    x86_setup_gdt32(&gm);
    ck_assert_uint_eq(s.cr0 & 0x80000001u, 1);              /* PE, not PG */
    ck_assert_uint_eq(s.cr4 & (1u << 5), 0);                 /* not PAE: the kernel sets it */
    ck_assert_uint_eq(s.efer, 1u << 11);                     /* NXE only: no long mode */
    ck_assert_uint_eq(s.cs.selector, GUEST_SEL_CODE32);
    ck_assert_uint_eq(s.cs.l, 0);
    ck_assert_uint_eq(s.cs.db, 1);
    ck_assert_uint_eq(s.ss.selector, GUEST_SEL_DATA32);
    ck_assert_uint_eq(s.ds.selector, GUEST_SEL_DATA32);
    ck_assert_uint_eq(s.gdt.limit, GUEST_SEL_DATA32 + 7);
    uint64_t code;
    memcpy(&code, ram + GUEST_GDT + GUEST_SEL_CODE32, 8);
    ck_assert_uint_eq(s.cs.type, (code >> 40) & 0xf);
    ck_assert_uint_eq(s.cs.db, (code >> 54) & 1);
}
END_TEST

/* Its IDT serves the stub's long mode on the kernel's GDT: 64-bit gates
 * on 0x10, the kernel's __KERNEL_CS. */
START_TEST(idt_mixed_gates_name_the_kernels_code_selector)
{
    const uint64_t base = 0x100800;
    x86_setup_idt_mixed(&gm, handler_for, &base);
    for (unsigned v = 0; v < 32; v++) {
        const uint8_t *g = ram + GUEST_IDT + 16 * v;
        ck_assert_uint_eq(g[0] | g[1] << 8 | g[6] << 16 | (uint32_t)g[7] << 24, base + 16 * v);
        ck_assert_uint_eq(g[2] | g[3] << 8, 0x10);
        ck_assert_uint_eq(g[5], 0x8e);
    }
}
END_TEST

/* With --stop-at ebs the IDTR a mixed-mode thunk saved at 16(%ebx) becomes
 * the firmware's (SIDT's 10 bytes, the same as sregs32's), the rest of the
 * thunk's frame untouched; a frame outside RAM is refused. */
START_TEST(mixed_thunk_keeps_the_firmware_idt)
{
    const uint32_t ebx = 0x200000;
    memset(ram + ebx, 0xcc, 32);
    ck_assert_int_eq(x86_mixed_thunk_keep_firmware_idt(&gm, ebx), 0);
    struct kvm_sregs s;
    x86_setup_sregs32(&s);
    uint16_t limit;
    uint64_t base;
    memcpy(&limit, ram + ebx + 16, 2);
    memcpy(&base, ram + ebx + 18, 8);
    ck_assert_uint_eq(limit, s.idt.limit);
    ck_assert_uint_eq(base, s.idt.base);
    ck_assert_uint_eq(ram[ebx + 15], 0xcc);   /* the saved GDTR's side */
    ck_assert_uint_eq(ram[ebx + 26], 0xcc);
    ck_assert_int_eq(x86_mixed_thunk_keep_firmware_idt(&gm, (uint32_t)RAM_SIZE - 20), -1);
    ck_assert_int_eq(x86_mixed_thunk_keep_firmware_idt(&gm, 0xfffffff8u), -1);
}
END_TEST

/* An i386 kernel's: 8-byte 32-bit interrupt gates on GUEST_SEL_CODE32
 * (SDM vol. 3A, 6.11), within X86_IDT32_LIMIT. */
START_TEST(idt32_gates_are_8_byte_32_bit_interrupt_gates)
{
    const uint64_t base = 0x100800;
    memset(ram + GUEST_IDT, 0xff, 4096);
    x86_setup_idt32(&gm, handler_for, &base);
    ck_assert_uint_eq(X86_IDT32_LIMIT, 32 * 8 - 1);
    for (unsigned v = 0; v < 32; v++) {
        const uint8_t *g = ram + GUEST_IDT + 8 * v;
        ck_assert_uint_eq(g[0] | g[1] << 8 | g[6] << 16 | (uint32_t)g[7] << 24, base + 16 * v);
        ck_assert_uint_eq(g[2] | g[3] << 8, GUEST_SEL_CODE32);
        ck_assert_uint_eq(g[4], 0);
        ck_assert_uint_eq(g[5], 0x8e);
    }
    for (unsigned i = 8 * 32; i < 4096; i++)
        ck_assert_uint_eq(ram[GUEST_IDT + i], 0);
}
END_TEST

/* 32-bit PAE paging over the same directories: the same identity map of
 * 4 GiB and its no-execute bits; PDPTEs with only P set (R/W and U/S are
 * reserved there, SDM vol. 3A 4.4.1). */
START_TEST(pae_root_maps_the_same_4g_through_the_same_directories)
{
    ck_assert_int_eq(x86_setup_page_tables(&gm), 4);
    ck_assert_uint_eq(x86_setup_pae_root(&gm), GUEST_PDPT_PAE);
    uint64_t pdpte[4];
    memcpy(pdpte, ram + GUEST_PDPT_PAE, sizeof(pdpte));
    for (unsigned g = 0; g < 4; g++)
        ck_assert_uint_eq(pdpte[g], (GUEST_PD + 4096 * g) | 1);
    struct guest_view v = { &gm, GUEST_PDPT_PAE, false, true, false, false };
    const uint64_t probes[] = { 0, 0x1000, 0x123456, RAM_SIZE - 1, GiB(1) + 0x1234, GiB(3) - 1, GiB(4) - 1 };
    uint64_t pa;
    for (unsigned i = 0; i < sizeof(probes) / sizeof(probes[0]); i++)
        ck_assert(guest_view_translate(&v, probes[i], &pa) && pa == probes[i]);
    ck_assert(!guest_view_translate(&v, GiB(4), &pa));
    const uint64_t keep[1][2] = { { 0, MiB(2) } };
    x86_set_nx_outside(&gm, keep, 1, true);
    ck_assert_uint_eq(pde(MiB(4)) & PTE_NX, PTE_NX);
    ck_assert(guest_view_translate(&v, MiB(4) + 0x10, &pa) && pa == MiB(4) + 0x10);
}
END_TEST

/* An i386 kernel without PAE pages with 32-bit paging (SDM vol. 3A 4.3):
 * a directory and tables of 4-byte entries, 4 MiB pages with CR4.PSE.
 * The view of its state walks them so, not as 4-level tables (what
 * run.c's view did), so an emulation fallback's fetch and a firmware
 * call's pointers reach the bytes the guest means. */
START_TEST(guest_view_walks_32_bit_paging)
{
    const uint32_t dir = 0x10000, table = 0x11000;
    uint32_t *pd = (uint32_t *)(ram + dir), *pt = (uint32_t *)(ram + table);
    pd[0x300] = table | 0x3;                     /* 0xc0000000: a table */
    pt[1] = 0x200000 | 0x3;                      /* 0xc0001000 -> 0x200000 */
    pd[0x301] = 0x800000 | 0x83;                 /* 0xc0400000: a 4 MiB page at 8 MiB */
    ram[0x200010] = 0x5a;
    ram[0x800000 + 0x1234] = 0xa5;
    struct kvm_sregs s = { .cr0 = CR0_PE | CR0_PG, .cr3 = dir, .cr4 = CR4_PSE };
    struct guest_view v = x86_guest_view(&gm, &s);
    uint8_t b = 0;
    ck_assert(guest_view_read(&v, 0xc0001010, &b, 1) && b == 0x5a);
    ck_assert(guest_view_read(&v, 0xc0401234, &b, 1) && b == 0xa5);
    ck_assert(!guest_view_read(&v, 0xc0002000, &b, 1));   /* not present */
    ck_assert(!guest_view_read(&v, 0x1c0001010ULL, &b, 1));   /* past 32 bits */
    /* Without CR4.PSE the PS bit is ignored: the entry names a table
     * (at 8 MiB, all zeros: nothing mapped). */
    s.cr4 = 0;
    v = x86_guest_view(&gm, &s);
    ck_assert(!guest_view_read(&v, 0xc0401234, &b, 1));
    /* PAE and long mode keep their walks; paging off is physical. */
    s.cr4 = CR4_PAE;
    ck_assert(x86_guest_view(&gm, &s).pae32 && !x86_guest_view(&gm, &s).paging32);
    s.efer = EFER_LMA | EFER_LME;
    v = x86_guest_view(&gm, &s);
    ck_assert(!v.pae32 && !v.paging32 && v.cr3 == dir);
    s.cr0 = CR0_PE;
    ck_assert_uint_eq(x86_guest_view(&gm, &s).cr3, 0);
}
END_TEST

Suite *x86_setup_suite(void)
{
    Suite *s = suite_create("x86_setup");
    TCase *tc = tcase_create("x86_setup");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, page_tables_identity_map_4g_with_2m_pages);
    tcase_add_test(tc, page_tables_reach_the_top_of_ram_above_4g);
    tcase_add_test(tc, page_tables_refuse_more_than_the_layout_allows);
    tcase_add_test(tc, nx_is_set_outside_the_kept_ranges_and_cleared_again);
    tcase_add_test(tc, gdt_holds_flat_64_bit_code_and_data);
    tcase_add_test(tc, idt_gates_point_at_the_handlers);
    tcase_add_test(tc, sregs_enter_long_mode_with_paging);
    tcase_add_test(tc, sregs_segments_agree_with_the_gdt);
    tcase_add_test(tc, gdt32_holds_flat_32_bit_code_and_data_at_the_boot_selectors);
    tcase_add_test(tc, sregs32_enter_protected_mode_without_paging);
    tcase_add_test(tc, idt_mixed_gates_name_the_kernels_code_selector);
    tcase_add_test(tc, mixed_thunk_keeps_the_firmware_idt);
    tcase_add_test(tc, idt32_gates_are_8_byte_32_bit_interrupt_gates);
    tcase_add_test(tc, pae_root_maps_the_same_4g_through_the_same_directories);
    tcase_add_test(tc, guest_view_walks_32_bit_paging);
    suite_add_tcase(s, tc);
    return s;
}
