/* The hardware-reduced FADT's sleep control and reset registers (ACPI 6.4,
 * 4.8.3.7 and 4.8.3.6): S5 powers the guest off, RESET_VALUE resets it.
 * The sleep status register reads 0. */
#include "control_ports.h"

#include "device_init.h"
#include "../../guest/layout.h"

/* The sleep control register's fields (ACPI 6.4, 4.8.3.7). */
#define SLEEP_TYPE_SHIFT 2
#define SLEEP_TYPE_MASK  0x1c
#define SLEEP_ENABLE     0x20

static void acpi_pm_out(void *state, uint16_t off, const uint8_t *data, unsigned size)
{
    struct control_ports *c = state;
    (void)size;
    if (c->stop != GUEST_RUNNING)
        return;
    if (off == GUEST_PORT_ACPI_SLEEP_CONTROL - GUEST_PORT_ACPI_SLEEP_CONTROL && (data[0] & SLEEP_ENABLE) &&
        ((data[0] & SLEEP_TYPE_MASK) >> SLEEP_TYPE_SHIFT) == GUEST_ACPI_SLP_TYP_S5)
        c->stop = GUEST_POWEROFF;
    else if (off == GUEST_PORT_ACPI_RESET - GUEST_PORT_ACPI_SLEEP_CONTROL && data[0] == GUEST_ACPI_RESET_VALUE)
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
    return (struct io_device){ .name = "acpi-pm", .base = GUEST_PORT_ACPI_SLEEP_CONTROL,
                               .len = GUEST_PORT_ACPI_RESET - GUEST_PORT_ACPI_SLEEP_CONTROL + 1, .in = acpi_pm_in,
                               .out = acpi_pm_out, .state = c, .kept = { c, sizeof(*c) } };
}

static unsigned acpi_pm_attach(const struct device_host *host, struct io_device *ranges)
{
    ranges[0] = acpi_pm_device(host->ctl);
    return 1;
}
DEVICE_INIT(acpi_pm_attach)
