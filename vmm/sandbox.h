/* Hardening once the VM is set up: no new privileges, and a seccomp
 * filter that allows only what the run loop needs. */
#ifndef HANDOVER_SANDBOX_H
#define HANDOVER_SANDBOX_H

struct vmm;

/* 0 on success; -1 (with a message) if the filter could not be loaded. */
int sandbox_enter(const struct vmm *vm);

#endif
