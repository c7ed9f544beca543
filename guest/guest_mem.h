/* Guest memory: one host mapping standing for guest RAM, and the only way
 * host code touches it. Every access is bounds-checked; a guest-supplied
 * address never becomes a host pointer without passing through here.
 *
 * RAM is [0, low) and, when it does not fit below the 32-bit hole,
 * [4 GiB, 4 GiB + size - low): the hole keeps the LAPIC/IOAPIC MMIO free. */
#ifndef HANDOVER_GUEST_MEM_H
#define HANDOVER_GUEST_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "layout.h"

#define GUEST_PAGE_SIZE  4096ULL

/* Page-table entry bits (Intel SDM vol. 3A, 4.5): guest_mem_view walks
 * the guest's tables, vmm/x86/x86_setup.c builds the firmware's. */
#define PTE_PRESENT  0x1ULL
#define PTE_WRITE    0x2ULL
#define PTE_LARGE    0x80ULL                    /* PS: a 2 MiB or 1 GiB page */
#define PTE_NX       (1ULL << 63)
#define PTE_ADDR     0x000ffffffffff000ULL

struct guest_mem {
    uint8_t *host;      /* mapping of size bytes */
    uint64_t size;      /* total RAM in bytes */
    uint64_t low_size;  /* bytes of RAM below GUEST_HOLE_START */
    uint8_t *touched;   /* NULL, or a bitmap of the mapping's pages (bit p of
                         * byte p / 8) that guest_mem_ptr set for every page
                         * it handed out: a superset of the pages host code
                         * wrote (--fault-sweep's snapshots read it) */
};

struct guest_range { uint64_t start, size; };

/* Set up gm over an existing buffer of size bytes (tests pass a calloc'd
 * one); no pages tracked. */
void guest_mem_init(struct guest_mem *gm, void *host, uint64_t size);
/* The RAM ranges in guest-physical order; returns their number (1 or 2). */
int guest_mem_ranges(const struct guest_mem *gm, struct guest_range out[2]);
/* One past the highest RAM address. */
uint64_t guest_mem_top(const struct guest_mem *gm);

/* Host pointer for [gpa, gpa+len), or NULL if any byte is outside RAM. */
void *guest_mem_ptr(const struct guest_mem *gm, uint64_t gpa, uint64_t len);
bool guest_mem_read(const struct guest_mem *gm, uint64_t gpa, void *dst, uint64_t len);
bool guest_mem_write(const struct guest_mem *gm, uint64_t gpa, const void *src, uint64_t len);

/* A view of guest memory through the guest's paging, as a guest pointer
 * means it: with paging off (cr3 == 0) addresses are physical; otherwise
 * they are translated through the 4- or 5-level tables at cr3, the
 * 3-level ones of 32-bit PAE paging, or the 2-level ones of 32-bit paging. */
struct guest_view {
    const struct guest_mem *gm;
    uint64_t cr3;   /* 0: no translation */
    bool la57;      /* CR4.LA57: 5-level paging */
    bool pae32;     /* CR4.PAE outside long mode: a PDPT of 4 entries at cr3
                     * (32-byte aligned, SDM vol. 3A 4.4), then directories
                     * and tables as in 4-level paging */
    bool paging32;  /* CR4.PAE clear outside long mode: 32-bit paging (SDM
                     * vol. 3A 4.3), a directory at cr3 and tables of 1024
                     * 4-byte entries */
    bool pse;       /* with paging32, CR4.PSE: a directory entry with PS
                     * set maps a 4 MiB page */
};

/* Translate a guest-virtual address; false if not mapped or a table is
 * outside RAM (the result itself is checked by the access that uses it). */
bool guest_view_translate(const struct guest_view *v, uint64_t va, uint64_t *pa);
/* Is all of [va, va+len) mapped and in RAM? */
bool guest_view_accessible(const struct guest_view *v, uint64_t va, uint64_t len);
bool guest_view_read(const struct guest_view *v, uint64_t va, void *dst, uint64_t len);
bool guest_view_write(const struct guest_view *v, uint64_t va, const void *src, uint64_t len);
/* Fill len bytes at va with byte c. */
bool guest_view_fill(const struct guest_view *v, uint64_t va, uint8_t c, uint64_t len);
bool guest_view_read_u64(const struct guest_view *v, uint64_t va, uint64_t *out);
bool guest_view_write_u64(const struct guest_view *v, uint64_t va, uint64_t val);

#endif
