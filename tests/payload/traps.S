/* traps.S - exception entry stubs for the `fallbacks` mode.
 *
 * payload_trap_stubs holds PAYLOAD_TRAP_VECTORS stubs of exactly
 * PAYLOAD_TRAP_STUB_SIZE bytes each, so the C code computes a gate address
 * as base + vector * size at run time (no pointer tables, no relocations).
 * Each stub pushes a dummy error code when the CPU does not push one, then
 * the vector number. #BP (vector 3) bumps payload_bp_count and returns with
 * iretq; every other vector calls payload_trap_report(vector, rip, error),
 * which prints the fault and ends the VM.
 */

#define PAYLOAD_TRAP_VECTORS   32
#define PAYLOAD_TRAP_STUB_SIZE 16

        .text
        .code64
        .balign PAYLOAD_TRAP_STUB_SIZE
        .globl  payload_trap_stubs
        .hidden payload_trap_stubs
payload_trap_stubs:
        .set    vec, 0
        .rept   PAYLOAD_TRAP_VECTORS
        .balign PAYLOAD_TRAP_STUB_SIZE
        /* vectors with a CPU-pushed error code: 8, 10-14, 17, 21, 29, 30 */
        .if (vec == 8) || ((vec >= 10) && (vec <= 14)) || (vec == 17) || (vec == 21) || (vec == 29) || (vec == 30)
        .else
        pushq   $0
        .endif
        pushq   $vec
        jmp     payload_trap_common
        .set    vec, vec + 1
        .endr
        /* each stub is at most 9 bytes, so .balign keeps them 16 apart */
        .balign PAYLOAD_TRAP_STUB_SIZE

payload_trap_common:
        cmpq    $3, (%rsp)
        jne     1f
        lock incq payload_bp_count(%rip)
        addq    $16, %rsp               /* vector, error code */
        iretq
1:      movq    (%rsp), %rdi            /* vector */
        movq    16(%rsp), %rsi          /* RIP of the fault */
        movq    8(%rsp), %rdx           /* error code */
        andq    $-16, %rsp
        call    payload_trap_report     /* does not return */
2:      hlt
        jmp     2b

        .section .note.GNU-stack, "", @progbits
