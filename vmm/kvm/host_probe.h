/* Probes of what this host's KVM can run, made once before the boot. */
#ifndef HANDOVER_HOST_PROBE_H
#define HANDOVER_HOST_PROBE_H

#include <linux/kvm.h>
#include <stdbool.h>

/* KVM_GET_SUPPORTED_CPUID, growing the buffer until it fits; malloc'd
 * (free it), or NULL with errno set. */
struct kvm_cpuid2 *host_supported_cpuid(int kvm_fd);

/* Does the guest see XSAVE in CPUID while the host cannot run XRSTOR for
 * it (a nested, emulating KVM)? Then the kernel needs `noxsave`. */
bool host_needs_noxsave(int kvm_fd);

#endif
