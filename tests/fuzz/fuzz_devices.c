/* libFuzzer harness for the port-I/O devices a guest reaches: the io_bus
 * with the 8250 UART at 0x3f8, the i8042, the exit port and the ACPI
 * PM1/reset registers, the devices the init list puts on the bus
 * (vmm/devices/device_init.h).
 *
 * Input: a flags byte (bit 0: first register up to 8 extra devices, each
 * base u16 and length byte (1 + byte % 32), to fuzz io_bus_register's overlap rule), then
 * records until the input ends: a port selector byte (sel % 4: 0 the UART
 * register sel/4 % 8, 1 i8042 port 0x60 + sel/4 % 5, 2 k = sel/4 % 15: port
 * 0xf0 + k for k < 8, else ACPI port 0x600 + k - 8, 3 a raw u16 port), a byte (bit 0 out, size 1/2/4 by bits 1-2 mod 3) and
 * for an out the value u32.
 *
 * Checked: each byte of an access no one device's range holds goes to
 * the port it addresses, unclaimed reads give all ones, only size bytes are touched,
 * the UART's LCR/MCR/SCR/LSR and the ACPI registers read back what a small
 * shadow model says, a transmitted byte is one written to THR with DLAB
 * and loopback off, IRQ callbacks only report level changes, and a VM stop
 * is final. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../firmware-stub/acpi.h"
#include "../../vmm/devices/control_ports.h"
#include "../../vmm/devices/io_bus.h"
#include "../../guest/layout.h"
#include "../../vmm/devices/serial.h"
#include "fuzz_input.h"
#include "fuzz_harness.h"

struct counters {
    uint64_t tx_bytes, irq_calls;
    int level;
};

static void on_tx(void *ctx, uint8_t byte)
{
    struct counters *c = ctx;
    (void)byte;
    c->tx_bytes++;
}

static void on_irq(void *ctx, unsigned line, int level)
{
    struct counters *c = ctx;
    CHECK(line == GUEST_IRQ_COM1);
    CHECK(level == 0 || level == 1);
    CHECK(level != c->level);   /* a callback means a change */
    c->level = level;
    c->irq_calls++;
}

static void extra_in(void *state, uint16_t off, uint8_t *data, unsigned size)
{
    (void)state, (void)off;
    memset(data, 0x5a, size);
}

/* The UART registers the model tracks. */
struct shadow { uint8_t lcr, mcr, scr; };

static void serial_byte_out(struct shadow *sh, unsigned reg, uint8_t v, uint64_t *expect_tx)
{
    switch (reg) {
    case 0: if (!(sh->lcr & 0x80) && !(sh->mcr & 0x10)) (*expect_tx)++; break;
    case 3: sh->lcr = v; break;
    case 4: sh->mcr = v & 0x1f; break;
    case 7: sh->scr = v; break;
    default: break;
    }
}

static void serial_byte_in(const struct shadow *sh, unsigned reg, uint8_t v)
{
    switch (reg) {
    case 3: CHECK(v == sh->lcr); break;
    case 4: CHECK(v == sh->mcr); break;
    case 5: CHECK(v == 0x60); break;   /* THRE | TEMT: the transmitter is always empty */
    case 7: CHECK(v == sh->scr); break;
    default: break;
    }
}

/* The byte an access of sz bytes at port puts on port reg, or -1. */
static int byte_at(uint16_t port, const uint8_t *buf, unsigned sz, unsigned reg)
{
    return reg >= port && reg < port + sz ? buf[reg - port] : -1;
}

/* The device whose range holds port (above 0xffff: none). */
static const struct io_device *device_at(const struct io_bus *bus, unsigned port)
{
    for (unsigned k = 0; k < bus->n; k++)
        if (port >= bus->dev[k].base && port < (unsigned)bus->dev[k].base + bus->dev[k].len)
            return &bus->dev[k];
    return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_in in = { data, size };
    struct io_bus bus;
    struct serial uart;
    struct control_ports ctl = { .stop = GUEST_RUNNING };
    struct counters cnt = { 0, 0, 0 };
    memset(&bus, 0, sizeof(bus));
    serial_init(&uart, GUEST_IRQ_COM1, on_tx, on_irq, &cnt);
    struct io_device devs[] = { serial_device(&uart, GUEST_PORT_COM1), i8042_data_device(&ctl),
                                i8042_command_device(&ctl), exit_port_device(&ctl), acpi_pm_device(&ctl) };
    for (size_t i = 0; i < sizeof(devs) / sizeof(devs[0]); i++)
        CHECK(io_bus_register(&bus, &devs[i]) == 0);

    uint8_t flags = in_u8(&in);
    if (flags & 1) {
        unsigned n = in_u8(&in) % 9;
        for (unsigned i = 0; i < n; i++) {
            uint16_t base = in_u16(&in);
            uint16_t len = (uint16_t)(1 + in_u8(&in) % 32);
            struct io_device d = { .name = "extra", .base = base, .len = len, .in = (i & 1) ? extra_in : NULL };
            /* Two ranges overlap when they share a port. */
            bool overlaps = false;
            for (unsigned k = 0; k < bus.n; k++) {
                unsigned lo = d.base > bus.dev[k].base ? d.base : bus.dev[k].base;
                unsigned hi1 = (unsigned)d.base + d.len, hi2 = (unsigned)bus.dev[k].base + bus.dev[k].len;
                if (lo < (hi1 < hi2 ? hi1 : hi2))
                    overlaps = true;
            }
            unsigned before = bus.n;
            int rc = io_bus_register(&bus, &d);
            if (rc == 0)
                CHECK(!overlaps && bus.n == before + 1);
            else
                CHECK(bus.n == before && (overlaps || before == IO_BUS_MAX_DEVICES));
        }
    }

    struct shadow sh = { 0, 0, 0 };
    uint8_t pm1_en[2] = { 0, 0 };   /* the PM1 enable register, as written while the VM ran */
    uint64_t expect_tx = 0;
    enum guest_stop stopped = GUEST_RUNNING;
    int status = 0;
    while (in.n) {
        uint8_t sel = in_u8(&in);
        uint16_t port;
        switch (sel % 4) {
        case 0: port = (uint16_t)(GUEST_PORT_COM1 + (sel >> 2) % 8); break;
        case 1: port = (uint16_t)(GUEST_PORT_I8042_DATA + (sel >> 2) % 5); break;
        case 2: {
            unsigned k = (sel >> 2) % 15u;
            port = (uint16_t)(k < 8 ? 0xf0 + k : GUEST_PORT_ACPI_PM1_EVT + k - 8);
            break;
        }
        default: port = in_u16(&in); break;
        }
        uint8_t ds = in_u8(&in);
        bool out = ds & 1;
        static const unsigned sizes[] = { 1, 2, 4 };
        unsigned sz = sizes[(ds >> 1) % 3];
        uint8_t buf[8];
        memset(buf, 0xa5, sizeof(buf));
        if (out) {
            uint32_t v = in_u32(&in);
            memcpy(buf, &v, 4);
        }
        uint8_t before[8];
        memcpy(before, buf, sizeof(buf));

        /* Each byte goes to the device at its own port: the bus splits an
         * access that no one device's range holds (io_bus.h). */
        const struct io_device *owner[4] = { NULL, NULL, NULL, NULL };
        bool any = false;
        for (unsigned i = 0; i < sz; i++)
            any |= (owner[i] = device_at(&bus, (unsigned)port + i)) != NULL;
        uint64_t unclaimed = bus.unclaimed;
        bool claimed = io_bus_access(&bus, port, out, buf, sz);
        CHECK(claimed == any);
        CHECK(bus.unclaimed == unclaimed + !claimed);
        CHECK(!memcmp(buf + sz, before + sz, sizeof(buf) - sz));   /* nothing past the access */
        if (out)
            CHECK(!memcmp(buf, before, sz));                        /* an out does not change its data */
        for (unsigned i = 0; i < sz; i++) {
            const struct io_device *d = owner[i];
            unsigned reg = port + i;
            if (!out && (!d || !d->in))
                CHECK(buf[i] == 0xff);
            else if (d == &bus.dev[0] && out)
                serial_byte_out(&sh, reg - GUEST_PORT_COM1, buf[i], &expect_tx);
            else if (d == &bus.dev[0])
                serial_byte_in(&sh, reg - GUEST_PORT_COM1, buf[i]);
            else if ((d == &bus.dev[1] || d == &bus.dev[2]) && !out)   /* i8042 ports */
                CHECK(buf[i] == 0);
            else if (d == &bus.dev[4]) {   /* ACPI registers: PM1_EN as written, PM1_CNT's SCI_EN set, others 0 */
                unsigned en = reg - (GUEST_PORT_ACPI_PM1_EVT + 2u);
                if (out && en < 2 && stopped == GUEST_RUNNING)
                    pm1_en[en] = buf[i];
                else if (!out)
                    CHECK(buf[i] == (en < 2 ? pm1_en[en] : reg == GUEST_PORT_ACPI_PM1_CNT ? 1 : 0));
            }
        }
        CHECK(cnt.tx_bytes == expect_tx);
        CHECK(cnt.level == uart.state.irq_level);

        /* The first stop wins and stays. */
        if (stopped != GUEST_RUNNING) {
            CHECK(ctl.stop == stopped && ctl.exit_status == status);
        } else if (ctl.stop != GUEST_RUNNING) {
            CHECK(out);
            switch (ctl.stop) {
            case GUEST_RESET:
                CHECK(byte_at(port, buf, sz, GUEST_PORT_I8042_CMD) == 0xfe ||
                      byte_at(port, buf, sz, GUEST_PORT_ACPI_RESET) == GUEST_ACPI_RESET_VALUE);
                break;
            case GUEST_EXIT_PORT:
                CHECK(byte_at(port, buf, sz, GUEST_PORT_EXIT) == ctl.exit_status);
                break;
            case GUEST_POWEROFF: {   /* PM1_CNT's SLP_EN and SLP_TYPx: ACPI 6.4, 4.8.3.2.1 */
                int hi = byte_at(port, buf, sz, GUEST_PORT_ACPI_PM1_CNT + 1);
                CHECK(hi >= 0 && (hi & 0x20) && (hi & 0x1c) >> 2 == GUEST_ACPI_SLP_TYP_S5);
                break;
            }
            default:
                CHECK(0);
            }
            stopped = ctl.stop;
            status = ctl.exit_status;
        }
    }
    return 0;
}
