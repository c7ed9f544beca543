/* The exit-status port: like QEMU's isa-debug-exit, but the byte the
 * guest writes is the VMM's exit status as it is (docs/exit-status.md). */
#include "control_ports.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "device_init.h"
#include "../../guest/layout.h"

static void exit_out(void *state, uint16_t off, const uint8_t *data, unsigned size)
{
    struct control_ports *c = state;
    (void)off, (void)size;
    if (c->stop == GUEST_RUNNING) {
        c->stop = GUEST_EXIT_PORT;
        c->exit_status = data[0];
    }
}

bool control_ports_valid(const void *bytes)
{
    struct control_ports c;
    memcpy(&c, bytes, sizeof(c));
    return c.stop <= GUEST_POWEROFF && c.exit_status >= 0 && c.exit_status <= UINT8_MAX;
}

struct io_device exit_port_device(struct control_ports *c)
{
    return (struct io_device){ .name = "exit-port", .base = GUEST_PORT_EXIT, .len = 1, .out = exit_out, .state = c,
                               .kept = { c, sizeof(*c), control_ports_valid } };
}

static unsigned exit_port_attach(const struct device_host *host, struct io_device *ranges)
{
    ranges[0] = exit_port_device(host->ctl);
    return 1;
}
DEVICE_INIT(exit_port_attach)
