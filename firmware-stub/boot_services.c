/* EFI_BOOT_SERVICES (UEFI 2.10 chapter 7): memory, protocol handlers and
 * image services, served on the host. Every guest pointer goes through the
 * guest view; a bad one yields EFI_INVALID_PARAMETER. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "internal.h"

#define MEMORY_DESCRIPTOR_SIZE FW_MEMORY_DESCRIPTOR_SIZE
#define TPL_HIGH_LEVEL  31
#define MAX_HOST_COPY   (256ULL << 20) /* largest CopyMem/CalculateCrc32 buffer */
#define MAX_DEVICE_PATH 1024

static bool read_guid(const struct guest_view *v, uint64_t addr, efi_guid_t *g)
{
    return addr && guest_view_read(v, addr, g, sizeof(*g));
}

/* A guest output buffer: non-NULL and wholly inside guest memory. */
static bool writable(const struct guest_view *v, uint64_t addr, uint64_t len)
{
    return addr && len && guest_view_accessible(v, addr, len);
}

/* ---- TPL ---------------------------------------------------------------- */

static efi_status_t raise_tpl(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    (void)v;
    uint64_t old = fw->tpl;
    if (a[0] <= TPL_HIGH_LEVEL)
        fw->tpl = a[0];
    return old;   /* RaiseTPL returns the previous EFI_TPL, not a status */
}

static efi_status_t restore_tpl(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    (void)v;
    if (a[0] <= TPL_HIGH_LEVEL)
        fw->tpl = a[0];
    return EFI_SUCCESS;
}

/* ---- memory ------------------------------------------------------------- */

static efi_status_t allocate_pages(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t addr;
    if (!guest_view_read_u64(v, a[3], &addr) || !writable(v, a[3], 8))
        return EFI_INVALID_PARAMETER;
    if (a[0] > UINT32_MAX || a[1] > UINT32_MAX)
        return EFI_INVALID_PARAMETER;
    efi_status_t s = memmap_allocate(&fw->map, (uint32_t)a[0], (uint32_t)a[1], a[2], &addr);
    if (s == EFI_SUCCESS)
        guest_view_write_u64(v, a[3], addr);
    return s;
}

static efi_status_t free_pages(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    (void)v;
    return memmap_free(&fw->map, a[0], a[1]);
}

static efi_status_t get_memory_map(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t size_ptr = a[0], map = a[1], key_ptr = a[2], dsize_ptr = a[3], dver_ptr = a[4];
    uint64_t size;
    if (!guest_view_read_u64(v, size_ptr, &size) || !writable(v, size_ptr, 8))
        return EFI_INVALID_PARAMETER;
    if ((dsize_ptr && !writable(v, dsize_ptr, 8)) || (dver_ptr && !writable(v, dver_ptr, 4)))
        return EFI_INVALID_PARAMETER;
    uint64_t needed = (uint64_t)fw->map.n * MEMORY_DESCRIPTOR_SIZE;
    uint32_t version = EFI_MEMORY_DESCRIPTOR_VERSION;
    /* The size probe must fill MapSize and DescriptorSize
     * (drivers/firmware/efi/libstub/mem.c efi_get_memory_map: the first call
     * passes a zero MapSize and sizes its buffer from both). */
    if (dsize_ptr)
        guest_view_write_u64(v, dsize_ptr, MEMORY_DESCRIPTOR_SIZE);
    if (dver_ptr)
        guest_view_write(v, dver_ptr, &version, 4);
    if (size < needed) {
        guest_view_write_u64(v, size_ptr, needed);
        return EFI_BUFFER_TOO_SMALL;
    }
    if (!writable(v, map, needed) || (key_ptr && !writable(v, key_ptr, 8)))
        return EFI_INVALID_PARAMETER;
    for (unsigned i = 0; i < fw->map.n; i++) {
        const struct memmap_entry *e = &fw->map.e[i];
        uint8_t d[MEMORY_DESCRIPTOR_SIZE] = { 0 };
        struct efi_memory_descriptor md = { e->type, 0, e->start, 0, e->pages, e->attribute };
        memcpy(d, &md, sizeof(md));
        guest_view_write(v, map + (uint64_t)i * MEMORY_DESCRIPTOR_SIZE, d, sizeof(d));
    }
    guest_view_write_u64(v, size_ptr, needed);
    if (key_ptr)
        guest_view_write_u64(v, key_ptr, fw->map.key);
    return EFI_SUCCESS;
}

efi_status_t fw_pool_alloc(struct firmware *fw, uint32_t type, uint64_t size, uint64_t *addr)
{
    if (fw->npools >= FW_MAX_POOLS)
        return EFI_OUT_OF_RESOURCES;
    if (size > (1ULL << 40))
        return EFI_OUT_OF_RESOURCES;
    /* Pool allocations are whole pages of the pool's type: simple, and
     * the memory map stays exact. */
    uint64_t pages = (size + 0xfff) >> 12;
    if (!pages)
        pages = 1;
    uint64_t a = 0;
    efi_status_t s = memmap_allocate(&fw->map, EFI_ALLOCATE_ANY_PAGES, type, pages, &a);
    if (s != EFI_SUCCESS)
        return s;
    fw->pools[fw->npools++] = (struct fw_pool){ a, pages };
    *addr = a;
    return EFI_SUCCESS;
}

static efi_status_t allocate_pool(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t addr;
    if (!writable(v, a[2], 8) || a[0] > UINT32_MAX || !memmap_type_allocatable((uint32_t)a[0]))
        return EFI_INVALID_PARAMETER;
    efi_status_t s = fw_pool_alloc(fw, (uint32_t)a[0], a[1], &addr);
    if (s == EFI_SUCCESS)
        guest_view_write_u64(v, a[2], addr);
    return s;
}

static efi_status_t free_pool(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    (void)v;
    for (unsigned i = 0; i < fw->npools; i++) {
        if (fw->pools[i].addr != a[0])
            continue;
        efi_status_t s = memmap_free(&fw->map, fw->pools[i].addr, fw->pools[i].pages);
        fw->pools[i] = fw->pools[--fw->npools];
        return s;
    }
    /* Includes FreePool(NULL), which the stub's setup_efi_pci makes. */
    return EFI_INVALID_PARAMETER;
}

/* ---- protocol handlers -------------------------------------------------- */

int fw_add_protocol(struct firmware *fw, uint64_t handle, const efi_guid_t *guid, uint64_t iface)
{
    if (fw->nprotocols >= FW_MAX_PROTOCOLS)
        return -1;
    fw->protocols[fw->nprotocols++] = (struct fw_handle_protocol){ handle, *guid, iface };
    return 0;
}

static bool handle_known(const struct firmware *fw, uint64_t handle)
{
    for (unsigned i = 0; i < fw->nprotocols; i++)
        if (fw->protocols[i].handle == handle)
            return true;
    return false;
}

static const struct fw_handle_protocol *find_protocol(const struct firmware *fw, uint64_t handle,
                                                      const efi_guid_t *g)
{
    for (unsigned i = 0; i < fw->nprotocols; i++)
        if (fw->protocols[i].handle == handle && guid_equal(&fw->protocols[i].guid, g))
            return &fw->protocols[i];
    return NULL;
}

static efi_status_t open_interface(struct firmware *fw, const struct guest_view *v, uint64_t handle,
                                   uint64_t guid_ptr, uint64_t iface_ptr, bool iface_optional)
{
    efi_guid_t g;
    if (!read_guid(v, guid_ptr, &g))
        return EFI_INVALID_PARAMETER;
    if (iface_ptr && !writable(v, iface_ptr, 8))
        return EFI_INVALID_PARAMETER;
    if (!iface_ptr && !iface_optional)
        return EFI_INVALID_PARAMETER;
    const struct fw_handle_protocol *p = handle_known(fw, handle) ? find_protocol(fw, handle, &g) : NULL;
    if (iface_ptr)
        guest_view_write_u64(v, iface_ptr, p ? p->interface : 0);
    if (!handle_known(fw, handle))
        return EFI_INVALID_PARAMETER;
    return p ? EFI_SUCCESS : EFI_UNSUPPORTED;
}

static efi_status_t handle_protocol(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    return open_interface(fw, v, a[0], a[1], a[2], false);
}

#define EFI_OPEN_PROTOCOL_TEST_PROTOCOL 0x4

static efi_status_t open_protocol(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    return open_interface(fw, v, a[0], a[1], a[2], a[5] == EFI_OPEN_PROTOCOL_TEST_PROTOCOL);
}

static efi_status_t close_protocol(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    efi_guid_t g;
    if (!read_guid(v, a[1], &g) || !handle_known(fw, a[0]))
        return EFI_INVALID_PARAMETER;
    return find_protocol(fw, a[0], &g) ? EFI_SUCCESS : EFI_NOT_FOUND;
}

/* Handles matching a search, in database order, without duplicates. */
static unsigned search_handles(const struct firmware *fw, uint64_t type, const efi_guid_t *g, uint64_t *out)
{
    unsigned n = 0;
    for (unsigned i = 0; i < fw->nprotocols; i++) {
        const struct fw_handle_protocol *p = &fw->protocols[i];
        if (type == EFI_BY_PROTOCOL && !guid_equal(&p->guid, g))
            continue;
        bool dup = false;
        for (unsigned j = 0; j < n; j++)
            dup |= out[j] == p->handle;
        if (!dup)
            out[n++] = p->handle;
    }
    return n;
}

/* The handles a LocateHandle(Buffer) search finds, into handles[*n]. */
static efi_status_t locate(struct firmware *fw, const struct guest_view *v, uint64_t type, uint64_t guid_ptr,
                           uint64_t *handles, unsigned *n)
{
    efi_guid_t g;
    if (type == EFI_BY_REGISTER_NOTIFY)
        return EFI_UNSUPPORTED;   /* no RegisterProtocolNotify */
    if (type != EFI_ALL_HANDLES && type != EFI_BY_PROTOCOL)
        return EFI_INVALID_PARAMETER;
    if (type == EFI_BY_PROTOCOL && !read_guid(v, guid_ptr, &g))
        return EFI_INVALID_PARAMETER;
    *n = search_handles(fw, type, &g, handles);
    return EFI_SUCCESS;
}

static efi_status_t locate_handle(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t handles[FW_MAX_PROTOCOLS], size;
    unsigned n;
    efi_status_t s = locate(fw, v, a[0], a[1], handles, &n);
    if (s != EFI_SUCCESS)
        return s;
    if (!guest_view_read_u64(v, a[3], &size) || !writable(v, a[3], 8))
        return EFI_INVALID_PARAMETER;
    if (!n)
        return EFI_NOT_FOUND;
    if (size < n * 8ULL) {
        guest_view_write_u64(v, a[3], n * 8ULL);
        return EFI_BUFFER_TOO_SMALL;
    }
    if (!writable(v, a[4], n * 8ULL))
        return EFI_INVALID_PARAMETER;
    guest_view_write(v, a[4], handles, n * 8ULL);
    guest_view_write_u64(v, a[3], n * 8ULL);
    return EFI_SUCCESS;
}

static efi_status_t locate_handle_buffer(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t handles[FW_MAX_PROTOCOLS], buf;
    unsigned n;
    efi_status_t s = locate(fw, v, a[0], a[1], handles, &n);
    if (s != EFI_SUCCESS)
        return s;
    if (!writable(v, a[3], 8) || !writable(v, a[4], 8))
        return EFI_INVALID_PARAMETER;
    if (!n)
        return EFI_NOT_FOUND;
    s = fw_pool_alloc(fw, EFI_BOOT_SERVICES_DATA, n * 8ULL, &buf);
    if (s != EFI_SUCCESS)
        return s;
    guest_view_write(v, buf, handles, n * 8ULL);
    guest_view_write_u64(v, a[3], n);
    guest_view_write_u64(v, a[4], buf);
    return EFI_SUCCESS;
}

static efi_status_t locate_protocol(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    efi_guid_t g;
    if (!writable(v, a[2], 8))
        return EFI_INVALID_PARAMETER;
    /* *Interface is NULL on failure: the stub ignores the status for the
     * memory-attribute, TCG2 and CC protocols (section 7 item 3). */
    guest_view_write_u64(v, a[2], 0);
    if (!read_guid(v, a[0], &g))
        return EFI_INVALID_PARAMETER;
    for (unsigned i = 0; i < fw->nprotocols; i++)
        if (guid_equal(&fw->protocols[i].guid, &g)) {
            guest_view_write_u64(v, a[2], fw->protocols[i].interface);
            return EFI_SUCCESS;
        }
    return EFI_NOT_FOUND;
}

/* Length of a device path up to (not including) its end node, or -1. */
static long device_path_len(const struct guest_view *v, uint64_t dp)
{
    uint64_t off = 0;
    while (off < MAX_DEVICE_PATH) {
        struct efi_device_path_header h;
        if (!guest_view_read(v, dp + off, &h, sizeof(h)))
            return -1;
        unsigned len = h.length[0] | h.length[1] << 8;
        if (h.type == EFI_DEV_END_PATH && h.sub_type == EFI_DEV_END_ENTIRE)
            return (long)off;
        if (len < sizeof(h))
            return -1;
        off += len;
    }
    return -1;
}

static efi_status_t locate_device_path(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    efi_guid_t g;
    uint64_t dp;
    if (!read_guid(v, a[0], &g) || !guest_view_read_u64(v, a[1], &dp) || !dp || !writable(v, a[2], 8))
        return EFI_INVALID_PARAMETER;
    long want = device_path_len(v, dp);
    if (want < 0)
        return EFI_INVALID_PARAMETER;
    uint8_t path[MAX_DEVICE_PATH], cand[MAX_DEVICE_PATH];
    guest_view_read(v, dp, path, (uint64_t)want);
    /* The handle supporting the protocol whose device path is the longest
     * prefix of *DevicePath (UEFI 2.10 section 7.3.7). */
    long best = -1;
    uint64_t best_handle = 0;
    for (unsigned i = 0; i < fw->nprotocols; i++) {
        const struct fw_handle_protocol *p = &fw->protocols[i];
        if (!guid_equal(&p->guid, &GUID_DEVICE_PATH) || !find_protocol(fw, p->handle, &g))
            continue;
        long len = device_path_len(v, p->interface);
        if (len < 0 || len > want || len <= best)
            continue;
        guest_view_read(v, p->interface, cand, (uint64_t)len);
        if (!memcmp(cand, path, (size_t)len)) {
            best = len;
            best_handle = p->handle;
        }
    }
    if (best < 0)
        return EFI_NOT_FOUND;
    guest_view_write_u64(v, a[2], best_handle);
    guest_view_write_u64(v, a[1], dp + (uint64_t)best);
    return EFI_SUCCESS;
}

static efi_status_t install_configuration_table(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    efi_guid_t g;
    if (!read_guid(v, a[0], &g))
        return EFI_INVALID_PARAMETER;
    return fw_install_config_table(fw, &g, a[1]);
}

/* ---- image services ----------------------------------------------------- */

static efi_status_t exit_image(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint16_t data[256];
    char text[256];
    text[0] = 0;
    if (a[2] && a[3] && fw_read_ucs2(v, a[3], data, 256) > 0) {
        unsigned i;
        for (i = 0; data[i] && i < sizeof(text) - 1; i++)
            text[i] = data[i] < 0x80 && data[i] >= 0x20 ? (char)data[i] : '?';
        text[i] = 0;
    }
    fw_log(fw, "the image called Exit(%s)%s%s", efi_status_name(a[1]), text[0] ? ": " : "", text);
    fw->stop = FW_STOP_EXIT;
    fw->stop_status = a[1];
    return EFI_SUCCESS;
}

static efi_status_t exit_boot_services(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    (void)v;
    if (a[0] != fw->image_handle)
        return EFI_INVALID_PARAMETER;
    /* A stale key means the map changed since the caller read it
     * (UEFI 2.10 section 7.4.6); the stub retries once. */
    if (a[1] != fw->map.key)
        return EFI_INVALID_PARAMETER;
    fw->phase = FW_PHASE_RUNTIME;
    fw->watchdog_seconds = 0;
    /* The boot-time fields of the system table go (as EDK2's
     * CoreExitBootServices does), so a stale use faults visibly. */
    struct efi_system_table *st = guest_mem_ptr(fw->gm, fw->systab, sizeof(*st));
    st->console_in_handle = st->con_in = 0;
    st->console_out_handle = st->con_out = 0;
    st->standard_error_handle = st->std_err = 0;
    st->boot_services = 0;
    fw_update_crc(fw, fw->systab);
    return EFI_SUCCESS;
}

/* ---- miscellaneous ------------------------------------------------------ */

static efi_status_t get_next_monotonic_count(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    if (!writable(v, a[0], 8))
        return EFI_INVALID_PARAMETER;
    guest_view_write_u64(v, a[0], fw->monotonic++);
    return EFI_SUCCESS;
}

static efi_status_t stall(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    (void)fw, (void)v;
    uint64_t us = a[0] > 10000000 ? 10000000 : a[0];  /* at most 10 s per call */
    struct timespec ts = { (time_t)(us / 1000000), (long)(us % 1000000) * 1000 };
    /* One sleep, not restarted: a signal (--timeout's alarm, SIGTERM) means
     * the VMM is stopping, and the stall would only delay it. */
    nanosleep(&ts, NULL);
    return EFI_SUCCESS;
}

static efi_status_t set_watchdog_timer(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    (void)v;
    /* Recorded, and disarmed by ExitBootServices; a guest that stops
     * making progress is ended by --timeout instead. */
    fw->watchdog_seconds = a[0];
    return EFI_SUCCESS;
}

/* Copy guest data into a host buffer; NULL if unreadable or too large. */
static uint8_t *read_buffer(const struct guest_view *v, uint64_t addr, uint64_t len)
{
    if (!addr || !len || len > MAX_HOST_COPY)
        return NULL;
    uint8_t *buf = malloc(len);
    if (buf && !guest_view_read(v, addr, buf, len)) {
        free(buf);
        buf = NULL;
    }
    return buf;
}

static efi_status_t calculate_crc32(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    (void)fw;
    if (!writable(v, a[2], 4))
        return EFI_INVALID_PARAMETER;
    uint8_t *buf = read_buffer(v, a[0], a[1]);
    if (!buf)
        return EFI_INVALID_PARAMETER;
    uint32_t crc = (uint32_t)crc32(0, buf, (uInt)a[1]);
    free(buf);
    guest_view_write(v, a[2], &crc, 4);
    return EFI_SUCCESS;
}

static efi_status_t copy_mem(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    if (!a[2])
        return EFI_SUCCESS;
    uint8_t *buf = read_buffer(v, a[1], a[2]);
    if (!buf || !writable(v, a[0], a[2])) {
        fw_log(fw, "guest bug: CopyMem(0x%llx, 0x%llx, 0x%llx) outside guest memory; nothing copied",
               (unsigned long long)a[0], (unsigned long long)a[1], (unsigned long long)a[2]);
        free(buf);
        return EFI_INVALID_PARAMETER;
    }
    guest_view_write(v, a[0], buf, a[2]);
    free(buf);
    return EFI_SUCCESS;
}

static efi_status_t set_mem(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    if (!a[1])
        return EFI_SUCCESS;
    if (!a[0] || !guest_view_fill(v, a[0], (uint8_t)a[2], a[1])) {
        fw_log(fw, "guest bug: SetMem(0x%llx, 0x%llx) outside guest memory; nothing written",
               (unsigned long long)a[0], (unsigned long long)a[1]);
        return EFI_INVALID_PARAMETER;
    }
    return EFI_SUCCESS;
}

#define BS(i, n, args, f) [i] = { FW_ID_BS(i), n, args, f }   /* i: enum efi_boot_service */

const struct fw_service fw_boot_services[EFI_BOOT_SERVICES_COUNT] = {
    BS(BS_RAISE_TPL, "RaiseTPL", 1, raise_tpl),
    BS(BS_RESTORE_TPL, "RestoreTPL", 1, restore_tpl),
    BS(BS_ALLOCATE_PAGES, "AllocatePages", 4, allocate_pages),
    BS(BS_FREE_PAGES, "FreePages", 2, free_pages),
    BS(BS_GET_MEMORY_MAP, "GetMemoryMap", 5, get_memory_map),
    BS(BS_ALLOCATE_POOL, "AllocatePool", 3, allocate_pool),
    BS(BS_FREE_POOL, "FreePool", 1, free_pool),
    BS(BS_CREATE_EVENT, "CreateEvent", 5, NULL),
    BS(BS_SET_TIMER, "SetTimer", 3, NULL),
    BS(BS_WAIT_FOR_EVENT, "WaitForEvent", 3, NULL),
    BS(BS_SIGNAL_EVENT, "SignalEvent", 1, NULL),
    BS(BS_CLOSE_EVENT, "CloseEvent", 1, NULL),
    BS(BS_CHECK_EVENT, "CheckEvent", 1, NULL),
    BS(BS_INSTALL_PROTOCOL_INTERFACE, "InstallProtocolInterface", 4, NULL),
    BS(BS_REINSTALL_PROTOCOL_INTERFACE, "ReinstallProtocolInterface", 4, NULL),
    BS(BS_UNINSTALL_PROTOCOL_INTERFACE, "UninstallProtocolInterface", 3, NULL),
    BS(BS_HANDLE_PROTOCOL, "HandleProtocol", 3, handle_protocol),
    BS(BS_RESERVED, "Reserved", 0, NULL),
    BS(BS_REGISTER_PROTOCOL_NOTIFY, "RegisterProtocolNotify", 3, NULL),
    BS(BS_LOCATE_HANDLE, "LocateHandle", 5, locate_handle),
    BS(BS_LOCATE_DEVICE_PATH, "LocateDevicePath", 3, locate_device_path),
    BS(BS_INSTALL_CONFIGURATION_TABLE, "InstallConfigurationTable", 2, install_configuration_table),
    BS(BS_LOAD_IMAGE, "LoadImage", 6, NULL),
    BS(BS_START_IMAGE, "StartImage", 3, NULL),
    BS(BS_EXIT, "Exit", 4, exit_image),
    BS(BS_UNLOAD_IMAGE, "UnloadImage", 1, NULL),
    BS(BS_EXIT_BOOT_SERVICES, "ExitBootServices", 2, exit_boot_services),
    BS(BS_GET_NEXT_MONOTONIC_COUNT, "GetNextMonotonicCount", 1, get_next_monotonic_count),
    BS(BS_STALL, "Stall", 1, stall),
    BS(BS_SET_WATCHDOG_TIMER, "SetWatchdogTimer", 4, set_watchdog_timer),
    BS(BS_CONNECT_CONTROLLER, "ConnectController", 4, NULL),
    BS(BS_DISCONNECT_CONTROLLER, "DisconnectController", 3, NULL),
    BS(BS_OPEN_PROTOCOL, "OpenProtocol", 6, open_protocol),
    BS(BS_CLOSE_PROTOCOL, "CloseProtocol", 4, close_protocol),
    BS(BS_OPEN_PROTOCOL_INFORMATION, "OpenProtocolInformation", 4, NULL),
    BS(BS_PROTOCOLS_PER_HANDLE, "ProtocolsPerHandle", 3, NULL),
    BS(BS_LOCATE_HANDLE_BUFFER, "LocateHandleBuffer", 5, locate_handle_buffer),
    BS(BS_LOCATE_PROTOCOL, "LocateProtocol", 3, locate_protocol),
    BS(BS_INSTALL_MULTIPLE_PROTOCOL_INTERFACES, "InstallMultipleProtocolInterfaces", 4, NULL),
    BS(BS_UNINSTALL_MULTIPLE_PROTOCOL_INTERFACES, "UninstallMultipleProtocolInterfaces", 4, NULL),
    BS(BS_CALCULATE_CRC32, "CalculateCrc32", 3, calculate_crc32),
    BS(BS_COPY_MEM, "CopyMem", 3, copy_mem),
    BS(BS_SET_MEM, "SetMem", 3, set_mem),
    BS(BS_CREATE_EVENT_EX, "CreateEventEx", 6, NULL),
};
