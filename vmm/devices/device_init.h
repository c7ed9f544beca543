/* The devices a VM has. Each device's file adds itself to the init list
 * with DEVICE_INIT (kvmtool's dev_init in include/kvm/util-init.h), and
 * devices_init puts every device of the list on the bus: the VMM names
 * none, and a new device is one new file. */
#ifndef HANDOVER_DEVICE_INIT_H
#define HANDOVER_DEVICE_INIT_H

#include <stdint.h>

#include "io_bus.h"

struct control_ports;
struct serial;

/* What the VMM wires the devices to. */
struct device_host {
    struct io_bus *bus;
    struct control_ports *ctl;                          /* a guest's request to stop (control_ports.h) */
    void (*irq)(void *ctx, unsigned line, int level);   /* an ISA interrupt line */
    void (*console_tx)(void *ctx, uint8_t byte);        /* COM1's bytes: the console */
    void (*exec_output_tx)(void *ctx, uint8_t byte);    /* COM2's: --exec-output; NULL: no COM2 */
    void *ctx;                                          /* given to the three callbacks */
    struct serial **console_uart;                       /* set to COM1, for the host to queue input; NULL: not needed */
};

#define DEVICE_MAX_RANGES 4

struct device_init {
    const char *name;
    /* The device's port ranges, at most DEVICE_MAX_RANGES, as they go on
     * the bus; 0 when the host has no use for it. */
    unsigned (*attach)(const struct device_host *host, struct io_device *ranges);
    struct device_init *next;
};

/* Called by DEVICE_INIT before main(): the list keeps the order of the
 * calls, which is the link order. */
void device_init_add(struct device_init *d);

#define DEVICE_INIT(attach_fn)                                                                                   \
    static void __attribute__((constructor)) device_init_##attach_fn(void)                                      \
    {                                                                                                            \
        static struct device_init entry = { #attach_fn, attach_fn, NULL };                                     \
        device_init_add(&entry);                                                                                 \
    }

/* Every device of the init list on host->bus: 0, or -1 with the range the
 * bus refused in *refused (io_bus_register says why it may). */
__attribute__((warn_unused_result)) int devices_init(const struct device_host *host, struct io_device *refused);

#endif
