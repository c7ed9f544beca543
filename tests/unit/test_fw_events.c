/* Events, timers and task priority levels (UEFI 2.10 section 7.1; EDK2
 * MdeModulePkg/Core/Dxe/Event/: Event.c, Tpl.c): CreateEvent(Ex),
 * SignalEvent, CheckEvent, CloseEvent, SetTimer, WaitForEvent, the notify
 * functions the firmware runs through its trampoline, and ConIn's
 * WaitForKey event (section 12.3). */
#include "fw_fixture.h"
#include "../../firmware-stub/events.h"

#define EVT(x) BS(x##_EVENT)
#define NOTIFY_FN 0x1234560ULL   /* a guest notify function's address */
#define MS_100NS(ms) ((uint64_t)(ms) * 10000)   /* SetTimer's TriggerTime unit is 100 ns */

static uint64_t new_event(uint32_t type)
{
    uint64_t p = put_u64(0);
    ck_assert_uint_eq(CALL(EVT(CREATE), type, 0, 0, 0, p), EFI_SUCCESS);
    return rd64(p);
}

static uint64_t new_group_event(efi_guid_t group)
{
    uint64_t p = put_u64(0);
    ck_assert_uint_eq(CALL(BS(CREATE_EVENT_EX), 0, 0, 0, 0, put_guid(group), p), EFI_SUCCESS);
    return rd64(p);
}

static uint64_t wait_for_key(void) { return rd64(fw.con_in + 8 * CONIN_COUNT); }

static void advance_clock_ms(unsigned ms) { advance_clock_ns((uint64_t)ms * 1000000); }

/* WaitForEvent on the list; returns its status and *Index in *index. */
static efi_status_t wait_for(const uint64_t *events, unsigned n, uint64_t *index)
{
    uint64_t list = put(events, 8 * n), index_p = put_u64(~0ULL);
    efi_status_t s = CALL(BS(WAIT_FOR_EVENT), n, list, index_p);
    *index = rd64(index_p);
    return s;
}

/* ---- events, timers, WaitForEvent ------------------------------------------------------ */

START_TEST(create_event_makes_handles_in_the_firmware_region_and_wait_for_key_is_one)
{
    uint64_t plain = new_event(0), timer = new_event(EVT_TIMER);
    const uint64_t first = FW_BASE + FW_EVENTS_OFFSET;
    ck_assert_uint_eq(wait_for_key(), first);   /* made at init, the first event */
    ck_assert_uint_eq(plain, first + 8);
    ck_assert_uint_eq(timer, first + 16);
    ck_assert_uint_eq(memmap_type_at(&fw.map, plain), EFI_BOOT_SERVICES_DATA);
    ck_assert_uint_eq(CALL(EVT(CHECK), wait_for_key()), EFI_NOT_READY);   /* no --keys */
    ck_assert_uint_eq(CALL(EVT(CHECK), plain), EFI_NOT_READY);
    ck_assert_uint_eq(CALL(EVT(CHECK), timer), EFI_NOT_READY);
}
END_TEST

START_TEST(create_event_refuses_bad_types_tpls_and_pointers)
{
    uint64_t p = put_u64(0), far = RAM_SIZE - 4, group = put_guid(GUID_TEST);
    const uint64_t bad_types[] = { 1, EVT_RUNTIME, EVT_NOTIFY_WAIT | EVT_NOTIFY_SIGNAL, EVT_TIMER | EVT_RUNTIME,
                                   EVT_TIMER | EVT_SIGNAL_EXIT_BOOT_SERVICES, 0x20000000 };
    for (unsigned i = 0; i < sizeof(bad_types) / sizeof(bad_types[0]); i++)
        ck_assert_uint_eq(CALL(EVT(CREATE), bad_types[i], 8, NOTIFY_FN, 0, p), EFI_INVALID_PARAMETER);
    /* A notify type needs a function and a TPL above TPL_APPLICATION, below TPL_HIGH_LEVEL. */
    ck_assert_uint_eq(CALL(EVT(CREATE), EVT_NOTIFY_WAIT, 8, 0, 0, p), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(EVT(CREATE), EVT_NOTIFY_SIGNAL, FW_TPL_APPLICATION, NOTIFY_FN, 0, p),
                      EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(EVT(CREATE), EVT_NOTIFY_SIGNAL, FW_TPL_HIGH_LEVEL, NOTIFY_FN, 0, p), EFI_INVALID_PARAMETER);
    /* *Event NULL or outside RAM; an unreadable EventGroup; an exit-boot-services
     * type with a group of its own. */
    ck_assert_uint_eq(CALL(EVT(CREATE), 0, 0, 0, 0, 0), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(EVT(CREATE), 0, 0, 0, 0, far), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(CREATE_EVENT_EX), 0, 0, 0, 0, far, p), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(CREATE_EVENT_EX), EVT_SIGNAL_EXIT_BOOT_SERVICES, 8, NOTIFY_FN, 0, group, p),
                      EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(rd64(p), 0);
    ck_assert_uint_eq(fw.events.n, 1);   /* only WaitForKey */
    /* EVT_RUNTIME goes only with EVT_SIGNAL_VIRTUAL_ADDRESS_CHANGE; Type is a
     * UINT32, so RCX's upper half is not the caller's. */
    ck_assert_uint_eq(CALL(EVT(CREATE), 0xdead000080000000ULL, 0, 0, 0, p), EFI_SUCCESS);
}
END_TEST

START_TEST(check_event_after_relative_timers_of_zero_and_of_an_hour)
{
    uint64_t now = new_event(EVT_TIMER), later = new_event(EVT_TIMER);
    ck_assert_uint_eq(CALL(BS(SET_TIMER), now, EFI_TIMER_RELATIVE, 0), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(BS(SET_TIMER), later, EFI_TIMER_RELATIVE, MS_100NS(3600 * 1000)), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(EVT(CHECK), now), EFI_SUCCESS);       /* due at the next look */
    ck_assert_uint_eq(CALL(EVT(CHECK), now), EFI_NOT_READY);     /* reset as reported; relative fires once */
    ck_assert_uint_eq(CALL(EVT(CHECK), later), EFI_NOT_READY);
    /* A new setting replaces the old one; TimerCancel disarms. */
    ck_assert_uint_eq(CALL(BS(SET_TIMER), later, EFI_TIMER_RELATIVE, 0), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(BS(SET_TIMER), later, EFI_TIMER_CANCEL, 0), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(EVT(CHECK), later), EFI_NOT_READY);
    /* A trigger time too large to add stays in the future. */
    ck_assert_uint_eq(CALL(BS(SET_TIMER), later, EFI_TIMER_RELATIVE, ~0ULL), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(EVT(CHECK), later), EFI_NOT_READY);
    /* Only a timer event takes a timer, of one of the three types. */
    ck_assert_uint_eq(CALL(BS(SET_TIMER), new_event(0), EFI_TIMER_RELATIVE, 0), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(SET_TIMER), now, 3, 0), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(SET_TIMER), wait_for_key(), EFI_TIMER_RELATIVE, 0), EFI_INVALID_PARAMETER);
}
END_TEST

/* What the run loop asks of a vCPU halted in the firmware phase
 * (vmm/kvm/halt_wake.c): whether any timer could still wake it. */
START_TEST(a_timer_is_armed_from_set_timer_until_it_fires_once_or_is_cancelled_or_closed)
{
    ck_assert(!firmware_timer_armed(&fw));
    uint64_t once = new_event(EVT_TIMER), every = new_event(EVT_TIMER);
    ck_assert_uint_eq(CALL(BS(SET_TIMER), once, EFI_TIMER_RELATIVE, 0), EFI_SUCCESS);
    ck_assert(firmware_timer_armed(&fw));
    ck_assert_uint_eq(CALL(EVT(CHECK), once), EFI_SUCCESS);   /* fired: a relative timer is spent */
    ck_assert(!firmware_timer_armed(&fw));
    ck_assert_uint_eq(CALL(BS(SET_TIMER), every, EFI_TIMER_PERIODIC, MS_100NS(10)), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(BS(SET_TIMER), every, EFI_TIMER_CANCEL, 0), EFI_SUCCESS);
    ck_assert(!firmware_timer_armed(&fw));
    ck_assert_uint_eq(CALL(BS(SET_TIMER), every, EFI_TIMER_PERIODIC, MS_100NS(10)), EFI_SUCCESS);
    ck_assert(firmware_timer_armed(&fw));
    ck_assert_uint_eq(CALL(BS(CLOSE_EVENT), every), EFI_SUCCESS);
    ck_assert(!firmware_timer_armed(&fw));
}
END_TEST

/* A HLT is woken by a firmware's tick whatever the application waits
 * for: a key left to read ends it as a timer does (halt_wake.c), so an
 * application that halts before it reads ConIn gets its --keys. */
START_TEST(a_halt_can_end_while_a_timer_is_armed_or_a_key_is_left)
{
    ck_assert(!firmware_halt_can_end(&fw));
    fw.cfg.keys = "y";
    ck_assert(firmware_halt_can_end(&fw));
    ck_assert(!firmware_timer_armed(&fw));
    ck_assert_uint_eq(CALL(FW_ID_CONIN(CONIN_READ_KEY_STROKE), fw.con_in, scratch(4)), EFI_SUCCESS);
    ck_assert(!firmware_halt_can_end(&fw));
    uint64_t timer = new_event(EVT_TIMER);
    ck_assert_uint_eq(CALL(BS(SET_TIMER), timer, EFI_TIMER_RELATIVE, MS_100NS(1000)), EFI_SUCCESS);
    ck_assert(firmware_halt_can_end(&fw));
}
END_TEST

START_TEST(periodic_timers_signal_once_per_period)
{
    uint64_t every = new_event(EVT_TIMER), tick = new_event(EVT_TIMER);
    /* A period of 0 is every timer tick (UEFI 2.10 section 7.1.7): due at
     * once, then not again until a tick has passed. */
    ck_assert_uint_eq(CALL(BS(SET_TIMER), every, EFI_TIMER_PERIODIC, 0), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(EVT(CHECK), every), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(EVT(CHECK), every), EFI_NOT_READY);
    advance_clock_ms(FW_TIMER_TICK_NS / 1000000 + 2);
    ck_assert_uint_eq(CALL(EVT(CHECK), every), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(BS(SET_TIMER), tick, EFI_TIMER_PERIODIC, MS_100NS(150)), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(EVT(CHECK), tick), EFI_NOT_READY);
    advance_clock_ms(170);
    ck_assert_uint_eq(CALL(EVT(CHECK), tick), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(EVT(CHECK), tick), EFI_NOT_READY);
    advance_clock_ms(330);   /* two periods missed: one signal */
    ck_assert_uint_eq(CALL(EVT(CHECK), tick), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(EVT(CHECK), tick), EFI_NOT_READY);
    ck_assert_uint_eq(CALL(BS(CLOSE_EVENT), tick), EFI_SUCCESS);   /* the timer goes with it */
    ck_assert_uint_eq(CALL(EVT(CHECK), tick), EFI_INVALID_PARAMETER);
}
END_TEST

START_TEST(signal_check_and_close_and_stale_or_wild_handles)
{
    uint64_t e = new_event(0);
    ck_assert_uint_eq(CALL(EVT(SIGNAL), e), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(EVT(SIGNAL), e), EFI_SUCCESS);   /* signaled is a state, not a count */
    ck_assert_uint_eq(CALL(EVT(CHECK), e), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(EVT(CHECK), e), EFI_NOT_READY);
    ck_assert_uint_eq(CALL(EVT(SIGNAL), e), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(BS(CLOSE_EVENT), e), EFI_SUCCESS);
    uint64_t again = new_event(0);
    ck_assert_uint_ne(again, e);   /* not reused while a slot never used is left */
    const uint64_t first = FW_BASE + FW_EVENTS_OFFSET;
    const uint64_t wild[] = { e, 0, first - 8, first + 4, again + 8, first + 8 * FW_MAX_EVENTS, RAM_SIZE + 8, ~0ULL,
                              fw.image_handle };
    for (unsigned i = 0; i < sizeof(wild) / sizeof(wild[0]); i++) {
        ck_assert_uint_eq(CALL(EVT(CHECK), wild[i]), EFI_INVALID_PARAMETER);
        ck_assert_uint_eq(CALL(EVT(SIGNAL), wild[i]), EFI_INVALID_PARAMETER);
        ck_assert_uint_eq(CALL(BS(CLOSE_EVENT), wild[i]), EFI_INVALID_PARAMETER);
        ck_assert_uint_eq(CALL(BS(SET_TIMER), wild[i], EFI_TIMER_RELATIVE, 0), EFI_INVALID_PARAMETER);
    }
    ck_assert_uint_eq(CALL(EVT(CHECK), again), EFI_NOT_READY);
}
END_TEST

/* A loader that makes and closes an event per key read (systemd-boot's
 * console_key_read, a timer each) makes far more events than there are
 * slots: once every slot has been used, a closed one is reused, the one
 * closed longest ago first, and never WaitForKey's (UEFI 2.10 section
 * 7.1.1: EFI_OUT_OF_RESOURCES is for an event that cannot be allocated). */
START_TEST(closed_event_slots_are_reused_oldest_first_once_all_are_used)
{
    for (unsigned i = 0; i < 10 * FW_MAX_EVENTS; i++) {
        uint64_t e = new_event(EVT_TIMER);
        ck_assert_uint_eq(CALL(BS(SET_TIMER), e, EFI_TIMER_RELATIVE, MS_100NS(1000)), EFI_SUCCESS);
        ck_assert_uint_eq(CALL(BS(CLOSE_EVENT), e), EFI_SUCCESS);
    }
    ck_assert_uint_eq(fw.events.n, FW_MAX_EVENTS);
    ck_assert_ptr_null(strstr(log_text(), "CreateEvent returns EFI_OUT_OF_RESOURCES"));
    /* Every slot open again; two closed, 3 then 1: the one closed
     * longest ago is reused first, and a stale handle names nothing until
     * its slot is. */
    uint64_t keep[FW_MAX_EVENTS];
    for (unsigned i = 1; i < FW_MAX_EVENTS; i++)
        keep[i] = new_event(EVT_TIMER);
    ck_assert_uint_eq(CALL(BS(SET_TIMER), keep[3], EFI_TIMER_RELATIVE, 0), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(BS(CLOSE_EVENT), keep[3]), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(BS(CLOSE_EVENT), keep[1]), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(EVT(SIGNAL), keep[3]), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(new_event(0), keep[3]);
    ck_assert_uint_eq(new_event(0), keep[1]);
    /* A reused slot is a new event: nothing of the closed one's is left. */
    ck_assert_uint_eq(CALL(EVT(CHECK), keep[3]), EFI_NOT_READY);
    ck_assert_uint_eq(CALL(BS(SET_TIMER), keep[3], EFI_TIMER_RELATIVE, 0), EFI_INVALID_PARAMETER);
    ck_assert(!firmware_timer_armed(&fw));
    /* WaitForKey closed (a guest may) is never handed out again. */
    ck_assert_uint_eq(CALL(BS(CLOSE_EVENT), wait_for_key()), EFI_SUCCESS);
    uint64_t p = put_u64(0);
    ck_assert_uint_eq(CALL(EVT(CREATE), 0, 0, 0, 0, p), EFI_OUT_OF_RESOURCES);
    ck_assert_uint_eq(rd64(p), 0);
}
END_TEST

/* Every slot open at once: CreateEvent is EFI_OUT_OF_RESOURCES, said once
 * in the log, until one is closed. */
START_TEST(all_events_open_at_once_is_out_of_resources_said_once)
{
    uint64_t p = put_u64(0), last = 0;
    while (fw.events.n < FW_MAX_EVENTS)
        last = new_event(0);
    ck_assert_uint_eq(CALL(EVT(CREATE), 0, 0, 0, 0, p), EFI_OUT_OF_RESOURCES);
    ck_assert_uint_eq(CALL(EVT(CREATE), EVT_TIMER, 0, 0, 0, p), EFI_OUT_OF_RESOURCES);
    ck_assert_uint_eq(rd64(p), 0);
    const char *said = strstr(log_text(), "events are open at once");
    ck_assert_ptr_nonnull(said);
    ck_assert_ptr_null(strstr(said + 1, "events are open at once"));
    ck_assert_uint_eq(CALL(BS(CLOSE_EVENT), last), EFI_SUCCESS);
    ck_assert_uint_eq(new_event(EVT_TIMER), last);
}
END_TEST


START_TEST(event_groups_signal_together)
{
    const efi_guid_t other = GUID_GOP;
    uint64_t a1 = new_group_event(GUID_TEST), a2 = new_group_event(GUID_TEST), b = new_group_event(other);
    uint64_t lone = new_event(0), timer_p = put_u64(0);
    ck_assert_uint_eq(CALL(EVT(SIGNAL), a1), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(EVT(CHECK), a2), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(EVT(CHECK), a1), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(EVT(CHECK), b), EFI_NOT_READY);
    ck_assert_uint_eq(CALL(EVT(CHECK), lone), EFI_NOT_READY);
    /* A timer in the group signals the group when it is due. */
    ck_assert_uint_eq(CALL(BS(CREATE_EVENT_EX), EVT_TIMER, 0, 0, 0, put_guid(GUID_TEST), timer_p), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(BS(SET_TIMER), rd64(timer_p), EFI_TIMER_RELATIVE, 0), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(EVT(CHECK), a2), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(EVT(CHECK), a1), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(EVT(CHECK), rd64(timer_p)), EFI_SUCCESS);
    /* A closed member is out of the group. */
    ck_assert_uint_eq(CALL(BS(CLOSE_EVENT), a2), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(EVT(SIGNAL), a1), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(EVT(CHECK), a1), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(EVT(CHECK), b), EFI_NOT_READY);
}
END_TEST

START_TEST(wait_for_event_returns_the_index_of_the_signaled_event)
{
    uint64_t e[3] = { new_event(0), new_event(EVT_TIMER), new_event(0) }, index;
    ck_assert_uint_eq(CALL(EVT(SIGNAL), e[2]), EFI_SUCCESS);
    ck_assert_uint_eq(wait_for(e, 3, &index), EFI_SUCCESS);
    ck_assert_uint_eq(index, 2);
    ck_assert_uint_eq(CALL(EVT(CHECK), e[2]), EFI_NOT_READY);   /* reset as reported */
    ck_assert(!fw.transfer.pending);
    /* The first of those signaled, in list order. */
    CALL(EVT(SIGNAL), e[2]);
    CALL(BS(SET_TIMER), e[1], EFI_TIMER_RELATIVE, 0);
    ck_assert_uint_eq(wait_for(e, 3, &index), EFI_SUCCESS);
    ck_assert_uint_eq(index, 1);
    ck_assert_uint_eq(wait_for(e, 3, &index), EFI_SUCCESS);
    ck_assert_uint_eq(index, 2);
}
END_TEST

START_TEST(wait_for_event_refuses_hostile_lists)
{
    uint64_t e[2] = { new_event(0), new_event(0) }, index, list = put(e, 16), index_p = put_u64(7);
    ck_assert_uint_eq(wait_for(e, 0, &index), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(WAIT_FOR_EVENT), 2, 0, index_p), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(WAIT_FOR_EVENT), 2, RAM_SIZE - 8, index_p), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(WAIT_FOR_EVENT), 1ULL << 61, list, index_p), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(WAIT_FOR_EVENT), 2, list, 0), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(WAIT_FOR_EVENT), 2, list, RAM_SIZE - 4), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(rd64(index_p), 7);
    /* An event that is not one: EFI_INVALID_PARAMETER with its index. */
    CALL(BS(CLOSE_EVENT), e[1]);
    ck_assert_uint_eq(wait_for(e, 2, &index), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(index, 1);
    /* Only at TPL_APPLICATION (UEFI 2.10 section 7.1.6). */
    CALL(EVT(SIGNAL), e[0]);
    CALL(BS(RAISE_TPL), 8);
    ck_assert_uint_eq(wait_for(e, 1, &index), EFI_UNSUPPORTED);
    CALL(BS(RESTORE_TPL), FW_TPL_APPLICATION);
    ck_assert_uint_eq(wait_for(e, 1, &index), EFI_SUCCESS);
    ck_assert(!fw.transfer.pending);
}
END_TEST

/* Nothing signaled: the vCPU makes the same call again, after the VMM
 * slept until the timer is due. */
START_TEST(wait_for_event_with_nothing_signaled_makes_the_call_again)
{
    uint64_t e[2] = { new_event(0), new_event(EVT_TIMER) }, list = put(e, 16), index_p = put_u64(9);
    ck_assert_uint_eq(CALL(BS(SET_TIMER), e[1], EFI_TIMER_RELATIVE, MS_100NS(50)), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(BS(WAIT_FOR_EVENT), 2, list, index_p), EFI_NOT_READY);
    ck_assert(fw.transfer.pending && !fw.transfer.restore);
    ck_assert_uint_eq(fw.transfer.rip, firmware_thunk(&fw, BS(WAIT_FOR_EVENT)));
    ck_assert_uint_eq(fw.transfer.rsp, cur_rsp);   /* the caller's return address is still at RSP */
    ck_assert_uint_eq(fw.transfer.rcx, 2);
    ck_assert_uint_eq(fw.transfer.rdx, list);
    ck_assert_uint_gt(fw.sleep_ns, 0);
    ck_assert_uint_le(fw.sleep_ns, 50000000);
    ck_assert(!fw.waits_for_good);   /* the timer will signal */
    ck_assert_uint_eq(rd64(index_p), 9);
    advance_clock_ns(fw.sleep_ns);   /* as the VMM's vCPU sleeps */
    ck_assert_uint_eq(CALL(BS(WAIT_FOR_EVENT), 2, list, index_p), EFI_SUCCESS);
    ck_assert_uint_eq(rd64(index_p), 1);
    ck_assert(!fw.transfer.pending);
    /* No timer and no key to come: the longest sleep, a word in the log,
     * once, and the call says the guest waits for good (the VMM ends a
     * run of one vCPU there, vmm/kvm/run.c). */
    for (unsigned i = 0; i < 2; i++) {
        ck_assert_uint_eq(CALL(BS(WAIT_FOR_EVENT), 1, put_u64(wait_for_key()), index_p), EFI_NOT_READY);
        ck_assert(fw.transfer.pending);
        ck_assert_uint_eq(fw.sleep_ns, FW_WAIT_MAX_NS);
        ck_assert(fw.waits_for_good);
    }
    const char *first = strstr(log_text(), "nothing will signal");
    ck_assert_ptr_nonnull(first);
    ck_assert_ptr_null(strstr(first + 1, "nothing will signal"));
    ck_assert_uint_eq(CALL(BS(STALL), 0), EFI_SUCCESS);
    ck_assert(!fw.waits_for_good);   /* said of one call only */
}
END_TEST

/* A notify function's timer may signal any event when its function runs:
 * a wait on others is not for good while it is armed. */
START_TEST(wait_for_event_is_not_for_good_while_a_notify_functions_timer_is_armed)
{
    uint64_t p = put_u64(0), index;
    ck_assert_uint_eq(CALL(EVT(CREATE), EVT_TIMER | EVT_NOTIFY_SIGNAL, 8, NOTIFY_FN, 0, p), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(BS(SET_TIMER), rd64(p), EFI_TIMER_RELATIVE, MS_100NS(3600 * 1000)), EFI_SUCCESS);
    uint64_t plain = new_event(0);
    ck_assert_uint_eq(wait_for(&plain, 1, &index), EFI_NOT_READY);
    ck_assert(!fw.waits_for_good);
    ck_assert_uint_eq(CALL(BS(SET_TIMER), rd64(p), EFI_TIMER_CANCEL, 0), EFI_SUCCESS);
    ck_assert_uint_eq(wait_for(&plain, 1, &index), EFI_NOT_READY);
    ck_assert(fw.waits_for_good);
}
END_TEST

/* --keys, escapes and all, one a call, then EFI_NOT_READY; WaitForKey is
 * signaled while keys remain. */
START_TEST(read_key_stroke_delivers_the_keys_in_order_and_wait_for_key_follows)
{
    fw.cfg.keys = "a\\n\\r\\e\\t\\b\\\\\\U\\D\\L\\R\xc3\xa9\n";
    static const struct efi_input_key want[] = {
        { 0, 'a' }, { 0, 0x0d }, { 0, 0x0d }, { 0x17, 0 }, { 0, 0x09 }, { 0, 0x08 }, { 0, '\\' },
        { 0x01, 0 }, { 0x02, 0 }, { 0x04, 0 }, { 0x03, 0 }, { 0, 0xe9 }, { 0, 0x0d },
    };
    uint64_t key = scratch(4), timer = new_event(EVT_TIMER), index;
    CALL(BS(SET_TIMER), timer, EFI_TIMER_RELATIVE, MS_100NS(3600 * 1000));
    ck_assert_uint_eq(CALL(FW_ID_CONIN(CONIN_RESET), fw.con_in, 0), EFI_SUCCESS);   /* drops no --keys */
    /* A key pointer outside RAM: refused, and the key stays. */
    ck_assert_uint_eq(CALL(FW_ID_CONIN(CONIN_READ_KEY_STROKE), fw.con_in, RAM_SIZE - 2), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(FW_ID_CONIN(CONIN_READ_KEY_STROKE), fw.con_in, 0), EFI_INVALID_PARAMETER);
    for (unsigned i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        ck_assert_uint_eq(wait_for((const uint64_t[]){ timer, wait_for_key() }, 2, &index), EFI_SUCCESS);
        ck_assert_uint_eq(index, 1);
        ck_assert_uint_eq(CALL(EVT(CHECK), wait_for_key()), EFI_SUCCESS);   /* still keys: signaled again */
        ck_assert_uint_eq(CALL(FW_ID_CONIN(CONIN_READ_KEY_STROKE), fw.con_in, key), EFI_SUCCESS);
        struct efi_input_key got;
        memcpy(&got, hp(key), sizeof(got));
        ck_assert_msg(got.scan_code == want[i].scan_code && got.unicode_char == want[i].unicode_char,
                      "key %u: scan 0x%x char 0x%x, want 0x%x 0x%x", i, got.scan_code, got.unicode_char,
                      want[i].scan_code, want[i].unicode_char);
    }
    ck_assert_uint_eq(CALL(EVT(CHECK), wait_for_key()), EFI_NOT_READY);
    ck_assert_uint_eq(CALL(FW_ID_CONIN(CONIN_READ_KEY_STROKE), fw.con_in, key), EFI_NOT_READY);
    ck_assert_uint_eq(fw.key_polls, 1);
}
END_TEST

START_TEST(trace_decodes_the_event_services)
{
    trace_to_memory();
    uint64_t p = put_u64(0), index_p = put_u64(0);
    CALL(EVT(CREATE), EVT_TIMER, 0, 0, 0, p);
    uint64_t e = rd64(p);
    CALL(BS(CREATE_EVENT_EX), EVT_NOTIFY_SIGNAL, 8, NOTIFY_FN, 0, put_guid(GUID_RANDOM_SEED), p);
    CALL(BS(SET_TIMER), e, EFI_TIMER_PERIODIC, 100);
    CALL(EVT(SIGNAL), e);
    CALL(BS(WAIT_FOR_EVENT), 2, put(((const uint64_t[]){ wait_for_key(), e }), 16), index_p);
    CALL(BS(WAIT_FOR_EVENT), 1, put_u64(wait_for_key()), index_p);
    char want[1024], got[1024];
    decoded_tails(got, sizeof(got));
    snprintf(want, sizeof(want),
             ",\"decoded\":{\"type\":\"EVT_TIMER\",\"event\":\"0x%llx\"}}\n"
             ",\"decoded\":{\"type\":\"EVT_NOTIFY_SIGNAL\",\"notify_tpl\":8,\"notify_function\":\"0x1234560\","
             "\"group\":\"LINUX_EFI_RANDOM_SEED\",\"event\":\"0x%llx\"}}\n"
             ",\"decoded\":{\"event\":\"0x%llx\",\"timer\":\"TimerPeriodic\",\"trigger_time_100ns\":100}}\n"
             ",\"decoded\":{\"event\":\"0x%llx\"}}\n"
             ",\"decoded\":{\"events\":2,\"index\":1}}\n"
             ",\"decoded\":{\"events\":1,\"wait\":\"none signaled: the call is made again\"}}\n",
             (unsigned long long)e, (unsigned long long)e + 8, (unsigned long long)e, (unsigned long long)e);
    ck_assert_str_eq(got, want);
}
END_TEST

/* ---- notify functions (UEFI 2.10 section 7.1; EDK2 Event.c, Tpl.c) --------------------- */

#define TPL_CALLBACK 8
#define TPL_NOTIFY   16
#define NOTIFY_FN2   0x1234570ULL

static uint64_t new_notify_event(uint32_t type, uint64_t tpl, uint64_t fn, uint64_t context)
{
    uint64_t p = put_u64(0);
    ck_assert_uint_eq(CALL(EVT(CREATE), type, tpl, fn, context, p), EFI_SUCCESS);
    return rd64(p);
}

/* The vCPU was sent to the trampoline to call fn(event, context) at tpl:
 * RSP 16-byte aligned (the trampoline keeps it so at the call), below the
 * caller's frame, and readable. */
static void assert_notify_runs(uint64_t event, uint64_t fn, uint64_t context, uint64_t tpl, uint64_t below)
{
    ck_assert(fw.transfer.pending);
    ck_assert_uint_eq(fw.transfer.rip, firmware_thunk(&fw, FW_ID_NOTIFY_RETURN));
    ck_assert_uint_eq(fw.transfer.rcx, event);
    ck_assert_uint_eq(fw.transfer.rdx, context);
    ck_assert_uint_eq(fw.transfer.r8, fn);
    ck_assert_uint_eq(fw.transfer.rsp % 16, 0);
    ck_assert_uint_lt(fw.transfer.rsp, below);
    ck_assert_uint_eq(fw.tpl, tpl);
}

/* The function returned: the trampoline re-enters the firmware with RCX =
 * the event, RDX = the function, on the RSP it was given. */
static efi_status_t notify_returns(void)
{
    uint64_t saved = cur_rsp;
    cur_rsp = fw.transfer.rsp;
    efi_status_t s = CALL(FW_ID_NOTIFY_RETURN, fw.transfer.rcx, fw.transfer.r8);
    cur_rsp = saved;
    return s;
}

/* The call made at rsp returns to its caller with the TPL it was made at. */
static void assert_call_returns(unsigned id, uint64_t rsp, uint64_t tpl)
{
    ck_assert(fw.transfer.pending);
    ck_assert_uint_eq(fw.transfer.rip, firmware_thunk(&fw, id) + FW_THUNK_RET);
    ck_assert_uint_eq(fw.transfer.rsp, rsp);
    ck_assert_uint_eq(fw.tpl, tpl);
    ck_assert_uint_eq(fw.events.depth, 0);
}

struct notify_run { uint64_t event, fn, context; };

/* The queued functions of TPL_CALLBACK run in this order, each returning,
 * and then the call id made at TPL_APPLICATION returns. */
static void assert_callbacks_run_in_order(const struct notify_run *runs, unsigned n, unsigned id)
{
    for (unsigned i = 0; i < n; i++) {
        assert_notify_runs(runs[i].event, runs[i].fn, runs[i].context, TPL_CALLBACK, STACK_TOP);
        ck_assert_uint_eq(notify_returns(), EFI_SUCCESS);
    }
    assert_call_returns(id, STACK_TOP, FW_TPL_APPLICATION);
}

/* Timers that fall due between two looks are signaled in the order they
 * fell due (EDK2 keeps its timer list in trigger-time order), so their
 * functions of one TPL run in that order, whichever was made first. */
START_TEST(timers_due_at_one_look_run_their_functions_in_the_order_they_fell_due)
{
    uint64_t later = new_notify_event(EVT_TIMER | EVT_NOTIFY_SIGNAL, TPL_CALLBACK, NOTIFY_FN, 1);
    uint64_t sooner = new_notify_event(EVT_TIMER | EVT_NOTIFY_SIGNAL, TPL_CALLBACK, NOTIFY_FN2, 2);
    ck_assert_uint_eq(CALL(BS(SET_TIMER), later, EFI_TIMER_RELATIVE, MS_100NS(300)), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(BS(SET_TIMER), sooner, EFI_TIMER_RELATIVE, MS_100NS(150)), EFI_SUCCESS);
    ck_assert(!fw.transfer.pending);
    advance_clock_ms(350);
    ck_assert_uint_eq(CALL(BS(STALL), 0), EFI_SUCCESS);
    const struct notify_run runs[] = { { sooner, NOTIFY_FN2, 2 }, { later, NOTIFY_FN, 1 } };
    assert_callbacks_run_in_order(runs, 2, BS(STALL));
}
END_TEST

/* A group's notify functions of one TPL run in the order their events
 * were made, whichever slots reuse put them in. */
START_TEST(a_groups_notify_functions_run_in_the_order_made_in_reused_slots)
{
    uint64_t p = put_u64(0), g = put_guid(GUID_TEST);
    while (fw.events.n < FW_MAX_EVENTS)
        ck_assert_uint_eq(CALL(BS(CLOSE_EVENT), new_event(0)), EFI_SUCCESS);
    /* The next two go to slots 1 and 2; slot 1's is closed, so the third
     * made takes it, below the second. */
    ck_assert_uint_eq(CALL(BS(CREATE_EVENT_EX), EVT_NOTIFY_SIGNAL, TPL_CALLBACK, NOTIFY_FN, 1, g, p), EFI_SUCCESS);
    uint64_t gone = rd64(p);
    ck_assert_uint_eq(CALL(BS(CREATE_EVENT_EX), EVT_NOTIFY_SIGNAL, TPL_CALLBACK, NOTIFY_FN, 2, g, p), EFI_SUCCESS);
    uint64_t second = rd64(p);
    ck_assert_uint_eq(CALL(BS(CLOSE_EVENT), gone), EFI_SUCCESS);
    for (unsigned i = 3; i < FW_MAX_EVENTS; i++)   /* the slots closed before gone */
        new_event(0);
    ck_assert_uint_eq(CALL(BS(CREATE_EVENT_EX), EVT_NOTIFY_SIGNAL, TPL_CALLBACK, NOTIFY_FN, 3, g, p), EFI_SUCCESS);
    uint64_t third = rd64(p);
    ck_assert_uint_eq(third, gone);
    ck_assert_uint_lt(third, second);
    ck_assert_uint_eq(CALL(EVT(SIGNAL), third), EFI_SUCCESS);
    const struct notify_run runs[] = { { second, NOTIFY_FN, 2 }, { third, NOTIFY_FN, 3 } };
    assert_callbacks_run_in_order(runs, 2, EVT(SIGNAL));
}
END_TEST

START_TEST(signal_event_runs_the_notify_function_through_the_trampoline)
{
    const uint8_t *t = hp(firmware_thunk(&fw, FW_ID_NOTIFY_RETURN));
    static const uint8_t call_r8[] = { 0x51, 0x41, 0x50, 0x48, 0x83, 0xec, 0x20, 0x41, 0xff, 0xd0 };
    ck_assert_mem_eq(t, call_r8, sizeof(call_r8));
    uint32_t id;
    memcpy(&id, t + 17, 4);
    ck_assert_uint_eq(id, FW_ID_NOTIFY_RETURN);
    ck_assert_uint_eq(t[21], 0xe7);

    uint64_t e = new_notify_event(EVT_NOTIFY_SIGNAL, TPL_CALLBACK, NOTIFY_FN, 0x777);
    for (int round = 0; round < 2; round++) {   /* unsignaled as it runs: a second signal runs it again */
        ck_assert_uint_eq(CALL(EVT(SIGNAL), e), EFI_SUCCESS);
        assert_notify_runs(e, NOTIFY_FN, 0x777, TPL_CALLBACK, STACK_TOP);
        ck_assert_uint_eq(notify_returns(), EFI_SUCCESS);
        assert_call_returns(EVT(SIGNAL), STACK_TOP, FW_TPL_APPLICATION);
    }
    /* Not for CheckEvent or WaitForEvent (UEFI 2.10 section 7.1.8). */
    uint64_t index;
    ck_assert_uint_eq(CALL(EVT(CHECK), e), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(wait_for(&e, 1, &index), EFI_INVALID_PARAMETER);
    /* A closed event's queued function never runs. */
    ck_assert_uint_eq(CALL(BS(RAISE_TPL), TPL_NOTIFY), FW_TPL_APPLICATION);
    ck_assert_uint_eq(CALL(EVT(SIGNAL), e), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(EVT(CLOSE), e), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(BS(RESTORE_TPL), FW_TPL_APPLICATION), EFI_SUCCESS);
    ck_assert(!fw.transfer.pending);
}
END_TEST

START_TEST(restore_tpl_delivers_what_raise_tpl_held_back_highest_tpl_first)
{
    uint64_t a = new_notify_event(EVT_NOTIFY_SIGNAL, TPL_CALLBACK, NOTIFY_FN, 1);
    uint64_t b = new_notify_event(EVT_NOTIFY_SIGNAL, TPL_NOTIFY, NOTIFY_FN2, 2);
    uint64_t c = new_notify_event(EVT_NOTIFY_SIGNAL, TPL_CALLBACK, NOTIFY_FN, 3);
    ck_assert_uint_eq(CALL(BS(RAISE_TPL), TPL_NOTIFY), FW_TPL_APPLICATION);
    const uint64_t order[] = { c, a, b };   /* signaled in this order */
    for (unsigned i = 0; i < 3; i++) {
        ck_assert_uint_eq(CALL(EVT(SIGNAL), order[i]), EFI_SUCCESS);
        ck_assert(!fw.transfer.pending);   /* none is above TPL_NOTIFY */
    }
    ck_assert_uint_eq(CALL(BS(RESTORE_TPL), FW_TPL_APPLICATION), EFI_SUCCESS);
    assert_notify_runs(b, NOTIFY_FN2, 2, TPL_NOTIFY, STACK_TOP);
    ck_assert_uint_eq(notify_returns(), EFI_SUCCESS);
    assert_notify_runs(c, NOTIFY_FN, 3, TPL_CALLBACK, STACK_TOP);   /* then in queue order */
    ck_assert_uint_eq(notify_returns(), EFI_SUCCESS);
    assert_notify_runs(a, NOTIFY_FN, 1, TPL_CALLBACK, STACK_TOP);
    ck_assert_uint_eq(notify_returns(), EFI_SUCCESS);
    assert_call_returns(BS(RESTORE_TPL), STACK_TOP, FW_TPL_APPLICATION);
}
END_TEST

/* A notify function's own calls run only functions above its TPL; the
 * others wait until it returns. */
START_TEST(a_notify_function_calling_services_nests_only_above_its_tpl)
{
    uint64_t outer = new_notify_event(EVT_NOTIFY_SIGNAL, TPL_CALLBACK, NOTIFY_FN, 1);
    uint64_t same = new_notify_event(EVT_NOTIFY_SIGNAL, TPL_CALLBACK, NOTIFY_FN, 2);
    uint64_t high = new_notify_event(EVT_NOTIFY_SIGNAL, TPL_NOTIFY, NOTIFY_FN2, 3);
    ck_assert_uint_eq(CALL(EVT(SIGNAL), outer), EFI_SUCCESS);
    assert_notify_runs(outer, NOTIFY_FN, 1, TPL_CALLBACK, STACK_TOP);
    uint64_t outer_stack = fw.transfer.rsp, saved = cur_rsp;
    cur_rsp = outer_stack - 0x60;   /* inside the function */
    ck_assert_uint_eq(CALL(EVT(SIGNAL), same), EFI_SUCCESS);
    ck_assert(!fw.transfer.pending);
    ck_assert_uint_eq(CALL(EVT(SIGNAL), high), EFI_SUCCESS);
    assert_notify_runs(high, NOTIFY_FN2, 3, TPL_NOTIFY, outer_stack - 0x60);
    ck_assert_uint_eq(fw.events.depth, 2);
    ck_assert_uint_eq(notify_returns(), EFI_SUCCESS);
    ck_assert_uint_eq(fw.transfer.rip, firmware_thunk(&fw, EVT(SIGNAL)) + FW_THUNK_RET);
    ck_assert_uint_eq(fw.transfer.rsp, outer_stack - 0x60);
    ck_assert_uint_eq(fw.tpl, TPL_CALLBACK);
    cur_rsp = saved;
    fw.transfer.rsp = outer_stack;
    fw.transfer.rcx = outer;
    fw.transfer.r8 = NOTIFY_FN;
    ck_assert_uint_eq(notify_returns(), EFI_SUCCESS);
    assert_notify_runs(same, NOTIFY_FN, 2, TPL_CALLBACK, STACK_TOP);
    ck_assert_uint_eq(notify_returns(), EFI_SUCCESS);
    assert_call_returns(EVT(SIGNAL), STACK_TOP, FW_TPL_APPLICATION);
}
END_TEST

/* EVT_SIGNAL_EXIT_BOOT_SERVICES and CreateEventEx's group of that GUID are
 * one group; its functions run before boot services end (EDK2
 * CoreExitBootServices), and so do SetVirtualAddressMap's. */
START_TEST(exit_boot_services_and_set_virtual_address_map_run_their_groups_first)
{
    uint64_t p = put_u64(0);
    uint64_t ebs = new_notify_event(EVT_SIGNAL_EXIT_BOOT_SERVICES, TPL_NOTIFY, NOTIFY_FN, 1);
    ck_assert_uint_eq(CALL(BS(CREATE_EVENT_EX), EVT_NOTIFY_SIGNAL, TPL_CALLBACK, NOTIFY_FN2, 2,
                           put_guid(GUID_EVENT_GROUP_EXIT_BOOT_SERVICES), p), EFI_SUCCESS);
    uint64_t ex = rd64(p);
    ck_assert_uint_eq(CALL(BS(CREATE_EVENT_EX), EVT_NOTIFY_SIGNAL, TPL_CALLBACK, NOTIFY_FN, 3, put_guid(GUID_TEST), p),
                      EFI_SUCCESS);
    uint64_t vac = new_notify_event(EVT_SIGNAL_VIRTUAL_ADDRESS_CHANGE, TPL_NOTIFY, NOTIFY_FN2, 4);
    ck_assert_uint_eq(CALL(BS(EXIT_BOOT_SERVICES), fw.image_handle, map_key()), EFI_SUCCESS);
    ck_assert_uint_eq(fw.phase, FW_PHASE_BOOT);   /* not yet */
    assert_notify_runs(ebs, NOTIFY_FN, 1, TPL_NOTIFY, STACK_TOP);
    ck_assert_uint_eq(notify_returns(), EFI_SUCCESS);
    assert_notify_runs(ex, NOTIFY_FN2, 2, TPL_CALLBACK, STACK_TOP);
    ck_assert_uint_eq(fw.phase, FW_PHASE_BOOT);
    ck_assert_uint_eq(notify_returns(), EFI_SUCCESS);   /* the TEST group's and vac's are not signaled */
    assert_call_returns(BS(EXIT_BOOT_SERVICES), STACK_TOP, FW_TPL_APPLICATION);
    ck_assert_uint_eq(fw.phase, FW_PHASE_RUNTIME);
    ck_assert_uint_eq(systab()->boot_services, 0);

    uint64_t size, map = virtual_map(&size);
    ck_assert_uint_eq(CALL(RT(SET_VIRTUAL_ADDRESS_MAP), size, DESC_SIZE, EFI_MEMORY_DESCRIPTOR_VERSION, map),
                      EFI_SUCCESS);
    assert_notify_runs(vac, NOTIFY_FN2, 4, TPL_NOTIFY, STACK_TOP);
    ck_assert_uint_eq(notify_returns(), EFI_SUCCESS);
    assert_call_returns(RT(SET_VIRTUAL_ADDRESS_MAP), STACK_TOP, FW_TPL_APPLICATION);
}
END_TEST

/* InstallConfigurationTable signals the event group named by the table's
 * GUID on every change it makes (EDK2 CoreInstallConfigurationTable, U-Boot
 * efi_install_configuration_table); its functions run as the call returns. */
START_TEST(install_configuration_table_signals_the_tables_group)
{
    uint64_t p = put_u64(0), g = put_guid(GUID_TEST);
    ck_assert_uint_eq(CALL(BS(CREATE_EVENT_EX), EVT_NOTIFY_SIGNAL, TPL_CALLBACK, NOTIFY_FN, 7, g, p), EFI_SUCCESS);
    uint64_t e = rd64(p);
    ck_assert_uint_eq(CALL(BS(INSTALL_CONFIGURATION_TABLE), put_guid(GUID_GOP), 0x600000), EFI_SUCCESS);
    ck_assert(!fw.transfer.pending);   /* another table's GUID */
    ck_assert_uint_eq(CALL(BS(INSTALL_CONFIGURATION_TABLE), g, 0), EFI_NOT_FOUND);
    ck_assert(!fw.transfer.pending);   /* nothing changed */
    ck_assert_uint_eq(CALL(BS(INSTALL_CONFIGURATION_TABLE), g, 0x600000), EFI_SUCCESS);
    assert_notify_runs(e, NOTIFY_FN, 7, TPL_CALLBACK, STACK_TOP);
    ck_assert_uint_eq(notify_returns(), EFI_SUCCESS);
    assert_call_returns(BS(INSTALL_CONFIGURATION_TABLE), STACK_TOP, FW_TPL_APPLICATION);
    fw.transfer.pending = false;
    ck_assert_uint_eq(CALL(BS(INSTALL_CONFIGURATION_TABLE), g, 0), EFI_SUCCESS);   /* removed: signaled again */
    assert_notify_runs(e, NOTIFY_FN, 7, TPL_CALLBACK, STACK_TOP);
}
END_TEST

/* ExitBootServices stops the timer tick before it signals its group
 * (EDK2's CoreExitBootServices: gTimer->SetTimerPeriod (gTimer, 0)): a
 * timer due while the group's functions run fires no more. */
START_TEST(exit_boot_services_stops_the_timers_before_its_group_runs)
{
    uint64_t tick = new_notify_event(EVT_TIMER | EVT_NOTIFY_SIGNAL, TPL_NOTIFY, NOTIFY_FN2, 7);
    uint64_t ebs = new_notify_event(EVT_SIGNAL_EXIT_BOOT_SERVICES, TPL_CALLBACK, NOTIFY_FN, 1);
    ck_assert_uint_eq(CALL(BS(SET_TIMER), tick, EFI_TIMER_PERIODIC, MS_100NS(20)), EFI_SUCCESS);
    ck_assert(!fw.transfer.pending);
    ck_assert_uint_eq(CALL(BS(EXIT_BOOT_SERVICES), fw.image_handle, map_key()), EFI_SUCCESS);
    assert_notify_runs(ebs, NOTIFY_FN, 1, TPL_CALLBACK, STACK_TOP);
    ck_assert(!firmware_timer_armed(&fw));
    const struct fw_transfer entered = fw.transfer;
    uint64_t saved = cur_rsp;
    cur_rsp = entered.rsp - 0x60;   /* the group's function sets a timer: it never fires */
    ck_assert_uint_eq(CALL(BS(SET_TIMER), tick, EFI_TIMER_RELATIVE, 0), EFI_SUCCESS);
    ck_assert(!firmware_timer_armed(&fw));
    cur_rsp = saved;
    fw.transfer = entered;
    advance_clock_ms(25);   /* the timer's time passes while the group's function runs */
    ck_assert_uint_eq(notify_returns(), EFI_SUCCESS);
    assert_call_returns(BS(EXIT_BOOT_SERVICES), STACK_TOP, FW_TPL_APPLICATION);
    ck_assert_uint_eq(fw.phase, FW_PHASE_RUNTIME);
}
END_TEST

/* A notify-wait event's function runs when CheckEvent finds it
 * unsignaled, and CheckEvent then looks again; WaitForEvent is made again
 * after its list's functions ran. */
START_TEST(wait_notify_functions_run_from_check_event_and_wait_for_event)
{
    uint64_t w = new_notify_event(EVT_NOTIFY_WAIT, TPL_CALLBACK, NOTIFY_FN, 5);
    ck_assert_uint_eq(CALL(EVT(CHECK), w), EFI_NOT_READY);
    assert_notify_runs(w, NOTIFY_FN, 5, TPL_CALLBACK, STACK_TOP);
    ck_assert_uint_eq(notify_returns(), EFI_NOT_READY);   /* it signaled nothing */
    assert_call_returns(EVT(CHECK), STACK_TOP, FW_TPL_APPLICATION);

    ck_assert_uint_eq(CALL(EVT(CHECK), w), EFI_NOT_READY);
    uint64_t saved = cur_rsp;
    cur_rsp = fw.transfer.rsp - 0x60;
    ck_assert_uint_eq(CALL(EVT(SIGNAL), w), EFI_SUCCESS);   /* the function signals its event */
    cur_rsp = saved;
    ck_assert_uint_eq(notify_returns(), EFI_SUCCESS);
    assert_call_returns(EVT(CHECK), STACK_TOP, FW_TPL_APPLICATION);
    ck_assert_uint_eq(CALL(EVT(CHECK), w), EFI_NOT_READY);  /* reset as reported, and the function ran again */
    ck_assert_uint_eq(notify_returns(), EFI_NOT_READY);

    uint64_t list = put_u64(w), index_p = put_u64(~0ULL);
    ck_assert_uint_eq(CALL(BS(WAIT_FOR_EVENT), 1, list, index_p), EFI_NOT_READY);
    assert_notify_runs(w, NOTIFY_FN, 5, TPL_CALLBACK, STACK_TOP);
    ck_assert_uint_eq(notify_returns(), EFI_NOT_READY);
    ck_assert_uint_eq(fw.transfer.rip, firmware_thunk(&fw, BS(WAIT_FOR_EVENT)));   /* made again */
    ck_assert_uint_eq(fw.transfer.rsp, STACK_TOP);
    ck_assert_uint_eq(fw.transfer.rcx, 1);
    ck_assert_uint_eq(fw.transfer.rdx, list);
    ck_assert_uint_eq(fw.transfer.r8, index_p);
    ck_assert_uint_gt(fw.sleep_ns, 0);
}
END_TEST

/* A periodic timer of 0 (every tick) or of less than a tick signals its
 * event at most once a tick, as EDK2's timer tick does: due again as its
 * function returns, the function would run for ever and the call that
 * let it run never return. */
START_TEST(a_periodic_timer_below_a_tick_lets_the_call_its_notify_function_ran_in_return)
{
    const uint64_t periods_100ns[] = { 0, 1 };
    for (unsigned i = 0; i < 2; i++) {
        uint64_t e = new_notify_event(EVT_TIMER | EVT_NOTIFY_SIGNAL, TPL_CALLBACK, NOTIFY_FN, i);
        ck_assert_uint_eq(CALL(BS(RAISE_TPL), TPL_NOTIFY), FW_TPL_APPLICATION);
        ck_assert_uint_eq(CALL(BS(SET_TIMER), e, EFI_TIMER_PERIODIC, periods_100ns[i]), EFI_SUCCESS);
        advance_clock_ms(1);
        ck_assert_uint_eq(CALL(BS(RESTORE_TPL), FW_TPL_APPLICATION), EFI_SUCCESS);
        assert_notify_runs(e, NOTIFY_FN, i, TPL_CALLBACK, STACK_TOP);
        ck_assert_uint_eq(notify_returns(), EFI_SUCCESS);
        assert_call_returns(BS(RESTORE_TPL), STACK_TOP, FW_TPL_APPLICATION);
        ck_assert(firmware_timer_armed(&fw));
        ck_assert_uint_eq(CALL(BS(CLOSE_EVENT), e), EFI_SUCCESS);
    }
}
END_TEST

/* RaiseTPL below the current TPL and RestoreTPL above it are taken, as
 * EDK2's release build takes them, and a value past TPL_HIGH_LEVEL is
 * ignored; each is a guest bug in the log (UEFI 2.10 section 7.1,
 * RaiseTPL and RestoreTPL: indeterminate). */
START_TEST(raise_and_restore_tpl_the_wrong_way_are_guest_bugs_in_the_log)
{
    ck_assert_uint_eq(CALL(BS(RAISE_TPL), TPL_NOTIFY), FW_TPL_APPLICATION);
    ck_assert_uint_eq(CALL(BS(RAISE_TPL), TPL_NOTIFY), TPL_NOTIFY);   /* the same TPL: fine */
    ck_assert_ptr_null(strstr(log_text(), "guest bug"));
    ck_assert_uint_eq(CALL(BS(RAISE_TPL), TPL_CALLBACK), TPL_NOTIFY);
    ck_assert_uint_eq(fw.tpl, TPL_CALLBACK);
    ck_assert_ptr_nonnull(strstr(log_text(), "guest bug: RaiseTPL(8) below the current TPL 16"));
    ck_assert_uint_eq(CALL(BS(RESTORE_TPL), TPL_NOTIFY), EFI_SUCCESS);
    ck_assert_uint_eq(fw.tpl, TPL_NOTIFY);
    ck_assert_ptr_nonnull(strstr(log_text(), "guest bug: RestoreTPL(16) above the current TPL 8"));
    ck_assert_uint_eq(CALL(BS(RAISE_TPL), 32), TPL_NOTIFY);
    ck_assert_uint_eq(CALL(BS(RESTORE_TPL), ~0ULL), EFI_SUCCESS);
    ck_assert_uint_eq(fw.tpl, TPL_NOTIFY);
    ck_assert_ptr_nonnull(strstr(log_text(), "guest bug: RaiseTPL(32): not a TPL (TPL_HIGH_LEVEL is 31); the TPL stays 16"));
    ck_assert_ptr_nonnull(strstr(log_text(), "guest bug: RestoreTPL(18446744073709551615): not a TPL"));
}
END_TEST

START_TEST(notify_functions_need_a_stack_and_a_running_function_to_return_from)
{
    ck_assert_uint_eq(CALL(FW_ID_NOTIFY_RETURN, 0, 0), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(fw.stop, FW_STOP_EXIT);
    ck_assert_ptr_nonnull(strstr(log_text(), "the notify trampoline reached with no notify function running"));
    fw.stop = FW_RUN;
    uint64_t e = new_notify_event(EVT_NOTIFY_SIGNAL, TPL_CALLBACK, NOTIFY_FN, 0);
    uint64_t saved = cur_rsp;
    cur_rsp = 0x40;   /* no room below the caller's RSP */
    ck_assert_uint_eq(CALL(EVT(SIGNAL), e), EFI_SUCCESS);
    ck_assert(!fw.transfer.pending);
    ck_assert_ptr_nonnull(strstr(log_text(), "they stay queued"));
    cur_rsp = saved;
    ck_assert_uint_eq(CALL(BS(STALL), 0), EFI_SUCCESS);   /* any later call runs it */
    assert_notify_runs(e, NOTIFY_FN, 0, TPL_CALLBACK, STACK_TOP);
}
END_TEST

Suite *fw_events_suite(void)
{
    Suite *s = suite_create("fw-events");
    fw_add_tcase(s, "events", (const TTest *const[]){
        create_event_makes_handles_in_the_firmware_region_and_wait_for_key_is_one,
        create_event_refuses_bad_types_tpls_and_pointers, check_event_after_relative_timers_of_zero_and_of_an_hour,
        a_timer_is_armed_from_set_timer_until_it_fires_once_or_is_cancelled_or_closed,
        a_halt_can_end_while_a_timer_is_armed_or_a_key_is_left,
        periodic_timers_signal_once_per_period, signal_check_and_close_and_stale_or_wild_handles,
        closed_event_slots_are_reused_oldest_first_once_all_are_used,
        all_events_open_at_once_is_out_of_resources_said_once, event_groups_signal_together,
        wait_for_event_returns_the_index_of_the_signaled_event, wait_for_event_refuses_hostile_lists,
        wait_for_event_with_nothing_signaled_makes_the_call_again,
        wait_for_event_is_not_for_good_while_a_notify_functions_timer_is_armed,
        read_key_stroke_delivers_the_keys_in_order_and_wait_for_key_follows, trace_decodes_the_event_services,
        NULL });
    fw_add_tcase(s, "notify-functions", (const TTest *const[]){
        timers_due_at_one_look_run_their_functions_in_the_order_they_fell_due,
        a_groups_notify_functions_run_in_the_order_made_in_reused_slots,
        signal_event_runs_the_notify_function_through_the_trampoline,
        restore_tpl_delivers_what_raise_tpl_held_back_highest_tpl_first,
        a_notify_function_calling_services_nests_only_above_its_tpl,
        exit_boot_services_and_set_virtual_address_map_run_their_groups_first,
        exit_boot_services_stops_the_timers_before_its_group_runs, install_configuration_table_signals_the_tables_group,
        wait_notify_functions_run_from_check_event_and_wait_for_event,
        a_periodic_timer_below_a_tick_lets_the_call_its_notify_function_ran_in_return,
        raise_and_restore_tpl_the_wrong_way_are_guest_bugs_in_the_log,
        notify_functions_need_a_stack_and_a_running_function_to_return_from, NULL });
    return s;
}
