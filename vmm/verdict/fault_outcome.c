#include "fault_outcome.h"

#include <stdio.h>

#include "exit_status.h"

const char *const fault_outcome_names[FAULT_OUTCOMES] = {
    "not-injected", "retried", "fell-back", "failed-cleanly", "crashed", "hung", "bad-e820",
};

enum fault_outcome fault_outcome(const struct inject *in, enum inject_kind k, const struct fault_run *run)
{
    if (!in->count[k])
        return FAULT_NOT_INJECTED;
    /* A panic first: with panic=N it ends in a reset of the guest's own. */
    if (run->panic)
        return FAULT_CRASHED;
    /* The guest ended the run itself: exit port, reset or power-off. */
    if (run->guest_stopped)
        return FAULT_FAILED_CLEANLY;
    if (run->e820_mismatch)
        return FAULT_BAD_E820;
    switch (run->exit_status) {
    case EXIT_TIMEOUT:
    case EXIT_WATCHDOG:   /* still in boot services when the watchdog expired */
        return FAULT_HUNG;
    case EXIT_FIRMWARE_EXIT:
        return FAULT_FAILED_CLEANLY;
    case EXIT_OK:
    case EXIT_STOP_UNREACHED:   /* a success but for --stop-at */
        if (!run->reached_ebs)
            return FAULT_FAILED_CLEANLY;   /* ResetSystem */
        return in->seen[k] > in->first_seen[k] ? FAULT_RETRIED : FAULT_FELL_BACK;
    default:
        return FAULT_CRASHED;              /* a crash or a panic */
    }
}

bool fault_run_judged(const struct fault_run *run, char *why, size_t len)
{
    if (run->signal)
        snprintf(why, len, "the run was stopped by signal %d", run->signal);
    /* A guest may write handover's own number to the exit port: its byte
     * is its status, as the end reason says (guest-status). */
    else if (run->exit_status == EXIT_HOST && !run->guest_status)
        snprintf(why, len, "handover failed (exit status %d), not the guest", EXIT_HOST);
    else
        return true;
    return false;
}

void fault_outcome_line(const struct inject *in, enum inject_kind k, const struct fault_run *run, char *buf,
                        size_t len)
{
    char spec[64], why[64];
    inject_spec(in, k, spec, sizeof(spec));
    if (!fault_run_judged(run, why, sizeof(why)))
        snprintf(buf, len, "%s: not judged: %s", spec, why);
    else
        snprintf(buf, len, "%s: %s", spec, fault_outcome_names[fault_outcome(in, k, run)]);
}
