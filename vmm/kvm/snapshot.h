/* Snapshots of a running VM, for --fault-sweep and --snapshot: the vCPU's registers,
 * FPU/XSAVE, MSRs, LAPIC and pending events, the irqchip and PIT (guest
 * memory is guest/mem_delta.h's).
 * Documentation/virt/kvm/api.rst (KVM_GET_* / KVM_SET_*). */
#ifndef HANDOVER_SNAPSHOT_H
#define HANDOVER_SNAPSHOT_H

#include <linux/kvm.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vcpu_state {
    struct kvm_regs regs;
    struct kvm_sregs sregs;
    struct kvm_fpu fpu;
    /* struct kvm_xsave, which ends in a flexible array (extra[], for
     * KVM_GET_XSAVE2): its 4096 bytes, all KVM_GET_XSAVE writes, as words,
     * so that this struct can sit inside another (a sweep's snapshot). */
    uint32_t xsave[sizeof(struct kvm_xsave) / sizeof(uint32_t)];
    bool has_xsave;
    struct kvm_xcrs xcrs;
    bool has_xcrs;
    struct kvm_vcpu_events events;
    struct kvm_debugregs debugregs;
    struct kvm_lapic_state lapic;
    struct kvm_msr_entry *msrs;
    unsigned nmsrs;
};

struct vm_state {
    struct kvm_irqchip chip[3];   /* PIC master, PIC slave, IOAPIC */
    struct kvm_pit_state2 pit;
};

/* 0, or -1 with errno (the failing ioctl is named in what). */
int vcpu_state_save(int kvm_fd, int vcpu_fd, struct vcpu_state *st, const char **what);
int vcpu_state_load(int vcpu_fd, const struct vcpu_state *st, const char **what);
void vcpu_state_free(struct vcpu_state *st);
int vm_state_save(int vm_fd, struct vm_state *st, const char **what);
int vm_state_load(int vm_fd, const struct vm_state *st, const char **what);
/* kvm-clock's nanoseconds (KVM_GET_CLOCK) with the host's CLOCK_REALTIME
 * KVM read with them (0 where it gives none), and setting them
 * (KVM_SET_CLOCK): with a realtime_ns, KVM_CLOCK_REALTIME, so that KVM
 * adds the host's real time since (Documentation/virt/kvm/api.rst). 0, or
 * -1 with errno. */
int vm_clock_save(int vm_fd, uint64_t *ns, uint64_t *realtime_ns);
int vm_clock_load(int vm_fd, uint64_t ns, uint64_t realtime_ns);
/* One MSR of the vCPU (KVM_GET_MSRS): 0, or -1. */
int vcpu_read_msr(int vcpu_fd, uint32_t index, uint64_t *value);
/* The vCPU's TSC frequency in kHz (KVM_GET_TSC_KHZ: -1 with errno), and
 * setting it (KVM_SET_TSC_KHZ, which needs the CPU's TSC scaling): 0 or -1. */
int vcpu_tsc_khz(int vcpu_fd);
int vcpu_set_tsc_khz(int vcpu_fd, uint32_t khz);

#endif
