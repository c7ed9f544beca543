/* EFI_RNG_PROTOCOL (UEFI 2.10 section 37.5): the stub's KASLR seed, from
 * the host or, with --seed, reproducible. */
#include "fw_fixture.h"

START_TEST(rng_protocol_reports_the_raw_algorithm)
{
    uint64_t iface_p = put_u64(0);
    ck_assert_uint_eq(CALL(BS(LOCATE_PROTOCOL), put_guid(GUID_RNG_PROTOCOL), 0, iface_p), EFI_SUCCESS);
    uint64_t rng = rd64(iface_p);
    ck_assert_uint_eq(rd64(rng + 8 * RNG_GET_RNG), firmware_thunk(&fw, FW_ID_RNG(RNG_GET_RNG)));
    uint64_t size_p = put_u64(0), list = scratch(16);
    ck_assert_uint_eq(CALL(FW_ID_RNG(RNG_GET_INFO), rng, size_p, list), EFI_BUFFER_TOO_SMALL);
    ck_assert_uint_eq(rd64(size_p), sizeof(efi_guid_t));
    ck_assert_uint_eq(CALL(FW_ID_RNG(RNG_GET_INFO), rng, size_p, list), EFI_SUCCESS);
    const efi_guid_t raw = GUID_RNG_ALGORITHM_RAW;
    ck_assert(guid_equal(hp(list), &raw));
    /* Room for the list but no list: NULL is no place to write it (guest
     * address 0 is RAM), and the size stays as it was. */
    wr64(0, 0);
    wr64(size_p, 32);
    ck_assert_uint_eq(CALL(FW_ID_RNG(RNG_GET_INFO), rng, size_p, 0), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(rd64(0), 0);
    ck_assert_uint_eq(rd64(size_p), 32);
    ck_assert_uint_eq(CALL(FW_ID_RNG(RNG_GET_INFO), rng, size_p, RAM_SIZE - 8), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(rd64(size_p), 32);
}
END_TEST

START_TEST(rng_with_a_seed_is_deterministic_and_checks_its_arguments)
{
    fw.cfg.seeded = true;
    uint64_t a = scratch(37), b = scratch(37), raw = put_guid(GUID_RNG_ALGORITHM_RAW);
    fw.rng_state = 42;
    ck_assert_uint_eq(CALL(FW_ID_RNG(RNG_GET_RNG), fw.rng, raw, 37, a), EFI_SUCCESS);
    fw.rng_state = 42;
    ck_assert_uint_eq(CALL(FW_ID_RNG(RNG_GET_RNG), fw.rng, 0, 37, b), EFI_SUCCESS);   /* NULL: default algorithm */
    ck_assert_mem_eq(hp(a), hp(b), 37);
    static const uint8_t zero[37];
    ck_assert_int_ne(memcmp(hp(a), zero, 37), 0);
    ck_assert_uint_eq(CALL(FW_ID_RNG(RNG_GET_RNG), fw.rng, put_guid(GUID_TEST), 8, a), EFI_UNSUPPORTED);
    ck_assert_uint_eq(CALL(FW_ID_RNG(RNG_GET_RNG), fw.rng, 0, 0, a), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(FW_ID_RNG(RNG_GET_RNG), fw.rng, 0, 16, RAM_SIZE - 8), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(FW_ID_RNG(RNG_GET_RNG), fw.rng, 0, 1ULL << 40, a), EFI_INVALID_PARAMETER);
    exit_boot_services();
    ck_assert_uint_eq(CALL(FW_ID_RNG(RNG_GET_RNG), fw.rng, 0, 8, a), EFI_UNSUPPORTED);   /* boot-time only */
}
END_TEST

/* An IA-32 firmware: RNGAlgorithmListSize and RNGValueLength are 4-byte
 * UINTNs (a mixed-mode stub's efi_get_random_bytes). */
START_TEST(ia32_rng_takes_4_byte_sizes)
{
    fw.cfg.seeded = true;
    uint64_t size_p = put_u64(0xa5a5a5a500000000ULL), list = scratch(16), a = scratch(37), b = scratch(37);
    ck_assert_uint_eq(CALL32(FW_ID_RNG(RNG_GET_INFO), 0, fw.rng, size_p, list), EFI_BUFFER_TOO_SMALL);
    ck_assert_uint_eq(rd64(size_p), 0xa5a5a5a500000000ULL | sizeof(efi_guid_t));
    ck_assert_uint_eq(CALL32(FW_ID_RNG(RNG_GET_INFO), 0, fw.rng, size_p, list), EFI_SUCCESS);
    const efi_guid_t raw = GUID_RNG_ALGORITHM_RAW;
    ck_assert(guid_equal(hp(list), &raw));
    fw.rng_state = 42;
    ck_assert_uint_eq(CALL32(FW_ID_RNG(RNG_GET_RNG), 0, fw.rng, list, 37, a), EFI_SUCCESS);
    fw.rng_state = 42;
    ck_assert_uint_eq(CALL32(FW_ID_RNG(RNG_GET_RNG), 0, fw.rng, 0, 37, b), EFI_SUCCESS);
    ck_assert_mem_eq(hp(a), hp(b), 37);
    static const uint8_t zero[37];
    ck_assert_int_ne(memcmp(hp(a), zero, 37), 0);
    ck_assert_uint_eq(CALL32(FW_ID_RNG(RNG_GET_RNG), 0, fw.rng, 0, UINT32_MAX, a), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL32(FW_ID_RNG(RNG_GET_RNG), 0, fw.rng, 0, 0, a), EFI_INVALID_PARAMETER);
}
END_TEST

Suite *fw_rng_suite(void)
{
    Suite *s = suite_create("fw-rng");
    fw_add_tcase(s, "rng", (const TTest *const[]){
        rng_protocol_reports_the_raw_algorithm, rng_with_a_seed_is_deterministic_and_checks_its_arguments, NULL });
    fw_add_tcase_ia32(s, "rng-ia32", (const TTest *const[]){ ia32_rng_takes_4_byte_sizes, NULL });
    return s;
}
