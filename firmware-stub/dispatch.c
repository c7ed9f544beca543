/* From a thunk ID to a host service: argument fetch (Microsoft x64 ABI),
 * the boot/runtime phase rule, one-time reports of unsupported services,
 * and the call trace. */
#include <stdarg.h>
#include <string.h>

#include "internal.h"

void fw_log(struct firmware *fw, const char *fmt, ...)
{
    if (!fw->cfg.log || fw->log_lines > FW_LOG_LIMIT)
        return;
    if (++fw->log_lines > FW_LOG_LIMIT) {
        fprintf(fw->cfg.log, "handover: %u firmware messages: no more are printed (a guest looping on bad calls?)\n",
                FW_LOG_LIMIT);
        return;
    }
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
    if (id >= FW_ID_CONOUT(0) && id < FW_ID_CONOUT(CONOUT_COUNT))
        return &fw_conout_services[id - FW_ID_CONOUT(0)];
    if (id >= FW_ID_CONIN(0) && id < FW_ID_CONIN(CONIN_COUNT))
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
    n += (int)fw_trace_decode(id, v, a, status, line + n, sizeof(line) - (size_t)n - 4);
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


uint64_t firmware_protocol_arg(unsigned id, const uint64_t *a)
{
    switch (id) {
    case FW_ID_BS(BS_HANDLE_PROTOCOL):
    case FW_ID_BS(BS_OPEN_PROTOCOL):
        return a[1];
    case FW_ID_BS(BS_LOCATE_HANDLE):
    case FW_ID_BS(BS_LOCATE_HANDLE_BUFFER):
        return a[0] == EFI_BY_PROTOCOL ? a[1] : 0;
    case FW_ID_BS(BS_LOCATE_PROTOCOL):
    case FW_ID_BS(BS_LOCATE_DEVICE_PATH):
        return a[0];
    default:
        return 0;
    }
}

unsigned firmware_inject_applies(const struct firmware *fw, unsigned id, const struct fw_call *call)
{
    const uint64_t a[4] = { call->rcx, call->rdx, call->r8, call->r9 };
    const struct guest_view *v = &call->view;
    unsigned m = 0;
    uint64_t size, gp;
    efi_guid_t g;
    if (fw->phase != FW_PHASE_BOOT && id != FW_ID_RT(RT_GET_VARIABLE))
        return 0;
    /* The memory-map faults hold for the whole boot: they apply to its first call. */
    if (!fw->calls)
        m |= 1u << INJECT_MAP_FRAGMENTED | 1u << INJECT_NO_LOW_FREE;
    switch (id) {
    case FW_ID_BS(BS_GET_MEMORY_MAP):
        /* Only calls with a buffer the real map could fit: a size probe
         * gets EFI_BUFFER_TOO_SMALL anyway. */
        if (guest_view_read_u64(v, a[0], &size) && size > 0)
            m |= 1u << INJECT_GMM_TOO_SMALL;
        break;
    case FW_ID_BS(BS_EXIT_BOOT_SERVICES): m |= 1u << INJECT_EBS_STALE_KEY; break;
    case FW_ID_BS(BS_ALLOCATE_PAGES): m |= 1u << INJECT_ALLOC_PAGES_FAIL | 1u << INJECT_ALLOC_PAGES_ABOVE; break;
    case FW_ID_BS(BS_ALLOCATE_POOL): m |= 1u << INJECT_ALLOC_POOL_FAIL; break;
    case FW_ID_RT(RT_GET_VARIABLE): m |= 1u << INJECT_GETVAR_ERROR; break;
    default:
        gp = firmware_protocol_arg(id, a);
        if (!gp || !guest_view_read(v, gp, &g, sizeof(g)))
            break;
        if (guid_equal(&g, &GUID_LOADED_IMAGE))
            m |= 1u << INJECT_NO_LOADED_IMAGE;
        if (guid_equal(&g, &GUID_RNG_PROTOCOL))
            m |= 1u << INJECT_NO_RNG;
        /* The stub's LocateDevicePath asks for LoadFile2 on the initrd's
         * vendor media path: only meaningful when an initrd is offered. */
        if (id == FW_ID_BS(BS_LOCATE_DEVICE_PATH) && guid_equal(&g, &GUID_LOAD_FILE2_PROTOCOL) && fw->initrd_lf2)
            m |= 1u << INJECT_NO_LOADFILE2;
    }
    return m;
}

static bool armed(const struct inject *in, unsigned applies, enum inject_kind k)
{
    return in->on[k] && (applies & (1u << k)) && in->seen[k] >= in->from[k];
}

/* A protocol lookup that finds nothing, as each service reports it. */
static efi_status_t not_found(unsigned id, const struct guest_view *v, const uint64_t *a)
{
    if (id == FW_ID_BS(BS_HANDLE_PROTOCOL) || id == FW_ID_BS(BS_OPEN_PROTOCOL) || id == FW_ID_BS(BS_LOCATE_PROTOCOL)) {
        if (a[2])
            guest_view_write_u64(v, a[2], 0);
        return id == FW_ID_BS(BS_LOCATE_PROTOCOL) ? EFI_NOT_FOUND : EFI_UNSUPPORTED;
    }
    return EFI_NOT_FOUND;
}

/* The fault to inject instead of the call, or -1 to make the call. */
static int inject_before(struct firmware *fw, unsigned id, unsigned applies, const struct guest_view *v,
                         const uint64_t *a, efi_status_t *status)
{
    struct inject *in = &fw->cfg.inject;
    if (armed(in, applies, INJECT_GMM_TOO_SMALL) && in->count[INJECT_GMM_TOO_SMALL] < in->value[INJECT_GMM_TOO_SMALL]) {
        /* As the spec says: MapSize returns the size needed. */
        guest_view_write_u64(v, a[0], (uint64_t)fw->map.n * FW_MEMORY_DESCRIPTOR_SIZE);
        *status = EFI_BUFFER_TOO_SMALL;
        return INJECT_GMM_TOO_SMALL;
    }
    if (armed(in, applies, INJECT_EBS_STALE_KEY) && !in->count[INJECT_EBS_STALE_KEY] && a[1] == fw->map.key) {
        fw->map.key++;   /* as if an event had changed the map */
        *status = EFI_INVALID_PARAMETER;
        return INJECT_EBS_STALE_KEY;
    }
    static const enum inject_kind nth[] = { INJECT_ALLOC_PAGES_FAIL, INJECT_ALLOC_POOL_FAIL };
    for (unsigned i = 0; i < 2; i++)
        if (armed(in, applies, nth[i]) && in->seen[nth[i]] == in->value[nth[i]]) {
            *status = EFI_OUT_OF_RESOURCES;
            return nth[i];
        }
    static const enum inject_kind missing[] = { INJECT_NO_LOADED_IMAGE, INJECT_NO_RNG, INJECT_NO_LOADFILE2 };
    for (unsigned i = 0; i < 3; i++)
        if (armed(in, applies, missing[i])) {
            *status = not_found(id, v, a);
            return missing[i];
        }
    if (armed(in, applies, INJECT_GETVAR_ERROR)) {
        *status = EFI_DEVICE_ERROR;
        return INJECT_GETVAR_ERROR;
    }
    return -1;
}

/* alloc-pages-above: an allocation that landed at or above the address
 * is undone and fails. The memory-map faults are marked on every map the
 * guest reads. */
static int inject_after(struct firmware *fw, unsigned id, unsigned applies, const struct guest_view *v,
                        const uint64_t *a, efi_status_t *status)
{
    struct inject *in = &fw->cfg.inject;
    uint64_t addr;
    if (id == FW_ID_BS(BS_GET_MEMORY_MAP) && *status == EFI_SUCCESS) {
        if (in->on[INJECT_MAP_FRAGMENTED])
            return INJECT_MAP_FRAGMENTED;
        if (in->on[INJECT_NO_LOW_FREE])
            return INJECT_NO_LOW_FREE;
    }
    if (!armed(in, applies, INJECT_ALLOC_PAGES_ABOVE) || *status != EFI_SUCCESS ||
        !guest_view_read_u64(v, a[3], &addr) || addr + (a[2] << 12) <= in->value[INJECT_ALLOC_PAGES_ABOVE])
        return -1;
    memmap_free(&fw->map, addr, a[2]);
    *status = a[0] == EFI_ALLOCATE_ADDRESS ? EFI_NOT_FOUND : EFI_OUT_OF_RESOURCES;
    return INJECT_ALLOC_PAGES_ABOVE;
}

uint64_t firmware_call(struct firmware *fw, unsigned id, const struct fw_call *call)
{
    uint64_t a[8] = { call->rcx, call->rdx, call->r8, call->r9 };
    const struct fw_service *s = lookup(id);
    unsigned nargs = s ? s->nargs : 4;
    efi_status_t status;
    const char *injected = NULL;
    struct inject *in = &fw->cfg.inject;
    unsigned applies = firmware_inject_applies(fw, id, call);
    for (unsigned k = 0; k < INJECT_KINDS; k++)
        in->seen[k] += (applies >> k) & 1;

    fw->seq++;
    fw->calls++;
    fw->last_id = id;
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
    } else {
        int k = inject_before(fw, id, applies, &call->view, a, &status);
        if (k < 0) {
            status = s->fn(fw, &call->view, a);
            k = inject_after(fw, id, applies, &call->view, a, &status);
        }
        if (k >= 0) {
            injected = inject_names[k];
            if (!in->count[k]++)
                in->first_seen[k] = in->seen[k];
            fw_log(fw, "injected fault %s: %s returns %s", injected, s->name, efi_status_name(status));
        }
    }
out:
    if (fw->cfg.trace)
        trace_call(fw, s, id, &call->view, a, nargs, status, injected);
    return status;
}
