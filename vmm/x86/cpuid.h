/* The CPUID a vCPU sees: KVM_GET_SUPPORTED_CPUID normalized the way QEMU
 * and Firecracker do it (Firecracker src/cpu-template-helper and
 * src/vmm/src/cpu_config/x86_64/cpuid/{common,intel,amd}_normalize.rs),
 * so that the guest finds its hypervisor and a topology that matches
 * --cpus. Works on a plain buffer: no KVM needed to test it. */
#ifndef HANDOVER_CPUID_H
#define HANDOVER_CPUID_H

#include <linux/kvm.h>
#include <stdint.h>

#define CPUID_1_ECX_HYPERVISOR  (1u << 31)   /* SDM vol. 2A, CPUID leaf 1 */
#define CPUID_1_ECX_MONITOR     (1u << 3)
#define CPUID_1_EDX_HTT         (1u << 28)
#define CPUID_7_ECX_LA57        (1u << 16)
#define CPUID_80000001_ECX_CMP_LEGACY (1u << 1)   /* AMD APM vol. 3, appendix E.4.2 */
#define CPUID_KVM_SIGNATURE     0x40000000u   /* Documentation/virt/kvm/x86/cpuid.rst */
#define CPUID_KVM_FEATURES      0x40000001u

/* Edit c in place for vCPU `id` of `ncpus`. The entries KVM does not
 * list are left absent (a guest reads zeros, or the highest basic leaf). */
void cpuid_normalize(struct kvm_cpuid2 *c, unsigned id, unsigned ncpus);

/* The entry for function/index, or NULL. */
struct kvm_cpuid_entry2 *cpuid_find(struct kvm_cpuid2 *c, uint32_t function, uint32_t index);

#endif
