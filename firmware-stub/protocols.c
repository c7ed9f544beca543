/* Protocol handler services (UEFI 2.10 section 7.3): installing and
 * uninstalling protocols, and finding them, over the handle database
 * (handles.h). Every guest pointer goes through the guest view; a bad one
 * yields EFI_INVALID_PARAMETER. */
#include "protocols.h"

#include <string.h>

#include "guids.h"
#include "handles.h"
#include "pool.h"
#include "trace_decode.h"
#include "width.h"

/* One GUID/interface pair of the Install/Uninstall services. */
struct protocol_pair {
    efi_guid_t guid;
    uint64_t interface;
};

/* Is a device path with exactly these bytes (end node excluded) already
 * installed on a handle? */
static bool device_path_installed(struct firmware *fw, const struct guest_view *v, const uint8_t *path, long len)
{
    uint8_t cand[FW_DEVICE_PATH_SIZE];
    for (unsigned i = 0; i < fw->nprotocols; i++) {
        const struct fw_handle_protocol *p = &fw->protocols[i];
        if (guid_equal(&p->guid, &GUID_DEVICE_PATH) && fw_device_path_copy(v, p->interface, cand) == len &&
            !memcmp(cand, path, (size_t)len))
            return true;
    }
    return false;
}

/* Install every pair on *handle_ptr's handle, or on a new one if it holds
 * NULL; all or nothing. multiple: InstallMultipleProtocolInterfaces, which
 * also refuses a device path already in the database with
 * EFI_ALREADY_STARTED (UEFI 2.10 sections 7.3.2 and 7.3.16); a NULL one is
 * no path, installed as EDK2 and U-Boot install it. */
static efi_status_t install(struct firmware *fw, const struct guest_view *v, uint64_t handle_ptr,
                            const struct protocol_pair *p, unsigned n, bool multiple)
{
    uint64_t handle;
    if (!fw_read_uintn(fw, v, handle_ptr, &handle) || !fw_writable(v, handle_ptr, fw_uintn_size(fw)))
        return EFI_INVALID_PARAMETER;
    if (handle && !fw_handle_known(fw, handle))
        return EFI_INVALID_PARAMETER;
    for (unsigned i = 0; i < n; i++) {
        if (handle && fw_find_protocol(fw, handle, &p[i].guid))
            return EFI_INVALID_PARAMETER;
        for (unsigned j = 0; j < i; j++)
            if (guid_equal(&p[j].guid, &p[i].guid))
                return EFI_INVALID_PARAMETER;
        if (multiple && p[i].interface && guid_equal(&p[i].guid, &GUID_DEVICE_PATH)) {
            uint8_t path[FW_DEVICE_PATH_SIZE];
            long len = fw_device_path_copy(v, p[i].interface, path);
            if (len < 0)
                return EFI_INVALID_PARAMETER;
            if (device_path_installed(fw, v, path, len))
                return EFI_ALREADY_STARTED;
        }
    }
    if (!n)
        return EFI_SUCCESS;
    if (fw->nprotocols + n > FW_MAX_PROTOCOLS || (!handle && !(handle = fw_new_handle(fw))))
        return EFI_OUT_OF_RESOURCES;
    for (unsigned i = 0; i < n; i++)
        fw_add_protocol(fw, handle, &p[i].guid, p[i].interface);
    fw_write_uintn(fw, v, handle_ptr, handle);
    return EFI_SUCCESS;
}

/* Remove every pair from handle, all or nothing: a pair not installed
 * there (that interface for that protocol) fails with not_found, and so
 * does a protocol named twice, gone by its second (as in EDK2's
 * CoreUninstallMultipleProtocolInterfaces). */
static efi_status_t uninstall(struct firmware *fw, uint64_t handle, const struct protocol_pair *p, unsigned n,
                              efi_status_t not_found)
{
    if (!fw_handle_known(fw, handle))
        return EFI_INVALID_PARAMETER;
    for (unsigned i = 0; i < n; i++) {
        const struct fw_handle_protocol *e = fw_find_protocol(fw, handle, &p[i].guid);
        if (!e || e->interface != p[i].interface)
            return not_found;
        for (unsigned j = 0; j < i; j++)
            if (guid_equal(&p[j].guid, &p[i].guid))
                return not_found;
    }
    for (unsigned i = 0; i < n; i++)
        fw_remove_protocol(fw, (unsigned)(fw_find_protocol(fw, handle, &p[i].guid) - fw->protocols));
    return EFI_SUCCESS;
}

efi_status_t fw_install_protocol_interface(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t handle_ptr = a[0], protocol = a[1], interface = a[3];
    uint32_t interface_type = (uint32_t)a[2];   /* an enum: as AllocatePages' (memory.c) */
    struct protocol_pair p = { .interface = interface };
    if (!fw_read_guid(v, protocol, &p.guid) || interface_type != EFI_NATIVE_INTERFACE)
        return EFI_INVALID_PARAMETER;
    return install(fw, v, handle_ptr, &p, 1, false);
}

void fw_decode_install_protocol_interface(struct fw_trace_out *o, const struct fw_service *s,
                                          const struct guest_view *v, const uint64_t *a, efi_status_t status)
{
    (void)s, (void)status;
    fw_trace_guid(o, "protocol", v, a[1]);
    fw_trace_hex(o, "interface", a[3]);
    fw_trace_ptr_uintn(o, "handle", v, a[0], true);
}

efi_status_t fw_uninstall_protocol_interface(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t handle = a[0], protocol = a[1], interface = a[2];
    struct protocol_pair p = { .interface = interface };
    if (!fw_read_guid(v, protocol, &p.guid))
        return EFI_INVALID_PARAMETER;
    return uninstall(fw, handle, &p, 1, EFI_NOT_FOUND);
}

/* Uninstall and ReinstallProtocolInterface: the handle, then the GUID. */
void fw_decode_handle_protocol_pair(struct fw_trace_out *o, const struct fw_service *s,
                                    const struct guest_view *v, const uint64_t *a, efi_status_t status)
{
    (void)s, (void)status;
    fw_trace_hex(o, "handle", a[0]);
    fw_trace_guid(o, "protocol", v, a[1]);
}

/* UEFI 2.10 section 7.3.4: the same GUID on the same handle, a new
 * interface; EFI_NOT_FOUND unless OldInterface is the one installed. */
efi_status_t fw_reinstall_protocol_interface(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t handle = a[0], protocol = a[1], old_interface = a[2], new_interface = a[3];
    efi_guid_t g;
    if (!fw_read_guid(v, protocol, &g) || !fw_handle_known(fw, handle))
        return EFI_INVALID_PARAMETER;
    struct fw_handle_protocol *e = fw_find_protocol(fw, handle, &g);
    if (!e || e->interface != old_interface)
        return EFI_NOT_FOUND;
    e->interface = new_interface;
    return EFI_SUCCESS;
}

/* Argument i of a variadic call: RCX, RDX, R8, R9, then the stack above
 * the shadow space and return address (Microsoft x64 convention). */
static bool variadic_arg(const struct firmware *fw, const struct guest_view *v, const uint64_t *a, unsigned i,
                         uint64_t *val)
{
    if (fw_ia32(fw))   /* cdecl: all on the stack, above the return address */
        return fw_read_uintn(fw, v, fw_stack32(fw->call->rsp, 4ULL * i), val);
    if (i < 4) {
        *val = a[i];
        return true;
    }
    return guest_view_read_u64(v, fw->call->rsp + 0x28 + 8ULL * (i - 4), val);
}

/* The GUID/interface pairs after the handle argument, up to the NULL
 * GUID; a list without one among its first FW_MAX_PROTOCOLS pairs, or
 * with an unreadable argument or GUID, is invalid. */
static efi_status_t variadic_pairs(const struct firmware *fw, const struct guest_view *v, const uint64_t *a,
                                   struct protocol_pair *p, unsigned *n)
{
    for (unsigned k = 0; k < FW_MAX_PROTOCOLS; k++) {
        uint64_t guid;
        if (!variadic_arg(fw, v, a, 1 + 2 * k, &guid))
            return EFI_INVALID_PARAMETER;
        if (!guid) {
            *n = k;
            return EFI_SUCCESS;
        }
        if (!variadic_arg(fw, v, a, 2 + 2 * k, &p[k].interface) || !fw_read_guid(v, guid, &p[k].guid))
            return EFI_INVALID_PARAMETER;
    }
    return EFI_INVALID_PARAMETER;
}

efi_status_t fw_install_multiple_protocol_interfaces(struct firmware *fw, const struct guest_view *v,
                                                     const uint64_t *a)
{
    uint64_t handle_ptr = a[0];
    struct protocol_pair p[FW_MAX_PROTOCOLS];
    unsigned n;
    efi_status_t s = variadic_pairs(fw, v, a, p, &n);
    return s == EFI_SUCCESS ? install(fw, v, handle_ptr, p, n, true) : s;
}

/* UEFI 2.10 section 7.3.17: any pair not installed fails them all with
 * EFI_INVALID_PARAMETER. */
efi_status_t fw_uninstall_multiple_protocol_interfaces(struct firmware *fw, const struct guest_view *v,
                                                       const uint64_t *a)
{
    uint64_t handle = a[0];
    struct protocol_pair p[FW_MAX_PROTOCOLS];
    unsigned n;
    efi_status_t s = variadic_pairs(fw, v, a, p, &n);
    return s == EFI_SUCCESS ? uninstall(fw, handle, p, n, EFI_INVALID_PARAMETER) : s;
}

/* The first two GUIDs of a variadic list (RDX and R9; the rest are on the
 * stack). A NULL first one ends the list: R9 is then no argument. */
static void decode_multiple(struct fw_trace_out *o, const struct guest_view *v, const uint64_t *a)
{
    if (!a[1])
        return;
    fw_trace_guid(o, "protocol", v, a[1]);
    fw_trace_guid(o, "protocol2", v, a[3]);
}

void fw_decode_install_multiple(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                                const uint64_t *a, efi_status_t status)
{
    (void)s, (void)status;
    decode_multiple(o, v, a);
    fw_trace_ptr_uintn(o, "handle", v, a[0], true);
}

void fw_decode_uninstall_multiple(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                                  const uint64_t *a, efi_status_t status)
{
    (void)s, (void)status;
    fw_trace_hex(o, "handle", a[0]);
    decode_multiple(o, v, a);
}

/* UEFI 2.10 section 7.3.14: a pool array of pointers to the handle's
 * protocol GUIDs, the GUIDs themselves copied after it. */
efi_status_t fw_protocols_per_handle(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t handle = a[0], buffer_ptr = a[1], count_ptr = a[2];
    uint64_t buf, n = 0, w = fw_uintn_size(fw);
    if (!fw_handle_known(fw, handle) || !fw_writable(v, buffer_ptr, w) || !fw_writable(v, count_ptr, w))
        return EFI_INVALID_PARAMETER;
    for (unsigned i = 0; i < fw->nprotocols; i++)
        n += fw->protocols[i].handle == handle;
    efi_status_t s = fw_pool_alloc(fw, EFI_BOOT_SERVICES_DATA, n * (w + sizeof(efi_guid_t)), &buf);
    if (s != EFI_SUCCESS)
        return s;
    for (unsigned i = 0, k = 0; i < fw->nprotocols; i++) {
        if (fw->protocols[i].handle != handle)
            continue;
        uint64_t guid_at = buf + n * w + k * sizeof(efi_guid_t);
        fw_write_uintn(fw, v, buf + w * k, guid_at);
        guest_view_write(v, guid_at, &fw->protocols[i].guid, sizeof(efi_guid_t));
        k++;
    }
    fw_write_uintn(fw, v, buffer_ptr, buf);
    fw_write_uintn(fw, v, count_ptr, n);
    return EFI_SUCCESS;
}

void fw_decode_protocols_per_handle(struct fw_trace_out *o, const struct fw_service *s,
                                    const struct guest_view *v, const uint64_t *a, efi_status_t status)
{
    (void)s, (void)status;
    fw_trace_hex(o, "handle", a[0]);
    fw_trace_ptr_uintn(o, "count", v, a[2], false);
}

static efi_status_t open_interface(struct firmware *fw, const struct guest_view *v, uint64_t handle,
                                   uint64_t guid_ptr, uint64_t iface_ptr, bool iface_optional)
{
    efi_guid_t g;
    if (!fw_read_guid(v, guid_ptr, &g))
        return EFI_INVALID_PARAMETER;
    if (iface_ptr && !fw_writable(v, iface_ptr, fw_uintn_size(fw)))
        return EFI_INVALID_PARAMETER;
    if (!iface_ptr && !iface_optional)
        return EFI_INVALID_PARAMETER;
    const struct fw_handle_protocol *p = fw_handle_known(fw, handle) ? fw_find_protocol(fw, handle, &g) : NULL;
    if (iface_ptr)
        fw_write_uintn(fw, v, iface_ptr, p ? p->interface : 0);
    if (!fw_handle_known(fw, handle))
        return EFI_INVALID_PARAMETER;
    return p ? EFI_SUCCESS : EFI_UNSUPPORTED;
}

efi_status_t fw_handle_protocol(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t handle = a[0], protocol = a[1], interface_ptr = a[2];
    return open_interface(fw, v, handle, protocol, interface_ptr, false);
}

/* Attributes is one of the values UEFI 2.10 section 7.3.9 names, with
 * the handles it needs (as EDK2's CoreOpenProtocol checks them); the
 * opens themselves are not recorded. */
static bool open_attributes_valid(const struct firmware *fw, uint64_t handle, uint32_t attributes, uint64_t agent,
                                  uint64_t controller)
{
    switch (attributes) {
    case EFI_OPEN_PROTOCOL_BY_HANDLE_PROTOCOL:
    case EFI_OPEN_PROTOCOL_GET_PROTOCOL:
    case EFI_OPEN_PROTOCOL_TEST_PROTOCOL:
        return true;
    case EFI_OPEN_PROTOCOL_BY_CHILD_CONTROLLER:
        return fw_handle_known(fw, agent) && fw_handle_known(fw, controller) && controller != handle;
    case EFI_OPEN_PROTOCOL_BY_DRIVER:
    case EFI_OPEN_PROTOCOL_BY_DRIVER | EFI_OPEN_PROTOCOL_EXCLUSIVE:
        return fw_handle_known(fw, agent) && fw_handle_known(fw, controller);
    case EFI_OPEN_PROTOCOL_EXCLUSIVE:
        return fw_handle_known(fw, agent);
    default:
        return false;
    }
}

efi_status_t fw_open_protocol(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t handle = a[0], protocol = a[1], agent = a[3], controller = a[4];
    uint32_t attributes = (uint32_t)a[5];   /* a UINT32: the upper half of its stack slot is not the caller's */
    if (!open_attributes_valid(fw, handle, attributes, agent, controller))
        return EFI_INVALID_PARAMETER;
    /* To test, Interface is optional and never written. */
    bool test = fw_open_only_tests(attributes);
    return open_interface(fw, v, handle, protocol, test ? 0 : a[2], test);
}

/* UEFI 2.10 section 7.3.10; the handles checked as EDK2's CoreCloseProtocol
 * does: Handle and AgentHandle, and ControllerHandle unless NULL. */
efi_status_t fw_close_protocol(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t handle = a[0], protocol = a[1], agent = a[2], controller = a[3];
    efi_guid_t g;
    if (!fw_read_guid(v, protocol, &g) || !fw_handle_known(fw, handle) || !fw_handle_known(fw, agent) ||
        (controller && !fw_handle_known(fw, controller)))
        return EFI_INVALID_PARAMETER;
    return fw_find_protocol(fw, handle, &g) ? EFI_SUCCESS : EFI_NOT_FOUND;
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

/* The handles a LocateHandle(Buffer) search finds, into handles[*n].
 * ByRegisterNotify's SearchKey is a Registration RegisterProtocolNotify
 * returned, and it returns none (not served): whatever the key, NULL (UEFI
 * 2.10 section 7.3, LocateHandle) or not, EFI_INVALID_PARAMETER, as
 * U-Boot's efi_locate_handle answers a key that is no registration. */
static efi_status_t locate(struct firmware *fw, const struct guest_view *v, uint32_t type, uint64_t guid_ptr,
                           uint64_t *handles, unsigned *n)
{
    efi_guid_t g;
    if (type != EFI_ALL_HANDLES && type != EFI_BY_PROTOCOL)
        return EFI_INVALID_PARAMETER;
    if (type == EFI_BY_PROTOCOL && !fw_read_guid(v, guid_ptr, &g))
        return EFI_INVALID_PARAMETER;
    *n = search_handles(fw, type, &g, handles);
    return EFI_SUCCESS;
}

efi_status_t fw_locate_handle(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint32_t search_type = (uint32_t)a[0];   /* an enum: as AllocatePages' (memory.c) */
    uint64_t protocol = a[1], size_ptr = a[3], buffer = a[4];
    uint64_t handles[FW_MAX_PROTOCOLS], size, w = fw_uintn_size(fw);
    unsigned n;
    efi_status_t s = locate(fw, v, search_type, protocol, handles, &n);
    if (s != EFI_SUCCESS)
        return s;
    if (!fw_read_uintn(fw, v, size_ptr, &size) || !fw_writable(v, size_ptr, w))
        return EFI_INVALID_PARAMETER;
    if (!n)
        return EFI_NOT_FOUND;
    if (size < n * w) {
        fw_write_uintn(fw, v, size_ptr, n * w);
        return EFI_BUFFER_TOO_SMALL;
    }
    if (!fw_writable(v, buffer, n * w))
        return EFI_INVALID_PARAMETER;
    fw_write_uintn_array(fw, v, buffer, handles, n);
    fw_write_uintn(fw, v, size_ptr, n * w);
    return EFI_SUCCESS;
}

efi_status_t fw_locate_handle_buffer(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint32_t search_type = (uint32_t)a[0];
    uint64_t protocol = a[1], count_ptr = a[3], buffer_ptr = a[4];
    uint64_t handles[FW_MAX_PROTOCOLS], buf;
    unsigned n;
    efi_status_t s = locate(fw, v, search_type, protocol, handles, &n);
    if (s != EFI_SUCCESS)
        return s;
    uint64_t w = fw_uintn_size(fw);
    if (!fw_writable(v, count_ptr, w) || !fw_writable(v, buffer_ptr, w))
        return EFI_INVALID_PARAMETER;
    if (!n)
        return EFI_NOT_FOUND;
    s = fw_pool_alloc(fw, EFI_BOOT_SERVICES_DATA, n * w, &buf);
    if (s != EFI_SUCCESS)
        return s;
    fw_write_uintn_array(fw, v, buf, handles, n);
    fw_write_uintn(fw, v, count_ptr, n);
    fw_write_uintn(fw, v, buffer_ptr, buf);
    return EFI_SUCCESS;
}

void fw_decode_locate_handle(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                             const uint64_t *a, efi_status_t status)
{
    uint32_t search_type = (uint32_t)a[0];
    fw_trace_str(o, "search", search_type == EFI_BY_PROTOCOL ? "ByProtocol"
                              : search_type == EFI_ALL_HANDLES ? "AllHandles" : "other");
    fw_decode_protocol(o, s, v, a, status);
}

/* UEFI 2.10 section 7.3, LocateProtocol: the first instance of the
 * protocol. A Registration is no registration (locate):
 * EFI_INVALID_PARAMETER, as U-Boot's efi_locate_protocol answers one. */
efi_status_t fw_locate_protocol(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t protocol = a[0], registration = a[1], interface_ptr = a[2];
    efi_guid_t g;
    if (!fw_writable(v, interface_ptr, fw_uintn_size(fw)))
        return EFI_INVALID_PARAMETER;
    /* *Interface is NULL on failure: the stub ignores the status for the
     * memory-attribute, TCG2 and CC protocols (section 7 item 3). */
    fw_write_uintn(fw, v, interface_ptr, 0);
    if (!fw_read_guid(v, protocol, &g))
        return EFI_INVALID_PARAMETER;
    if (registration)
        return EFI_INVALID_PARAMETER;
    for (unsigned i = 0; i < fw->nprotocols; i++)
        if (guid_equal(&fw->protocols[i].guid, &g)) {
            fw_write_uintn(fw, v, interface_ptr, fw->protocols[i].interface);
            return EFI_SUCCESS;
        }
    return EFI_NOT_FOUND;
}

void fw_decode_locate_protocol(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                               const uint64_t *a, efi_status_t status)
{
    fw_decode_protocol(o, s, v, a, status);
    fw_trace_ptr_uintn(o, "interface", v, a[2], true);
}

efi_status_t fw_locate_device_path(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t protocol = a[0], device_path_ptr = a[1], device_ptr = a[2];
    efi_guid_t g;
    uint64_t dp, handle = 0;
    uint8_t path[FW_DEVICE_PATH_SIZE];
    long want;
    if (!fw_read_guid(v, protocol, &g) || !fw_writable(v, device_path_ptr, fw_uintn_size(fw)) ||
        !fw_read_uintn(fw, v, device_path_ptr, &dp) || !dp || !fw_writable(v, device_ptr, fw_uintn_size(fw)) ||
        (want = fw_device_path_copy(v, dp, path)) < 0)
        return EFI_INVALID_PARAMETER;
    long matched = fw_match_device_path(fw, v, &g, path, want, &handle);
    if (matched < 0)
        return EFI_NOT_FOUND;
    fw_write_uintn(fw, v, device_ptr, handle);
    fw_write_uintn(fw, v, device_path_ptr, dp + (uint64_t)matched);
    return EFI_SUCCESS;
}
