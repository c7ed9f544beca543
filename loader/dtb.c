#include "dtb.h"

#include <libfdt.h>
#include <stdio.h>

#define UART_CLOCK 1843200   /* 8250: 115200 baud x 16 */

static int add_uart(void *fdt, uint16_t port, uint8_t irq)
{
    char name[32];
    snprintf(name, sizeof(name), "serial@%x", port);
    int err = fdt_begin_node(fdt, name);
    err |= fdt_property_string(fdt, "compatible", "ns16550a");
    uint64_t reg[2] = { cpu_to_fdt64(port), cpu_to_fdt64(8) };
    err |= fdt_property(fdt, "reg", reg, sizeof(reg));
    err |= fdt_property_u32(fdt, "clock-frequency", UART_CLOCK);
    err |= fdt_property_u32(fdt, "interrupts", irq);
    err |= fdt_end_node(fdt);
    return err;
}

static int add_tree(void *fdt, const struct dtb_machine *m)
{
    int err = 0;
    err |= fdt_begin_node(fdt, "");
    err |= fdt_property_u32(fdt, "#address-cells", 2);
    err |= fdt_property_u32(fdt, "#size-cells", 2);
    err |= fdt_property_string(fdt, "compatible", "handover,microvm");
    err |= fdt_property_string(fdt, "model", "handover microVM");

    err |= fdt_begin_node(fdt, "chosen");
    err |= fdt_property_string(fdt, "bootargs", m->bootargs ? m->bootargs : "");
    if (m->nuart) {
        char path[32];
        snprintf(path, sizeof(path), "/serial@%x", m->uart[0].port);
        err |= fdt_property_string(fdt, "stdout-path", path);
    }
    err |= fdt_end_node(fdt);

    for (unsigned i = 0; i < m->nram; i++) {
        char name[32];
        snprintf(name, sizeof(name), "memory@%llx", (unsigned long long)m->ram[i][0]);
        err |= fdt_begin_node(fdt, name);
        err |= fdt_property_string(fdt, "device_type", "memory");
        uint64_t reg[2] = { cpu_to_fdt64(m->ram[i][0]), cpu_to_fdt64(m->ram[i][1]) };
        err |= fdt_property(fdt, "reg", reg, sizeof(reg));
        err |= fdt_end_node(fdt);
    }

    err |= fdt_begin_node(fdt, "cpus");
    err |= fdt_property_u32(fdt, "#address-cells", 1);
    err |= fdt_property_u32(fdt, "#size-cells", 0);
    for (unsigned i = 0; i < m->cpus; i++) {
        char name[16];
        snprintf(name, sizeof(name), "cpu@%u", i);
        err |= fdt_begin_node(fdt, name);
        err |= fdt_property_string(fdt, "device_type", "cpu");
        err |= fdt_property_u32(fdt, "reg", i);
        err |= fdt_end_node(fdt);
    }
    err |= fdt_end_node(fdt);

    for (unsigned i = 0; i < m->nuart && i < sizeof(m->uart) / sizeof(m->uart[0]); i++)
        err |= add_uart(fdt, m->uart[i].port, m->uart[i].irq);

    err |= fdt_end_node(fdt);
    return err;
}

size_t dtb_build(void *buf, size_t cap, const struct dtb_machine *m)
{
    if (cap > INT32_MAX || fdt_create(buf, (int)cap) || fdt_finish_reservemap(buf) || add_tree(buf, m) ||
        fdt_finish(buf))
        return 0;
    return fdt_totalsize(buf);
}

/* The header alone (the blocks inside totalsize) leaves the structure
 * block unread: a bad tag, a name past the strings block or an unclosed
 * node would reach the kernel, which unflattens the tree without asking
 * more of it than the header (drivers/of/fdt.c, early_init_dt_verify). */
int dtb_check(const void *buf, size_t len)
{
    if (len < sizeof(struct fdt_header) || fdt_check_header(buf) || fdt_totalsize(buf) > len ||
        fdt_check_full(buf, len))
        return -1;
    return 0;
}
