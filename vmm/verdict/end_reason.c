#include "end_reason.h"

#define STATUS_LIST(...) { __VA_ARGS__, END_STATUS_LIST_END }
#define REASON_ROW(constant, name, statuses, meaning) [constant] = { name, STATUS_LIST statuses, meaning },
const struct end_reason_row end_reasons[END_REASON_COUNT] = { END_REASONS(REASON_ROW) };

static const char *named(enum end_reason_id r)
{
    return end_reasons[r].name;
}

/* The first that holds wins: what ends a run from outside it (a failed
 * output, a signal, no start), then the sweep's own end, then what the
 * guest did, then what the exit status alone says; the image's Exit after
 * --kunit's and --exec's own failures, which it caused. */
const char *end_reason(const struct run_end *e)
{
    if (e->write_failed)
        return named(END_OUTPUT_WRITE_FAILED);
    /* A signal before the guest stopped a run that would have started:
     * its status is the signal's, which not-started never gives. */
    if (e->stopped_by_signal)
        return named(END_SIGNAL);
    if (!e->started)
        return named(END_NOT_STARTED);
    /* A sweep's end is the matrix's, not its last cell's. */
    if (e->fault_sweep && (e->exit_status == EXIT_OK || e->exit_status == EXIT_SWEEP_FAILED))
        return named(e->exit_status == EXIT_OK ? END_SWEEP_DONE : END_SWEEP_CELLS_FAILED);
    if (e->timed_out)
        return named(END_TIMEOUT);
    if (e->watchdog)
        return named(END_WATCHDOG);
    if (e->stop_unreached)
        return named(END_STOP_UNREACHED);
    /* The guest's byte is the status unless the run's own verdict made
     * another of it (--kunit: a 0 or 5 before every suite reported is 7). */
    if (e->exit_port && e->exit_status == e->exit_port_status)
        return named(END_GUEST_STATUS);
    if (e->panic)
        return named(END_KERNEL_PANIC);
    if (e->kunit && e->kunit_complete)
        return named(END_KUNIT_FINISHED);
    switch (e->exit_status) {
    case EXIT_USAGE:
        return named(END_REFUSED);   /* after the run: a --sweep-baseline that is no matrix */
    case EXIT_HOST:
        return named(END_HOST_ERROR);
    case EXIT_GUEST_CRASH:
        return named(END_GUEST_CRASH);
    case EXIT_KUNIT_INCOMPLETE:
        return named(e->kunit ? END_KUNIT_INCOMPLETE : END_ENDED);
    case EXIT_EXEC_NO_STATUS:
        return named(e->exec ? END_EXEC_STATUS_UNKNOWN : END_ENDED);
    default:
        break;
    }
    if (e->efi_exit)
        return named(END_EFI_EXIT);
    if (e->stop_at_ebs && e->reached_runtime)
        return named(END_STOP_AT_EBS);
    if (e->poweroff)
        return named(END_GUEST_POWEROFF);
    if (e->reset)
        return named(END_GUEST_RESET);
    if (e->halted)
        return named(END_GUEST_HALTED);
    return named(END_ENDED);
}
