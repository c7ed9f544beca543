/* Protocol handler services (UEFI 2.10 section 7.3): the lookups
 * (LocateProtocol, LocateHandle(Buffer), LocateDevicePath, HandleProtocol,
 * OpenProtocol), the handle database the guest installs protocols into,
 * and the one line naming a protocol nobody serves. */
#include "fw_fixture.h"

/* ---- lookups --------------------------------------------------------------------------- */

START_TEST(locate_protocol_not_found_sets_interface_to_null)
{
    efi_guid_t missing[] = { GUID_TEST, GUID_GOP, GUID_LOAD_FILE2_PROTOCOL };
    for (unsigned i = 0; i < 3; i++) {
        uint64_t iface_p = put_u64(0xdeadbeefdeadbeefULL);
        ck_assert_uint_eq(CALL(BS(LOCATE_PROTOCOL), put_guid(missing[i]), 0, iface_p), EFI_NOT_FOUND);
        ck_assert_uint_eq(rd64(iface_p), 0);
    }
}
END_TEST

START_TEST(locate_protocol_finds_the_console)
{
    uint64_t iface_p = put_u64(0);
    ck_assert_uint_eq(CALL(BS(LOCATE_PROTOCOL), put_guid(GUID_SIMPLE_TEXT_OUTPUT), 0, iface_p), EFI_SUCCESS);
    ck_assert_uint_eq(rd64(iface_p), fw.con_out);
    ck_assert_uint_eq(CALL(BS(LOCATE_PROTOCOL), put_guid(GUID_LOADED_IMAGE), 0, iface_p), EFI_SUCCESS);
    ck_assert_uint_eq(rd64(iface_p), fw.loaded_image);
}
END_TEST

START_TEST(locate_handle_for_gop_is_not_found)
{
    uint64_t size_p = put_u64(64), buf = scratch(64);
    ck_assert_uint_eq(CALL(BS(LOCATE_HANDLE), EFI_BY_PROTOCOL, put_guid(GUID_GOP), 0, size_p, buf), EFI_NOT_FOUND);
    ck_assert_uint_eq(rd64(buf), 0);
}
END_TEST

START_TEST(locate_handle_reports_the_size_then_the_handles)
{
    uint64_t size_p = put_u64(0), buf = scratch(64), g = put_guid(GUID_LOADED_IMAGE);
    ck_assert_uint_eq(CALL(BS(LOCATE_HANDLE), EFI_BY_PROTOCOL, g, 0, size_p, buf), EFI_BUFFER_TOO_SMALL);
    ck_assert_uint_eq(rd64(size_p), 8);
    ck_assert_uint_eq(CALL(BS(LOCATE_HANDLE), EFI_BY_PROTOCOL, g, 0, size_p, buf), EFI_SUCCESS);
    ck_assert_uint_eq(rd64(buf), fw.image_handle);
    /* All handles: each handle of the database once, however many protocols it has. */
    wr64(size_p, 64);
    ck_assert_uint_eq(CALL(BS(LOCATE_HANDLE), EFI_ALL_HANDLES, 0, 0, size_p, buf), EFI_SUCCESS);
    unsigned n = (unsigned)(rd64(size_p) / 8), distinct = 0;
    for (unsigned i = 0; i < fw.nprotocols; i++) {
        bool seen = false;
        for (unsigned j = 0; j < i; j++)
            seen |= fw.protocols[j].handle == fw.protocols[i].handle;
        distinct += !seen;
    }
    ck_assert_uint_eq(n, distinct);
    ck_assert_uint_lt(n, fw.nprotocols);   /* the image handle has two protocols */
    bool image = false, conout = false, conin = false;
    for (unsigned i = 0; i < n; i++) {
        uint64_t h = rd64(buf + 8 * i);
        image |= h == fw.image_handle;
        conout |= h == fw.con_out_handle;
        conin |= h == fw.con_in_handle;
        for (unsigned j = 0; j < i; j++)
            ck_assert_uint_ne(rd64(buf + 8 * j), h);
    }
    ck_assert(image && conout && conin);
}
END_TEST

START_TEST(locate_handle_buffer_returns_a_pool_of_handles)
{
    uint64_t n_p = put_u64(0), buf_p = put_u64(0);
    ck_assert_uint_eq(CALL(BS(LOCATE_HANDLE_BUFFER), EFI_BY_PROTOCOL, put_guid(GUID_SIMPLE_TEXT_OUTPUT), 0, n_p, buf_p),
                      EFI_SUCCESS);
    ck_assert_uint_eq(rd64(n_p), 1);
    ck_assert_uint_eq(rd64(rd64(buf_p)), fw.con_out_handle);
    ck_assert_int_eq(memmap_type_at(&fw.map, rd64(buf_p)), EFI_BOOT_SERVICES_DATA);
    ck_assert_uint_eq(CALL(BS(FREE_POOL), rd64(buf_p)), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(BS(LOCATE_HANDLE_BUFFER), EFI_BY_PROTOCOL, put_guid(GUID_GOP), 0, n_p, buf_p),
                      EFI_NOT_FOUND);
}
END_TEST

/* The stub's initrd probe: a vendor media node (LINUX_EFI_INITRD_MEDIA) then the end node. */
START_TEST(locate_device_path_for_the_initrd_is_exactly_not_found)
{
    uint8_t path[24] = { EFI_DEV_MEDIA, EFI_DEV_MEDIA_VENDOR, 20, 0 };
    efi_guid_t g = GUID_LINUX_INITRD_MEDIA;
    memcpy(path + 4, &g, 16);
    path[20] = EFI_DEV_END_PATH;
    path[21] = EFI_DEV_END_ENTIRE;
    path[22] = 4;
    uint64_t dp = put(path, sizeof(path)), dp_p = put_u64(dp), dev_p = put_u64(0x1111);
    ck_assert_uint_eq(CALL(BS(LOCATE_DEVICE_PATH), put_guid(GUID_LOAD_FILE2_PROTOCOL), dp_p, dev_p), EFI_NOT_FOUND);
    ck_assert_uint_eq(rd64(dp_p), dp);
    /* A device path with a zero-length node is malformed. */
    path[2] = 0;
    wr64(dp_p, put(path, sizeof(path)));
    ck_assert_uint_eq(CALL(BS(LOCATE_DEVICE_PATH), put_guid(GUID_LOAD_FILE2_PROTOCOL), dp_p, dev_p),
                      EFI_INVALID_PARAMETER);
}
END_TEST

START_TEST(handle_protocol_on_unknown_handles_and_protocols)
{
    uint64_t iface_p = put_u64(0x9999);
    ck_assert_uint_eq(CALL(BS(HANDLE_PROTOCOL), fw.image_handle, put_guid(GUID_GOP), iface_p), EFI_UNSUPPORTED);
    ck_assert_uint_eq(rd64(iface_p), 0);
    ck_assert_uint_eq(CALL(BS(HANDLE_PROTOCOL), 0x12345678, put_guid(GUID_LOADED_IMAGE), iface_p),
                      EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(HANDLE_PROTOCOL), fw.image_handle, put_guid(GUID_LOADED_IMAGE), 0),
                      EFI_INVALID_PARAMETER);
    /* OpenProtocol with TEST_PROTOCOL needs no Interface. */
    ck_assert_uint_eq(CALL(BS(OPEN_PROTOCOL), fw.con_out_handle, put_guid(GUID_SIMPLE_TEXT_OUTPUT), 0,
                           fw.image_handle, 0, 0x4),
                      EFI_SUCCESS);
}
END_TEST

/* CloseProtocol (UEFI 2.10 section 7.3.10): a NULL AgentHandle, or a
 * ControllerHandle that is no handle, is EFI_INVALID_PARAMETER. */
START_TEST(close_protocol_needs_an_agent_and_a_real_controller)
{
    uint64_t g = put_guid(GUID_LOADED_IMAGE);
    ck_assert_uint_eq(CALL(BS(CLOSE_PROTOCOL), fw.image_handle, g, fw.image_handle, 0), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(BS(CLOSE_PROTOCOL), fw.image_handle, g, fw.image_handle, fw.con_out_handle), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(BS(CLOSE_PROTOCOL), fw.image_handle, g, 0, 0), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(CLOSE_PROTOCOL), fw.image_handle, g, fw.image_handle, 0x4242), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(CLOSE_PROTOCOL), fw.image_handle, put_guid(GUID_GOP), fw.image_handle, 0),
                      EFI_NOT_FOUND);
}
END_TEST

/* OpenProtocol's Attributes (UEFI 2.10 section 7.3.9): one of the six
 * values the spec names, the handles each needs valid (as EDK2's
 * CoreOpenProtocol checks them); anything else is EFI_INVALID_PARAMETER
 * with *Interface not written. */
START_TEST(open_protocol_checks_its_attributes)
{
    uint64_t g = put_guid(GUID_LOADED_IMAGE), iface_p = put_u64(0x9999), img = fw.image_handle, con = fw.con_out_handle;
    static const uint64_t fine[][3] = {   /* attributes, agent, controller */
        { 0x1, 0, 0 }, { 0x2, 0, 0 }, { 0x4, 0, 0 }, { 0x8, 1, 2 }, { 0x10, 1, 2 }, { 0x20, 1, 0 }, { 0x30, 1, 2 },
        { 0xdead000000000002ULL, 0, 0 },   /* a UINT32: the stack slot's upper half is not the caller's */
    };
    for (unsigned i = 0; i < sizeof(fine) / sizeof(fine[0]); i++) {
        uint64_t agent = fine[i][1] ? img : 0, controller = fine[i][2] ? con : 0;
        ck_assert_uint_eq(CALL(BS(OPEN_PROTOCOL), img, g, iface_p, agent, controller, fine[i][0]), EFI_SUCCESS);
    }
    static const uint64_t bad[][3] = {
        { 0, 1, 2 }, { 0x3, 1, 2 }, { 0x40, 1, 2 }, { 0x100000000ULL, 1, 2 },   /* no such value */
        { 0x8, 0, 2 }, { 0x8, 1, 0 }, { 0x10, 1, 0 }, { 0x30, 0, 2 }, { 0x20, 0, 0 },   /* a handle missing */
        { 0x8, 1, 3 },   /* a child controller that is the handle itself */
    };
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        uint64_t agent = bad[i][1] ? img : 0;
        uint64_t controller = bad[i][2] == 3 ? img : bad[i][2] ? con : 0;
        wr64(iface_p, 0x9999);
        ck_assert_msg(CALL(BS(OPEN_PROTOCOL), img, g, iface_p, agent, controller, bad[i][0]) == EFI_INVALID_PARAMETER,
                      "attributes 0x%llx", (unsigned long long)bad[i][0]);
        ck_assert_uint_eq(rd64(iface_p), 0x9999);
    }
}
END_TEST

/* OpenProtocol to test (EFI_OPEN_PROTOCOL_TEST_PROTOCOL): "Interface is
 * optional for this attribute value, so it is ignored, and the caller
 * should only use the return status code" (UEFI 2.10 section 7.3.9): it is
 * neither checked nor written, whatever the status, and an injected
 * missing protocol leaves it alone too. */
START_TEST(open_protocol_to_test_ignores_interface)
{
    uint64_t iface_p = put_u64(0x9999), img = fw.image_handle, li = put_guid(GUID_LOADED_IMAGE);
    ck_assert_uint_eq(CALL(BS(OPEN_PROTOCOL), img, li, iface_p, img, 0, 0x4), EFI_SUCCESS);
    ck_assert_uint_eq(rd64(iface_p), 0x9999);
    ck_assert_uint_eq(CALL(BS(OPEN_PROTOCOL), img, put_guid(GUID_GOP), iface_p, img, 0, 0x4), EFI_UNSUPPORTED);
    ck_assert_uint_eq(rd64(iface_p), 0x9999);
    ck_assert_uint_eq(CALL(BS(OPEN_PROTOCOL), 0x4242, li, iface_p, img, 0, 0x4), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(rd64(iface_p), 0x9999);
    ck_assert_uint_eq(CALL(BS(OPEN_PROTOCOL), img, li, RAM_SIZE - 4, img, 0, 0x4), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(BS(OPEN_PROTOCOL), img, li, RAM_SIZE + 0x1000, img, 0, 0x4), EFI_SUCCESS);
    char err[128];
    ck_assert_msg(!inject_parse(&fw.cfg.inject, "no-loaded-image", err, sizeof(err)), "%s", err);
    ck_assert_uint_eq(CALL(BS(OPEN_PROTOCOL), img, li, iface_p, img, 0, 0x4), EFI_UNSUPPORTED);
    ck_assert_uint_eq(rd64(iface_p), 0x9999);
    ck_assert_uint_eq(CALL(BS(OPEN_PROTOCOL), img, li, iface_p, img, 0, 0x2), EFI_UNSUPPORTED);
    ck_assert_uint_eq(rd64(iface_p), 0);
}
END_TEST

/* LocateHandle(ByRegisterNotify) takes a SearchKey RegisterProtocolNotify
 * returned, and LocateProtocol a Registration; handover serves no
 * RegisterProtocolNotify, so none is one: EFI_INVALID_PARAMETER, as UEFI
 * 2.10 section 7.3 (LocateHandle) names it for a NULL SearchKey and as
 * U-Boot answers any key that is no registration; never the first
 * instance, as if no key had been given, and never EFI_UNSUPPORTED, which
 * neither service has. */
START_TEST(register_notify_searches_are_refused)
{
    uint64_t size_p = put_u64(64), buf = scratch(64), n_p = put_u64(7), buf_p = put_u64(0x5555);
    uint64_t key = scratch(64), g = put_guid(GUID_LOADED_IMAGE);
    ck_assert_uint_eq(CALL(BS(LOCATE_HANDLE), EFI_BY_REGISTER_NOTIFY, g, 0, size_p, buf), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(LOCATE_HANDLE), EFI_BY_REGISTER_NOTIFY, g, key, size_p, buf), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(rd64(size_p), 64);
    ck_assert_uint_eq(CALL(BS(LOCATE_HANDLE_BUFFER), EFI_BY_REGISTER_NOTIFY, g, 0, n_p, buf_p),
                      EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(LOCATE_HANDLE_BUFFER), EFI_BY_REGISTER_NOTIFY, g, key, n_p, buf_p),
                      EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(rd64(buf_p), 0x5555);
    uint64_t iface_p = put_u64(0x9999);
    ck_assert_uint_eq(CALL(BS(LOCATE_PROTOCOL), g, key, iface_p), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(rd64(iface_p), 0);
    ck_assert_uint_eq(CALL(BS(LOCATE_PROTOCOL), g, 0, iface_p), EFI_SUCCESS);
    ck_assert_uint_eq(rd64(iface_p), fw.loaded_image);
}
END_TEST

/* Without --initrd no LoadFile2 is installed, and its thunk, called
 * anyway, serves nothing: not an empty file for This == NULL. */
START_TEST(loadfile2_without_an_initrd_serves_nothing)
{
    uint64_t size_p = put_u64(64), buf = scratch(64);
    ck_assert_uint_eq(fw.initrd_lf2, 0);
    ck_assert_uint_eq(CALL(FW_ID_LOADFILE2, 0, put_vendor_media_path(GUID_LINUX_INITRD_MEDIA), 0, size_p, buf),
                      EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(rd64(size_p), 64);
}
END_TEST

/* An End Entire device path node alone. */
static uint64_t put_end_path(void)
{
    return put((const uint8_t[]){ EFI_DEV_END_PATH, EFI_DEV_END_ENTIRE, 4, 0 }, 4);
}

/* BootPolicy is a BOOLEAN: only its low byte is the caller's (the rest
 * of RCX... R8, or of an IA-32 stack slot, is whatever was there); TRUE is
 * EFI_UNSUPPORTED for LoadFile2 (UEFI 2.10 section 13.2). */
START_TEST(loadfile2_reads_boot_policy_as_a_boolean)
{
    static const uint8_t initrd[100] = { 1, 2, 3 };
    fw.cfg.initrd = initrd;   /* as firmware_init's install_initrd leaves it with --initrd */
    fw.cfg.initrd_size = sizeof(initrd);
    fw.initrd_lf2 = FW_BASE + FW_INITRD_LF2_OFFSET;
    uint64_t dp = put_end_path(), size_p = put_u64(0);
    ck_assert_uint_eq(CALL(FW_ID_LOADFILE2, fw.initrd_lf2, dp, 0xffffff00ULL, size_p, 0), EFI_BUFFER_TOO_SMALL);
    ck_assert_uint_eq(rd64(size_p), sizeof(initrd));
    uint64_t buf = scratch(sizeof(initrd));
    ck_assert_uint_eq(CALL(FW_ID_LOADFILE2, fw.initrd_lf2, dp, 0xdead000000000000ULL, size_p, buf), EFI_SUCCESS);
    ck_assert_mem_eq(hp(buf), initrd, sizeof(initrd));
    ck_assert_uint_eq(CALL(FW_ID_LOADFILE2, fw.initrd_lf2, dp, 1, size_p, buf), EFI_UNSUPPORTED);
}
END_TEST

/* FilePath is what LocateDevicePath left of the initrd's device path
 * (efi_load_initrd_dev_path in the stub's efi-stub-helper.c): its end
 * node, as the initrd is the whole device. A path naming anything in the
 * device is not found, and no path is invalid (UEFI 2.10 section 13.2);
 * neither writes *BufferSize nor the buffer. */
START_TEST(loadfile2_serves_only_the_end_of_the_initrd_path)
{
    static const uint8_t initrd[100] = { 1, 2, 3 };
    fw.cfg.initrd = initrd;
    fw.cfg.initrd_size = sizeof(initrd);
    fw.initrd_lf2 = FW_BASE + FW_INITRD_LF2_OFFSET;
    uint64_t size_p = put_u64(sizeof(initrd)), buf = scratch(sizeof(initrd));
    uint64_t whole = put_vendor_media_path(GUID_LINUX_INITRD_MEDIA);
    ck_assert_uint_eq(CALL(FW_ID_LOADFILE2, fw.initrd_lf2, whole, 0, size_p, buf), EFI_NOT_FOUND);
    ck_assert_uint_eq(CALL(FW_ID_LOADFILE2, fw.initrd_lf2, 0, 0, size_p, buf), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(FW_ID_LOADFILE2, fw.initrd_lf2, RAM_SIZE - 2, 0, size_p, buf), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(rd64(size_p), sizeof(initrd));
    ck_assert_uint_eq(*(const uint8_t *)hp(buf), 0);
    ck_assert_uint_eq(CALL(FW_ID_LOADFILE2, fw.initrd_lf2, put_end_path(), 0, size_p, buf), EFI_SUCCESS);
    ck_assert_mem_eq(hp(buf), initrd, sizeof(initrd));
}
END_TEST

/* How often the log holds needle. */
static unsigned log_count(const char *needle)
{
    unsigned n = 0;
    for (const char *p = log_text(); (p = strstr(p, needle)); p++)
        n++;
    return n;
}

/* A protocol no handle has, asked for through any lookup, and a service
 * slot not served, are each one line naming them. */
START_TEST(unserved_protocols_and_services_name_themselves_once)
{
    uint64_t iface_p = scratch(8), n_p = scratch(8), buf_p = scratch(8);
    ck_assert_uint_eq(CALL(BS(HANDLE_PROTOCOL), fw.image_handle, put_guid(GUID_SIMPLE_FILE_SYSTEM), iface_p),
                      EFI_UNSUPPORTED);
    ck_assert_uint_eq(CALL(BS(LOCATE_PROTOCOL), put_guid(GUID_SIMPLE_FILE_SYSTEM), 0, iface_p), EFI_NOT_FOUND);
    ck_assert_uint_eq(CALL(BS(OPEN_PROTOCOL), fw.image_handle, put_guid(GUID_SIMPLE_FILE_SYSTEM), iface_p,
                           fw.image_handle, 0, 0x2), EFI_UNSUPPORTED);
    ck_assert_uint_eq(log_count("the guest asked for EFI_SIMPLE_FILE_SYSTEM_PROTOCOL, which handover does not serve: "
                                "HandleProtocol returns EFI_UNSUPPORTED"), 1);
    ck_assert_uint_eq(log_count("EFI_SIMPLE_FILE_SYSTEM_PROTOCOL"), 1);
    ck_assert_uint_eq(CALL(BS(LOCATE_HANDLE_BUFFER), EFI_BY_PROTOCOL, put_guid(GUID_GOP), 0, n_p, buf_p),
                      EFI_NOT_FOUND);
    ck_assert_uint_eq(log_count("the guest asked for EFI_GRAPHICS_OUTPUT_PROTOCOL, which handover does not serve: "
                                "LocateHandleBuffer returns EFI_NOT_FOUND"), 1);
    ck_assert_uint_eq(CALL(BS(LOCATE_PROTOCOL), put_guid(GUID_TEST), 0, iface_p), EFI_NOT_FOUND);
    ck_assert_uint_eq(log_count("the guest asked for protocol 3a1b2c4d-1111-2222-3344-5566778899aa, which handover "
                                "does not serve"), 1);
    /* Served, only not on that handle: nothing is missing. */
    ck_assert_uint_eq(CALL(BS(HANDLE_PROTOCOL), fw.con_out_handle, put_guid(GUID_LOADED_IMAGE), iface_p),
                      EFI_UNSUPPORTED);
    ck_assert_uint_eq(log_count("EFI_LOADED_IMAGE_PROTOCOL"), 0);
    ck_assert_uint_eq(CALL(BS(REGISTER_PROTOCOL_NOTIFY), put_guid(GUID_TEST), 0, scratch(8)), EFI_UNSUPPORTED);
    ck_assert_uint_eq(log_count("the guest asked for RegisterProtocolNotify, which handover does not serve: "
                                "EFI_UNSUPPORTED"), 1);
}
END_TEST

/* ---- the handle database: guest-installed protocols ------------------------------------ */

START_TEST(install_protocol_interface_makes_a_handle_that_lookups_see)
{
    uint64_t h_p = put_u64(0), g = put_guid(GUID_TEST);
    efi_status_t s;
    ck_assert_uint_eq(CALL(BS(INSTALL_PROTOCOL_INTERFACE), h_p, g, EFI_NATIVE_INTERFACE, 0x1234), EFI_SUCCESS);
    uint64_t h = rd64(h_p);
    ck_assert_uint_ne(h, 0);
    ck_assert_uint_eq(interface_of(h, GUID_TEST, &s), 0x1234);
    ck_assert_uint_eq(s, EFI_SUCCESS);
    /* Once per handle; only native interfaces. */
    ck_assert_uint_eq(CALL(BS(INSTALL_PROTOCOL_INTERFACE), h_p, g, EFI_NATIVE_INTERFACE, 0x99), EFI_INVALID_PARAMETER);
    wr64(h_p, 0);
    ck_assert_uint_eq(CALL(BS(INSTALL_PROTOCOL_INTERFACE), h_p, put_guid(GUID_GOP), 1, 0x99), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(rd64(h_p), 0);
    /* A second protocol on the same handle. */
    wr64(h_p, h);
    ck_assert_uint_eq(CALL(BS(INSTALL_PROTOCOL_INTERFACE), h_p, put_guid(GUID_GOP), EFI_NATIVE_INTERFACE, 0x77),
                      EFI_SUCCESS);
    ck_assert_uint_eq(rd64(h_p), h);
    uint64_t iface_p = put_u64(0), size_p = put_u64(64), buf = scratch(64);
    ck_assert_uint_eq(CALL(BS(LOCATE_PROTOCOL), g, 0, iface_p), EFI_SUCCESS);
    ck_assert_uint_eq(rd64(iface_p), 0x1234);
    ck_assert_uint_eq(CALL(BS(LOCATE_HANDLE), EFI_BY_PROTOCOL, g, 0, size_p, buf), EFI_SUCCESS);
    ck_assert_uint_eq(rd64(size_p), 8);
    ck_assert_uint_eq(rd64(buf), h);
    ck_assert_uint_eq(CALL(BS(OPEN_PROTOCOL), h, put_guid(GUID_GOP), iface_p, fw.image_handle, 0, 1), EFI_SUCCESS);
    ck_assert_uint_eq(rd64(iface_p), 0x77);
    /* ProtocolsPerHandle: a pool array of pointers to the GUIDs, in order. */
    uint64_t list_p = put_u64(0), count_p = put_u64(0);
    ck_assert_uint_eq(CALL(BS(PROTOCOLS_PER_HANDLE), h, list_p, count_p), EFI_SUCCESS);
    ck_assert_uint_eq(rd64(count_p), 2);
    efi_guid_t want[2] = { GUID_TEST, GUID_GOP };
    for (unsigned i = 0; i < 2; i++)
        ck_assert_mem_eq(hp(rd64(rd64(list_p) + 8 * i)), &want[i], sizeof(efi_guid_t));
    ck_assert_uint_eq(CALL(BS(FREE_POOL), rd64(list_p)), EFI_SUCCESS);
    /* A handle nobody made is refused. */
    wr64(h_p, 0x4242);
    ck_assert_uint_eq(CALL(BS(INSTALL_PROTOCOL_INTERFACE), h_p, put_guid(GUID_RNG_PROTOCOL), EFI_NATIVE_INTERFACE, 1),
                      EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(PROTOCOLS_PER_HANDLE), 0x4242, list_p, count_p), EFI_INVALID_PARAMETER);
}
END_TEST

START_TEST(reinstall_and_uninstall_need_the_installed_interface)
{
    uint64_t h_p = put_u64(0), g = put_guid(GUID_TEST);
    efi_status_t s;
    ck_assert_uint_eq(CALL(BS(INSTALL_PROTOCOL_INTERFACE), h_p, g, EFI_NATIVE_INTERFACE, 0x1234), EFI_SUCCESS);
    uint64_t h = rd64(h_p);
    ck_assert_uint_eq(CALL(BS(REINSTALL_PROTOCOL_INTERFACE), h, g, 0x1111, 0x5678), EFI_NOT_FOUND);
    ck_assert_uint_eq(CALL(BS(REINSTALL_PROTOCOL_INTERFACE), h, g, 0x1234, 0x5678), EFI_SUCCESS);
    ck_assert_uint_eq(interface_of(h, GUID_TEST, &s), 0x5678);
    ck_assert_uint_eq(CALL(BS(UNINSTALL_PROTOCOL_INTERFACE), h, g, 0x1234), EFI_NOT_FOUND);
    ck_assert_uint_eq(CALL(BS(UNINSTALL_PROTOCOL_INTERFACE), h, put_guid(GUID_GOP), 0x5678), EFI_NOT_FOUND);
    ck_assert_uint_eq(CALL(BS(UNINSTALL_PROTOCOL_INTERFACE), h, g, 0x5678), EFI_SUCCESS);
    /* Its last protocol gone, the handle is gone too. */
    interface_of(h, GUID_TEST, &s);
    ck_assert_uint_eq(s, EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(UNINSTALL_PROTOCOL_INTERFACE), h, g, 0x5678), EFI_INVALID_PARAMETER);
    uint64_t iface_p = put_u64(0);
    ck_assert_uint_eq(CALL(BS(LOCATE_PROTOCOL), g, 0, iface_p), EFI_NOT_FOUND);
    /* A new handle is a new value: the stale one stays invalid. */
    wr64(h_p, 0);
    ck_assert_uint_eq(CALL(BS(INSTALL_PROTOCOL_INTERFACE), h_p, g, EFI_NATIVE_INTERFACE, 0x1), EFI_SUCCESS);
    ck_assert_uint_ne(rd64(h_p), h);
}
END_TEST

/* systemd-stub's initrd_register (src/boot/efi/initrd.c), then the kernel
 * stub's efi_load_initrd_dev_path finding the stub's LoadFile2. */
START_TEST(install_multiple_registers_the_stub_initrd_where_the_kernel_finds_it)
{
    uint64_t dp = put_vendor_media_path(GUID_LINUX_INITRD_MEDIA), dp_p = put_u64(dp), dev_p = put_u64(0);
    uint64_t lf2 = put_u64(0xfeedf00d), g_lf2 = put_guid(GUID_LOAD_FILE2_PROTOCOL), g_dp = put_guid(GUID_DEVICE_PATH);
    ck_assert_uint_eq(CALL(BS(LOCATE_DEVICE_PATH), g_lf2, dp_p, dev_p), EFI_NOT_FOUND);
    uint64_t h_p = put_u64(0);
    unsigned before = fw.nprotocols;
    ck_assert_uint_eq(CALL(BS(INSTALL_MULTIPLE_PROTOCOL_INTERFACES), h_p, g_dp, dp, g_lf2, lf2, 0), EFI_SUCCESS);
    uint64_t h = rd64(h_p);
    ck_assert_uint_ne(h, 0);
    ck_assert_uint_eq(fw.nprotocols, before + 2);
    /* The kernel's own probe, with its own copy of the path. */
    uint64_t kdp = put_vendor_media_path(GUID_LINUX_INITRD_MEDIA), kdp_p = put_u64(kdp);
    ck_assert_uint_eq(CALL(BS(LOCATE_DEVICE_PATH), g_lf2, kdp_p, dev_p), EFI_SUCCESS);
    ck_assert_uint_eq(rd64(dev_p), h);
    ck_assert_uint_eq(rd64(kdp_p), kdp + 20);   /* the rest: the end node */
    /* A NULL DevicePath is refused, not read and moved on at guest
     * address 0 (which is RAM). */
    wr64(0, kdp);
    ck_assert_uint_eq(CALL(BS(LOCATE_DEVICE_PATH), g_lf2, 0, dev_p), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(rd64(0), kdp);
    wr64(0, 0);
    efi_status_t s;
    ck_assert_uint_eq(interface_of(h, GUID_LOAD_FILE2_PROTOCOL, &s), lf2);
    ck_assert_uint_eq(s, EFI_SUCCESS);
    /* The same device path again, anywhere: EFI_ALREADY_STARTED (UEFI 2.10 section 7.3.16). */
    uint64_t h2_p = put_u64(0);
    ck_assert_uint_eq(CALL(BS(INSTALL_MULTIPLE_PROTOCOL_INTERFACES), h2_p, g_dp, kdp, 0), EFI_ALREADY_STARTED);
    ck_assert_uint_eq(rd64(h2_p), 0);
    /* All or nothing: the second pair is already on the handle. */
    ck_assert_uint_eq(CALL(BS(INSTALL_MULTIPLE_PROTOCOL_INTERFACES), h_p, put_guid(GUID_TEST), 1, g_lf2, 2, 0),
                      EFI_INVALID_PARAMETER);
    interface_of(h, GUID_TEST, &s);
    ck_assert_uint_eq(s, EFI_UNSUPPORTED);
    /* ... and the same GUID twice in one list. */
    wr64(h2_p, 0);
    ck_assert_uint_eq(CALL(BS(INSTALL_MULTIPLE_PROTOCOL_INTERFACES), h2_p, put_guid(GUID_TEST), 1,
                           put_guid(GUID_TEST), 2, 0), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(fw.nprotocols, before + 2);
    /* Uninstall: a wrong interface fails them all; the right ones go. */
    ck_assert_uint_eq(CALL(BS(UNINSTALL_MULTIPLE_PROTOCOL_INTERFACES), h, g_dp, dp, g_lf2, 0x1, 0),
                      EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(fw.nprotocols, before + 2);
    ck_assert_uint_eq(CALL(BS(UNINSTALL_MULTIPLE_PROTOCOL_INTERFACES), h, g_lf2, lf2, g_dp, dp, 0), EFI_SUCCESS);
    ck_assert_uint_eq(fw.nprotocols, before);
    wr64(kdp_p, kdp);
    ck_assert_uint_eq(CALL(BS(LOCATE_DEVICE_PATH), g_lf2, kdp_p, dev_p), EFI_NOT_FOUND);
}
END_TEST

START_TEST(hostile_variadic_lists_are_refused_whole)
{
    uint64_t h_p = put_u64(0), g = put_guid(GUID_TEST);
    unsigned before = fw.nprotocols;
    /* No NULL GUID within the bound: every pair a valid one. */
    uint64_t a[2 + 4 * FW_MAX_PROTOCOLS];
    a[0] = h_p;
    for (unsigned i = 1; i < sizeof(a) / sizeof(a[0]); i++)
        a[i] = i % 2 ? g : i;
    ck_assert_uint_eq(call_args(BS(INSTALL_MULTIPLE_PROTOCOL_INTERFACES), a, sizeof(a) / sizeof(a[0])),
                      EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(call_args(BS(UNINSTALL_MULTIPLE_PROTOCOL_INTERFACES), a, sizeof(a) / sizeof(a[0])),
                      EFI_INVALID_PARAMETER);
    /* A list running off guest RAM: the stack ends after two pairs. */
    cur_rsp = RAM_SIZE - 0x30;
    ck_assert_uint_eq(call_args(BS(INSTALL_MULTIPLE_PROTOCOL_INTERFACES), a, 4), EFI_INVALID_PARAMETER);
    cur_rsp = STACK_TOP;
    /* Wild GUID, wild handle pointer, a device path running off RAM. */
    ck_assert_uint_eq(CALL(BS(INSTALL_MULTIPLE_PROTOCOL_INTERFACES), h_p, RAM_SIZE + 8, 1, 0), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(INSTALL_MULTIPLE_PROTOCOL_INTERFACES), RAM_SIZE - 4, g, 1, 0), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(INSTALL_MULTIPLE_PROTOCOL_INTERFACES), h_p, put_guid(GUID_DEVICE_PATH), RAM_SIZE - 2, 0),
                      EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(INSTALL_PROTOCOL_INTERFACE), 0, g, EFI_NATIVE_INTERFACE, 1), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(UNINSTALL_PROTOCOL_INTERFACE), fw.image_handle, RAM_SIZE, 1), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(PROTOCOLS_PER_HANDLE), fw.image_handle, RAM_SIZE, put_u64(0)), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(fw.nprotocols, before);
    ck_assert_uint_eq(rd64(h_p), 0);
}
END_TEST

/* The trace names the protocols a variadic list holds and no other: the
 * second GUID (R9) only when there is a first, since an empty list ends
 * at RDX and R9 is then no argument at all. */
START_TEST(variadic_traces_name_only_the_listed_protocols)
{
    uint64_t h_p = put_u64(0), g = put_guid(GUID_TEST), g2 = put_guid(GUID_GOP);
    trace_to_memory();
    ck_assert_uint_eq(CALL(BS(INSTALL_MULTIPLE_PROTOCOL_INTERFACES), h_p, 0, 0x1234, g2), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(BS(UNINSTALL_MULTIPLE_PROTOCOL_INTERFACES), fw.image_handle, 0, 0x1234, g2), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(BS(INSTALL_MULTIPLE_PROTOCOL_INTERFACES), h_p, g, 0x1234, 0), EFI_SUCCESS);
    char got[1024], want[1024];
    decoded_tails(got, sizeof(got));
    snprintf(want, sizeof(want),
             ",\"decoded\":{\"handle\":\"0x0\"}}\n"
             ",\"decoded\":{\"handle\":\"0x%llx\"}}\n"
             ",\"decoded\":{\"protocol\":\"3a1b2c4d-1111-2222-3344-5566778899aa\",\"handle\":\"0x%llx\"}}\n",
             (unsigned long long)fw.image_handle, (unsigned long long)rd64(h_p));
    ck_assert_str_eq(got, want);
}
END_TEST

/* A device path protocol installed with a NULL interface is a handle with
 * no path: nothing is read at guest address 0 (which is RAM) for it, so it
 * is installed whatever lies there (as EDK2's and U-Boot's
 * InstallMultipleProtocolInterfaces install it) and no LocateDevicePath
 * finds it, even with an end node at address 0, which read as a path
 * would match every path. */
START_TEST(a_null_device_path_is_no_path)
{
    uint64_t g_dp = put_guid(GUID_DEVICE_PATH), g_lf2 = put_guid(GUID_LOAD_FILE2_PROTOCOL), h_p = put_u64(0);
    ck_assert_uint_eq(CALL(BS(INSTALL_MULTIPLE_PROTOCOL_INTERFACES), h_p, g_dp, 0, g_lf2, 0x1234, 0), EFI_SUCCESS);
    wr64(h_p, 0);
    uint8_t end[4] = { EFI_DEV_END_PATH, EFI_DEV_END_ENTIRE, 4, 0 };
    memcpy(hp(0), end, sizeof(end));
    ck_assert_uint_eq(CALL(BS(INSTALL_MULTIPLE_PROTOCOL_INTERFACES), h_p, g_dp, 0, put_guid(GUID_TEST), 1, 0),
                      EFI_SUCCESS);
    uint64_t dp_p = put_u64(put_vendor_media_path(GUID_LINUX_INITRD_MEDIA)), dev_p = put_u64(0x1111);
    ck_assert_uint_eq(CALL(BS(LOCATE_DEVICE_PATH), g_lf2, dp_p, dev_p), EFI_NOT_FOUND);
    ck_assert_uint_eq(rd64(dev_p), 0x1111);
}
END_TEST

/* One pair named twice is refused whole, as EDK2's
 * CoreUninstallMultipleProtocolInterfaces fails on the second (already
 * gone) and puts the first back: nothing is uninstalled. */
START_TEST(uninstall_multiple_with_a_pair_twice_removes_nothing)
{
    uint64_t h_p = put_u64(0), g = put_guid(GUID_TEST), g2 = put_guid(GUID_GOP);
    ck_assert_uint_eq(CALL(BS(INSTALL_MULTIPLE_PROTOCOL_INTERFACES), h_p, g, 0x1234, g2, 0x5678, 0), EFI_SUCCESS);
    uint64_t h = rd64(h_p);
    unsigned before = fw.nprotocols;
    ck_assert_uint_eq(CALL(BS(UNINSTALL_MULTIPLE_PROTOCOL_INTERFACES), h, g, 0x1234, g, 0x1234, 0),
                      EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(fw.nprotocols, before);
    efi_status_t s;
    ck_assert_uint_eq(interface_of(h, GUID_TEST, &s), 0x1234);
    ck_assert_uint_eq(s, EFI_SUCCESS);
    ck_assert_uint_eq(CALL(BS(UNINSTALL_MULTIPLE_PROTOCOL_INTERFACES), h, g, 0x1234, g2, 0x5678, 0), EFI_SUCCESS);
    ck_assert_uint_eq(fw.nprotocols, before - 2);
}
END_TEST

Suite *fw_protocols_suite(void)
{
    Suite *s = suite_create("fw-protocols");
    fw_add_tcase(s, "lookups", (const TTest *const[]){
        locate_protocol_not_found_sets_interface_to_null, locate_protocol_finds_the_console,
        locate_handle_for_gop_is_not_found, locate_handle_reports_the_size_then_the_handles,
        locate_handle_buffer_returns_a_pool_of_handles, locate_device_path_for_the_initrd_is_exactly_not_found,
        handle_protocol_on_unknown_handles_and_protocols, unserved_protocols_and_services_name_themselves_once,
        close_protocol_needs_an_agent_and_a_real_controller, open_protocol_checks_its_attributes,
        open_protocol_to_test_ignores_interface, register_notify_searches_are_refused,
        loadfile2_without_an_initrd_serves_nothing, loadfile2_reads_boot_policy_as_a_boolean,
        loadfile2_serves_only_the_end_of_the_initrd_path, NULL });
    fw_add_tcase(s, "handles", (const TTest *const[]){
        install_protocol_interface_makes_a_handle_that_lookups_see,
        reinstall_and_uninstall_need_the_installed_interface,
        install_multiple_registers_the_stub_initrd_where_the_kernel_finds_it, hostile_variadic_lists_are_refused_whole,
        uninstall_multiple_with_a_pair_twice_removes_nothing, variadic_traces_name_only_the_listed_protocols,
        a_null_device_path_is_no_path, NULL });
    return s;
}
