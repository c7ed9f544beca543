/* The exit-status port: like QEMU's isa-debug-exit, but the byte the
 * guest writes is the VMM's exit status as it is (README "Exit status"). */
#include "control_ports.h"

#include <stddef.h>

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

struct io_device exit_port_device(struct control_ports *c)
{
    return (struct io_device){ "exit-port", PORT_EXIT, 1, NULL, exit_out, c };
}
