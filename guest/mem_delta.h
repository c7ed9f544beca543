/* Guest memory as the pages that differ from a reference copy: what a
 * --fault-sweep snapshot keeps of memory. No KVM: a plain buffer. */
#ifndef HANDOVER_MEM_DELTA_H
#define HANDOVER_MEM_DELTA_H

#include <stddef.h>
#include <stdint.h>

/* The pages of guest memory that differ from a reference copy. */
struct mem_delta {
    size_t n;
    uint64_t *page;     /* page numbers */
    uint8_t *data;      /* n pages of 4 KiB */
};

/* mem_delta_take found more than max_pages pages changed. */
#define MEM_DELTA_OVER_BUDGET 1
/* Record in d the pages of mem[0, size) that differ from ref, and bring
 * ref up to date; size is a multiple of 4 KiB. d never holds (nor
 * allocates room for) more than max_pages pages: past them it is freed and
 * MEM_DELTA_OVER_BUDGET returned, with ref only partly brought up to date
 * (no later delta can be taken against it). -1 if out of memory. */
int mem_delta_take(struct mem_delta *d, const uint8_t *mem, uint8_t *ref, size_t size, size_t max_pages);
/* The same over only the pages a bitmap names (bit p of byte p / 8): the
 * others are known to match ref. */
int mem_delta_take_pages(struct mem_delta *d, const uint8_t *mem, uint8_t *ref, size_t size, size_t max_pages,
                         const uint8_t *pages);
/* Apply d to a copy that matched d's reference. */
void mem_delta_apply(const struct mem_delta *d, uint8_t *copy);
void mem_delta_free(struct mem_delta *d);

#endif
