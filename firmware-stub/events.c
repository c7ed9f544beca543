/* Events and timers, UEFI 2.10 section 7.1: CreateEvent(Ex), SetTimer,
 * WaitForEvent, SignalEvent, CloseEvent and CheckEvent, on host time
 * (CLOCK_MONOTONIC, or struct fw_config.clock_ns). A timer is due when the
 * firmware looks (no interrupt ticks): after every boot service it serves,
 * and in CheckEvent and WaitForEvent.
 *
 * Notify functions run in the guest, when EDK2 runs them
 * (MdeModulePkg/Core/Dxe/Event/Event.c and Tpl.c): a signaled
 * EVT_NOTIFY_SIGNAL event, or an EVT_NOTIFY_WAIT one CheckEvent or
 * WaitForEvent finds unsignaled, has its function queued at its TPL. A
 * call after which a queued function's TPL is above the current TPL does
 * not return to its caller yet: the vCPU goes to the notify trampoline
 * (state.h), which calls the function at that TPL and re-enters the
 * firmware (NotifyFunction.Return); when no queued function above the
 * caller's TPL is left, the call finishes and returns (struct
 * fw_notify_frame). So RestoreTPL delivers what RaiseTPL held back, and
 * ExitBootServices and SetVirtualAddressMap run their event groups'
 * functions before they return. Each call in and out is a trace line. */
#include "events.h"

#include <time.h>

#include "guids.h"
#include "log.h"
#include "system_table.h"
#include "trace_decode.h"
#include "width.h"

#define CREATE_EVENT_HANDLE   4   /* CreateEvent's EFI_EVENT *Event; CreateEventEx's EventGroup is before it */
#define CREATE_EVENT_EX_GROUP 4
#define CREATE_EVENT_EX_HANDLE 5
#define WAIT_MAX_EVENTS 1024      /* a longer WaitForEvent list is refused: it cannot hold that many events */
#define MAX_TRIGGER_100NS (1ULL << 50)   /* about 3.6 years: a later trigger is never */
#define NOTIFY_STACK_GAP 0x40     /* the trampoline's RSP is this far below its caller's, 16-aligned */
#define NOTIFY_STACK_USE 0x40     /* the trampoline's pushes, the shadow space and the return address */
#define NOTIFY_WAIT_POLL_NS 1000000ULL   /* WaitForEvent is made again this long after wait notify functions */

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

/* The host's clock under the firmware's: CLOCK_MONOTONIC, or cfg.clock_ns. */
static uint64_t host_clock_ns(const struct firmware *fw)
{
    if (fw->cfg.clock_ns)
        return fw->cfg.clock_ns();
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

uint64_t firmware_clock_ns(const struct firmware *fw)
{
    return host_clock_ns(fw) - fw->clock_stood_ns;
}

/* Unsigned arithmetic wraps: the clock reads at_ns exactly even on a host
 * clock that reads less than at_ns. */
void firmware_clock_resume(struct firmware *fw, uint64_t at_ns)
{
    fw->clock_stood_ns = host_clock_ns(fw) - at_ns;
}

static uint64_t handle_of(const struct firmware *fw, unsigned i)
{
    return fw->cfg.base + FW_EVENTS_OFFSET + 8ULL * i;
}

static uint64_t handle_of_event(const struct firmware *fw, const struct fw_event *e)
{
    return handle_of(fw, (unsigned)(e - fw->events.slot));
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

/* The slot for a new event: a slot never used while one is left, then
 * the one closed longest ago (ConIn.WaitForKey's never), so that a loader
 * that makes and closes an event per key read (systemd-boot's
 * console_key_read) does not run out, and a stale handle names nothing as
 * long as can be; NULL when all are open (UEFI 2.10 section 7.1.1: the
 * event could not be allocated). */
static struct fw_event *free_slot(struct firmware *fw)
{
    if (fw->events.n < FW_MAX_EVENTS)
        return &fw->events.slot[fw->events.n++];
    struct fw_event *oldest = NULL;
    for (unsigned i = 0; i < fw->events.n; i++) {
        struct fw_event *e = &fw->events.slot[i];
        if (!e->open && handle_of(fw, i) != fw->events.wait_for_key && (!oldest || e->closed_at < oldest->closed_at))
            oldest = e;
    }
    return oldest;
}

/* A new event's handle, or 0 when every slot holds an open event. */
static uint64_t new_event(struct firmware *fw, uint32_t type, const efi_guid_t *group)
{
    struct fw_event *e = free_slot(fw);
    if (!e) {
        if (!fw->events.spent_reported)
            fw_log(fw, "all %d events are open at once: CreateEvent returns EFI_OUT_OF_RESOURCES until one is closed",
                   FW_MAX_EVENTS);
        fw->events.spent_reported = true;
        return 0;
    }
    *e = (struct fw_event){ .open = true, .type = type, .in_group = group != NULL, .made = ++fw->events.made };
    if (group)
        e->group = *group;
    return handle_of_event(fw, e);
}

static bool key_pending(const struct firmware *fw)
{
    return fw->cfg.keys && fw->cfg.keys[fw->keys_taken];
}

/* Queue e's notify function (EDK2 CoreNotifyEvent); one queued already
 * keeps its place. */
static void queue_notify(struct firmware *fw, struct fw_event *e)
{
    if (e->queued)
        return;
    e->queued = true;
    e->queued_at = ++fw->events.queued;
}

/* A notify-signal event's function is queued as it becomes signaled
 * (EDK2 CoreSignalEvent). */
static void signal_one(struct firmware *fw, struct fw_event *e)
{
    if (e->signaled)
        return;
    e->signaled = true;
    if (e->type & EVT_NOTIFY_SIGNAL)
        queue_notify(fw, e);
}

/* The open event of the group made next after the one made `after`
 * (fw_event.made), or NULL. */
static struct fw_event *next_in_group(struct firmware *fw, const efi_guid_t *group, uint64_t after)
{
    struct fw_event *next = NULL;
    for (unsigned i = 0; i < fw->events.n; i++) {
        struct fw_event *o = &fw->events.slot[i];
        if (o->open && o->in_group && guid_equal(&o->group, group) && o->made > after &&
            (!next || o->made < next->made))
            next = o;
    }
    return next;
}

/* In the order the events were made, so their notify functions of one TPL
 * run in that order, whatever slots reused handles hold. */
void fw_signal_event_group(struct firmware *fw, const efi_guid_t *group)
{
    for (struct fw_event *o = next_in_group(fw, group, 0); o; o = next_in_group(fw, group, o->made))
        signal_one(fw, o);
}

/* An event in a group signals the whole group (UEFI 2.10 section 7.1.5). */
static void set_signaled(struct firmware *fw, struct fw_event *e)
{
    if (e->in_group)
        fw_signal_event_group(fw, &e->group);
    else
        signal_one(fw, e);
}

/* Of the timers due at now (only notify functions' if notify_only), the
 * one due first, or made first of those due at once; NULL if none. */
static struct fw_event *first_due(struct firmware *fw, uint64_t now, bool notify_only)
{
    struct fw_event *first = NULL;
    for (unsigned i = 0; i < fw->events.n; i++) {
        struct fw_event *e = &fw->events.slot[i];
        if (!e->open || !e->armed || e->due > now || (notify_only && !e->notify_function))
            continue;
        if (!first || e->due < first->due || (e->due == first->due && e->made < first->made))
            first = e;
    }
    return first;
}

/* Signal what is due: timers past their time, in the order they fell due
 * (EDK2's timer list is kept in trigger-time order), so their notify
 * functions of one TPL queue so; a periodic one moves on by whole periods,
 * one signal however many it missed, as EDK2's timer tick; and WaitForKey,
 * whose state is the key queue's: signaled exactly while keys remain.
 * notify_only: only the timers of notify functions, which the firmware
 * looks at after every call; the others only CheckEvent and WaitForEvent
 * look at, so that a timer set and cancelled between two looks never
 * fires. */
static void poll_timers(struct firmware *fw, bool notify_only)
{
    uint64_t now = firmware_clock_ns(fw);
    for (struct fw_event *e; (e = first_due(fw, now, notify_only));) {
        set_signaled(fw, e);
        if (!e->periodic)
            e->armed = false;
        else
            e->due += e->period * ((now - e->due) / e->period + 1);
    }
    struct fw_event *key = event_of(fw, fw->events.wait_for_key);
    if (key)
        key->signaled = key_pending(fw);
}

bool firmware_timer_armed(const struct firmware *fw)
{
    for (unsigned i = 0; i < fw->events.n; i++)
        if (fw->events.slot[i].open && fw->events.slot[i].armed)
            return true;
    return false;
}

bool firmware_halt_can_end(const struct firmware *fw)
{
    /* Not the watchdog: its reset is no wake-up. A HLT or a wait that only
     * the reset could end is reported at once, not minutes later. */
    return firmware_timer_armed(fw) || key_pending(fw);
}

void fw_stop_timers(struct firmware *fw)
{
    for (unsigned i = 0; i < fw->events.n; i++)
        fw->events.slot[i].armed = false;
    fw->events.timers_stopped = true;
}

static void poll(struct firmware *fw)
{
    poll_timers(fw, false);
}

void fw_events_init(struct firmware *fw)
{
    fw->events.wait_for_key = new_event(fw, 0, NULL);
}

/* CreateEvent's two signal types are event groups (UEFI 2.10 section
 * 7.1.2; EDK2's CoreCreateEventInternal maps them so): the group's GUID,
 * or false for another type. */
static bool group_of_type(uint32_t type, efi_guid_t *group)
{
    if (type == EVT_SIGNAL_EXIT_BOOT_SERVICES)
        *group = GUID_EVENT_GROUP_EXIT_BOOT_SERVICES;
    else if (type == EVT_SIGNAL_VIRTUAL_ADDRESS_CHANGE)
        *group = GUID_EVENT_GROUP_VIRTUAL_ADDRESS_CHANGE;
    return type == EVT_SIGNAL_EXIT_BOOT_SERVICES || type == EVT_SIGNAL_VIRTUAL_ADDRESS_CHANGE;
}

/* CreateEvent and CreateEventEx (UEFI 2.10 sections 7.1.1 and 7.1.2). */
static efi_status_t create(struct firmware *fw, const struct guest_view *v, const uint64_t *a, uint64_t group_ptr,
                           uint64_t event_ptr)
{
    /* Type is a UINT32: the upper half of RCX is not the caller's
     * (Microsoft x64 calling convention). */
    uint32_t type = (uint32_t)a[0];
    uint64_t notify_tpl = a[1], notify_function = a[2], notify_context = a[3];
    efi_guid_t group;
    unsigned t = 0;
    while (t < NTYPES && event_types[t].type != type)
        t++;
    if (!event_ptr || !guest_view_accessible(v, event_ptr, fw_uintn_size(fw)) || t == NTYPES)
        return EFI_INVALID_PARAMETER;
    if (group_ptr && (!guest_view_read(v, group_ptr, &group, sizeof(group)) ||
                      type == EVT_SIGNAL_EXIT_BOOT_SERVICES || type == EVT_SIGNAL_VIRTUAL_ADDRESS_CHANGE))
        return EFI_INVALID_PARAMETER;   /* those two are groups already (EDK2 CoreCreateEventEx) */
    bool grouped = group_ptr || group_of_type(type, &group);
    bool notify = type & (EVT_NOTIFY_WAIT | EVT_NOTIFY_SIGNAL);
    if (notify && (!notify_function || notify_tpl <= FW_TPL_APPLICATION || notify_tpl >= FW_TPL_HIGH_LEVEL))
        return EFI_INVALID_PARAMETER;
    if (notify && fw_ia32(fw)) {
        /* The notify trampoline is x64 code (state.h FW_ID_NOTIFY_RETURN).
         * After the checks above: a call the spec refuses gets its status. */
        fw_log(fw, "CreateEvent with a notify function is not served by a 32-bit firmware (--firmware-bits 32): "
               "EFI_UNSUPPORTED");
        return EFI_UNSUPPORTED;
    }
    uint64_t handle = new_event(fw, type, grouped ? &group : NULL);
    if (!handle)
        return EFI_OUT_OF_RESOURCES;
    struct fw_event *e = event_of(fw, handle);
    if (notify) {
        e->notify_function = notify_function;
        e->notify_context = notify_context;
        e->notify_tpl = notify_tpl;
    }
    fw_write_uintn(fw, v, event_ptr, handle);
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
    e->armed = type != EFI_TIMER_CANCEL && !fw->events.timers_stopped;   /* no tick after fw_stop_timers */
    e->periodic = type == EFI_TIMER_PERIODIC;
    /* A period of 0 is every timer tick (section 7.1.7), and EDK2 looks at
     * its timers once a tick, so no period is shorter: a notify function
     * whose timer is due again as it returns would run for ever, and its
     * caller never go on. */
    e->period = !e->periodic ? 0 : ns < FW_TIMER_TICK_NS ? FW_TIMER_TICK_NS : ns;
    e->due = firmware_clock_ns(fw) + ns;
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
    *e = (struct fw_event){ .closed_at = ++fw->events.closed };
    return EFI_SUCCESS;
}

/* A signaled event is reset as it is reported; a notify-signal event is
 * not for CheckEvent or WaitForEvent (UEFI 2.10 section 7.1.8). */
static efi_status_t check(struct firmware *fw, uint64_t handle)
{
    struct fw_event *e = event_of(fw, handle);
    if (!e || (e->type & EVT_NOTIFY_SIGNAL))
        return EFI_INVALID_PARAMETER;
    if (!e->signaled)
        return EFI_NOT_READY;
    e->signaled = false;
    return EFI_SUCCESS;
}

/* An unsignaled notify-wait event has its function run first, and is
 * then looked at again (EDK2 CoreCheckEvent). */
efi_status_t fw_check_event(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    (void)v;
    struct fw_event *e = event_of(fw, a[0]);
    poll(fw);
    if (e && (e->type & EVT_NOTIFY_WAIT) && !e->signaled) {
        queue_notify(fw, e);
        if (fw_notify_dispatch(fw, FW_NOTIFY_CHECK_EVENT, EFI_NOT_READY))
            return EFI_NOT_READY;
    }
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
        fw_read_uintn(fw, v, list + fw_uintn_size(fw) * i, &handle);
        efi_status_t s = check(fw, handle);
        if (s != EFI_NOT_READY) {
            *index = i;
            return s;
        }
    }
    return EFI_NOT_READY;
}

/* Shorten *wait to e's timer, if armed; whether it is. */
static bool timer_sooner(const struct fw_event *e, uint64_t now, uint64_t *wait)
{
    if (!e || !e->armed)
        return false;
    uint64_t left = e->due > now ? e->due - now : 0;
    if (left < *wait)
        *wait = left;
    return true;
}

/* How long until one of the events can be signaled, or a notify
 * function's timer is due, whose function may signal one: the earliest of
 * those timers, at most FW_WAIT_MAX_NS; false if there is none, so nothing
 * will ever signal them (the guest, waiting, cannot either). */
static bool next_due(struct firmware *fw, const struct guest_view *v, uint64_t n, uint64_t list, uint64_t *wait)
{
    uint64_t now = firmware_clock_ns(fw);
    bool any = false;
    *wait = FW_WAIT_MAX_NS;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t handle = 0;
        fw_read_uintn(fw, v, list + fw_uintn_size(fw) * i, &handle);
        any |= timer_sooner(event_of(fw, handle), now, wait);   /* another vCPU may have changed the list */
    }
    for (unsigned i = 0; i < fw->events.n; i++) {
        const struct fw_event *e = &fw->events.slot[i];
        if (e->open && e->notify_function)
            any |= timer_sooner(e, now, wait);
    }
    return any;
}

/* The notify-wait events of the list that are not signaled have their
 * functions queued (EDK2 CoreWaitForEvent, through CoreCheckEvent). */
static void queue_wait_notifies(struct firmware *fw, const struct guest_view *v, uint64_t n, uint64_t list)
{
    for (uint64_t i = 0; i < n; i++) {
        uint64_t handle = 0;
        fw_read_uintn(fw, v, list + fw_uintn_size(fw) * i, &handle);
        struct fw_event *e = event_of(fw, handle);
        if (e && (e->type & EVT_NOTIFY_WAIT) && !e->signaled)
            queue_notify(fw, e);
    }
}

/* WaitForEvent (UEFI 2.10 section 7.1.6) must not hold the VMM: with
 * nothing signaled it returns at once and the vCPU makes the same call
 * again, once the vCPU has slept (struct firmware.sleep_ns) until the
 * earliest timer is due, or FW_WAIT_MAX_NS; so --timeout and signals
 * stay prompt, and each round is a line of the trace. With no timer and no
 * key to come, only another vCPU could signal the events (an armed
 * watchdog could only reset the platform): the call says so (struct
 * firmware.waits_for_good). */
efi_status_t fw_wait_for_event(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t n = a[0], list = a[1], index_ptr = a[2], index;
    if (fw->tpl != FW_TPL_APPLICATION)
        return EFI_UNSUPPORTED;
    if (!n || n > WAIT_MAX_EVENTS || !list || !guest_view_accessible(v, list, fw_uintn_size(fw) * n) || !index_ptr ||
        !guest_view_accessible(v, index_ptr, fw_uintn_size(fw)))
        return EFI_INVALID_PARAMETER;
    efi_status_t s = check_list(fw, v, n, list, &index);
    if (s != EFI_NOT_READY) {
        fw_write_uintn(fw, v, index_ptr, index);
        return s;
    }
    queue_wait_notifies(fw, v, n, list);
    if (fw_notify_dispatch(fw, FW_NOTIFY_WAIT_AGAIN, EFI_NOT_READY))
        return EFI_NOT_READY;
    uint64_t wait;
    fw->waits_for_good = !next_due(fw, v, n, list, &wait);
    if (fw->waits_for_good && !fw->events.stuck_reported) {
        fw_log(fw, "WaitForEvent on %llu event(s) that nothing will signal (no timer armed, no key left: see "
               "--keys) but another vCPU", (unsigned long long)n);
        fw->events.stuck_reported = true;
    }
    const struct fw_call *c = fw->call;
    fw->transfer = (struct fw_transfer){ .pending = true, .rip = firmware_thunk(fw, FW_ID_BS(BS_WAIT_FOR_EVENT)),
                                         .rsp = c->rsp, .rcx = n, .rdx = list, .r8 = index_ptr };
    fw->sleep_ns = wait;
    return EFI_NOT_READY;
}

/* ---- notify functions ---------------------------------------------------- */

/* The queued function to run next above TPL tpl: of the highest TPL, the
 * first queued (EDK2 CoreRestoreTpl and CoreDispatchEventNotifies); NULL
 * if none. */
static struct fw_event *next_notify(struct firmware *fw, uint64_t tpl)
{
    struct fw_event *best = NULL;
    for (unsigned i = 0; i < fw->events.n; i++) {
        struct fw_event *e = &fw->events.slot[i];
        if (!e->open || !e->queued || e->notify_tpl <= tpl)
            continue;
        if (!best || e->notify_tpl > best->notify_tpl ||
            (e->notify_tpl == best->notify_tpl && e->queued_at < best->queued_at))
            best = e;
    }
    return best;
}

/* Send the vCPU through the trampoline to e's function, at its TPL. A
 * notify-signal event is unsignaled as its function runs; a notify-wait
 * one stays as it is, for CheckEvent (EDK2 CoreDispatchEventNotifies). */
static void run_notify(struct firmware *fw, const struct fw_notify_frame *f, struct fw_event *e)
{
    e->queued = false;
    if (e->type & EVT_NOTIFY_SIGNAL)
        e->signaled = false;
    fw->tpl = e->notify_tpl;
    fw->transfer = (struct fw_transfer){ .pending = true, .rip = firmware_thunk(fw, FW_ID_NOTIFY_RETURN),
                                         .rsp = f->stack, .rcx = handle_of_event(fw, e), .rdx = e->notify_context,
                                         .r8 = e->notify_function };
}

bool fw_notify_dispatch(struct firmware *fw, enum fw_notify_then then, efi_status_t status)
{
    const struct fw_call *c = fw->call;
    poll_timers(fw, true);
    struct fw_event *e = next_notify(fw, fw->tpl);
    if (!e)
        return false;
    /* The trampoline's frame goes below the caller's RSP, which holds the
     * return address of this call: the caller's own frame is above. */
    uint64_t stack = (c->rsp - NOTIFY_STACK_GAP) & ~0xfULL;
    if (fw->events.depth == FW_MAX_NOTIFY_DEPTH || c->rsp < NOTIFY_STACK_GAP + NOTIFY_STACK_USE ||
        !guest_view_accessible(&c->view, stack - NOTIFY_STACK_USE, NOTIFY_STACK_USE)) {
        if (!fw->events.stack_reported)
            fw_log(fw, "guest bug: notify functions wait to run, but below the caller's RSP 0x%llx there is no "
                   "stack for them: they stay queued", (unsigned long long)c->rsp);
        fw->events.stack_reported = true;
        return false;
    }
    struct fw_notify_frame *f = &fw->events.frame[fw->events.depth++];
    *f = (struct fw_notify_frame){ .id = fw->last_id, .rsp = c->rsp, .status = status, .then = then,
                                   .args = { c->rcx, c->rdx, c->r8 }, .tpl = fw->tpl, .stack = stack };
    run_notify(fw, f, e);
    return true;
}

/* The call whose notify functions have all run returns to its caller, or
 * is made again (WaitForEvent). */
static efi_status_t finish(struct firmware *fw, const struct fw_notify_frame *f)
{
    efi_status_t status = f->status;
    switch (f->then) {
    case FW_NOTIFY_WAIT_AGAIN:
        fw->transfer = (struct fw_transfer){ .pending = true, .rip = firmware_thunk(fw, f->id), .rsp = f->rsp,
                                             .rcx = f->args[0], .rdx = f->args[1], .r8 = f->args[2] };
        fw->sleep_ns = NOTIFY_WAIT_POLL_NS;
        return EFI_NOT_READY;
    case FW_NOTIFY_CHECK_EVENT:
        status = check(fw, f->args[0]);
        break;
    case FW_NOTIFY_EXIT_BOOT_SERVICES:
        status = fw_finish_exit_boot_services(fw, f->args[1]);
        break;
    case FW_NOTIFY_RETURN:
        break;
    }
    fw->transfer = (struct fw_transfer){ .pending = true, .rip = firmware_thunk(fw, f->id) + FW_THUNK_RET,
                                         .rsp = f->rsp };
    return status;
}

/* A notify function returned to the trampoline: the next one above the
 * call's TPL runs, or the call finishes at its TPL. */
static efi_status_t notify_return(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    (void)v, (void)a;
    if (!fw->events.depth) {
        fw_log(fw, "guest bug: the notify trampoline reached with no notify function running; stopping");
        fw->stop = FW_STOP_EXIT;
        fw->stop_status = EFI_INVALID_PARAMETER;
        return EFI_INVALID_PARAMETER;
    }
    struct fw_notify_frame *f = &fw->events.frame[fw->events.depth - 1];
    fw->tpl = f->tpl;
    poll_timers(fw, true);
    struct fw_event *e = next_notify(fw, f->tpl);
    if (e) {
        run_notify(fw, f, e);
        return EFI_SUCCESS;
    }
    fw->events.depth--;
    return finish(fw, f);
}

static void decode_notify_return(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                                 const uint64_t *a, efi_status_t status)
{
    (void)s, (void)v, (void)status;
    fw_trace_hex(o, "event", a[0]);
    fw_trace_hex(o, "notify_function", a[1]);
}

const struct fw_service fw_notify_return_service = {
    .id = FW_ID_NOTIFY_RETURN, .name = "NotifyFunction.Return", .nargs = 2, .fn = notify_return,
    .decode = decode_notify_return,
};

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
        fw_trace_ptr_uintn(o, "event", v, a[ex ? CREATE_EVENT_EX_HANDLE : CREATE_EVENT_HANDLE], true);
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
        fw_trace_ptr_uintn(o, "index", v, a[2], false);
}

/* SignalEvent, CloseEvent, CheckEvent: the event. */
void fw_decode_event(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                     const uint64_t *a, efi_status_t status)
{
    (void)s, (void)v, (void)status;
    fw_trace_hex(o, "event", a[0]);
}
