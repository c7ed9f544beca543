/* What the EFI stub did about an injected fault, judged at the end of a
 * --stop-at ebs run; the same rule for single runs and --fault-sweep
 * cells, so the two can be compared. */
#ifndef HANDOVER_FAULT_OUTCOME_H
#define HANDOVER_FAULT_OUTCOME_H

#include <stdbool.h>
#include <stddef.h>

#include "../../firmware-stub/inject.h"

enum fault_outcome {
    FAULT_NOT_INJECTED,    /* the fault never fired */
    FAULT_RETRIED,         /* asked again (same call or protocol), then reached ExitBootServices */
    FAULT_FELL_BACK,       /* reached ExitBootServices without asking again */
    FAULT_FAILED_CLEANLY,  /* gave up: Exit, return from the entry point, or ResetSystem */
    FAULT_CRASHED,         /* exception, triple fault, emulation failure or panic */
    FAULT_HUNG,            /* still running at the timeout */
    FAULT_BAD_E820,        /* reached the kernel with an e820 that disagrees with the map */
    FAULT_OUTCOMES
};

extern const char *const fault_outcome_names[FAULT_OUTCOMES];
/* The outcomes that fail a sweep unless --fail-on names others: the
 * stub's bugs, not its ways of coping (--help says so: a unit test checks
 * its words against this and the names). */
#define FAULT_FAIL_ON_DEFAULT (1u << FAULT_CRASHED | 1u << FAULT_HUNG | 1u << FAULT_BAD_E820)

/* How a --stop-at ebs run ended, as the rule reads it. */
struct fault_run {
    int exit_status;       /* vmm/verdict/exit_status.h */
    bool reached_ebs;      /* ExitBootServices succeeded */
    bool guest_stopped;    /* the guest ended the run: exit port, reset or power-off */
    bool guest_status;     /* exit_status is the byte the guest wrote to the exit port */
    bool panic;            /* a kernel panic ended it (it may have restarted the guest) */
    bool e820_mismatch;    /* the stub's e820 disagreed with the memory map */
    int signal;            /* the signal that stopped the run, 0: none */
};

/* Whether the run says anything of what the stub did: not when a signal
 * stopped it, nor when handover itself failed (exit status 3: a KVM
 * ioctl, an output not written), which is no guest crash; a 3 the guest
 * wrote to the exit port is the guest's. If not, why says why. */
bool fault_run_judged(const struct fault_run *run, char *why, size_t len);
/* What the stub did about fault kind k (in: the firmware's counters), for
 * a run fault_run_judged takes. */
enum fault_outcome fault_outcome(const struct inject *in, enum inject_kind k, const struct fault_run *run);
/* The line a --stop-at ebs run ends with for fault k (after "fault
 * outcome: "): its spec and outcome, or "not judged" and why. */
void fault_outcome_line(const struct inject *in, enum inject_kind k, const struct fault_run *run, char *buf,
                        size_t len);

#endif
