/* The --stop-at ebs memory-attribute check: the protection of the kernel
 * the stub placed, read from handover's page tables as they were when
 * ExitBootServices succeeded. The x86 stubs since 6.1.81 make the
 * decompressed kernel's text read-only, then executable, through
 * EFI_MEMORY_ATTRIBUTE_PROTOCOL (drivers/firmware/efi/libstub/x86-stub.c
 * efi_decompress_kernel, efi_adjust_memory_range_protection); they ask
 * nothing for the rest of the kernel (its data, which it writes). The
 * kernel is the EfiLoaderCode allocation with read-only pages. */
#ifndef HANDOVER_MEMATTR_CHECK_H
#define HANDOVER_MEMATTR_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "../../firmware-stub/memmap.h"
#include "../../guest/guest_mem.h"

#define MEMATTR_MAX_RUNS 8

/* Pages in a row with one protection (guest/page_prot.h PAGE_PROT_*). */
struct memattr_run {
    uint64_t start, end;
    unsigned prot;
};

struct memattr_check {
    bool found;                  /* an EfiLoaderCode allocation has read-only pages */
    uint64_t start, end;         /* the first such: the kernel */
    struct memattr_run run[MEMATTR_MAX_RUNS];   /* its pages, in order */
    unsigned nruns;
    bool more;                   /* more runs than MEMATTR_MAX_RUNS */
    bool ok;                     /* every page present, the read-only ones executable */
};

/* The check of the page tables in gm against the memory map m. */
void memattr_check(const struct guest_mem *gm, const struct memmap *m, struct memattr_check *out);
/* "read-only, executable", "writable, non-executable", "not present", ... */
const char *memattr_prot_name(unsigned prot);

#endif
