/* libFuzzer harness for the instruction emulation fallbacks
 * (emulate_instruction), which decode bytes a guest put at its RIP.
 *
 * Input: length byte (mod 16), 15 code bytes (the first length are the
 * instruction, handed over in a buffer of exactly that size so ASan sees
 * an over-read), a mode byte (bit 0: every read succeeds, wrapping in the
 * 64-byte memory; else only reads inside [base, base + 64) do; bit 1:
 * 32-bit code, bit 2: 16-bit code (over bit 1); bit 3: CPL 3; bits 4, 5
 * and 6: CR0.TS, CR0.EM and CR0.MP set; bit 7: CR4.OSFXSR clear and the
 * data segments at a base), base u64,
 * struct kvm_regs, the 64 bytes of memory, then the start of struct kvm_fpu.
 * Missing bytes are zeros.
 *
 * Checked: length <= 15 and <= the bytes given; EMULATE_NONE leaves the
 * registers and the FPU state untouched; otherwise RIP advanced by length,
 * the name is a table entry and the FPU state changed only if fpu_changed;
 * nothing the mode makes fault is performed (emulate.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../vmm/x86/emulate.h"
#include "../../vmm/x86/x86_setup.h"
#include "fuzz_input.h"
#include "fuzz_harness.h"

#define MEM 64

struct memory {
    uint64_t base;
    uint8_t bytes[MEM];
    bool any;
    unsigned reads;
};

static bool read_mem(void *ctx, uint64_t va, void *dst, unsigned len)
{
    struct memory *m = ctx;
    CHECK(dst && len > 0 && len <= 16);
    m->reads++;
    if (m->any) {
        for (unsigned i = 0; i < len; i++)
            ((uint8_t *)dst)[i] = m->bytes[(va + i) % MEM];
        return true;
    }
    uint64_t off = va - m->base;
    if (off >= MEM || MEM - off < len)
        return false;
    memcpy(dst, m->bytes + off, len);
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_in in = { data, size };
    unsigned len = in_u8(&in) % (EMULATE_MAX_INSN + 1);
    uint8_t code_bytes[EMULATE_MAX_INSN];
    in_bytes(&in, code_bytes, sizeof(code_bytes));
    struct memory m;
    memset(&m, 0, sizeof(m));
    uint8_t mode = in_u8(&in);
    m.any = mode & 1;
    m.base = in_u64(&in);
    struct kvm_regs regs;
    struct kvm_fpu fpu;
    in_bytes(&in, &regs, sizeof(regs));
    in_bytes(&in, m.bytes, sizeof(m.bytes));
    in_bytes(&in, &fpu, sizeof(fpu));

    uint8_t *code = malloc(len ? len : 1);
    if (!code)
        abort();
    memcpy(code, code_bytes, len);
    struct kvm_regs regs0 = regs;
    struct kvm_fpu fpu0 = fpu;

    struct emulate_mode em = {
        .code = (mode & 4) ? EMULATE_CODE16 : (mode & 2) ? EMULATE_CODE32 : EMULATE_CODE64,
        .cpl = (mode & 8) ? 3 : 0,
        .cr0 = CR0_PE | ((mode & 16) ? CR0_TS : 0) | ((mode & 32) ? CR0_EM : 0) | ((mode & 64) ? CR0_MP : 0),
        .cr4 = (mode & 128) ? 0 : CR4_OSFXSR,
        .flat = !(mode & 128),
    };
    struct emulate_result r = emulate_instruction(code, len, &regs, &fpu, read_mem, &m, &em);
    free(code);

    CHECK(r.length <= EMULATE_MAX_INSN && r.length <= len);
    if (r.action == EMULATE_NONE) {
        CHECK(!memcmp(&regs, &regs0, sizeof(regs)));
        CHECK(!memcmp(&fpu, &fpu0, sizeof(fpu)));
        CHECK(!r.fpu_changed);
        return 0;
    }
    CHECK(r.action == EMULATE_DONE || r.action == EMULATE_INJECT_BP);
    CHECK(r.length >= 1);
    uint64_t rip = regs0.rip + r.length;   /* EIP and IP wrap */
    CHECK(regs.rip == (em.code == EMULATE_CODE32 ? (uint32_t)rip : em.code == EMULATE_CODE16 ? (uint16_t)rip : rip));
    CHECK(r.name);
    bool known = false;
    for (unsigned i = 0; emulate_table_names[i]; i++)
        known |= !strcmp(emulate_table_names[i], r.name);
    CHECK(known);
    CHECK((r.action == EMULATE_INJECT_BP) == !strcmp(r.name, "int3"));
    if (!r.fpu_changed)
        CHECK(!memcmp(&fpu, &fpu0, sizeof(fpu)));
    /* Only the table's instructions with a memory operand may call back:
     * ldmxcsr m32, and the BMI2 shifts SHLX/SARX/SHRX r, r/m, r. */
    if (m.reads)
        CHECK(!strcmp(r.name, "ldmxcsr") || !strcmp(r.name, "shlx") || !strcmp(r.name, "sarx") ||
              !strcmp(r.name, "shrx"));
    if (em.code == EMULATE_CODE16)
        CHECK(!m.reads && (!strcmp(r.name, "int3") || !strcmp(r.name, "fwait") || !strcmp(r.name, "clac") ||
                           !strcmp(r.name, "stac") || !strcmp(r.name, "fninit")));
    if (em.cpl)
        CHECK(strcmp(r.name, "clac") && strcmp(r.name, "stac"));
    if (em.cr0 & (CR0_TS | CR0_EM))
        CHECK(strcmp(r.name, "fninit") && strcmp(r.name, "ldmxcsr"));
    if ((em.cr0 & CR0_TS) && (em.cr0 & CR0_MP))
        CHECK(strcmp(r.name, "fwait"));
    if (!em.flat)
        CHECK(!m.reads && strcmp(r.name, "ldmxcsr"));
    return 0;
}
