/* Guest memory as the pages that changed since a reference copy, for the
 * --fault-sweep's snapshots (vmm/kvm/snapshot.c keeps the rest of a VM). */
#include "mem_delta.h"

#include <stdlib.h>
#include <string.h>

#include "guest_mem.h"

/* Room for at least one more page, never for more than max pages. */
static int grow(struct mem_delta *d, size_t *cap, size_t max)
{
    size_t want = *cap ? 2 * *cap : 256;
    want = want < max ? want : max;
    uint64_t *pg = realloc(d->page, want * sizeof(*pg));
    if (!pg)
        return -1;
    d->page = pg;
    uint8_t *data = realloc(d->data, want * GUEST_PAGE_SIZE);
    if (!data)
        return -1;
    d->data = data;
    *cap = want;
    return 0;
}

int mem_delta_take(struct mem_delta *d, const uint8_t *mem, uint8_t *ref, size_t size, size_t max_pages)
{
    return mem_delta_take_pages(d, mem, ref, size, max_pages, NULL);
}

/* Whether page p may differ: every page without a bitmap. */
static bool candidate(const uint8_t *pages, size_t p)
{
    return !pages || pages[p / 8] & (1u << (p % 8));
}

int mem_delta_take_pages(struct mem_delta *d, const uint8_t *mem, uint8_t *ref, size_t size, size_t max_pages,
                         const uint8_t *pages)
{
    size_t cap = 0;
    d->n = 0;
    d->page = NULL;
    d->data = NULL;
    for (size_t p = 0; p < size / GUEST_PAGE_SIZE; p++) {
        if (pages && !pages[p / 8]) {   /* eight pages at once */
            p |= 7;
            continue;
        }
        if (!candidate(pages, p))
            continue;
        const uint8_t *now = mem + p * GUEST_PAGE_SIZE;
        uint8_t *old = ref + p * GUEST_PAGE_SIZE;
        if (!memcmp(now, old, GUEST_PAGE_SIZE))
            continue;
        if (d->n == max_pages) {
            mem_delta_free(d);
            return MEM_DELTA_OVER_BUDGET;
        }
        if (d->n == cap && grow(d, &cap, max_pages)) {
            mem_delta_free(d);
            return -1;
        }
        memcpy(d->data + d->n * GUEST_PAGE_SIZE, now, GUEST_PAGE_SIZE);
        memcpy(old, now, GUEST_PAGE_SIZE);
        d->page[d->n++] = p;
    }
    return 0;
}

void mem_delta_apply(const struct mem_delta *d, uint8_t *copy)
{
    for (size_t i = 0; i < d->n; i++)
        memcpy(copy + d->page[i] * GUEST_PAGE_SIZE, d->data + i * GUEST_PAGE_SIZE, GUEST_PAGE_SIZE);
}

void mem_delta_free(struct mem_delta *d)
{
    free(d->page);
    free(d->data);
    d->page = NULL;
    d->data = NULL;
    d->n = 0;
}
