/* What a snapshot keeps of the VM's host side, each device's own state
 * without its callbacks (Firecracker's device_manager/persist.rs), and the
 * run's counters, so that a restored run goes on from the snapshot rather
 * than from where the last one ended. The vCPU and irqchips (kvm/snapshot.h),
 * guest RAM (guest/mem_delta.h) and the firmware (firmware_copy) are kept
 * apart. */
#ifndef HANDOVER_PERSIST_H
#define HANDOVER_PERSIST_H

#include "console_line.h"
#include "control_ports.h"
#include "serial.h"
#include "../verdict/run_counters.h"

/* Where the live state is. */
struct device_set {
    struct serial *serial;
    struct control_ports *ctl;
    struct console_line *console;
    struct run_counters *counters;
};

struct device_states {
    struct serial_state serial;
    struct control_ports ctl;
    struct console_line console;
    struct run_counters counters;
};

void devices_save(const struct device_set *d, struct device_states *s);
void devices_restore(const struct device_set *d, const struct device_states *s);

#endif
