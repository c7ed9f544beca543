/* The table of fallbacks, from what this machine's KVM was measured to
 * lack (../shared/DESIGN.md): INT3 (the alternatives self-test), CLAC/STAC
 * (SMAP, 0F 01 CA/CB), POPCNT r64, r/m64 register form (F3 [REX] 0F B8),
 * FWAIT (9B). Intel SDM vol. 2 for the encodings. */
#include "emulate.h"

#include <string.h>

#define RFLAGS_CF (1ULL << 0)
#define RFLAGS_PF (1ULL << 2)
#define RFLAGS_AF (1ULL << 4)
#define RFLAGS_ZF (1ULL << 6)
#define RFLAGS_SF (1ULL << 7)
#define RFLAGS_OF (1ULL << 11)
#define RFLAGS_AC (1ULL << 18)

const char *const emulate_table_names[] = { "int3", "clac", "stac", "popcnt", "fwait", NULL };

static __u64 *gpr(struct kvm_regs *r, unsigned n)
{
    __u64 *regs[16] = { &r->rax, &r->rcx, &r->rdx, &r->rbx, &r->rsp, &r->rbp, &r->rsi, &r->rdi,
                           &r->r8, &r->r9, &r->r10, &r->r11, &r->r12, &r->r13, &r->r14, &r->r15 };
    return regs[n & 15];
}

/* POPCNT r, r/m with a register operand: F3 [66|REX] 0F B8 /r, mod = 3. */
static unsigned popcnt(const uint8_t *c, unsigned len, struct kvm_regs *r)
{
    unsigned i = 1, rex = 0, opsize = 4;
    if (i < len && c[i] == 0x66) {
        opsize = 2;
        i++;
    }
    if (i < len && (c[i] & 0xf0) == 0x40)
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

struct emulate_result emulate_instruction(const uint8_t *c, unsigned len, struct kvm_regs *r)
{
    struct emulate_result res = { EMULATE_NONE, NULL, 0 };
    if (!len)
        return res;
    if (c[0] == 0xcc) {
        res = (struct emulate_result){ EMULATE_INJECT_BP, "int3", 1 };
    } else if (c[0] == 0x9b) {
        res = (struct emulate_result){ EMULATE_DONE, "fwait", 1 };
    } else if (len >= 3 && c[0] == 0x0f && c[1] == 0x01 && (c[2] == 0xca || c[2] == 0xcb)) {
        if (c[2] == 0xca)
            r->rflags &= ~RFLAGS_AC;
        else
            r->rflags |= RFLAGS_AC;
        res = (struct emulate_result){ EMULATE_DONE, c[2] == 0xca ? "clac" : "stac", 3 };
    } else if (c[0] == 0xf3) {
        unsigned n = popcnt(c, len, r);
        if (n)
            res = (struct emulate_result){ EMULATE_DONE, "popcnt", n };
    }
    if (res.action != EMULATE_NONE)
        r->rip += res.length;
    return res;
}
