#include "persist.h"

void devices_save(const struct device_set *d, struct device_states *s)
{
    s->serial = d->serial->state;
    s->ctl = *d->ctl;
    s->console = *d->console;
    s->counters = *d->counters;
}

void devices_restore(const struct device_set *d, const struct device_states *s)
{
    d->serial->state = s->serial;
    *d->ctl = s->ctl;
    *d->console = s->console;
    *d->counters = s->counters;
}
