/* The "decoded" part of a trace line: a service's arguments as a person
 * reads them (GUIDs and memory types by name, sizes, what the call
 * returned through its pointers). Read after the call, through the same
 * guest view; anything unreadable is left out. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

struct out {
    char *buf;
    size_t cap, len;
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        o->len = o->len + (size_t)n < o->cap ? o->len + (size_t)n : o->cap - 1;
}

static void field_sep(struct out *o) { put(o, o->buf[o->len - 1] == '{' ? "" : ","); }

static void guid_field(struct out *o, const char *key, const struct guest_view *v, uint64_t addr)
{
    efi_guid_t g;
    char text[37];
    if (!addr || !guest_view_read(v, addr, &g, sizeof(g)))
        return;
    const char *name = guid_name(&g);
    guid_format(&g, text);
    field_sep(o);
    put(o, "\"%s\":\"%s\"", key, name ? name : text);
}

static void u64_field(struct out *o, const char *key, uint64_t v) { field_sep(o); put(o, "\"%s\":%llu", key, (unsigned long long)v); }
static void hex_field(struct out *o, const char *key, uint64_t v) { field_sep(o); put(o, "\"%s\":\"0x%llx\"", key, (unsigned long long)v); }
static void str_field(struct out *o, const char *key, const char *s) { field_sep(o); put(o, "\"%s\":\"%s\"", key, s); }

static void ptr_u64_field(struct out *o, const char *key, const struct guest_view *v, uint64_t addr, bool as_hex)
{
    uint64_t val;
    if (addr && guest_view_read_u64(v, addr, &val))
        as_hex ? hex_field(o, key, val) : u64_field(o, key, val);
}

static void name_field(struct out *o, const struct guest_view *v, uint64_t addr)
{
    uint16_t w[64];
    char s[64];
    long n = fw_read_ucs2(v, addr, w, 64);
    if (n < 0)
        return;
    for (long i = 0; i <= n; i++)   /* JSON-safe: printable ASCII only */
        s[i] = !w[i] ? 0 : (w[i] >= 0x20 && w[i] < 0x7f && w[i] != '"' && w[i] != '\\') ? (char)w[i] : '?';
    str_field(o, "name", s);
}

static const char *alloc_type_name(uint64_t t)
{
    static const char *const names[] = { "AllocateAnyPages", "AllocateMaxAddress", "AllocateAddress" };
    return t < 3 ? names[t] : "invalid";
}

static const char *memory_type(uint64_t t) { return t > UINT32_MAX ? "Invalid" : efi_memory_type_name((uint32_t)t); }

/* Writes ,"decoded":{...} for the services that have one; nothing else. */
size_t fw_trace_decode(unsigned id, const struct guest_view *v, const uint64_t *a, efi_status_t status, char *buf,
                       size_t cap)
{
    struct out o = { buf, cap, 0 };
    if (cap < 64)
        return 0;
    put(&o, ",\"decoded\":{");
    size_t start = o.len;
    switch (id) {
    case FW_ID_BS(BS_ALLOCATE_PAGES):
        str_field(&o, "type", alloc_type_name(a[0]));
        str_field(&o, "memory_type", memory_type(a[1]));
        u64_field(&o, "pages", a[2]);
        ptr_u64_field(&o, "address", v, a[3], true);
        break;
    case FW_ID_BS(BS_FREE_PAGES):
        hex_field(&o, "address", a[0]);
        u64_field(&o, "pages", a[1]);
        break;
    case FW_ID_BS(BS_GET_MEMORY_MAP):
        ptr_u64_field(&o, "map_size", v, a[0], false);
        /* Only a successful call sets *MapKey: otherwise it is whatever
         * the caller's stack held. */
        if (status == EFI_SUCCESS)
            ptr_u64_field(&o, "map_key", v, a[2], false);
        break;
    case FW_ID_BS(BS_ALLOCATE_POOL):
        str_field(&o, "memory_type", memory_type(a[0]));
        u64_field(&o, "size", a[1]);
        ptr_u64_field(&o, "buffer", v, a[2], true);
        break;
    case FW_ID_BS(BS_FREE_POOL):
        hex_field(&o, "buffer", a[0]);
        break;
    case FW_ID_BS(BS_HANDLE_PROTOCOL):
    case FW_ID_BS(BS_OPEN_PROTOCOL):
    case FW_ID_BS(BS_LOCATE_DEVICE_PATH):
        guid_field(&o, "protocol", v, firmware_protocol_arg(id, a));
        break;
    case FW_ID_BS(BS_LOCATE_PROTOCOL):
        guid_field(&o, "protocol", v, firmware_protocol_arg(id, a));
        ptr_u64_field(&o, "interface", v, a[2], true);
        break;
    case FW_ID_BS(BS_LOCATE_HANDLE):
    case FW_ID_BS(BS_LOCATE_HANDLE_BUFFER):
        str_field(&o, "search", a[0] == EFI_BY_PROTOCOL ? "ByProtocol" : a[0] == EFI_ALL_HANDLES ? "AllHandles" : "other");
        guid_field(&o, "protocol", v, firmware_protocol_arg(id, a));
        break;
    case FW_ID_BS(BS_INSTALL_CONFIGURATION_TABLE):
        guid_field(&o, "guid", v, a[0]);
        hex_field(&o, "table", a[1]);
        break;
    case FW_ID_BS(BS_EXIT_BOOT_SERVICES):
        u64_field(&o, "map_key", a[1]);
        break;
    case FW_ID_RT(RT_GET_VARIABLE):
    case FW_ID_RT(RT_SET_VARIABLE):
        name_field(&o, v, a[0]);
        guid_field(&o, "vendor", v, a[1]);
        if (id == FW_ID_RT(RT_SET_VARIABLE)) {
            hex_field(&o, "attributes", a[2]);
            u64_field(&o, "size", a[3]);
        } else {
            ptr_u64_field(&o, "size", v, a[3], false);
        }
        break;
    case FW_ID_RNG(1):  /* Rng.GetRNG */
        u64_field(&o, "length", a[2]);
        break;
    case FW_ID_LOADFILE2:
        ptr_u64_field(&o, "buffer_size", v, a[3], false);
        break;
    default:
        return 0;
    }
    if (o.len == start)
        return 0;
    put(&o, "}");
    return o.len;
}
