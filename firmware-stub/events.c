/* Events and timers, UEFI 2.10 section 7.1: CreateEvent(Ex), SetTimer,
 * WaitForEvent, SignalEvent, CloseEvent and CheckEvent, on host time
 * (CLOCK_MONOTONIC). A timer is due when a service looks (no interrupt
 * ticks): CheckEvent and WaitForEvent signal what is due first.
 *
 * Notify functions are not served. Calling one means running guest code
 * at a raised TPL from inside a service, and a service here is one exit
 * and one answer; handover cannot run a guest function and come back.
 * CreateEvent with a notify function is therefore EFI_UNSUPPORTED, said
 * once in the log, and every event that exists has none: CheckEvent and
 * WaitForEvent never meet an EVT_NOTIFY_SIGNAL event (which the spec
 * makes EFI_INVALID_PARAMETER there). */
#include <time.h>

#include "trace_decode.h"

#define CREATE_EVENT_HANDLE   4   /* CreateEvent's EFI_EVENT *Event; CreateEventEx's EventGroup is before it */
#define CREATE_EVENT_EX_GROUP 4
#define CREATE_EVENT_EX_HANDLE 5
#define WAIT_MAX_EVENTS 1024      /* a longer WaitForEvent list is refused: it cannot hold that many events */
#define MAX_TRIGGER_100NS (1ULL << 50)   /* about 3.6 years: a later trigger is never */

/* The types CreateEvent takes (UEFI 2.10 section 7.1.1; EDK2's
 * mEventTable in MdeModulePkg/Core/Dxe/Event/Event.c lists the same). */
static const struct { uint32_t type; const char *name; } event_types[] = {
    { 0, "0" },
    { EVT_TIMER, "EVT_TIMER" },
    { EVT_NOTIFY_WAIT, "EVT_NOTIFY_WAIT" },
    { EVT_NOTIFY_SIGNAL, "EVT_NOTIFY_SIGNAL" },
    { EVT_TIMER | EVT_NOTIFY_WAIT, "EVT_TIMER|EVT_NOTIFY_WAIT" },
    { EVT_TIMER | EVT_NOTIFY_SIGNAL, "EVT_TIMER|EVT_NOTIFY_SIGNAL" },
    { EVT_SIGNAL_EXIT_BOOT_SERVICES, "EVT_SIGNAL_EXIT_BOOT_SERVICES" },
    { EVT_SIGNAL_VIRTUAL_ADDRESS_CHANGE, "EVT_SIGNAL_VIRTUAL_ADDRESS_CHANGE" },
};
#define NTYPES (sizeof(event_types) / sizeof(event_types[0]))

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

static uint64_t handle_of(const struct firmware *fw, unsigned i)
{
    return fw->cfg.base + FW_EVENTS_OFFSET + 8ULL * i;
}

/* The open event a handle names, or NULL (closed, never made, not a handle). */
static struct fw_event *event_of(struct firmware *fw, uint64_t handle)
{
    uint64_t first = handle_of(fw, 0);
    if (handle < first || (handle - first) % 8 || (handle - first) / 8 >= fw->events.n)
        return NULL;
    struct fw_event *e = &fw->events.slot[(handle - first) / 8];
    return e->open ? e : NULL;
}

/* A new event's handle, or 0 when every handle has been made. */
static uint64_t new_event(struct firmware *fw, uint32_t type, const efi_guid_t *group)
{
    if (fw->events.n == FW_MAX_EVENTS) {
        if (!fw->events.spent_reported)
            fw_log(fw, "all %d event handles are spent (they are never reused): CreateEvent returns "
                   "EFI_OUT_OF_RESOURCES", FW_MAX_EVENTS);
        fw->events.spent_reported = true;
        return 0;
    }
    struct fw_event *e = &fw->events.slot[fw->events.n];
    *e = (struct fw_event){ .open = true, .type = type, .in_group = group != NULL };
    if (group)
        e->group = *group;
    return handle_of(fw, fw->events.n++);
}

static bool key_pending(const struct firmware *fw)
{
    return fw->cfg.keys && fw->cfg.keys[fw->keys_taken];
}

/* An event in a group signals the whole group (UEFI 2.10 section 7.1.5). */
static void set_signaled(struct firmware *fw, struct fw_event *e)
{
    if (!e->in_group) {
        e->signaled = true;
        return;
    }
    for (unsigned i = 0; i < fw->events.n; i++) {
        struct fw_event *o = &fw->events.slot[i];
        if (o->open && o->in_group && guid_equal(&o->group, &e->group))
            o->signaled = true;
    }
}

/* Signal what is due: timers past their time (a periodic one moves on by
 * whole periods, one signal however many it missed, as EDK2's timer tick;
 * a period of 0 is due at every look), and WaitForKey, whose state is
 * the key queue's: signaled exactly while keys remain. */
static void poll(struct firmware *fw)
{
    uint64_t now = now_ns();
    for (unsigned i = 0; i < fw->events.n; i++) {
        struct fw_event *e = &fw->events.slot[i];
        if (!e->open || !e->armed || e->due > now)
            continue;
        set_signaled(fw, e);
        if (!e->periodic)
            e->armed = false;
        else if (e->period)
            e->due += e->period * ((now - e->due) / e->period + 1);
    }
    struct fw_event *key = event_of(fw, fw->events.wait_for_key);
    if (key)
        key->signaled = key_pending(fw);
}

void fw_events_init(struct firmware *fw)
{
    fw->events.wait_for_key = new_event(fw, 0, NULL);
}

/* CreateEvent and CreateEventEx (UEFI 2.10 sections 7.1.1 and 7.1.2). */
static efi_status_t create(struct firmware *fw, const struct guest_view *v, const uint64_t *a, uint64_t group_ptr,
                           uint64_t event_ptr)
{
    /* Type is a UINT32: the upper half of RCX is not the caller's
     * (Microsoft x64 calling convention). */
    uint32_t type = (uint32_t)a[0];
    uint64_t notify_tpl = a[1], notify_function = a[2];
    efi_guid_t group;
    unsigned t = 0;
    while (t < NTYPES && event_types[t].type != type)
        t++;
    if (!event_ptr || !guest_view_accessible(v, event_ptr, 8) || t == NTYPES)
        return EFI_INVALID_PARAMETER;
    if (group_ptr && (!guest_view_read(v, group_ptr, &group, sizeof(group)) ||
                      type == EVT_SIGNAL_EXIT_BOOT_SERVICES || type == EVT_SIGNAL_VIRTUAL_ADDRESS_CHANGE))
        return EFI_INVALID_PARAMETER;   /* those two are groups already (EDK2 CoreCreateEventEx) */
    if (type & (EVT_NOTIFY_WAIT | EVT_NOTIFY_SIGNAL)) {
        if (!notify_function || notify_tpl <= FW_TPL_APPLICATION || notify_tpl >= FW_TPL_HIGH_LEVEL)
            return EFI_INVALID_PARAMETER;
        if (!fw->events.notify_reported)
            fw_log(fw, "%s(%s) with a notify function: EFI_UNSUPPORTED, notify functions are not served "
                   "(handover cannot call guest code from a service)",
                   group_ptr ? "CreateEventEx" : "CreateEvent", event_types[t].name);
        fw->events.notify_reported = true;
        return EFI_UNSUPPORTED;
    }
    uint64_t handle = new_event(fw, type, group_ptr ? &group : NULL);
    if (!handle)
        return EFI_OUT_OF_RESOURCES;
    guest_view_write_u64(v, event_ptr, handle);
    return EFI_SUCCESS;
}

efi_status_t fw_create_event(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    return create(fw, v, a, 0, a[CREATE_EVENT_HANDLE]);
}

efi_status_t fw_create_event_ex(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    return create(fw, v, a, a[CREATE_EVENT_EX_GROUP], a[CREATE_EVENT_EX_HANDLE]);
}

efi_status_t fw_set_timer(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    (void)v;
    uint64_t event = a[0], trigger_time = a[2];
    uint32_t type = (uint32_t)a[1];   /* EFI_TIMER_DELAY, an enum */
    struct fw_event *e = event_of(fw, event);
    if (!e || !(e->type & EVT_TIMER) || type > EFI_TIMER_RELATIVE)
        return EFI_INVALID_PARAMETER;
    /* A new setting replaces the last; TriggerTime is in 100 ns units
     * (UEFI 2.10 section 7.1.7). */
    uint64_t ns = (trigger_time > MAX_TRIGGER_100NS ? MAX_TRIGGER_100NS : trigger_time) * 100;
    e->armed = type != EFI_TIMER_CANCEL;
    e->periodic = type == EFI_TIMER_PERIODIC;
    e->period = e->periodic ? ns : 0;
    e->due = now_ns() + ns;
    return EFI_SUCCESS;
}

efi_status_t fw_signal_event(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    (void)v;
    struct fw_event *e = event_of(fw, a[0]);
    if (!e)
        return EFI_INVALID_PARAMETER;
    set_signaled(fw, e);
    return EFI_SUCCESS;
}

/* Its timer goes with it (UEFI 2.10 section 7.1.4). */
efi_status_t fw_close_event(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    (void)v;
    struct fw_event *e = event_of(fw, a[0]);
    if (!e)
        return EFI_INVALID_PARAMETER;
    *e = (struct fw_event){ 0 };
    return EFI_SUCCESS;
}

/* A signaled event is reset as it is reported (UEFI 2.10 section 7.1.8). */
static efi_status_t check(struct firmware *fw, uint64_t handle)
{
    struct fw_event *e = event_of(fw, handle);
    if (!e)
        return EFI_INVALID_PARAMETER;
    if (!e->signaled)
        return EFI_NOT_READY;
    e->signaled = false;
    return EFI_SUCCESS;
}

efi_status_t fw_check_event(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    (void)v;
    poll(fw);
    return check(fw, a[0]);
}

/* The first event of the list that is signaled or invalid, as EDK2's
 * CoreWaitForEvent checks them: its index in *index and its status;
 * EFI_NOT_READY if none. */
static efi_status_t check_list(struct firmware *fw, const struct guest_view *v, uint64_t n, uint64_t list,
                               uint64_t *index)
{
    poll(fw);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t handle = 0;   /* another vCPU may unmap the list: then no event */
        guest_view_read_u64(v, list + 8 * i, &handle);
        efi_status_t s = check(fw, handle);
        if (s != EFI_NOT_READY) {
            *index = i;
            return s;
        }
    }
    return EFI_NOT_READY;
}

/* How long until one of the events can be signaled: the earliest timer
 * among them, at most FW_WAIT_MAX_NS; false if none of them has one, so
 * nothing will ever signal them (the guest, waiting, cannot either). */
static bool next_due(struct firmware *fw, const struct guest_view *v, uint64_t n, uint64_t list, uint64_t *wait)
{
    uint64_t now = now_ns();
    bool any = false;
    *wait = FW_WAIT_MAX_NS;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t handle = 0;
        guest_view_read_u64(v, list + 8 * i, &handle);
        const struct fw_event *e = event_of(fw, handle);   /* another vCPU may have changed the list */
        if (!e || !e->armed)
            continue;
        any = true;
        uint64_t left = e->due > now ? e->due - now : 0;
        if (left < *wait)
            *wait = left;
    }
    return any;
}

/* WaitForEvent (UEFI 2.10 section 7.1.6) must not hold the VMM: with
 * nothing signaled it returns at once and the vCPU makes the same call
 * again, once the vCPU has slept (struct firmware.sleep_ns) until the
 * earliest timer is due, or FW_WAIT_MAX_NS; so --timeout and signals
 * stay prompt, and each round is a line of the trace. */
efi_status_t fw_wait_for_event(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t n = a[0], list = a[1], index_ptr = a[2], index;
    if (fw->tpl != FW_TPL_APPLICATION)
        return EFI_UNSUPPORTED;
    if (!n || n > WAIT_MAX_EVENTS || !list || !guest_view_accessible(v, list, 8 * n) || !index_ptr ||
        !guest_view_accessible(v, index_ptr, 8))
        return EFI_INVALID_PARAMETER;
    efi_status_t s = check_list(fw, v, n, list, &index);
    if (s != EFI_NOT_READY) {
        guest_view_write_u64(v, index_ptr, index);
        return s;
    }
    uint64_t wait;
    if (!next_due(fw, v, n, list, &wait) && !fw->events.stuck_reported) {
        fw_log(fw, "WaitForEvent on %llu event(s) that nothing will signal (no timer armed, no key left: see "
               "--keys): the image waits until --timeout", (unsigned long long)n);
        fw->events.stuck_reported = true;
    }
    const struct fw_call *c = fw->call;
    fw->transfer = (struct fw_transfer){ .pending = true, .rip = firmware_thunk(fw, FW_ID_BS(BS_WAIT_FOR_EVENT)),
                                         .rsp = c->rsp, .rcx = n, .rdx = list };
    fw->sleep_ns = wait;
    return EFI_NOT_READY;
}

/* ---- trace decoders ----------------------------------------------------- */

static void trace_type(struct fw_trace_out *o, uint64_t type)
{
    for (unsigned t = 0; t < NTYPES; t++)
        if (event_types[t].type == (uint32_t)type) {
            fw_trace_str(o, "type", event_types[t].name);
            return;
        }
    fw_trace_hex(o, "type", (uint32_t)type);
}

void fw_decode_create_event(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                            const uint64_t *a, efi_status_t status)
{
    bool ex = s->id == FW_ID_BS(BS_CREATE_EVENT_EX);
    trace_type(o, a[0]);
    if ((uint32_t)a[0] & (EVT_NOTIFY_WAIT | EVT_NOTIFY_SIGNAL)) {
        fw_trace_u64(o, "notify_tpl", a[1]);
        fw_trace_hex(o, "notify_function", a[2]);
    }
    if (ex)
        fw_trace_guid(o, "group", v, a[CREATE_EVENT_EX_GROUP]);
    if (status == EFI_SUCCESS)
        fw_trace_ptr_u64(o, "event", v, a[ex ? CREATE_EVENT_EX_HANDLE : CREATE_EVENT_HANDLE], true);
}

void fw_decode_set_timer(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                         const uint64_t *a, efi_status_t status)
{
    (void)s, (void)v, (void)status;
    static const char *const names[] = { "TimerCancel", "TimerPeriodic", "TimerRelative" };
    fw_trace_hex(o, "event", a[0]);
    fw_trace_str(o, "timer", (uint32_t)a[1] <= EFI_TIMER_RELATIVE ? names[(uint32_t)a[1]] : "invalid");
    fw_trace_u64(o, "trigger_time_100ns", a[2]);
}

void fw_decode_wait_for_event(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                              const uint64_t *a, efi_status_t status)
{
    (void)s;
    fw_trace_u64(o, "events", a[0]);
    if (status == EFI_NOT_READY)
        fw_trace_str(o, "wait", "none signaled: the call is made again");
    else if (status == EFI_SUCCESS)
        fw_trace_ptr_u64(o, "index", v, a[2], false);
}

/* SignalEvent, CloseEvent, CheckEvent: the event. */
void fw_decode_event(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                     const uint64_t *a, efi_status_t status)
{
    (void)s, (void)v, (void)status;
    fw_trace_hex(o, "event", a[0]);
}
