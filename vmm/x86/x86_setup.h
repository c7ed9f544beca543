/* Long-mode CPU state for the first instruction: identity page tables, a
 * flat GDT and an IDT whose gates trap into the VMM, and the special
 * registers. Works on guest memory only, so it is tested without KVM. */
#ifndef HANDOVER_X86_SETUP_H
#define HANDOVER_X86_SETUP_H

/* Control register and EFER bits (SDM vol. 3A, 2.5 and 2.2.1). */
#define CR0_PE (1u << 0)
#define CR0_MP (1u << 1)
#define CR0_EM (1u << 2)
#define CR0_TS (1u << 3)
#define CR0_ET (1u << 4)
#define CR0_NE (1u << 5)
#define CR0_WP (1u << 16)
#define CR0_AM (1u << 18)
#define CR0_PG (1u << 31)
#define CR4_PSE        (1u << 4)
#define CR4_PAE        (1u << 5)
#define CR4_OSFXSR     (1u << 9)
#define CR4_OSXMMEXCPT (1u << 10)
#define CR4_LA57       (1u << 12)
#define EFER_LME (1u << 8)
#define EFER_LMA (1u << 10)
#define EFER_NXE (1u << 11)
/* RFLAGS.IF (SDM vol. 1, 3.4.3.3): clear, no interrupt ends a HLT. */
#define RFLAGS_IF (1u << 9)

#include <linux/kvm.h>
#include <stdbool.h>
#include <stdint.h>

#include "../../guest/guest_mem.h"

/* Identity-map [0, max(4 GiB, top of RAM)) with 2 MiB pages, under both
 * GUEST_PML4 and GUEST_PML4_ALT (the same PDPT: a vCPU moved from one to
 * the other sees the same map, with its TLB flushed); returns the number
 * of page directories used, or -1. */
int x86_setup_page_tables(const struct guest_mem *gm);
/* Set no-execute on every 2 MiB page outside the given ranges, and clear
 * it on those they touch (nx), or clear it everywhere. On a directory
 * entry that points at a 4 KiB table (a page EFI_MEMORY_ATTRIBUTE_PROTOCOL
 * split) it covers the whole table; clearing it leaves the table's own. */
void x86_set_nx_outside(const struct guest_mem *gm, const uint64_t (*keep)[2], unsigned nkeep, bool nx);
void x86_setup_gdt(const struct guest_mem *gm);
/* The GDT entry of a segment as KVM_SET_SREGS takes it. */
uint64_t x86_gdt_entry(const struct kvm_segment *s);
/* 32 interrupt gates; gate v jumps to handler(v). */
void x86_setup_idt(const struct guest_mem *gm, uint64_t (*handler)(unsigned vector, const void *ctx),
                   const void *ctx);
void x86_setup_sregs(struct kvm_sregs *s);
/* Guest memory as the vCPU in state s addresses it: physical with paging
 * off (CR0.PG), else through the tables at CR3 in the paging mode CR4 and
 * EFER select (SDM vol. 3A, 4.1.1): 4- or 5-level, PAE, or 32-bit. */
struct guest_view x86_guest_view(const struct guest_mem *gm, const struct kvm_sregs *s);

/* An IA-32 firmware's CPU state, for a mixed-mode kernel's 32-bit handover
 * entry (boot.rst "EFI Handover Protocol"; efi_mixed.S efi32_stub_entry):
 * 32-bit protected mode with paging off, as the kernel's own calls back
 * into the firmware run (efi_enter32 turns paging off), so the firmware's
 * addresses are physical throughout; flat segments at GUEST_SEL_CODE32 and
 * GUEST_SEL_DATA32, which the kernel saves and reloads for those calls.
 * EFER.NXE is set, and the kernel keeps it when it enables long mode:
 * --stop-at ebs's no-execute pages need it. */
void x86_setup_gdt32(const struct guest_mem *gm);
/* The IDT in the 64-bit format with gates on the kernel's __KERNEL_CS
 * (GUEST_SEL_CODE32, layout.h): the stub's long-mode code runs with it
 * (the kernel loads no IDT of its own before its entry), so its faults
 * reach the VMM. A fault in 32-bit mode, inside a thunk, finds no valid
 * gate and ends as a triple fault. */
void x86_setup_idt_mixed(const struct guest_mem *gm, uint64_t (*handler)(unsigned vector, const void *ctx),
                         const void *ctx);
/* A mixed-mode stub's firmware call returns with the IDTR its thunk saved
 * before the call: __efi64_thunk stores its long mode's at 16(%rbx) and
 * efi_enter32 reloads it from 16(%ebx) after the call
 * (arch/x86/boot/compressed/efi_mixed.S). Make that saved IDTR this
 * IDT's, so that the stub goes on with the VMM's gates even when the
 * kernel loaded an IDT of its own (startup32_load_idt, for SEV-ES:
 * CONFIG_AMD_MEM_ENCRYPT, as Debian's kernels have it). ebx is the
 * call's EBX, physical (paging is off in the call). -1 if that lies
 * outside guest RAM. */
int x86_mixed_thunk_keep_firmware_idt(const struct guest_mem *gm, uint32_t ebx);

/* An i386 kernel's and an IA-32 application's: 32 gates in the 32-bit
 * format (8 bytes each) on GUEST_SEL_CODE32, for their code runs in 32-bit
 * protected mode to its end; IDTR's limit is then X86_IDT32_LIMIT. */
void x86_setup_idt32(const struct guest_mem *gm, uint64_t (*handler)(unsigned vector, const void *ctx),
                     const void *ctx);
#define X86_IDT32_LIMIT (32 * 8 - 1)
void x86_setup_sregs32(struct kvm_sregs *s);
/* PAE paging for an i386 kernel's stub after ExitBootServices, under
 * --stop-at ebs: a four-entry PDPT at GUEST_PDPT_PAE over the first four
 * page directories, the same identity map of 4 GiB and its no-execute
 * bits (x86_set_nx_outside). Returns the CR3 to load, 0 if it is not in
 * guest RAM. */
uint64_t x86_setup_pae_root(const struct guest_mem *gm);

#endif
