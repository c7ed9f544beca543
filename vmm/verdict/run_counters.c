#include "run_counters.h"

#include <linux/kvm.h>
#include <stdio.h>

void run_counters_uncount_call(struct run_counters *c)
{
    c->exits[KVM_EXIT_IO]--;
    c->hypercalls--;
    c->firmware_phase.exits[KVM_EXIT_IO]--;
    c->firmware_phase.firmware_calls--;
}

const char *kvm_exit_name(unsigned reason, char *buf, unsigned len)
{
    static const char *const names[] = {
        [KVM_EXIT_UNKNOWN] = "unknown", [KVM_EXIT_EXCEPTION] = "exception", [KVM_EXIT_IO] = "io",
        [KVM_EXIT_HYPERCALL] = "hypercall", [KVM_EXIT_DEBUG] = "debug", [KVM_EXIT_HLT] = "hlt",
        [KVM_EXIT_MMIO] = "mmio", [KVM_EXIT_IRQ_WINDOW_OPEN] = "irq_window_open", [KVM_EXIT_SHUTDOWN] = "shutdown",
        [KVM_EXIT_FAIL_ENTRY] = "fail_entry", [KVM_EXIT_INTR] = "intr", [KVM_EXIT_SET_TPR] = "set_tpr",
        [KVM_EXIT_TPR_ACCESS] = "tpr_access", [KVM_EXIT_NMI] = "nmi", [KVM_EXIT_INTERNAL_ERROR] = "internal_error",
        [KVM_EXIT_SYSTEM_EVENT] = "system_event",
    };
    if (reason < sizeof(names) / sizeof(names[0]) && names[reason])
        return names[reason];
    snprintf(buf, len, "reason-%u", reason);
    return buf;
}
