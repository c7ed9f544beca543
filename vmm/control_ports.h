/* The ports through which a guest ends the VM: the i8042 reset line
 * (port 0x64, command 0xFE, as `reboot=k`) and the exit-status port 0xF4
 * (like QEMU's isa-debug-exit, but the byte written is the exit status),
 * and the ACPI sleep control and reset registers the FADT names. */
#ifndef HANDOVER_CONTROL_PORTS_H
#define HANDOVER_CONTROL_PORTS_H

#include "io_bus.h"

enum guest_stop { GUEST_RUNNING, GUEST_RESET, GUEST_EXIT_PORT, GUEST_POWEROFF };

struct control_ports {
    enum guest_stop stop;
    int exit_status;
};

struct io_device i8042_data_device(struct control_ports *c);
struct io_device i8042_command_device(struct control_ports *c);
struct io_device exit_port_device(struct control_ports *c);
/* The FADT's sleep control register (S5 = power off) and reset register. */
struct io_device acpi_pm_device(struct control_ports *c);

#endif
