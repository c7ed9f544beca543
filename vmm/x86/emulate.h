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

/* The vCPU's mode, which decides what its bytes mean and whether the
 * instruction faults instead (emulate_mode_of). */
enum emulate_code {
    EMULATE_CODE64,   /* CS.L in long mode */
    EMULATE_CODE32,   /* CS.D: 40-4F are INC/DEC, not REX, ModRM 00/101 an
                       * absolute disp32, addresses of 32 bits, VEX.W and
                       * the high register bits ignored (SDM vol. 2, 2.2
                       * and 2.3.5) */
    EMULATE_CODE16,   /* neither (real, virtual-8086 and 16-bit protected
                       * mode): 16-bit operands and ModRM addressing, C4
                       * is LES; only the table's operandless entries */
};

struct emulate_mode {
    enum emulate_code code;
    unsigned cpl;       /* 3 in virtual-8086 mode */
    uint64_t cr0, cr4;  /* CR0.TS, EM, MP and CR4.OSFXSR: x87 and SSE faults */
    bool flat;          /* 64-bit code, or DS and SS at base 0: an operand's
                         * offset is its linear address */
};

/* The mode of a vCPU in state s with RFLAGS rflags (CPL: SDM vol. 3A, 5.5;
 * SS.DPL in protected mode). */
struct emulate_mode emulate_mode_of(const struct kvm_sregs *s, uint64_t rflags);

/* Reads guest memory at a guest-virtual address; false if not mapped. */
typedef bool (*emulate_read_fn)(void *ctx, uint64_t va, void *dst, unsigned len);

/* The linear address of CS:RIP: RIP in 64-bit code, CS.base + RIP in 32
 * bits outside it (SDM vol. 3A, 3.4). */
uint64_t emulate_code_address(const struct kvm_sregs *s, uint64_t rip);

/* The instruction's bytes at CS:RIP, up to EMULATE_MAX_INSN of them,
 * into code: as many as can be read before the first that cannot (a
 * page not present, past RAM). */
unsigned emulate_fetch(uint8_t code[EMULATE_MAX_INSN], const struct kvm_sregs *s, uint64_t rip, emulate_read_fn read,
                       void *ctx);

/* Decode code[0..len) at regs->rip and perform it on regs/fpu if it is in
 * the table and the mode lets it run without a fault (an instruction that
 * would fault is not performed: the run ends with the emulation failure).
 * No KVM calls, so unit-testable. */
struct emulate_result emulate_instruction(const uint8_t *code, unsigned len, struct kvm_regs *regs,
                                          struct kvm_fpu *fpu, emulate_read_fn read, void *ctx,
                                          const struct emulate_mode *mode);

/* The table's names, NULL-terminated: the run loop logs each fallback
 * once, by its index here (docs/kvm-hosts.md lists them). */
extern const char *const emulate_table_names[];

#endif
