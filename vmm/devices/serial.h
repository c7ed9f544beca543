/* 8250/16550A UART, enough for earlyprintk, earlycon and the kernel's
 * serial console: transmit-only, with the THRE interrupt (COM1: port and
 * IRQ in vmm/mem/layout.h). */
#ifndef HANDOVER_SERIAL_H
#define HANDOVER_SERIAL_H

#include <stdbool.h>
#include <stdint.h>

#include "io_bus.h"

/* The registers and lines: what a snapshot keeps (devices/persist.h). */
struct serial_state {
    uint8_t ier, lcr, mcr, scr, dll, dlm, fcr;
    bool thri_pending;
    bool irq_level;
};

struct serial {
    struct serial_state state;
    /* where transmitted bytes go */
    void (*tx)(void *ctx, uint8_t byte);
    void (*irq)(void *ctx, int level);
    void *ctx;
};

void serial_init(struct serial *s, void (*tx)(void *, uint8_t), void (*irq)(void *, int), void *ctx);
struct io_device serial_device(struct serial *s, uint16_t base);

#endif
