/* From a thunk ID to a service (firmware-stub/dispatch.c): hostile
 * arguments to every service, unreadable stack arguments, unknown and
 * unimplemented IDs and the one line each gets in the log, the log's
 * limit, and the call trace with its "decoded" fields (the rows behind
 * them: test_service_table.c). */
#include <stdlib.h>

#include "fw_fixture.h"

START_TEST(test_service_constants_name_the_right_services)
{
    ck_assert_str_eq(firmware_service_name(BS(ALLOCATE_PAGES)), "AllocatePages");
    ck_assert_str_eq(firmware_service_name(BS(HANDLE_PROTOCOL)), "HandleProtocol");
    ck_assert_str_eq(firmware_service_name(BS(LOCATE_DEVICE_PATH)), "LocateDevicePath");
    ck_assert_str_eq(firmware_service_name(BS(LOCATE_HANDLE_BUFFER)), "LocateHandleBuffer");
    ck_assert_str_eq(firmware_service_name(BS(SET_MEM)), "SetMem");
    ck_assert_str_eq(firmware_service_name(RT(GET_NEXT_VARIABLE_NAME)), "GetNextVariableName");
    ck_assert_str_eq(firmware_service_name(RT(QUERY_VARIABLE_INFO)), "QueryVariableInfo");
    ck_assert_str_eq(firmware_service_name(FW_ID_CONOUT(CONOUT_QUERY_MODE)), "ConOut.QueryMode");
}
END_TEST

/* ---- hostile arguments ----------------------------------------------------------------- */

#define H_GOOD  (SCRATCH + 0x100000)   /* a u64 holding 0x10000 */
#define H_GOOD2 (SCRATCH + 0x100100)
#define H_GUID  (SCRATCH + 0x100200)   /* a GUID */
#define H_NAME  (SCRATCH + 0x100300)   /* L"Foo" */
#define H_DPP   (SCRATCH + 0x100400)   /* a device path pointer to the last 2 bytes of RAM */
#define H_END   (RAM_SIZE - 4)         /* 4 bytes of RAM left */
#define H_OUT   (RAM_SIZE + 0x1000)
#define H_IMAGE 0x1111111111111111ULL  /* replaced by the image handle */
#define H_HUGE  (1ULL << 40)

static const struct hostile {
    const char *what;
    unsigned id;
    uint64_t a[6];
} hostile[] = {
    { "GetMemoryMap(MapSize outside RAM)", FW_ID_BS(BS_GET_MEMORY_MAP), { H_OUT, H_GOOD2, H_GOOD2, 0, 0 } },
    { "GetMemoryMap(MapSize spanning the end)", FW_ID_BS(BS_GET_MEMORY_MAP), { H_END, H_GOOD2, H_GOOD2, 0, 0 } },
    { "GetMemoryMap(MapSize NULL)", FW_ID_BS(BS_GET_MEMORY_MAP), { 0, H_GOOD2, H_GOOD2, 0, 0 } },
    { "GetMemoryMap(Map spanning the end)", FW_ID_BS(BS_GET_MEMORY_MAP), { H_GOOD, H_END, H_GOOD2, 0, 0 } },
    { "GetMemoryMap(Map NULL)", FW_ID_BS(BS_GET_MEMORY_MAP), { H_GOOD, 0, H_GOOD2, 0, 0 } },
    { "GetMemoryMap(DescriptorSize outside)", FW_ID_BS(BS_GET_MEMORY_MAP), { H_GOOD, H_GOOD2, H_GOOD2, H_OUT, 0 } },
    { "AllocatePages(Memory NULL)", FW_ID_BS(BS_ALLOCATE_PAGES), { 0, EFI_LOADER_DATA, 1, 0 } },
    { "AllocatePages(Memory outside)", FW_ID_BS(BS_ALLOCATE_PAGES), { 0, EFI_LOADER_DATA, 1, H_OUT } },
    { "AllocatePages(Memory spanning)", FW_ID_BS(BS_ALLOCATE_PAGES), { 0, EFI_LOADER_DATA, 1, H_END } },
    { "AllocatePages(2^40 pages)", FW_ID_BS(BS_ALLOCATE_PAGES), { 0, EFI_LOADER_DATA, H_HUGE, H_GOOD } },
    { "AllocatePool(2^40 bytes)", FW_ID_BS(BS_ALLOCATE_POOL), { EFI_LOADER_DATA, H_HUGE, H_GOOD } },
    { "AllocatePool(all ones)", FW_ID_BS(BS_ALLOCATE_POOL), { EFI_LOADER_DATA, UINT64_MAX, H_GOOD } },
    { "AllocatePool(Buffer outside)", FW_ID_BS(BS_ALLOCATE_POOL), { EFI_LOADER_DATA, 16, H_OUT } },
    { "AllocatePool(conventional)", FW_ID_BS(BS_ALLOCATE_POOL), { EFI_CONVENTIONAL_MEMORY, 16, H_GOOD } },
    { "FreePages(outside)", FW_ID_BS(BS_FREE_PAGES), { H_OUT & ~0xfffULL, 1 } },
    { "FreePages(all pages)", FW_ID_BS(BS_FREE_PAGES), { 0, UINT64_MAX } },
    { "FreePool(not a pool)", FW_ID_BS(BS_FREE_POOL), { 0x12345 } },
    { "HandleProtocol(Protocol outside)", FW_ID_BS(BS_HANDLE_PROTOCOL), { H_IMAGE, H_OUT, H_GOOD } },
    { "HandleProtocol(Interface spanning)", FW_ID_BS(BS_HANDLE_PROTOCOL), { H_IMAGE, H_GUID, H_END } },
    { "LocateProtocol(Protocol spanning)", FW_ID_BS(BS_LOCATE_PROTOCOL), { H_END, 0, H_GOOD } },
    { "LocateProtocol(Interface NULL)", FW_ID_BS(BS_LOCATE_PROTOCOL), { H_GUID, 0, 0 } },
    { "LocateHandle(Protocol NULL)", FW_ID_BS(BS_LOCATE_HANDLE), { EFI_BY_PROTOCOL, 0, 0, H_GOOD, H_GOOD2 } },
    { "LocateHandle(BufferSize outside)", FW_ID_BS(BS_LOCATE_HANDLE), { EFI_ALL_HANDLES, 0, 0, H_OUT, H_GOOD2 } },
    { "LocateHandle(Buffer spanning)", FW_ID_BS(BS_LOCATE_HANDLE), { EFI_ALL_HANDLES, 0, 0, H_GOOD, H_END } },
    { "LocateHandle(SearchType 7)", FW_ID_BS(BS_LOCATE_HANDLE), { 7, 0, 0, H_GOOD, H_GOOD2 } },
    { "LocateHandleBuffer(NoHandles outside)", FW_ID_BS(BS_LOCATE_HANDLE_BUFFER), { EFI_ALL_HANDLES, 0, 0, H_OUT, H_GOOD } },
    { "LocateDevicePath(DevicePath outside)", FW_ID_BS(BS_LOCATE_DEVICE_PATH), { H_GUID, H_OUT, H_GOOD } },
    { "LocateDevicePath(path at the end)", FW_ID_BS(BS_LOCATE_DEVICE_PATH), { H_GUID, H_DPP, H_GOOD } },
    { "InstallConfigurationTable(Guid NULL)", FW_ID_BS(BS_INSTALL_CONFIGURATION_TABLE), { 0, 0x600000 } },
    { "InstallConfigurationTable(Guid outside)", FW_ID_BS(BS_INSTALL_CONFIGURATION_TABLE), { H_OUT, 0x600000 } },
    { "CalculateCrc32(Data spanning)", FW_ID_BS(BS_CALCULATE_CRC32), { H_END, 16, H_GOOD } },
    { "CalculateCrc32(2^40 bytes)", FW_ID_BS(BS_CALCULATE_CRC32), { H_GOOD, H_HUGE, H_GOOD2 } },
    { "CalculateCrc32(Crc32 outside)", FW_ID_BS(BS_CALCULATE_CRC32), { H_GOOD, 16, H_OUT } },
    { "CalculateCrc32(Data NULL)", FW_ID_BS(BS_CALCULATE_CRC32), { 0, 16, H_GOOD } },
    { "CopyMem(Destination outside)", FW_ID_BS(BS_COPY_MEM), { H_OUT, H_GOOD, 16 } },
    { "CopyMem(Source spanning)", FW_ID_BS(BS_COPY_MEM), { H_GOOD, H_END, 16 } },
    { "CopyMem(Destination spanning)", FW_ID_BS(BS_COPY_MEM), { H_END, H_GOOD, 8 } },
    { "CopyMem(2^40 bytes)", FW_ID_BS(BS_COPY_MEM), { H_GOOD, H_GOOD2, H_HUGE } },
    { "SetMem(spanning)", FW_ID_BS(BS_SET_MEM), { H_END, 16, 0 } },
    { "SetMem(all ones bytes)", FW_ID_BS(BS_SET_MEM), { H_GOOD, UINT64_MAX, 0 } },
    { "GetNextMonotonicCount(outside)", FW_ID_BS(BS_GET_NEXT_MONOTONIC_COUNT), { H_OUT } },
    { "OutputString(NULL)", FW_ID_CONOUT(CONOUT_OUTPUT_STRING), { 0, 0 } },
    { "OutputString(outside)", FW_ID_CONOUT(CONOUT_OUTPUT_STRING), { 0, H_OUT } },
    { "QueryMode(Columns outside)", FW_ID_CONOUT(CONOUT_QUERY_MODE), { 0, 0, H_OUT, H_GOOD } },
    { "GetVariable(Name outside)", FW_ID_RT(RT_GET_VARIABLE), { H_OUT, H_GUID, 0, H_GOOD, H_GOOD2 } },
    { "GetVariable(Guid NULL)", FW_ID_RT(RT_GET_VARIABLE), { H_NAME, 0, 0, H_GOOD, H_GOOD2 } },
    { "GetVariable(DataSize outside)", FW_ID_RT(RT_GET_VARIABLE), { H_NAME, H_GUID, 0, H_OUT, H_GOOD2 } },
    { "SetVariable(Data spanning)", FW_ID_RT(RT_SET_VARIABLE), { H_NAME, H_GUID, ATTR_BS, 16, H_END } },
    { "SetVariable(2^40 bytes)", FW_ID_RT(RT_SET_VARIABLE), { H_NAME, H_GUID, ATTR_BS, H_HUGE, H_GOOD } },
    { "GetNextVariableName(Name outside)", FW_ID_RT(RT_GET_NEXT_VARIABLE_NAME), { H_GOOD, H_OUT, H_GUID } },
    { "GetTime(spanning)", FW_ID_RT(RT_GET_TIME), { H_END, 0 } },
    { "QueryVariableInfo(outside)", FW_ID_RT(RT_QUERY_VARIABLE_INFO), { ATTR_BS, H_OUT, H_GOOD, H_GOOD2 } },
    { "GetNextHighMonotonicCount(NULL)", FW_ID_RT(RT_GET_NEXT_HIGH_MONOTONIC_COUNT), { 0 } },
    { "SetVirtualAddressMap(before EBS)", FW_ID_RT(RT_SET_VIRTUAL_ADDRESS_MAP), { H_HUGE, 48, 1, H_OUT } },
};

static bool is_error(efi_status_t s) { return s >> 63; }

START_TEST(hostile_arguments_give_errors_and_change_nothing)
{
    const efi_guid_t g = GUID_TEST;
    memcpy(hp(H_GUID), &g, sizeof(g));
    const uint16_t foo[] = { 'F', 'o', 'o', 0 };
    memcpy(hp(H_NAME), foo, sizeof(foo));
    wr64(H_DPP, RAM_SIZE - 2);
    ck_assert_uint_eq(set_var("Foo", GUID_TEST, ATTR_BS, "bar", 3), EFI_SUCCESS);
    uint64_t key = fw.map.key, tables = systab()->number_of_table_entries;
    for (unsigned i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
        const struct hostile *h = &hostile[i];
        uint64_t a[6];
        for (unsigned j = 0; j < 6; j++)
            a[j] = h->a[j] == H_IMAGE ? fw.image_handle : h->a[j];
        wr64(H_GOOD, 0x10000);
        wr64(H_GOOD2, 0);
        efi_status_t s = call_args(h->id, a, 6);
        ck_assert_msg(is_error(s), "%s returned %s", h->what, efi_status_name(s));
        ck_assert_msg(fw.map.key == key, "%s changed the memory map", h->what);
        ck_assert_msg(systab()->number_of_table_entries == tables, "%s changed the configuration tables", h->what);
        ck_assert_msg(fw.stop == FW_RUN, "%s stopped the VM", h->what);
    }
    ck_assert_str_eq(console_text(), "");
}
END_TEST

START_TEST(unreadable_stack_arguments_give_invalid_parameter)
{
    uint64_t size_p = put_u64(0);
    uint64_t rsps[] = { RAM_SIZE - 0x28, RAM_SIZE - 0x2c, RAM_SIZE + 0x1000, 0x0000800000000000ULL };
    for (unsigned i = 0; i < sizeof(rsps) / sizeof(rsps[0]); i++) {
        struct fw_call c = { .rcx = size_p, .rdx = 0, .r8 = 0, .r9 = 0, .rsp = rsps[i], .view = cur_view };
        ck_assert_uint_eq(firmware_call(&fw, BS(GET_MEMORY_MAP), &c), EFI_INVALID_PARAMETER);
        ck_assert_uint_eq(rd64(size_p), 0);
    }
    ck_assert_ptr_nonnull(strstr(log_text(), "stack argument 5"));
}
END_TEST

/* A call no service takes is EFI_UNSUPPORTED, and said so, whatever its
 * stack holds: here a boot service after ExitBootServices, its fifth
 * argument past the end of RAM. */
START_TEST(unservable_calls_are_unsupported_on_any_stack)
{
    exit_boot_services();
    struct fw_call c = { .rsp = RAM_SIZE - 0x28, .view = cur_view };
    ck_assert_uint_eq(firmware_call(&fw, BS(OPEN_PROTOCOL), &c), EFI_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(log_text(), "OpenProtocol called after ExitBootServices"));
}
END_TEST

/* ---- unknown and unimplemented services, the log --------------------------------------- */

START_TEST(unknown_service_ids_are_unsupported)
{
    const unsigned ids[] = { 0, FW_ID_BS(EFI_BOOT_SERVICES_COUNT), FW_ID_RT(0) - 1, FW_ID_RT(EFI_RUNTIME_SERVICES_COUNT),
                             FW_ID_CONOUT(CONOUT_COUNT), FW_ID_CONIN(CONIN_COUNT), 200, FW_ID_EXCEPTION(14), FW_ID_IMAGE_RETURN,
                             FW_MAX_THUNKS - 1, FW_MAX_THUNKS, 100000, 0xffffffffu };
    for (unsigned i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
        ck_assert_uint_eq(CALL(ids[i], 1, 2, 3, 4), EFI_UNSUPPORTED);
        ck_assert_ptr_null(firmware_service_name(ids[i]));
    }
    ck_assert_ptr_nonnull(strstr(log_text(), "unknown service ID 4294967295"));
}
END_TEST

START_TEST(unimplemented_services_are_unsupported_and_reported_once)
{
    ck_assert_uint_eq(CALL(BS(REGISTER_PROTOCOL_NOTIFY), put_guid(GUID_TEST), 0, scratch(8)), EFI_UNSUPPORTED);
    ck_assert_uint_eq(CALL(BS(REGISTER_PROTOCOL_NOTIFY), put_guid(GUID_TEST), 0, scratch(8)), EFI_UNSUPPORTED);
    const char *log = log_text(), *first = strstr(log, "RegisterProtocolNotify");
    ck_assert_ptr_nonnull(first);
    ck_assert_ptr_null(strstr(first + 1, "RegisterProtocolNotify"));
    ck_assert_uint_eq(fw.calls_by_id[BS(REGISTER_PROTOCOL_NOTIFY)], 2);
}
END_TEST

/* A guest looping on calls the firmware logs cannot fill the host's disk. */
START_TEST(firmware_log_stops_after_its_limit)
{
    for (unsigned i = 0; i < FW_LOG_LIMIT + 500; i++)
        ck_assert_uint_eq(CALL(FW_MAX_THUNKS - 1, 0), EFI_UNSUPPORTED);
    fflush(log_file);
    unsigned lines = 0;
    for (size_t i = 0; i < log_len; i++)
        lines += log_buf[i] == '\n';
    ck_assert_uint_eq(lines, FW_LOG_LIMIT + 1);
    ck_assert_ptr_nonnull(strstr(log_buf, "no more are printed"));
}
END_TEST

/* ---- the call trace -------------------------------------------------------------------- */

START_TEST(trace_writes_one_json_line_per_call)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *t = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(t);
    fw.cfg.trace = t;
    fw.cfg.trace_limit = 1 << 20;
    uint64_t size_p = put_u64(0);
    efi_status_t s1 = CALL(BS(GET_MEMORY_MAP), size_p, 0, 0, 0, 0);
    efi_status_t s2 = CALL(77777, 0);
    fw.cfg.trace = NULL;
    fclose(t);
    bool one = buf && strstr(buf, "\"call\":\"GetMemoryMap\"") && strstr(buf, "\"status\":\"EFI_BUFFER_TOO_SMALL\"");
    bool two = buf && strstr(buf, "\"call\":\"unknown\"") && strstr(buf, "\"id\":77777");
    unsigned lines = 0;
    for (size_t i = 0; buf && i < len; i++)
        lines += buf[i] == '\n';
    bool starts = buf && buf[0] == '{';
    free(buf);
    ck_assert_uint_eq(s1, EFI_BUFFER_TOO_SMALL);
    ck_assert_uint_eq(s2, EFI_UNSUPPORTED);
    ck_assert(one);
    ck_assert(two);
    ck_assert(starts);
    ck_assert_uint_eq(lines, 2);
}
END_TEST

/* The "decoded" fields come from the service's row, its decoder; a call
 * without one, or whose fields are all unreadable, has none. */
START_TEST(trace_decodes_arguments_through_the_services_row)
{
    trace_to_memory();
    uint64_t iface_p = put_u64(0), out = scratch(64);
    efi_status_t s = CALL(BS(LOCATE_PROTOCOL), put_guid(GUID_RNG_PROTOCOL), 0, iface_p);
    CALL(BS(LOCATE_HANDLE_BUFFER), EFI_ALL_HANDLES, 0, 0, out, out + 8);
    CALL(BS(FREE_PAGES), 0x5000, 3);
    CALL(FW_ID_RNG(RNG_GET_RNG), fw.rng, 0, 16, out);
    CALL(BS(STALL), 1);
    CALL(BS(HANDLE_PROTOCOL), fw.image_handle, 0, 0);
    char want[1024], got[1024];
    decoded_tails(got, sizeof(got));
    snprintf(want, sizeof(want),
             ",\"decoded\":{\"protocol\":\"EFI_RNG_PROTOCOL\",\"interface\":\"0x%llx\"}}\n"
             ",\"decoded\":{\"search\":\"AllHandles\"}}\n"
             ",\"decoded\":{\"address\":\"0x5000\",\"pages\":3}}\n"
             ",\"decoded\":{\"length\":16}}\n"
             "\n\n", (unsigned long long)fw.rng);
    ck_assert_uint_eq(s, EFI_SUCCESS);
    ck_assert_str_eq(got, want);
}
END_TEST

START_TEST(trace_stops_at_its_limit_and_says_so_once)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *t = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(t);
    fw.cfg.trace = t;
    fw.cfg.trace_limit = 400;
    uint64_t c_p = put_u64(0);
    for (int i = 0; i < 20; i++)
        CALL(BS(GET_NEXT_MONOTONIC_COUNT), c_p);
    fw.cfg.trace = NULL;
    fclose(t);
    size_t traced = len;
    free(buf);
    ck_assert_uint_gt(traced, 0);
    ck_assert_uint_le(traced, 400);
    const char *log = log_text(), *first = strstr(log, "trace limit");
    ck_assert_ptr_nonnull(first);
    ck_assert_ptr_null(strstr(first + 1, "trace limit"));
}
END_TEST

Suite *fw_dispatch_suite(void)
{
    Suite *s = suite_create("fw-dispatch");
    fw_add_tcase(s, "hostile", (const TTest *const[]){
        hostile_arguments_give_errors_and_change_nothing, unreadable_stack_arguments_give_invalid_parameter,
        unservable_calls_are_unsupported_on_any_stack, NULL });
    fw_add_tcase(s, "ids-and-log", (const TTest *const[]){
        test_service_constants_name_the_right_services, unknown_service_ids_are_unsupported,
        unimplemented_services_are_unsupported_and_reported_once, firmware_log_stops_after_its_limit, NULL });
    fw_add_tcase(s, "trace", (const TTest *const[]){
        trace_writes_one_json_line_per_call, trace_decodes_arguments_through_the_services_row,
        trace_stops_at_its_limit_and_says_so_once, NULL });
    return s;
}
