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

/* The device whose range holds port, or NULL. */
static struct io_device *device_at(struct io_bus *bus, uint32_t port)
{
    for (unsigned i = 0; i < bus->n; i++)
        if (port >= bus->dev[i].base && port < (uint32_t)bus->dev[i].base + bus->dev[i].len)
            return &bus->dev[i];
    return NULL;
}

static void device_access(struct io_device *d, uint32_t port, bool out, uint8_t *data, unsigned size)
{
    uint16_t off = (uint16_t)(port - d->base);
    if (out && d->out)
        d->out(d->state, off, data, size);
    else if (!out && d->in)
        d->in(d->state, off, data, size);
    else if (!out)
        memset(data, 0xff, size);
}

/* An access that does not lie within one device's range: each byte goes
 * to the port it addresses, as the bus splits a wide cycle to 8-bit
 * devices; a byte past 0xffff or at a port nobody has reads all ones.
 * Whether any device took a byte. */
static bool split_access(struct io_bus *bus, uint16_t port, bool out, uint8_t *data, unsigned size)
{
    bool claimed = false;
    for (unsigned i = 0; i < size; i++) {
        struct io_device *d = device_at(bus, (uint32_t)port + i);
        if (d)
            device_access(d, (uint32_t)port + i, out, data + i, 1);
        else if (!out)
            data[i] = 0xff;
        claimed |= d != NULL;
    }
    return claimed;
}

bool io_bus_access(struct io_bus *bus, uint16_t port, bool out, uint8_t *data, unsigned size)
{
    struct io_device *d = device_at(bus, port);
    if (d && (uint32_t)port + size <= (uint32_t)d->base + d->len) {
        device_access(d, port, out, data, size);
        return true;
    }
    if (split_access(bus, port, out, data, size))
        return true;
    bus->unclaimed++;
    return false;
}
