/* Probes of what this host's KVM can run, made once before the boot. */
#ifndef HANDOVER_HOST_PROBE_H
#define HANDOVER_HOST_PROBE_H

#include <stdbool.h>

/* Does the guest see XSAVE in CPUID while the host cannot run XRSTOR for
 * it (a nested, emulating KVM)? Then the kernel needs `noxsave`. */
bool host_needs_noxsave(int kvm_fd);

#endif
