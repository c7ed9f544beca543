/* What a run counts as it goes: VM exits by reason, firmware calls,
 * emulation fallbacks; for the "exits:" line and --report's vm_exits. */
#ifndef HANDOVER_RUN_COUNTERS_H
#define HANDOVER_RUN_COUNTERS_H

#include <stdbool.h>
#include <stdint.h>

#define VMM_EXIT_REASONS 64

/* The firmware phase (entry to ExitBootServices) counted apart: there a
 * VM exit should come only from a firmware call or the guest's own port
 * I/O (the UART), one exit each. */
struct firmware_phase_exits {
    uint64_t exits[VMM_EXIT_REASONS];   /* by KVM exit reason, as run_counters.exits */
    uint64_t firmware_calls;            /* of exits[KVM_EXIT_IO]: the hypercall port's; the rest is the
                                           guest's own port I/O (UARTs, exit port, ACPI) */
};

struct run_counters {
    uint64_t exits[VMM_EXIT_REASONS];   /* by KVM exit reason; 0 also counts those past the table */
    uint64_t hypercalls, fallbacks;   /* (the I/O exits are exits[KVM_EXIT_IO]) */
    struct firmware_phase_exits firmware_phase;
    bool fallback_reported[16];   /* by index in emulate_table_names: each is logged once */
};

/* Take back a firmware call made in the firmware phase, as vmm/kvm/run.c
 * counted it (its I/O exit, by reason and in the phase, and the call): a
 * sweep snapshot's call, which the restored VM makes again. */
void run_counters_uncount_call(struct run_counters *c);

/* A KVM exit reason's name as linux/kvm.h spells it (KVM_EXIT_IO: "io"),
 * "reason-N" for one this table lacks. */
const char *kvm_exit_name(unsigned reason, char *buf, unsigned len);

#endif
