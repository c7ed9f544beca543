/* vmm/x86/emulate.c: the emulation fallbacks, the instructions the VMM
 * performs itself when an emulating host KVM cannot; anything else, and
 * truncated encodings, are left alone. */
#include <string.h>

#include "suites.h"
#include "../../vmm/x86/emulate.h"
#include "../../vmm/x86/x86_setup.h"

/* What Linux runs with: CR0.MP and NE, CR4.OSFXSR, flat segments. */
static const struct emulate_mode LONG64 = { EMULATE_CODE64, 0, CR0_PE | CR0_MP | CR0_NE | CR0_PG, CR4_OSFXSR, true };
static const struct emulate_mode PROT32 = { EMULATE_CODE32, 0, CR0_PE | CR0_MP | CR0_NE, CR4_OSFXSR, true };

static uint8_t scratch[64];
static bool read_scratch(void *ctx, uint64_t va, void *dst, unsigned len)
{
    (void)ctx;
    if (va < 0x1000 || va + len > 0x1000 + sizeof(scratch))
        return false;
    memcpy(dst, scratch + (va - 0x1000), len);
    return true;
}

START_TEST(emulate_table)
{
    struct kvm_regs r = { .rip = 0x100, .rflags = 0x2 };
    struct kvm_fpu fpu = { 0 };
    struct emulate_result e;

    e = emulate_instruction((const uint8_t[]){ 0xcc }, 1, &r, &fpu, read_scratch, NULL, &LONG64);
    ck_assert_int_eq(e.action, EMULATE_INJECT_BP);
    ck_assert_uint_eq(r.rip, 0x101);

    e = emulate_instruction((const uint8_t[]){ 0x0f, 0x01, 0xcb }, 3, &r, &fpu, read_scratch, NULL, &LONG64);
    ck_assert_str_eq(e.name, "stac");
    ck_assert(r.rflags & (1u << 18));
    emulate_instruction((const uint8_t[]){ 0x0f, 0x01, 0xca }, 3, &r, &fpu, read_scratch, NULL, &LONG64);
    ck_assert(!(r.rflags & (1u << 18)));

    /* popcnt rax, rdi (F3 48 0F B8 C7) */
    r.rdi = 0xf0f0f0f0f0f0f0f1ULL;
    r.rax = 0;
    e = emulate_instruction((const uint8_t[]){ 0xf3, 0x48, 0x0f, 0xb8, 0xc7 }, 5, &r, &fpu, read_scratch, NULL, &LONG64);
    ck_assert_str_eq(e.name, "popcnt");
    ck_assert_uint_eq(r.rax, 33);
    ck_assert(!(r.rflags & 0x40));
    /* popcnt r9d, r10d (F3 45 0F B8 CA): 32-bit, zero source sets ZF */
    r.r10 = 0xffffffff00000000ULL;
    r.r9 = 0x1234;
    emulate_instruction((const uint8_t[]){ 0xf3, 0x45, 0x0f, 0xb8, 0xca }, 5, &r, &fpu, read_scratch, NULL, &LONG64);
    ck_assert_uint_eq(r.r9, 0);
    ck_assert(r.rflags & 0x40);

    /* ldmxcsr [rsp+4] (0F AE 54 24 04) */
    uint32_t mxcsr = 0x1f80;
    memcpy(scratch + 4, &mxcsr, 4);
    r.rsp = 0x1000;
    uint64_t rip = r.rip;
    e = emulate_instruction((const uint8_t[]){ 0x0f, 0xae, 0x54, 0x24, 0x04 }, 5, &r, &fpu, read_scratch, NULL, &LONG64);
    ck_assert_str_eq(e.name, "ldmxcsr");
    ck_assert(e.fpu_changed);
    ck_assert_uint_eq(fpu.mxcsr, 0x1f80);
    ck_assert_uint_eq(r.rip, rip + 5);
    /* reserved MXCSR bits, or an unreadable operand: not ours */
    mxcsr = 0x10000;
    memcpy(scratch + 4, &mxcsr, 4);
    struct kvm_regs before = r;
    e = emulate_instruction((const uint8_t[]){ 0x0f, 0xae, 0x54, 0x24, 0x04 }, 5, &r, &fpu, read_scratch, NULL, &LONG64);
    ck_assert_int_eq(e.action, EMULATE_NONE);
    ck_assert(!memcmp(&before, &r, sizeof(r)));

    /* shlx r8d, r8d, edx (C4 42 69 F7 C0), as Debian 6.12's zstd has it */
    r.r8 = 0x80000003;
    r.rdx = 33;   /* masked to 1 for 32 bits */
    e = emulate_instruction((const uint8_t[]){ 0xc4, 0x42, 0x69, 0xf7, 0xc0 }, 5, &r, &fpu, read_scratch, NULL, &LONG64);
    ck_assert_str_eq(e.name, "shlx");
    ck_assert_uint_eq(e.length, 5);
    ck_assert_uint_eq(r.r8, 6);
    /* shrx rax, rbx, rcx (C4 E2 F3 F7 C3: W=1, vvvv=rcx, F2) and sarx (F3) */
    r.rbx = 0x8000000000000000ULL;
    r.rcx = 4;
    emulate_instruction((const uint8_t[]){ 0xc4, 0xe2, 0xf3, 0xf7, 0xc3 }, 5, &r, &fpu, read_scratch, NULL, &LONG64);
    ck_assert_uint_eq(r.rax, 0x0800000000000000ULL);
    e = emulate_instruction((const uint8_t[]){ 0xc4, 0xe2, 0xf2, 0xf7, 0xc3 }, 5, &r, &fpu, read_scratch, NULL, &LONG64);
    ck_assert_str_eq(e.name, "sarx");
    ck_assert_uint_eq(r.rax, 0xf800000000000000ULL);

    e = emulate_instruction((const uint8_t[]){ 0xdb, 0xe3 }, 2, &r, &fpu, read_scratch, NULL, &LONG64);
    ck_assert_str_eq(e.name, "fninit");
    ck_assert_uint_eq(fpu.fcw, 0x37f);

    /* Anything else is left alone; so are truncated encodings. */
    before = r;
    ck_assert_int_eq(emulate_instruction((const uint8_t[]){ 0x0f, 0x0b }, 2, &r, &fpu, read_scratch, NULL, &LONG64).action,
                     EMULATE_NONE);
    ck_assert_int_eq(emulate_instruction((const uint8_t[]){ 0xf3, 0x48, 0x0f }, 3, &r, &fpu, read_scratch, NULL, &LONG64).action,
                     EMULATE_NONE);
    ck_assert_int_eq(emulate_instruction(NULL, 0, &r, &fpu, read_scratch, NULL, &LONG64).action, EMULATE_NONE);
    ck_assert(!memcmp(&before, &r, sizeof(r)));
}
END_TEST

/* 32-bit code (an i386 kernel, a mixed-mode stub): no REX, an absolute
 * disp32, 32-bit addresses, VEX.W ignored. */
START_TEST(emulate_32_bit_code)
{
    struct kvm_regs r = { .rip = 0x100, .rflags = 0x2 };
    struct kvm_fpu fpu = { 0 };
    struct emulate_result e;
    uint32_t mxcsr = 0x1f80;
    memcpy(scratch + 4, &mxcsr, 4);

    /* ldmxcsr [0x1004] (0F AE 15 04 10 00 00): absolute, not RIP + 0x1004 */
    e = emulate_instruction((const uint8_t[]){ 0x0f, 0xae, 0x15, 0x04, 0x10, 0x00, 0x00 }, 7, &r, &fpu, read_scratch,
                            NULL, &PROT32);
    ck_assert_int_eq(e.action, EMULATE_DONE);
    ck_assert_uint_eq(fpu.mxcsr, 0x1f80);
    ck_assert_uint_eq(r.rip, 0x107);

    /* ldmxcsr [esp+4] with stale bits above ESP: the address has 32 bits */
    fpu.mxcsr = 0;
    r.rsp = 0xffffffff00001000ULL;
    e = emulate_instruction((const uint8_t[]){ 0x0f, 0xae, 0x54, 0x24, 0x04 }, 5, &r, &fpu, read_scratch, NULL, &PROT32);
    ck_assert_int_eq(e.action, EMULATE_DONE);
    ck_assert_uint_eq(fpu.mxcsr, 0x1f80);

    /* F3 40 0F B8 C0: REP INC EAX, then 0F B8; not popcnt with a REX */
    struct kvm_regs before = r;
    e = emulate_instruction((const uint8_t[]){ 0xf3, 0x40, 0x0f, 0xb8, 0xc0 }, 5, &r, &fpu, read_scratch, NULL, &PROT32);
    ck_assert_int_eq(e.action, EMULATE_NONE);
    ck_assert(!memcmp(&before, &r, sizeof(r)));
    /* popcnt eax, ebx (F3 0F B8 C3) is the same in both modes */
    r.rbx = 0xff;
    e = emulate_instruction((const uint8_t[]){ 0xf3, 0x0f, 0xb8, 0xc3 }, 4, &r, &fpu, read_scratch, NULL, &PROT32);
    ck_assert_str_eq(e.name, "popcnt");
    ck_assert_uint_eq(r.rax, 8);

    /* shrx eax, ebx, ecx with VEX.W1 (C4 E2 F3 F7 C3): 32-bit operands */
    r.rbx = 0x100000080ULL;
    r.rcx = 4;
    e = emulate_instruction((const uint8_t[]){ 0xc4, 0xe2, 0xf3, 0xf7, 0xc3 }, 5, &r, &fpu, read_scratch, NULL, &PROT32);
    ck_assert_str_eq(e.name, "shrx");
    ck_assert_uint_eq(r.rax, 8);
    /* C4 with ModRM-like mod != 11 after it is LES in 32-bit code */
    before = r;
    e = emulate_instruction((const uint8_t[]){ 0xc4, 0x42, 0x69, 0xf7, 0xc0 }, 5, &r, &fpu, read_scratch, NULL, &PROT32);
    ck_assert_int_eq(e.action, EMULATE_NONE);
    ck_assert(!memcmp(&before, &r, sizeof(r)));
}
END_TEST

static struct emulate_result run(const uint8_t *code, unsigned len, struct kvm_regs *r, struct kvm_fpu *fpu,
                                 const struct emulate_mode *m)
{
    return emulate_instruction(code, len, r, fpu, read_scratch, NULL, m);
}

/* An instruction the vCPU's mode makes fault, or gives another meaning,
 * is not performed (the run ends with the emulation failure): 16-bit
 * code's operands and addressing, CLAC/STAC above CPL 0, x87 and SSE
 * with CR0.TS, EM or CR4.OSFXSR saying they fault, FWAIT with an x87
 * exception pending, VEX.L = 1, an operand in a segment with a base
 * (SDM vol. 2: each instruction's exceptions; 2.3.5 for VEX). */
START_TEST(emulate_leaves_what_would_fault)
{
    struct kvm_regs r = { .rip = 0x100, .rflags = 0x2, .rbx = 0xff, .rsp = 0x1000 };
    struct kvm_fpu fpu = { .fcw = 0x40 };
    uint32_t mxcsr = 0x1f80;
    memcpy(scratch + 4, &mxcsr, 4);
    const uint8_t popcnt_eax_ebx[] = { 0xf3, 0x0f, 0xb8, 0xc3 }, ldmxcsr_esp4[] = { 0x0f, 0xae, 0x54, 0x24, 0x04 },
                  stac[] = { 0x0f, 0x01, 0xcb }, fninit[] = { 0xdb, 0xe3 }, fwait[] = { 0x9b },
                  shlx_l1[] = { 0xc4, 0xe2, 0x65, 0xf7, 0xc3 }, shlx_mem[] = { 0xc4, 0xe2, 0x61, 0xf7, 0x04, 0x24 };
    struct kvm_regs before = r;
    struct kvm_fpu fpu_before = fpu;

    /* 16-bit code: F3 0F B8 C3 is popcnt ax, bx; 0F AE 54 24 04 is
     * ldmxcsr [si+0x24] and a byte more. Only the operandless entries. */
    struct emulate_mode m = PROT32;
    m.code = EMULATE_CODE16;
    ck_assert_int_eq(run(popcnt_eax_ebx, 4, &r, &fpu, &m).action, EMULATE_NONE);
    ck_assert_int_eq(run(ldmxcsr_esp4, 5, &r, &fpu, &m).action, EMULATE_NONE);
    ck_assert_int_eq(run(shlx_mem, 6, &r, &fpu, &m).action, EMULATE_NONE);
    ck_assert(!memcmp(&before, &r, sizeof(r)));
    ck_assert_str_eq(run(stac, 3, &r, &fpu, &m).name, "stac");
    ck_assert_uint_eq(r.rip, 0x103);

    /* CLAC/STAC at CPL 3 (or in virtual-8086 mode): #UD */
    m = LONG64;
    m.cpl = 3;
    before = r;
    ck_assert_int_eq(run(stac, 3, &r, &fpu, &m).action, EMULATE_NONE);
    ck_assert(!memcmp(&before, &r, sizeof(r)));

    /* CR0.TS: FNINIT and LDMXCSR #NM; CR0.EM: both #UD/#NM; CR4.OSFXSR
     * clear: LDMXCSR #UD; FWAIT #NM with MP and TS, #MF with FSW.ES. */
    m = LONG64;
    m.cr0 |= CR0_TS;
    ck_assert_int_eq(run(fninit, 2, &r, &fpu, &m).action, EMULATE_NONE);
    ck_assert_int_eq(run(ldmxcsr_esp4, 5, &r, &fpu, &m).action, EMULATE_NONE);
    ck_assert_int_eq(run(fwait, 1, &r, &fpu, &m).action, EMULATE_NONE);
    m.cr0 &= ~(uint64_t)CR0_MP;
    ck_assert_str_eq(run(fwait, 1, &r, &fpu, &m).name, "fwait");
    m = LONG64;
    m.cr0 |= CR0_EM;
    ck_assert_int_eq(run(fninit, 2, &r, &fpu, &m).action, EMULATE_NONE);
    ck_assert_int_eq(run(ldmxcsr_esp4, 5, &r, &fpu, &m).action, EMULATE_NONE);
    m = LONG64;
    m.cr4 = 0;
    ck_assert_int_eq(run(ldmxcsr_esp4, 5, &r, &fpu, &m).action, EMULATE_NONE);
    fpu.fsw = 0x81;   /* an unmasked invalid operation, ES set */
    fpu_before = fpu;
    before = r;
    ck_assert_int_eq(run(fwait, 1, &r, &fpu, &LONG64).action, EMULATE_NONE);
    ck_assert(!memcmp(&before, &r, sizeof(r)));
    ck_assert(!memcmp(&fpu_before, &fpu, sizeof(fpu)));

    /* shlx ebx, ebx, ebx with VEX.L = 1: #UD */
    ck_assert_int_eq(run(shlx_l1, 5, &r, &fpu, &LONG64).action, EMULATE_NONE);

    /* 32-bit code with a data segment at a base: the operand's offset is
     * not its address */
    m = PROT32;
    m.flat = false;
    ck_assert_int_eq(run(ldmxcsr_esp4, 5, &r, &fpu, &m).action, EMULATE_NONE);
    ck_assert_int_eq(run(shlx_mem, 6, &r, &fpu, &m).action, EMULATE_NONE);
    ck_assert(!memcmp(&before, &r, sizeof(r)));
    ck_assert_str_eq(run(popcnt_eax_ebx, 4, &r, &fpu, &m).name, "popcnt");

    /* EIP wraps past 4 GiB in 32-bit code */
    r.rip = 0xfffffffe;
    ck_assert_str_eq(run(stac, 3, &r, &fpu, &PROT32).name, "stac");
    ck_assert_uint_eq(r.rip, 1);
}
END_TEST

/* The mode from the vCPU's state: CS.L in long mode is 64-bit code, CS.D
 * 32-bit (compatibility mode too), else 16-bit; real mode is CPL 0,
 * virtual-8086 mode 16-bit at CPL 3; CPL is SS.DPL (SDM vol. 3A, 5.5). */
START_TEST(emulate_mode_follows_the_segments)
{
    struct kvm_sregs s = { .cr0 = CR0_PE | CR0_PG, .cr4 = CR4_PAE, .efer = EFER_LME | EFER_LMA };
    s.cs.l = 1;
    s.ss.dpl = 3;
    s.ds.base = 0x1000;
    struct emulate_mode m = emulate_mode_of(&s, 0x2);
    ck_assert_int_eq(m.code, EMULATE_CODE64);
    ck_assert_uint_eq(m.cpl, 3);
    ck_assert(m.flat);   /* DS's base is ignored in 64-bit code */
    s.cs.l = 0;
    s.cs.db = 1;
    m = emulate_mode_of(&s, 0x2);
    ck_assert_int_eq(m.code, EMULATE_CODE32);
    ck_assert(!m.flat);
    s.cs.db = 0;
    ck_assert_int_eq(emulate_mode_of(&s, 0x2).code, EMULATE_CODE16);
    /* virtual-8086 mode: CS.D as it may be, 16-bit at CPL 3 */
    s = (struct kvm_sregs){ .cr0 = CR0_PE };
    s.cs.db = 1;
    m = emulate_mode_of(&s, 0x20002);
    ck_assert_int_eq(m.code, EMULATE_CODE16);
    ck_assert_uint_eq(m.cpl, 3);
    /* real mode: CPL 0 whatever SS's DPL field holds */
    s = (struct kvm_sregs){ .cr0 = 0 };
    s.ss.dpl = 3;
    m = emulate_mode_of(&s, 0x2);
    ck_assert_int_eq(m.code, EMULATE_CODE16);
    ck_assert_uint_eq(m.cpl, 0);
    ck_assert(m.flat);
}
END_TEST

static uint64_t fetched_at[EMULATE_MAX_INSN + 1];
static unsigned fetches;
static bool read_code(void *ctx, uint64_t va, void *dst, unsigned len)
{
    uint64_t end = *(uint64_t *)ctx;
    fetched_at[fetches++ % (EMULATE_MAX_INSN + 1)] = va;
    memset(dst, 0x90, len);
    return va < end;
}

/* The fetch reads CS:RIP, CS's base ignored in 64-bit code, EIP's linear
 * address in 32 bits; at most 15 bytes, and none past the first that
 * cannot be read (a page not present: the decoders see it short). */
START_TEST(emulate_fetch_reads_cs_rip)
{
    uint8_t code[EMULATE_MAX_INSN];
    uint64_t end = ~0ULL;
    struct kvm_sregs s = { .cr0 = CR0_PE | CR0_PG, .efer = EFER_LMA };
    s.cs.l = 1;
    s.cs.base = 0x10000;
    fetches = 0;
    ck_assert_uint_eq(emulate_fetch(code, &s, 0x2000, read_code, &end), EMULATE_MAX_INSN);
    ck_assert_uint_eq(fetches, EMULATE_MAX_INSN);
    ck_assert_uint_eq(fetched_at[0], 0x2000);
    s.cs.l = 0;
    s.cs.db = 1;
    s.cs.base = 0xfffff000;
    fetches = 0;
    emulate_fetch(code, &s, 0x1ffe, read_code, &end);
    ck_assert_uint_eq(fetched_at[0], 0xffe);   /* 0xfffff000 + 0x1ffe, in 32 bits */
    ck_assert_uint_eq(fetched_at[2], 0x1000);
    /* The crash report's code bytes come from the same address. */
    ck_assert_uint_eq(emulate_code_address(&s, 0x1ffe), 0xffe);
    s.cs.l = 1;
    ck_assert_uint_eq(emulate_code_address(&s, 0xffff800000001000ULL), 0xffff800000001000ULL);
    s.cs.l = 0;
    end = 0x1002;   /* the page from 0x1002 not present */
    fetches = 0;
    ck_assert_uint_eq(emulate_fetch(code, &s, 0x1ffe, read_code, &end), 4);
    ck_assert_uint_eq(fetches, 5);
}
END_TEST

Suite *emulate_suite(void)
{
    Suite *s = suite_create("emulate");
    TCase *t = tcase_create("emulate");
    tcase_add_test(t, emulate_table);
    tcase_add_test(t, emulate_32_bit_code);
    tcase_add_test(t, emulate_leaves_what_would_fault);
    tcase_add_test(t, emulate_mode_follows_the_segments);
    tcase_add_test(t, emulate_fetch_reads_cs_rip);
    suite_add_tcase(s, t);
    return s;
}
