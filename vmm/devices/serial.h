/* 8250/16550A UART, enough for earlyprintk, earlycon and the kernel's
 * serial console: transmit, with the THRE interrupt, and receive from a
 * buffer the host fills (--snapshot's command), with the RDA interrupt.
 * One instance per port: COM1 is the console; COM2 is there only with
 * --exec-output. */
#ifndef HANDOVER_SERIAL_H
#define HANDOVER_SERIAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "io_bus.h"

/* The registers and lines: the state the device keeps on the bus for a
 * snapshot (devices/persist.h). */
struct serial_state {
    uint8_t ier, lcr, mcr, scr, dll, dlm, fcr;
    bool thri_pending;
    bool irq_level;
};

/* Bytes the host queues for the guest to read, at most this many. */
#define SERIAL_RX_MAX 8192

struct serial {
    struct serial_state state;
    /* Not in the kept state: a snapshot is taken with nothing queued. */
    uint8_t rx[SERIAL_RX_MAX];
    size_t rx_len, rx_at;     /* queued, and read so far */
    unsigned irq_line;        /* the ISA IRQ, passed to irq() */
    /* where transmitted bytes go */
    void (*tx)(void *ctx, uint8_t byte);
    void (*irq)(void *ctx, unsigned line, int level);
    void *ctx;
};

void serial_init(struct serial *s, unsigned irq_line, void (*tx)(void *, uint8_t),
                 void (*irq)(void *, unsigned, int), void *ctx);
struct io_device serial_device(struct serial *s, uint16_t base);
/* Queue len bytes for the guest to read: false, and nothing queued, if
 * they do not fit beside what it has not read yet. */
bool serial_receive(struct serial *s, const void *data, size_t len);

#endif
