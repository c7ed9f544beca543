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
    /* Protocol methods of ConIn/ConOut are boot-time only, too. */
    return id < FW_ID_RT(0) || (id >= FW_ID_CONOUT(0) && id < FW_ID_CONIN(2));
}

static void trace_call(struct firmware *fw, const struct fw_service *s, unsigned id, const uint64_t *a,
                       unsigned nargs, efi_status_t status)
{
    char line[512];
    int n = snprintf(line, sizeof(line), "{\"seq\":%llu,\"phase\":\"%s\",\"call\":\"%s\",\"args\":[",
                     (unsigned long long)fw->seq, fw->phase == FW_PHASE_BOOT ? "boot" : "runtime",
                     s ? s->name : "unknown");
    for (unsigned i = 0; i < nargs; i++)
        n += snprintf(line + n, sizeof(line) - (size_t)n, "%s\"0x%llx\"", i ? "," : "", (unsigned long long)a[i]);
    n += snprintf(line + n, sizeof(line) - (size_t)n, "],\"status\":\"%s\",\"map_key\":%llu",
                  efi_status_name(status), (unsigned long long)fw->map.key);
    if (!s)
        n += snprintf(line + n, sizeof(line) - (size_t)n, ",\"id\":%u", id);
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

uint64_t firmware_call(struct firmware *fw, unsigned id, const struct fw_call *call)
{
    uint64_t a[8] = { call->rcx, call->rdx, call->r8, call->r9 };
    const struct fw_service *s = lookup(id);
    unsigned nargs = s ? s->nargs : 4;
    efi_status_t status;

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
    } else {
        status = s->fn(fw, &call->view, a);
    }
out:
    if (fw->cfg.trace)
        trace_call(fw, s, id, a, nargs, status);
    return status;
}
