/* Why a run ended (--report's end_reason, the "end:" line), judged from
 * what happened, not from the exit status alone: the guest's own status
 * may be any byte, 4 and 124 included (docs/report.md, "End reasons"). */
#ifndef HANDOVER_END_REASON_H
#define HANDOVER_END_REASON_H

#include <stdbool.h>

/* How a run ended, as the rule reads it. */
struct run_end {
    int exit_status;          /* vmm/verdict/exit_status.h */
    bool write_failed;        /* an output was not written whole */
    bool started;             /* the guest was entered */
    int stopped_by_signal;    /* 0: none */
    bool fault_sweep;         /* the run was a --fault-sweep */
    bool timed_out;           /* --timeout ran out, or a wait would outlast it */
    bool exit_port;           /* the guest wrote its status to the exit port */
    bool panic;               /* the console showed a kernel panic */
    bool efi_exit;            /* the top-level image called Exit or returned */
    bool kunit, kunit_complete;   /* --kunit, and its KTAP reader saw every suite */
    bool exec;                /* --exec */
    bool stop_at_ebs, reached_runtime;   /* --stop-at ebs, and ExitBootServices succeeded */
    bool poweroff, reset;     /* the guest powered off, or reset (i8042 or ResetSystem) */
};

const char *end_reason(const struct run_end *e);

#endif
