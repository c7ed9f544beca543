#include "control_ports.h"

#include <stddef.h>

#include "layout.h"

#define I8042_CMD_SYSTEM_RESET 0xfe
#define I8042_STATUS_IDLE      0x00  /* output buffer empty, input buffer empty */

static void i8042_in(void *state, uint16_t off, uint8_t *data, unsigned size)
{
    (void)state, (void)off;
    for (unsigned i = 0; i < size; i++)
        data[i] = I8042_STATUS_IDLE;
}

static void i8042_out(void *state, uint16_t off, const uint8_t *data, unsigned size)
{
    struct control_ports *c = state;
    (void)size;
    if (off == PORT_I8042_CMD - PORT_I8042_DATA && data[0] == I8042_CMD_SYSTEM_RESET && c->stop == GUEST_RUNNING)
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

struct io_device i8042_device(struct control_ports *c)
{
    /* 0x60 data and 0x64 command/status; 0x61-0x63 belong to others (the PIT speaker port). */
    return (struct io_device){ "i8042", PORT_I8042_DATA, 5, i8042_in, i8042_out, c };
}

struct io_device exit_port_device(struct control_ports *c)
{
    return (struct io_device){ "exit-port", PORT_EXIT, 1, NULL, exit_out, c };
}
