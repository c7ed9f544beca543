/* Hardening once the VM is set up: no new privileges, and a seccomp
 * filter that allows only what the run loop needs. */
#ifndef HANDOVER_SANDBOX_H
#define HANDOVER_SANDBOX_H

struct vmm;

/* 0 on success; -1 (with a message) if the filter could not be loaded. */
int sandbox_enter(const struct vmm *vm);

/* The filter of --fault-sweep, which creates VMs as it goes: an
 * allow-list too, with the KVM requests of VM creation, snapshots and the
 * run loop on any fd, the matrix's writes and the baseline's reads. */
int sandbox_enter_sweep(const struct vmm *vm);

#endif
