#include "fault_outcome.h"

#include "vmm.h"

const char *const fault_outcome_names[FAULT_OUTCOMES] = {
    "not-injected", "retried", "fell-back", "failed-cleanly", "crashed", "hung", "bad-e820",
};

enum fault_outcome fault_outcome(const struct vmm *vm, enum inject_kind k, int rc)
{
    const struct inject *in = &vm->fw.cfg.inject;
    bool reached_ebs = vm->fw.phase == FW_PHASE_RUNTIME;
    if (!in->count[k])
        return FAULT_NOT_INJECTED;
    /* The guest ended the run itself: exit port, reset or power-off. */
    if (vm->ctl.stop != GUEST_RUNNING)
        return FAULT_FAILED_CLEANLY;
    switch (rc) {
    case EXIT_TIMEOUT:
        return FAULT_HUNG;
    case EXIT_GUEST_CRASH:
    case EXIT_PANIC:
        return FAULT_CRASHED;
    case EXIT_FIRMWARE_EXIT:
        return FAULT_FAILED_CLEANLY;
    case EXIT_OK:
        if (!reached_ebs)
            return FAULT_FAILED_CLEANLY;   /* ResetSystem */
        return in->seen[k] > in->first_seen[k] ? FAULT_RETRIED : FAULT_FELL_BACK;
    case 1:
        return reached_ebs ? FAULT_BAD_E820 : FAULT_CRASHED;
    default:
        return FAULT_CRASHED;
    }
}
