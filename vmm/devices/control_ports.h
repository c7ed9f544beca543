/* The devices through which a guest ends the VM, one per file, sharing
 * this state: the i8042 reset line (i8042.c), the exit-status port
 * (exit_port.c) and the FADT's PM1 and reset registers (acpi_pm.c).
 * Their ports are in guest/layout.h. */
#ifndef HANDOVER_CONTROL_PORTS_H
#define HANDOVER_CONTROL_PORTS_H

#include "io_bus.h"

enum guest_stop { GUEST_RUNNING, GUEST_RESET, GUEST_EXIT_PORT, GUEST_POWEROFF };

/* The whole state: each of the devices keeps it on the bus for a
 * snapshot (devices/persist.h), which saves it once. */
struct control_ports {
    enum guest_stop stop;
    int exit_status;
    uint16_t pm1_enable;   /* acpi_pm.c: the PM1 enable register, as written */
};

/* A stop reason of the enum and an exit status a byte gives (the kept
 * state's check, io_bus.h). */
bool control_ports_valid(const void *bytes);

struct io_device i8042_data_device(struct control_ports *c);
struct io_device i8042_command_device(struct control_ports *c);
struct io_device exit_port_device(struct control_ports *c);
/* The FADT's PM1 event and control blocks (S5 = power off) and reset register. */
struct io_device acpi_pm_device(struct control_ports *c);

#endif
