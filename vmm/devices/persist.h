/* A snapshot of the devices, taken through the bus (Firecracker's
 * device_manager/persist.rs): the state each device put on the bus as
 * kept, in the bus's order, and the bus's own count of unclaimed accesses;
 * a device added to the bus is in every snapshot without a line here.
 * The vCPU and irqchips (kvm/snapshot.h), guest RAM (guest/mem_delta.h), the
 * firmware (firmware_copy) and the run's own state are kept apart. */
#ifndef HANDOVER_PERSIST_H
#define HANDOVER_PERSIST_H

#include "io_bus.h"

struct device_snapshot {
    uint8_t bytes[IO_BUS_KEPT_BYTES];
    size_t len;
    unsigned nkept;
    uint64_t unclaimed;
};

void devices_save(const struct io_bus *bus, struct device_snapshot *s);
/* -1, and nothing restored, if s was taken of a bus whose kept states
 * were others, or holds a state a device could not be in. */
__attribute__((warn_unused_result)) int devices_restore(struct io_bus *bus, const struct device_snapshot *s);

#endif
