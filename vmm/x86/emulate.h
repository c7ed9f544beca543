/* Emulation fallbacks: instructions a nested, emulating host KVM cannot
 * run for the guest (it reports KVM_EXIT_INTERNAL_ERROR with an emulation
 * failure). For a small, named table of them the VMM performs the
 * instruction itself and resumes. */
#ifndef HANDOVER_EMULATE_H
#define HANDOVER_EMULATE_H

#include <linux/kvm.h>
#include <stdbool.h>
#include <stdint.h>

#define EMULATE_MAX_INSN 15

enum emulate_action {
    EMULATE_NONE,        /* not in the table */
    EMULATE_DONE,        /* registers updated: resume */
    EMULATE_INJECT_BP,   /* RIP advanced: deliver #BP (a trap) */
};

struct emulate_result {
    enum emulate_action action;
    const char *name;    /* table entry, e.g. "int3" */
    unsigned length;     /* instruction bytes consumed */
    bool fpu_changed;    /* *fpu must be written back */
};

/* Reads guest memory at a guest-virtual address; false if not mapped. */
typedef bool (*emulate_read_fn)(void *ctx, uint64_t va, void *dst, unsigned len);

/* Decode code[0..len) at regs->rip and perform it on regs/fpu if it is in
 * the table. bits32: the vCPU runs 32-bit code (CS.L clear: an i386
 * kernel's or a mixed-mode stub's), where 40-4F are INC/DEC, not REX,
 * ModRM 00/101 is an absolute disp32, not RIP-relative, addresses have
 * 32 bits, and VEX.W and the high register bits are ignored (Intel SDM
 * vol. 2, 2.2 and 2.3.5). No KVM calls, so unit-testable. */
struct emulate_result emulate_instruction(const uint8_t *code, unsigned len, struct kvm_regs *regs,
                                          struct kvm_fpu *fpu, emulate_read_fn read, void *ctx, bool bits32);

/* The table's names, NULL-terminated: the run loop logs each fallback
 * once, by its index here (docs/kvm-hosts.md lists them). */
extern const char *const emulate_table_names[];

#endif
