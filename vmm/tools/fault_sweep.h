/* --fault-sweep: boot once to ExitBootServices, snapshotting the VM at
 * each firmware call a fault applies to; then, for each fault at each such
 * call, restore the snapshot in a new VM, arm the fault and run to
 * ExitBootServices or failure. The result is a matrix of call x fault ->
 * outcome (fault_outcome.h), as a table on stdout and optionally JSON. */
#ifndef HANDOVER_FAULT_SWEEP_H
#define HANDOVER_FAULT_SWEEP_H

#include "../../firmware-stub/firmware.h"

struct vmm;
struct vcpu;
struct fault_sweep;

/* Run the sweep over the loaded VM; returns the exit status: 0 when every
 * cell ran, whatever its outcome. */
int fault_sweep_run(struct vmm *vm);
/* From the run loop, before a firmware call is served: snapshot the VM
 * if a fault applies to the call. 0, or -1 on a host error. */
int fault_sweep_on_call(struct vcpu *c, unsigned id, const struct fw_call *call);
/* After it was served: what a cell needs to know of the result. */
void fault_sweep_after_call(struct vcpu *c, unsigned id, const struct fw_call *call, uint64_t status);

#endif
