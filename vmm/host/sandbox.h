/* Hardening once the VM is set up: no new privileges, and a seccomp
 * filter that allows only what the run loop needs. */
#ifndef HANDOVER_SANDBOX_H
#define HANDOVER_SANDBOX_H

struct vmm;

/* 0 on success; -1 (with a message) if the filter could not be loaded. */
int sandbox_enter(const struct vmm *vm);

/* The filter of --fault-sweep, which creates VMs as it goes: a deny-list
 * (no open, exec, fork, socket, ptrace, file creation or removal). */
int sandbox_enter_sweep(const struct vmm *vm);

#endif
