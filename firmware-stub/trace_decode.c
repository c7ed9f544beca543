/* The "decoded" part of a trace line: a service's arguments as a person
 * reads them (GUIDs and memory types by name, sizes, what the call
 * returned through its pointers). Read after the call, through the same
 * guest view; anything unreadable is left out. */
#include "trace_decode.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "guids.h"
#include "ucs2.h"
#include "../guest/guest_text.h"

struct fw_trace_out {
    char *buf;
    size_t cap, len;
    unsigned uintn;     /* sizeof(UINTN) for the firmware's width: 8, or 4 on IA-32 */
};

static void put(struct fw_trace_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct fw_trace_out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        o->len = o->len + (size_t)n < o->cap ? o->len + (size_t)n : o->cap - 1;
}

static void field_sep(struct fw_trace_out *o) { put(o, o->buf[o->len - 1] == '{' ? "" : ","); }

void fw_trace_guid(struct fw_trace_out *o, const char *key, const struct guest_view *v, uint64_t addr)
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

void fw_trace_u64(struct fw_trace_out *o, const char *key, uint64_t val)
{
    field_sep(o);
    put(o, "\"%s\":%llu", key, (unsigned long long)val);
}

void fw_trace_hex(struct fw_trace_out *o, const char *key, uint64_t val)
{
    field_sep(o);
    put(o, "\"%s\":\"0x%llx\"", key, (unsigned long long)val);
}

void fw_trace_str(struct fw_trace_out *o, const char *key, const char *s)
{
    field_sep(o);
    put(o, "\"%s\":\"%s\"", key, s);
}

void fw_trace_ptr_u64(struct fw_trace_out *o, const char *key, const struct guest_view *v, uint64_t addr,
                      bool as_hex)
{
    uint64_t val;
    if (addr && guest_view_read_u64(v, addr, &val))
        as_hex ? fw_trace_hex(o, key, val) : fw_trace_u64(o, key, val);
}

void fw_trace_ptr_uintn(struct fw_trace_out *o, const char *key, const struct guest_view *v, uint64_t addr,
                        bool as_hex)
{
    uint64_t val = 0;
    if (addr && guest_view_read(v, addr, &val, o->uintn))
        as_hex ? fw_trace_hex(o, key, val) : fw_trace_u64(o, key, val);
}

void fw_trace_status(struct fw_trace_out *o, const char *key, uint64_t val)
{
    fw_trace_str(o, key, efi_status_name(o->uintn == 4 ? efi_status_from32((uint32_t)val) : val));
}

char fw_trace_ascii(uint16_t c)
{
    return guest_text_printable(c) && c != '"' && c != '\\' ? (char)c : '?';
}

void fw_trace_name(struct fw_trace_out *o, const struct guest_view *v, uint64_t addr)
{
    uint16_t w[64];
    char s[64];
    long n = fw_read_ucs2(v, addr, w, 64);
    if (n < 0)
        return;
    for (long i = 0; i <= n; i++)
        s[i] = w[i] ? fw_trace_ascii(w[i]) : 0;
    fw_trace_str(o, "name", s);
}

void fw_trace_memory_type(struct fw_trace_out *o, uint32_t type)
{
    fw_trace_str(o, "memory_type", efi_memory_type_name(type));
}

void fw_decode_protocol(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                        const uint64_t *a, efi_status_t status)
{
    (void)status;
    fw_trace_guid(o, "protocol", v, fw_protocol_arg(s, a));
}

/* Writes ,"decoded":{...} for the services that have one; nothing else. */
size_t fw_trace_decode(const struct fw_service *s, const struct guest_view *v, const uint64_t *a,
                       efi_status_t status, unsigned uintn, char *buf, size_t cap)
{
    struct fw_trace_out o = { buf, cap, 0, uintn };
    if (cap < 64 || !s || !s->decode)
        return 0;
    put(&o, ",\"decoded\":{");
    size_t start = o.len;
    s->decode(&o, s, v, a, status);
    if (o.len == start)
        return 0;
    put(&o, "}");
    return o.len;
}
