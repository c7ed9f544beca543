/* Injected faults (--inject) as the guest meets them through the services:
 * the stub's retries, allocation failures, a missing LoadedImage and a
 * failing GetVariable. Parsing, arming and the descriptors: test_inject.c
 * and test_service_table.c. */
#include "fw_fixture.h"

START_TEST(injected_stale_key_and_short_map_exercise_the_stub_retries)
{
    fw.cfg.inject.on[INJECT_GMM_TOO_SMALL] = true;
    fw.cfg.inject.value[INJECT_GMM_TOO_SMALL] = 2;
    fw.cfg.inject.on[INJECT_EBS_STALE_KEY] = true;
    uint64_t size_p = put_u64(0), key_p = put_u64(0), dsize_p = put_u64(0), dver_p = put_u64(0);
    ck_assert_uint_eq(CALL(BS(GET_MEMORY_MAP), size_p, 0, key_p, dsize_p, dver_p), EFI_BUFFER_TOO_SMALL);
    uint64_t size = rd64(size_p) + 4 * DESC_SIZE, map = scratch(size);
    for (int i = 0; i < 2; i++) {
        wr64(size_p, size);
        ck_assert_uint_eq(CALL(BS(GET_MEMORY_MAP), size_p, map, key_p, dsize_p, dver_p), EFI_BUFFER_TOO_SMALL);
    }
    wr64(size_p, size);
    ck_assert_uint_eq(CALL(BS(GET_MEMORY_MAP), size_p, map, key_p, dsize_p, dver_p), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(BS(EXIT_BOOT_SERVICES), fw.image_handle, rd64(key_p)), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(fw.phase, FW_PHASE_BOOT);
    uint64_t key = map_key();
    ck_assert_uint_ne(key, rd64(key_p));   /* the map "changed" */
    ck_assert_uint_eq(CALL(BS(EXIT_BOOT_SERVICES), fw.image_handle, key), EFI_SUCCESS);
    ck_assert_ptr_nonnull(strstr(log_text(), "injected fault ebs-stale-key"));
}
END_TEST

START_TEST(injected_allocation_failures_leave_the_map_as_it_was)
{
    fw.cfg.inject.on[INJECT_ALLOC_PAGES_FAIL] = true;
    fw.cfg.inject.value[INJECT_ALLOC_PAGES_FAIL] = 2;
    fw.cfg.inject.on[INJECT_ALLOC_PAGES_ABOVE] = true;
    fw.cfg.inject.value[INJECT_ALLOC_PAGES_ABOVE] = MiB(8);
    fw.cfg.inject.on[INJECT_ALLOC_POOL_FAIL] = true;
    fw.cfg.inject.value[INJECT_ALLOC_POOL_FAIL] = 1;
    uint64_t mem_p = put_u64(MiB(4));
    ck_assert_uint_eq(CALL(BS(ALLOCATE_PAGES), EFI_ALLOCATE_ADDRESS, EFI_LOADER_DATA, 1, mem_p), EFI_SUCCESS);
    unsigned n = fw.map.n;
    wr64(mem_p, MiB(5));
    ck_assert_uint_eq(CALL(BS(ALLOCATE_PAGES), EFI_ALLOCATE_ADDRESS, EFI_LOADER_DATA, 1, mem_p),
                      EFI_OUT_OF_RESOURCES);                                   /* the 2nd call */
    ck_assert_int_eq(memmap_type_at(&fw.map, MiB(5)), EFI_CONVENTIONAL_MEMORY);
    ck_assert_uint_eq(CALL(BS(ALLOCATE_PAGES), EFI_ALLOCATE_ANY_PAGES, EFI_LOADER_DATA, 1, mem_p),
                      EFI_OUT_OF_RESOURCES);                                   /* top of RAM is above 8 MiB */
    ck_assert_uint_eq(fw.map.n, n);
    ck_assert_int_eq(memmap_type_at(&fw.map, RAM_SIZE - 0x1000), EFI_CONVENTIONAL_MEMORY);
    wr64(mem_p, MiB(7));
    ck_assert_uint_eq(CALL(BS(ALLOCATE_PAGES), EFI_ALLOCATE_MAX_ADDRESS, EFI_LOADER_DATA, 1, mem_p), EFI_SUCCESS);
    ck_assert_uint_lt(rd64(mem_p), MiB(8));
    uint64_t buf_p = put_u64(0);
    ck_assert_uint_eq(CALL(BS(ALLOCATE_POOL), EFI_LOADER_DATA, 64, buf_p), EFI_OUT_OF_RESOURCES);
    ck_assert_uint_eq(CALL(BS(ALLOCATE_POOL), EFI_LOADER_DATA, 64, buf_p), EFI_SUCCESS);
}
END_TEST

/* AllocatePages' Type is a 32-bit enum: the upper half of RCX is not the
 * caller's (memory.c). An AllocateAddress the fault refuses fails as one
 * that found no memory there, EFI_NOT_FOUND (UEFI 2.10 section 7.2.1),
 * whatever that upper half holds; it read the whole register, and said
 * EFI_OUT_OF_RESOURCES, where an IA-32 firmware's 4-byte slot said
 * EFI_NOT_FOUND. */
START_TEST(injected_allocate_address_fails_not_found_whatever_the_upper_half)
{
    fw.cfg.inject.on[INJECT_ALLOC_PAGES_ABOVE] = true;
    fw.cfg.inject.value[INJECT_ALLOC_PAGES_ABOVE] = MiB(8);
    uint64_t mem_p = put_u64(MiB(9));
    ck_assert_uint_eq(CALL(BS(ALLOCATE_PAGES), 0xdead000000000000ULL | EFI_ALLOCATE_ADDRESS, EFI_LOADER_DATA, 1, mem_p),
                      EFI_NOT_FOUND);
    ck_assert_int_eq(memmap_type_at(&fw.map, MiB(9)), EFI_CONVENTIONAL_MEMORY);
}
END_TEST

START_TEST(injected_protocol_and_variable_faults)
{
    fw.cfg.inject.on[INJECT_NO_LOADED_IMAGE] = true;
    fw.cfg.inject.on[INJECT_GETVAR_ERROR] = true;
    uint64_t iface_p = put_u64(0x1234);
    ck_assert_uint_eq(CALL(BS(HANDLE_PROTOCOL), fw.image_handle, put_guid(GUID_LOADED_IMAGE), iface_p),
                      EFI_UNSUPPORTED);
    ck_assert_uint_eq(rd64(iface_p), 0);
    ck_assert_uint_eq(CALL(BS(HANDLE_PROTOCOL), fw.con_out_handle, put_guid(GUID_SIMPLE_TEXT_OUTPUT), iface_p),
                      EFI_SUCCESS);   /* other protocols unaffected */
    uint64_t size_p = put_u64(8);
    ck_assert_uint_eq(CALL(RT(GET_VARIABLE), put_ucs2("SecureBoot"), put_guid(GUID_GLOBAL_VARIABLE), 0, size_p,
                           scratch(8)),
                      EFI_DEVICE_ERROR);
    ck_assert_uint_eq(rd64(size_p), 8);
}
END_TEST

Suite *fw_inject_suite(void)
{
    Suite *s = suite_create("fw-inject");
    fw_add_tcase(s, "inject", (const TTest *const[]){
        injected_stale_key_and_short_map_exercise_the_stub_retries,
        injected_allocation_failures_leave_the_map_as_it_was,
        injected_allocate_address_fails_not_found_whatever_the_upper_half, injected_protocol_and_variable_faults,
        NULL });
    return s;
}
