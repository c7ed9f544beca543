/* vmm/x86/emulate.c: the emulation fallbacks, the instructions the VMM
 * performs itself when an emulating host KVM cannot; anything else, and
 * truncated encodings, are left alone. */
#include <string.h>

#include "suites.h"
#include "../../vmm/x86/emulate.h"

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

    e = emulate_instruction((const uint8_t[]){ 0xcc }, 1, &r, &fpu, read_scratch, NULL, false);
    ck_assert_int_eq(e.action, EMULATE_INJECT_BP);
    ck_assert_uint_eq(r.rip, 0x101);

    e = emulate_instruction((const uint8_t[]){ 0x0f, 0x01, 0xcb }, 3, &r, &fpu, read_scratch, NULL, false);
    ck_assert_str_eq(e.name, "stac");
    ck_assert(r.rflags & (1u << 18));
    emulate_instruction((const uint8_t[]){ 0x0f, 0x01, 0xca }, 3, &r, &fpu, read_scratch, NULL, false);
    ck_assert(!(r.rflags & (1u << 18)));

    /* popcnt rax, rdi (F3 48 0F B8 C7) */
    r.rdi = 0xf0f0f0f0f0f0f0f1ULL;
    r.rax = 0;
    e = emulate_instruction((const uint8_t[]){ 0xf3, 0x48, 0x0f, 0xb8, 0xc7 }, 5, &r, &fpu, read_scratch, NULL, false);
    ck_assert_str_eq(e.name, "popcnt");
    ck_assert_uint_eq(r.rax, 33);
    ck_assert(!(r.rflags & 0x40));
    /* popcnt r9d, r10d (F3 45 0F B8 CA): 32-bit, zero source sets ZF */
    r.r10 = 0xffffffff00000000ULL;
    r.r9 = 0x1234;
    emulate_instruction((const uint8_t[]){ 0xf3, 0x45, 0x0f, 0xb8, 0xca }, 5, &r, &fpu, read_scratch, NULL, false);
    ck_assert_uint_eq(r.r9, 0);
    ck_assert(r.rflags & 0x40);

    /* ldmxcsr [rsp+4] (0F AE 54 24 04) */
    uint32_t mxcsr = 0x1f80;
    memcpy(scratch + 4, &mxcsr, 4);
    r.rsp = 0x1000;
    uint64_t rip = r.rip;
    e = emulate_instruction((const uint8_t[]){ 0x0f, 0xae, 0x54, 0x24, 0x04 }, 5, &r, &fpu, read_scratch, NULL, false);
    ck_assert_str_eq(e.name, "ldmxcsr");
    ck_assert(e.fpu_changed);
    ck_assert_uint_eq(fpu.mxcsr, 0x1f80);
    ck_assert_uint_eq(r.rip, rip + 5);
    /* reserved MXCSR bits, or an unreadable operand: not ours */
    mxcsr = 0x10000;
    memcpy(scratch + 4, &mxcsr, 4);
    struct kvm_regs before = r;
    e = emulate_instruction((const uint8_t[]){ 0x0f, 0xae, 0x54, 0x24, 0x04 }, 5, &r, &fpu, read_scratch, NULL, false);
    ck_assert_int_eq(e.action, EMULATE_NONE);
    ck_assert(!memcmp(&before, &r, sizeof(r)));

    /* shlx r8d, r8d, edx (C4 42 69 F7 C0), as Debian 6.12's zstd has it */
    r.r8 = 0x80000003;
    r.rdx = 33;   /* masked to 1 for 32 bits */
    e = emulate_instruction((const uint8_t[]){ 0xc4, 0x42, 0x69, 0xf7, 0xc0 }, 5, &r, &fpu, read_scratch, NULL, false);
    ck_assert_str_eq(e.name, "shlx");
    ck_assert_uint_eq(e.length, 5);
    ck_assert_uint_eq(r.r8, 6);
    /* shrx rax, rbx, rcx (C4 E2 F3 F7 C3: W=1, vvvv=rcx, F2) and sarx (F3) */
    r.rbx = 0x8000000000000000ULL;
    r.rcx = 4;
    emulate_instruction((const uint8_t[]){ 0xc4, 0xe2, 0xf3, 0xf7, 0xc3 }, 5, &r, &fpu, read_scratch, NULL, false);
    ck_assert_uint_eq(r.rax, 0x0800000000000000ULL);
    e = emulate_instruction((const uint8_t[]){ 0xc4, 0xe2, 0xf2, 0xf7, 0xc3 }, 5, &r, &fpu, read_scratch, NULL, false);
    ck_assert_str_eq(e.name, "sarx");
    ck_assert_uint_eq(r.rax, 0xf800000000000000ULL);

    e = emulate_instruction((const uint8_t[]){ 0xdb, 0xe3 }, 2, &r, &fpu, read_scratch, NULL, false);
    ck_assert_str_eq(e.name, "fninit");
    ck_assert_uint_eq(fpu.fcw, 0x37f);

    /* Anything else is left alone; so are truncated encodings. */
    before = r;
    ck_assert_int_eq(emulate_instruction((const uint8_t[]){ 0x0f, 0x0b }, 2, &r, &fpu, read_scratch, NULL, false).action,
                     EMULATE_NONE);
    ck_assert_int_eq(emulate_instruction((const uint8_t[]){ 0xf3, 0x48, 0x0f }, 3, &r, &fpu, read_scratch, NULL, false).action,
                     EMULATE_NONE);
    ck_assert_int_eq(emulate_instruction(NULL, 0, &r, &fpu, read_scratch, NULL, false).action, EMULATE_NONE);
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
                            NULL, true);
    ck_assert_int_eq(e.action, EMULATE_DONE);
    ck_assert_uint_eq(fpu.mxcsr, 0x1f80);
    ck_assert_uint_eq(r.rip, 0x107);

    /* ldmxcsr [esp+4] with stale bits above ESP: the address has 32 bits */
    fpu.mxcsr = 0;
    r.rsp = 0xffffffff00001000ULL;
    e = emulate_instruction((const uint8_t[]){ 0x0f, 0xae, 0x54, 0x24, 0x04 }, 5, &r, &fpu, read_scratch, NULL, true);
    ck_assert_int_eq(e.action, EMULATE_DONE);
    ck_assert_uint_eq(fpu.mxcsr, 0x1f80);

    /* F3 40 0F B8 C0: REP INC EAX, then 0F B8; not popcnt with a REX */
    struct kvm_regs before = r;
    e = emulate_instruction((const uint8_t[]){ 0xf3, 0x40, 0x0f, 0xb8, 0xc0 }, 5, &r, &fpu, read_scratch, NULL, true);
    ck_assert_int_eq(e.action, EMULATE_NONE);
    ck_assert(!memcmp(&before, &r, sizeof(r)));
    /* popcnt eax, ebx (F3 0F B8 C3) is the same in both modes */
    r.rbx = 0xff;
    e = emulate_instruction((const uint8_t[]){ 0xf3, 0x0f, 0xb8, 0xc3 }, 4, &r, &fpu, read_scratch, NULL, true);
    ck_assert_str_eq(e.name, "popcnt");
    ck_assert_uint_eq(r.rax, 8);

    /* shrx eax, ebx, ecx with VEX.W1 (C4 E2 F3 F7 C3): 32-bit operands */
    r.rbx = 0x100000080ULL;
    r.rcx = 4;
    e = emulate_instruction((const uint8_t[]){ 0xc4, 0xe2, 0xf3, 0xf7, 0xc3 }, 5, &r, &fpu, read_scratch, NULL, true);
    ck_assert_str_eq(e.name, "shrx");
    ck_assert_uint_eq(r.rax, 8);
    /* C4 with ModRM-like mod != 11 after it is LES in 32-bit code */
    before = r;
    e = emulate_instruction((const uint8_t[]){ 0xc4, 0x42, 0x69, 0xf7, 0xc0 }, 5, &r, &fpu, read_scratch, NULL, true);
    ck_assert_int_eq(e.action, EMULATE_NONE);
    ck_assert(!memcmp(&before, &r, sizeof(r)));
}
END_TEST

Suite *emulate_suite(void)
{
    Suite *s = suite_create("emulate");
    TCase *t = tcase_create("emulate");
    tcase_add_test(t, emulate_table);
    tcase_add_test(t, emulate_32_bit_code);
    suite_add_tcase(s, t);
    return s;
}
