#include "io_bus.h"

#include <string.h>

/* Add s to the kept states unless a device that shares it has. */
static int keep(struct io_bus *bus, const struct io_state *s)
{
    for (unsigned i = 0; i < bus->nkept; i++)
        if (bus->kept[i].data == s->data)
            return bus->kept[i].size == s->size ? 0 : -1;
    if (s->size > IO_BUS_KEPT_BYTES - bus->kept_bytes)
        return -1;
    bus->kept[bus->nkept++] = *s;
    bus->kept_bytes += s->size;
    return 0;
}

int io_bus_register(struct io_bus *bus, const struct io_device *dev)
{
    if (bus->n >= IO_BUS_MAX_DEVICES)
        return -1;
    for (unsigned i = 0; i < bus->n; i++)
        if (dev->base < bus->dev[i].base + bus->dev[i].len && bus->dev[i].base < dev->base + dev->len)
            return -1;
    if (dev->kept.data && keep(bus, &dev->kept))
        return -1;
    bus->dev[bus->n++] = *dev;
    return 0;
}

bool io_bus_access(struct io_bus *bus, uint16_t port, bool out, uint8_t *data, unsigned size)
{
    for (unsigned i = 0; i < bus->n; i++) {
        struct io_device *d = &bus->dev[i];
        if (port < d->base || port >= d->base + d->len)
            continue;
        if (out && d->out)
            d->out(d->state, (uint16_t)(port - d->base), data, size);
        else if (!out && d->in)
            d->in(d->state, (uint16_t)(port - d->base), data, size);
        else if (!out)
            memset(data, 0xff, size);
        return true;
    }
    bus->unclaimed++;
    if (!out)
        memset(data, 0xff, size);
    return false;
}
