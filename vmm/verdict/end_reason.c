#include "end_reason.h"

#include "exit_status.h"

/* The first that holds wins: what ends a run from outside it (a failed
 * output, no start, a signal), then the sweep's own end, then what the
 * guest did, then what the exit status alone says. */
const char *end_reason(const struct run_end *e)
{
    if (e->write_failed)
        return "output-write-failed";
    if (!e->started)
        return "not-started";
    if (e->stopped_by_signal)
        return "signal";
    /* A sweep's end is the matrix's, not its last cell's. */
    if (e->fault_sweep && (e->exit_status == EXIT_OK || e->exit_status == EXIT_SWEEP_FAILED))
        return e->exit_status == EXIT_OK ? "sweep-done" : "sweep-cells-failed";
    if (e->timed_out)
        return "timeout";
    if (e->exit_port)
        return "guest-status";
    if (e->panic)
        return "kernel-panic";
    if (e->efi_exit)
        return "efi-exit";
    if (e->kunit && e->kunit_complete)
        return "kunit-finished";
    switch (e->exit_status) {
    case EXIT_USAGE:
        return "refused";   /* after the run: a --sweep-baseline that is no matrix */
    case EXIT_HOST:
        return "host-error";
    case EXIT_GUEST_CRASH:
        return "guest-crash";
    case EXIT_KUNIT_INCOMPLETE:
        return e->kunit ? "kunit-incomplete" : "ended";
    case EXIT_EXEC_NO_STATUS:
        return e->exec ? "exec-status-unknown" : "ended";
    default:
        break;
    }
    if (e->stop_at_ebs && e->reached_runtime)
        return "stop-at-ebs";
    if (e->poweroff)
        return "guest-poweroff";
    if (e->reset)
        return "guest-reset";
    return "ended";
}
