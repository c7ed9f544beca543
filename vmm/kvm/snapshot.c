/* Saving and restoring the state of a VM, in the order QEMU's kvm_arch_put_registers
 * restores it: special registers before the general ones, XSAVE before
 * XCRs, MSRs, then events and the LAPIC, and the TSC deadline after it. */
#include "snapshot.h"
#include "msrs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

/* KVM takes fewer than MAX_IO_MSRS (256) entries per call (arch/x86/kvm/x86.c, msr_io). */
#define MSRS_PER_BATCH 255

/* Read every MSR KVM lists that this vCPU lets us read, one at a time:
 * a batch stops at the first it cannot. */
static int save_msrs(int kvm_fd, int vcpu_fd, struct vcpu_state *st)
{
    struct kvm_msr_list probe = { .nmsrs = 0 };
    if (ioctl(kvm_fd, KVM_GET_MSR_INDEX_LIST, &probe) < 0 && errno != E2BIG)
        return -1;
    struct kvm_msr_list *list = calloc(1, sizeof(*list) + probe.nmsrs * sizeof(uint32_t));
    st->msrs = calloc(probe.nmsrs ? probe.nmsrs : 1, sizeof(*st->msrs));
    if (!list || !st->msrs) {
        free(list);
        errno = ENOMEM;
        return -1;
    }
    list->nmsrs = probe.nmsrs;
    if (ioctl(kvm_fd, KVM_GET_MSR_INDEX_LIST, list) < 0) {
        free(list);
        return -1;
    }
    KVM_MSRS_WITH(1) one;
    st->nmsrs = 0;
    for (uint32_t i = 0; i < list->nmsrs; i++) {
        memset(&one, 0, sizeof(one));
        one.hdr.nmsrs = 1;
        one.hdr.entries[0].index = list->indices[i];
        if (ioctl(vcpu_fd, KVM_GET_MSRS, &one) == 1)
            st->msrs[st->nmsrs++] = one.hdr.entries[0];
    }
    free(list);
    return 0;
}

int vcpu_state_save(int kvm_fd, int vcpu_fd, struct vcpu_state *st, const char **what)
{
    memset(st, 0, sizeof(*st));
#define GET(req, field)                                                                                           \
    if (ioctl(vcpu_fd, req, field) < 0) {                                                                        \
        *what = #req;                                                                                            \
        return -1;                                                                                               \
    }
    GET(KVM_GET_REGS, &st->regs);
    GET(KVM_GET_SREGS, &st->sregs);
    GET(KVM_GET_FPU, &st->fpu);
    GET(KVM_GET_VCPU_EVENTS, &st->events);
    GET(KVM_GET_DEBUGREGS, &st->debugregs);
    GET(KVM_GET_LAPIC, &st->lapic);
#undef GET
    st->has_xsave = ioctl(vcpu_fd, KVM_GET_XSAVE, st->xsave) == 0;
    st->has_xcrs = ioctl(vcpu_fd, KVM_GET_XCRS, &st->xcrs) == 0;
    if (save_msrs(kvm_fd, vcpu_fd, st)) {
        *what = "KVM_GET_MSRS";
        return -1;
    }
    return 0;
}

/* In batches: KVM refuses a few MSRs it listed (read-only ones), and a
 * batch stops at the first refusal (KVM_SET_MSRS returns how many it set),
 * so the next batch starts past it. One ioctl per refusal, not per MSR. */
static void set_msrs(int vcpu_fd, const struct vcpu_state *st)
{
    KVM_MSRS_WITH(MSRS_PER_BATCH) batch;
    for (unsigned i = 0; i < st->nmsrs;) {
        unsigned n = st->nmsrs - i < MSRS_PER_BATCH ? st->nmsrs - i : MSRS_PER_BATCH;
        memset(&batch, 0, sizeof(batch));
        batch.hdr.nmsrs = n;
        memcpy(batch.hdr.entries, st->msrs + i, n * sizeof(*st->msrs));
        int set = ioctl(vcpu_fd, KVM_SET_MSRS, &batch);
        i += set > 0 ? (unsigned)set : 0;
        if (set < (int)n)
            i++;   /* the one refused (or, on an error, the first of the batch) */
    }
}

#define MSR_IA32_TSC_DEADLINE 0x6e0   /* SDM vol. 4, table 2-2 */

/* KVM takes IA32_TSC_DEADLINE only while the LAPIC's timer is in
 * TSC-deadline mode (arch/x86/kvm/lapic.c, kvm_set_lapic_tscdeadline_msr):
 * put with the other MSRs, before KVM_SET_LAPIC made the mode so, it was
 * dropped, and the restored guest's armed timer never fired. Put again
 * once the LAPIC is, as QEMU's kvm_put_tscdeadline_msr does after
 * kvm_put_apic. 0, or -1 with errno. */
static int set_tsc_deadline(int vcpu_fd, const struct vcpu_state *st)
{
    for (unsigned i = 0; i < st->nmsrs; i++)
        if (st->msrs[i].index == MSR_IA32_TSC_DEADLINE) {
            KVM_MSRS_WITH(1) one;
            memset(&one, 0, sizeof(one));
            one.hdr.nmsrs = 1;
            one.hdr.entries[0] = st->msrs[i];
            int set = ioctl(vcpu_fd, KVM_SET_MSRS, &one);
            if (set == 0)
                errno = EINVAL;   /* refused: KVM sets none, with no error */
            return set == 1 ? 0 : -1;
        }
    return 0;
}

int vcpu_state_load(int vcpu_fd, const struct vcpu_state *st, const char **what)
{
#define SET(req, field)                                                                                           \
    if (ioctl(vcpu_fd, req, field) < 0) {                                                                        \
        *what = #req;                                                                                            \
        return -1;                                                                                               \
    }
    SET(KVM_SET_SREGS, &st->sregs);
    SET(KVM_SET_REGS, &st->regs);
    if (st->has_xsave) {
        SET(KVM_SET_XSAVE, st->xsave);
    } else {
        SET(KVM_SET_FPU, &st->fpu);
    }
    if (st->has_xcrs)
        SET(KVM_SET_XCRS, &st->xcrs);
    set_msrs(vcpu_fd, st);
    SET(KVM_SET_VCPU_EVENTS, &st->events);
    SET(KVM_SET_LAPIC, &st->lapic);
    SET(KVM_SET_DEBUGREGS, &st->debugregs);
#undef SET
    if (set_tsc_deadline(vcpu_fd, st)) {
        *what = "KVM_SET_MSRS (IA32_TSC_DEADLINE)";
        return -1;
    }
    return 0;
}

void vcpu_state_free(struct vcpu_state *st)
{
    free(st->msrs);
    st->msrs = NULL;
    st->nmsrs = 0;
}

int vm_state_save(int vm_fd, struct vm_state *st, const char **what)
{
    for (unsigned i = 0; i < 3; i++) {
        st->chip[i] = (struct kvm_irqchip){ .chip_id = i };
        if (ioctl(vm_fd, KVM_GET_IRQCHIP, &st->chip[i]) < 0) {
            *what = "KVM_GET_IRQCHIP";
            return -1;
        }
    }
    if (ioctl(vm_fd, KVM_GET_PIT2, &st->pit) < 0) {
        *what = "KVM_GET_PIT2";
        return -1;
    }
    return 0;
}

int vm_state_load(int vm_fd, const struct vm_state *st, const char **what)
{
    for (unsigned i = 0; i < 3; i++)
        if (ioctl(vm_fd, KVM_SET_IRQCHIP, &st->chip[i]) < 0) {
            *what = "KVM_SET_IRQCHIP";
            return -1;
        }
    if (ioctl(vm_fd, KVM_SET_PIT2, &st->pit) < 0) {
        *what = "KVM_SET_PIT2";
        return -1;
    }
    return 0;
}

int vm_clock_save(int vm_fd, uint64_t *ns, uint64_t *realtime_ns)
{
    struct kvm_clock_data d;
    memset(&d, 0, sizeof(d));
    if (ioctl(vm_fd, KVM_GET_CLOCK, &d) < 0)
        return -1;
    *ns = d.clock;
    *realtime_ns = (d.flags & KVM_CLOCK_REALTIME) ? d.realtime : 0;
    return 0;
}

int vm_clock_load(int vm_fd, uint64_t ns, uint64_t realtime_ns)
{
    struct kvm_clock_data d;
    memset(&d, 0, sizeof(d));
    d.clock = ns;
    if (realtime_ns) {
        d.flags = KVM_CLOCK_REALTIME;
        d.realtime = realtime_ns;
    }
    return ioctl(vm_fd, KVM_SET_CLOCK, &d) < 0 ? -1 : 0;
}

int vcpu_read_msr(int vcpu_fd, uint32_t index, uint64_t *value)
{
    KVM_MSRS_WITH(1) one;
    memset(&one, 0, sizeof(one));
    one.hdr.nmsrs = 1;
    one.hdr.entries[0].index = index;
    if (ioctl(vcpu_fd, KVM_GET_MSRS, &one) != 1)
        return -1;
    *value = one.hdr.entries[0].data;
    return 0;
}

int vcpu_tsc_khz(int vcpu_fd)
{
    return ioctl(vcpu_fd, KVM_GET_TSC_KHZ, 0);
}

int vcpu_set_tsc_khz(int vcpu_fd, uint32_t khz)
{
    return ioctl(vcpu_fd, KVM_SET_TSC_KHZ, (unsigned long)khz) < 0 ? -1 : 0;
}
