/* ExitBootServices (UEFI 2.10 section 7.4.6): the map key it checks, the
 * image handle it needs, the system table it leaves, and boot services
 * after it. */
#include "fw_fixture.h"

START_TEST(exit_boot_services_refuses_a_stale_key_then_accepts_a_fresh_one)
{
    uint64_t key = map_key();
    uint64_t buf_p = put_u64(0);
    ck_assert_uint_eq(CALL(BS(ALLOCATE_POOL), EFI_LOADER_DATA, 64, buf_p), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(BS(EXIT_BOOT_SERVICES), fw.image_handle, key), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(fw.phase, FW_PHASE_BOOT);
    /* The stub's retry: read the map again, call again. */
    key = map_key();
    ck_assert_uint_eq(CALL(BS(EXIT_BOOT_SERVICES), fw.image_handle, key), EFI_SUCCESS);
    ck_assert_uint_eq(fw.phase, FW_PHASE_RUNTIME);
}
END_TEST

START_TEST(exit_boot_services_needs_the_image_handle)
{
    uint64_t key = map_key();
    ck_assert_uint_eq(CALL(BS(EXIT_BOOT_SERVICES), fw.con_out_handle, key), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(EXIT_BOOT_SERVICES), 0, key), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(fw.phase, FW_PHASE_BOOT);
}
END_TEST

START_TEST(exit_boot_services_clears_boot_time_fields_and_keeps_the_crc_valid)
{
    exit_boot_services();
    const struct efi_system_table *st = systab();
    ck_assert_uint_eq(st->boot_services, 0);
    ck_assert_uint_eq(st->con_out, 0);
    ck_assert_uint_eq(st->con_in, 0);
    ck_assert_uint_eq(st->std_err, 0);
    ck_assert_uint_eq(st->runtime_services, fw.rt);
    ck_assert_uint_eq(st->firmware_vendor, fw.vendor);
    ck_assert(crc_ok(fw.systab));
}
END_TEST

START_TEST(boot_services_after_exit_are_unsupported)
{
    uint64_t p = put_u64(0), g = put_guid(GUID_SIMPLE_TEXT_OUTPUT);
    exit_boot_services();
    uint64_t k = fw.map.key;
    ck_assert_uint_eq(CALL(BS(ALLOCATE_POOL), EFI_LOADER_DATA, 16, p), EFI_UNSUPPORTED);
    ck_assert_uint_eq(CALL(BS(ALLOCATE_PAGES), EFI_ALLOCATE_ANY_PAGES, EFI_LOADER_DATA, 1, p), EFI_UNSUPPORTED);
    ck_assert_uint_eq(CALL(BS(GET_MEMORY_MAP), p, 0, 0, 0, 0), EFI_UNSUPPORTED);
    ck_assert_uint_eq(CALL(BS(LOCATE_PROTOCOL), g, 0, p), EFI_UNSUPPORTED);
    ck_assert_uint_eq(CALL(BS(EXIT_BOOT_SERVICES), fw.image_handle, k), EFI_UNSUPPORTED);
    ck_assert_uint_eq(CALL(FW_ID_CONOUT(CONOUT_OUTPUT_STRING), fw.con_out, put_ucs2("x")), EFI_UNSUPPORTED);
    ck_assert_uint_eq(CALL(FW_ID_CONIN(1), fw.con_in, p), EFI_UNSUPPORTED);
    ck_assert_uint_eq(rd64(p), 0);
    ck_assert_uint_eq(fw.map.key, k);
    ck_assert_str_eq(console_text(), "");
    ck_assert_ptr_nonnull(strstr(log_text(), "AllocatePool called after ExitBootServices"));
}
END_TEST

Suite *fw_exit_boot_services_suite(void)
{
    Suite *s = suite_create("fw-exit-boot-services");
    fw_add_tcase(s, "exit-boot-services", (const TTest *const[]){
        exit_boot_services_refuses_a_stale_key_then_accepts_a_fresh_one, exit_boot_services_needs_the_image_handle,
        exit_boot_services_clears_boot_time_fields_and_keeps_the_crc_valid, boot_services_after_exit_are_unsupported,
        NULL });
    return s;
}
