/* The firmware's memory map and page allocator: one sorted list of
 * descriptors that is both what GetMemoryMap reports and what
 * AllocatePages/FreePages carve up. Works on no guest memory at all, so it
 * is tested on its own. UEFI 2.10 section 7.2. */
#ifndef HANDOVER_MEMMAP_H
#define HANDOVER_MEMMAP_H

#include <stdbool.h>
#include <stdint.h>

#include "efi.h"

#define MEMMAP_MAX_ENTRIES 512

struct memmap_entry {
    uint32_t type;
    bool fixed;          /* placed by the VMM/firmware: never freed or merged with allocations */
    uint64_t start;      /* page-aligned */
    uint64_t pages;
    uint64_t attribute;
};

struct memmap {
    struct memmap_entry e[MEMMAP_MAX_ENTRIES];
    unsigned n;
    uint64_t key;        /* changes whenever the map changes */
};

void memmap_init(struct memmap *m);
/* Add conventional RAM [start, start+size) (page-aligned, not overlapping). */
int memmap_add_ram(struct memmap *m, uint64_t start, uint64_t size);
/* Mark [start, start+pages) (inside conventional RAM) as type, owned by the
 * VMM/firmware (fixed: FreePages refuses it). */
efi_status_t memmap_reserve(struct memmap *m, uint64_t start, uint64_t pages, uint32_t type);

/* AllocatePages: type checked, *addr in/out as the spec says. Allocations
 * are made top-down (as EDK2 does), below 4 GiB first for AnyPages. */
efi_status_t memmap_allocate(struct memmap *m, uint32_t alloc_type, uint32_t mem_type,
                             uint64_t pages, uint64_t *addr);
efi_status_t memmap_free(struct memmap *m, uint64_t addr, uint64_t pages);
/* As AllocateAnyPages, at an address that is a multiple of align (a power
 * of two; a page at least): LoadImage's, for a SectionAlignment above a
 * page. EFI_INVALID_PARAMETER for a bad type, count or align. */
efi_status_t memmap_allocate_aligned(struct memmap *m, uint32_t mem_type, uint64_t pages, uint64_t align,
                                     uint64_t *addr);
/* Pages the firmware takes for itself (its page tables): where
 * AllocateAnyPages would put them, as type, but fixed, so FreePages
 * refuses them. */
efi_status_t memmap_take(struct memmap *m, uint32_t type, uint64_t pages, uint64_t *addr);
/* Pages the firmware keeps serving from after it hands out their address
 * (the ACPI tables, the VM generation ID, the TPM event logs): as
 * AllocateMaxAddress with *addr max would place them, but fixed, so
 * FreePages refuses them and the allocator never hands them out again. */
efi_status_t memmap_take_below(struct memmap *m, uint32_t type, uint64_t pages, uint64_t max, uint64_t *addr);

/* The entry containing addr, or NULL. */
const struct memmap_entry *memmap_entry_at(const struct memmap *m, uint64_t addr);
/* Type of the entry containing addr, or -1. */
int memmap_type_at(const struct memmap *m, uint64_t addr);
/* Is [addr, addr+len) inside allocated (non-fixed, non-conventional) memory? */
bool memmap_is_allocated(const struct memmap *m, uint64_t addr, uint64_t len);
/* Valid type for an allocation: UEFI 2.10 AllocatePages "MemoryType". */
bool memmap_type_allocatable(uint32_t type);
/* Default attributes for a type (WB, plus RUNTIME for runtime types). */
uint64_t memmap_attributes(uint32_t type);

/* The e820 type the kernel's setup_e820 (x86-stub.c) makes of an EFI type;
 * 0 for the types it leaves out. */
uint32_t memmap_e820_type(uint32_t efi_type);

#endif
