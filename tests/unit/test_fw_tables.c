/* The tables the firmware builds in guest memory (UEFI 2.10 chapter 4):
 * EFI_SYSTEM_TABLE, the boot and runtime service tables and their thunks,
 * the firmware region's memory types; and the configuration-table array
 * InstallConfigurationTable fills (section 7.5). */
#include <stdlib.h>

#include "fw_fixture.h"

/* ---- system table, service tables, thunks -------------------------------------------- */

START_TEST(tables_have_signatures_revisions_and_header_sizes)
{
    const struct efi_table_header *st = hp(fw.systab), *bs = hp(fw.bs), *rt = hp(fw.rt);
    ck_assert_uint_eq(st->signature, EFI_SYSTEM_TABLE_SIGNATURE);
    ck_assert_uint_eq(bs->signature, EFI_BOOT_SERVICES_SIGNATURE);
    ck_assert_uint_eq(rt->signature, EFI_RUNTIME_SERVICES_SIGNATURE);
    ck_assert_uint_eq(st->revision, EFI_SPECIFICATION_REVISION);
    ck_assert_uint_eq(bs->revision, EFI_SPECIFICATION_REVISION);
    ck_assert_uint_eq(rt->revision, EFI_SPECIFICATION_REVISION);
    ck_assert_uint_eq(st->header_size, sizeof(struct efi_system_table));
    ck_assert_uint_eq(bs->header_size, EFI_BOOT_SERVICES_SIZE);
    ck_assert_uint_eq(rt->header_size, EFI_RUNTIME_SERVICES_SIZE);
    ck_assert_uint_eq(st->reserved, 0);
}
END_TEST

START_TEST(tables_carry_a_valid_crc32)
{
    ck_assert(crc_ok(fw.systab));
    ck_assert(crc_ok(fw.bs));
    ck_assert(crc_ok(fw.rt));
    ck_assert_uint_ne(((struct efi_table_header *)hp(fw.systab))->crc32, 0);
}
END_TEST

START_TEST(system_table_points_at_the_firmwares_structures)
{
    const struct efi_system_table *st = systab();
    ck_assert_uint_eq(st->boot_services, fw.bs);
    ck_assert_uint_eq(st->runtime_services, fw.rt);
    ck_assert_uint_eq(st->con_out, fw.con_out);
    ck_assert_uint_eq(st->std_err, fw.con_out);
    ck_assert_uint_eq(st->con_in, fw.con_in);
    ck_assert_uint_eq(st->console_out_handle, fw.con_out_handle);
    ck_assert_uint_eq(st->configuration_table, fw.config_tables);
    ck_assert_uint_eq(st->number_of_table_entries, FIRMWARE_CONFIG_TABLES);
    ck_assert_uint_eq(rd64(fw.con_out + 8 * CONOUT_OUTPUT_STRING), firmware_thunk(&fw, FW_ID_CONOUT(CONOUT_OUTPUT_STRING)));
}
END_TEST

START_TEST(firmware_vendor_is_a_readable_ucs2_string)
{
    uint64_t v = systab()->firmware_vendor;
    ck_assert_ptr_nonnull(guest_mem_ptr(&gm, v, 200));   /* the kernel maps 200 bytes */
    ck_assert(ucs2_equals(v, "handover"));
    ck_assert_int_eq(memmap_type_at(&fw.map, v), EFI_RUNTIME_SERVICES_DATA);
}
END_TEST

START_TEST(service_pointers_are_thunks_calling_their_own_id)
{
    const uint64_t *bs = hp(fw.bs + 24), *rt = hp(fw.rt + 24);
    for (unsigned i = 0; i < EFI_BOOT_SERVICES_COUNT; i++)
        ck_assert_uint_eq(bs[i], firmware_thunk(&fw, FW_ID_BS(i)));
    for (unsigned i = 0; i < EFI_RUNTIME_SERVICES_COUNT; i++)
        ck_assert_uint_eq(rt[i], firmware_thunk(&fw, FW_ID_RT(i)));
    /* mov eax, id; out 0xec, eax; ret */
    unsigned id = BS(GET_MEMORY_MAP);
    const uint8_t *t = hp(firmware_thunk(&fw, id));
    ck_assert_uint_eq(t[0], 0xb8);
    ck_assert_uint_eq(t[1] | t[2] << 8 | t[3] << 16 | (uint32_t)t[4] << 24, id);
    ck_assert_uint_eq(t[5], 0xe7);
    ck_assert_uint_eq(t[6], GUEST_PORT_HYPERCALL);
    ck_assert_uint_eq(t[7], 0xc3);
}
END_TEST

START_TEST(firmware_memory_is_runtime_and_boot_services_memory)
{
    ck_assert_int_eq(memmap_type_at(&fw.map, FW_BASE + FW_RT_CODE_OFFSET), EFI_RUNTIME_SERVICES_CODE);
    ck_assert_int_eq(memmap_type_at(&fw.map, fw.systab), EFI_RUNTIME_SERVICES_DATA);
    ck_assert_int_eq(memmap_type_at(&fw.map, fw.rt), EFI_RUNTIME_SERVICES_DATA);
    ck_assert_int_eq(memmap_type_at(&fw.map, fw.config_tables), EFI_RUNTIME_SERVICES_DATA);
    ck_assert_int_eq(memmap_type_at(&fw.map, fw.bs), EFI_BOOT_SERVICES_DATA);
    ck_assert_int_eq(memmap_type_at(&fw.map, FW_BASE + FW_REGION_SIZE - 1), EFI_BOOT_SERVICES_DATA);
    ck_assert(!memmap_is_allocated(&fw.map, FW_BASE, FW_REGION_SIZE));   /* fixed: FreePages refuses */
}
END_TEST

START_TEST(firmware_init_refuses_a_base_it_cannot_use)
{
    struct firmware other;
    struct fw_config cfg = { .base = FW_BASE + 0x800 };
    ck_assert_int_eq(firmware_init(&other, &gm, &cfg), -1);
    cfg.base = RAM_SIZE - 0x2000;
    ck_assert_int_eq(firmware_init(&other, &gm, &cfg), -1);
    cfg.base = GiB(2);
    ck_assert_int_eq(firmware_init(&other, &gm, &cfg), -1);
    firmware_free(&other);
}
END_TEST

/* ---- configuration tables -------------------------------------------------------------- */

static const struct efi_configuration_table *config_table(unsigned i)
{
    return (const struct efi_configuration_table *)hp(systab()->configuration_table) + i;
}

START_TEST(install_configuration_table_adds_replaces_and_removes)
{
    uint64_t memmap_g = put_guid(GUID_BOOT_MEMMAP), seed_g = put_guid(GUID_RANDOM_SEED);
    ck_assert_uint_eq(CALL(BS(INSTALL_CONFIGURATION_TABLE), memmap_g, 0x600000), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(BS(INSTALL_CONFIGURATION_TABLE), seed_g, 0x700000), EFI_SUCCESS);
    ck_assert_uint_eq(systab()->number_of_table_entries, FIRMWARE_CONFIG_TABLES + 2);
    ck_assert(guid_equal(&config_table(FIRMWARE_CONFIG_TABLES)->vendor_guid, &GUID_BOOT_MEMMAP));
    ck_assert_uint_eq(config_table(FIRMWARE_CONFIG_TABLES + 1)->vendor_table, 0x700000);
    ck_assert(crc_ok(fw.systab));
    ck_assert_uint_eq(CALL(BS(INSTALL_CONFIGURATION_TABLE), memmap_g, 0x650000), EFI_SUCCESS);  /* replace */
    ck_assert_uint_eq(systab()->number_of_table_entries, FIRMWARE_CONFIG_TABLES + 2);
    ck_assert_uint_eq(config_table(FIRMWARE_CONFIG_TABLES)->vendor_table, 0x650000);
    ck_assert(crc_ok(fw.systab));
    ck_assert_uint_eq(CALL(BS(INSTALL_CONFIGURATION_TABLE), memmap_g, 0), EFI_SUCCESS);         /* remove */
    ck_assert_uint_eq(systab()->number_of_table_entries, FIRMWARE_CONFIG_TABLES + 1);
    ck_assert(guid_equal(&config_table(FIRMWARE_CONFIG_TABLES)->vendor_guid, &GUID_RANDOM_SEED));
    ck_assert(crc_ok(fw.systab));
    ck_assert_uint_eq(CALL(BS(INSTALL_CONFIGURATION_TABLE), memmap_g, 0), EFI_NOT_FOUND);
    ck_assert_uint_eq(memmap_type_at(&fw.map, systab()->configuration_table), EFI_RUNTIME_SERVICES_DATA);
}
END_TEST

START_TEST(configuration_table_array_has_a_bound)
{
    for (unsigned i = FIRMWARE_CONFIG_TABLES; i < FW_MAX_CONFIG_TABLES; i++) {
        efi_guid_t g = GUID_TEST;
        g.b[15] = (uint8_t)i;
        ck_assert_uint_eq(CALL(BS(INSTALL_CONFIGURATION_TABLE), put_guid(g), 0x600000 + i), EFI_SUCCESS);
    }
    ck_assert_uint_eq(CALL(BS(INSTALL_CONFIGURATION_TABLE), put_guid(GUID_BOOT_MEMMAP), 0x1), EFI_OUT_OF_RESOURCES);
    ck_assert_uint_eq(systab()->number_of_table_entries, FW_MAX_CONFIG_TABLES);
    ck_assert(crc_ok(fw.systab));
}
END_TEST

/* The systab's header_size is guest memory: another vCPU may rewrite it at
 * any time. The CRC is taken over the size the firmware built the table
 * with, and the field is set back to it, whatever the guest wrote there. */
START_TEST(crc_update_ignores_a_header_size_the_guest_rewrote)
{
    uint64_t g = put_guid(GUID_BOOT_MEMMAP);
    uint32_t sizes[] = { 0x10, 0xfffffff0, 0 };
    for (unsigned i = 0; i < 3; i++) {
        ((struct efi_table_header *)hp(fw.systab))->header_size = sizes[i];
        ck_assert_uint_eq(CALL(BS(INSTALL_CONFIGURATION_TABLE), g, 0x600000 + i * 0x1000), EFI_SUCCESS);
        ck_assert_uint_eq(((struct efi_table_header *)hp(fw.systab))->header_size, sizeof(struct efi_system_table));
        ck_assert(crc_ok(fw.systab));
    }
}
END_TEST

/* NumberOfTableEntries lives in guest memory: a guest can write anything
 * there. The firmware must not follow it past its own array, let alone
 * past the end of guest RAM. Here the firmware sits at the top of RAM and
 * the host buffer has a canary area just past it. */
/* Regression (fixed): fw_install_config_table trusts the guest-writable
 * NumberOfTableEntries and indexes the host pointer past its 64-entry array. */
START_TEST(install_configuration_table_never_follows_a_guest_count_out_of_ram)
{
    const uint64_t size = MiB(4), canary_len = 0x10000, base = size - FW_REGION_SIZE;
    uint8_t *host = malloc(size + canary_len);
    ck_assert_ptr_nonnull(host);
    memset(host, 0, size);
    memset(host + size, 0xc5, canary_len);
    struct guest_mem gm2;
    guest_mem_init(&gm2, host, size);
    struct firmware *fw2 = malloc(sizeof(*fw2));
    struct fw_config cfg = { .base = base };
    int rc = fw2 ? firmware_init(fw2, &gm2, &cfg) : -1;
    uint64_t st_addr = fw2 ? fw2->systab : 0, ct = fw2 ? fw2->config_tables : 0;
    /* A fake entry at index 495: 0x2e68 bytes into the array, past guest RAM. */
    const unsigned idx = 495;
    efi_guid_t g = GUID_RANDOM_SEED;
    uint64_t entry_off = ct + idx * sizeof(struct efi_configuration_table);
    bool past_ram = entry_off >= size;
    if (past_ram) {
        memcpy(host + entry_off, &g, sizeof(g));
        struct efi_system_table *st = (struct efi_system_table *)(host + st_addr);
        st->number_of_table_entries = idx + 1;
    }
    uint8_t *before = malloc(canary_len);
    if (before)
        memcpy(before, host + size, canary_len);
    memcpy(host + 0x1000, &g, sizeof(g));
    struct fw_call c = { .rcx = 0x1000, .rdx = 0x1234, .rsp = 0x8000, .view = { &gm2, 0, false, false, false, false } };
    efi_status_t s = rc == 0 ? firmware_call(fw2, BS(INSTALL_CONFIGURATION_TABLE), &c) : EFI_LOAD_ERROR;
    bool canary_intact = before && !memcmp(before, host + size, canary_len);
    if (fw2)
        firmware_free(fw2);
    free(fw2);
    free(before);
    free(host);
    ck_assert_int_eq(rc, 0);
    ck_assert(past_ram);
    ck_assert_msg(canary_intact, "InstallConfigurationTable with NumberOfTableEntries = %u wrote host memory "
                  "past guest RAM (status %s)", idx + 1, efi_status_name(s));
}
END_TEST

/* The fixed handles (region.h) are distinct, and none is the address of
 * one of the firmware's structures (the initrd's once was LoadedImage's). */
START_TEST(fixed_handles_are_distinct_and_apart_from_the_structures)
{
    const uint64_t handles[] = { fw.image_handle, fw.con_out_handle, fw.con_in_handle, fw.rng_handle,
                                 FW_BASE + FW_HANDLES_OFFSET + FW_HANDLE_SLOT * FW_HANDLE_INITRD, fw.memattr_handle };
    const struct { uint64_t at, size; } structures[] = {
        { fw.systab, sizeof(struct efi_system_table) }, { fw.loaded_image, sizeof(struct efi_loaded_image) },
        { fw.con_out, 8 * (CONOUT_COUNT + 1) }, { fw.con_in, 8 * (CONIN_COUNT + 1) }, { fw.rng, 8 * RNG_COUNT },
        { fw.memattr, 8 * MEMATTR_COUNT },
        { fw.image_device_path, sizeof(struct efi_device_path_header) },
    };
    const size_t nh = sizeof(handles) / sizeof(handles[0]), ns = sizeof(structures) / sizeof(structures[0]);
    ck_assert_uint_eq(nh, FW_FIXED_HANDLES);
    for (size_t i = 0; i < nh; i++) {
        for (size_t j = i + 1; j < nh; j++)
            ck_assert_uint_ne(handles[i], handles[j]);
        for (size_t k = 0; k < ns; k++)
            ck_assert_msg(handles[i] + FW_HANDLE_SLOT <= structures[k].at ||
                              handles[i] >= structures[k].at + structures[k].size,
                          "handle %zu (0x%lx) lies in structure %zu at 0x%lx", i, (unsigned long)handles[i], k,
                          (unsigned long)structures[k].at);
    }
}
END_TEST

Suite *fw_tables_suite(void)
{
    Suite *s = suite_create("fw-tables");
    fw_add_tcase(s, "tables", (const TTest *const[]){
        tables_have_signatures_revisions_and_header_sizes, tables_carry_a_valid_crc32,
        system_table_points_at_the_firmwares_structures, firmware_vendor_is_a_readable_ucs2_string,
        service_pointers_are_thunks_calling_their_own_id, firmware_memory_is_runtime_and_boot_services_memory,
        firmware_init_refuses_a_base_it_cannot_use, fixed_handles_are_distinct_and_apart_from_the_structures, NULL });
    fw_add_tcase(s, "config-tables", (const TTest *const[]){
        install_configuration_table_adds_replaces_and_removes, configuration_table_array_has_a_bound,
        install_configuration_table_never_follows_a_guest_count_out_of_ram,
        crc_update_ignores_a_header_size_the_guest_rewrote, NULL });
    return s;
}
