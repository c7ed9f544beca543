/* EFI_MEMORY_ATTRIBUTE_PROTOCOL (UEFI 2.10 section 37.7) on handover's
 * identity map, built here as the VMM builds it (x86_setup.c): 2 MiB
 * pages split into 4 KiB tables when a change covers them in part, RO,
 * XP and RP set and cleared, Get over uniform and mixed ranges, and the
 * arguments the spec refuses. */
#include "fw_fixture.h"
#include "../../guest/page_prot.h"
#include "../../vmm/x86/x86_setup.h"

#define MEMATTR(x) FW_ID_MEMATTR(MEMATTR_##x)
#define RO EFI_MEMORY_RO
#define XP EFI_MEMORY_XP
#define RP EFI_MEMORY_RP

static uint64_t memattr(void)
{
    ck_assert_int_eq(x86_setup_page_tables(&gm), 4);
    uint64_t iface_p = put_u64(0);
    ck_assert_uint_eq(CALL(BS(LOCATE_PROTOCOL), put_guid(GUID_MEMORY_ATTRIBUTE_PROTOCOL), 0, iface_p), EFI_SUCCESS);
    return rd64(iface_p);
}

/* GetMemoryAttributes' status, and the attributes in *attr (0xff..ff when
 * it wrote none). */
static efi_status_t get(uint64_t base, uint64_t len, uint64_t *attr)
{
    uint64_t p = put_u64(UINT64_MAX);
    efi_status_t s = CALL(MEMATTR(GET), fw.memattr, base, len, p);
    *attr = rd64(p);
    return s;
}

static uint64_t attributes_of(uint64_t base, uint64_t len)
{
    uint64_t attr;
    ck_assert_uint_eq(get(base, len, &attr), EFI_SUCCESS);
    return attr;
}

static uint64_t pde(uint64_t addr) { return rd64(GUEST_PD + 8 * (addr >> 21)); }

static bool mapped(uint64_t addr)
{
    struct guest_view v = { &gm, GUEST_PML4, false, false, false, false };
    uint64_t pa;
    return guest_view_translate(&v, addr, &pa) && pa == addr;
}

START_TEST(memattr_is_located_and_its_functions_are_thunks)
{
    uint64_t m = memattr();
    ck_assert_uint_eq(m, fw.memattr);
    for (unsigned i = 0; i < MEMATTR_COUNT; i++)
        ck_assert_uint_eq(rd64(m + 8 * i), firmware_thunk(&fw, FW_ID_MEMATTR(i)));
    ck_assert_uint_eq(attributes_of(MiB(2), MiB(8)), 0);   /* the VMM's map: RAM writable and executable */
}
END_TEST

START_TEST(a_change_inside_a_2mib_page_splits_it_into_a_table)
{
    memattr();
    uint64_t key = fw.map.key;
    ck_assert_uint_eq(CALL(MEMATTR(SET), fw.memattr, MiB(6) + 0x1000, 0x2000, RO), EFI_SUCCESS);
    ck_assert(fw.tables_changed);
    ck_assert_uint_ne(fw.map.key, key);   /* the table's page came from the map */
    uint64_t table = pde(MiB(6)) & PTE_ADDR;
    ck_assert_uint_eq(pde(MiB(6)) & (PTE_PRESENT | PTE_WRITE | PTE_LARGE | PTE_NX), PTE_PRESENT | PTE_WRITE);
    const struct memmap_entry *e = memmap_entry_at(&fw.map, table);
    ck_assert(e && e->type == EFI_BOOT_SERVICES_DATA && e->fixed);
    ck_assert_uint_eq(CALL(BS(FREE_PAGES), table, 1), EFI_NOT_FOUND);   /* the firmware's own */
    ck_assert_uint_eq(attributes_of(MiB(6) + 0x1000, 0x2000), RO);
    ck_assert_uint_eq(attributes_of(MiB(6), 0x1000), 0);
    ck_assert_uint_eq(attributes_of(MiB(6) + 0x3000, MiB(2) - 0x3000), 0);
    for (uint64_t a = MiB(6); a < MiB(8); a += 0x1000)
        ck_assert_msg(mapped(a + 0x123), "0x%llx lost its identity mapping", (unsigned long long)a);
    /* The same change again needs no table and changes nothing. */
    key = fw.map.key;
    ck_assert_uint_eq(CALL(MEMATTR(SET), fw.memattr, MiB(6) + 0x1000, 0x1000, RO), EFI_SUCCESS);
    ck_assert(!fw.tables_changed);
    ck_assert_uint_eq(fw.map.key, key);
}
END_TEST

START_TEST(get_over_a_mixed_range_is_no_mapping)
{
    uint64_t attr;
    memattr();
    ck_assert_uint_eq(CALL(MEMATTR(SET), fw.memattr, MiB(4) + 0x5000, 0x1000, XP), EFI_SUCCESS);
    ck_assert_uint_eq(get(MiB(4), 0x6000, &attr), EFI_NO_MAPPING);
    ck_assert_uint_eq(attr, UINT64_MAX);   /* untouched */
    ck_assert_uint_eq(get(MiB(4) + 0x5000, MiB(2), &attr), EFI_NO_MAPPING);
    ck_assert_uint_eq(attributes_of(MiB(4) + 0x5000, 0x1000), XP);
    ck_assert_uint_eq(CALL(MEMATTR(SET), fw.memattr, MiB(4) + 0x5000, 0x1000, RO), EFI_SUCCESS);
    ck_assert_uint_eq(attributes_of(MiB(4) + 0x5000, 0x1000), RO | XP);
    ck_assert_uint_eq(get(MiB(4) + 0x4000, 0x2000, &attr), EFI_NO_MAPPING);
}
END_TEST

START_TEST(whole_2mib_pages_change_without_a_table)
{
    memattr();
    uint64_t key = fw.map.key;
    ck_assert_uint_eq(CALL(MEMATTR(SET), fw.memattr, MiB(8), MiB(4), XP | RO), EFI_SUCCESS);
    ck_assert_uint_eq(fw.map.key, key);
    ck_assert(fw.tables_changed);
    ck_assert_uint_eq(pde(MiB(8)) & (PTE_LARGE | PTE_NX | PTE_WRITE), PTE_LARGE | PTE_NX);
    ck_assert_uint_eq(pde(MiB(10)) & (PTE_LARGE | PTE_NX | PTE_WRITE), PTE_LARGE | PTE_NX);
    ck_assert_uint_eq(pde(MiB(12)) & (PTE_NX | PTE_WRITE), PTE_WRITE);
    ck_assert_uint_eq(attributes_of(MiB(8), MiB(4)), XP | RO);
    ck_assert_uint_eq(CALL(MEMATTR(CLEAR), fw.memattr, MiB(8), MiB(4), XP), EFI_SUCCESS);
    ck_assert_uint_eq(attributes_of(MiB(8), MiB(4)), RO);
    ck_assert_uint_eq(CALL(MEMATTR(CLEAR), fw.memattr, MiB(8), MiB(4), RO | XP), EFI_SUCCESS);
    ck_assert_uint_eq(attributes_of(MiB(2), MiB(12)), 0);
    ck_assert_uint_eq(pde(MiB(8)), MiB(8) | PTE_PRESENT | PTE_WRITE | PTE_LARGE);
    ck_assert_uint_eq(CALL(MEMATTR(CLEAR), fw.memattr, MiB(8), MiB(4), RO | XP), EFI_SUCCESS);
    ck_assert(!fw.tables_changed);   /* nothing to clear */
}
END_TEST

/* What the stubs since 6.1.81 do with the decompressed kernel
 * (efi_adjust_memory_range_protection): its text read-only, then
 * executable, here on pages a firmware made execute-protected. */
START_TEST(kernel_text_ends_read_only_and_executable)
{
    memattr();
    const uint64_t kernel = MiB(8), text = 0x1a3000, size = MiB(6);
    ck_assert_uint_eq(CALL(MEMATTR(SET), fw.memattr, kernel, size, XP), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(MEMATTR(SET), fw.memattr, kernel, text, RO), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(MEMATTR(CLEAR), fw.memattr, kernel, text, XP), EFI_SUCCESS);
    ck_assert_uint_eq(attributes_of(kernel, text), RO);
    ck_assert_uint_eq(attributes_of(kernel + text, size - text), XP);
    ck_assert_uint_eq(pde(kernel + MiB(2)) & (PTE_LARGE | PTE_NX), PTE_LARGE | PTE_NX);   /* untouched by the split */
    unsigned prot;
    uint64_t end;
    ck_assert(page_prot_get(&gm, kernel + text - 0x1000, &prot, &end));
    ck_assert_uint_eq(prot, PAGE_PROT_READ_ONLY);
    ck_assert_uint_eq(end, kernel + text);   /* a 4 KiB leaf */
}
END_TEST

START_TEST(read_protected_pages_are_not_present)
{
    memattr();
    ck_assert_uint_eq(CALL(MEMATTR(SET), fw.memattr, MiB(5), 0x1000, RP), EFI_SUCCESS);
    ck_assert(!mapped(MiB(5) + 8));
    ck_assert(mapped(MiB(5) + 0x1008));
    ck_assert_uint_eq(attributes_of(MiB(5), 0x1000), RP);
    ck_assert_uint_eq(CALL(MEMATTR(CLEAR), fw.memattr, MiB(5), 0x1000, RP), EFI_SUCCESS);
    ck_assert(mapped(MiB(5) + 8));
    /* A whole 2 MiB page too, and back. */
    ck_assert_uint_eq(CALL(MEMATTR(SET), fw.memattr, MiB(10), MiB(2), RP | RO), EFI_SUCCESS);
    ck_assert(!mapped(MiB(11)));
    ck_assert_uint_eq(attributes_of(MiB(10), MiB(2)), RP | RO);
    ck_assert_uint_eq(CALL(MEMATTR(CLEAR), fw.memattr, MiB(10), MiB(2), RP | RO), EFI_SUCCESS);
    ck_assert(mapped(MiB(11)));
    ck_assert_uint_eq(pde(MiB(10)), MiB(10) | PTE_PRESENT | PTE_WRITE | PTE_LARGE);
}
END_TEST

START_TEST(arguments_the_spec_refuses)
{
    uint64_t attr;
    memattr();
    ck_assert_uint_eq(get(MiB(4), 0, &attr), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(MEMATTR(GET), fw.memattr, MiB(4), 0x1000, 0), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(MEMATTR(GET), fw.memattr, MiB(4), 0x1000, RAM_SIZE - 4), EFI_INVALID_PARAMETER);
    static const unsigned changes[] = { MEMATTR(SET), MEMATTR(CLEAR) };
    for (unsigned i = 0; i < 2; i++) {
        unsigned id = changes[i];
        ck_assert_uint_eq(CALL(id, fw.memattr, MiB(4), 0, RO), EFI_INVALID_PARAMETER);
        ck_assert_uint_eq(CALL(id, fw.memattr, MiB(4) + 0x800, 0x1000, RO), EFI_INVALID_PARAMETER);
        ck_assert_uint_eq(CALL(id, fw.memattr, MiB(4), 0x1800, RO), EFI_INVALID_PARAMETER);
        ck_assert_uint_eq(CALL(id, fw.memattr, MiB(4), 0x1000, EFI_MEMORY_WB), EFI_INVALID_PARAMETER);
        ck_assert_uint_eq(CALL(id, fw.memattr, MiB(4), 0x1000, RO | EFI_MEMORY_RUNTIME), EFI_INVALID_PARAMETER);
        /* Outside RAM, across its end, wrapping around. */
        ck_assert_uint_eq(CALL(id, fw.memattr, RAM_SIZE, 0x1000, RO), EFI_UNSUPPORTED);
        ck_assert_uint_eq(CALL(id, fw.memattr, RAM_SIZE - 0x1000, 0x2000, RO), EFI_UNSUPPORTED);
        ck_assert_uint_eq(CALL(id, fw.memattr, 0xfffffffffffff000ULL, 0x2000, RO), EFI_UNSUPPORTED);
        /* The firmware's own pages: the next call would fault in its thunks. */
        ck_assert_uint_eq(CALL(id, fw.memattr, FW_BASE, 0x1000, XP), EFI_ACCESS_DENIED);
        ck_assert_uint_eq(CALL(id, fw.memattr, GUEST_VMM_END - 0x1000, 0x2000, RO), EFI_ACCESS_DENIED);
    }
    ck_assert_msg(strstr(log_text(), "covers the firmware's own pages"), "%s", log_text());
    ck_assert_uint_eq(get(RAM_SIZE, 0x1000, &attr), EFI_UNSUPPORTED);
    ck_assert_uint_eq(attributes_of(FW_BASE, 0x1000), 0);   /* read, though */
    ck_assert_uint_eq(CALL(MEMATTR(SET), fw.memattr, MiB(4), 0x1000, 0), EFI_SUCCESS);   /* nothing to set */
    ck_assert_uint_eq(attributes_of(MiB(2), RAM_SIZE - MiB(2)), 0);
}
END_TEST

START_TEST(no_page_for_a_table_changes_nothing)
{
    memattr();
    for (unsigned i = 0; i < fw.map.n; i++)
        if (fw.map.e[i].type == EFI_CONVENTIONAL_MEMORY) {
            ck_assert_uint_eq(memmap_reserve(&fw.map, fw.map.e[i].start, fw.map.e[i].pages, EFI_LOADER_DATA),
                              EFI_SUCCESS);
            i = (unsigned)-1;   /* the map merged: from the top again */
        }
    ck_assert_uint_eq(CALL(MEMATTR(SET), fw.memattr, MiB(6), 0x1000, RO), EFI_OUT_OF_RESOURCES);
    ck_assert(!fw.tables_changed);
    ck_assert_uint_eq(attributes_of(MiB(6), MiB(2)), 0);
    ck_assert_msg(strstr(log_text(), "no free page for a page table"), "%s", log_text());
    ck_assert_uint_eq(CALL(MEMATTR(SET), fw.memattr, MiB(6), MiB(2), RO), EFI_SUCCESS);   /* whole: no table */
}
END_TEST

/* Tables the guest broke: the map does not reach the range, and nothing
 * outside guest RAM is touched. */
START_TEST(a_broken_map_is_unsupported)
{
    uint64_t attr;
    memattr();
    wr64(GUEST_PDPT, 0);   /* the first GiB */
    ck_assert_uint_eq(get(MiB(4), 0x1000, &attr), EFI_UNSUPPORTED);
    ck_assert_uint_eq(CALL(MEMATTR(SET), fw.memattr, MiB(4), 0x1000, RO), EFI_UNSUPPORTED);
    ck_assert_uint_eq(x86_setup_page_tables(&gm), 4);
    wr64(GUEST_PD + 8 * 3, 0xfffff000ULL | PTE_PRESENT | PTE_WRITE);   /* a table outside RAM */
    ck_assert_uint_eq(get(MiB(6), 0x1000, &attr), EFI_UNSUPPORTED);
    ck_assert_uint_eq(CALL(MEMATTR(CLEAR), fw.memattr, MiB(4), MiB(4), XP), EFI_UNSUPPORTED);
    ck_assert_uint_eq(pde(MiB(4)), MiB(4) | PTE_PRESENT | PTE_WRITE | PTE_LARGE);   /* nothing changed */
}
END_TEST

START_TEST(memattr_is_boot_time_only)
{
    memattr();
    exit_boot_services();
    uint64_t attr;
    ck_assert_uint_eq(get(MiB(4), 0x1000, &attr), EFI_UNSUPPORTED);
    ck_assert_uint_eq(CALL(MEMATTR(SET), fw.memattr, MiB(4), 0x1000, RO), EFI_UNSUPPORTED);
    ck_assert_uint_eq(pde(MiB(4)) & PTE_WRITE, PTE_WRITE);
}
END_TEST

/* --inject memattr-fail@2: the second change fails, as when the firmware
 * has no page for a table, and changes nothing; Get is no change. */
START_TEST(injected_memattr_fail_changes_nothing)
{
    char err[128];
    uint64_t attr;
    memattr();
    ck_assert_int_eq(inject_parse(&fw.cfg.inject, "memattr-fail@2", err, sizeof(err)), 0);
    ck_assert_uint_eq(get(MiB(4), 0x1000, &attr), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(MEMATTR(SET), fw.memattr, MiB(4), 0x1000, RO), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(MEMATTR(CLEAR), fw.memattr, MiB(4), 0x1000, RO), EFI_OUT_OF_RESOURCES);
    ck_assert_uint_eq(attributes_of(MiB(4), 0x1000), RO);
    ck_assert_uint_eq(fw.cfg.inject.seen[INJECT_MEMATTR_FAIL], 2);
    ck_assert_msg(strstr(log_text(), "injected fault memattr-fail: MemoryAttribute.ClearMemoryAttributes returns "
                                     "EFI_OUT_OF_RESOURCES"), "%s", log_text());
}
END_TEST

START_TEST(memattr_calls_are_traced_with_their_range_and_attributes)
{
    memattr();
    trace_to_memory();
    uint64_t attr;
    CALL(MEMATTR(SET), fw.memattr, MiB(8), 0x3000, RO | XP);
    get(MiB(8), 0x3000, &attr);
    CALL(MEMATTR(CLEAR), fw.memattr, MiB(8), 0x3000, XP | 0x1);
    get(MiB(8), MiB(2), &attr);
    char got[1024];
    decoded_tails(got, sizeof(got));
    ck_assert_str_eq(got,
        ",\"decoded\":{\"base\":\"0x800000\",\"length\":\"0x3000\",\"attributes\":\"EFI_MEMORY_RO|EFI_MEMORY_XP\"}}\n"
        ",\"decoded\":{\"base\":\"0x800000\",\"length\":\"0x3000\",\"attributes\":\"EFI_MEMORY_RO|EFI_MEMORY_XP\"}}\n"
        ",\"decoded\":{\"base\":\"0x800000\",\"length\":\"0x3000\",\"attributes\":\"EFI_MEMORY_XP|0x1\"}}\n"
        ",\"decoded\":{\"base\":\"0x800000\",\"length\":\"0x200000\"}}\n");
}
END_TEST

Suite *fw_memattr_suite(void)
{
    Suite *s = suite_create("fw-memattr");
    fw_add_tcase(s, "memattr", (const TTest *const[]){
        memattr_is_located_and_its_functions_are_thunks, a_change_inside_a_2mib_page_splits_it_into_a_table,
        get_over_a_mixed_range_is_no_mapping, whole_2mib_pages_change_without_a_table,
        kernel_text_ends_read_only_and_executable, read_protected_pages_are_not_present, arguments_the_spec_refuses,
        no_page_for_a_table_changes_nothing, a_broken_map_is_unsupported, memattr_is_boot_time_only,
        injected_memattr_fail_changes_nothing, memattr_calls_are_traced_with_their_range_and_attributes, NULL });
    return s;
}
