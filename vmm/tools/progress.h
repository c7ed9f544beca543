/* What a person watching the run reads on stderr: a "milestone:" line as
 * each is reached, and a heartbeat while nothing else is printed. */
#ifndef HANDOVER_PROGRESS_H
#define HANDOVER_PROGRESS_H

#include <pthread.h>
#include <stdbool.h>

#include "../run_hooks.h"

struct vmm;

struct progress {
    struct vmm *vm;
    pthread_t heartbeat;
    bool beating;             /* the heartbeat thread runs */
    bool stop;                /* it is to end (under vm->lock) */
};

/* The observer; ctx: a struct progress. */
extern const struct run_hooks progress_hooks;

#endif
