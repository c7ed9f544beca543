#include "control_ports.h"

#include <stddef.h>

#include "../firmware-stub/acpi.h"
#include "layout.h"

#define I8042_CMD_SYSTEM_RESET 0xfe
#define I8042_STATUS_IDLE      0x00  /* output buffer empty, input buffer empty */

static void i8042_in(void *state, uint16_t off, uint8_t *data, unsigned size)
{
    (void)state, (void)off;
    for (unsigned i = 0; i < size; i++)
        data[i] = I8042_STATUS_IDLE;
}

static void i8042_command_out(void *state, uint16_t off, const uint8_t *data, unsigned size)
{
    struct control_ports *c = state;
    (void)off, (void)size;
    if (data[0] == I8042_CMD_SYSTEM_RESET && c->stop == GUEST_RUNNING)
        c->stop = GUEST_RESET;
}

static void exit_out(void *state, uint16_t off, const uint8_t *data, unsigned size)
{
    struct control_ports *c = state;
    (void)off, (void)size;
    if (c->stop == GUEST_RUNNING) {
        c->stop = GUEST_EXIT_PORT;
        c->exit_status = data[0];
    }
}

/* Port 0x60 (data) and port 0x64 (command/status) only: 0x61 is the
 * in-kernel PIT's speaker/channel-2 gate port (KVM_PIT_SPEAKER_DUMMY). */
struct io_device i8042_data_device(struct control_ports *c)
{
    return (struct io_device){ "i8042 data", PORT_I8042_DATA, 1, i8042_in, NULL, c };
}

struct io_device i8042_command_device(struct control_ports *c)
{
    return (struct io_device){ "i8042 command", PORT_I8042_CMD, 1, i8042_in, i8042_command_out, c };
}

struct io_device exit_port_device(struct control_ports *c)
{
    return (struct io_device){ "exit-port", PORT_EXIT, 1, NULL, exit_out, c };
}

static void acpi_pm_out(void *state, uint16_t off, const uint8_t *data, unsigned size)
{
    struct control_ports *c = state;
    (void)size;
    if (c->stop != GUEST_RUNNING)
        return;
    if (off == ACPI_SLEEP_CONTROL_PORT - ACPI_SLEEP_CONTROL_PORT && (data[0] & ACPI_SLEEP_ENABLE) &&
        ((data[0] & ACPI_SLEEP_TYPE_MASK) >> ACPI_SLEEP_TYPE_SHIFT) == ACPI_SLP_TYP_S5)
        c->stop = GUEST_POWEROFF;
    else if (off == ACPI_RESET_PORT - ACPI_SLEEP_CONTROL_PORT && data[0] == ACPI_RESET_VALUE)
        c->stop = GUEST_RESET;
}

static void acpi_pm_in(void *state, uint16_t off, uint8_t *data, unsigned size)
{
    (void)state, (void)off;
    for (unsigned i = 0; i < size; i++)
        data[i] = 0;
}

struct io_device acpi_pm_device(struct control_ports *c)
{
    return (struct io_device){ "acpi-pm", ACPI_SLEEP_CONTROL_PORT, 3, acpi_pm_in, acpi_pm_out, c };
}
