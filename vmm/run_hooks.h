/* What a run tells the tools that watch it. main.c registers them (the
 * report, the sweep, the KTAP reader, the progress lines, the --stop-at
 * summary, --snapshot's warm boot); the run loop and the console only
 * call these hooks, so neither names a tool (the console's line consumers
 * are the model). Every hook is
 * optional; they run in the order their observers were registered, with
 * vm->lock held while the guest runs. */
#ifndef HANDOVER_RUN_HOOKS_H
#define HANDOVER_RUN_HOOKS_H

#include <stdbool.h>
#include <stdint.h>

#include "verdict/milestones.h"

struct vmm;
struct vcpu;
struct fw_call;

struct run_hooks {
    const char *name;
    /* A firmware call trapped, before the firmware serves it; -1 (logged)
     * is a host error, which ends the run. */
    int (*before_call)(void *ctx, struct vcpu *c, unsigned id, const struct fw_call *call);
    /* The call served, with the status it returns. */
    void (*after_call)(void *ctx, struct vcpu *c, unsigned id, const struct fw_call *call, uint64_t status);
    /* A milestone reached for the first time (vm->milestone_at says when). */
    void (*milestone)(void *ctx, enum milestone m);
    /* The stub jumped to the kernel, its boot_params at boot_params: seen
     * at --stop-at ebs's stop, which ends the run. */
    void (*kernel)(void *ctx, uint64_t boot_params);
    /* Each byte the console's UART sends, and each complete line (a line
     * consumer, devices/console_line.h). */
    void (*console_byte)(void *ctx, uint8_t byte);
    void (*console_line)(void *ctx, const char *line);
    /* After each port I/O exit, where console lines arrive, on the vCPU
     * that made it: RUN_CONTINUE, or the status that ends the run. */
    int (*io_exit)(void *ctx, struct vcpu *c);
    /* Asked after each port I/O exit, after io_exit: true ends the run
     * with RUN_OBSERVER_DONE, which its run_end turns into a status. */
    bool (*done)(void *ctx);
    /* The guest is about to run; and, once every vCPU stopped, the status
     * the run ends with, given the one it has so far. */
    void (*run_start)(void *ctx);
    int (*run_end)(void *ctx, int status);
};

#define RUN_MAX_OBSERVERS 8

struct run_observer {
    const struct run_hooks *hooks;
    void *ctx;
};

struct run_observers {
    struct run_observer o[RUN_MAX_OBSERVERS];
    unsigned n;
};

/* Register an observer for the rest of the process; -1 (logged) when the
 * list, or the console's line consumers, is full. */
__attribute__((warn_unused_result)) int vmm_observe(struct vmm *vm, const struct run_hooks *h, void *ctx);

/* For main.c, the console and the run loop: mark milestone m reached now,
 * telling the observers the first time only. */
void vmm_milestone(struct vmm *vm, enum milestone m);

/* For the run loop and the console: each observer's hook, in turn. */
int run_hooks_before_call(struct vmm *vm, struct vcpu *c, unsigned id, const struct fw_call *call);
void run_hooks_after_call(struct vmm *vm, struct vcpu *c, unsigned id, const struct fw_call *call, uint64_t status);
void run_hooks_kernel(struct vmm *vm, uint64_t boot_params);
void run_hooks_console_byte(struct vmm *vm, uint8_t byte);
int run_hooks_io_exit(struct vmm *vm, struct vcpu *c);
bool run_hooks_done(struct vmm *vm);
void run_hooks_run_start(struct vmm *vm);
int run_hooks_run_end(struct vmm *vm, int status);

#endif
