/* EFI_BOOT_SERVICES (UEFI 2.10 chapter 7): the table of its services in
 * the specification's order, one row per service naming its handler, and
 * the small services served here (TPL, ExitBootServices,
 * InstallConfigurationTable, the counters and timers, CRC32 and memory
 * copies). Memory services are memory.c's, protocol handler services
 * protocols.c's, events events.c's, images image.c's. Every guest pointer
 * goes through the guest view; a bad one yields EFI_INVALID_PARAMETER. */
#include "boot_services.h"

#include <stdlib.h>
#include <zlib.h>

#include "events.h"
#include "guids.h"
#include "image.h"
#include "log.h"
#include "memory.h"
#include "protocols.h"
#include "system_table.h"
#include "trace_decode.h"
#include "watchdog.h"

/* ---- TPL ---------------------------------------------------------------- */

/* RaiseTPL and RestoreTPL return no status: a TPL past TPL_HIGH_LEVEL is
 * ignored, and one the wrong side of the current TPL is taken, as EDK2's
 * release build takes it (its debug build ASSERTs; UEFI 2.10 section 7.1,
 * RaiseTPL and RestoreTPL, calls the behaviour indeterminate); both are
 * said in the log. */
static void set_tpl(struct firmware *fw, const char *service, uint64_t tpl, bool raise)
{
    if (tpl > FW_TPL_HIGH_LEVEL) {
        fw_log(fw, "guest bug: %s(%llu): not a TPL (TPL_HIGH_LEVEL is 31); the TPL stays %llu", service,
               (unsigned long long)tpl, (unsigned long long)fw->tpl);
        return;
    }
    if (raise ? tpl < fw->tpl : tpl > fw->tpl)
        fw_log(fw, "guest bug: %s(%llu) %s the current TPL %llu", service, (unsigned long long)tpl,
               raise ? "below" : "above", (unsigned long long)fw->tpl);
    fw->tpl = tpl;
}

static efi_status_t raise_tpl(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    (void)v;
    uint64_t old = fw->tpl;
    set_tpl(fw, "RaiseTPL", a[0], true);
    return old;   /* RaiseTPL returns the previous EFI_TPL, not a status */
}

static void decode_raise_tpl(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                             const uint64_t *a, efi_status_t status)
{
    (void)s, (void)v, (void)a;
    fw_trace_u64(o, "previous_tpl", status);
}

static efi_status_t restore_tpl(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    (void)v;
    set_tpl(fw, "RestoreTPL", a[0], false);
    return EFI_SUCCESS;
}

/* ---- configuration tables ----------------------------------------------- */

static efi_status_t install_configuration_table(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t guid = a[0], table = a[1];
    efi_guid_t g;
    if (!fw_read_guid(v, guid, &g))
        return EFI_INVALID_PARAMETER;
    efi_status_t status = fw_install_config_table(fw, &g, table);
    /* Each change signals the event group of the table's GUID (EDK2
     * CoreInstallConfigurationTable, U-Boot efi_install_configuration_table);
     * its notify functions run as the call returns (dispatch.c). */
    if (status == EFI_SUCCESS)
        fw_signal_event_group(fw, &g);
    return status;
}

static void decode_install_configuration_table(struct fw_trace_out *o, const struct fw_service *s,
                                               const struct guest_view *v, const uint64_t *a, efi_status_t status)
{
    (void)s, (void)status;
    fw_trace_guid(o, "guid", v, a[0]);
    fw_trace_hex(o, "table", a[1]);
}

/* ---- ExitBootServices --------------------------------------------------- */

static efi_status_t exit_boot_services(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    (void)v;
    uint64_t image_handle = a[0], map_key = a[1];
    /* The image calling it: the top-level one, or one StartImage entered
     * (the kernel's stub inside a UKI). */
    if (image_handle != fw->image_handle && !fw_image_of(fw, image_handle))
        return EFI_INVALID_PARAMETER;
    /* A stale key means the map changed since the caller read it
     * (UEFI 2.10 section 7.4.6); the stub retries once. */
    if (map_key != fw->map.key)
        return EFI_INVALID_PARAMETER;
    /* The timer tick stops, then the group's notify functions run before
     * boot services end, as in EDK2's CoreExitBootServices
     * (gTimer->SetTimerPeriod (gTimer, 0) first): no timer's function
     * runs among them or after, and the watchdog, which a successful
     * ExitBootServices disables (UEFI 2.10 section 7.5.1), fires no more. */
    fw_stop_timers(fw);
    fw_watchdog_disarm(fw);
    fw_signal_event_group(fw, &GUID_EVENT_GROUP_EXIT_BOOT_SERVICES);
    if (fw_notify_dispatch(fw, FW_NOTIFY_EXIT_BOOT_SERVICES, EFI_SUCCESS))
        return EFI_SUCCESS;
    return fw_finish_exit_boot_services(fw, map_key);
}

static void decode_exit_boot_services(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                                      const uint64_t *a, efi_status_t status)
{
    (void)s, (void)v, (void)status;
    fw_trace_u64(o, "map_key", a[1]);
}

/* ---- miscellaneous ------------------------------------------------------ */

static efi_status_t get_next_monotonic_count(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t count_ptr = a[0];
    if (!fw_writable(v, count_ptr, 8))
        return EFI_INVALID_PARAMETER;
    guest_view_write_u64(v, count_ptr, fw->monotonic++);
    return EFI_SUCCESS;
}

/* The vCPU sleeps after the call (struct firmware.sleep_ns), not here:
 * the service runs under the VMM's lock. */
static efi_status_t stall(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    (void)v;
    uint64_t microseconds = a[0];
    fw->sleep_ns = microseconds > UINT64_MAX / 1000 ? UINT64_MAX : microseconds * 1000;
    return EFI_SUCCESS;
}

/* CalculateCrc32 and CopyMem pass guest memory through a host buffer of
 * this size, piece by piece: any length the guest's RAM holds is served
 * (UEFI 2.10 sections 7.5.3 and 7.5.7 bound neither), and the host never
 * holds more. */
#define HOST_PIECE      (1ULL << 20)

/* The length of the piece at offset done of a len-byte range. */
static uint64_t piece_size(uint64_t done, uint64_t len)
{
    return len - done < HOST_PIECE ? len - done : HOST_PIECE;
}

/* The range's CRC-32, read piece by piece into buf; false if a read
 * fails (the range was checked whole: only another vCPU changing the
 * page tables can fail one). */
static bool crc_pieces(const struct guest_view *v, uint64_t data, uint64_t size, uint8_t *buf, uint32_t *crc)
{
    uLong c = crc32(0, NULL, 0);
    for (uint64_t done = 0, n; done < size; done += n) {
        n = piece_size(done, size);
        if (!guest_view_read(v, data + done, buf, n))
            return false;
        c = crc32(c, buf, (uInt)n);
    }
    *crc = (uint32_t)c;
    return true;
}

static efi_status_t calculate_crc32(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    (void)fw;
    uint64_t data = a[0], size = a[1], crc_ptr = a[2];
    if (!data || !size || !fw_writable(v, crc_ptr, 4) || !guest_view_accessible(v, data, size))
        return EFI_INVALID_PARAMETER;
    uint8_t *buf = malloc(piece_size(0, size));
    if (!buf)
        return EFI_OUT_OF_RESOURCES;
    uint32_t crc;
    bool read = crc_pieces(v, data, size, buf, &crc);
    free(buf);
    if (!read)
        return EFI_INVALID_PARAMETER;
    guest_view_write(v, crc_ptr, &crc, 4);
    return EFI_SUCCESS;
}

/* CopyMem copies as memmove does (UEFI 2.10 section 7.5.3: the ranges may
 * overlap): a destination above the source is copied from its end, so no
 * piece is written over source bytes not yet read. */
static bool copy_pieces(const struct guest_view *v, uint64_t destination, uint64_t source, uint64_t length,
                        uint8_t *buf)
{
    bool backward = destination > source;
    for (uint64_t done = 0, n; done < length; done += n) {
        n = piece_size(done, length);
        uint64_t off = backward ? length - done - n : done;
        if (!guest_view_read(v, source + off, buf, n) || !guest_view_write(v, destination + off, buf, n))
            return false;
    }
    return true;
}

static efi_status_t copy_mem(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t destination = a[0], source = a[1], length = a[2];
    if (!length)
        return EFI_SUCCESS;
    if (!source || !guest_view_accessible(v, source, length) || !fw_writable(v, destination, length)) {
        fw_log(fw, "guest bug: CopyMem(0x%llx, 0x%llx, 0x%llx) outside guest memory; nothing copied",
               (unsigned long long)destination, (unsigned long long)source, (unsigned long long)length);
        return EFI_INVALID_PARAMETER;
    }
    uint8_t *buf = malloc(piece_size(0, length));
    if (!buf)
        return EFI_OUT_OF_RESOURCES;
    bool copied = copy_pieces(v, destination, source, length, buf);
    free(buf);
    return copied ? EFI_SUCCESS : EFI_INVALID_PARAMETER;
}

static efi_status_t set_mem(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t buffer = a[0], size = a[1], value = a[2];
    if (!size)
        return EFI_SUCCESS;
    if (!buffer || !guest_view_fill(v, buffer, (uint8_t)value, size)) {
        fw_log(fw, "guest bug: SetMem(0x%llx, 0x%llx) outside guest memory; nothing written",
               (unsigned long long)buffer, (unsigned long long)size);
        return EFI_INVALID_PARAMETER;
    }
    return EFI_SUCCESS;
}

/* A protocol lookup's failure as each reports it (UEFI 2.10 sections
 * 7.3.7-7.3.16): HandleProtocol and OpenProtocol say EFI_UNSUPPORTED, the
 * Locate services EFI_NOT_FOUND; those with an *Interface clear it, but
 * for an OpenProtocol that only tests (fw_interface_arg). */
#define LOOKUP_HANDLE   { .not_found = EFI_UNSUPPORTED, .guid = 1, .clears_interface = true }
#define LOOKUP_SEARCH   { .not_found = EFI_NOT_FOUND, .guid = 1, .by_protocol = true }

#define BS(i, ...) [i] = { .id = FW_ID_BS(i), __VA_ARGS__ }   /* i: enum efi_boot_service */

const struct fw_service fw_boot_services[BS_COUNT] = {
    BS(BS_RAISE_TPL, .name = "RaiseTPL", .nargs = 1, .fn = raise_tpl, .decode = decode_raise_tpl),
    BS(BS_RESTORE_TPL, .name = "RestoreTPL", .nargs = 1, .fn = restore_tpl),
    BS(BS_ALLOCATE_PAGES, .name = "AllocatePages", .nargs = 4, .fn = fw_allocate_pages,
       .decode = fw_decode_allocate_pages, .faults = FW_FAULT(ALLOC_PAGES_FAIL) | FW_FAULT(ALLOC_PAGES_ABOVE)),
    BS(BS_FREE_PAGES, .name = "FreePages", .nargs = 2, .wide = FW_WIDE(0), .fn = fw_free_pages, .decode = fw_decode_free_pages),
    BS(BS_GET_MEMORY_MAP, .name = "GetMemoryMap", .nargs = 5, .fn = fw_get_memory_map,
       .decode = fw_decode_get_memory_map, .faults = FW_FAULT(GMM_TOO_SMALL)),
    BS(BS_ALLOCATE_POOL, .name = "AllocatePool", .nargs = 3, .fn = fw_allocate_pool, .decode = fw_decode_allocate_pool,
       .faults = FW_FAULT(ALLOC_POOL_FAIL)),
    BS(BS_FREE_POOL, .name = "FreePool", .nargs = 1, .fn = fw_free_pool, .decode = fw_decode_free_pool),
    BS(BS_CREATE_EVENT, .name = "CreateEvent", .nargs = 5, .fn = fw_create_event, .decode = fw_decode_create_event),
    BS(BS_SET_TIMER, .name = "SetTimer", .nargs = 3, .wide = FW_WIDE(2), .fn = fw_set_timer, .decode = fw_decode_set_timer),
    BS(BS_WAIT_FOR_EVENT, .name = "WaitForEvent", .nargs = 3, .fn = fw_wait_for_event,
       .decode = fw_decode_wait_for_event),
    BS(BS_SIGNAL_EVENT, .name = "SignalEvent", .nargs = 1, .fn = fw_signal_event, .decode = fw_decode_event),
    BS(BS_CLOSE_EVENT, .name = "CloseEvent", .nargs = 1, .fn = fw_close_event, .decode = fw_decode_event),
    BS(BS_CHECK_EVENT, .name = "CheckEvent", .nargs = 1, .fn = fw_check_event, .decode = fw_decode_event),
    BS(BS_INSTALL_PROTOCOL_INTERFACE, .name = "InstallProtocolInterface", .nargs = 4,
       .fn = fw_install_protocol_interface, .decode = fw_decode_install_protocol_interface),
    BS(BS_REINSTALL_PROTOCOL_INTERFACE, .name = "ReinstallProtocolInterface", .nargs = 4,
       .fn = fw_reinstall_protocol_interface, .decode = fw_decode_handle_protocol_pair),
    BS(BS_UNINSTALL_PROTOCOL_INTERFACE, .name = "UninstallProtocolInterface", .nargs = 3,
       .fn = fw_uninstall_protocol_interface, .decode = fw_decode_handle_protocol_pair),
    BS(BS_HANDLE_PROTOCOL, .name = "HandleProtocol", .nargs = 3, .fn = fw_handle_protocol, .decode = fw_decode_protocol,
       .lookup = LOOKUP_HANDLE),
    BS(BS_RESERVED, .name = "Reserved", .nargs = 0),
    BS(BS_REGISTER_PROTOCOL_NOTIFY, .name = "RegisterProtocolNotify", .nargs = 3),
    BS(BS_LOCATE_HANDLE, .name = "LocateHandle", .nargs = 5, .fn = fw_locate_handle, .decode = fw_decode_locate_handle,
       .lookup = LOOKUP_SEARCH),
    BS(BS_LOCATE_DEVICE_PATH, .name = "LocateDevicePath", .nargs = 3, .fn = fw_locate_device_path,
       .decode = fw_decode_protocol, .lookup = { .not_found = EFI_NOT_FOUND, .guid = 0 },
       .faults = FW_FAULT(NO_LOADFILE2)),
    BS(BS_INSTALL_CONFIGURATION_TABLE, .name = "InstallConfigurationTable", .nargs = 2,
       .fn = install_configuration_table, .decode = decode_install_configuration_table),
    BS(BS_LOAD_IMAGE, .name = "LoadImage", .nargs = 6, .fn = fw_load_image, .decode = fw_decode_load_image,
       .faults = FW_FAULT(SECURE_BOOT_REFUSE)),
    BS(BS_START_IMAGE, .name = "StartImage", .nargs = 3, .fn = fw_start_image, .decode = fw_decode_image_handle),
    BS(BS_EXIT, .name = "Exit", .nargs = 4, .fn = fw_exit, .decode = fw_decode_exit),
    BS(BS_UNLOAD_IMAGE, .name = "UnloadImage", .nargs = 1, .fn = fw_unload_image, .decode = fw_decode_image_handle),
    BS(BS_EXIT_BOOT_SERVICES, .name = "ExitBootServices", .nargs = 2, .fn = exit_boot_services,
       .decode = decode_exit_boot_services, .faults = FW_FAULT(EBS_STALE_KEY)),
    BS(BS_GET_NEXT_MONOTONIC_COUNT, .name = "GetNextMonotonicCount", .nargs = 1, .fn = get_next_monotonic_count),
    BS(BS_STALL, .name = "Stall", .nargs = 1, .fn = stall),
    BS(BS_SET_WATCHDOG_TIMER, .name = "SetWatchdogTimer", .nargs = 4, .wide = FW_WIDE(1), .fn = fw_set_watchdog_timer,
       .decode = fw_decode_set_watchdog_timer),
    BS(BS_CONNECT_CONTROLLER, .name = "ConnectController", .nargs = 4),
    BS(BS_DISCONNECT_CONTROLLER, .name = "DisconnectController", .nargs = 3),
    BS(BS_OPEN_PROTOCOL, .name = "OpenProtocol", .nargs = 6, .fn = fw_open_protocol, .decode = fw_decode_protocol,
       .lookup = { .not_found = EFI_UNSUPPORTED, .guid = 1, .clears_interface = true, .attributes = 5 }),
    BS(BS_CLOSE_PROTOCOL, .name = "CloseProtocol", .nargs = 4, .fn = fw_close_protocol),
    BS(BS_OPEN_PROTOCOL_INFORMATION, .name = "OpenProtocolInformation", .nargs = 4),
    BS(BS_PROTOCOLS_PER_HANDLE, .name = "ProtocolsPerHandle", .nargs = 3, .fn = fw_protocols_per_handle,
       .decode = fw_decode_protocols_per_handle),
    BS(BS_LOCATE_HANDLE_BUFFER, .name = "LocateHandleBuffer", .nargs = 5, .fn = fw_locate_handle_buffer,
       .decode = fw_decode_locate_handle, .lookup = LOOKUP_SEARCH),
    BS(BS_LOCATE_PROTOCOL, .name = "LocateProtocol", .nargs = 3, .fn = fw_locate_protocol,
       .decode = fw_decode_locate_protocol,
       .lookup = { .not_found = EFI_NOT_FOUND, .guid = 0, .clears_interface = true }),
    BS(BS_INSTALL_MULTIPLE_PROTOCOL_INTERFACES, .name = "InstallMultipleProtocolInterfaces", .nargs = 4,
       .fn = fw_install_multiple_protocol_interfaces, .decode = fw_decode_install_multiple),
    BS(BS_UNINSTALL_MULTIPLE_PROTOCOL_INTERFACES, .name = "UninstallMultipleProtocolInterfaces", .nargs = 4,
       .fn = fw_uninstall_multiple_protocol_interfaces, .decode = fw_decode_uninstall_multiple),
    BS(BS_CALCULATE_CRC32, .name = "CalculateCrc32", .nargs = 3, .fn = calculate_crc32),
    BS(BS_COPY_MEM, .name = "CopyMem", .nargs = 3, .fn = copy_mem),
    BS(BS_SET_MEM, .name = "SetMem", .nargs = 3, .fn = set_mem),
    BS(BS_CREATE_EVENT_EX, .name = "CreateEventEx", .nargs = 6, .fn = fw_create_event_ex,
       .decode = fw_decode_create_event),
};
