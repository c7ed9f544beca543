#include "persist.h"

#include <string.h>

void devices_save(const struct io_bus *bus, struct device_snapshot *s)
{
    s->len = 0;
    for (unsigned i = 0; i < bus->nkept; i++) {
        memcpy(s->bytes + s->len, bus->kept[i].data, bus->kept[i].size);
        s->len += bus->kept[i].size;
    }
    s->nkept = bus->nkept;
    s->unclaimed = bus->unclaimed;
}

int devices_restore(struct io_bus *bus, const struct device_snapshot *s)
{
    if (s->nkept != bus->nkept || s->len != bus->kept_bytes)
        return -1;
    size_t at = 0;
    for (unsigned i = 0; i < bus->nkept; i++) {
        if (bus->kept[i].valid && !bus->kept[i].valid(s->bytes + at))
            return -1;
        at += bus->kept[i].size;
    }
    at = 0;
    for (unsigned i = 0; i < bus->nkept; i++) {
        memcpy(bus->kept[i].data, s->bytes + at, bus->kept[i].size);
        at += bus->kept[i].size;
    }
    bus->unclaimed = s->unclaimed;
    return 0;
}
