#include "place.h"

#include "../guest/layout.h"

uint64_t place_wanted(const struct image_constraints *c)
{
    return c->load_addr ? c->load_addr : (c->pref_address + c->align - 1) & ~(c->align - 1);
}

int place_image(struct memmap *map, const struct image_constraints *c, uint64_t *at)
{
    uint64_t pages = c->size >> 12, want = place_wanted(c);
    if (want <= c->top && c->size <= c->top - want &&
        memmap_reserve(map, want, pages, EFI_LOADER_CODE) == EFI_SUCCESS) {
        *at = want;
        return 0;
    }
    if (!c->relocatable || c->load_addr)
        return -1;
    for (uint64_t a = (GUEST_KERNEL_MIN + c->align - 1) & ~(c->align - 1); a + c->size <= c->top; a += c->align)
        if (memmap_reserve(map, a, pages, EFI_LOADER_CODE) == EFI_SUCCESS) {
            *at = a;
            return 0;
        }
    return -1;
}

const char *place_tried(const struct image_constraints *c)
{
    if (c->load_addr)
        return " (--load-addr: there only)";
    return c->relocatable ? " or anywhere above 16 MiB" : " (not relocatable)";
}
