/* Where the kernel image goes in guest RAM (Documentation/arch/x86/boot.rst:
 * pref_address, kernel_alignment, relocatable_kernel), reserved as
 * LoaderCode in the firmware's memory map. */
#ifndef HANDOVER_PLACE_H
#define HANDOVER_PLACE_H

#include <stdbool.h>
#include <stdint.h>

#include "../firmware-stub/memmap.h"

struct image_constraints {
    uint64_t size;           /* bytes, a whole number of pages */
    uint64_t pref_address;   /* the setup header's */
    uint64_t align;          /* kernel_alignment, a power of two */
    bool relocatable;        /* relocatable_kernel */
    uint64_t load_addr;      /* --load-addr: there or nowhere; 0: none */
    uint64_t top;            /* the image ends at or below it: the end of guest RAM, or
                              * 4 GiB for an entry in 32-bit mode */
};

/* --load-addr, else pref_address rounded up to the alignment. */
uint64_t place_wanted(const struct image_constraints *c);
/* Reserve the image at place_wanted(c), or, if it may move (relocatable,
 * no --load-addr), at the lowest aligned address from GUEST_KERNEL_MIN
 * up that is free; below top either way. 0 with the address in *at, or
 * -1 if nothing fits. */
int place_image(struct memmap *map, const struct image_constraints *c, uint64_t *at);
/* Where place_image looked besides place_wanted, as the end of a message
 * saying it found no room. */
const char *place_tried(const struct image_constraints *c);

#endif
