/* From a thunk ID to a host service: argument fetch (Microsoft x64 ABI),
 * the boot/runtime phase rule, one-time reports of unsupported services,
 * and the call trace. */
#include <stdarg.h>
#include <string.h>

#include "internal.h"

void fw_log(struct firmware *fw, const char *fmt, ...)
{
    if (!fw->cfg.log)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("handover: ", fw->cfg.log);
    vfprintf(fw->cfg.log, fmt, ap);
    fputc('\n', fw->cfg.log);
    va_end(ap);
}

static const struct fw_service *lookup(unsigned id)
{
    if (id >= FW_ID_BS(0) && id < FW_ID_BS(EFI_BOOT_SERVICES_COUNT))
        return &fw_boot_services[id - FW_ID_BS(0)];
    if (id >= FW_ID_RT(0) && id < FW_ID_RT(EFI_RUNTIME_SERVICES_COUNT))
        return &fw_runtime_services[id - FW_ID_RT(0)];
    if (id >= FW_ID_CONOUT(0) && id < FW_ID_CONOUT(9))
        return &fw_conout_services[id - FW_ID_CONOUT(0)];
    if (id >= FW_ID_CONIN(0) && id < FW_ID_CONIN(2))
        return &fw_conin_services[id - FW_ID_CONIN(0)];
    if (id >= FW_ID_RNG(0) && id < FW_ID_RNG(2))
        return &fw_rng_services[id - FW_ID_RNG(0)];
    if (id == FW_ID_LOADFILE2)
        return &fw_loadfile2_service;
    return NULL;
}

const char *firmware_service_name(unsigned id)
{
    const struct fw_service *s = lookup(id);
    return s ? s->name : NULL;
}

uint64_t firmware_thunk(const struct firmware *fw, unsigned id)
{
    return fw->cfg.base + FW_RT_CODE_OFFSET + (uint64_t)id * FW_THUNK_SIZE;
}

static bool is_boot_service(unsigned id)
{
    /* Protocol methods (ConOut, ConIn, RNG) are boot-time only, too. */
    return id < FW_ID_RT(0) || (id >= FW_ID_CONOUT(0) && id <= FW_ID_LOADFILE2);
}

static void trace_call(struct firmware *fw, const struct fw_service *s, unsigned id, const struct guest_view *v,
                       const uint64_t *a, unsigned nargs, efi_status_t status, const char *injected)
{
    char line[1024];
    int n = snprintf(line, sizeof(line), "{\"seq\":%llu,\"phase\":\"%s\",\"call\":\"%s\",\"args\":[",
                     (unsigned long long)fw->seq, fw->phase == FW_PHASE_BOOT ? "boot" : "runtime",
                     s ? s->name : "unknown");
    for (unsigned i = 0; i < nargs; i++)
        n += snprintf(line + n, sizeof(line) - (size_t)n, "%s\"0x%llx\"", i ? "," : "", (unsigned long long)a[i]);
    n += snprintf(line + n, sizeof(line) - (size_t)n, "],\"status\":\"%s\",\"map_key\":%llu",
                  efi_status_name(status), (unsigned long long)fw->map.key);
    if (!s)
        n += snprintf(line + n, sizeof(line) - (size_t)n, ",\"id\":%u", id);
    if (injected)
        n += snprintf(line + n, sizeof(line) - (size_t)n, ",\"injected\":\"%s\"", injected);
    n += (int)fw_trace_decode(id, v, a, line + n, sizeof(line) - (size_t)n - 4);
    n += snprintf(line + n, sizeof(line) - (size_t)n, "}\n");
    if (fw->trace_bytes + (uint64_t)n > fw->cfg.trace_limit) {
        if (fw->trace_bytes <= fw->cfg.trace_limit)
            fw_log(fw, "trace limit of %llu bytes reached (--trace-limit): no more calls are traced",
                   (unsigned long long)fw->cfg.trace_limit);
        fw->trace_bytes = fw->cfg.trace_limit + 1;
        return;
    }
    fw->trace_bytes += (uint64_t)n;
    fwrite(line, 1, (size_t)n, fw->cfg.trace);
}

#define ID_ALLOCATE_PAGES   FW_ID_BS(2)
#define ID_GET_MEMORY_MAP   FW_ID_BS(4)
#define ID_ALLOCATE_POOL    FW_ID_BS(5)
#define ID_HANDLE_PROTOCOL  FW_ID_BS(16)
#define ID_EXIT_BOOT_SERVICES FW_ID_BS(26)
#define ID_OPEN_PROTOCOL    FW_ID_BS(32)
#define ID_GET_VARIABLE     FW_ID_RT(6)

static bool fires(struct inject *in, enum inject_kind k)
{
    return in->on[k] && ++in->count[k] == in->value[k];
}

/* A fault to inject instead of the call, or NULL to make the call. */
static const char *inject_before(struct firmware *fw, unsigned id, const struct guest_view *v, const uint64_t *a,
                                 efi_status_t *status)
{
    struct inject *in = &fw->cfg.inject;
    uint64_t size;
    efi_guid_t g;
    switch (id) {
    case ID_GET_MEMORY_MAP:
        /* Only calls with a buffer the real map would fit: a size probe
         * gets EFI_BUFFER_TOO_SMALL anyway. */
        if (in->on[INJECT_GMM_TOO_SMALL] && in->count[INJECT_GMM_TOO_SMALL] < in->value[INJECT_GMM_TOO_SMALL] &&
            guest_view_read_u64(v, a[0], &size) && size > 0) {
            in->count[INJECT_GMM_TOO_SMALL]++;
            /* As the spec says: MapSize returns the size needed. */
            guest_view_write_u64(v, a[0], (uint64_t)fw->map.n * FW_MEMORY_DESCRIPTOR_SIZE);
            *status = EFI_BUFFER_TOO_SMALL;
            return inject_names[INJECT_GMM_TOO_SMALL];
        }
        break;
    case ID_EXIT_BOOT_SERVICES:
        if (in->on[INJECT_EBS_STALE_KEY] && !in->count[INJECT_EBS_STALE_KEY] && a[1] == fw->map.key) {
            in->count[INJECT_EBS_STALE_KEY]++;
            fw->map.key++;   /* as if an event had changed the map */
            *status = EFI_INVALID_PARAMETER;
            return inject_names[INJECT_EBS_STALE_KEY];
        }
        break;
    case ID_ALLOCATE_PAGES:
        if (fires(in, INJECT_ALLOC_PAGES_FAIL)) {
            *status = EFI_OUT_OF_RESOURCES;
            return inject_names[INJECT_ALLOC_PAGES_FAIL];
        }
        break;
    case ID_ALLOCATE_POOL:
        if (fires(in, INJECT_ALLOC_POOL_FAIL)) {
            *status = EFI_OUT_OF_RESOURCES;
            return inject_names[INJECT_ALLOC_POOL_FAIL];
        }
        break;
    case ID_HANDLE_PROTOCOL:
    case ID_OPEN_PROTOCOL:
        if (in->on[INJECT_NO_LOADED_IMAGE] && guest_view_read(v, a[1], &g, sizeof(g)) &&
            guid_equal(&g, &GUID_LOADED_IMAGE)) {
            if (a[2])
                guest_view_write_u64(v, a[2], 0);
            *status = EFI_UNSUPPORTED;
            return inject_names[INJECT_NO_LOADED_IMAGE];
        }
        break;
    case ID_GET_VARIABLE:
        if (in->on[INJECT_GETVAR_ERROR]) {
            *status = EFI_DEVICE_ERROR;
            return inject_names[INJECT_GETVAR_ERROR];
        }
        break;
    }
    return NULL;
}

/* alloc-pages-above: an allocation that landed at or above the address
 * is undone and fails. The memory-map faults are marked on every map the
 * guest reads. */
static const char *inject_after(struct firmware *fw, unsigned id, const struct guest_view *v, const uint64_t *a,
                                efi_status_t *status)
{
    struct inject *in = &fw->cfg.inject;
    uint64_t addr;
    if (id == ID_GET_MEMORY_MAP && *status == EFI_SUCCESS) {
        if (in->on[INJECT_MAP_FRAGMENTED])
            return inject_names[INJECT_MAP_FRAGMENTED];
        if (in->on[INJECT_NO_LOW_FREE])
            return inject_names[INJECT_NO_LOW_FREE];
    }
    if (id != ID_ALLOCATE_PAGES || !in->on[INJECT_ALLOC_PAGES_ABOVE] || *status != EFI_SUCCESS ||
        !guest_view_read_u64(v, a[3], &addr) || addr + (a[2] << 12) <= in->value[INJECT_ALLOC_PAGES_ABOVE])
        return NULL;
    memmap_free(&fw->map, addr, a[2]);
    *status = a[0] == EFI_ALLOCATE_ADDRESS ? EFI_NOT_FOUND : EFI_OUT_OF_RESOURCES;
    return inject_names[INJECT_ALLOC_PAGES_ABOVE];
}

uint64_t firmware_call(struct firmware *fw, unsigned id, const struct fw_call *call)
{
    uint64_t a[8] = { call->rcx, call->rdx, call->r8, call->r9 };
    const struct fw_service *s = lookup(id);
    unsigned nargs = s ? s->nargs : 4;
    efi_status_t status;
    const char *injected = NULL;

    fw->seq++;
    fw->calls++;
    if (id < FW_MAX_THUNKS)
        fw->calls_by_id[id]++;

    /* Arguments 5 and up sit above the 32-byte shadow space and the return
     * address: RSP+0x28, RSP+0x30, ... (Microsoft x64 calling convention). */
    for (unsigned i = 4; i < nargs; i++) {
        if (!guest_view_read_u64(&call->view, call->rsp + 0x28 + 8 * (i - 4), &a[i])) {
            fw_log(fw, "guest bug: %s: stack argument %u at RSP 0x%llx is not readable", s->name, i + 1,
                   (unsigned long long)call->rsp);
            status = EFI_INVALID_PARAMETER;
            goto out;
        }
    }
    if (!s) {
        fw_log(fw, "guest bug: firmware call with unknown service ID %u", id);
        status = EFI_UNSUPPORTED;
    } else if (fw->phase == FW_PHASE_RUNTIME && is_boot_service(id)) {
        fw_log(fw, "guest bug: %s called after ExitBootServices", s->name);
        status = EFI_UNSUPPORTED;
    } else if (!s->fn) {
        if (!fw->reported[id]) {
            fw_log(fw, "unsupported firmware service %s called; returning EFI_UNSUPPORTED", s->name);
            fw->reported[id] = true;
        }
        status = EFI_UNSUPPORTED;
    } else if (!(injected = inject_before(fw, id, &call->view, a, &status))) {
        status = s->fn(fw, &call->view, a);
        injected = inject_after(fw, id, &call->view, a, &status);
    }
    if (injected)
        fw_log(fw, "injected fault %s: %s returns %s", injected, s->name, efi_status_name(status));
out:
    if (fw->cfg.trace)
        trace_call(fw, s, id, &call->view, a, nargs, status, injected);
    return status;
}
