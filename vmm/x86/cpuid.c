/* Guest CPUID, normalized from KVM_GET_SUPPORTED_CPUID. Intel's leaves are
 * from the SDM vol. 2A (CPUID), AMD's from the APM vol. 3 (appendix E);
 * the checklist is Firecracker's cpuid normalization, and QEMU's
 * cpu_x86_cpuid() for the topology fields. */
#include "cpuid.h"

#include <linux/kvm_para.h>
#include <string.h>

struct kvm_cpuid_entry2 *cpuid_find(struct kvm_cpuid2 *c, uint32_t function, uint32_t index)
{
    for (uint32_t i = 0; i < c->nent; i++) {
        struct kvm_cpuid_entry2 *e = &c->entries[i];
        if (e->function == function && (!(e->flags & KVM_CPUID_FLAG_SIGNIFCANT_INDEX) || e->index == index))
            return e;
    }
    return NULL;
}

/* A CPU's vendor, or in a leaf rule VENDOR_ANY: the rule holds for every
 * vendor. */
enum cpuid_vendor { VENDOR_OTHER, VENDOR_INTEL, VENDOR_AMD, VENDOR_ANY };

/* Leaf 0's vendor string (EBX, EDX, ECX). */
static enum cpuid_vendor vendor_of(struct kvm_cpuid2 *c)
{
    struct kvm_cpuid_entry2 *e = cpuid_find(c, 0, 0);
    char v[12];
    if (!e)
        return VENDOR_OTHER;
    memcpy(v, &e->ebx, 4);
    memcpy(v + 4, &e->edx, 4);
    memcpy(v + 8, &e->ecx, 4);
    return !memcmp(v, "GenuineIntel", 12) ? VENDOR_INTEL : !memcmp(v, "AuthenticAMD", 12) ? VENDOR_AMD : VENDOR_OTHER;
}

/* Bits an APIC ID needs for ncpus: the shift of the core level. */
static uint32_t id_bits(unsigned ncpus)
{
    uint32_t b = 0;
    while ((1u << b) < ncpus)
        b++;
    return b;
}

/* Leaves 0xb and 0x1f: one thread per core, ncpus cores, one package. */
static void extended_topology(struct kvm_cpuid_entry2 *e, unsigned id, unsigned ncpus)
{
    enum { LEVEL_INVALID = 0, LEVEL_SMT = 1, LEVEL_CORE = 2 };
    e->edx = id;
    switch (e->index) {
    case 0:
        e->eax = 0;
        e->ebx = 1;
        e->ecx = (LEVEL_SMT << 8) | e->index;
        break;
    case 1:
        e->eax = id_bits(ncpus);
        e->ebx = ncpus;
        e->ecx = (LEVEL_CORE << 8) | e->index;
        break;
    default:
        e->eax = e->ebx = 0;
        e->ecx = (LEVEL_INVALID << 8) | e->index;
        break;
    }
}

/* Leaf 1. KVM leaves the hypervisor bit to the VMM; without it Linux
 * looks for no hypervisor leaves, so no kvm-clock and no TSC frequency
 * (arch/x86/kernel/cpu/hypervisor.c). MONITOR/MWAIT would idle the vCPU in
 * a loop KVM does not wake. EBX[31:24] initial APIC ID (as the MADT lists
 * it), [23:16] logical processors in the package. */
static void feature_information(struct kvm_cpuid_entry2 *e, unsigned id, unsigned ncpus)
{
    e->ecx = (e->ecx | CPUID_1_ECX_HYPERVISOR) & ~CPUID_1_ECX_MONITOR;
    e->ebx = (e->ebx & 0x0000ffffu) | (id << 24) | ((ncpus & 0xffu) << 16);
    if (ncpus > 1)
        e->edx |= CPUID_1_EDX_HTT;
    else
        e->edx &= ~CPUID_1_EDX_HTT;
}

/* Leaf 4, deterministic cache parameters (Intel): EAX[31:26] cores per
 * package - 1; [25:14] logical processors sharing the cache - 1: L1 and
 * L2 per core, L3 per package. EAX[4:0] 0: no more caches. */
static void cache_parameters(struct kvm_cpuid_entry2 *e, unsigned id, unsigned ncpus)
{
    (void)id;
    if (!(e->eax & 0x1f))
        return;
    uint32_t level = (e->eax >> 5) & 7, sharing = level >= 3 ? ncpus - 1 : 0;
    e->eax = (e->eax & 0x3fffu) | ((sharing & 0xfffu) << 14) | (((ncpus - 1) & 0x3fu) << 26);
}

/* Leaf 7 subleaf 0. LA57: the firmware maps 4-level page tables only;
 * without the bit the stub skips its 5-level switch. */
static void structured_features(struct kvm_cpuid_entry2 *e, unsigned id, unsigned ncpus)
{
    (void)id, (void)ncpus;
    if (e->index == 0)
        e->ecx &= ~CPUID_7_ECX_LA57;
}

/* KVM paravirt features that make one vCPU issue hypercalls to kick
 * another (PV IPIs, PV unhalt for spinlocks, PV TLB flush, PV sched
 * yield). On nested, emulating KVMs a vCPU stuck in such a VMCALL for good
 * during SMP bring-up; the native paths (LAPIC IPIs, spinning) work
 * everywhere. */
static void kvm_features(struct kvm_cpuid_entry2 *e, unsigned id, unsigned ncpus)
{
    (void)id, (void)ncpus;
    e->eax &= ~((1u << KVM_FEATURE_PV_UNHALT) | (1u << KVM_FEATURE_PV_TLB_FLUSH) | (1u << KVM_FEATURE_PV_SEND_IPI) |
                (1u << KVM_FEATURE_PV_SCHED_YIELD));
}

/* Leaf 0x80000001 (AMD): ECX[1] CmpLegacy, more than one core, no HTT in
 * the legacy sense. */
static void amd_cmp_legacy(struct kvm_cpuid_entry2 *e, unsigned id, unsigned ncpus)
{
    (void)id;
    if (ncpus > 1)
        e->ecx |= CPUID_80000001_ECX_CMP_LEGACY;
    else
        e->ecx &= ~CPUID_80000001_ECX_CMP_LEGACY;
}

/* Leaf 0x80000008 (AMD): ECX[7:0] NC = cores - 1, [15:12]
 * ApicIdCoreIdSize. */
static void amd_core_count(struct kvm_cpuid_entry2 *e, unsigned id, unsigned ncpus)
{
    (void)id;
    e->ecx = (e->ecx & ~0xf0ffu) | (id_bits(ncpus) << 12) | ((ncpus - 1) & 0xffu);
}

/* Leaf 0x8000001e (AMD): extended APIC ID, compute unit (core) ID with one
 * thread, one node. */
static void amd_extended_apic_id(struct kvm_cpuid_entry2 *e, unsigned id, unsigned ncpus)
{
    (void)ncpus;
    e->eax = id;
    e->ebx = id & 0xffu;
    e->ecx = 0;
}

/* Leaf 0x8000001f, AMD memory encryption (SME, SEV, SEV-ES, SEV-SNP):
 * none in this guest. As QEMU's cpu_x86_cpuid without sev_enabled(), the
 * leaf reads all zeros, so the guest probes no SEV MSR
 * (arch/x86/mm/mem_encrypt_identity.c). */
static void no_memory_encryption(struct kvm_cpuid_entry2 *e, unsigned id, unsigned ncpus)
{
    (void)id, (void)ncpus;
    e->eax = e->ebx = e->ecx = e->edx = 0;
}

/* Each leaf the guest sees changed, and on which vendor's CPU. */
static const struct {
    uint32_t function;
    enum cpuid_vendor vendor;
    void (*normalize)(struct kvm_cpuid_entry2 *e, unsigned id, unsigned ncpus);
} leaf_rules[] = {
    { 1, VENDOR_ANY, feature_information },
    { 4, VENDOR_INTEL, cache_parameters },
    { 7, VENDOR_ANY, structured_features },
    { 0xb, VENDOR_ANY, extended_topology },
    { 0x1f, VENDOR_ANY, extended_topology },
    { CPUID_KVM_FEATURES, VENDOR_ANY, kvm_features },
    { 0x80000001, VENDOR_AMD, amd_cmp_legacy },
    { 0x80000008, VENDOR_AMD, amd_core_count },
    { 0x8000001e, VENDOR_AMD, amd_extended_apic_id },
    { 0x8000001f, VENDOR_ANY, no_memory_encryption },
};

void cpuid_normalize(struct kvm_cpuid2 *c, unsigned id, unsigned ncpus)
{
    enum cpuid_vendor vendor = vendor_of(c);
    for (uint32_t i = 0; i < c->nent; i++)
        for (size_t r = 0; r < sizeof(leaf_rules) / sizeof(leaf_rules[0]); r++)
            if (leaf_rules[r].function == c->entries[i].function &&
                (leaf_rules[r].vendor == VENDOR_ANY || leaf_rules[r].vendor == vendor))
                leaf_rules[r].normalize(&c->entries[i], id, ncpus);
}
