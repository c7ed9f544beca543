/* An IA-32 firmware (--firmware-bits 32): the IA-32 binding's table
 * layouts (UEFI 2.10 sections 2.3.2, 4.3-4.6, 9.1), the cdecl arguments of
 * each call (wide UINT64 ones included) and the 4-byte UINTN and pointer
 * outputs, as a mixed-mode kernel's stub reads them (include/linux/efi.h
 * efi_system_table_32_t and friends, arch/x86/include/asm/efi.h's argmaps). */
#include <stddef.h>

#include "fw_fixture.h"
#include "../../firmware-stub/dispatch.h"
#include "../../firmware-stub/esp.h"
#include "../../firmware-stub/esp_volume.h"
#include "../../firmware-stub/guids.h"
#include "../../firmware-stub/handles.h"
#include "../../firmware-stub/tcg2.h"
#include "../../firmware-stub/volume.h"
#include "../../firmware-stub/width.h"

/* A UINTN output slot whose upper half holds a sentinel: a 4-byte write
 * leaves it, an 8-byte one would not. */
#define SENTINEL 0xa5a5a5a500000000ULL
static uint64_t out_slot(void) { return put_u64(SENTINEL); }
static uint32_t low(uint64_t gpa) { return rd32(gpa); }
static bool upper_kept(uint64_t gpa) { return rd32(gpa + 4) == (uint32_t)(SENTINEL >> 32); }

/* ---- layouts ----------------------------------------------------------- */

START_TEST(ia32_system_table_fields_sit_where_the_spec_puts_them)
{
    ck_assert_uint_eq(offsetof(struct efi_system_table32, firmware_vendor), 24);
    ck_assert_uint_eq(offsetof(struct efi_system_table32, firmware_revision), 28);
    ck_assert_uint_eq(offsetof(struct efi_system_table32, console_in_handle), 32);
    ck_assert_uint_eq(offsetof(struct efi_system_table32, con_in), 36);
    ck_assert_uint_eq(offsetof(struct efi_system_table32, console_out_handle), 40);
    ck_assert_uint_eq(offsetof(struct efi_system_table32, con_out), 44);
    ck_assert_uint_eq(offsetof(struct efi_system_table32, standard_error_handle), 48);
    ck_assert_uint_eq(offsetof(struct efi_system_table32, std_err), 52);
    ck_assert_uint_eq(offsetof(struct efi_system_table32, runtime_services), 56);
    ck_assert_uint_eq(offsetof(struct efi_system_table32, boot_services), 60);
    ck_assert_uint_eq(offsetof(struct efi_system_table32, number_of_table_entries), 64);
    ck_assert_uint_eq(offsetof(struct efi_system_table32, configuration_table), 68);
    ck_assert_uint_eq(offsetof(struct efi_loaded_image32, load_options_size), 24);
    ck_assert_uint_eq(offsetof(struct efi_loaded_image32, load_options), 28);
    ck_assert_uint_eq(offsetof(struct efi_loaded_image32, image_base), 32);
    ck_assert_uint_eq(offsetof(struct efi_loaded_image32, image_size), 40);   /* UINT64, 8-aligned */
    ck_assert_uint_eq(offsetof(struct efi_loaded_image32, image_code_type), 48);
    ck_assert_uint_eq(offsetof(struct efi_loaded_image32, unload), 56);
}
END_TEST

START_TEST(ia32_system_table_is_built_in_its_layout)
{
    uint64_t st = fw.systab;
    ck_assert_uint_eq(rd64(st), EFI_SYSTEM_TABLE_SIGNATURE);
    ck_assert_uint_eq(rd32(st + 12), 72);                 /* HeaderSize */
    ck_assert(crc_ok(st));
    ck_assert_uint_eq(rd32(st + 24), fw.vendor);
    ck_assert_uint_eq(rd32(st + 32), fw.con_in_handle);
    ck_assert_uint_eq(rd32(st + 36), fw.con_in);
    ck_assert_uint_eq(rd32(st + 40), fw.con_out_handle);
    ck_assert_uint_eq(rd32(st + 44), fw.con_out);
    ck_assert_uint_eq(rd32(st + 52), fw.con_out);
    ck_assert_uint_eq(rd32(st + 56), fw.rt);
    ck_assert_uint_eq(rd32(st + 60), fw.bs);
    ck_assert_uint_eq(rd32(st + 68), fw.config_tables);
}
END_TEST

/* EFI_BOOT_SERVICES: a header, then 44 4-byte pointers in the spec's order. */
START_TEST(ia32_service_tables_hold_4_byte_thunk_pointers)
{
    ck_assert_uint_eq(rd64(fw.bs), EFI_BOOT_SERVICES_SIGNATURE);
    ck_assert_uint_eq(rd32(fw.bs + 12), 200);
    ck_assert(crc_ok(fw.bs));
    ck_assert_uint_eq(rd32(fw.bs + 32), firmware_thunk(&fw, BS(ALLOCATE_PAGES)));      /* 3rd */
    ck_assert_uint_eq(rd32(fw.bs + 40), firmware_thunk(&fw, BS(GET_MEMORY_MAP)));      /* 5th */
    ck_assert_uint_eq(rd32(fw.bs + 88), firmware_thunk(&fw, BS(HANDLE_PROTOCOL)));     /* 17th */
    ck_assert_uint_eq(rd32(fw.bs + 128), firmware_thunk(&fw, BS(EXIT_BOOT_SERVICES))); /* 27th */
    ck_assert_uint_eq(rd32(fw.bs + 172), firmware_thunk(&fw, BS(LOCATE_PROTOCOL)));    /* 38th */
    ck_assert_uint_eq(rd32(fw.bs + 196), firmware_thunk(&fw, BS(CREATE_EVENT_EX)));    /* 44th, the last */
    ck_assert_uint_eq(rd64(fw.rt), EFI_RUNTIME_SERVICES_SIGNATURE);
    ck_assert_uint_eq(rd32(fw.rt + 12), 80);
    ck_assert(crc_ok(fw.rt));
    ck_assert_uint_eq(rd32(fw.rt + 48), firmware_thunk(&fw, RT(GET_VARIABLE)));        /* 7th */
    ck_assert_uint_eq(rd32(fw.rt + 76), firmware_thunk(&fw, RT(QUERY_VARIABLE_INFO))); /* 14th, the last */
}
END_TEST

START_TEST(ia32_protocols_hold_4_byte_pointers)
{
    /* ConOut: Reset, OutputString, ..., then Mode; ConIn: Reset,
     * ReadKeyStroke, WaitForKey. */
    ck_assert_uint_eq(rd32(fw.con_out + 4), firmware_thunk(&fw, FW_ID_CONOUT(CONOUT_OUTPUT_STRING)));
    ck_assert_uint_eq(rd32(fw.con_out + 4 * CONOUT_COUNT), FW_BASE + FW_CONOUT_MODE_OFFSET);
    ck_assert_uint_eq(rd32(fw.con_in + 4), firmware_thunk(&fw, FW_ID_CONIN(CONIN_READ_KEY_STROKE)));
    ck_assert_uint_eq(rd32(fw.con_in + 8), fw.events.wait_for_key);
    ck_assert_uint_eq(rd32(fw.rng + 4), firmware_thunk(&fw, FW_ID_RNG(RNG_GET_RNG)));
    ck_assert_uint_eq(rd32(fw.memattr + 8), firmware_thunk(&fw, FW_ID_MEMATTR(MEMATTR_CLEAR)));
    const struct efi_loaded_image32 *li = hp(fw.loaded_image);
    ck_assert_uint_eq(li->revision, EFI_LOADED_IMAGE_PROTOCOL_REVISION);
    ck_assert_uint_eq(li->system_table, fw.systab);
    ck_assert_uint_eq(li->image_base, IMAGE_BASE);
    ck_assert_uint_eq(li->image_size, IMAGE_SIZE);
    ck_assert_uint_eq(li->image_code_type, EFI_LOADER_CODE);
    ck_assert(ucs2_equals(li->load_options, CMDLINE));
    ck_assert_uint_eq(li->load_options_size, 2 * (sizeof(CMDLINE)));
}
END_TEST

/* EFI_CONFIGURATION_TABLE entries are 20 bytes: the GUID, a 4-byte pointer. */
START_TEST(ia32_configuration_tables_are_20_bytes_each)
{
    uint64_t g1 = put_guid(GUID_TEST), g2 = put_guid(GUID_RANDOM_SEED);
    ck_assert_uint_eq(CALL32(BS(INSTALL_CONFIGURATION_TABLE), 0, g1, 0x123000), EFI_SUCCESS);
    ck_assert_uint_eq(CALL32(BS(INSTALL_CONFIGURATION_TABLE), 0, g2, 0x456000), EFI_SUCCESS);
    const uint64_t ours = fw.config_tables + 20 * FIRMWARE_CONFIG_TABLES;   /* after the firmware's */
    ck_assert_uint_eq(rd32(fw.systab + 64), FIRMWARE_CONFIG_TABLES + 2);
    ck_assert(crc_ok(fw.systab));
    ck_assert_mem_eq(hp(ours), hp(g1), 16);
    ck_assert_uint_eq(rd32(ours + 16), 0x123000);
    ck_assert_mem_eq(hp(ours + 20), hp(g2), 16);
    ck_assert_uint_eq(rd32(ours + 36), 0x456000);
    ck_assert_uint_eq(CALL32(BS(INSTALL_CONFIGURATION_TABLE), 0, g1, 0), EFI_SUCCESS);
    ck_assert_uint_eq(rd32(fw.systab + 64), FIRMWARE_CONFIG_TABLES + 1);
    ck_assert_mem_eq(hp(ours), hp(g2), 16);
    ck_assert_uint_eq(rd32(ours + 16), 0x456000);
}
END_TEST

START_TEST(ia32_exit_boot_services_clears_the_boot_time_fields)
{
    uint64_t size_p = out_slot(), key_p = out_slot(), dsize_p = out_slot(), dver_p = put_u64(0);
    ck_assert_uint_eq(CALL32(BS(GET_MEMORY_MAP), 0, size_p, 0, key_p, dsize_p, dver_p), EFI_BUFFER_TOO_SMALL);
    uint64_t map = scratch(low(size_p) + 2 * DESC_SIZE);
    wr64(size_p, low(size_p) + 2 * DESC_SIZE);
    ck_assert_uint_eq(CALL32(BS(GET_MEMORY_MAP), 0, size_p, map, key_p, dsize_p, dver_p), EFI_SUCCESS);
    ck_assert_uint_eq(CALL32(BS(EXIT_BOOT_SERVICES), 0, fw.image_handle, low(key_p)), EFI_SUCCESS);
    ck_assert_uint_eq(rd32(fw.systab + 44), 0);   /* ConOut */
    ck_assert_uint_eq(rd32(fw.systab + 60), 0);   /* BootServices */
    ck_assert_uint_eq(rd32(fw.systab + 56), fw.rt);
    ck_assert(crc_ok(fw.systab));
}
END_TEST

/* ---- arguments and outputs --------------------------------------------- */

/* GetMemoryMap: MemoryMapSize, MapKey and DescriptorSize are UINTN, 4
 * bytes; the descriptors are the same 48-byte stride as on x64. */
START_TEST(ia32_get_memory_map_writes_4_byte_sizes_and_key)
{
    uint64_t size_p = out_slot(), key_p = out_slot(), dsize_p = out_slot(), dver_p = put_u64(0);
    ck_assert_uint_eq(CALL32(BS(GET_MEMORY_MAP), 0, size_p, 0, key_p, dsize_p, dver_p), EFI_BUFFER_TOO_SMALL);
    ck_assert_uint_eq(low(size_p), fw.map.n * DESC_SIZE);
    ck_assert(upper_kept(size_p));
    ck_assert_uint_eq(low(dsize_p), DESC_SIZE);
    ck_assert(upper_kept(dsize_p));
    uint64_t want = low(size_p) + 2 * DESC_SIZE, map = scratch(want);
    wr64(size_p, SENTINEL | want);
    ck_assert_uint_eq(CALL32(BS(GET_MEMORY_MAP), 0, size_p, map, key_p, dsize_p, dver_p), EFI_SUCCESS);
    ck_assert_uint_eq(low(key_p), fw.map.key);
    ck_assert(upper_kept(key_p));
    ck_assert(upper_kept(size_p));
    const struct efi_memory_descriptor *d = hp(map + DESC_SIZE);
    ck_assert_uint_eq(d->physical_start, fw.map.e[1].start);
}
END_TEST

/* AllocatePages' *Memory is an EFI_PHYSICAL_ADDRESS, 8 bytes in both
 * bindings; FreePages' Memory is one too, 8 bytes on the stack, then the
 * UINTN Pages. */
START_TEST(ia32_free_pages_takes_a_64_bit_address)
{
    uint64_t mem_p = put_u64(0);
    ck_assert_uint_eq(CALL32(BS(ALLOCATE_PAGES), 0, EFI_ALLOCATE_ANY_PAGES, EFI_LOADER_DATA, 3, mem_p), EFI_SUCCESS);
    uint64_t addr = rd64(mem_p);
    ck_assert_uint_ne(addr, 0);
    ck_assert_uint_lt(addr + 3 * 4096, 1ULL << 32);
    trace_to_memory();
    ck_assert_uint_eq(CALL32(BS(FREE_PAGES), FW_WIDE(0), addr, 3), EFI_SUCCESS);
    /* The same call read as 4-byte arguments frees at the wrong place. */
    ck_assert_uint_eq(CALL32(BS(FREE_PAGES), 0, addr, 3), EFI_NOT_FOUND);
    char got[1024];
    decoded_tails(got, sizeof(got));
    ck_assert_msg(strstr(got, "\"pages\":3"), "%s", got);
}
END_TEST

/* What the pool hands out, and the pointer to it, fit 4 bytes. */
START_TEST(ia32_allocate_pool_writes_a_4_byte_pointer)
{
    uint64_t buf_p = out_slot();
    ck_assert_uint_eq(CALL32(BS(ALLOCATE_POOL), 0, EFI_LOADER_DATA, 100, buf_p), EFI_SUCCESS);
    ck_assert_uint_ne(low(buf_p), 0);
    ck_assert(upper_kept(buf_p));
    ck_assert_uint_eq(CALL32(BS(FREE_POOL), 0, low(buf_p)), EFI_SUCCESS);
}
END_TEST

START_TEST(ia32_lookups_write_4_byte_interfaces_and_handles)
{
    uint64_t iface_p = out_slot();
    ck_assert_uint_eq(CALL32(BS(HANDLE_PROTOCOL), 0, fw.image_handle, put_guid(GUID_LOADED_IMAGE), iface_p),
                      EFI_SUCCESS);
    ck_assert_uint_eq(low(iface_p), fw.loaded_image);
    ck_assert(upper_kept(iface_p));
    iface_p = out_slot();
    ck_assert_uint_eq(CALL32(BS(LOCATE_PROTOCOL), 0, put_guid(GUID_RNG_PROTOCOL), 0, iface_p), EFI_SUCCESS);
    ck_assert_uint_eq(low(iface_p), fw.rng);
    ck_assert(upper_kept(iface_p));
    /* LocateHandleBuffer: a count and a pool array of 4-byte handles. */
    uint64_t count_p = out_slot(), buf_p = out_slot();
    ck_assert_uint_eq(CALL32(BS(LOCATE_HANDLE_BUFFER), 0, EFI_ALL_HANDLES, 0, 0, count_p, buf_p), EFI_SUCCESS);
    ck_assert_uint_ge(low(count_p), 4);
    ck_assert(upper_kept(count_p) && upper_kept(buf_p));
    ck_assert_uint_eq(rd32(low(buf_p)), fw.image_handle);
    ck_assert_uint_eq(rd32(low(buf_p) + 4), fw.con_out_handle);
    /* LocateHandle: BufferSize counts 4 bytes a handle. */
    uint64_t size_p = out_slot();
    ck_assert_uint_eq(CALL32(BS(LOCATE_HANDLE), 0, EFI_ALL_HANDLES, 0, 0, size_p, 0), EFI_BUFFER_TOO_SMALL);
    ck_assert_uint_eq(low(size_p), 4 * low(count_p));
}
END_TEST

START_TEST(ia32_status_and_trace_name_the_width)
{
    ck_assert_uint_eq(efi_status32(EFI_INVALID_PARAMETER), 0x80000002u);
    ck_assert_uint_eq(efi_status32(EFI_SUCCESS), 0);
    trace_to_memory();
    ck_assert_uint_eq(CALL32(BS(FREE_PAGES), FW_WIDE(0), 0x1234000, 2), EFI_NOT_FOUND);
    char got[512];
    trace_lines(got, sizeof(got));
    ck_assert_msg(strstr(got, "\"phase\":\"boot\",\"bits\":32,\"call\":\"FreePages\",\"args\":[\"0x1234000\",\"0x2\"]"),
                  "%s", got);
}
END_TEST

/* Exit's ExitStatus is an IA-32 EFI_STATUS: its error bit is bit 31
 * (the kernel's efi64_convert_status). */
START_TEST(ia32_exit_status_has_its_error_bit_at_31)
{
    trace_to_memory();
    ck_assert_uint_eq(CALL32(BS(EXIT), 0, 0x4242, 0x80000005, 0, 0), EFI_INVALID_PARAMETER);   /* no image */
    ck_assert_uint_eq(fw.stop, FW_RUN);
    ck_assert_uint_eq(CALL32(BS(EXIT), 0, fw.image_handle, 0x80000005, 0, 0), EFI_SUCCESS);
    ck_assert_uint_eq(fw.stop, FW_STOP_EXIT);
    ck_assert_uint_eq(fw.stop_status, EFI_BUFFER_TOO_SMALL);
    ck_assert_ptr_nonnull(strstr(log_text(), "the image called Exit(EFI_BUFFER_TOO_SMALL)"));
    char got[512];
    decoded_tails(got, sizeof(got));
    ck_assert_msg(strstr(got, "\"exit_status\":\"EFI_BUFFER_TOO_SMALL\""), "%s", got);
}
END_TEST

/* So is ResetSystem's ResetStatus, which the log names. */
START_TEST(ia32_reset_status_has_its_error_bit_at_31)
{
    ck_assert_uint_eq(CALL32(RT(RESET_SYSTEM), 0, 2, 0x80000005, 0, 0), EFI_SUCCESS);
    ck_assert_uint_eq(fw.stop, FW_STOP_RESET);
    ck_assert_uint_eq(fw.stop_status, 2);
    ck_assert_msg(strstr(log_text(), "ResetSystem(EfiResetShutdown, EFI_BUFFER_TOO_SMALL)"), "%s", log_text());
}
END_TEST

/* CreateEvent writes a 4-byte EFI_EVENT; a notify function would run
 * through the x64 trampoline, so it is refused with a line saying so,
 * once the call is one the spec takes (UEFI 2.10 section 7.1.1: a notify
 * type with no function or a TPL of TPL_APPLICATION is
 * EFI_INVALID_PARAMETER, on either binding). */
START_TEST(ia32_create_event_writes_a_4_byte_event_and_refuses_notify_functions)
{
    uint64_t ev_p = out_slot();
    ck_assert_uint_eq(CALL32(BS(CREATE_EVENT), 0, EVT_TIMER, 0, 0, 0, ev_p), EFI_SUCCESS);
    ck_assert_uint_ne(low(ev_p), 0);
    ck_assert(upper_kept(ev_p));
    ck_assert_uint_eq(CALL32(BS(CLOSE_EVENT), 0, low(ev_p)), EFI_SUCCESS);
    ck_assert_uint_eq(CALL32(BS(CREATE_EVENT), 0, EVT_NOTIFY_SIGNAL, 4, 0x1234, 0, out_slot()), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL32(BS(CREATE_EVENT), 0, EVT_NOTIFY_WAIT, 8, 0, 0, out_slot()), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL32(BS(CREATE_EVENT), 0, EVT_NOTIFY_SIGNAL, 8, 0x1234, 0, out_slot()), EFI_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(log_text(), "CreateEvent with a notify function is not served by a 32-bit firmware"));
}
END_TEST

/* A stack the arguments cannot be read from is the guest's bug. */
START_TEST(ia32_unreadable_stack_arguments_are_refused)
{
    cur_rsp = RAM_SIZE - 8;   /* the return address and one argument fit, not the second */
    ck_assert_uint_eq(CALL32(BS(HANDLE_PROTOCOL), 0, 1), EFI_INVALID_PARAMETER);
    ck_assert_ptr_nonnull(strstr(log_text(), "HandleProtocol: stack argument 2 above ESP"));
    /* The stack pointer is ESP: RSP's upper half does not count. */
    cur_rsp = STACK_TOP;
    uint64_t a[2] = { 0 };
    ck_assert(guest_view_write(&cur_view, STACK_TOP + 4, &(uint32_t){ 0x4000 }, 4));
    struct fw_call c = { .rsp = (1ULL << 32) | STACK_TOP, .view = cur_view };
    ck_assert_uint_eq(fw_stack_args32(fw_service_of(BS(FREE_POOL)), &c, a, 1), 1);
    ck_assert_uint_eq(a[0], 0x4000);
}
END_TEST

/* An unknown ID is EFI_UNSUPPORTED, and said so, whatever the stack its
 * arguments would be on holds. */
START_TEST(ia32_unknown_ids_are_unsupported_on_any_stack)
{
    struct fw_call c = { .rsp = RAM_SIZE - 4, .view = cur_view };   /* the return address fits, no argument */
    ck_assert_uint_eq(firmware_call(&fw, 200, &c), EFI_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(log_text(), "unknown service ID 200"));
}
END_TEST

/* A mixed-mode stub calls in compatibility mode on its long-mode tables,
 * which may map RAM above 4 GiB: a view of 2 MiB pages mapping the 4 MiB
 * at 0 onto themselves, the top 2 MiB below 4 GiB onto RAM at 6 MiB and
 * the 2 MiB at 4 GiB onto RAM at 8 MiB. */
static struct guest_view view_with_ram_at_4_gib(void)
{
    const uint64_t pw = PTE_PRESENT | PTE_WRITE;
    uint64_t t = (scratch(6 * 4096) + 0xfff) & ~0xfffULL;
    uint64_t pml4 = t, pdpt = t + 0x1000, pd_low = t + 0x2000, pd_top = t + 0x3000, pd_high = t + 0x4000;
    wr64(pml4, pdpt | pw);
    wr64(pdpt, pd_low | pw);
    wr64(pdpt + 3 * 8, pd_top | pw);
    wr64(pdpt + 4 * 8, pd_high | pw);
    wr64(pd_low, 0 | pw | PTE_LARGE);
    wr64(pd_low + 8, MiB(2) | pw | PTE_LARGE);
    wr64(pd_top + 511 * 8, MiB(6) | pw | PTE_LARGE);
    wr64(pd_high, MiB(8) | pw | PTE_LARGE);
    return (struct guest_view){ .gm = &gm, .cr3 = pml4 };
}

static void guest_put32(const struct guest_view *v, uint64_t va, uint32_t w) { ck_assert(guest_view_write(v, va, &w, 4)); }

/* n argument words above the return address at esp, as the caller's
 * pushes lay them: their addresses wrap at 4 GiB. */
static void put_args32(const struct guest_view *v, uint32_t esp, const uint32_t *w, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        guest_put32(v, (uint32_t)(esp + 4 + 4 * i), w[i]);
}

/* Guest RAM at 4 GiB that a wrong read would take arguments from. */
static void poison_4_gib(const struct guest_view *v)
{
    for (uint64_t at = GiB(4); at < GiB(4) + 16; at += 4)
        guest_put32(v, at, 0xbad);
}

/* ESP + 4 + n has 32 bits in the caller's code: the arguments past
 * 0xffffffff continue at 0, not at 4 GiB, where RAM is out of its reach. */
START_TEST(ia32_stack_arguments_wrap_at_4_gib)
{
    struct fw_call c = { .view = view_with_ram_at_4_gib() };
    const struct fw_service *free_pages = fw_service_of(BS(FREE_PAGES));   /* (UINT64 Memory, UINTN Pages) */
    uint64_t a[2];
    poison_4_gib(&c.view);
    c.rsp = 0xfffffff4;
    put_args32(&c.view, (uint32_t)c.rsp, (const uint32_t[]){ 0x3000, 0x2, 5 }, 3);
    ck_assert_uint_eq(fw_stack_args32(free_pages, &c, a, 2), 2);
    ck_assert_uint_eq(a[0], 0x200003000);
    ck_assert_uint_eq(a[1], 5);
    /* A UINT64 across the wrap: its high half is at 0. */
    c.rsp = 0xfffffff8;
    put_args32(&c.view, (uint32_t)c.rsp, (const uint32_t[]){ 0x4000, 0x1, 7 }, 3);
    ck_assert_uint_eq(fw_stack_args32(free_pages, &c, a, 2), 2);
    ck_assert_uint_eq(a[0], 0x100004000);
    ck_assert_uint_eq(a[1], 7);
}
END_TEST

/* The same for a variadic call's arguments past the fourth. */
START_TEST(ia32_variadic_arguments_wrap_at_4_gib)
{
    struct fw_call c = { .rsp = 0xffffffec, .view = view_with_ram_at_4_gib() };
    efi_guid_t g1 = GUID_TEST, g2 = GUID_RANDOM_SEED;
    uint64_t handle_ptr = put_u64(0);
    const uint32_t args[] = { (uint32_t)handle_ptr, (uint32_t)put_guid(g1), 0x5000, (uint32_t)put_guid(g2), 0x6000, 0 };
    poison_4_gib(&c.view);
    put_args32(&c.view, (uint32_t)c.rsp, args, 6);   /* the last two at 0 and 4 */
    ck_assert_uint_eq(firmware_call(&fw, BS(INSTALL_MULTIPLE_PROTOCOL_INTERFACES), &c), EFI_SUCCESS);
    uint64_t handle = rd32(handle_ptr);
    ck_assert_uint_eq(fw_find_protocol(&fw, handle, &g1)->interface, 0x5000);
    ck_assert_uint_eq(fw_find_protocol(&fw, handle, &g2)->interface, 0x6000);
}
END_TEST

START_TEST(ia32_outputs_above_4_gib_are_refused)
{
    uint64_t p = out_slot();
    ck_assert(!fw_write_uintn(&fw, &cur_view, p, 1ULL << 32));
    ck_assert_uint_eq(rd64(p), SENTINEL);
    ck_assert(fw_write_uintn(&fw, &cur_view, p, 0x1234));
    ck_assert_uint_eq(rd64(p), SENTINEL | 0x1234);
}
END_TEST

/* ---- --esp on an IA-32 firmware ----------------------------------------- */

#define ESP_FILE      "BOOTIA32.EFI"
#define ESP_FILE_DATA "MZ an IA-32 application"
#define FILE_FN32(i)  (8 + 4 * (i))   /* EFI_FILE_PROTOCOL: UINT64 Revision, then 4-byte pointers */

static struct volume esp_base;

/* The IA-32 firmware serving a volume with one file at its root, the
 * top-level image. */
static void attach_esp32(void)
{
    ck_assert_int_eq(volume_init(&esp_base, 1700000000), 0);
    uint16_t name[sizeof(ESP_FILE)];
    for (unsigned i = 0; i < sizeof(ESP_FILE) - 1; i++)
        name[i] = (uint8_t)ESP_FILE[i];
    uint8_t *data = (uint8_t *)strdup(ESP_FILE_DATA);
    ck_assert_int_ge(volume_add(&esp_base, VOLUME_ROOT, name, sizeof(ESP_FILE) - 1, false, data,
                                sizeof(ESP_FILE_DATA) - 1, 1700000000), 0);
    ck_assert_int_eq(firmware_attach_esp(&fw, &esp_base, ESP_FILE), 0);
}

/* The interface HandleProtocol gives for guid on handle, read as 4 bytes. */
static uint32_t interface32(uint64_t handle, efi_guid_t guid)
{
    uint64_t iface_p = out_slot();
    ck_assert_uint_eq(CALL32(BS(HANDLE_PROTOCOL), 0, handle, put_guid(guid), iface_p), EFI_SUCCESS);
    ck_assert(upper_kept(iface_p));
    return low(iface_p);
}

/* The root directory, through SimpleFileSystem.OpenVolume. */
static uint32_t open_root32(void)
{
    uint64_t root_p = out_slot();
    ck_assert_uint_eq(CALL32(FW_ID_FILE_SYSTEM, 0, interface32(fw_esp_handle(&fw), GUID_SIMPLE_FILE_SYSTEM), root_p),
                      EFI_SUCCESS);
    ck_assert(upper_kept(root_p));
    return low(root_p);
}

/* UEFI 2.10 sections 9.1, 13.4, 13.5 and 13.9 in the IA-32 binding (EDK2's
 * headers give the same offsets built for IA32): LoadedImage's DeviceHandle
 * at 12 and FilePath at 16; EFI_SIMPLE_FILE_SYSTEM_PROTOCOL, EFI_FILE_PROTOCOL
 * and EFI_BLOCK_IO_PROTOCOL a UINT64 Revision then 4-byte pointers;
 * EFI_BLOCK_IO_MEDIA, which has none, BlockSize at 12 and LastBlock at 24,
 * as on x64. */
START_TEST(ia32_esp_protocols_sit_where_the_spec_puts_them)
{
    struct efi_loaded_image32 before;
    memcpy(&before, hp(fw.loaded_image), sizeof(before));
    attach_esp32();
    ck_assert_uint_eq(offsetof(struct efi_loaded_image32, device_handle), 12);
    ck_assert_uint_eq(offsetof(struct efi_loaded_image32, file_path), 16);
    const struct efi_loaded_image32 *li = hp(fw.loaded_image);
    ck_assert_uint_eq(li->device_handle, fw_esp_handle(&fw));
    ck_assert_uint_ne(li->file_path, 0);
    ck_assert_uint_eq(*(const uint8_t *)hp(li->file_path), EFI_DEV_MEDIA);          /* File(\BOOTIA32.EFI) */
    ck_assert_uint_eq(*(const uint16_t *)hp(li->file_path + 4), '\\');
    ck_assert_uint_eq(li->load_options_size, before.load_options_size);
    ck_assert_uint_eq(li->load_options, before.load_options);
    ck_assert_uint_eq(li->image_base, before.image_base);

    uint32_t sfs = interface32(fw_esp_handle(&fw), GUID_SIMPLE_FILE_SYSTEM);
    ck_assert_uint_eq(rd64(sfs), 0x10000);
    ck_assert_uint_eq(rd32(sfs + 8), firmware_thunk(&fw, FW_ID_FILE_SYSTEM));
    uint32_t root = open_root32();
    ck_assert_uint_eq(rd64(root), 0x10000);
    for (unsigned i = 0; i < FILE_COUNT; i++)
        ck_assert_uint_eq(rd32(root + FILE_FN32(i)), firmware_thunk(&fw, FW_ID_FILE(i)));

    uint32_t bio = interface32(fw_esp_handle(&fw), GUID_BLOCK_IO);
    ck_assert_uint_eq(rd64(bio), 0x2001f);
    uint32_t media = rd32(bio + 8);
    for (unsigned i = 0; i < BLOCK_IO_COUNT; i++)
        ck_assert_uint_eq(rd32(bio + 12 + 4 * i), firmware_thunk(&fw, FW_ID_BLOCK_IO(i)));
    ck_assert_uint_eq(*(const uint8_t *)hp(media + 5), 1);                          /* MediaPresent */
    ck_assert_uint_eq(*(const uint8_t *)hp(media + 6), 1);                          /* LogicalPartition */
    ck_assert_uint_eq(rd32(media + 12), 512);                      /* BlockSize */
    ck_assert_uint_gt(rd64(media + 24), 0);                        /* LastBlock */
    volume_free(&esp_base);
}
END_TEST

/* The file calls cdecl: Open's OpenMode and Attributes and SetPosition's
 * Position are UINT64, two stack slots; every UINTN and pointer output is
 * 4 bytes; GetPosition's UINT64 output 8. ReadBlocks' Lba is a UINT64 too. */
START_TEST(ia32_esp_calls_take_wide_arguments_and_write_4_byte_outputs)
{
    attach_esp32();
    uint32_t root = open_root32();
    uint64_t name = put_ucs2(ESP_FILE), file_p = out_slot();
    ck_assert_uint_eq(CALL32(FW_ID_FILE(FILE_OPEN), FW_WIDE(3) | FW_WIDE(4), root, file_p, name, 1, 0), EFI_SUCCESS);
    ck_assert(upper_kept(file_p));
    uint32_t file = low(file_p);
    uint64_t size_p = put_u64(SENTINEL | 5), buf = scratch(64);
    ck_assert_uint_eq(CALL32(FW_ID_FILE(FILE_READ), 0, file, size_p, buf), EFI_SUCCESS);
    ck_assert_uint_eq(low(size_p), 5);
    ck_assert(upper_kept(size_p));
    ck_assert_mem_eq(hp(buf), ESP_FILE_DATA, 5);
    ck_assert_uint_eq(CALL32(FW_ID_FILE(FILE_SET_POSITION), FW_WIDE(1), file, 3), EFI_SUCCESS);
    uint64_t pos_p = put_u64(SENTINEL);
    ck_assert_uint_eq(CALL32(FW_ID_FILE(FILE_GET_POSITION), 0, file, pos_p), EFI_SUCCESS);
    ck_assert_uint_eq(rd64(pos_p), 3);
    uint64_t info_size_p = put_u64(SENTINEL);
    ck_assert_uint_eq(CALL32(FW_ID_FILE(FILE_GET_INFO), 0, file, put_guid(GUID_FILE_INFO), info_size_p, 0),
                      EFI_BUFFER_TOO_SMALL);
    ck_assert_uint_eq(low(info_size_p), 80 + 2 * sizeof(ESP_FILE));
    ck_assert(upper_kept(info_size_p));
    ck_assert_uint_eq(CALL32(FW_ID_FILE(FILE_CLOSE), 0, file), EFI_SUCCESS);
    /* LBA 1 of the whole disk is the GPT header. */
    uint32_t disk = 0;
    for (unsigned i = 0; i < fw.nprotocols; i++)
        if (guid_equal(&fw.protocols[i].guid, &GUID_BLOCK_IO) && fw.protocols[i].handle != fw_esp_handle(&fw))
            disk = (uint32_t)fw.protocols[i].interface;
    ck_assert_uint_ne(disk, 0);
    uint64_t sector = scratch(512);
    ck_assert_uint_eq(CALL32(FW_ID_BLOCK_IO(BLOCK_IO_READ_BLOCKS), FW_WIDE(2), disk, 0, 1, 512, sector), EFI_SUCCESS);
    ck_assert_mem_eq(hp(sector), "EFI PART", 8);
    volume_free(&esp_base);
}
END_TEST

/* EFI_TCG2_PROTOCOL likewise: refused, nothing installed. */
START_TEST(ia32_tcg2_is_refused_with_nothing_installed)
{
    uint64_t nprotocols = fw.nprotocols, nconfig = fw.nconfig;
    ck_assert_int_eq(firmware_install_tcg2(&fw), -1);
    ck_assert_uint_eq(fw.nprotocols, nprotocols);
    ck_assert_uint_eq(fw.nconfig, nconfig);
    ck_assert_ptr_nonnull(strstr(log_text(), "--tpm"));
}
END_TEST

Suite *fw_ia32_suite(void)
{
    Suite *s = suite_create("fw-ia32");
    fw_add_tcase_ia32(s, "layouts", (const TTest *const[]){
        ia32_system_table_fields_sit_where_the_spec_puts_them, ia32_system_table_is_built_in_its_layout,
        ia32_service_tables_hold_4_byte_thunk_pointers, ia32_protocols_hold_4_byte_pointers,
        ia32_configuration_tables_are_20_bytes_each, ia32_exit_boot_services_clears_the_boot_time_fields, NULL });
    fw_add_tcase_ia32(s, "calls", (const TTest *const[]){
        ia32_get_memory_map_writes_4_byte_sizes_and_key, ia32_free_pages_takes_a_64_bit_address,
        ia32_allocate_pool_writes_a_4_byte_pointer, ia32_lookups_write_4_byte_interfaces_and_handles,
        ia32_status_and_trace_name_the_width, ia32_exit_status_has_its_error_bit_at_31,
        ia32_reset_status_has_its_error_bit_at_31,
        ia32_create_event_writes_a_4_byte_event_and_refuses_notify_functions,
        ia32_unreadable_stack_arguments_are_refused, ia32_unknown_ids_are_unsupported_on_any_stack,
        ia32_stack_arguments_wrap_at_4_gib,
        ia32_variadic_arguments_wrap_at_4_gib,
        ia32_outputs_above_4_gib_are_refused, ia32_tcg2_is_refused_with_nothing_installed, NULL });
    fw_add_tcase_ia32(s, "esp", (const TTest *const[]){
        ia32_esp_protocols_sit_where_the_spec_puts_them, ia32_esp_calls_take_wide_arguments_and_write_4_byte_outputs,
        NULL });
    return s;
}
