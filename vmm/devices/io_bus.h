/* Port I/O dispatch: each device registers a port range with an in/out
 * pair (the kvmtool shape), so the run loop never names a device; and
 * the state a snapshot keeps of each (devices/persist.h). */
#ifndef HANDOVER_IO_BUS_H
#define HANDOVER_IO_BUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a snapshot keeps of a device and a restore puts back, byte for
 * byte (Firecracker's Persist, for state without pointers): size bytes
 * at data. */
struct io_state {
    void *data;
    size_t size;
    /* Whether size bytes are a state the device could be in (a restore
     * puts none back otherwise); NULL: any bytes are. */
    bool (*valid)(const void *bytes);
};

struct io_device {
    const char *name;
    uint16_t base, len;
    /* size is 1, 2 or 4; data is little-endian */
    void (*in)(void *state, uint16_t offset, uint8_t *data, unsigned size);
    void (*out)(void *state, uint16_t offset, const uint8_t *data, unsigned size);
    void *state;              /* given to in and out */
    struct io_state kept;     /* data NULL: nothing to keep */
};

#define IO_BUS_MAX_DEVICES 16
#define IO_BUS_KEPT_BYTES  64    /* the kept states together (today 26: two UARTs, the control ports) */

struct io_bus {
    struct io_device dev[IO_BUS_MAX_DEVICES];
    unsigned n;
    /* The kept states in the order their devices came, each once however
     * many devices share it (the control ports). */
    struct io_state kept[IO_BUS_MAX_DEVICES];
    unsigned nkept;
    size_t kept_bytes;
    uint64_t unclaimed;      /* accesses no device claimed */
};

/* -1 when the bus is full, the range overlaps a registered one, or the
 * device's kept state does not fit (or is kept already with another
 * size): a device that is not on the bus is a bug the caller must report
 * (kvmtool's kvm__register_pio is __must_check for the same reason). */
__attribute__((warn_unused_result)) int io_bus_register(struct io_bus *bus, const struct io_device *dev);
/* An access of size bytes at port: to the device whose range holds them
 * all, else byte by byte to the port each byte addresses. Returns false if
 * no device claimed any of them (reads then give all ones). */
bool io_bus_access(struct io_bus *bus, uint16_t port, bool out, uint8_t *data, unsigned size);

#endif
