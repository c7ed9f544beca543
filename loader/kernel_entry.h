/* A kernel that another boot loader placed and enters itself, past the
 * kernel's EFI stub: GRUB's `linux` command calls ExitBootServices itself,
 * then jumps to code32_start in 32-bit protected mode with ESI = the
 * boot_params it built (Documentation/arch/x86/boot.rst, "32-bit boot
 * protocol"; a 64-bit loader enters at code32_start + 0x200 with RSI).
 * Found after ExitBootServices from those boot_params, in a page of the
 * loader's own ("HdrS" at 0x202, type_of_loader set); --stop-at ebs writes
 * a trap over the entries (vmm/kvm/run.c). Pure: guest memory and the
 * memory map only. */
#ifndef HANDOVER_KERNEL_ENTRY_H
#define HANDOVER_KERNEL_ENTRY_H

#include <stdbool.h>
#include <stdint.h>

#include "../firmware-stub/memmap.h"
#include "../guest/guest_mem.h"

#define KERNEL_ENTRY_MAX 2
#define KERNEL_ENTRY_64_OFFSET 0x200   /* startup_64, boot.rst "64-bit boot protocol" */

struct kernel_entry {
    uint64_t boot_params;             /* the page the loader built them in */
    uint64_t at[KERNEL_ENTRY_MAX];    /* code32_start; then startup_64 with XLF_KERNEL_64 */
    unsigned n;                       /* 0: none found */
};

/* The trap: `out GUEST_PORT_HYPERCALL, al`, a one-byte OUT to the firmware
 * call port, which no thunk makes (theirs are four bytes wide). The same
 * bytes in 32-bit and 64-bit mode. */
#define KERNEL_ENTRY_TRAP_LEN 2
extern const uint8_t kernel_entry_trap[KERNEL_ENTRY_TRAP_LEN];

/* The first page of EfiLoaderCode or EfiLoaderData memory that holds a
 * loader's boot_params: the setup header's "HdrS", protocol 2.00 or later,
 * a type_of_loader set (the kernel file's own header has 0), and each
 * entry it names with both bytes of its trap inside loader memory (the
 * kernel the loader placed, never the firmware's pages). false if none. */
bool kernel_entry_find(const struct guest_mem *gm, const struct memmap *map, struct kernel_entry *out);

/* Write the trap over each entry; false, and nothing written, if one is
 * not in guest RAM. */
bool kernel_entry_arm(const struct guest_mem *gm, const struct kernel_entry *e);

/* Which entry the trap at rip is (rip: the OUT's address), or -1. */
int kernel_entry_index(const struct kernel_entry *e, uint64_t rip);

#endif
