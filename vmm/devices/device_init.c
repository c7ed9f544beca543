#include "device_init.h"

static struct device_init *first, **last = &first;

void device_init_add(struct device_init *d)
{
    d->next = NULL;
    *last = d;
    last = &d->next;
}

int devices_init(const struct device_host *host, struct io_device *refused)
{
    for (const struct device_init *d = first; d; d = d->next) {
        struct io_device ranges[DEVICE_MAX_RANGES];
        unsigned n = d->attach(host, ranges);
        for (unsigned i = 0; i < n; i++)
            if (io_bus_register(host->bus, &ranges[i])) {
                *refused = ranges[i];
                return -1;
            }
    }
    return 0;
}
