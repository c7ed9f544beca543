/* The table of fallbacks, from what this machine's KVM was measured to
 * lack (../shared/DESIGN.md): INT3 (the alternatives self-test), CLAC/STAC
 * (SMAP, 0F 01 CA/CB), POPCNT r64, r/m64 register form (F3 [REX] 0F B8),
 * FWAIT (9B); and, found booting the tiny kernel with EFI runtime services
 * (kernel_fpu_begin_mask), LDMXCSR m32 (0F AE /2) and FNINIT (DB E3);
 * found in Debian 6.12's stub (its zstd decompressor), the BMI2 shifts
 * SHLX/SARX/SHRX (VEX.0F38 F7 /r with 66/F3/F2).
 * Intel SDM vol. 2 for the encodings. */
#include "emulate.h"

#include <string.h>

#include "x86_setup.h"

#define RFLAGS_CF (1ULL << 0)
#define RFLAGS_PF (1ULL << 2)
#define RFLAGS_AF (1ULL << 4)
#define RFLAGS_ZF (1ULL << 6)
#define RFLAGS_SF (1ULL << 7)
#define RFLAGS_OF (1ULL << 11)
#define RFLAGS_VM (1ULL << 17)
#define RFLAGS_AC (1ULL << 18)

#define FSW_ES 0x80   /* an unmasked x87 exception pending */

const char *const emulate_table_names[] = { "int3", "clac", "stac", "popcnt", "fwait", "ldmxcsr", "fninit",
                                            "shlx", "sarx", "shrx", NULL };

#define MXCSR_RESERVED 0xffff0000u

static __u64 *gpr(struct kvm_regs *r, unsigned n)
{
    __u64 *regs[16] = { &r->rax, &r->rcx, &r->rdx, &r->rbx, &r->rsp, &r->rbp, &r->rsi, &r->rdi,
                           &r->r8, &r->r9, &r->r10, &r->r11, &r->r12, &r->r13, &r->r14, &r->r15 };
    return regs[n & 15];
}

struct emulate_mode emulate_mode_of(const struct kvm_sregs *s, uint64_t rflags)
{
    bool code64 = (s->efer & EFER_LMA) && s->cs.l;
    bool protected_mode = s->cr0 & CR0_PE, vm86 = protected_mode && (rflags & RFLAGS_VM);
    return (struct emulate_mode){
        .code = code64 ? EMULATE_CODE64 : (s->cs.db && !vm86 && protected_mode) ? EMULATE_CODE32 : EMULATE_CODE16,
        .cpl = vm86 ? 3 : protected_mode ? s->ss.dpl : 0,
        .cr0 = s->cr0,
        .cr4 = s->cr4,
        .flat = code64 || (!s->ds.base && !s->ss.base),
    };
}

uint64_t emulate_code_address(const struct kvm_sregs *s, uint64_t rip)
{
    return (s->efer & EFER_LMA) && s->cs.l ? rip : (uint32_t)(s->cs.base + rip);
}

unsigned emulate_fetch(uint8_t code[EMULATE_MAX_INSN], const struct kvm_sregs *s, uint64_t rip, emulate_read_fn read,
                       void *ctx)
{
    unsigned len = 0;
    while (len < EMULATE_MAX_INSN) {
        if (!read(ctx, emulate_code_address(s, rip + len), &code[len], 1))
            break;
        len++;
    }
    return len;
}

/* A REX prefix at c[i]: 64-bit code only (in 32-bit code 40-4F are
 * INC/DEC). */
static bool is_rex(const uint8_t *c, unsigned len, unsigned i, bool bits32)
{
    return !bits32 && i < len && (c[i] & 0xf0) == 0x40;
}

/* POPCNT r, r/m with a register operand: F3 [66|REX] 0F B8 /r, mod = 3. */
static unsigned popcnt(const uint8_t *c, unsigned len, struct kvm_regs *r, bool bits32)
{
    unsigned i = 1, rex = 0, opsize = 4;
    if (i < len && c[i] == 0x66) {
        opsize = 2;
        i++;
    }
    if (is_rex(c, len, i, bits32))
        rex = c[i++];
    if (rex & 8)
        opsize = 8;
    if (i + 3 > len || c[i] != 0x0f || c[i + 1] != 0xb8 || (c[i + 2] & 0xc0) != 0xc0)
        return 0;
    uint8_t modrm = c[i + 2];
    unsigned dst = ((modrm >> 3) & 7) | ((rex & 4) << 1);
    unsigned src = (modrm & 7) | ((rex & 1) << 3);
    uint64_t v = *gpr(r, src);
    if (opsize < 8)
        v &= (1ULL << (8 * opsize)) - 1;
    uint64_t count = (uint64_t)__builtin_popcountll(v);
    __u64 *d = gpr(r, dst);
    if (opsize == 2)
        *d = (*d & ~0xffffULL) | count;
    else
        *d = count;   /* 32-bit results zero-extend */
    /* POPCNT: ZF = (source == 0); CF, PF, AF, SF, OF cleared. */
    r->rflags &= ~(RFLAGS_CF | RFLAGS_PF | RFLAGS_AF | RFLAGS_ZF | RFLAGS_SF | RFLAGS_OF);
    if (!v)
        r->rflags |= RFLAGS_ZF;
    return i + 3;
}

/* A sign-extended 8- or 32-bit displacement at c[*n]; false if the bytes
 * run out. */
static bool displacement(const uint8_t *c, unsigned len, unsigned *n, unsigned size, uint64_t *disp)
{
    if (*n + size > len)
        return false;
    if (size == 1) {
        *disp = (uint64_t)(int64_t)(int8_t)c[*n];
    } else {
        int32_t d;
        memcpy(&d, c + *n, 4);
        *disp = (uint64_t)(int64_t)d;
    }
    *n += size;
    return true;
}

/* Effective address of a ModRM memory operand at c[0] (64-bit addressing,
 * SIB, disp8/disp32, RIP-relative; in 32-bit code, 32-bit addressing, where
 * 00/101 is an absolute disp32). Returns the bytes used, 0 if c[0] is a
 * register operand, the bytes run out, or the operand's segment has a base
 * (not flat). insn_len_after: bytes of the instruction after the operand
 * (for RIP-relative). */
static unsigned modrm_address(const uint8_t *c, unsigned len, unsigned rex, const struct kvm_regs *r,
                              unsigned insn_start_to_modrm, unsigned insn_len_after, const struct emulate_mode *m,
                              uint64_t *ea)
{
    struct kvm_regs copy = *r;
    bool bits32 = m->code != EMULATE_CODE64;
    if (!len || !m->flat)
        return 0;
    unsigned mod = c[0] >> 6, rm = c[0] & 7, n = 1;
    if (mod == 3)
        return 0;
    uint64_t base = 0, disp;
    if (rm == 4) {   /* SIB */
        if (n >= len)
            return 0;
        uint8_t sib = c[n++];
        unsigned scale = sib >> 6, index = ((sib >> 3) & 7) | ((rex & 2) << 2), b = (sib & 7) | ((rex & 1) << 3);
        if (index != 4)
            base += *gpr(&copy, index) << scale;
        if ((b & 7) == 5 && mod == 0) {
            if (!displacement(c, len, &n, 4, &disp))
                return 0;
            base += disp;
        } else {
            base += *gpr(&copy, b);
        }
    } else if (rm == 5 && mod == 0) {   /* RIP-relative; absolute in 32-bit code */
        if (!displacement(c, len, &n, 4, &disp))
            return 0;
        *ea = bits32 ? (uint32_t)disp : r->rip + insn_start_to_modrm + n + insn_len_after + disp;
        return n;
    } else {
        base = *gpr(&copy, rm | ((rex & 1) << 3));
    }
    if (mod && !displacement(c, len, &n, mod == 1 ? 1 : 4, &disp))
        return 0;
    *ea = base + (mod ? disp : 0);
    if (bits32)
        *ea = (uint32_t)*ea;
    return n;
}

/* LDMXCSR m32: [REX] 0F AE /2 with a memory operand. #UD with CR0.EM
 * set or CR4.OSFXSR clear, #NM with CR0.TS set (SDM vol. 2, LDMXCSR):
 * not performed then. */
static unsigned ldmxcsr(const uint8_t *c, unsigned len, const struct kvm_regs *r, struct kvm_fpu *fpu,
                        emulate_read_fn read, void *ctx, const struct emulate_mode *m)
{
    unsigned i = 0, rex = 0;
    if ((m->cr0 & (CR0_EM | CR0_TS)) || !(m->cr4 & CR4_OSFXSR))
        return 0;
    if (is_rex(c, len, i, m->code != EMULATE_CODE64))
        rex = c[i++];
    if (i + 3 > len || c[i] != 0x0f || c[i + 1] != 0xae || ((c[i + 2] >> 3) & 7) != 2)
        return 0;
    uint64_t ea;
    unsigned n = modrm_address(c + i + 2, len - i - 2, rex, r, i + 2, 0, m, &ea);
    uint32_t v;
    if (!n)
        return 0;
    /* Unreadable operand or reserved bits (#GP on hardware): not ours to
     * handle; the emulation failure is reported as it is. */
    if (!read(ctx, ea, &v, 4) || (v & MXCSR_RESERVED))
        return 0;
    fpu->mxcsr = v;
    return i + 2 + n;
}

/* SHLX/SARX/SHRX r, r/m, r (VEX 3-byte form C4): dest = src1 shifted by
 * vvvv, count masked to the operand size; flags untouched. In 32-bit code
 * C4 is LES unless R and X (inverted) are both set, and W, B and vvvv's
 * high bit are ignored (SDM vol. 2, 2.3.5). VEX.L must be 0 (VEX.LZ:
 * #UD otherwise). */
static unsigned bmi2_shift(const uint8_t *c, unsigned len, struct kvm_regs *r, emulate_read_fn read, void *ctx,
                           const struct emulate_mode *m, const char **name)
{
    bool bits32 = m->code != EMULATE_CODE64;
    if (len < 5 || c[0] != 0xc4 || (c[1] & 0x1f) != 2 || c[3] != 0xf7 || (bits32 && (c[1] & 0xc0) != 0xc0) ||
        (c[2] & 4))
        return 0;
    unsigned pp = c[2] & 3;
    if (pp == 0)
        return 0;   /* BZHI-like encodings without a prefix are not shifts */
    bool w = !bits32 && (c[2] & 0x80);
    unsigned rex = bits32 ? 0 : ((~c[1] >> 5) & 7) | (w ? 8 : 0);   /* R, X, B from the inverted bits */
    unsigned vvvv = (~c[2] >> 3) & (bits32 ? 7 : 15);
    unsigned dst = ((c[4] >> 3) & 7) | ((rex & 4) << 1);
    uint64_t src, ea;
    unsigned n;
    if ((c[4] & 0xc0) == 0xc0) {
        src = *gpr(r, (c[4] & 7) | ((rex & 1) << 3));
        n = 1;
    } else {
        if (!(n = modrm_address(c + 4, len - 4, rex, r, 4, 0, m, &ea)) || !read(ctx, ea, &src, w ? 8 : 4))
            return 0;
    }
    unsigned bits = w ? 64 : 32;
    uint64_t mask = w ? ~0ULL : 0xffffffffULL;
    unsigned count = (unsigned)(*gpr(r, vvvv) & (bits - 1));
    src &= mask;
    uint64_t v;
    if (pp == 1) {
        v = src << count;
        *name = "shlx";
    } else if (pp == 3) {
        v = src >> count;
        *name = "shrx";
    } else {
        v = w ? (uint64_t)((int64_t)src >> count) : (uint64_t)(uint32_t)((int32_t)(uint32_t)src >> count);
        *name = "sarx";
    }
    *gpr(r, dst) = v & mask;   /* 32-bit results zero-extend */
    return 4 + n;
}

/* FWAIT: #NM with CR0.MP and CR0.TS set, #MF with an unmasked x87
 * exception pending (SDM vol. 2, WAIT/FWAIT): a no-op otherwise. */
static bool fwait_is_nop(const struct emulate_mode *m, const struct kvm_fpu *fpu)
{
    return !((m->cr0 & CR0_MP) && (m->cr0 & CR0_TS)) && !(fpu->fsw & FSW_ES);
}

/* FNINIT: #NM with CR0.EM or CR0.TS set. FCW 0x37f, status and tags
 * cleared (SDM vol. 1, 8.1). */
static bool fninit(const uint8_t *c, unsigned len, const struct emulate_mode *m, struct kvm_fpu *fpu)
{
    if (len < 2 || c[0] != 0xdb || c[1] != 0xe3 || (m->cr0 & (CR0_EM | CR0_TS)))
        return false;
    fpu->fcw = 0x37f;
    fpu->fsw = 0;
    fpu->ftwx = 0;
    fpu->last_opcode = 0;
    fpu->last_ip = fpu->last_dp = 0;
    return true;
}

/* CLAC/STAC (0F 01 CA/CB): #UD above CPL 0 and in virtual-8086 mode
 * (SDM vol. 2, CLAC, STAC). */
static bool clac_stac(const uint8_t *c, unsigned len, const struct emulate_mode *m, struct kvm_regs *r)
{
    if (len < 3 || c[0] != 0x0f || c[1] != 0x01 || (c[2] != 0xca && c[2] != 0xcb) || m->cpl)
        return false;
    if (c[2] == 0xca)
        r->rflags &= ~RFLAGS_AC;
    else
        r->rflags |= RFLAGS_AC;
    return true;
}

/* RIP past the instruction: EIP and IP wrap in 32- and 16-bit code. */
static void advance_rip(struct kvm_regs *r, unsigned length, const struct emulate_mode *m)
{
    r->rip += length;
    if (m->code == EMULATE_CODE32)
        r->rip = (uint32_t)r->rip;
    else if (m->code == EMULATE_CODE16)
        r->rip = (uint16_t)r->rip;
}

struct emulate_result emulate_instruction(const uint8_t *c, unsigned len, struct kvm_regs *r, struct kvm_fpu *fpu,
                                          emulate_read_fn read, void *ctx, const struct emulate_mode *m)
{
    unsigned n;
    struct emulate_result res = { EMULATE_NONE, NULL, 0, false };
    if (!len)
        return res;
    if (c[0] == 0xcc) {
        res = (struct emulate_result){ EMULATE_INJECT_BP, "int3", 1, false };
    } else if (c[0] == 0x9b) {
        if (fwait_is_nop(m, fpu))
            res = (struct emulate_result){ EMULATE_DONE, "fwait", 1, false };
    } else if (clac_stac(c, len, m, r)) {
        res = (struct emulate_result){ EMULATE_DONE, c[2] == 0xca ? "clac" : "stac", 3, false };
    } else if (fninit(c, len, m, fpu)) {
        res = (struct emulate_result){ EMULATE_DONE, "fninit", 2, true };
    } else if (m->code == EMULATE_CODE16) {
        return res;   /* 16-bit operands and addressing: not decoded */
    } else if (c[0] == 0xf3 && (n = popcnt(c, len, r, m->code != EMULATE_CODE64))) {
        res = (struct emulate_result){ EMULATE_DONE, "popcnt", n, false };
    } else if ((n = bmi2_shift(c, len, r, read, ctx, m, &res.name))) {
        res = (struct emulate_result){ EMULATE_DONE, res.name, n, false };
    } else if ((n = ldmxcsr(c, len, r, fpu, read, ctx, m))) {
        res = (struct emulate_result){ EMULATE_DONE, "ldmxcsr", n, true };
    }
    if (res.action != EMULATE_NONE)
        advance_rip(r, res.length, m);
    return res;
}
