/* Events and timers (UEFI 2.10 section 7.1), and the notify functions
 * that run in the guest (events.c). */
#ifndef HANDOVER_FW_EVENTS_H
#define HANDOVER_FW_EVENTS_H

#include <stdbool.h>

#include "service.h"

fw_handler fw_create_event;
fw_handler fw_create_event_ex;
fw_handler fw_set_timer;
fw_handler fw_wait_for_event;
fw_handler fw_signal_event;
fw_handler fw_close_event;
fw_handler fw_check_event;
fw_decoder fw_decode_create_event;
fw_decoder fw_decode_set_timer;
fw_decoder fw_decode_wait_for_event;
fw_decoder fw_decode_event;
/* The firmware's clock, its timers' and its watchdog's: ns of
 * CLOCK_MONOTONIC, or of cfg.clock_ns, less the time it stood still
 * (firmware_clock_resume). */
uint64_t firmware_clock_ns(const struct firmware *fw);
/* The firmware's clock goes on from at_ns, what firmware_clock_ns said
 * when a snapshot of it was taken (vmm/tools/fault_sweep.c), however long
 * ago: every timer and the watchdog are as far from due as they were then. */
void firmware_clock_resume(struct firmware *fw, uint64_t at_ns);
/* Make ConIn.WaitForKey, the first event (fw->events.wait_for_key). */
void fw_events_init(struct firmware *fw);
/* Whether some open event has a timer set (a notify function's or one
 * CheckEvent or WaitForEvent would find signaled once due). */
bool firmware_timer_armed(const struct firmware *fw);
/* Whether an application halted to wait (HLT) could find something new
 * when a firmware's timer tick woke it: a timer armed, or a --keys key
 * left for ReadKeyStroke (vmm/kvm/halt_wake.c). Not the watchdog: its
 * reset is no wake-up (events.c). */
bool firmware_halt_can_end(const struct firmware *fw);
/* Disarm every timer, and every one SetTimer sets from then on:
 * ExitBootServices stops the timer tick. */
void fw_stop_timers(struct firmware *fw);
/* Signal every event of the group (ExitBootServices', SetVirtualAddressMap's). */
void fw_signal_event_group(struct firmware *fw, const efi_guid_t *group);
/* At the end of a call (fw->call) with this status: if a queued notify
 * function's TPL is above the current TPL, the vCPU goes to run the
 * queued functions, and the call then does `then` (struct fw_notify_frame);
 * returns whether it does. */
bool fw_notify_dispatch(struct firmware *fw, enum fw_notify_then then, efi_status_t status);
/* The notify trampoline's re-entry (FW_ID_NOTIFY_RETURN). */
extern const struct fw_service fw_notify_return_service;

#endif
