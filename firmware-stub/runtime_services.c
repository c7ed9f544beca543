/* EFI_RUNTIME_SERVICES (UEFI 2.10 chapter 8): callable before and after
 * ExitBootServices, and after SetVirtualAddressMap through the guest's own
 * page tables (the VMM hands over its CR3 with each call). */
#include "runtime_services.h"

#include <string.h>
#include <time.h>

#include "events.h"
#include "guids.h"
#include "log.h"
#include "system_table.h"
#include "trace_decode.h"
#include "variables.h"
#include "width.h"

struct efi_time {
    uint16_t year;
    uint8_t month, day, hour, minute, second, pad1;
    uint32_t nanosecond;
    int16_t time_zone;
    uint8_t daylight, pad2;
};
_Static_assert(sizeof(struct efi_time) == 16, "EFI_TIME is 16 bytes");
#define EFI_UNSPECIFIED_TIMEZONE 0x07ff

struct efi_time_capabilities { uint32_t resolution, accuracy; uint8_t sets_to_zero, pad[3]; };

static efi_status_t get_time(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    (void)fw;
    uint64_t time_ptr = a[0], capabilities_ptr = a[1];
    struct timespec ts;
    struct tm tm;
    struct efi_time_capabilities c = { 1, 50000000, 0, { 0 } };  /* 1 Hz, 50 ppm */
    /* Both outputs checked first: a failed call writes neither. */
    if (!time_ptr || !guest_view_accessible(v, time_ptr, sizeof(struct efi_time)) ||
        (capabilities_ptr && !guest_view_accessible(v, capabilities_ptr, sizeof(c))))
        return EFI_INVALID_PARAMETER;
    if (clock_gettime(CLOCK_REALTIME, &ts) || !gmtime_r(&ts.tv_sec, &tm))
        return EFI_DEVICE_ERROR;
    struct efi_time t = {
        .year = (uint16_t)(tm.tm_year + 1900), .month = (uint8_t)(tm.tm_mon + 1), .day = (uint8_t)tm.tm_mday,
        .hour = (uint8_t)tm.tm_hour, .minute = (uint8_t)tm.tm_min, .second = (uint8_t)tm.tm_sec,
        .nanosecond = (uint32_t)ts.tv_nsec, .time_zone = EFI_UNSPECIFIED_TIMEZONE,
    };
    guest_view_write(v, time_ptr, &t, sizeof(t));
    if (capabilities_ptr)
        guest_view_write(v, capabilities_ptr, &c, sizeof(c));
    return EFI_SUCCESS;
}

/* The physical ranges the firmware's runtime pointers live in. */
static bool in_region(const struct firmware *fw, uint64_t pa, uint64_t offset)
{
    uint64_t start = fw->cfg.base + offset;
    return pa >= start && pa < start + 0x1000;
}

static efi_status_t set_virtual_address_map(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t map_size = a[0], desc_size = a[1], map = a[3];
    uint32_t desc_version = (uint32_t)a[2];   /* a UINT32: the upper half of R8 is not the caller's */
    if (fw->phase != FW_PHASE_RUNTIME || fw->virtual_mode)
        return EFI_UNSUPPORTED;
    if (fw_ia32(fw)) {
        /* Not served: the kernel then runs without runtime services
         * (arch/x86/platform/efi/efi.c "Unable to switch EFI into virtual mode"). */
        fw_log(fw, "SetVirtualAddressMap is not served by a 32-bit firmware (--firmware-bits 32): EFI_UNSUPPORTED");
        return EFI_UNSUPPORTED;
    }
    if (desc_version != EFI_MEMORY_DESCRIPTOR_VERSION || desc_size < sizeof(struct efi_memory_descriptor) ||
        map_size % desc_size || map_size / desc_size > MEMMAP_MAX_ENTRIES)
        return EFI_INVALID_PARAMETER;
    /* The kernel passes the array's physical address (efi_64.c); with its
     * page tables live, that is still mapped 1:1. */
    int64_t code_delta = 0, data_delta = 0;
    bool code_seen = false, data_seen = false;
    for (uint64_t off = 0; off < map_size; off += desc_size) {
        struct efi_memory_descriptor d;
        if (!guest_view_read(v, map + off, &d, sizeof(d)))
            return EFI_INVALID_PARAMETER;
        if (!(d.attribute & EFI_MEMORY_RUNTIME))
            continue;
        uint64_t end = d.physical_start + d.number_of_pages * 4096;
        for (int which = 0; which < 2; which++) {
            uint64_t off_region = which ? FW_RT_DATA_OFFSET : FW_RT_CODE_OFFSET;
            uint64_t pa = fw->cfg.base + off_region;
            if (pa >= d.physical_start && pa < end) {
                int64_t delta = (int64_t)(d.virtual_start - d.physical_start);
                if (which) { data_delta = delta; data_seen = true; }
                else { code_delta = delta; code_seen = true; }
            }
        }
    }
    if (!code_seen || !data_seen)
        return EFI_NO_MAPPING;   /* the runtime regions must all be mapped (UEFI 2.10 section 8.4.1) */
    /* Convert the firmware's own runtime pointers (UEFI 2.10 section 8.4):
     * the RT table's functions and the system table's runtime fields. */
    uint64_t *rt = guest_mem_ptr(fw->gm, fw->rt + 24, 8 * EFI_RUNTIME_SERVICES_COUNT);
    for (unsigned i = 0; i < EFI_RUNTIME_SERVICES_COUNT; i++)
        rt[i] += (uint64_t)code_delta;
    fw_update_crc(fw, fw->rt);
    struct efi_system_table *st = guest_mem_ptr(fw->gm, fw->systab, sizeof(*st));
    if (in_region(fw, st->runtime_services, FW_RT_DATA_OFFSET))
        st->runtime_services += (uint64_t)data_delta;
    if (in_region(fw, st->firmware_vendor, FW_RT_DATA_OFFSET))
        st->firmware_vendor += (uint64_t)data_delta;
    if (in_region(fw, st->configuration_table, FW_RT_DATA_OFFSET))
        st->configuration_table += (uint64_t)data_delta;
    fw_update_crc(fw, fw->systab);
    fw->virtual_mode = true;
    /* The group's notify functions run before the call returns (UEFI 2.10
     * section 8.4), through the identity mapping the kernel keeps for
     * runtime regions (arch/x86/platform/efi/efi_64.c). */
    fw_signal_event_group(fw, &GUID_EVENT_GROUP_VIRTUAL_ADDRESS_CHANGE);
    fw_notify_dispatch(fw, FW_NOTIFY_RETURN, EFI_SUCCESS);
    return EFI_SUCCESS;
}

/* GetVariable and SetVariable: (VariableName, VendorGuid, Attributes,
 * DataSize, Data); variables.c names them. */
static efi_status_t get_variable(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    return fw_get_variable(fw, v, a[0], a[1], a[2], a[3], a[4]);
}

static void decode_variable_name(struct fw_trace_out *o, const struct guest_view *v, const uint64_t *a)
{
    fw_trace_name(o, v, a[0]);
    fw_trace_guid(o, "vendor", v, a[1]);
}

static void decode_get_variable(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                                const uint64_t *a, efi_status_t status)
{
    (void)s, (void)status;
    decode_variable_name(o, v, a);
    fw_trace_ptr_uintn(o, "size", v, a[3], false);
}

static efi_status_t get_next_variable_name(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    return fw_get_next_variable_name(fw, v, a[0], a[1], a[2]);
}

/* Attributes is a UINT32 in SetVariable and QueryVariableInfo: the upper
 * half of its register is not the caller's (as AllocatePages' enums,
 * memory.c). */
static efi_status_t set_variable(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    return fw_set_variable(fw, v, a[0], a[1], (uint32_t)a[2], a[3], a[4]);
}

static void decode_set_variable(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                                const uint64_t *a, efi_status_t status)
{
    (void)s, (void)status;
    decode_variable_name(o, v, a);
    fw_trace_hex(o, "attributes", (uint32_t)a[2]);
    fw_trace_u64(o, "size", a[3]);
}

static efi_status_t query_variable_info(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    return fw_query_variable_info(fw, v, (uint32_t)a[0], a[1], a[2], a[3]);
}

static efi_status_t get_next_high_monotonic_count(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t high_count_ptr = a[0];
    /* A call refused leaves the count as it was (EDK2's MonotonicCounterRuntimeDxe
     * checks HighCount first). */
    if (!fw_writable(v, high_count_ptr, 4))
        return EFI_INVALID_PARAMETER;
    uint32_t high = (uint32_t)((fw->monotonic += 1ULL << 32) >> 32);
    guest_view_write(v, high_count_ptr, &high, 4);
    return EFI_SUCCESS;
}

static efi_status_t reset_system(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    (void)v;
    uint32_t reset_type = (uint32_t)a[0];   /* an enum: as AllocatePages' (memory.c) */
    efi_status_t reset_status = fw_ia32(fw) ? efi_status_from32((uint32_t)a[1]) : a[1];   /* as Exit's (image.c) */
    static const char *const types[] = { "EfiResetCold", "EfiResetWarm", "EfiResetShutdown",
                                         "EfiResetPlatformSpecific" };
    fw_log(fw, "guest called ResetSystem(%s, %s)", reset_type < 4 ? types[reset_type] : "invalid",
           efi_status_name(reset_status));
    fw->stop = FW_STOP_RESET;
    fw->stop_status = reset_type;
    return EFI_SUCCESS;
}

#define RT(i, ...) [i] = { .id = FW_ID_RT(i), __VA_ARGS__ }   /* i: enum efi_runtime_service */

const struct fw_service fw_runtime_services[RT_COUNT] = {
    RT(RT_GET_TIME, .name = "GetTime", .nargs = 2, .fn = get_time),
    RT(RT_SET_TIME, .name = "SetTime", .nargs = 1),
    RT(RT_GET_WAKEUP_TIME, .name = "GetWakeupTime", .nargs = 3),
    RT(RT_SET_WAKEUP_TIME, .name = "SetWakeupTime", .nargs = 2),
    RT(RT_SET_VIRTUAL_ADDRESS_MAP, .name = "SetVirtualAddressMap", .nargs = 4, .fn = set_virtual_address_map),
    RT(RT_CONVERT_POINTER, .name = "ConvertPointer", .nargs = 2),
    RT(RT_GET_VARIABLE, .name = "GetVariable", .nargs = 5, .fn = get_variable, .decode = decode_get_variable,
       .faults = FW_FAULT(GETVAR_ERROR)),
    RT(RT_GET_NEXT_VARIABLE_NAME, .name = "GetNextVariableName", .nargs = 3, .fn = get_next_variable_name),
    RT(RT_SET_VARIABLE, .name = "SetVariable", .nargs = 5, .fn = set_variable, .decode = decode_set_variable),
    RT(RT_GET_NEXT_HIGH_MONOTONIC_COUNT, .name = "GetNextHighMonotonicCount", .nargs = 1,
       .fn = get_next_high_monotonic_count),
    RT(RT_RESET_SYSTEM, .name = "ResetSystem", .nargs = 4, .fn = reset_system),
    RT(RT_UPDATE_CAPSULE, .name = "UpdateCapsule", .nargs = 3, .wide = FW_WIDE(2)),
    RT(RT_QUERY_CAPSULE_CAPABILITIES, .name = "QueryCapsuleCapabilities", .nargs = 4),
    RT(RT_QUERY_VARIABLE_INFO, .name = "QueryVariableInfo", .nargs = 4, .fn = query_variable_info),
};

/* The EFI_RT_SUPPORTED_* bit of each service (UEFI 2.10 section 4.6.2), in
 * an order of their own. */
static const uint32_t rt_supported_bit[RT_COUNT] = {
    [RT_GET_TIME] = 0x0001, [RT_SET_TIME] = 0x0002, [RT_GET_WAKEUP_TIME] = 0x0004,
    [RT_SET_WAKEUP_TIME] = 0x0008, [RT_GET_VARIABLE] = 0x0010, [RT_GET_NEXT_VARIABLE_NAME] = 0x0020,
    [RT_SET_VARIABLE] = 0x0040, [RT_SET_VIRTUAL_ADDRESS_MAP] = 0x0080, [RT_CONVERT_POINTER] = 0x0100,
    [RT_GET_NEXT_HIGH_MONOTONIC_COUNT] = 0x0200, [RT_RESET_SYSTEM] = 0x0400, [RT_UPDATE_CAPSULE] = 0x0800,
    [RT_QUERY_CAPSULE_CAPABILITIES] = 0x1000, [RT_QUERY_VARIABLE_INFO] = 0x2000,
};

uint32_t fw_runtime_services_supported(const struct firmware *fw)
{
    uint32_t mask = 0;
    for (unsigned i = 0; i < RT_COUNT; i++) {
        bool served = fw_runtime_services[i].fn && !(i == RT_SET_VIRTUAL_ADDRESS_MAP && fw_ia32(fw));
        if (served)
            mask |= rt_supported_bit[i];
    }
    return mask;
}
