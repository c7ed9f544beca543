/* The protection of guest-physical pages in handover's own page tables:
 * the identity map vmm/x86/x86_setup.c builds (GUEST_PML4 and
 * GUEST_PML4_ALT over one PDPT at GUEST_PDPT, a page directory per GiB
 * from GUEST_PD, 2 MiB pages), read and changed in place: what
 * EFI_MEMORY_ATTRIBUTE_PROTOCOL serves (firmware-stub/memattr.c) and what
 * the --stop-at ebs summary checks (vmm/verdict/memattr_check.h). A 2 MiB
 * page whose protection changes in part is split first into a page table
 * of 512 4 KiB pages with the same protection.
 *
 * Every entry is reached through guest_mem_ptr, and a leaf is rewritten
 * whole from its identity address: whatever the guest wrote into the
 * tables, nothing outside guest RAM is touched and the map stays an
 * identity map. The vCPU may hold translations from before a change: the
 * caller has its TLB flushed (vmm/kvm/run.c). */
#ifndef HANDOVER_PAGE_PROT_H
#define HANDOVER_PAGE_PROT_H

#include <stdbool.h>
#include <stdint.h>

#include "guest_mem.h"

/* A page's protection: the uses it is closed to, as bits. */
#define PAGE_PROT_NOT_PRESENT 0x1u   /* P clear: no access at all */
#define PAGE_PROT_READ_ONLY   0x2u   /* R/W clear (CR0.WP is set) */
#define PAGE_PROT_NO_EXECUTE  0x4u   /* XD set (EFER.NXE is set) */

/* The protection of the 4 KiB page at addr as the processor takes it from
 * the PDPT entry down (a restriction at any level counts), and in *end
 * where the leaf entry that maps it ends; false if the identity map does
 * not reach addr. */
bool page_prot_get(const struct guest_mem *gm, uint64_t addr, unsigned *prot, uint64_t *end);

/* The protection every page of [start, start + len) shares: 1 with it in
 * *prot, 0 if the pages differ, -1 if the identity map does not reach one
 * of them. start and len are 4 KiB-aligned and len is not 0. */
int page_prot_uniform(const struct guest_mem *gm, uint64_t start, uint64_t len, unsigned *prot);

/* A page for a new page table: its guest-physical address, 4 KiB-aligned
 * and in guest RAM; 0 when there is none. */
typedef uint64_t page_table_alloc(void *ctx);

enum page_prot_change_result {
    PAGE_PROT_UNMAPPED = -2,     /* the identity map does not reach part of the range: nothing changed */
    PAGE_PROT_NO_TABLE = -1,     /* a split had no page for its table: no protection changed */
    PAGE_PROT_SAME = 0,          /* every page already had it */
    PAGE_PROT_CHANGED = 1,       /* entries changed: the TLB must be flushed */
};

/* Close every page of [start, start + len) to the uses in set and open it
 * to those in clear (start and len 4 KiB-aligned, len not 0). A 2 MiB page
 * the range covers in part, and whose protection this changes, is split
 * first into a page table from alloc. */
enum page_prot_change_result page_prot_change(const struct guest_mem *gm, uint64_t start, uint64_t len,
                                              unsigned set, unsigned clear, page_table_alloc *alloc, void *ctx);

#endif
