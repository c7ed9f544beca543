/* What the EFI stub did about an injected fault, judged at the end of a
 * --stop-at ebs run; the same rule for single runs and --fault-sweep
 * cells, so the two can be compared. */
#ifndef HANDOVER_FAULT_OUTCOME_H
#define HANDOVER_FAULT_OUTCOME_H

#include <stdbool.h>

#include "../firmware-stub/inject.h"

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

struct vmm;

/* For kind k of vm's firmware, after a run that ended with status rc. */
enum fault_outcome fault_outcome(const struct vmm *vm, enum inject_kind k, int rc);

#endif
