/* The FADT's fixed hardware (ACPI 6.4, 4.8.3): the PM1a event block (no
 * fixed event ever happens, so the status register reads 0; the enable
 * register reads back what was written, which ACPICA checks before it
 * takes the global lock as present: evxfevnt.c, acpi_enable_event), the
 * PM1a control block, whose SLP_TYPx and SLP_EN power the guest off for
 * S5, and the reset register, whose RESET_VALUE resets it. */
#include "control_ports.h"

#include "device_init.h"
#include "../../guest/layout.h"

#define PM1_EN  2   /* after the 2-byte status register */
#define PM1_CNT (GUEST_PORT_ACPI_PM1_CNT - GUEST_PORT_ACPI_PM1_EVT)
#define RESET   (GUEST_PORT_ACPI_RESET - GUEST_PORT_ACPI_PM1_EVT)

/* PM1 control (ACPI 6.4, 4.8.3.2.1): SCI_EN in bit 0, SLP_TYPx in bits
 * 10-12 and SLP_EN in bit 13, so bits 2-4 and 5 of the register's high
 * byte. The guest may write it a word or a byte at a time. */
#define SCI_EN           0x01
#define SLEEP_TYPE_SHIFT 2
#define SLEEP_TYPE_MASK  0x1c
#define SLEEP_ENABLE     0x20

static void acpi_pm_byte_out(struct control_ports *c, unsigned off, uint8_t v)
{
    if (off == PM1_EN || off == PM1_EN + 1) {
        unsigned shift = 8 * (off - PM1_EN);
        c->pm1_enable = (uint16_t)((c->pm1_enable & ~(0xffu << shift)) | (unsigned)v << shift);
    } else if (off == PM1_CNT + 1 && (v & SLEEP_ENABLE) &&
               ((v & SLEEP_TYPE_MASK) >> SLEEP_TYPE_SHIFT) == GUEST_ACPI_SLP_TYP_S5) {
        c->stop = GUEST_POWEROFF;
    } else if (off == RESET && v == GUEST_ACPI_RESET_VALUE) {
        c->stop = GUEST_RESET;
    }
}

static void acpi_pm_out(void *state, uint16_t off, const uint8_t *data, unsigned size)
{
    struct control_ports *c = state;
    for (unsigned i = 0; i < size && c->stop == GUEST_RUNNING; i++)
        acpi_pm_byte_out(c, off + i, data[i]);
}

/* SCI_EN reads 1: with no SMI_CMD in the FADT the platform is always in
 * ACPI mode (ACPI 6.4, 5.2.9, SMI_CMD). */
static void acpi_pm_in(void *state, uint16_t off, uint8_t *data, unsigned size)
{
    const struct control_ports *c = state;
    for (unsigned i = 0; i < size; i++) {
        unsigned reg = off + i;
        data[i] = reg == PM1_CNT                         ? SCI_EN
                  : reg == PM1_EN || reg == PM1_EN + 1 ? (uint8_t)(c->pm1_enable >> 8 * (reg - PM1_EN))
                                                         : 0;
    }
}

struct io_device acpi_pm_device(struct control_ports *c)
{
    return (struct io_device){ .name = "acpi-pm", .base = GUEST_PORT_ACPI_PM1_EVT, .len = RESET + 1,
                               .in = acpi_pm_in, .out = acpi_pm_out, .state = c, .kept = { c, sizeof(*c), control_ports_valid } };
}

static unsigned acpi_pm_attach(const struct device_host *host, struct io_device *ranges)
{
    ranges[0] = acpi_pm_device(host->ctl);
    return 1;
}
DEVICE_INIT(acpi_pm_attach)
