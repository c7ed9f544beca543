/* Layouts and constants against the documents they come from: the kernel's
 * arch/x86/include/uapi/asm/bootparam.h and Documentation/arch/x86/boot.rst
 * for the zero page, the UEFI 2.10 specification for the EFI structures.
 * Only values the headers do not already _Static_assert are checked here. */
#include <stddef.h>
#include <string.h>

#include "suites.h"
#include "../../guest/bootparam.h"
#include "../../firmware-stub/efi.h"
#include "../../firmware-stub/firmware.h"
#include "../../firmware-stub/guids.h"
#include "../../guest/layout.h"

#define BP(field) offsetof(struct boot_params, field)

/* A few at compile time, so a layout change breaks the build, not a run. */
_Static_assert(sizeof(struct setup_header) == 0x26c - SETUP_HEADER_OFFSET, "setup header ends at 0x26c (2.15)");
_Static_assert(sizeof(struct boot_e820_entry) == 20, "boot_e820_entry is 20 bytes");
_Static_assert(sizeof(struct efi_info) == 32, "efi_info is 32 bytes");
_Static_assert(sizeof(struct efi_table_header) == 24, "EFI_TABLE_HEADER is 24 bytes");

START_TEST(boot_params_offsets_match_the_kernel)
{
    ck_assert_uint_eq(BP(screen_info), 0x000);
    ck_assert_uint_eq(BP(apm_bios_info), 0x040);
    ck_assert_uint_eq(BP(tboot_addr), 0x058);
    ck_assert_uint_eq(BP(ist_info), 0x060);
    ck_assert_uint_eq(BP(hd0_info), 0x080);
    ck_assert_uint_eq(BP(sys_desc_table), 0x0a0);
    ck_assert_uint_eq(BP(olpc_ofw_header), 0x0b0);
    ck_assert_uint_eq(BP(ext_ramdisk_image), 0x0c0);
    ck_assert_uint_eq(BP(ext_ramdisk_size), 0x0c4);
    ck_assert_uint_eq(BP(cc_blob_address), 0x13c);
    ck_assert_uint_eq(BP(edid_info), 0x140);
    ck_assert_uint_eq(BP(alt_mem_k), 0x1e0);
    ck_assert_uint_eq(BP(scratch), 0x1e4);
    ck_assert_uint_eq(BP(secure_boot), 0x1ec);
    ck_assert_uint_eq(BP(sentinel), 0x1ef);
    ck_assert_uint_eq(BP(edd_mbr_sig_buffer), 0x290);
}
END_TEST

START_TEST(efi_info_offsets_match_the_kernel)
{
    ck_assert_uint_eq(BP(efi_info.efi_loader_signature), 0x1c0);
    ck_assert_uint_eq(BP(efi_info.efi_systab), 0x1c4);
    ck_assert_uint_eq(BP(efi_info.efi_memdesc_size), 0x1c8);
    ck_assert_uint_eq(BP(efi_info.efi_memdesc_version), 0x1cc);
    ck_assert_uint_eq(BP(efi_info.efi_memmap), 0x1d0);
    ck_assert_uint_eq(BP(efi_info.efi_memmap_size), 0x1d4);
    ck_assert_uint_eq(BP(efi_info.efi_systab_hi), 0x1d8);
    ck_assert_uint_eq(BP(efi_info.efi_memmap_hi), 0x1dc);
    ck_assert_uint_eq(memcmp(&(uint32_t){ EFI64_LOADER_SIGNATURE }, "EL64", 4), 0);
}
END_TEST

/* boot.rst, "The real-mode kernel header": offset/size of each field. */
START_TEST(setup_header_offsets_match_boot_rst)
{
    ck_assert_uint_eq(BP(hdr.setup_sects), 0x1f1);
    ck_assert_uint_eq(BP(hdr.root_flags), 0x1f2);
    ck_assert_uint_eq(BP(hdr.syssize), 0x1f4);
    ck_assert_uint_eq(BP(hdr.vid_mode), 0x1fa);
    ck_assert_uint_eq(BP(hdr.boot_flag), 0x1fe);
    ck_assert_uint_eq(BP(hdr.jump), 0x200);
    ck_assert_uint_eq(BP(hdr.header), 0x202);
    ck_assert_uint_eq(BP(hdr.version), 0x206);
    ck_assert_uint_eq(BP(hdr.kernel_version), 0x20e);
    ck_assert_uint_eq(BP(hdr.type_of_loader), 0x210);
    ck_assert_uint_eq(BP(hdr.loadflags), 0x211);
    ck_assert_uint_eq(BP(hdr.code32_start), 0x214);
    ck_assert_uint_eq(BP(hdr.ramdisk_image), 0x218);
    ck_assert_uint_eq(BP(hdr.ramdisk_size), 0x21c);
    ck_assert_uint_eq(BP(hdr.heap_end_ptr), 0x224);
    ck_assert_uint_eq(BP(hdr.ext_loader_type), 0x227);
    ck_assert_uint_eq(BP(hdr.initrd_addr_max), 0x22c);
    ck_assert_uint_eq(BP(hdr.kernel_alignment), 0x230);
    ck_assert_uint_eq(BP(hdr.relocatable_kernel), 0x234);
    ck_assert_uint_eq(BP(hdr.min_alignment), 0x235);
    ck_assert_uint_eq(BP(hdr.cmdline_size), 0x238);
    ck_assert_uint_eq(BP(hdr.hardware_subarch), 0x23c);
    ck_assert_uint_eq(BP(hdr.payload_offset), 0x248);
    ck_assert_uint_eq(BP(hdr.setup_data), 0x250);
    ck_assert_uint_eq(BP(hdr.pref_address), 0x258);
    ck_assert_uint_eq(BP(hdr.init_size), 0x260);
    ck_assert_uint_eq(BP(hdr.kernel_info_offset), 0x268);
}
END_TEST

START_TEST(boot_protocol_constants_match_boot_rst)
{
    ck_assert_uint_eq(memcmp(&(uint32_t){ SETUP_HDRS_MAGIC }, "HdrS", 4), 0);
    ck_assert_uint_eq(XLF_KERNEL_64, 0x1);
    ck_assert_uint_eq(XLF_CAN_BE_LOADED_ABOVE_4G, 0x2);
    ck_assert_uint_eq(XLF_EFI_HANDOVER_32, 0x4);
    ck_assert_uint_eq(XLF_EFI_HANDOVER_64, 0x8);
    ck_assert_uint_eq(LOADED_HIGH, 0x1);
    ck_assert_uint_eq(CAN_USE_HEAP, 0x80);
    ck_assert_uint_eq(E820_TYPE_PMEM, 7);
    ck_assert_uint_eq(E820_MAX_ENTRIES_ZEROPAGE, 128);
}
END_TEST

START_TEST(efi_system_table_offsets_match_uefi)
{
    ck_assert_uint_eq(offsetof(struct efi_system_table, firmware_vendor), 24);
    ck_assert_uint_eq(offsetof(struct efi_system_table, firmware_revision), 32);
    ck_assert_uint_eq(offsetof(struct efi_system_table, console_in_handle), 40);
    ck_assert_uint_eq(offsetof(struct efi_system_table, con_out), 64);
    ck_assert_uint_eq(offsetof(struct efi_system_table, std_err), 80);
    ck_assert_uint_eq(offsetof(struct efi_system_table, runtime_services), 88);
    ck_assert_uint_eq(offsetof(struct efi_system_table, boot_services), 96);
    ck_assert_uint_eq(offsetof(struct efi_system_table, number_of_table_entries), 104);
    ck_assert_uint_eq(offsetof(struct efi_system_table, configuration_table), 112);
    ck_assert_uint_eq(offsetof(struct efi_table_header, crc32), 16);
    ck_assert_uint_eq(offsetof(struct efi_configuration_table, vendor_table), 16);
}
END_TEST

START_TEST(efi_descriptor_and_protocol_layouts_match_uefi)
{
    ck_assert_uint_eq(offsetof(struct efi_memory_descriptor, physical_start), 8);
    ck_assert_uint_eq(offsetof(struct efi_memory_descriptor, virtual_start), 16);
    ck_assert_uint_eq(offsetof(struct efi_memory_descriptor, number_of_pages), 24);
    ck_assert_uint_eq(offsetof(struct efi_memory_descriptor, attribute), 32);
    ck_assert_uint_eq(offsetof(struct efi_loaded_image, system_table), 16);
    ck_assert_uint_eq(offsetof(struct efi_loaded_image, file_path), 32);
    ck_assert_uint_eq(offsetof(struct efi_loaded_image, load_options_size), 48);
    ck_assert_uint_eq(offsetof(struct efi_loaded_image, load_options), 56);
    ck_assert_uint_eq(offsetof(struct efi_loaded_image, image_base), 64);
    ck_assert_uint_eq(offsetof(struct efi_loaded_image, image_code_type), 80);
    ck_assert_uint_eq(offsetof(struct efi_loaded_image, unload), 88);
    ck_assert_uint_eq(sizeof(struct efi_simple_text_output_mode), 24);
    ck_assert_uint_eq(sizeof(struct efi_device_path_header), 4);
}
END_TEST

/* The kernel's efi_boot_services/efi_runtime_services structs put these
 * functions at these offsets; the IDs index the same tables. */
START_TEST(service_ids_follow_the_uefi_table_order)
{
    ck_assert_str_eq(firmware_service_name(FW_ID_BS((0x38 - 24) / 8)), "GetMemoryMap");
    ck_assert_str_eq(firmware_service_name(FW_ID_BS((0xe8 - 24) / 8)), "ExitBootServices");
    ck_assert_str_eq(firmware_service_name(FW_ID_BS((0x140 - 24) / 8)), "LocateProtocol");
    ck_assert_str_eq(firmware_service_name(FW_ID_BS((0xc0 - 24) / 8)), "InstallConfigurationTable");
    ck_assert_str_eq(firmware_service_name(FW_ID_RT((0x48 - 24) / 8)), "GetVariable");
    ck_assert_str_eq(firmware_service_name(FW_ID_RT((0x38 - 24) / 8)), "SetVirtualAddressMap");
    ck_assert_str_eq(firmware_service_name(FW_ID_CONOUT(1)), "ConOut.OutputString");
    ck_assert_ptr_null(firmware_service_name(0));
    /* The named indices (services.h) at the kernel's offsets, and every
     * table row where its name says. */
    ck_assert_uint_eq(24 + 8 * BS_GET_MEMORY_MAP, 0x38);
    ck_assert_uint_eq(24 + 8 * BS_INSTALL_CONFIGURATION_TABLE, 0xc0);
    ck_assert_uint_eq(24 + 8 * BS_EXIT_BOOT_SERVICES, 0xe8);
    ck_assert_uint_eq(24 + 8 * BS_LOCATE_PROTOCOL, 0x140);
    ck_assert_uint_eq(24 + 8 * RT_SET_VIRTUAL_ADDRESS_MAP, 0x38);
    ck_assert_uint_eq(24 + 8 * RT_GET_VARIABLE, 0x48);
    ck_assert_uint_eq(8 * CONOUT_OUTPUT_STRING, 8);
    ck_assert_uint_eq(BS_COUNT, 44);
    ck_assert_uint_eq(RT_COUNT, 14);
    ck_assert_str_eq(firmware_service_name(FW_ID_BS(BS_ALLOCATE_PAGES)), "AllocatePages");
    ck_assert_str_eq(firmware_service_name(FW_ID_BS(BS_CREATE_EVENT_EX)), "CreateEventEx");
    ck_assert_str_eq(firmware_service_name(FW_ID_BS(BS_STALL)), "Stall");
    ck_assert_str_eq(firmware_service_name(FW_ID_RT(RT_QUERY_VARIABLE_INFO)), "QueryVariableInfo");
    ck_assert_str_eq(firmware_service_name(FW_ID_CONOUT(CONOUT_ENABLE_CURSOR)), "ConOut.EnableCursor");
    ck_assert_str_eq(firmware_service_name(FW_ID_CONIN(CONIN_READ_KEY_STROKE)), "ConIn.ReadKeyStroke");
}
END_TEST

START_TEST(efi_signatures_spell_their_names)
{
    ck_assert_uint_eq(memcmp(&(uint64_t){ EFI_SYSTEM_TABLE_SIGNATURE }, "IBI SYST", 8), 0);
    ck_assert_uint_eq(memcmp(&(uint64_t){ EFI_BOOT_SERVICES_SIGNATURE }, "BOOTSERV", 8), 0);
    ck_assert_uint_eq(memcmp(&(uint64_t){ EFI_RUNTIME_SERVICES_SIGNATURE }, "RUNTSERV", 8), 0);
    ck_assert_uint_eq(EFI_SPECIFICATION_REVISION, 0x20064);
}
END_TEST

START_TEST(efi_status_codes_and_names)
{
    ck_assert_uint_eq(EFI_INVALID_PARAMETER, 0x8000000000000002ULL);
    ck_assert_uint_eq(EFI_BUFFER_TOO_SMALL, 0x8000000000000005ULL);
    ck_assert_uint_eq(EFI_NOT_FOUND, 0x800000000000000eULL);
    ck_assert_str_eq(efi_status_name(EFI_SUCCESS), "EFI_SUCCESS");
    ck_assert_str_eq(efi_status_name(EFI_NOT_FOUND), "EFI_NOT_FOUND");
    /* Every code UEFI 2.10 Appendix D names, errors and warnings (the
     * firmware's own File.Delete returns EFI_WARN_DELETE_FAILURE); the
     * codes it leaves out (29, 30) and those past its last are unknown. */
    ck_assert_str_eq(efi_status_name(EFI_ERR(22)), "EFI_ICMP_ERROR");
    ck_assert_str_eq(efi_status_name(EFI_ERR(27)), "EFI_CRC_ERROR");
    ck_assert_str_eq(efi_status_name(EFI_ERR(31)), "EFI_END_OF_FILE");
    ck_assert_str_eq(efi_status_name(EFI_ERR(35)), "EFI_HTTP_ERROR");
    ck_assert_str_eq(efi_status_name(EFI_ERR(29)), "EFI_ERROR_UNKNOWN");
    ck_assert_str_eq(efi_status_name(EFI_ERR(36)), "EFI_ERROR_UNKNOWN");
    ck_assert_str_eq(efi_status_name(EFI_ERR(0x7fffffffffffffffULL)), "EFI_ERROR_UNKNOWN");
    ck_assert_str_eq(efi_status_name(EFI_WARN_DELETE_FAILURE), "EFI_WARN_DELETE_FAILURE");
    ck_assert_str_eq(efi_status_name(1), "EFI_WARN_UNKNOWN_GLYPH");
    ck_assert_str_eq(efi_status_name(7), "EFI_WARN_RESET_REQUIRED");
    ck_assert_str_eq(efi_status_name(8), "EFI_WARN_UNKNOWN");
}
END_TEST

START_TEST(efi_memory_type_numbers_and_names)
{
    ck_assert_uint_eq(EFI_CONVENTIONAL_MEMORY, 7);
    ck_assert_uint_eq(EFI_ACPI_MEMORY_NVS, 10);
    ck_assert_uint_eq(EFI_PERSISTENT_MEMORY, 14);
    ck_assert_uint_eq(EFI_MAX_MEMORY_TYPE, 16);
    ck_assert_str_eq(efi_memory_type_name(EFI_RUNTIME_SERVICES_DATA), "EfiRuntimeServicesData");
    ck_assert_str_eq(efi_memory_type_name(EFI_UNACCEPTED_MEMORY_TYPE), "EfiUnacceptedMemoryType");
    ck_assert_str_eq(efi_memory_type_name(16), "Invalid");
    ck_assert_str_eq(efi_memory_type_name(0x70000000), "OEM");
    ck_assert_str_eq(efi_memory_type_name(0x80000000), "OSVendor");
}
END_TEST

START_TEST(guids_format_as_in_the_spec)
{
    char buf[37];
    guid_format(&GUID_LOADED_IMAGE, buf);
    ck_assert_str_eq(buf, "5b1b31a1-9562-11d2-8e3f-00a0c969723b");
    guid_format(&GUID_GLOBAL_VARIABLE, buf);
    ck_assert_str_eq(buf, "8be4df61-93ca-11d2-aa0d-00e098032b8c");
    ck_assert_str_eq(guid_name(&GUID_SIMPLE_TEXT_OUTPUT), "EFI_SIMPLE_TEXT_OUTPUT_PROTOCOL");
    efi_guid_t unknown = EFI_GUID(0x12345678, 0x9abc, 0xdef0, 1, 2, 3, 4, 5, 6, 7, 8);
    ck_assert_ptr_null(guid_name(&unknown));
    /* The in-memory byte order: the first three fields little-endian. */
    ck_assert_uint_eq(GUID_LOADED_IMAGE.b[0], 0xa1);
    ck_assert_uint_eq(GUID_LOADED_IMAGE.b[4], 0x62);
    ck_assert_uint_eq(GUID_LOADED_IMAGE.b[8], 0x8e);
}
END_TEST

START_TEST(guest_layout_regions_do_not_overlap)
{
    ck_assert_uint_le(GUEST_FIRMWARE_BASE + FW_REGION_SIZE, GUEST_GDT);
    ck_assert_uint_lt(GUEST_GDT, GUEST_IDT);
    ck_assert_uint_lt(GUEST_IDT, GUEST_PML4);
    ck_assert_uint_eq(GUEST_PML4 + 0x1000, GUEST_PDPT);
    ck_assert_uint_eq(GUEST_PDPT + 0x1000, GUEST_PD);
    ck_assert_uint_le(GUEST_MAX_MEM + (GUEST_HIGH_START - GUEST_HOLE_START), (uint64_t)GUEST_MAX_PD << 30);
    ck_assert_uint_eq(GUEST_FIRMWARE_BASE & 0xfff, 0);
    ck_assert_uint_ge(GUEST_STACK_SIZE, 64 << 10); /* DESIGN.md: at least 64 KiB of stack */
}
END_TEST

Suite *layout_suite(void)
{
    Suite *s = suite_create("layout");
    TCase *tc = tcase_create("layout");
    tcase_add_test(tc, boot_params_offsets_match_the_kernel);
    tcase_add_test(tc, efi_info_offsets_match_the_kernel);
    tcase_add_test(tc, setup_header_offsets_match_boot_rst);
    tcase_add_test(tc, boot_protocol_constants_match_boot_rst);
    tcase_add_test(tc, efi_system_table_offsets_match_uefi);
    tcase_add_test(tc, efi_descriptor_and_protocol_layouts_match_uefi);
    tcase_add_test(tc, service_ids_follow_the_uefi_table_order);
    tcase_add_test(tc, efi_signatures_spell_their_names);
    tcase_add_test(tc, efi_status_codes_and_names);
    tcase_add_test(tc, efi_memory_type_numbers_and_names);
    tcase_add_test(tc, guids_format_as_in_the_spec);
    tcase_add_test(tc, guest_layout_regions_do_not_overlap);
    suite_add_tcase(s, tc);
    return s;
}
