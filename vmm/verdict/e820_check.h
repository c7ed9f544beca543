/* The --stop-at ebs e820 check: the e820 table the stub wrote into the
 * zero page (and SETUP_E820_EXT setup_data) against what the kernel's
 * setup_e820 (drivers/firmware/efi/libstub/x86-stub.c) must make of the
 * firmware's memory map. */
#ifndef HANDOVER_E820_CHECK_H
#define HANDOVER_E820_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "../../firmware-stub/memmap.h"
#include "../../guest/bootparam.h"
#include "../../guest/guest_mem.h"

#define MAX_E820 (E820_MAX_ENTRIES_ZEROPAGE + MEMMAP_MAX_ENTRIES)

/* The e820 table in bp, plus any SETUP_E820_EXT setup_data in gm (out:
 * MAX_E820 entries). */
unsigned e820_read(const struct guest_mem *gm, const struct boot_params *bp, struct boot_e820_entry *out);
/* e820_read, its count in *n; true if what it read is the whole table the
 * kernel reads. The kernel reads as many zero-page entries as e820_entries
 * names (arch/x86/kernel/e820.c e820__memory_setup_default,
 * boot/compressed/kaslr.c), past the table's E820_MAX_ENTRIES_ZEROPAGE
 * into the fields after it, and follows the whole setup_data list
 * (setup.c parse_setup_data) wherever it points; the reader stops at guest
 * RAM's end, after 64 list entries and at MAX_E820 entries: false then,
 * and a check of what it read would judge another table. */
bool e820_read_whole(const struct guest_mem *gm, const struct boot_params *bp, struct boot_e820_entry *out,
                     unsigned *n);
/* What setup_e820 makes of the memory map m (out: MEMMAP_MAX_ENTRIES). */
unsigned e820_expected(const struct memmap *m, struct boot_e820_entry *out);
/* A boot loader's table as the kernel reads it (e820__update_table):
 * entries of no size dropped, the rest in address order, where they
 * overlap the larger type, neighbours of one type one range (not those of
 * E820_TYPE_PRAM or E820_TYPE_SOFT_RESERVED); and a type it does not know
 * (GRUB writes its own GRUB_MEMORY_CODE, 20, for EfiRuntimeServicesCode)
 * is memory it leaves alone, reserved (arch/x86/kernel/e820.c uses only
 * the types of asm/e820/types.h). A table with an entry that wraps is
 * left as it is, as the kernel leaves it. n is at most MAX_E820 (its
 * working space is that size). In place: e has room for 2 * n
 * entries, for overlaps split ranges. Returns the number of entries. */
unsigned e820_as_kernel_reads(struct boot_e820_entry *e, unsigned n);
/* The same entries in the same order. */
bool e820_equal(const struct boot_e820_entry *a, unsigned na, const struct boot_e820_entry *b, unsigned nb);
const char *e820_type_name(uint32_t type);

#endif
