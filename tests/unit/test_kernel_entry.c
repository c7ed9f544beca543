/* loader/kernel_entry.c: the boot_params another loader built, found among
 * its pages as boot.rst lays them out (the setup header at 0x1f1, "HdrS",
 * type_of_loader, code32_start, xloadflags), and the trap over the entries
 * it names. */
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "../../loader/kernel_entry.h"
#include "../../guest/bootparam.h"

#define RAM_SIZE   (16ULL << 20)
#define FILE_COPY  0x100000ULL   /* LoaderData: the kernel file as read, its header untouched */
#define BOOT_PARAMS 0x200000ULL  /* LoaderData: the loader's boot_params */
#define STRAY      0x300000ULL   /* LoaderData: a setup header pointing at free memory */
#define KERNEL     0x800000ULL   /* LoaderCode: the protected-mode kernel, 16 pages */
#define FREE_RAM   0xc00000ULL

static void *ram;
static struct guest_mem gm;
static struct memmap map;

static void setup(void)
{
    ram = calloc(1, RAM_SIZE);
    ck_assert_ptr_nonnull(ram);
    guest_mem_init(&gm, ram, RAM_SIZE);
    memmap_init(&map);
    ck_assert_int_eq(memmap_add_ram(&map, 0, RAM_SIZE), 0);
}

static void teardown(void)
{
    free(ram);
}

static void allocate(uint32_t type, uint64_t at, uint64_t pages)
{
    uint64_t a = at;
    ck_assert_uint_eq(memmap_allocate(&map, EFI_ALLOCATE_ADDRESS, type, pages, &a), EFI_SUCCESS);
}

/* A setup header at page + 0x1f1 as a loader (type_of_loader != 0) or the
 * kernel file (0) has it. */
static void header_at(uint64_t page, uint16_t version, uint8_t loader, uint32_t code32_start, uint16_t xloadflags)
{
    struct setup_header h = { .header = SETUP_HDRS_MAGIC, .version = version, .type_of_loader = loader,
                              .code32_start = code32_start, .xloadflags = xloadflags };
    ck_assert(guest_mem_write(&gm, page + offsetof(struct boot_params, hdr), &h, sizeof(h)));
}

START_TEST(finds_the_loaders_boot_params_and_traps_both_entries)
{
    allocate(EFI_LOADER_DATA, FILE_COPY, 1);
    allocate(EFI_LOADER_DATA, BOOT_PARAMS, 1);
    allocate(EFI_LOADER_DATA, STRAY, 1);
    allocate(EFI_LOADER_CODE, KERNEL, 16);
    header_at(FILE_COPY, 0x020f, 0, 0x100000, XLF_KERNEL_64);
    header_at(STRAY, 0x020f, 0x72, FREE_RAM, XLF_KERNEL_64);
    header_at(BOOT_PARAMS, 0x020f, 0x72, KERNEL, XLF_KERNEL_64);
    struct kernel_entry e;
    ck_assert(kernel_entry_find(&gm, &map, &e));
    ck_assert_uint_eq(e.boot_params, BOOT_PARAMS);
    ck_assert_uint_eq(e.n, 2);
    ck_assert_uint_eq(e.at[0], KERNEL);
    ck_assert_uint_eq(e.at[1], KERNEL + KERNEL_ENTRY_64_OFFSET);
    ck_assert(kernel_entry_arm(&gm, &e));
    ck_assert_mem_eq((uint8_t *)ram + KERNEL, kernel_entry_trap, KERNEL_ENTRY_TRAP_LEN);
    ck_assert_mem_eq((uint8_t *)ram + KERNEL + KERNEL_ENTRY_64_OFFSET, kernel_entry_trap, KERNEL_ENTRY_TRAP_LEN);
    ck_assert_int_eq(kernel_entry_index(&e, KERNEL), 0);
    ck_assert_int_eq(kernel_entry_index(&e, KERNEL + KERNEL_ENTRY_64_OFFSET), 1);
    ck_assert_int_eq(kernel_entry_index(&e, KERNEL + 1), -1);
}
END_TEST

/* Before protocol 2.12 there are no xloadflags: the 32-bit entry only. */
START_TEST(an_old_protocol_has_the_32_bit_entry_only)
{
    allocate(EFI_LOADER_DATA, BOOT_PARAMS, 1);
    allocate(EFI_LOADER_CODE, KERNEL, 16);
    header_at(BOOT_PARAMS, 0x020b, 0x72, KERNEL, XLF_KERNEL_64);
    struct kernel_entry e;
    ck_assert(kernel_entry_find(&gm, &map, &e));
    ck_assert_uint_eq(e.n, 1);
    ck_assert_uint_eq(e.at[0], KERNEL);
}
END_TEST

/* Only loader memory is searched, and only a loader's header counts. */
START_TEST(nothing_found_outside_loader_memory)
{
    allocate(EFI_BOOT_SERVICES_DATA, BOOT_PARAMS, 1);
    allocate(EFI_LOADER_DATA, FILE_COPY, 1);
    allocate(EFI_LOADER_CODE, KERNEL, 16);
    header_at(BOOT_PARAMS, 0x020f, 0x72, KERNEL, 0);
    header_at(FILE_COPY, 0x020f, 0, KERNEL, 0);
    header_at(FREE_RAM, 0x020f, 0x72, KERNEL, 0);
    struct kernel_entry e;
    ck_assert(!kernel_entry_find(&gm, &map, &e));
    ck_assert_uint_eq(e.n, 0);
    ck_assert_int_eq(kernel_entry_index(&e, KERNEL), -1);
}
END_TEST

/* A trap goes over the loader's memory only: a header whose startup_64,
 * or the second byte of whose code32_start, falls on the firmware's
 * runtime code names no kernel the loader placed. */
START_TEST(an_entry_past_loader_memory_is_not_taken)
{
    allocate(EFI_LOADER_DATA, BOOT_PARAMS, 1);
    allocate(EFI_LOADER_CODE, KERNEL, 1);
    allocate(EFI_RUNTIME_SERVICES_CODE, KERNEL + 0x1000, 1);
    struct kernel_entry e;
    header_at(BOOT_PARAMS, 0x020f, 0x72, KERNEL + 0xf00, XLF_KERNEL_64);
    ck_assert(!kernel_entry_find(&gm, &map, &e));
    header_at(BOOT_PARAMS, 0x020f, 0x72, KERNEL + 0xfff, 0);
    ck_assert(!kernel_entry_find(&gm, &map, &e));
    ck_assert_uint_eq(e.n, 0);
    header_at(BOOT_PARAMS, 0x020f, 0x72, KERNEL + 0xdfe, XLF_KERNEL_64);
    ck_assert(kernel_entry_find(&gm, &map, &e));
    ck_assert_uint_eq(e.n, 2);
    ck_assert_uint_eq(e.at[1], KERNEL + 0xffe);
}
END_TEST

/* An entry at the end of RAM takes no trap past it. */
START_TEST(an_entry_outside_ram_is_not_armed)
{
    struct kernel_entry e = { .boot_params = BOOT_PARAMS, .at = { RAM_SIZE - 1 }, .n = 1 };
    ck_assert(!kernel_entry_arm(&gm, &e));
}
END_TEST

/* One entry outside RAM: the other is not armed either, for a trap nobody
 * stops at would leave the kernel's first bytes overwritten. */
START_TEST(an_entry_outside_ram_leaves_the_other_untouched)
{
    uint8_t before[KERNEL_ENTRY_TRAP_LEN] = { 0x90, 0x90 };
    ck_assert(guest_mem_write(&gm, KERNEL, before, sizeof(before)));
    struct kernel_entry e = { .boot_params = BOOT_PARAMS, .at = { KERNEL, RAM_SIZE - 1 }, .n = 2 };
    ck_assert(!kernel_entry_arm(&gm, &e));
    ck_assert_mem_eq((uint8_t *)ram + KERNEL, before, sizeof(before));
}
END_TEST

Suite *kernel_entry_suite(void)
{
    Suite *s = suite_create("kernel_entry");
    TCase *tc = tcase_create("find");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, finds_the_loaders_boot_params_and_traps_both_entries);
    tcase_add_test(tc, an_old_protocol_has_the_32_bit_entry_only);
    tcase_add_test(tc, nothing_found_outside_loader_memory);
    tcase_add_test(tc, an_entry_past_loader_memory_is_not_taken);
    tcase_add_test(tc, an_entry_outside_ram_is_not_armed);
    tcase_add_test(tc, an_entry_outside_ram_leaves_the_other_untouched);
    suite_add_tcase(s, tc);
    return s;
}
