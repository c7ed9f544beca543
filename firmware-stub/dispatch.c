/* From a thunk ID to a host service: argument fetch (Microsoft x64 ABI),
 * the boot/runtime phase rule, one-time reports of unsupported services,
 * and the call trace. */
#include "dispatch.h"

#include <string.h>

#include "block_io.h"
#include "boot_services.h"
#include "console.h"
#include "events.h"
#include "firmware.h"
#include "guids.h"
#include "image.h"
#include "inject.h"
#include "loadfile2.h"
#include "log.h"
#include "memattr.h"
#include "memory.h"
#include "rng.h"
#include "runtime_services.h"
#include "simple_fs.h"
#include "tcg2.h"
#include "trace_decode.h"
#include "watchdog.h"
#include "width.h"

const struct fw_service *fw_service_of(unsigned id)
{
    if (id >= FW_ID_BS(0) && id < FW_ID_BS(BS_COUNT))
        return &fw_boot_services[id - FW_ID_BS(0)];
    if (id >= FW_ID_RT(0) && id < FW_ID_RT(RT_COUNT))
        return &fw_runtime_services[id - FW_ID_RT(0)];
    if (id >= FW_ID_CONOUT(0) && id < FW_ID_CONOUT(CONOUT_COUNT))
        return &fw_conout_services[id - FW_ID_CONOUT(0)];
    if (id >= FW_ID_CONIN(0) && id < FW_ID_CONIN(CONIN_COUNT))
        return &fw_conin_services[id - FW_ID_CONIN(0)];
    if (id >= FW_ID_RNG(0) && id < FW_ID_RNG(RNG_COUNT))
        return &fw_rng_services[id - FW_ID_RNG(0)];
    if (id >= FW_ID_MEMATTR(0) && id < FW_ID_MEMATTR(MEMATTR_COUNT))
        return &fw_memattr_services[id - FW_ID_MEMATTR(0)];
    if (id == FW_ID_LOADFILE2)
        return &fw_loadfile2_service;
    if (id == FW_ID_START_IMAGE_RETURN)
        return &fw_start_image_return_service;
    if (id >= FW_ID_TCG2(0) && id < FW_ID_TCG2(TCG2_COUNT))
        return &fw_tcg2_services[id - FW_ID_TCG2(0)];
    if (id == FW_ID_NOTIFY_RETURN)
        return &fw_notify_return_service;
    if (id == FW_ID_FILE_SYSTEM)
        return &fw_file_system_service;
    if (id >= FW_ID_FILE(0) && id < FW_ID_FILE(FILE_COUNT))
        return &fw_file_services[id - FW_ID_FILE(0)];
    if (id >= FW_ID_BLOCK_IO(0) && id < FW_ID_BLOCK_IO(BLOCK_IO_COUNT))
        return &fw_block_io_services[id - FW_ID_BLOCK_IO(0)];
    return NULL;
}

const char *firmware_service_name(unsigned id)
{
    const struct fw_service *s = fw_service_of(id);
    return s ? s->name : NULL;
}

static bool is_boot_service(unsigned id)
{
    /* Protocol methods (ConOut, ConIn, RNG, memory attributes, TCG2, the
     * --esp volume's) are boot-time only, too. A return from StartImage's
     * entry is not a call: its thunk has no RET, so it is always served
     * (image.c). */
    return id < FW_ID_RT(0) || (id >= FW_ID_CONOUT(0) && id < FW_ID_START_IMAGE_RETURN) ||
           (id >= FW_ID_TCG2(0) && id < FW_ID_TCG2(TCG2_COUNT)) ||
           (id >= FW_ID_FILE_SYSTEM && id < FW_ID_FILE(FILE_COUNT)) ||
           (id >= FW_ID_BLOCK_IO(0) && id < FW_ID_BLOCK_IO(BLOCK_IO_COUNT));
}

/* What a call returned, by name: its status, but for RaiseTPL, which
 * returns the previous TPL (UEFI 2.10 section 7.1), a number a status
 * name would misread (4 is EFI_WARN_BUFFER_TOO_SMALL). */
static const char *returned_name(unsigned id, efi_status_t status)
{
    if (id != FW_ID_BS(BS_RAISE_TPL))
        return efi_status_name(status);
    switch (status) {
    case FW_TPL_APPLICATION: return "TPL_APPLICATION";
    case FW_TPL_CALLBACK: return "TPL_CALLBACK";
    case FW_TPL_NOTIFY: return "TPL_NOTIFY";
    case FW_TPL_HIGH_LEVEL: return "TPL_HIGH_LEVEL";
    default: return "TPL";   /* one between those (RaiseTPL takes any up to TPL_HIGH_LEVEL): decoded says which */
    }
}

static void trace_call(struct firmware *fw, const struct fw_service *s, unsigned id, const struct guest_view *v,
                       const uint64_t *a, unsigned nargs, efi_status_t status, const char *injected)
{
    char line[1024];
    int n = snprintf(line, sizeof(line), "{\"seq\":%llu,\"phase\":\"%s\",%s\"call\":\"%s\",\"args\":[",
                     (unsigned long long)fw->seq, fw->phase == FW_PHASE_BOOT ? "boot" : "runtime",
                     fw_ia32(fw) ? "\"bits\":32," : "", s ? s->name : "unknown");
    for (unsigned i = 0; i < nargs; i++)
        n += snprintf(line + n, sizeof(line) - (size_t)n, "%s\"0x%llx\"", i ? "," : "", (unsigned long long)a[i]);
    n += snprintf(line + n, sizeof(line) - (size_t)n, "],\"status\":\"%s\",\"map_key\":%llu",
                  returned_name(id, status), (unsigned long long)fw->map.key);
    if (!s)
        n += snprintf(line + n, sizeof(line) - (size_t)n, ",\"id\":%u", id);
    if (injected)
        n += snprintf(line + n, sizeof(line) - (size_t)n, ",\"injected\":\"%s\"", injected);
    n += (int)fw_trace_decode(s, v, a, status, fw_uintn_size(fw), line + n, sizeof(line) - (size_t)n - 4);
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

/* The register arguments of a call, RCX, RDX, R8, R9 (Microsoft x64). */
static void register_args(const struct fw_call *call, uint64_t *a)
{
    a[0] = call->rcx;
    a[1] = call->rdx;
    a[2] = call->r8;
    a[3] = call->r9;
}

/* The 4-byte word at byte off of an IA-32 caller's arguments. */
static bool stack_word32(const struct fw_call *call, uint64_t off, uint32_t *w)
{
    return guest_view_read(&call->view, fw_stack32(call->rsp, off), w, 4);
}

/* An IA-32 firmware's call (cdecl, UEFI 2.10 section 2.3.2): every
 * argument on the stack above the 4-byte return address, 4 bytes each but
 * the service's wide ones (a UINT64 takes 8, low half first). ESP is the
 * low half of RSP, and each word's address wraps at 4 GiB as the caller's
 * does (width.h fw_stack32). Returns the number read: nargs, or the index
 * of the first argument not readable. */
unsigned fw_stack_args32(const struct fw_service *s, const struct fw_call *call, uint64_t *a, unsigned nargs)
{
    uint64_t off = 0;
    for (unsigned i = 0; i < nargs; i++) {
        bool wide = s && (s->wide & FW_WIDE(i));
        uint32_t lo = 0, hi = 0;
        a[i] = 0;
        if (!stack_word32(call, off, &lo) || (wide && !stack_word32(call, off + 4, &hi)))
            return i;
        a[i] = lo | (uint64_t)hi << 32;
        off += wide ? 8 : 4;
    }
    return nargs;
}

/* The arguments a call's service takes, as far as readable (the rest 0). */
static void call_args(const struct firmware *fw, const struct fw_service *s, const struct fw_call *call, uint64_t *a)
{
    if (fw_ia32(fw))
        fw_stack_args32(s, call, a, 4);
    else
        register_args(call, a);
}

uint64_t firmware_protocol_arg(const struct firmware *fw, unsigned id, const struct fw_call *call)
{
    uint64_t a[4] = { 0 };
    const struct fw_service *s = fw_service_of(id);
    call_args(fw, s, call, a);
    return fw_protocol_arg(s, a);
}

bool firmware_saves_context(unsigned id)
{
    return id == FW_ID_BS(BS_START_IMAGE);
}

uint64_t firmware_allocated(const struct firmware *fw, unsigned id, const struct fw_call *call, uint64_t status)
{
    uint64_t a[4] = { 0 }, addr;
    call_args(fw, fw_service_of(id), call, a);
    if (id != FW_ID_BS(BS_ALLOCATE_PAGES) || status != EFI_SUCCESS || !fw_allocated_pages(&call->view, a, &addr))
        return 0;
    return addr;
}

static bool in_scope(const struct firmware *fw, const struct fw_service *s, enum inject_kind k)
{
    switch (inject_faults[k].scope) {
    case INJECT_ON_BOOT: return !fw->calls;
    case INJECT_ON_LOOKUPS: return s && s->lookup.not_found;
    default: return s && (s->faults & (1u << k));
    }
}

unsigned firmware_inject_applies(const struct firmware *fw, unsigned id, const struct fw_call *call)
{
    const struct fw_service *s = fw_service_of(id);
    uint64_t a[4] = { 0 };
    unsigned m = 0;
    call_args(fw, s, call, a);
    /* After ExitBootServices a boot service only fails: nothing to inject. */
    if (fw->phase != FW_PHASE_BOOT && is_boot_service(id))
        return 0;
    for (unsigned k = 0; k < INJECT_KINDS; k++) {
        const struct inject_fault *f = &inject_faults[k];
        if (in_scope(fw, s, k) && (!f->applies || f->applies(fw, k, s, &call->view, a)))
            m |= 1u << k;
    }
    return m;
}

static bool armed(const struct inject *in, unsigned applies, enum inject_kind k)
{
    if (inject_faults[k].scope == INJECT_ON_BOOT)
        return in->on[k];   /* it holds for every call */
    return in->on[k] && (applies & (1u << k)) && in->seen[k] >= in->from[k];
}

/* The armed fault whose before (or after) hook injects it, or -1. */
static int inject_hooks(struct firmware *fw, const struct fw_service *s, unsigned applies,
                        const struct guest_view *v, const uint64_t *a, efi_status_t *status, bool after)
{
    for (unsigned k = 0; k < INJECT_KINDS; k++) {
        inject_hook_fn *hook = after ? inject_faults[k].after : inject_faults[k].before;
        if (hook && armed(&fw->cfg.inject, applies, k) && hook(fw, k, s, v, a, status))
            return (int)k;
    }
    return -1;
}

static bool protocol_served(const struct firmware *fw, const efi_guid_t *g)
{
    for (unsigned i = 0; i < fw->nprotocols; i++)
        if (guid_equal(&fw->protocols[i].guid, g))
            return true;
    return false;
}

/* A lookup that failed because no handle has the protocol at all (not
 * merely the handle asked): one line per protocol, so that a client's
 * failure reads as what it needs. A fault injected is
 * not a protocol missing. */
static void report_unserved_protocol(struct firmware *fw, const struct fw_service *s, const struct guest_view *v,
                                     const uint64_t *a, efi_status_t status)
{
    efi_guid_t g;
    uint64_t addr = fw_protocol_arg(s, a);
    if (!addr || status != s->lookup.not_found || !guest_view_read(v, addr, &g, sizeof(g)) ||
        protocol_served(fw, &g))
        return;
    for (unsigned i = 0; i < fw->nunserved; i++)
        if (guid_equal(&fw->unserved[i], &g))
            return;
    if (fw->nunserved == FW_MAX_UNSERVED)
        return;
    fw->unserved[fw->nunserved++] = g;
    char text[37];
    const char *name = guid_name(&g);
    guid_format(&g, text);
    fw_log(fw, "the guest asked for %s%s, which handover does not serve: %s returns %s", name ? name : "protocol ",
           name ? "" : text, s->name, efi_status_name(status));
}

/* A new call: its sequence number and counts, and the state one call
 * leaves for the VMM cleared. */
static void begin_call(struct firmware *fw, unsigned id, const struct fw_call *call, unsigned applies)
{
    struct inject *in = &fw->cfg.inject;
    for (unsigned k = 0; k < INJECT_KINDS; k++)
        in->seen[k] += (applies >> k) & 1;
    fw->seq++;
    fw->calls++;
    fw->call = call;
    fw->transfer.pending = false;
    fw->sleep_ns = 0;
    fw->waits_for_good = false;
    fw->tables_changed = false;
    fw->last_id = id;
    if (id < FW_MAX_THUNKS)
        fw->calls_by_id[id]++;
}

/* The call's nargs arguments into a; false, logged, if one on the stack
 * is not readable. */
static bool read_args(struct firmware *fw, const struct fw_service *s, const struct fw_call *call, uint64_t *a,
                      unsigned nargs)
{
    if (fw_ia32(fw)) {
        unsigned got = fw_stack_args32(s, call, a, nargs);
        if (got < nargs)
            fw_log(fw, "guest bug: %s: stack argument %u above ESP 0x%llx is not readable", s ? s->name : "call",
                   got + 1, (unsigned long long)(uint32_t)call->rsp);
        return got == nargs;
    }
    register_args(call, a);
    /* Arguments 5 and up sit above the 32-byte shadow space and the return
     * address: RSP+0x28, RSP+0x30, ... (Microsoft x64 calling convention). */
    for (unsigned i = 4; i < nargs; i++) {
        if (!guest_view_read_u64(&call->view, call->rsp + 0x28 + 8 * (i - 4), &a[i])) {
            fw_log(fw, "guest bug: %s: stack argument %u at RSP 0x%llx is not readable", s->name, i + 1,
                   (unsigned long long)call->rsp);
            return false;
        }
    }
    return true;
}

/* Whether the call reaches a service: not for an unknown ID, a boot
 * service after ExitBootServices or a service handover does not serve
 * (reported once), each logged. */
static bool servable(struct firmware *fw, const struct fw_service *s, unsigned id)
{
    if (!s) {
        fw_log(fw, "guest bug: firmware call with unknown service ID %u", id);
        return false;
    }
    if (fw->phase == FW_PHASE_RUNTIME && is_boot_service(id)) {
        fw_log(fw, "guest bug: %s called after ExitBootServices", s->name);
        return false;
    }
    if (!s->fn) {
        if (!fw->reported[id]) {
            fw_log(fw, "the guest asked for %s, which handover does not serve: EFI_UNSUPPORTED", s->name);
            fw->reported[id] = true;
        }
        return false;
    }
    return true;
}

/* Fault k was injected into this call: counted and logged; its name. */
static const char *injected_fault(struct firmware *fw, const struct fw_service *s, unsigned k, efi_status_t status)
{
    struct inject *in = &fw->cfg.inject;
    if (!in->count[k]++)
        in->first_seen[k] = in->seen[k];
    fw_log(fw, "injected fault %s: %s returns %s", inject_faults[k].name, s->name, efi_status_name(status));
    return inject_faults[k].name;
}

/* Serve the call, or inject the fault armed for it; the name of the fault
 * injected, or NULL. */
static const char *serve(struct firmware *fw, const struct fw_service *s, unsigned id, unsigned applies,
                         const struct guest_view *v, const uint64_t *a, efi_status_t *status)
{
    int k = inject_hooks(fw, s, applies, v, a, status, false);
    if (k < 0) {
        *status = s->fn(fw, v, a);
        k = inject_hooks(fw, s, applies, v, a, status, true);
    }
    if (k < 0 && s->lookup.not_found)
        report_unserved_protocol(fw, s, v, a, *status);
    /* A timer due, or a TPL lowered (RestoreTPL), may let queued
     * notify functions run before the call returns (events.c). */
    if (fw->phase == FW_PHASE_BOOT && is_boot_service(id) && !fw->transfer.pending && fw->stop == FW_RUN)
        fw_notify_dispatch(fw, FW_NOTIFY_RETURN, *status);
    return k >= 0 ? injected_fault(fw, s, (unsigned)k, *status) : NULL;
}

uint64_t firmware_call(struct firmware *fw, unsigned id, const struct fw_call *call)
{
    uint64_t a[8] = { 0 };
    const struct fw_service *s = fw_service_of(id);
    unsigned nargs = s ? s->nargs : 4;
    efi_status_t status = EFI_UNSUPPORTED;
    const char *injected = NULL;
    unsigned applies = firmware_inject_applies(fw, id, call);
    begin_call(fw, id, call, applies);
    bool readable = read_args(fw, s, call, a, nargs);
    /* A call no service takes stays EFI_UNSUPPORTED whatever its stack
     * holds: its arguments are read for the trace only. */
    if (servable(fw, s, id)) {
        if (readable)
            injected = serve(fw, s, id, applies, &call->view, a, &status);
        else
            status = EFI_INVALID_PARAMETER;
    }
    /* Its time may have run out during the call, or since the last: the
     * platform resets there (UEFI 2.10 section 7.5.1), so the call waits
     * for nothing, neither a Stall's time nor for good. */
    if (firmware_watchdog_check(fw)) {
        fw->sleep_ns = 0;
        fw->waits_for_good = false;
    }
    if (fw->cfg.trace)
        trace_call(fw, s, id, &call->view, a, nargs, status, injected);
    fw->call = NULL;
    return status;
}
