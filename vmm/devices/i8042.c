/* The i8042 keyboard controller, as much of it as `reboot=k` needs: the
 * status register reads idle and command 0xFE pulses the reset line. */
#include "control_ports.h"

#include <stddef.h>

#include "device_init.h"
#include "../../guest/layout.h"

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

/* Port 0x60 (data) and port 0x64 (command/status) only: 0x61 is the
 * in-kernel PIT's speaker/channel-2 gate port (KVM_PIT_SPEAKER_DUMMY). */
struct io_device i8042_data_device(struct control_ports *c)
{
    return (struct io_device){ .name = "i8042 data", .base = GUEST_PORT_I8042_DATA, .len = 1, .in = i8042_in,
                               .state = c, .kept = { c, sizeof(*c), control_ports_valid } };
}

struct io_device i8042_command_device(struct control_ports *c)
{
    return (struct io_device){ .name = "i8042 command", .base = GUEST_PORT_I8042_CMD, .len = 1, .in = i8042_in,
                               .out = i8042_command_out, .state = c, .kept = { c, sizeof(*c), control_ports_valid } };
}

static unsigned i8042_attach(const struct device_host *host, struct io_device *ranges)
{
    ranges[0] = i8042_data_device(host->ctl);
    ranges[1] = i8042_command_device(host->ctl);
    return 2;
}
DEVICE_INIT(i8042_attach)
