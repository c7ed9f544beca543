/* --fault-sweep: boot once to ExitBootServices, snapshotting the VM at
 * each firmware call a fault applies to; then, for each fault at each such
 * call, restore the snapshot in a new VM, arm the fault and run to
 * ExitBootServices or failure. The result is a matrix of call x fault ->
 * outcome (fault_outcome.h, sweep_matrix.h), as a table on stdout and
 * optionally JSON. */
#ifndef HANDOVER_FAULT_SWEEP_H
#define HANDOVER_FAULT_SWEEP_H

#include "../run_hooks.h"

struct vmm;
struct fault_sweep;

/* A sweep of the loaded VM; NULL (logged) when out of memory. */
struct fault_sweep *fault_sweep_new(struct vmm *vm);
/* Its observer (ctx: the sweep): the snapshots of the boot without faults. */
extern const struct run_hooks fault_sweep_hooks;
/* Run the sweep (fault_sweep_hooks registered on the VM with it as ctx);
 * returns the exit status: 0 when every cell ran and the verdict passed
 * (--fail-on, --sweep-baseline). */
int fault_sweep_run(struct fault_sweep *sw);
void fault_sweep_free(struct fault_sweep *sw);

#endif
