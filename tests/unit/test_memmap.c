/* firmware-stub/memmap.c: the memory map and page allocator, against
 * UEFI 2.10 section 7.2 (AllocatePages, FreePages, GetMemoryMap's map key)
 * and the kernel's setup_e820 for the e820 types. No guest memory needed. */
#include <string.h>

#include "suites.h"
#include "../../firmware-stub/memmap.h"
#include "../../guest/bootparam.h"

#define KiB(n) ((uint64_t)(n) << 10)
#define MiB(n) ((uint64_t)(n) << 20)
#define GiB(n) ((uint64_t)(n) << 30)
#define PAGE 4096ULL

static struct memmap m;

/* One conventional range [0, 16 MiB). */
static void map_16m(void)
{
    memmap_init(&m);
    ck_assert_int_eq(memmap_add_ram(&m, 0, MiB(16)), 0);
}

/* RAM split by the 32-bit hole as guest_mem lays it out: [0, 3 GiB) and [4 GiB, 8 GiB). */
static void map_split(void)
{
    memmap_init(&m);
    ck_assert_int_eq(memmap_add_ram(&m, 0, GiB(3)), 0);
    ck_assert_int_eq(memmap_add_ram(&m, GiB(4), GiB(4)), 0);
}

static efi_status_t alloc(uint32_t alloc_type, uint32_t type, uint64_t pages, uint64_t *addr)
{
    return memmap_allocate(&m, alloc_type, type, pages, addr);
}

/* Every descriptor sorted, non-overlapping, page-aligned and non-empty. */
static void assert_map_sane(void)
{
    for (unsigned i = 0; i < m.n; i++) {
        ck_assert_uint_eq(m.e[i].start & 0xfff, 0);
        ck_assert_uint_gt(m.e[i].pages, 0);
        if (i)
            ck_assert_uint_le(m.e[i - 1].start + m.e[i - 1].pages * PAGE, m.e[i].start);
    }
}

/* A snapshot to prove a failed call changed nothing. */
static struct memmap saved;
static void save(void) { saved = m; }
static void assert_unchanged(void)
{
    ck_assert_uint_eq(m.key, saved.key);
    ck_assert_uint_eq(m.n, saved.n);
    ck_assert_int_eq(memcmp(m.e, saved.e, m.n * sizeof(m.e[0])), 0);
}

/* ---- building the map -------------------------------------------------------- */

START_TEST(ram_ranges_are_kept_sorted_and_adjacent_ones_merge)
{
    memmap_init(&m);
    ck_assert_int_eq(memmap_add_ram(&m, MiB(8), MiB(8)), 0);
    ck_assert_int_eq(memmap_add_ram(&m, 0, MiB(4)), 0);
    ck_assert_uint_eq(m.n, 2);
    ck_assert_uint_eq(m.e[0].start, 0);
    ck_assert_uint_eq(m.e[1].start, MiB(8));
    ck_assert_int_eq(memmap_add_ram(&m, MiB(4), MiB(4)), 0);   /* fills the gap */
    ck_assert_uint_eq(m.n, 1);
    ck_assert_uint_eq(m.e[0].pages, MiB(16) / PAGE);
    ck_assert_uint_eq(m.e[0].type, EFI_CONVENTIONAL_MEMORY);
    ck_assert_uint_eq(m.e[0].attribute, memmap_attributes(EFI_CONVENTIONAL_MEMORY));
}
END_TEST

START_TEST(bad_ram_ranges_are_refused_without_changing_the_map)
{
    map_16m();
    save();
    ck_assert_int_eq(memmap_add_ram(&m, MiB(8), MiB(1)), -1);                 /* overlaps */
    ck_assert_int_eq(memmap_add_ram(&m, MiB(15), MiB(2)), -1);                /* overlaps the end */
    ck_assert_int_eq(memmap_add_ram(&m, MiB(32) + 0x800, MiB(1)), -1);        /* unaligned start */
    ck_assert_int_eq(memmap_add_ram(&m, MiB(32), 0x800), -1);                 /* unaligned size */
    ck_assert_int_eq(memmap_add_ram(&m, MiB(32), 0), -1);                     /* empty */
    ck_assert_int_eq(memmap_add_ram(&m, 0xfffffffffffff000ULL, 0x2000), -1);  /* wraps */
    assert_unchanged();
}
END_TEST

START_TEST(reserve_splits_conventional_memory_into_a_fixed_entry)
{
    map_16m();
    ck_assert_uint_eq(memmap_reserve(&m, MiB(1), 4, EFI_RUNTIME_SERVICES_CODE), EFI_SUCCESS);
    ck_assert_uint_eq(m.n, 3);
    ck_assert_uint_eq(m.e[1].start, MiB(1));
    ck_assert_uint_eq(m.e[1].pages, 4);
    ck_assert(m.e[1].fixed);
    ck_assert_int_eq(memmap_type_at(&m, MiB(1) + 3 * PAGE), EFI_RUNTIME_SERVICES_CODE);
    ck_assert_int_eq(memmap_type_at(&m, MiB(1) + 4 * PAGE), EFI_CONVENTIONAL_MEMORY);
    ck_assert_int_eq(memmap_type_at(&m, MiB(16)), -1);
    ck_assert_uint_eq(m.e[1].attribute & EFI_MEMORY_RUNTIME, EFI_MEMORY_RUNTIME);
    assert_map_sane();
}
END_TEST

START_TEST(reserve_outside_conventional_memory_is_refused)
{
    map_16m();
    ck_assert_uint_eq(memmap_reserve(&m, MiB(1), 4, EFI_BOOT_SERVICES_DATA), EFI_SUCCESS);
    save();
    ck_assert_uint_eq(memmap_reserve(&m, MiB(1), 1, EFI_LOADER_DATA), EFI_NOT_FOUND);       /* already reserved */
    ck_assert_uint_eq(memmap_reserve(&m, MiB(1) - PAGE, 2, EFI_LOADER_DATA), EFI_NOT_FOUND); /* runs into it */
    ck_assert_uint_eq(memmap_reserve(&m, MiB(16) - PAGE, 2, EFI_LOADER_DATA), EFI_NOT_FOUND); /* past RAM */
    ck_assert_uint_eq(memmap_reserve(&m, MiB(2) + 1, 1, EFI_LOADER_DATA), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(memmap_reserve(&m, MiB(2), 0, EFI_LOADER_DATA), EFI_INVALID_PARAMETER);
    assert_unchanged();
}
END_TEST

/* ---- AllocatePages ------------------------------------------------------------- */

START_TEST(any_pages_are_allocated_top_down)
{
    map_16m();
    uint64_t a = 0, b = 0;
    ck_assert_uint_eq(alloc(EFI_ALLOCATE_ANY_PAGES, EFI_LOADER_DATA, 2, &a), EFI_SUCCESS);
    ck_assert_uint_eq(a, MiB(16) - 2 * PAGE);
    ck_assert_uint_eq(alloc(EFI_ALLOCATE_ANY_PAGES, EFI_BOOT_SERVICES_DATA, 3, &b), EFI_SUCCESS);
    ck_assert_uint_eq(b, a - 3 * PAGE);
    ck_assert_int_eq(memmap_type_at(&m, a), EFI_LOADER_DATA);
    ck_assert_int_eq(memmap_type_at(&m, b + 2 * PAGE), EFI_BOOT_SERVICES_DATA);
    ck_assert(memmap_is_allocated(&m, b, 5 * PAGE));
    assert_map_sane();
}
END_TEST

START_TEST(any_pages_prefer_memory_below_4g)
{
    map_split();
    uint64_t a = 0;
    ck_assert_uint_eq(alloc(EFI_ALLOCATE_ANY_PAGES, EFI_LOADER_DATA, 1, &a), EFI_SUCCESS);
    ck_assert_uint_eq(a, GiB(3) - PAGE);
    /* More than fits below 4 GiB: from the top of high RAM. */
    ck_assert_uint_eq(alloc(EFI_ALLOCATE_ANY_PAGES, EFI_LOADER_DATA, GiB(3) / PAGE, &a), EFI_SUCCESS);
    ck_assert_uint_eq(a, GiB(5));
}
END_TEST

START_TEST(max_address_all_ones_allocates_the_highest_pages)
{
    map_split();
    uint64_t a = 0xffffffffffffffffULL;
    ck_assert_uint_eq(alloc(EFI_ALLOCATE_MAX_ADDRESS, EFI_LOADER_DATA, 4, &a), EFI_SUCCESS);
    ck_assert_uint_eq(a, GiB(8) - 4 * PAGE);
}
END_TEST

START_TEST(max_address_4g_minus_one_stays_below_4g)
{
    map_split();
    uint64_t a = 0xffffffffULL;
    ck_assert_uint_eq(alloc(EFI_ALLOCATE_MAX_ADDRESS, EFI_LOADER_DATA, 4, &a), EFI_SUCCESS);
    ck_assert_uint_eq(a, GiB(3) - 4 * PAGE);
    memmap_init(&m);   /* RAM right up to 4 GiB: the last page is allowed */
    ck_assert_int_eq(memmap_add_ram(&m, GiB(3), GiB(2)), 0);
    a = 0xffffffffULL;
    ck_assert_uint_eq(alloc(EFI_ALLOCATE_MAX_ADDRESS, EFI_LOADER_DATA, 1, &a), EFI_SUCCESS);
    ck_assert_uint_eq(a, GiB(4) - PAGE);
}
END_TEST

START_TEST(max_address_ending_a_page_allows_that_page)
{
    map_16m();
    uint64_t a = 0x80fff;
    ck_assert_uint_eq(alloc(EFI_ALLOCATE_MAX_ADDRESS, EFI_LOADER_DATA, 2, &a), EFI_SUCCESS);
    ck_assert_uint_eq(a, 0x7f000);
}
END_TEST

/* UEFI 2.10 AllocatePages: AllocateMaxAddress allocates pages "whose
 * uppermost address is less than or equal to" *Memory. With *Memory
 * page-aligned, the page starting at *Memory ends above it. */
/* Regression (fixed): memmap_allocate rounds a MaxAddress limit up
 * to the end of its page ((*addr & ~0xfff) + 0x1000), one page too far. */
START_TEST(max_address_page_aligned_keeps_the_uppermost_byte_at_or_below_it)
{
    map_16m();
    uint64_t a = 0x80000;
    ck_assert_uint_eq(alloc(EFI_ALLOCATE_MAX_ADDRESS, EFI_LOADER_DATA, 1, &a), EFI_SUCCESS);
    ck_assert_msg(a + PAGE - 1 <= 0x80000, "MaxAddress 0x80000 gave [0x%llx, 0x%llx]", (unsigned long long)a,
                  (unsigned long long)(a + PAGE - 1));
    ck_assert_uint_eq(a, 0x7f000);
}
END_TEST

START_TEST(max_address_below_free_memory_runs_out)
{
    map_16m();
    ck_assert_uint_eq(memmap_reserve(&m, 0, 256, EFI_RESERVED_MEMORY_TYPE), EFI_SUCCESS);
    save();
    uint64_t a = 0xfffff;
    ck_assert_uint_eq(alloc(EFI_ALLOCATE_MAX_ADDRESS, EFI_LOADER_DATA, 1, &a), EFI_OUT_OF_RESOURCES);
    ck_assert_uint_eq(a, 0xfffff);   /* *Memory untouched */
    assert_unchanged();
}
END_TEST

/* Section 7 item 8: AllocateAddress succeeds for any range inside conventional memory. */
static const struct { uint64_t addr, pages; } fixed_ok[] = {
    { 0, 1 }, { MiB(16) - PAGE, 1 }, { MiB(3), 512 }, { 0x1000, 4095 }, { 0, MiB(16) / PAGE },
};

START_TEST(allocate_address_anywhere_inside_conventional_memory)
{
    map_16m();
    uint64_t a = fixed_ok[_i].addr;
    ck_assert_uint_eq(alloc(EFI_ALLOCATE_ADDRESS, EFI_LOADER_CODE, fixed_ok[_i].pages, &a), EFI_SUCCESS);
    ck_assert_uint_eq(a, fixed_ok[_i].addr);
    ck_assert(memmap_is_allocated(&m, a, fixed_ok[_i].pages * PAGE));
    ck_assert_int_eq(memmap_type_at(&m, a), EFI_LOADER_CODE);
    assert_map_sane();
}
END_TEST

START_TEST(allocate_address_outside_conventional_memory_is_refused)
{
    map_16m();
    ck_assert_uint_eq(memmap_reserve(&m, MiB(1), 16, EFI_BOOT_SERVICES_DATA), EFI_SUCCESS);
    save();
    uint64_t a = MiB(1);
    ck_assert_uint_eq(alloc(EFI_ALLOCATE_ADDRESS, EFI_LOADER_DATA, 1, &a), EFI_NOT_FOUND);
    a = MiB(1) - PAGE;
    ck_assert_uint_eq(alloc(EFI_ALLOCATE_ADDRESS, EFI_LOADER_DATA, 2, &a), EFI_NOT_FOUND);
    a = MiB(16) - PAGE;
    ck_assert_uint_eq(alloc(EFI_ALLOCATE_ADDRESS, EFI_LOADER_DATA, 2, &a), EFI_NOT_FOUND);
    a = GiB(1);
    ck_assert_uint_eq(alloc(EFI_ALLOCATE_ADDRESS, EFI_LOADER_DATA, 1, &a), EFI_NOT_FOUND);
    a = 0xfffffffffffff000ULL;
    ck_assert_uint_eq(alloc(EFI_ALLOCATE_ADDRESS, EFI_LOADER_DATA, 2, &a), EFI_NOT_FOUND);   /* wraps */
    a = MiB(4) + 0x10;
    ck_assert_uint_ne(alloc(EFI_ALLOCATE_ADDRESS, EFI_LOADER_DATA, 1, &a), EFI_SUCCESS);     /* unaligned */
    ck_assert_uint_eq(a, MiB(4) + 0x10);
    assert_unchanged();
}
END_TEST

START_TEST(allocations_are_page_aligned)
{
    map_16m();
    ck_assert_uint_eq(memmap_reserve(&m, MiB(16) - 0x3000, 1, EFI_RESERVED_MEMORY_TYPE), EFI_SUCCESS);
    uint64_t a = 0;
    for (unsigned i = 1; i < 8; i++) {
        ck_assert_uint_eq(alloc(EFI_ALLOCATE_ANY_PAGES, EFI_LOADER_DATA, i, &a), EFI_SUCCESS);
        ck_assert_uint_eq(a & 0xfff, 0);
        uint64_t max = MiB(9) - 1 - i * PAGE;
        a = max;
        ck_assert_uint_eq(alloc(EFI_ALLOCATE_MAX_ADDRESS, EFI_LOADER_DATA, i, &a), EFI_SUCCESS);
        ck_assert_uint_eq(a & 0xfff, 0);
        ck_assert_uint_le(a + i * PAGE - 1, max);
    }
    assert_map_sane();
}
END_TEST

/* AllocatePages "MemoryType": EfiMaxMemoryType..0x6FFFFFFF, conventional and
 * persistent memory are invalid; OEM and OS-vendor types are allowed. */
static const struct { uint32_t type; bool ok; } types[] = {
    { EFI_CONVENTIONAL_MEMORY, false }, { EFI_PERSISTENT_MEMORY, false }, { EFI_UNACCEPTED_MEMORY_TYPE, false },
    { EFI_MAX_MEMORY_TYPE, false }, { 0x6fffffff, false },
    { EFI_RESERVED_MEMORY_TYPE, true }, { EFI_LOADER_CODE, true }, { EFI_RUNTIME_SERVICES_DATA, true },
    { EFI_ACPI_MEMORY_NVS, true }, { 0x70000000, true }, { 0x80000000, true }, { 0xffffffff, true },
};

START_TEST(memory_type_validity_follows_allocate_pages)
{
    map_16m();
    save();
    uint64_t a = 0;
    efi_status_t s = alloc(EFI_ALLOCATE_ANY_PAGES, types[_i].type, 1, &a);
    ck_assert_int_eq(memmap_type_allocatable(types[_i].type), types[_i].ok);
    if (types[_i].ok) {
        ck_assert_uint_eq(s, EFI_SUCCESS);
        ck_assert_int_eq(memmap_type_at(&m, a), (int)types[_i].type);
    } else {
        ck_assert_uint_eq(s, EFI_INVALID_PARAMETER);
        assert_unchanged();
    }
}
END_TEST

START_TEST(bad_allocate_type_and_zero_pages_are_refused)
{
    map_16m();
    save();
    uint64_t a = MiB(4);
    ck_assert_uint_eq(alloc(EFI_MAX_ALLOCATE_TYPE, EFI_LOADER_DATA, 1, &a), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(alloc(0xffffffffu, EFI_LOADER_DATA, 1, &a), EFI_INVALID_PARAMETER);
    ck_assert_uint_ne(alloc(EFI_ALLOCATE_ANY_PAGES, EFI_LOADER_DATA, 0, &a), EFI_SUCCESS);
    ck_assert_uint_ne(alloc(EFI_ALLOCATE_ADDRESS, EFI_LOADER_DATA, 0, &a), EFI_SUCCESS);
    ck_assert_uint_eq(a, MiB(4));
    assert_unchanged();
}
END_TEST

START_TEST(huge_page_counts_fail_cleanly)
{
    map_16m();
    save();
    uint64_t counts[] = { MiB(16) / PAGE + 1, 1ULL << 40, 1ULL << 52, (1ULL << 52) + 1, UINT64_MAX };
    for (unsigned i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
        uint64_t a = 0;
        ck_assert_uint_eq(alloc(EFI_ALLOCATE_ANY_PAGES, EFI_LOADER_DATA, counts[i], &a), EFI_OUT_OF_RESOURCES);
        a = UINT64_MAX;
        ck_assert_uint_eq(alloc(EFI_ALLOCATE_MAX_ADDRESS, EFI_LOADER_DATA, counts[i], &a), EFI_OUT_OF_RESOURCES);
        a = 0;
        ck_assert_uint_ne(alloc(EFI_ALLOCATE_ADDRESS, EFI_LOADER_DATA, counts[i], &a), EFI_SUCCESS);
    }
    assert_unchanged();
}
END_TEST

/* ---- FreePages ------------------------------------------------------------------ */

START_TEST(freeing_an_allocation_restores_one_conventional_range)
{
    map_16m();
    uint64_t a = 0;
    ck_assert_uint_eq(alloc(EFI_ALLOCATE_ANY_PAGES, EFI_LOADER_DATA, 8, &a), EFI_SUCCESS);
    ck_assert_uint_eq(m.n, 2);
    ck_assert_uint_eq(memmap_free(&m, a, 8), EFI_SUCCESS);
    ck_assert_uint_eq(m.n, 1);
    ck_assert_uint_eq(m.e[0].pages, MiB(16) / PAGE);
    ck_assert(!memmap_is_allocated(&m, a, PAGE));
}
END_TEST

START_TEST(freeing_part_of_an_allocation_splits_it)
{
    map_16m();
    uint64_t a = MiB(4);
    ck_assert_uint_eq(alloc(EFI_ALLOCATE_ADDRESS, EFI_LOADER_DATA, 8, &a), EFI_SUCCESS);
    ck_assert_uint_eq(memmap_free(&m, a + 2 * PAGE, 3), EFI_SUCCESS);
    ck_assert_int_eq(memmap_type_at(&m, a + PAGE), EFI_LOADER_DATA);
    ck_assert_int_eq(memmap_type_at(&m, a + 2 * PAGE), EFI_CONVENTIONAL_MEMORY);
    ck_assert_int_eq(memmap_type_at(&m, a + 4 * PAGE), EFI_CONVENTIONAL_MEMORY);
    ck_assert_int_eq(memmap_type_at(&m, a + 5 * PAGE), EFI_LOADER_DATA);
    ck_assert_uint_eq(m.n, 5);
    assert_map_sane();
}
END_TEST

START_TEST(freeing_across_two_allocations_of_different_types)
{
    map_16m();
    uint64_t a = MiB(4), b = MiB(4) + 4 * PAGE;
    ck_assert_uint_eq(alloc(EFI_ALLOCATE_ADDRESS, EFI_LOADER_DATA, 4, &a), EFI_SUCCESS);
    ck_assert_uint_eq(alloc(EFI_ALLOCATE_ADDRESS, EFI_BOOT_SERVICES_DATA, 4, &b), EFI_SUCCESS);
    ck_assert_uint_eq(memmap_free(&m, a, 8), EFI_SUCCESS);
    ck_assert_uint_eq(m.n, 1);
    ck_assert_int_eq(memmap_type_at(&m, b), EFI_CONVENTIONAL_MEMORY);
}
END_TEST

START_TEST(freeing_what_was_not_allocated_is_not_found)
{
    map_16m();
    uint64_t a = MiB(4);
    ck_assert_uint_eq(alloc(EFI_ALLOCATE_ADDRESS, EFI_LOADER_DATA, 4, &a), EFI_SUCCESS);
    save();
    ck_assert_uint_eq(memmap_free(&m, MiB(8), 1), EFI_NOT_FOUND);          /* conventional */
    ck_assert_uint_eq(memmap_free(&m, a, 5), EFI_NOT_FOUND);               /* runs past the allocation */
    ck_assert_uint_eq(memmap_free(&m, a - PAGE, 2), EFI_NOT_FOUND);        /* starts before it */
    ck_assert_uint_eq(memmap_free(&m, GiB(2), 1), EFI_NOT_FOUND);          /* no RAM */
    ck_assert_uint_eq(memmap_free(&m, a, 1ULL << 52), EFI_NOT_FOUND);
    ck_assert_uint_eq(memmap_free(&m, 0xfffffffffffff000ULL, 2), EFI_NOT_FOUND);
    ck_assert_uint_ne(memmap_free(&m, a, 0), EFI_SUCCESS);
    ck_assert_uint_eq(memmap_free(&m, a + 8, 1), EFI_INVALID_PARAMETER);
    assert_unchanged();
}
END_TEST

START_TEST(fixed_regions_cannot_be_freed)
{
    map_16m();
    ck_assert_uint_eq(memmap_reserve(&m, MiB(1), 4, EFI_LOADER_DATA), EFI_SUCCESS);
    save();
    ck_assert_uint_eq(memmap_free(&m, MiB(1), 4), EFI_NOT_FOUND);
    ck_assert_uint_eq(memmap_free(&m, MiB(1) + PAGE, 1), EFI_NOT_FOUND);
    ck_assert(!memmap_is_allocated(&m, MiB(1), PAGE));
    assert_unchanged();
}
END_TEST

/* ---- coalescing ------------------------------------------------------------------- */

START_TEST(adjacent_allocations_of_one_type_merge_and_others_do_not)
{
    map_16m();
    uint64_t a = 0, b = 0, c = 0;
    ck_assert_uint_eq(alloc(EFI_ALLOCATE_ANY_PAGES, EFI_LOADER_DATA, 1, &a), EFI_SUCCESS);
    ck_assert_uint_eq(alloc(EFI_ALLOCATE_ANY_PAGES, EFI_LOADER_DATA, 1, &b), EFI_SUCCESS);
    ck_assert_uint_eq(m.n, 2);   /* one conventional, one LoaderData of 2 pages */
    ck_assert_uint_eq(m.e[1].pages, 2);
    ck_assert_uint_eq(alloc(EFI_ALLOCATE_ANY_PAGES, EFI_LOADER_CODE, 1, &c), EFI_SUCCESS);
    ck_assert_uint_eq(m.n, 3);
    /* A fixed region of the same type next to an allocation stays separate. */
    ck_assert_uint_eq(memmap_reserve(&m, c - PAGE, 1, EFI_LOADER_CODE), EFI_SUCCESS);
    ck_assert_uint_eq(m.n, 4);
    assert_map_sane();
}
END_TEST

START_TEST(freed_pages_merge_with_conventional_neighbours)
{
    map_16m();
    uint64_t a = MiB(4), b = MiB(4) + PAGE;
    ck_assert_uint_eq(alloc(EFI_ALLOCATE_ADDRESS, EFI_LOADER_DATA, 1, &a), EFI_SUCCESS);
    ck_assert_uint_eq(alloc(EFI_ALLOCATE_ADDRESS, EFI_LOADER_CODE, 1, &b), EFI_SUCCESS);
    ck_assert_uint_eq(m.n, 4);
    ck_assert_uint_eq(memmap_free(&m, a, 1), EFI_SUCCESS);
    ck_assert_uint_eq(m.n, 3);
    ck_assert_uint_eq(m.e[0].pages, (MiB(4) + PAGE) / PAGE);
    ck_assert_uint_eq(memmap_free(&m, b, 1), EFI_SUCCESS);
    ck_assert_uint_eq(m.n, 1);
}
END_TEST

/* ---- the map key -------------------------------------------------------------------- */

START_TEST(map_key_changes_on_every_change_and_not_on_failures)
{
    memmap_init(&m);
    uint64_t k = m.key, a = 0;
#define CHANGED() do { ck_assert_uint_ne(m.key, k); k = m.key; } while (0)
#define SAME()    ck_assert_uint_eq(m.key, k)
    ck_assert_int_eq(memmap_add_ram(&m, 0, MiB(8)), 0);                                  CHANGED();
    ck_assert_int_eq(memmap_add_ram(&m, MiB(8), MiB(8)), 0);                             CHANGED();
    ck_assert_int_eq(memmap_add_ram(&m, MiB(4), MiB(8)), -1);                            SAME();
    ck_assert_uint_eq(memmap_reserve(&m, MiB(1), 1, EFI_LOADER_CODE), EFI_SUCCESS);      CHANGED();
    ck_assert_uint_eq(memmap_reserve(&m, MiB(1), 1, EFI_LOADER_CODE), EFI_NOT_FOUND);    SAME();
    ck_assert_uint_eq(alloc(EFI_ALLOCATE_ANY_PAGES, EFI_LOADER_DATA, 1, &a), EFI_SUCCESS); CHANGED();
    ck_assert_uint_eq(alloc(EFI_ALLOCATE_ANY_PAGES, EFI_LOADER_DATA, 1, &a), EFI_SUCCESS); CHANGED(); /* merged, still a change */
    ck_assert_uint_eq(alloc(EFI_ALLOCATE_ANY_PAGES, EFI_CONVENTIONAL_MEMORY, 1, &a), EFI_INVALID_PARAMETER); SAME();
    ck_assert_uint_eq(alloc(EFI_ALLOCATE_ANY_PAGES, EFI_LOADER_DATA, 1ULL << 30, &a), EFI_OUT_OF_RESOURCES); SAME();
    ck_assert_uint_eq(memmap_free(&m, a, 1), EFI_SUCCESS);                                CHANGED();
    ck_assert_uint_eq(memmap_free(&m, a, 1), EFI_NOT_FOUND);                              SAME();
#undef CHANGED
#undef SAME
}
END_TEST

/* ---- running out of descriptors ----------------------------------------------------- */

/* Reserve every other page from the bottom until the map is full; returns
 * how many reservations succeeded. */
static unsigned fill_with_reservations(uint64_t first_page)
{
    unsigned ok = 0;
    for (uint64_t p = first_page; p < MiB(16) / PAGE; p += 2) {
        if (memmap_reserve(&m, p * PAGE, 1, EFI_RESERVED_MEMORY_TYPE) != EFI_SUCCESS)
            break;
        ok++;
    }
    return ok;
}

/* On a full map a change that needs a new descriptor is refused, the map
 * unchanged; one that needs none (it grows a neighbour, or frees into one)
 * still succeeds. retype once reserved two descriptors for every change,
 * so a full map refused every FreePages. */
START_TEST(a_full_map_takes_only_changes_that_need_no_new_descriptor)
{
    map_16m();
    ck_assert_uint_gt(fill_with_reservations(1), 200);
    ck_assert_uint_eq(m.n, MEMMAP_MAX_ENTRIES - 1);
    /* The top page: the free tail below it shrinks, one new descriptor. */
    uint64_t top = 0, below = 0, fixed = MiB(15);
    ck_assert_uint_eq(alloc(EFI_ALLOCATE_ANY_PAGES, EFI_LOADER_DATA, 1, &top), EFI_SUCCESS);
    ck_assert_uint_eq(top, MiB(16) - PAGE);
    ck_assert_uint_eq(m.n, MEMMAP_MAX_ENTRIES);
    save();
    /* Inside the free tail: two new descriptors. At its bottom, of another type: one. */
    ck_assert_uint_eq(memmap_reserve(&m, MiB(15), 1, EFI_RESERVED_MEMORY_TYPE), EFI_OUT_OF_RESOURCES);
    ck_assert_uint_eq(alloc(EFI_ALLOCATE_ADDRESS, EFI_LOADER_DATA, 1, &fixed), EFI_OUT_OF_RESOURCES);
    ck_assert_uint_eq(fixed, MiB(15));
    uint64_t tail = m.e[m.n - 2].start;
    ck_assert_uint_eq(alloc(EFI_ALLOCATE_ADDRESS, EFI_BOOT_SERVICES_DATA, 1, &tail), EFI_OUT_OF_RESOURCES);
    assert_unchanged();
    /* The page below the top one joins its allocation: no new descriptor. */
    ck_assert_uint_eq(alloc(EFI_ALLOCATE_ANY_PAGES, EFI_LOADER_DATA, 1, &below), EFI_SUCCESS);
    ck_assert_uint_eq(below, top - PAGE);
    ck_assert_uint_eq(m.n, MEMMAP_MAX_ENTRIES);
    ck_assert_int_eq(memmap_type_at(&m, below), EFI_LOADER_DATA);
    /* Freeing the top page alone splits the allocation: refused. */
    save();
    ck_assert_uint_eq(memmap_free(&m, top, 1), EFI_OUT_OF_RESOURCES);
    assert_unchanged();
    /* Freeing its lower page gives it back to the free tail; then the last page. */
    ck_assert_uint_eq(memmap_free(&m, below, 1), EFI_SUCCESS);
    ck_assert_uint_eq(m.n, MEMMAP_MAX_ENTRIES);
    ck_assert_int_eq(memmap_type_at(&m, below), EFI_CONVENTIONAL_MEMORY);
    ck_assert_uint_eq(memmap_free(&m, top, 1), EFI_SUCCESS);
    ck_assert_uint_eq(m.n, MEMMAP_MAX_ENTRIES - 1);
    assert_map_sane();
    /* RAM ranges take the descriptors that are left, then are refused. */
    while (m.n < MEMMAP_MAX_ENTRIES)
        ck_assert_int_eq(memmap_add_ram(&m, GiB(1) + m.n * MiB(2), MiB(1)), 0);
    save();
    ck_assert_int_eq(memmap_add_ram(&m, GiB(3), MiB(1)), -1);
    assert_unchanged();
    assert_map_sane();
}
END_TEST

/* A FreePages that fails must not have freed anything. Two adjacent
 * allocations of different types, the map two descriptors short of full:
 * freeing across both needs one new descriptor per allocation. */
/* Regression (fixed): memmap_free retypes entry by entry and can
 * run out of descriptors half-way, returning an error after freeing part. */
START_TEST(a_failed_free_changes_nothing)
{
    memmap_init(&m);
    ck_assert_int_eq(memmap_add_ram(&m, 0, MiB(8)), 0);
    uint64_t a = 0, b = 0;
    ck_assert_uint_eq(alloc(EFI_ALLOCATE_ANY_PAGES, EFI_LOADER_DATA, 4, &a), EFI_SUCCESS);
    ck_assert_uint_eq(alloc(EFI_ALLOCATE_ANY_PAGES, EFI_BOOT_SERVICES_DATA, 4, &b), EFI_SUCCESS);
    ck_assert_uint_eq(b + 4 * PAGE, a);
    ck_assert_uint_eq(memmap_reserve(&m, 0, 1, EFI_RESERVED_MEMORY_TYPE), EFI_SUCCESS);
    for (uint64_t p = 3; m.n < MEMMAP_MAX_ENTRIES - 2; p += 2)
        ck_assert_uint_eq(memmap_reserve(&m, p * PAGE, 1, EFI_RESERVED_MEMORY_TYPE), EFI_SUCCESS);
    ck_assert_uint_eq(m.n, MEMMAP_MAX_ENTRIES - 2);
    save();
    efi_status_t s = memmap_free(&m, b + PAGE, 6);
    if (s == EFI_SUCCESS) {
        ck_assert_int_eq(memmap_type_at(&m, b + PAGE), EFI_CONVENTIONAL_MEMORY);
        ck_assert_int_eq(memmap_type_at(&m, a + 2 * PAGE), EFI_CONVENTIONAL_MEMORY);
        ck_assert_int_eq(memmap_type_at(&m, a + 3 * PAGE), EFI_LOADER_DATA);
    } else {
        ck_assert_msg(m.key == saved.key && m.n == saved.n,
                      "FreePages returned %s but changed the map (%u -> %u descriptors); page 0x%llx is now %s",
                      efi_status_name(s), saved.n, m.n, (unsigned long long)(b + PAGE),
                      efi_memory_type_name((uint32_t)memmap_type_at(&m, b + PAGE)));
        assert_unchanged();
    }
}
END_TEST

/* ---- types and attributes ---------------------------------------------------------- */

static const struct { uint32_t efi, e820; } e820_map[] = {
    { EFI_LOADER_CODE, E820_TYPE_RAM }, { EFI_LOADER_DATA, E820_TYPE_RAM },
    { EFI_BOOT_SERVICES_CODE, E820_TYPE_RAM }, { EFI_BOOT_SERVICES_DATA, E820_TYPE_RAM },
    { EFI_CONVENTIONAL_MEMORY, E820_TYPE_RAM }, { EFI_RESERVED_MEMORY_TYPE, E820_TYPE_RESERVED },
    { EFI_RUNTIME_SERVICES_CODE, E820_TYPE_RESERVED }, { EFI_RUNTIME_SERVICES_DATA, E820_TYPE_RESERVED },
    { EFI_MEMORY_MAPPED_IO, E820_TYPE_RESERVED }, { EFI_MEMORY_MAPPED_IO_PORT_SPACE, E820_TYPE_RESERVED },
    { EFI_PAL_CODE, E820_TYPE_RESERVED }, { EFI_UNUSABLE_MEMORY, E820_TYPE_UNUSABLE },
    { EFI_ACPI_RECLAIM_MEMORY, E820_TYPE_ACPI }, { EFI_ACPI_MEMORY_NVS, E820_TYPE_NVS },
    { EFI_PERSISTENT_MEMORY, E820_TYPE_PMEM },
};

START_TEST(e820_types_follow_the_kernels_setup_e820)
{
    for (unsigned i = 0; i < sizeof(e820_map) / sizeof(e820_map[0]); i++)
        ck_assert_msg(memmap_e820_type(e820_map[i].efi) == e820_map[i].e820, "%s -> %u, expected %u",
                      efi_memory_type_name(e820_map[i].efi), memmap_e820_type(e820_map[i].efi), e820_map[i].e820);
}
END_TEST

START_TEST(runtime_types_carry_the_runtime_attribute)
{
    for (uint32_t t = 0; t < EFI_MAX_MEMORY_TYPE; t++) {
        uint64_t a = memmap_attributes(t);
        bool rt = t == EFI_RUNTIME_SERVICES_CODE || t == EFI_RUNTIME_SERVICES_DATA;
        ck_assert_uint_eq(!!(a & EFI_MEMORY_RUNTIME), rt);
        ck_assert_uint_eq(a & EFI_MEMORY_WB, EFI_MEMORY_WB);
    }
}
END_TEST

START_TEST(is_allocated_means_allocated_pages_only)
{
    map_16m();
    uint64_t a = MiB(4), b = MiB(4) + PAGE;
    ck_assert_uint_eq(alloc(EFI_ALLOCATE_ADDRESS, EFI_LOADER_DATA, 1, &a), EFI_SUCCESS);
    ck_assert_uint_eq(alloc(EFI_ALLOCATE_ADDRESS, EFI_LOADER_CODE, 1, &b), EFI_SUCCESS);
    ck_assert_uint_eq(memmap_reserve(&m, MiB(4) + 2 * PAGE, 1, EFI_LOADER_CODE), EFI_SUCCESS);
    ck_assert(memmap_is_allocated(&m, a, 2 * PAGE));           /* spans two allocations */
    ck_assert(!memmap_is_allocated(&m, a, 3 * PAGE));          /* runs into a fixed page */
    ck_assert(!memmap_is_allocated(&m, a - PAGE, 2 * PAGE));   /* starts in conventional memory */
    ck_assert(!memmap_is_allocated(&m, a, UINT64_MAX));
}
END_TEST

Suite *memmap_suite(void)
{
    Suite *s = suite_create("memmap");
    TCase *tc = tcase_create("build");
    tcase_add_test(tc, ram_ranges_are_kept_sorted_and_adjacent_ones_merge);
    tcase_add_test(tc, bad_ram_ranges_are_refused_without_changing_the_map);
    tcase_add_test(tc, reserve_splits_conventional_memory_into_a_fixed_entry);
    tcase_add_test(tc, reserve_outside_conventional_memory_is_refused);
    suite_add_tcase(s, tc);

    tc = tcase_create("allocate");
    tcase_add_test(tc, any_pages_are_allocated_top_down);
    tcase_add_test(tc, any_pages_prefer_memory_below_4g);
    tcase_add_test(tc, max_address_all_ones_allocates_the_highest_pages);
    tcase_add_test(tc, max_address_4g_minus_one_stays_below_4g);
    tcase_add_test(tc, max_address_ending_a_page_allows_that_page);
    tcase_add_test(tc, max_address_page_aligned_keeps_the_uppermost_byte_at_or_below_it);
    tcase_add_test(tc, max_address_below_free_memory_runs_out);
    tcase_add_loop_test(tc, allocate_address_anywhere_inside_conventional_memory, 0,
                        (int)(sizeof(fixed_ok) / sizeof(fixed_ok[0])));
    tcase_add_test(tc, allocate_address_outside_conventional_memory_is_refused);
    tcase_add_test(tc, allocations_are_page_aligned);
    tcase_add_loop_test(tc, memory_type_validity_follows_allocate_pages, 0, (int)(sizeof(types) / sizeof(types[0])));
    tcase_add_test(tc, bad_allocate_type_and_zero_pages_are_refused);
    tcase_add_test(tc, huge_page_counts_fail_cleanly);
    suite_add_tcase(s, tc);

    tc = tcase_create("free");
    tcase_add_test(tc, freeing_an_allocation_restores_one_conventional_range);
    tcase_add_test(tc, freeing_part_of_an_allocation_splits_it);
    tcase_add_test(tc, freeing_across_two_allocations_of_different_types);
    tcase_add_test(tc, freeing_what_was_not_allocated_is_not_found);
    tcase_add_test(tc, fixed_regions_cannot_be_freed);
    tcase_add_test(tc, adjacent_allocations_of_one_type_merge_and_others_do_not);
    tcase_add_test(tc, freed_pages_merge_with_conventional_neighbours);
    suite_add_tcase(s, tc);

    tc = tcase_create("key-and-limits");
    tcase_add_test(tc, map_key_changes_on_every_change_and_not_on_failures);
    tcase_add_test(tc, a_full_map_takes_only_changes_that_need_no_new_descriptor);
    tcase_add_test(tc, a_failed_free_changes_nothing);
    suite_add_tcase(s, tc);

    tc = tcase_create("types");
    tcase_add_test(tc, e820_types_follow_the_kernels_setup_e820);
    tcase_add_test(tc, runtime_types_carry_the_runtime_attribute);
    tcase_add_test(tc, is_allocated_means_allocated_pages_only);
    suite_add_tcase(s, tc);
    return s;
}
