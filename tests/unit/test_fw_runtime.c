/* Runtime services (UEFI 2.10 chapter 8) other than variables:
 * SetVirtualAddressMap and the calls made through the guest's own page
 * tables after it (section 8.4), GetTime, and the calls that end the run
 * (ResetSystem, and Exit of the top-level image). Variables:
 * test_fw_variables.c. */
#include "fw_fixture.h"

/* ---- SetVirtualAddressMap -------------------------------------------------------------- */

START_TEST(set_virtual_address_map_before_exit_is_unsupported)
{
    uint64_t size, map = virtual_map(&size);
    ck_assert_uint_eq(CALL(RT(SET_VIRTUAL_ADDRESS_MAP), size, DESC_SIZE, EFI_MEMORY_DESCRIPTOR_VERSION, map),
                      EFI_UNSUPPORTED);
    ck_assert(!fw.virtual_mode);
    ck_assert_uint_eq(rd64(fw.rt + 24), firmware_thunk(&fw, FW_ID_RT(0)));
}
END_TEST

START_TEST(set_virtual_address_map_moves_the_runtime_pointers)
{
    ck_assert_uint_eq(CALL(BS(INSTALL_CONFIGURATION_TABLE), put_guid(GUID_BOOT_MEMMAP), 0x600000), EFI_SUCCESS);
    exit_boot_services();
    uint64_t size, map = virtual_map(&size);
    ck_assert_uint_eq(CALL(RT(SET_VIRTUAL_ADDRESS_MAP), size, DESC_SIZE, EFI_MEMORY_DESCRIPTOR_VERSION, map),
                      EFI_SUCCESS);
    const uint64_t code_pa = FW_BASE + FW_RT_CODE_OFFSET, data_pa = FW_BASE + FW_RT_DATA_OFFSET;
    const uint64_t *rt = hp(fw.rt + 24);
    for (unsigned i = 0; i < EFI_RUNTIME_SERVICES_COUNT; i++)
        ck_assert_uint_eq(rt[i], VA_CODE + (firmware_thunk(&fw, FW_ID_RT(i)) - code_pa));
    const struct efi_system_table *st = systab();
    ck_assert_uint_eq(st->runtime_services, VA_DATA + (fw.rt - data_pa));
    ck_assert_uint_eq(st->firmware_vendor, VA_DATA + (fw.vendor - data_pa));
    ck_assert_uint_eq(st->configuration_table, VA_DATA + (fw.config_tables - data_pa));
    ck_assert_uint_eq(st->number_of_table_entries, FIRMWARE_CONFIG_TABLES + 1);
    ck_assert(crc_ok(fw.rt));
    ck_assert(crc_ok(fw.systab));
    ck_assert(fw.virtual_mode);
    ck_assert_uint_eq(CALL(RT(SET_VIRTUAL_ADDRESS_MAP), size, DESC_SIZE, EFI_MEMORY_DESCRIPTOR_VERSION, map),
                      EFI_UNSUPPORTED);   /* only once */
}
END_TEST

START_TEST(set_virtual_address_map_refuses_bad_maps)
{
    exit_boot_services();
    uint64_t size, map = virtual_map(&size);
    const unsigned id = RT(SET_VIRTUAL_ADDRESS_MAP);
    ck_assert_uint_eq(CALL(id, size, DESC_SIZE, 2, map), EFI_INVALID_PARAMETER);                /* version */
    ck_assert_uint_eq(CALL(id, size, 32, EFI_MEMORY_DESCRIPTOR_VERSION, map), EFI_INVALID_PARAMETER);  /* stride < 40 */
    ck_assert_uint_eq(CALL(id, size - 1, DESC_SIZE, EFI_MEMORY_DESCRIPTOR_VERSION, map), EFI_INVALID_PARAMETER);
    /* A map without the runtime ranges: "a virtual address was not
     * supplied for a range in the memory map that requires a mapping"
     * (UEFI 2.10 section 8.4.1), EFI_NO_MAPPING. */
    ck_assert_uint_eq(CALL(id, 0, DESC_SIZE, EFI_MEMORY_DESCRIPTOR_VERSION, map), EFI_NO_MAPPING);
    ck_assert_uint_eq(CALL(id, DESC_SIZE, DESC_SIZE, EFI_MEMORY_DESCRIPTOR_VERSION, map),
                      EFI_NO_MAPPING);                                                           /* code only */
    ck_assert_uint_eq(CALL(id, size, DESC_SIZE, EFI_MEMORY_DESCRIPTOR_VERSION, RAM_SIZE - DESC_SIZE),
                      EFI_INVALID_PARAMETER);                                                    /* outside the map */
    ck_assert_uint_eq(CALL(id, size, DESC_SIZE, EFI_MEMORY_DESCRIPTOR_VERSION, GiB(1)), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(id, 1ULL << 40, 1ULL << 20, EFI_MEMORY_DESCRIPTOR_VERSION, map), EFI_INVALID_PARAMETER);
    ck_assert(!fw.virtual_mode);
    ck_assert_uint_eq(rd64(fw.rt + 24), firmware_thunk(&fw, FW_ID_RT(0)));
    ck_assert(crc_ok(fw.rt));
    /* DescriptorVersion is a UINT32: the upper half of R8 is not the caller's. */
    ck_assert_uint_eq(CALL(id, size, DESC_SIZE, 0xdead000000000000ULL | EFI_MEMORY_DESCRIPTOR_VERSION, map),
                      EFI_SUCCESS);
    ck_assert(fw.virtual_mode);
}
END_TEST

/* After SetVirtualAddressMap the kernel calls with its own page tables and
 * kernel-virtual pointers: here the first 16 MiB appear both at 0 and at
 * the direct map 0xffff888000000000 (2 MiB pages), and the stack and all
 * arguments are direct-map addresses. */
#define DIRECT_MAP 0xffff888000000000ULL

START_TEST(runtime_services_follow_the_guests_page_tables)
{
    ck_assert_uint_eq(set_var("Virt", GUID_TEST, ATTR_BS_RT, "paged", 5), EFI_SUCCESS);
    exit_boot_services();
    uint64_t size, map = virtual_map(&size);
    ck_assert_uint_eq(CALL(RT(SET_VIRTUAL_ADDRESS_MAP), size, DESC_SIZE, EFI_MEMORY_DESCRIPTOR_VERSION, map),
                      EFI_SUCCESS);
    uint64_t pml4 = scratch(0x2000);
    pml4 = (pml4 + 0xfff) & ~0xfffULL;
    uint64_t pdpt = (scratch(0x2000) + 0xfff) & ~0xfffULL, pd = (scratch(0x2000) + 0xfff) & ~0xfffULL;
    memset(hp(pml4), 0, 4096);
    memset(hp(pdpt), 0, 4096);
    memset(hp(pd), 0, 4096);
    wr64(pml4 + 8 * 0, pdpt | 3);
    wr64(pml4 + 8 * ((DIRECT_MAP >> 39) & 511), pdpt | 3);
    wr64(pdpt, pd | 3);
    for (unsigned i = 0; i < RAM_SIZE >> 21; i++)
        wr64(pd + 8 * i, ((uint64_t)i << 21) | 0x83);
    uint64_t name = put_ucs2("Virt"), guid = put_guid(GUID_TEST), size_p = put_u64(16), data = scratch(16);
    cur_view = (struct guest_view){ &gm, pml4, false, false, false, false };
    cur_rsp = DIRECT_MAP + STACK_TOP;
    ck_assert_uint_eq(CALL(RT(GET_VARIABLE), DIRECT_MAP + name, DIRECT_MAP + guid, 0, DIRECT_MAP + size_p,
                           DIRECT_MAP + data),
                      EFI_SUCCESS);
    ck_assert_mem_eq(hp(data), "paged", 5);
    ck_assert_uint_eq(rd64(size_p), 5);
    /* An address the guest's tables do not map. */
    ck_assert_uint_eq(CALL(RT(GET_VARIABLE), 0x0000400000000000ULL + name, DIRECT_MAP + guid, 0,
                           DIRECT_MAP + size_p, DIRECT_MAP + data),
                      EFI_INVALID_PARAMETER);
}
END_TEST

/* ---- time, reset, exit ----------------------------------------------------------------- */

START_TEST(get_time_gives_a_plausible_date)
{
    uint64_t t = scratch(16);
    ck_assert_uint_eq(CALL(RT(GET_TIME), t, 0), EFI_SUCCESS);
    const uint8_t *b = hp(t);
    uint16_t year = (uint16_t)(b[0] | b[1] << 8);
    ck_assert_uint_ge(year, 2024);
    ck_assert(b[2] >= 1 && b[2] <= 12);
    ck_assert(b[3] >= 1 && b[3] <= 31);
    ck_assert_uint_le(b[4], 23);
    ck_assert_uint_eq(CALL(RT(GET_TIME), 0, 0), EFI_INVALID_PARAMETER);
    /* Capabilities that cannot be written fail the call before Time is. */
    uint64_t t2 = scratch(16);
    ck_assert_uint_eq(CALL(RT(GET_TIME), t2, RAM_SIZE - 4), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(rd64(t2), 0);
    ck_assert_uint_eq(rd64(t2 + 8), 0);
}
END_TEST

START_TEST(exit_and_reset_system_stop_the_vm)
{
    ck_assert_uint_eq(CALL(BS(EXIT), fw.image_handle, EFI_LOAD_ERROR, 0, 0), EFI_SUCCESS);
    ck_assert_uint_eq(fw.stop, FW_STOP_EXIT);
    ck_assert_uint_eq(fw.stop_status, EFI_LOAD_ERROR);
    fw.stop = FW_RUN;
    ck_assert_uint_eq(CALL(RT(RESET_SYSTEM), 2, EFI_SUCCESS, 0, 0), EFI_SUCCESS);
    ck_assert_uint_eq(fw.stop, FW_STOP_RESET);
    ck_assert_uint_eq(fw.stop_status, 2);
    ck_assert_ptr_nonnull(strstr(log_text(), "EfiResetShutdown"));
}
END_TEST

/* ---- EFI_RT_PROPERTIES_TABLE (UEFI 2.10 section 4.6.2) ------------------------------------ */

/* The table, the first configuration table; its mask. */
static uint32_t rt_properties_mask(void)
{
    const struct efi_configuration_table *ct = hp(systab()->configuration_table);
    const efi_guid_t g = GUID_RT_PROPERTIES_TABLE;
    ck_assert(guid_equal(&ct->vendor_guid, &g));
    ck_assert_int_eq(memmap_type_at(&fw.map, ct->vendor_table), EFI_RUNTIME_SERVICES_DATA);
    const struct efi_rt_properties_table *t = hp(ct->vendor_table);
    ck_assert_uint_eq(t->version, 1);
    ck_assert_uint_eq(t->length, 8);
    return t->runtime_services_supported;
}

/* Each runtime service by its EFI_RT_SUPPORTED_* bit (the kernel's
 * include/linux/efi.h). */
static const struct { unsigned id; uint32_t bit; } rt_bits[] = {
    { RT(GET_TIME), 0x0001 }, { RT(SET_TIME), 0x0002 }, { RT(GET_WAKEUP_TIME), 0x0004 },
    { RT(SET_WAKEUP_TIME), 0x0008 }, { RT(GET_VARIABLE), 0x0010 }, { RT(GET_NEXT_VARIABLE_NAME), 0x0020 },
    { RT(SET_VARIABLE), 0x0040 }, { RT(SET_VIRTUAL_ADDRESS_MAP), 0x0080 }, { RT(CONVERT_POINTER), 0x0100 },
    { RT(GET_NEXT_HIGH_MONOTONIC_COUNT), 0x0200 }, { RT(RESET_SYSTEM), 0x0400 }, { RT(UPDATE_CAPSULE), 0x0800 },
    { RT(QUERY_CAPSULE_CAPABILITIES), 0x1000 }, { RT(QUERY_VARIABLE_INFO), 0x2000 },
};

/* The table lists what is served after ExitBootServices: each service,
 * called then with arguments none accepts, answers EFI_UNSUPPORTED exactly
 * when its bit is clear. */
START_TEST(rt_properties_table_lists_the_services_served)
{
    uint32_t mask = rt_properties_mask();
    ck_assert_uint_eq(mask, 0x26f1);   /* time and reset, variables, SetVirtualAddressMap, the count */
    exit_boot_services();
    for (size_t i = 0; i < sizeof(rt_bits) / sizeof(rt_bits[0]); i++) {
        efi_status_t s = CALL(rt_bits[i].id, 0, 0, 0, 0, 0);
        ck_assert_msg((s == EFI_UNSUPPORTED) == !(mask & rt_bits[i].bit), "service %u: bit 0x%x, status 0x%llx",
                      rt_bits[i].id, rt_bits[i].bit, (unsigned long long)s);
        fw.stop = FW_RUN;   /* ResetSystem's */
    }
}
END_TEST

/* A 32-bit firmware does not serve SetVirtualAddressMap (set_virtual_address_map). */
START_TEST(ia32_rt_properties_table_leaves_out_set_virtual_address_map)
{
    const struct efi_configuration_table32 *ct = hp(rd32(fw.systab + 68));
    const efi_guid_t g = GUID_RT_PROPERTIES_TABLE;
    ck_assert(guid_equal(&ct->vendor_guid, &g));
    ck_assert_uint_eq(rd32(ct->vendor_table + 4), 0x26f1 & ~0x80u);
}
END_TEST

Suite *fw_runtime_suite(void)
{
    Suite *s = suite_create("fw-runtime");
    fw_add_tcase(s, "virtual-mode", (const TTest *const[]){
        set_virtual_address_map_before_exit_is_unsupported, set_virtual_address_map_moves_the_runtime_pointers,
        set_virtual_address_map_refuses_bad_maps, runtime_services_follow_the_guests_page_tables, NULL });
    fw_add_tcase(s, "time-and-reset", (const TTest *const[]){
        get_time_gives_a_plausible_date, exit_and_reset_system_stop_the_vm, NULL });
    fw_add_tcase(s, "rt-properties", (const TTest *const[]){ rt_properties_table_lists_the_services_served, NULL });
    fw_add_tcase_ia32(s, "rt-properties-ia32", (const TTest *const[]){
        ia32_rt_properties_table_leaves_out_set_virtual_address_map, NULL });
    return s;
}
