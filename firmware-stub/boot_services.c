/* EFI_BOOT_SERVICES (UEFI 2.10 chapter 7): memory, protocol handlers and
 * image services, served on the host (events: events.c; images: image.c). Every guest pointer goes through the
 * guest view; a bad one yields EFI_INVALID_PARAMETER. */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "trace_decode.h"

#define MEMORY_DESCRIPTOR_SIZE FW_MEMORY_DESCRIPTOR_SIZE
#define MAX_HOST_COPY   (256ULL << 20) /* largest CopyMem/CalculateCrc32 buffer */
#define ALLOCATE_PAGES_MEMORY 3  /* AllocatePages' EFI_PHYSICAL_ADDRESS *Memory */

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
    uint64_t new_tpl = a[0], old = fw->tpl;
    if (new_tpl <= FW_TPL_HIGH_LEVEL)
        fw->tpl = new_tpl;
    return old;   /* RaiseTPL returns the previous EFI_TPL, not a status */
}

static efi_status_t restore_tpl(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    (void)v;
    uint64_t old_tpl = a[0];
    if (old_tpl <= FW_TPL_HIGH_LEVEL)
        fw->tpl = old_tpl;
    return EFI_SUCCESS;
}

/* ---- memory ------------------------------------------------------------- */

static efi_status_t allocate_pages(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t type = a[0], memory_type = a[1], pages = a[2], memory_ptr = a[ALLOCATE_PAGES_MEMORY];
    uint64_t addr;
    if (!guest_view_read_u64(v, memory_ptr, &addr) || !writable(v, memory_ptr, 8))
        return EFI_INVALID_PARAMETER;
    if (type > UINT32_MAX || memory_type > UINT32_MAX)
        return EFI_INVALID_PARAMETER;
    efi_status_t s = memmap_allocate(&fw->map, (uint32_t)type, (uint32_t)memory_type, pages, &addr);
    if (s == EFI_SUCCESS)
        guest_view_write_u64(v, memory_ptr, addr);
    return s;
}

bool fw_allocated_pages(const struct guest_view *v, const uint64_t *a, uint64_t *addr)
{
    return guest_view_read_u64(v, a[ALLOCATE_PAGES_MEMORY], addr);
}

static const char *allocate_type_name(uint64_t t)
{
    static const char *const names[] = { "AllocateAnyPages", "AllocateMaxAddress", "AllocateAddress" };
    return t < 3 ? names[t] : "invalid";
}

static void decode_allocate_pages(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                                  const uint64_t *a, efi_status_t status)
{
    (void)s, (void)status;
    fw_trace_str(o, "type", allocate_type_name(a[0]));
    fw_trace_memory_type(o, a[1]);
    fw_trace_u64(o, "pages", a[2]);
    fw_trace_ptr_u64(o, "address", v, a[ALLOCATE_PAGES_MEMORY], true);
}

static bool overlaps(uint64_t a, uint64_t a_len, uint64_t b, uint64_t b_len)
{
    return a_len && b_len && a < b + b_len && b < a + a_len;
}

/* Which image [memory, memory + len) touches: the top-level image or one
 * LoadImage holds; "" if none. */
static const char *image_in(const struct firmware *fw, uint64_t memory, uint64_t len)
{
    if (overlaps(memory, len, fw->cfg.image_base, fw->cfg.image_size))
        return "the top-level image";
    for (unsigned i = 0; i < fw->nimages; i++)
        if (overlaps(memory, len, fw->images[i].base, fw->images[i].pages << 12))
            return fw->images[i].started ? "a started image" : "a loaded image";
    return "";
}

/* An image's pages are the firmware's, not an AllocatePages allocation:
 * freeing them would let the allocator hand the running code out again.
 * EFI_NOT_FOUND, as UEFI 2.10 section 7.2.3 has FreePages answer for pages
 * AllocatePages did not allocate; a range that wraps is memmap_free's to
 * refuse. */
static efi_status_t free_pages(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    (void)v;
    uint64_t memory = a[0], pages = a[1];
    const char *image = pages <= (UINT64_MAX - memory) >> 12 ? image_in(fw, memory, pages << 12) : "";
    if (image[0]) {
        fw_log(fw, "guest bug: FreePages(0x%llx, %llu pages) would free %s's pages: EFI_NOT_FOUND",
               (unsigned long long)memory, (unsigned long long)pages, image);
        return EFI_NOT_FOUND;
    }
    return memmap_free(&fw->map, memory, pages);
}

static void decode_free_pages(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                              const uint64_t *a, efi_status_t status)
{
    (void)s, (void)v, (void)status;
    fw_trace_hex(o, "address", a[0]);
    fw_trace_u64(o, "pages", a[1]);
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

static void decode_get_memory_map(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                                  const uint64_t *a, efi_status_t status)
{
    (void)s;
    fw_trace_ptr_u64(o, "map_size", v, a[0], false);
    /* Only a successful call sets *MapKey: otherwise it is whatever the
     * caller's stack held. */
    if (status == EFI_SUCCESS)
        fw_trace_ptr_u64(o, "map_key", v, a[2], false);
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
    uint64_t pool_type = a[0], size = a[1], buffer_ptr = a[2];
    uint64_t addr;
    if (!writable(v, buffer_ptr, 8) || pool_type > UINT32_MAX || !memmap_type_allocatable((uint32_t)pool_type))
        return EFI_INVALID_PARAMETER;
    efi_status_t s = fw_pool_alloc(fw, (uint32_t)pool_type, size, &addr);
    if (s == EFI_SUCCESS)
        guest_view_write_u64(v, buffer_ptr, addr);
    return s;
}

static void decode_allocate_pool(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                                 const uint64_t *a, efi_status_t status)
{
    (void)s, (void)status;
    fw_trace_memory_type(o, a[0]);
    fw_trace_u64(o, "size", a[1]);
    fw_trace_ptr_u64(o, "buffer", v, a[2], true);
}

efi_status_t fw_pool_free(struct firmware *fw, uint64_t buffer)
{
    for (unsigned i = 0; i < fw->npools; i++) {
        if (fw->pools[i].addr != buffer)
            continue;
        efi_status_t s = memmap_free(&fw->map, fw->pools[i].addr, fw->pools[i].pages);
        fw->pools[i] = fw->pools[--fw->npools];
        return s;
    }
    /* Includes FreePool(NULL), which the stub's setup_efi_pci makes. */
    return EFI_INVALID_PARAMETER;
}

static efi_status_t free_pool(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    (void)v;
    uint64_t buffer = a[0];
    return fw_pool_free(fw, buffer);
}

static void decode_free_pool(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                             const uint64_t *a, efi_status_t status)
{
    (void)s, (void)v, (void)status;
    fw_trace_hex(o, "buffer", a[0]);
}

/* ---- protocol handlers -------------------------------------------------- */

/* Length of a device path up to (not including) its end node, or -1. */
long fw_device_path_copy(const struct guest_view *v, uint64_t dp, uint8_t out[FW_DEVICE_PATH_SIZE])
{
    memset(out, 0, FW_DEVICE_PATH_SIZE);
    uint64_t off = 0;
    while (off < FW_DEVICE_PATH_MAX) {
        struct efi_device_path_header h;
        if (!guest_view_read(v, dp + off, &h, sizeof(h)))
            return -1;
        memcpy(out + off, &h, sizeof(h));
        unsigned len = h.length[0] | h.length[1] << 8;
        if (h.type == EFI_DEV_END_PATH && h.sub_type == EFI_DEV_END_ENTIRE)
            return (long)off;
        if (len < sizeof(h) || off + len >= FW_DEVICE_PATH_MAX ||
            !guest_view_read(v, dp + off + sizeof(h), out + off + sizeof(h), len - sizeof(h)))
            return -1;
        off += len;
    }
    return -1;
}

int fw_add_protocol(struct firmware *fw, uint64_t handle, const efi_guid_t *guid, uint64_t iface)
{
    if (fw->nprotocols >= FW_MAX_PROTOCOLS)
        return -1;
    fw->protocols[fw->nprotocols++] = (struct fw_handle_protocol){ handle, *guid, iface };
    return 0;
}

uint64_t fw_new_handle(struct firmware *fw)
{
    if (fw->ndyn_handles >= FW_MAX_DYN_HANDLES)
        return 0;
    return fw->cfg.base + FW_DYN_HANDLES_OFFSET + 16ULL * fw->ndyn_handles++;
}

/* A handle lives while it has a protocol (UEFI 2.10 section 7.3.3). */
static bool handle_known(const struct firmware *fw, uint64_t handle)
{
    for (unsigned i = 0; i < fw->nprotocols; i++)
        if (fw->protocols[i].handle == handle)
            return true;
    return false;
}

static struct fw_handle_protocol *find_protocol(struct firmware *fw, uint64_t handle, const efi_guid_t *g)
{
    for (unsigned i = 0; i < fw->nprotocols; i++)
        if (fw->protocols[i].handle == handle && guid_equal(&fw->protocols[i].guid, g))
            return &fw->protocols[i];
    return NULL;
}

/* Drop entry i, keeping the database's order (LocateHandle reports it). */
static void remove_entry(struct firmware *fw, unsigned i)
{
    memmove(&fw->protocols[i], &fw->protocols[i + 1], (fw->nprotocols - i - 1) * sizeof(fw->protocols[0]));
    fw->nprotocols--;
}

void fw_remove_handle(struct firmware *fw, uint64_t handle)
{
    for (unsigned i = fw->nprotocols; i-- > 0;)
        if (fw->protocols[i].handle == handle)
            remove_entry(fw, i);
}

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
 * EFI_ALREADY_STARTED (UEFI 2.10 sections 7.3.2 and 7.3.16). */
static efi_status_t install(struct firmware *fw, const struct guest_view *v, uint64_t handle_ptr,
                            const struct protocol_pair *p, unsigned n, bool multiple)
{
    uint64_t handle;
    if (!guest_view_read_u64(v, handle_ptr, &handle) || !writable(v, handle_ptr, 8))
        return EFI_INVALID_PARAMETER;
    if (handle && !handle_known(fw, handle))
        return EFI_INVALID_PARAMETER;
    for (unsigned i = 0; i < n; i++) {
        if (handle && find_protocol(fw, handle, &p[i].guid))
            return EFI_INVALID_PARAMETER;
        for (unsigned j = 0; j < i; j++)
            if (guid_equal(&p[j].guid, &p[i].guid))
                return EFI_INVALID_PARAMETER;
        if (multiple && guid_equal(&p[i].guid, &GUID_DEVICE_PATH)) {
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
    guest_view_write_u64(v, handle_ptr, handle);
    return EFI_SUCCESS;
}

/* Remove every pair from handle, all or nothing: a pair not installed
 * there (that interface for that protocol) fails with not_found. */
static efi_status_t uninstall(struct firmware *fw, uint64_t handle, const struct protocol_pair *p, unsigned n,
                              efi_status_t not_found)
{
    if (!handle_known(fw, handle))
        return EFI_INVALID_PARAMETER;
    for (unsigned i = 0; i < n; i++) {
        const struct fw_handle_protocol *e = find_protocol(fw, handle, &p[i].guid);
        if (!e || e->interface != p[i].interface)
            return not_found;
    }
    for (unsigned i = 0; i < n; i++)
        remove_entry(fw, (unsigned)(find_protocol(fw, handle, &p[i].guid) - fw->protocols));
    return EFI_SUCCESS;
}

static efi_status_t install_protocol_interface(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t handle_ptr = a[0], protocol = a[1], interface_type = a[2], interface = a[3];
    struct protocol_pair p = { .interface = interface };
    if (!read_guid(v, protocol, &p.guid) || interface_type != EFI_NATIVE_INTERFACE)
        return EFI_INVALID_PARAMETER;
    return install(fw, v, handle_ptr, &p, 1, false);
}

static void decode_install_protocol_interface(struct fw_trace_out *o, const struct fw_service *s,
                                              const struct guest_view *v, const uint64_t *a, efi_status_t status)
{
    (void)s, (void)status;
    fw_trace_guid(o, "protocol", v, a[1]);
    fw_trace_hex(o, "interface", a[3]);
    fw_trace_ptr_u64(o, "handle", v, a[0], true);
}

static efi_status_t uninstall_protocol_interface(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t handle = a[0], protocol = a[1], interface = a[2];
    struct protocol_pair p = { .interface = interface };
    if (!read_guid(v, protocol, &p.guid))
        return EFI_INVALID_PARAMETER;
    return uninstall(fw, handle, &p, 1, EFI_NOT_FOUND);
}

/* Uninstall and ReinstallProtocolInterface: the handle, then the GUID. */
static void decode_handle_protocol_pair(struct fw_trace_out *o, const struct fw_service *s,
                                        const struct guest_view *v, const uint64_t *a, efi_status_t status)
{
    (void)s, (void)status;
    fw_trace_hex(o, "handle", a[0]);
    fw_trace_guid(o, "protocol", v, a[1]);
}

/* UEFI 2.10 section 7.3.4: the same GUID on the same handle, a new
 * interface; EFI_NOT_FOUND unless OldInterface is the one installed. */
static efi_status_t reinstall_protocol_interface(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t handle = a[0], protocol = a[1], old_interface = a[2], new_interface = a[3];
    efi_guid_t g;
    if (!read_guid(v, protocol, &g) || !handle_known(fw, handle))
        return EFI_INVALID_PARAMETER;
    struct fw_handle_protocol *e = find_protocol(fw, handle, &g);
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
        if (!variadic_arg(fw, v, a, 2 + 2 * k, &p[k].interface) || !read_guid(v, guid, &p[k].guid))
            return EFI_INVALID_PARAMETER;
    }
    return EFI_INVALID_PARAMETER;
}

static efi_status_t install_multiple_protocol_interfaces(struct firmware *fw, const struct guest_view *v,
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
static efi_status_t uninstall_multiple_protocol_interfaces(struct firmware *fw, const struct guest_view *v,
                                                           const uint64_t *a)
{
    uint64_t handle = a[0];
    struct protocol_pair p[FW_MAX_PROTOCOLS];
    unsigned n;
    efi_status_t s = variadic_pairs(fw, v, a, p, &n);
    return s == EFI_SUCCESS ? uninstall(fw, handle, p, n, EFI_INVALID_PARAMETER) : s;
}

/* The first two GUIDs of a variadic list (RDX and R9; the rest are on the stack). */
static void decode_multiple(struct fw_trace_out *o, const struct guest_view *v, const uint64_t *a)
{
    fw_trace_guid(o, "protocol", v, a[1]);
    fw_trace_guid(o, "protocol2", v, a[3]);
}

static void decode_install_multiple(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                                    const uint64_t *a, efi_status_t status)
{
    (void)s, (void)status;
    decode_multiple(o, v, a);
    fw_trace_ptr_u64(o, "handle", v, a[0], true);
}

static void decode_uninstall_multiple(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                                      const uint64_t *a, efi_status_t status)
{
    (void)s, (void)status;
    fw_trace_hex(o, "handle", a[0]);
    decode_multiple(o, v, a);
}

/* UEFI 2.10 section 7.3.14: a pool array of pointers to the handle's
 * protocol GUIDs, the GUIDs themselves copied after it. */
static efi_status_t protocols_per_handle(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t handle = a[0], buffer_ptr = a[1], count_ptr = a[2];
    uint64_t buf, n = 0;
    if (!handle_known(fw, handle) || !writable(v, buffer_ptr, 8) || !writable(v, count_ptr, 8))
        return EFI_INVALID_PARAMETER;
    for (unsigned i = 0; i < fw->nprotocols; i++)
        n += fw->protocols[i].handle == handle;
    efi_status_t s = fw_pool_alloc(fw, EFI_BOOT_SERVICES_DATA, n * (8 + sizeof(efi_guid_t)), &buf);
    if (s != EFI_SUCCESS)
        return s;
    for (unsigned i = 0, k = 0; i < fw->nprotocols; i++) {
        if (fw->protocols[i].handle != handle)
            continue;
        uint64_t guid_at = buf + n * 8 + k * sizeof(efi_guid_t);
        guest_view_write_u64(v, buf + 8ULL * k, guid_at);
        guest_view_write(v, guid_at, &fw->protocols[i].guid, sizeof(efi_guid_t));
        k++;
    }
    guest_view_write_u64(v, buffer_ptr, buf);
    guest_view_write_u64(v, count_ptr, n);
    return EFI_SUCCESS;
}

static void decode_protocols_per_handle(struct fw_trace_out *o, const struct fw_service *s,
                                        const struct guest_view *v, const uint64_t *a, efi_status_t status)
{
    (void)s, (void)status;
    fw_trace_hex(o, "handle", a[0]);
    fw_trace_ptr_u64(o, "count", v, a[2], false);
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
    uint64_t handle = a[0], protocol = a[1], interface_ptr = a[2];
    return open_interface(fw, v, handle, protocol, interface_ptr, false);
}

#define EFI_OPEN_PROTOCOL_TEST_PROTOCOL 0x4

static efi_status_t open_protocol(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t handle = a[0], protocol = a[1], interface_ptr = a[2], attributes = a[5];
    return open_interface(fw, v, handle, protocol, interface_ptr, attributes == EFI_OPEN_PROTOCOL_TEST_PROTOCOL);
}

static efi_status_t close_protocol(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t handle = a[0], protocol = a[1];
    efi_guid_t g;
    if (!read_guid(v, protocol, &g) || !handle_known(fw, handle))
        return EFI_INVALID_PARAMETER;
    return find_protocol(fw, handle, &g) ? EFI_SUCCESS : EFI_NOT_FOUND;
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
    uint64_t search_type = a[0], protocol = a[1], size_ptr = a[3], buffer = a[4];
    uint64_t handles[FW_MAX_PROTOCOLS], size;
    unsigned n;
    efi_status_t s = locate(fw, v, search_type, protocol, handles, &n);
    if (s != EFI_SUCCESS)
        return s;
    if (!guest_view_read_u64(v, size_ptr, &size) || !writable(v, size_ptr, 8))
        return EFI_INVALID_PARAMETER;
    if (!n)
        return EFI_NOT_FOUND;
    if (size < n * 8ULL) {
        guest_view_write_u64(v, size_ptr, n * 8ULL);
        return EFI_BUFFER_TOO_SMALL;
    }
    if (!writable(v, buffer, n * 8ULL))
        return EFI_INVALID_PARAMETER;
    guest_view_write(v, buffer, handles, n * 8ULL);
    guest_view_write_u64(v, size_ptr, n * 8ULL);
    return EFI_SUCCESS;
}

static efi_status_t locate_handle_buffer(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t search_type = a[0], protocol = a[1], count_ptr = a[3], buffer_ptr = a[4];
    uint64_t handles[FW_MAX_PROTOCOLS], buf;
    unsigned n;
    efi_status_t s = locate(fw, v, search_type, protocol, handles, &n);
    if (s != EFI_SUCCESS)
        return s;
    if (!writable(v, count_ptr, 8) || !writable(v, buffer_ptr, 8))
        return EFI_INVALID_PARAMETER;
    if (!n)
        return EFI_NOT_FOUND;
    s = fw_pool_alloc(fw, EFI_BOOT_SERVICES_DATA, n * 8ULL, &buf);
    if (s != EFI_SUCCESS)
        return s;
    guest_view_write(v, buf, handles, n * 8ULL);
    guest_view_write_u64(v, count_ptr, n);
    guest_view_write_u64(v, buffer_ptr, buf);
    return EFI_SUCCESS;
}

static void decode_locate_handle(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                                 const uint64_t *a, efi_status_t status)
{
    uint64_t search_type = a[0];
    fw_trace_str(o, "search", search_type == EFI_BY_PROTOCOL ? "ByProtocol"
                              : search_type == EFI_ALL_HANDLES ? "AllHandles" : "other");
    fw_decode_protocol(o, s, v, a, status);
}

static efi_status_t locate_protocol(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t protocol = a[0], interface_ptr = a[2];
    efi_guid_t g;
    if (!writable(v, interface_ptr, 8))
        return EFI_INVALID_PARAMETER;
    /* *Interface is NULL on failure: the stub ignores the status for the
     * memory-attribute, TCG2 and CC protocols (section 7 item 3). */
    guest_view_write_u64(v, interface_ptr, 0);
    if (!read_guid(v, protocol, &g))
        return EFI_INVALID_PARAMETER;
    for (unsigned i = 0; i < fw->nprotocols; i++)
        if (guid_equal(&fw->protocols[i].guid, &g)) {
            guest_view_write_u64(v, interface_ptr, fw->protocols[i].interface);
            return EFI_SUCCESS;
        }
    return EFI_NOT_FOUND;
}

static void decode_locate_protocol(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                                   const uint64_t *a, efi_status_t status)
{
    fw_decode_protocol(o, s, v, a, status);
    fw_trace_ptr_u64(o, "interface", v, a[2], true);
}

long fw_locate_device_path(struct firmware *fw, const struct guest_view *v, const efi_guid_t *g, const uint8_t *path,
                           long want, uint64_t *handle)
{
    uint8_t cand[FW_DEVICE_PATH_SIZE];
    /* The handle supporting the protocol whose device path is the longest
     * prefix of *DevicePath (UEFI 2.10 section 7.3.7). */
    long best = -1;
    for (unsigned i = 0; i < fw->nprotocols; i++) {
        const struct fw_handle_protocol *p = &fw->protocols[i];
        if (!guid_equal(&p->guid, &GUID_DEVICE_PATH) || !find_protocol(fw, p->handle, g))
            continue;
        long len = fw_device_path_copy(v, p->interface, cand);
        if (len < 0 || len > want || len <= best)
            continue;
        if (!memcmp(cand, path, (size_t)len)) {
            best = len;
            *handle = p->handle;
        }
    }
    return best;
}

static efi_status_t locate_device_path(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t protocol = a[0], device_path_ptr = a[1], device_ptr = a[2];
    efi_guid_t g;
    uint64_t dp, handle = 0;
    uint8_t path[FW_DEVICE_PATH_SIZE];
    long want;
    if (!read_guid(v, protocol, &g) || !guest_view_read_u64(v, device_path_ptr, &dp) || !dp ||
        !writable(v, device_ptr, 8) || (want = fw_device_path_copy(v, dp, path)) < 0)
        return EFI_INVALID_PARAMETER;
    long matched = fw_locate_device_path(fw, v, &g, path, want, &handle);
    if (matched < 0)
        return EFI_NOT_FOUND;
    guest_view_write_u64(v, device_ptr, handle);
    guest_view_write_u64(v, device_path_ptr, dp + (uint64_t)matched);
    return EFI_SUCCESS;
}

static efi_status_t install_configuration_table(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t guid = a[0], table = a[1];
    efi_guid_t g;
    if (!read_guid(v, guid, &g))
        return EFI_INVALID_PARAMETER;
    return fw_install_config_table(fw, &g, table);
}

static void decode_install_configuration_table(struct fw_trace_out *o, const struct fw_service *s,
                                               const struct guest_view *v, const uint64_t *a, efi_status_t status)
{
    (void)s, (void)status;
    fw_trace_guid(o, "guid", v, a[0]);
    fw_trace_hex(o, "table", a[1]);
}

/* ---- image services ----------------------------------------------------- */

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
    /* The group's notify functions run before boot services end, as in
     * EDK2's CoreExitBootServices. */
    fw_signal_event_group(fw, &GUID_EVENT_GROUP_EXIT_BOOT_SERVICES);
    if (fw_notify_dispatch(fw, FW_NOTIFY_EXIT_BOOT_SERVICES, EFI_SUCCESS))
        return EFI_SUCCESS;
    return fw_finish_exit_boot_services(fw, map_key);
}

efi_status_t fw_finish_exit_boot_services(struct firmware *fw, uint64_t map_key)
{
    /* UEFI 2.10 section 7.1.1: those functions must not allocate memory. */
    if (map_key != fw->map.key)
        fw_log(fw, "guest bug: an ExitBootServices notify function changed the memory map");
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
    if (!writable(v, count_ptr, 8))
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

static efi_status_t set_watchdog_timer(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    (void)v;
    /* Recorded, and disarmed by ExitBootServices; a guest that stops
     * making progress is ended by --timeout instead. */
    uint64_t timeout = a[0];
    fw->watchdog_seconds = timeout;
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
    uint64_t data = a[0], size = a[1], crc_ptr = a[2];
    if (!writable(v, crc_ptr, 4))
        return EFI_INVALID_PARAMETER;
    uint8_t *buf = read_buffer(v, data, size);
    if (!buf)
        return EFI_INVALID_PARAMETER;
    uint32_t crc = (uint32_t)crc32(0, buf, (uInt)size);
    free(buf);
    guest_view_write(v, crc_ptr, &crc, 4);
    return EFI_SUCCESS;
}

static efi_status_t copy_mem(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t destination = a[0], source = a[1], length = a[2];
    if (!length)
        return EFI_SUCCESS;
    uint8_t *buf = read_buffer(v, source, length);
    if (!buf || !writable(v, destination, length)) {
        fw_log(fw, "guest bug: CopyMem(0x%llx, 0x%llx, 0x%llx) outside guest memory; nothing copied",
               (unsigned long long)destination, (unsigned long long)source, (unsigned long long)length);
        free(buf);
        return EFI_INVALID_PARAMETER;
    }
    guest_view_write(v, destination, buf, length);
    free(buf);
    return EFI_SUCCESS;
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
 * Locate services EFI_NOT_FOUND; those with an *Interface clear it. */
#define LOOKUP_HANDLE   { .not_found = EFI_UNSUPPORTED, .guid = 1, .clears_interface = true }
#define LOOKUP_SEARCH   { .not_found = EFI_NOT_FOUND, .guid = 1, .by_protocol = true }

#define BS(i, ...) [i] = { .id = FW_ID_BS(i), __VA_ARGS__ }   /* i: enum efi_boot_service */

const struct fw_service fw_boot_services[BS_COUNT] = {
    BS(BS_RAISE_TPL, .name = "RaiseTPL", .nargs = 1, .fn = raise_tpl),
    BS(BS_RESTORE_TPL, .name = "RestoreTPL", .nargs = 1, .fn = restore_tpl),
    BS(BS_ALLOCATE_PAGES, .name = "AllocatePages", .nargs = 4, .fn = allocate_pages, .decode = decode_allocate_pages,
       .faults = FW_FAULT(ALLOC_PAGES_FAIL) | FW_FAULT(ALLOC_PAGES_ABOVE)),
    BS(BS_FREE_PAGES, .name = "FreePages", .nargs = 2, .fn = free_pages, .decode = decode_free_pages),
    BS(BS_GET_MEMORY_MAP, .name = "GetMemoryMap", .nargs = 5, .fn = get_memory_map, .decode = decode_get_memory_map,
       .faults = FW_FAULT(GMM_TOO_SMALL)),
    BS(BS_ALLOCATE_POOL, .name = "AllocatePool", .nargs = 3, .fn = allocate_pool, .decode = decode_allocate_pool,
       .faults = FW_FAULT(ALLOC_POOL_FAIL)),
    BS(BS_FREE_POOL, .name = "FreePool", .nargs = 1, .fn = free_pool, .decode = decode_free_pool),
    BS(BS_CREATE_EVENT, .name = "CreateEvent", .nargs = 5, .fn = fw_create_event, .decode = fw_decode_create_event),
    BS(BS_SET_TIMER, .name = "SetTimer", .nargs = 3, .fn = fw_set_timer, .decode = fw_decode_set_timer),
    BS(BS_WAIT_FOR_EVENT, .name = "WaitForEvent", .nargs = 3, .fn = fw_wait_for_event,
       .decode = fw_decode_wait_for_event),
    BS(BS_SIGNAL_EVENT, .name = "SignalEvent", .nargs = 1, .fn = fw_signal_event, .decode = fw_decode_event),
    BS(BS_CLOSE_EVENT, .name = "CloseEvent", .nargs = 1, .fn = fw_close_event, .decode = fw_decode_event),
    BS(BS_CHECK_EVENT, .name = "CheckEvent", .nargs = 1, .fn = fw_check_event, .decode = fw_decode_event),
    BS(BS_INSTALL_PROTOCOL_INTERFACE, .name = "InstallProtocolInterface", .nargs = 4, .fn = install_protocol_interface,
       .decode = decode_install_protocol_interface),
    BS(BS_REINSTALL_PROTOCOL_INTERFACE, .name = "ReinstallProtocolInterface", .nargs = 4,
       .fn = reinstall_protocol_interface, .decode = decode_handle_protocol_pair),
    BS(BS_UNINSTALL_PROTOCOL_INTERFACE, .name = "UninstallProtocolInterface", .nargs = 3,
       .fn = uninstall_protocol_interface, .decode = decode_handle_protocol_pair),
    BS(BS_HANDLE_PROTOCOL, .name = "HandleProtocol", .nargs = 3, .fn = handle_protocol, .decode = fw_decode_protocol,
       .lookup = LOOKUP_HANDLE),
    BS(BS_RESERVED, .name = "Reserved", .nargs = 0),
    BS(BS_REGISTER_PROTOCOL_NOTIFY, .name = "RegisterProtocolNotify", .nargs = 3),
    BS(BS_LOCATE_HANDLE, .name = "LocateHandle", .nargs = 5, .fn = locate_handle, .decode = decode_locate_handle,
       .lookup = LOOKUP_SEARCH),
    BS(BS_LOCATE_DEVICE_PATH, .name = "LocateDevicePath", .nargs = 3, .fn = locate_device_path,
       .decode = fw_decode_protocol, .lookup = { .not_found = EFI_NOT_FOUND, .guid = 0 },
       .faults = FW_FAULT(NO_LOADFILE2)),
    BS(BS_INSTALL_CONFIGURATION_TABLE, .name = "InstallConfigurationTable", .nargs = 2,
       .fn = install_configuration_table, .decode = decode_install_configuration_table),
    BS(BS_LOAD_IMAGE, .name = "LoadImage", .nargs = 6, .fn = fw_load_image, .decode = fw_decode_load_image),
    BS(BS_START_IMAGE, .name = "StartImage", .nargs = 3, .fn = fw_start_image, .decode = fw_decode_image_handle),
    BS(BS_EXIT, .name = "Exit", .nargs = 4, .fn = fw_exit, .decode = fw_decode_exit),
    BS(BS_UNLOAD_IMAGE, .name = "UnloadImage", .nargs = 1, .fn = fw_unload_image, .decode = fw_decode_image_handle),
    BS(BS_EXIT_BOOT_SERVICES, .name = "ExitBootServices", .nargs = 2, .fn = exit_boot_services,
       .decode = decode_exit_boot_services, .faults = FW_FAULT(EBS_STALE_KEY)),
    BS(BS_GET_NEXT_MONOTONIC_COUNT, .name = "GetNextMonotonicCount", .nargs = 1, .fn = get_next_monotonic_count),
    BS(BS_STALL, .name = "Stall", .nargs = 1, .fn = stall),
    BS(BS_SET_WATCHDOG_TIMER, .name = "SetWatchdogTimer", .nargs = 4, .fn = set_watchdog_timer),
    BS(BS_CONNECT_CONTROLLER, .name = "ConnectController", .nargs = 4),
    BS(BS_DISCONNECT_CONTROLLER, .name = "DisconnectController", .nargs = 3),
    BS(BS_OPEN_PROTOCOL, .name = "OpenProtocol", .nargs = 6, .fn = open_protocol, .decode = fw_decode_protocol,
       .lookup = LOOKUP_HANDLE),
    BS(BS_CLOSE_PROTOCOL, .name = "CloseProtocol", .nargs = 4, .fn = close_protocol),
    BS(BS_OPEN_PROTOCOL_INFORMATION, .name = "OpenProtocolInformation", .nargs = 4),
    BS(BS_PROTOCOLS_PER_HANDLE, .name = "ProtocolsPerHandle", .nargs = 3, .fn = protocols_per_handle,
       .decode = decode_protocols_per_handle),
    BS(BS_LOCATE_HANDLE_BUFFER, .name = "LocateHandleBuffer", .nargs = 5, .fn = locate_handle_buffer,
       .decode = decode_locate_handle, .lookup = LOOKUP_SEARCH),
    BS(BS_LOCATE_PROTOCOL, .name = "LocateProtocol", .nargs = 3, .fn = locate_protocol,
       .decode = decode_locate_protocol,
       .lookup = { .not_found = EFI_NOT_FOUND, .guid = 0, .clears_interface = true }),
    BS(BS_INSTALL_MULTIPLE_PROTOCOL_INTERFACES, .name = "InstallMultipleProtocolInterfaces", .nargs = 4,
       .fn = install_multiple_protocol_interfaces, .decode = decode_install_multiple),
    BS(BS_UNINSTALL_MULTIPLE_PROTOCOL_INTERFACES, .name = "UninstallMultipleProtocolInterfaces", .nargs = 4,
       .fn = uninstall_multiple_protocol_interfaces, .decode = decode_uninstall_multiple),
    BS(BS_CALCULATE_CRC32, .name = "CalculateCrc32", .nargs = 3, .fn = calculate_crc32),
    BS(BS_COPY_MEM, .name = "CopyMem", .nargs = 3, .fn = copy_mem),
    BS(BS_SET_MEM, .name = "SetMem", .nargs = 3, .fn = set_mem),
    BS(BS_CREATE_EVENT_EX, .name = "CreateEventEx", .nargs = 6, .fn = fw_create_event_ex,
       .decode = fw_decode_create_event),
};
