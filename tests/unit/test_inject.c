/* Fault injection and the fault sweep's building blocks: SPEC[@K]
 * parsing, which calls a fault applies to, arming from the Kth call,
 * the firmware copy a snapshot keeps, and memory deltas. */
#include <check.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "../../firmware-stub/firmware.h"
#include "../../firmware-stub/guids.h"
#include "../../guest/mem_delta.h"

#define RAM_SIZE  (16u << 20)
#define FW_BASE   0x100000ULL
#define SCRATCH   0x200000ULL
#define STACK     0x3f0000ULL

static uint8_t *ram;
static struct guest_mem gm;
static struct firmware fw;
static FILE *sink;

static void setup(void)
{
    ram = calloc(1, RAM_SIZE);
    ck_assert_ptr_nonnull(ram);
    guest_mem_init(&gm, ram, RAM_SIZE);
    sink = fopen("/dev/null", "w");
    ck_assert_ptr_nonnull(sink);
    struct fw_config cfg = { .base = FW_BASE, .image_base = 0x1000000, .image_size = 0x100000,
                             .console = sink, .log = sink };
    ck_assert_int_eq(firmware_init(&fw, &gm, &cfg), 0);
    ck_assert_uint_eq(memmap_reserve(&fw.map, SCRATCH, 0x200, EFI_LOADER_DATA), EFI_SUCCESS);
}

static void teardown(void)
{
    firmware_free(&fw);
    fclose(sink);
    free(ram);
}

static struct fw_call call4(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    return (struct fw_call){ a, b, c, d, STACK, { &gm, 0, false, false, false, false }, { 0 } };
}

static uint64_t put_guid(uint64_t at, efi_guid_t g)
{
    memcpy(ram + at, &g, sizeof(g));
    return at;
}

static uint64_t rd64(uint64_t at)
{
    uint64_t v;
    memcpy(&v, ram + at, 8);
    return v;
}

static void wr64(uint64_t at, uint64_t v) { memcpy(ram + at, &v, 8); }

/* ---- SPEC[:VALUE][@K] --------------------------------------------------------------- */

START_TEST(parse_accepts_from)
{
    struct inject in = { .on = { false } };
    char err[128];
    ck_assert_int_eq(inject_parse(&in, "gmm-too-small:2@3", err, sizeof(err)), 0);
    ck_assert(in.on[INJECT_GMM_TOO_SMALL]);
    ck_assert_uint_eq(in.value[INJECT_GMM_TOO_SMALL], 2);
    ck_assert_uint_eq(in.from[INJECT_GMM_TOO_SMALL], 3);
    ck_assert_int_eq(inject_parse(&in, "getvar-error@2", err, sizeof(err)), 0);
    ck_assert_uint_eq(in.from[INJECT_GETVAR_ERROR], 2);
    ck_assert_int_eq(inject_parse(&in, "no-loadfile2", err, sizeof(err)), 0);
    ck_assert(in.on[INJECT_NO_LOADFILE2]);
}
END_TEST

START_TEST(parse_refuses_bad_from)
{
    static const char *const bad[] = { "alloc-pages-fail:3@2", "alloc-pool-fail:1@1", "memmap-fragmented@1",
                                       "no-low-free@2", "getvar-error@0", "getvar-error@", "getvar-error@x",
                                       "gmm-too-small:@2", "no-rng:1", "getvar-error@-1", "gmm-too-small:1@2@3",
                                       "getvar-error@ -1", "getvar-error@ 2", "gmm-too-small: -1",
                                       "alloc-pages-above:+4096" };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct inject in = { .on = { false } };
        char err[128] = "";
        ck_assert_msg(inject_parse(&in, bad[i], err, sizeof(err)) == -1, "%s accepted", bad[i]);
        ck_assert_msg(err[0], "no message for %s", bad[i]);
    }
}
END_TEST

/* Decimal, or hexadecimal after 0x, as the other options' numbers: never
 * octal (strtoull's base 0 read "010" as eight and refused "08"). */
START_TEST(parse_reads_decimal_never_octal)
{
    struct inject in = { .on = { false } };
    char err[128];
    ck_assert_int_eq(inject_parse(&in, "alloc-pages-fail:010", err, sizeof(err)), 0);
    ck_assert_uint_eq(in.value[INJECT_ALLOC_PAGES_FAIL], 10);
    ck_assert_int_eq(inject_parse(&in, "alloc-pool-fail:08", err, sizeof(err)), 0);
    ck_assert_uint_eq(in.value[INJECT_ALLOC_POOL_FAIL], 8);
    ck_assert_int_eq(inject_parse(&in, "getvar-error@010", err, sizeof(err)), 0);
    ck_assert_uint_eq(in.from[INJECT_GETVAR_ERROR], 10);
    ck_assert_int_eq(inject_parse(&in, "alloc-pages-above:0X2000000@0x10", err, sizeof(err)), 0);
    ck_assert_uint_eq(in.value[INJECT_ALLOC_PAGES_ABOVE], 0x2000000);
    ck_assert_uint_eq(in.from[INJECT_ALLOC_PAGES_ABOVE], 16);
}
END_TEST

/* A fault given twice: the second spec used to replace the first without
 * a word, so gmm-too-small@1 and gmm-too-small@3 armed only the third call. */
START_TEST(parse_refuses_a_fault_given_twice)
{
    struct inject in = { .on = { false } };
    char err[128] = "";
    ck_assert_int_eq(inject_parse(&in, "gmm-too-small:1@1", err, sizeof(err)), 0);
    ck_assert_int_eq(inject_parse(&in, "gmm-too-small:1@3", err, sizeof(err)), -1);
    ck_assert_str_eq(err, "--inject gmm-too-small:1@3: gmm-too-small is already given (one --inject per fault)");
    ck_assert_uint_eq(in.from[INJECT_GMM_TOO_SMALL], 1);
    ck_assert_int_eq(inject_parse(&in, "no-rng", err, sizeof(err)), 0);
    ck_assert_int_eq(inject_parse(&in, "no-rng", err, sizeof(err)), -1);
}
END_TEST

START_TEST(spec_round_trips)
{
    static const char *const specs[] = { "gmm-too-small", "gmm-too-small:2", "gmm-too-small@2", "gmm-too-small:2@4",
                                         "ebs-stale-key", "alloc-pages-fail:3", "alloc-pages-above:0x2000000@2",
                                         "alloc-pool-fail:7", "no-rng@2", "getvar-error", "no-loadfile2@3",
                                         "memmap-fragmented" };
    for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
        struct inject in = { .on = { false } };
        char err[128], out[64];
        ck_assert_int_eq(inject_parse(&in, specs[i], err, sizeof(err)), 0);
        unsigned k = 0;
        while (!in.on[k])
            k++;
        inject_spec(&in, (enum inject_kind)k, out, sizeof(out));
        ck_assert_str_eq(out, specs[i]);
    }
    ck_assert(!inject_faults[INJECT_ALLOC_PAGES_FAIL].takes_from);
    ck_assert(inject_faults[INJECT_EBS_STALE_KEY].takes_from);
}
END_TEST

START_TEST(inject_specs_parse_and_bad_ones_are_refused)
{
    struct inject in;
    char err[128];
    memset(&in, 0, sizeof(in));
    ck_assert_int_eq(inject_parse(&in, "gmm-too-small", err, sizeof(err)), 0);
    ck_assert(in.on[INJECT_GMM_TOO_SMALL]);
    ck_assert_uint_eq(in.value[INJECT_GMM_TOO_SMALL], 1);
    ck_assert_int_eq(inject_parse(&in, "alloc-pages-above:0x100000000", err, sizeof(err)), 0);
    ck_assert_uint_eq(in.value[INJECT_ALLOC_PAGES_ABOVE], 0x100000000ULL);
    const char *bad[] = { "alloc-pages-fail", "alloc-pages-fail:0", "alloc-pages-fail:x", "ebs-stale-key:1",
                          "gmm-too-small:", "gmm", "nonsense:3", "" };
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = 0;
        ck_assert_msg(inject_parse(&in, bad[i], err, sizeof(err)) == -1, "\"%s\" accepted", bad[i]);
        ck_assert_ptr_nonnull(strstr(err, "--inject"));
    }
    ck_assert(!in.on[INJECT_ALLOC_PAGES_FAIL]);
}
END_TEST

/* ---- which calls a fault applies to ------------------------------------------------- */

START_TEST(applies_to_the_calls_it_names)
{
    struct fw_call c = call4(0, 0, 0, 0);
    unsigned first = firmware_inject_applies(&fw, FW_ID_BS(BS_STALL), &c);   /* Stall, the first call */
    ck_assert_uint_eq(first, 1u << INJECT_MAP_FRAGMENTED | 1u << INJECT_NO_LOW_FREE);
    fw.calls = 1;
    ck_assert_uint_eq(firmware_inject_applies(&fw, FW_ID_BS(BS_STALL), &c), 0);

    wr64(SCRATCH, 0);   /* *MapSize 0: a size probe */
    c = call4(SCRATCH, 0, SCRATCH + 8, SCRATCH + 16);
    ck_assert_uint_eq(firmware_inject_applies(&fw, FW_ID_BS(BS_GET_MEMORY_MAP), &c), 0);
    wr64(SCRATCH, 4096);
    ck_assert_uint_eq(firmware_inject_applies(&fw, FW_ID_BS(BS_GET_MEMORY_MAP), &c), 1u << INJECT_GMM_TOO_SMALL);

    ck_assert_uint_eq(firmware_inject_applies(&fw, FW_ID_BS(BS_ALLOCATE_PAGES), &c),
                      1u << INJECT_ALLOC_PAGES_FAIL | 1u << INJECT_ALLOC_PAGES_ABOVE);
    ck_assert_uint_eq(firmware_inject_applies(&fw, FW_ID_BS(BS_ALLOCATE_POOL), &c), 1u << INJECT_ALLOC_POOL_FAIL);

    c = call4(put_guid(SCRATCH + 0x100, GUID_RNG_PROTOCOL), 0, SCRATCH + 0x200, 0);
    ck_assert_uint_eq(firmware_inject_applies(&fw, FW_ID_BS(BS_LOCATE_PROTOCOL), &c), 1u << INJECT_NO_RNG);
    c = call4(put_guid(SCRATCH + 0x100, GUID_DEVICE_PATH), 0, SCRATCH + 0x200, 0);
    ck_assert_uint_eq(firmware_inject_applies(&fw, FW_ID_BS(BS_LOCATE_PROTOCOL), &c), 0);
    c = call4(fw.image_handle, put_guid(SCRATCH + 0x100, GUID_LOADED_IMAGE), SCRATCH + 0x200, 0);
    ck_assert_uint_eq(firmware_inject_applies(&fw, FW_ID_BS(BS_HANDLE_PROTOCOL), &c), 1u << INJECT_NO_LOADED_IMAGE);
    /* No initrd offered: no-loadfile2 has nothing to hide. */
    c = call4(put_guid(SCRATCH + 0x100, GUID_LOAD_FILE2_PROTOCOL), SCRATCH + 0x200, SCRATCH + 0x208, 0);
    ck_assert_uint_eq(firmware_inject_applies(&fw, FW_ID_BS(BS_LOCATE_DEVICE_PATH), &c), 0);

    fw.phase = FW_PHASE_RUNTIME;
    ck_assert_uint_eq(firmware_inject_applies(&fw, FW_ID_BS(BS_ALLOCATE_PAGES), &c), 0);
    ck_assert_uint_eq(firmware_inject_applies(&fw, FW_ID_RT(RT_GET_VARIABLE), &c), 1u << INJECT_GETVAR_ERROR);
}
END_TEST

/* GetVariable(L"X", guid, NULL, &size, buf) for a missing variable. */
static uint64_t get_missing_variable(void)
{
    static const uint16_t name[] = { 'X', 0 };
    memcpy(ram + SCRATCH + 0x300, name, sizeof(name));
    put_guid(SCRATCH + 0x320, GUID_LOADED_IMAGE);
    wr64(SCRATCH + 0x340, 16);
    wr64(STACK + 0x28, SCRATCH + 0x380);   /* the fifth argument, on the stack */
    struct fw_call c = call4(SCRATCH + 0x300, SCRATCH + 0x320, 0, SCRATCH + 0x340);
    return firmware_call(&fw, FW_ID_RT(RT_GET_VARIABLE), &c);
}

START_TEST(armed_from_the_kth_call)
{
    char err[128];
    ck_assert_int_eq(inject_parse(&fw.cfg.inject, "getvar-error@2", err, sizeof(err)), 0);
    ck_assert_uint_eq(get_missing_variable(), EFI_NOT_FOUND);
    ck_assert_uint_eq(get_missing_variable(), EFI_DEVICE_ERROR);
    ck_assert_uint_eq(get_missing_variable(), EFI_DEVICE_ERROR);
    const struct inject *in = &fw.cfg.inject;
    ck_assert_uint_eq(in->seen[INJECT_GETVAR_ERROR], 3);
    ck_assert_uint_eq(in->count[INJECT_GETVAR_ERROR], 2);
    ck_assert_uint_eq(in->first_seen[INJECT_GETVAR_ERROR], 2);
}
END_TEST

static uint64_t allocate_pool(void)
{
    struct fw_call c = call4(EFI_LOADER_DATA, 64, SCRATCH + 0x400, 0);
    return firmware_call(&fw, FW_ID_BS(BS_ALLOCATE_POOL), &c);
}

START_TEST(nth_call_fails_only)
{
    char err[128];
    ck_assert_int_eq(inject_parse(&fw.cfg.inject, "alloc-pool-fail:2", err, sizeof(err)), 0);
    ck_assert_uint_eq(allocate_pool(), EFI_SUCCESS);
    ck_assert_uint_eq(allocate_pool(), EFI_OUT_OF_RESOURCES);
    ck_assert_uint_eq(allocate_pool(), EFI_SUCCESS);
    ck_assert_uint_eq(fw.cfg.inject.count[INJECT_ALLOC_POOL_FAIL], 1);
}
END_TEST

START_TEST(no_rng_hides_the_protocol)
{
    struct fw_call c = call4(put_guid(SCRATCH + 0x100, GUID_RNG_PROTOCOL), 0, SCRATCH + 0x200, 0);
    ck_assert_uint_eq(firmware_call(&fw, FW_ID_BS(BS_LOCATE_PROTOCOL), &c), EFI_SUCCESS);
    ck_assert_uint_ne(rd64(SCRATCH + 0x200), 0);
    char err[128];
    ck_assert_int_eq(inject_parse(&fw.cfg.inject, "no-rng", err, sizeof(err)), 0);
    ck_assert_uint_eq(firmware_call(&fw, FW_ID_BS(BS_LOCATE_PROTOCOL), &c), EFI_NOT_FOUND);
    ck_assert_uint_eq(rd64(SCRATCH + 0x200), 0);
}
END_TEST

/* A whole-boot fault changes the map once everything is placed
 * (firmware_inject_memmap) and is marked on every map the guest reads,
 * not on a size probe. */
START_TEST(memmap_fault_changes_the_map_and_marks_each_read)
{
    unsigned n0 = fw.map.n;
    ck_assert(!firmware_inject_memmap(&fw));
    ck_assert_uint_eq(fw.map.n, n0);
    char err[128];
    ck_assert_int_eq(inject_parse(&fw.cfg.inject, "memmap-fragmented", err, sizeof(err)), 0);
    ck_assert_int_eq(memmap_type_at(&fw.map, 0x1ff000), EFI_CONVENTIONAL_MEMORY);
    ck_assert(firmware_inject_memmap(&fw));
    ck_assert_int_eq(memmap_type_at(&fw.map, 0x1ff000), EFI_RESERVED_MEMORY_TYPE);
    ck_assert_int_eq(memmap_type_at(&fw.map, 0x5ff000), EFI_RESERVED_MEMORY_TYPE);
    ck_assert_int_eq(memmap_type_at(&fw.map, 0x5fe000), EFI_CONVENTIONAL_MEMORY);
    ck_assert_uint_gt(fw.map.n, n0);

    struct fw_call c = call4(SCRATCH, SCRATCH + 0x1000, SCRATCH + 8, SCRATCH + 16);
    wr64(SCRATCH, 0);   /* a size probe */
    ck_assert_uint_eq(firmware_call(&fw, FW_ID_BS(BS_GET_MEMORY_MAP), &c), EFI_BUFFER_TOO_SMALL);
    ck_assert_uint_eq(fw.cfg.inject.count[INJECT_MAP_FRAGMENTED], 0);
    for (unsigned i = 1; i <= 2; i++) {
        wr64(SCRATCH, 0x8000);
        ck_assert_uint_eq(firmware_call(&fw, FW_ID_BS(BS_GET_MEMORY_MAP), &c), EFI_SUCCESS);
        ck_assert_uint_eq(fw.cfg.inject.count[INJECT_MAP_FRAGMENTED], i);
    }
    /* It applied to the boot's first call only. */
    ck_assert_uint_eq(fw.cfg.inject.seen[INJECT_MAP_FRAGMENTED], 1);
}
END_TEST

/* ---- what a snapshot keeps ----------------------------------------------------------- */

START_TEST(firmware_copy_has_its_own_variables)
{
    static const uint16_t name[] = { 'V', 0 };
    memcpy(ram + SCRATCH + 0x300, name, sizeof(name));
    put_guid(SCRATCH + 0x320, GUID_LOADED_IMAGE);
    memcpy(ram + SCRATCH + 0x340, "abcd", 4);
    wr64(STACK + 0x28, SCRATCH + 0x340);
    struct fw_call set = call4(SCRATCH + 0x300, SCRATCH + 0x320,
                               EFI_VARIABLE_BOOTSERVICE_ACCESS | EFI_VARIABLE_RUNTIME_ACCESS, 4);
    ck_assert_uint_eq(firmware_call(&fw, FW_ID_RT(RT_SET_VARIABLE), &set), EFI_SUCCESS);

    struct firmware copy;
    ck_assert_int_eq(firmware_copy(&copy, &fw), 0);
    /* Delete it in the original: SetVariable with size 0. */
    set.r9 = 0;
    ck_assert_uint_eq(firmware_call(&fw, FW_ID_RT(RT_SET_VARIABLE), &set), EFI_SUCCESS);

    wr64(SCRATCH + 0x360, 16);
    wr64(STACK + 0x28, SCRATCH + 0x380);
    struct fw_call get = call4(SCRATCH + 0x300, SCRATCH + 0x320, 0, SCRATCH + 0x360);
    ck_assert_uint_eq(firmware_call(&fw, FW_ID_RT(RT_GET_VARIABLE), &get), EFI_NOT_FOUND);
    ck_assert_uint_eq(firmware_call(&copy, FW_ID_RT(RT_GET_VARIABLE), &get), EFI_SUCCESS);
    ck_assert_uint_eq(rd64(SCRATCH + 0x360), 4);
    ck_assert_mem_eq(ram + SCRATCH + 0x380, "abcd", 4);
    firmware_free(&copy);
}
END_TEST

/* An append of nothing to a missing variable makes an empty one; the
 * copy's must take an append as the original's does. */
START_TEST(firmware_copy_appends_to_an_empty_variable)
{
    static const uint16_t name[] = { 'Z', 0 };
    const uint64_t attrs = EFI_VARIABLE_BOOTSERVICE_ACCESS | EFI_VARIABLE_RUNTIME_ACCESS;
    memcpy(ram + SCRATCH + 0x300, name, sizeof(name));
    put_guid(SCRATCH + 0x320, GUID_LOADED_IMAGE);
    memcpy(ram + SCRATCH + 0x340, "ab", 2);
    wr64(STACK + 0x28, SCRATCH + 0x340);
    struct fw_call set = call4(SCRATCH + 0x300, SCRATCH + 0x320, attrs | EFI_VARIABLE_APPEND_WRITE, 0);
    ck_assert_uint_eq(firmware_call(&fw, FW_ID_RT(RT_SET_VARIABLE), &set), EFI_SUCCESS);
    struct firmware copy;
    ck_assert_int_eq(firmware_copy(&copy, &fw), 0);
    set.r9 = 2;
    ck_assert_uint_eq(firmware_call(&copy, FW_ID_RT(RT_SET_VARIABLE), &set), EFI_SUCCESS);
    wr64(SCRATCH + 0x360, 16);
    wr64(STACK + 0x28, SCRATCH + 0x380);
    struct fw_call get = call4(SCRATCH + 0x300, SCRATCH + 0x320, 0, SCRATCH + 0x360);
    ck_assert_uint_eq(firmware_call(&copy, FW_ID_RT(RT_GET_VARIABLE), &get), EFI_SUCCESS);
    ck_assert_uint_eq(rd64(SCRATCH + 0x360), 2);
    ck_assert_mem_eq(ram + SCRATCH + 0x380, "ab", 2);
    firmware_free(&copy);
}
END_TEST

START_TEST(mem_delta_chain_rebuilds_memory)
{
    enum { PAGES = 6, P = 4096 };
    uint8_t *mem = calloc(PAGES, P), *ref = calloc(PAGES, P), *copy = calloc(PAGES, P);
    ck_assert(mem && ref && copy);
    struct mem_delta d1, d2, d3;
    mem[5] = 1;
    mem[3 * P + 4095] = 2;
    ck_assert_int_eq(mem_delta_take(&d1, mem, ref, PAGES * P, PAGES), 0);
    ck_assert_uint_eq(d1.n, 2);
    ck_assert_uint_eq(d1.page[0], 0);
    ck_assert_uint_eq(d1.page[1], 3);
    ck_assert_mem_eq(ref, mem, PAGES * P);
    ck_assert_int_eq(mem_delta_take(&d2, mem, ref, PAGES * P, 0), 0);
    ck_assert_uint_eq(d2.n, 0);
    mem[5 * P] = 7;
    mem[5] = 0;
    ck_assert_int_eq(mem_delta_take(&d3, mem, ref, PAGES * P, 2), 0);
    ck_assert_uint_eq(d3.n, 2);
    mem_delta_apply(&d1, copy);
    mem_delta_apply(&d2, copy);
    mem_delta_apply(&d3, copy);
    ck_assert_mem_eq(copy, mem, PAGES * P);
    mem_delta_free(&d1);
    mem_delta_free(&d2);
    mem_delta_free(&d3);
    free(mem);
    free(ref);
    free(copy);
}
END_TEST

/* A delta never holds, nor allocates room for, more pages than its
 * budget: a guest that dirties all its RAM between two calls does not make
 * the sweep allocate a copy of it. */
START_TEST(mem_delta_stops_at_its_budget)
{
    enum { PAGES = 600, BUDGET = 300, P = 4096 };
    uint8_t *mem = malloc((size_t)PAGES * P), *ref = calloc(PAGES, P);
    ck_assert(mem && ref);
    memset(mem, 0xa5, (size_t)PAGES * P);
    struct mem_delta d;
    ck_assert_int_eq(mem_delta_take(&d, mem, ref, (size_t)PAGES * P, BUDGET), MEM_DELTA_OVER_BUDGET);
    ck_assert_uint_eq(d.n, 0);
    ck_assert_ptr_null(d.page);
    ck_assert_ptr_null(d.data);
    /* It stopped at the page past the budget. */
    ck_assert_uint_eq(ref[(size_t)(BUDGET - 1) * P], 0xa5);
    ck_assert_uint_eq(ref[(size_t)BUDGET * P], 0);
    /* Room grows by doubling (256, then 512 pages) but never past the
     * budget: exactly BUDGET changed pages fit in room for BUDGET. */
    memset(ref, 0, (size_t)PAGES * P);
    ck_assert_int_eq(mem_delta_take(&d, mem, ref, (size_t)BUDGET * P, BUDGET), 0);
    ck_assert_uint_eq(d.n, BUDGET);
    ck_assert_uint_lt(malloc_usable_size(d.data), (size_t)(BUDGET + 1) * P);
    mem_delta_free(&d);
    free(mem);
    free(ref);
}
END_TEST

/* With a bitmap of the pages that may have changed, only those are
 * compared: a changed page the bitmap names is taken, one it leaves out
 * is not (its writer named it or it did not change), and one it names
 * that did not change is not either; across a byte of the bitmap left
 * zero too. */
START_TEST(mem_delta_compares_only_the_pages_named)
{
    enum { PAGES = 20, P = 4096 };
    uint8_t *mem = calloc(PAGES, P), *ref = calloc(PAGES, P), pages[(PAGES + 7) / 8] = { 0 };
    ck_assert(mem && ref);
    mem[2 * P] = 1;            /* named, changed */
    mem[3 * P] = 2;            /* not named, changed */
    mem[17 * P + 9] = 3;       /* named, changed, past a zero byte of the bitmap */
    pages[0] = 1u << 2 | 1u << 5;   /* 5: named, unchanged */
    pages[2] = 1u << 1;
    struct mem_delta d;
    ck_assert_int_eq(mem_delta_take_pages(&d, mem, ref, PAGES * P, PAGES, pages), 0);
    ck_assert_uint_eq(d.n, 2);
    ck_assert_uint_eq(d.page[0], 2);
    ck_assert_uint_eq(d.page[1], 17);
    ck_assert_uint_eq(ref[2 * P], 1);
    ck_assert_uint_eq(ref[3 * P], 0);
    ck_assert_uint_eq(ref[17 * P + 9], 3);
    mem_delta_free(&d);
    free(mem);
    free(ref);
}
END_TEST

Suite *inject_suite(void)
{
    Suite *s = suite_create("inject");
    TCase *parse = tcase_create("spec");
    tcase_add_test(parse, parse_accepts_from);
    tcase_add_test(parse, parse_refuses_bad_from);
    tcase_add_test(parse, parse_reads_decimal_never_octal);
    tcase_add_test(parse, parse_refuses_a_fault_given_twice);
    tcase_add_test(parse, spec_round_trips);
    tcase_add_test(parse, inject_specs_parse_and_bad_ones_are_refused);
    tcase_add_test(parse, mem_delta_chain_rebuilds_memory);
    tcase_add_test(parse, mem_delta_stops_at_its_budget);
    tcase_add_test(parse, mem_delta_compares_only_the_pages_named);
    suite_add_tcase(s, parse);
    TCase *calls = tcase_create("calls");
    tcase_add_checked_fixture(calls, setup, teardown);
    tcase_add_test(calls, applies_to_the_calls_it_names);
    tcase_add_test(calls, armed_from_the_kth_call);
    tcase_add_test(calls, nth_call_fails_only);
    tcase_add_test(calls, memmap_fault_changes_the_map_and_marks_each_read);
    tcase_add_test(calls, no_rng_hides_the_protocol);
    tcase_add_test(calls, firmware_copy_has_its_own_variables);
    tcase_add_test(calls, firmware_copy_appends_to_an_empty_variable);
    suite_add_tcase(s, calls);
    return s;
}
