/* vmm/devices/: serial.c, i8042.c, exit_port.c, acpi_pm.c, io_bus.c, device_init.c, persist.c: the devices as the
 * kernel's drivers probe them, through the port bus the run loop uses.
 * The 8250 sequences follow drivers/tty/serial/8250/8250_port.c
 * (autoconfig, autoconfig_16550a, serial8250_do_startup). */
#include <linux/kvm.h>
#include <string.h>

#include "suites.h"
#include "../../vmm/devices/control_ports.h"
#include "../../vmm/devices/device_init.h"
#include "../../vmm/devices/io_bus.h"
#include "../../vmm/devices/persist.h"
#include "../../guest/layout.h"
#include "../../vmm/devices/serial.h"

#define COM1 GUEST_PORT_COM1
enum { RBR = 0, IER = 1, IIR = 2, FCR = 2, LCR = 3, MCR = 4, LSR = 5, MSR = 6, SCR = 7 };

static struct io_bus bus;
static struct serial uart;
static struct control_ports ctl;
static char tx[64];
static unsigned ntx;
static int irq_level, irq_edges;

static void on_tx(void *ctx, uint8_t b)
{
    (void)ctx;
    if (ntx < sizeof(tx) - 1)
        tx[ntx++] = (char)b;
}

static void on_irq(void *ctx, unsigned line, int level)
{
    (void)ctx;
    ck_assert_uint_eq(line, GUEST_IRQ_COM1);
    irq_level = level;
    irq_edges++;
}

static void setup(void)
{
    memset(&bus, 0, sizeof(bus));
    memset(&ctl, 0, sizeof(ctl));
    memset(tx, 0, sizeof(tx));
    ntx = 0;
    irq_level = 0;
    irq_edges = 0;
    serial_init(&uart, GUEST_IRQ_COM1, on_tx, on_irq, NULL);
    struct io_device devs[] = { serial_device(&uart, COM1), i8042_data_device(&ctl), i8042_command_device(&ctl),
                                exit_port_device(&ctl) };
    for (unsigned i = 0; i < 4; i++)
        ck_assert_int_eq(io_bus_register(&bus, &devs[i]), 0);
}

static uint8_t in8(uint16_t port)
{
    uint8_t v = 0x3c;
    io_bus_access(&bus, port, false, &v, 1);
    return v;
}

static bool out8(uint16_t port, uint8_t v) { return io_bus_access(&bus, port, true, &v, 1); }

/* ---- 8250 ------------------------------------------------------------------------- */

START_TEST(uart_scratch_register_keeps_what_is_written)
{
    out8(COM1 + SCR, 0xa5);
    ck_assert_uint_eq(in8(COM1 + SCR), 0xa5);
    out8(COM1 + SCR, 0x5a);
    ck_assert_uint_eq(in8(COM1 + SCR), 0x5a);
}
END_TEST

/* autoconfig(): IER reads back 0 after 0 and 0x0f after 0x0f; the upper
 * bits do not stick (no XScale UUE bit). */
START_TEST(uart_ier_probe_sees_a_real_8250)
{
    out8(COM1 + IER, 0);
    ck_assert_uint_eq(in8(COM1 + IER) & 0x0f, 0);
    out8(COM1 + IER, 0x0f);
    ck_assert_uint_eq(in8(COM1 + IER) & 0x0f, 0x0f);
    out8(COM1 + IER, 0xff);
    ck_assert_uint_eq(in8(COM1 + IER), 0x0f);
}
END_TEST

START_TEST(uart_lcr_and_divisor_latch)
{
    out8(COM1 + LCR, 0x83);                   /* DLAB, 8N1 */
    ck_assert_uint_eq(in8(COM1 + LCR), 0x83);
    out8(COM1 + RBR, 0x01);                   /* DLL: 115200 baud */
    out8(COM1 + IER, 0x00);                   /* DLM */
    ck_assert_uint_eq(in8(COM1 + RBR), 0x01);
    ck_assert_uint_eq(in8(COM1 + IER), 0x00);
    ck_assert_uint_eq(ntx, 0);                /* divisor writes are not data */
    ck_assert_uint_eq(uart.state.ier, 0);
    out8(COM1 + LCR, 0x03);
    out8(COM1 + IER, 0x05);
    ck_assert_uint_eq(in8(COM1 + IER), 0x05);
    out8(COM1 + LCR, 0x83);
    ck_assert_uint_eq(in8(COM1 + RBR), 0x01);   /* the divisor survived */
}
END_TEST

/* autoconfig(): MCR = LOOP | RTS | OUT2 must read back DCD | CTS in MSR. */
START_TEST(uart_loopback_maps_modem_control_to_status)
{
    out8(COM1 + MCR, 0x10 | 0x0a);
    ck_assert_uint_eq(in8(COM1 + MSR) & 0xf0, 0x90);
    out8(COM1 + MCR, 0x1f);
    ck_assert_uint_eq(in8(COM1 + MSR) & 0xf0, 0xf0);
    out8(COM1 + MCR, 0x10);
    ck_assert_uint_eq(in8(COM1 + MSR) & 0xf0, 0x00);
    out8(COM1 + RBR, 'x');                    /* looped back, not transmitted */
    ck_assert_uint_eq(ntx, 0);
    out8(COM1 + MCR, 0x03);
    ck_assert_uint_eq(in8(COM1 + MSR) & 0xb0, 0xb0);   /* DCD, DSR, CTS outside loopback */
    ck_assert_uint_eq(in8(COM1 + MCR), 0x03);
}
END_TEST

START_TEST(uart_fifo_makes_it_a_16550a)
{
    out8(COM1 + LCR, 0);
    out8(COM1 + FCR, 0x01);
    ck_assert_uint_eq(in8(COM1 + IIR) >> 6, 3);   /* autoconfig: FIFO enabled bits */
    out8(COM1 + FCR, 0);
    ck_assert_uint_eq(in8(COM1 + IIR) >> 6, 0);
    ck_assert_uint_eq(in8(COM1 + LSR) & 0x60, 0x60);   /* THRE, TEMT: always ready */
    ck_assert_uint_eq(in8(COM1 + LSR) & 0x01, 0);      /* no data ready */
}
END_TEST

START_TEST(uart_transmitted_bytes_reach_the_callback)
{
    out8(COM1 + LCR, 0x03);
    const char *msg = "Linux version\r\n";
    for (const char *p = msg; *p; p++) {
        ck_assert_uint_eq(in8(COM1 + LSR) & 0x20, 0x20);
        ck_assert(out8(COM1 + RBR, (uint8_t)*p));
    }
    ck_assert_str_eq(tx, msg);
}
END_TEST

/* serial8250_do_startup's THRE test: enabling THRI raises the interrupt at
 * once (the transmitter is empty); reading IIR clears it. */
START_TEST(uart_thre_interrupt_raised_when_enabled_and_cleared_by_iir)
{
    out8(COM1 + LCR, 0x03);
    out8(COM1 + IER, 0);
    ck_assert_uint_eq(in8(COM1 + IIR) & 0x0f, 0x01);   /* no interrupt pending */
    ck_assert_int_eq(irq_level, 0);
    out8(COM1 + IER, 0x02);
    ck_assert_int_eq(irq_level, 1);
    ck_assert_uint_eq(in8(COM1 + IIR) & 0x0f, 0x02);   /* THRI */
    ck_assert_int_eq(irq_level, 0);
    ck_assert_uint_eq(in8(COM1 + IIR) & 0x0f, 0x01);
    out8(COM1 + RBR, 'a');                             /* the next byte empties THR again */
    ck_assert_int_eq(irq_level, 1);
    out8(COM1 + IER, 0);                               /* masked */
    ck_assert_int_eq(irq_level, 0);
    ck_assert_uint_eq(in8(COM1 + IIR) & 0x0f, 0x01);
    out8(COM1 + IER, 0x02);                            /* re-enabling raises it again */
    ck_assert_int_eq(irq_level, 1);
    ck_assert_uint_eq(in8(COM1 + IIR) & 0x0f, 0x02);
    ck_assert_int_eq(irq_edges, 6);
}
END_TEST

START_TEST(uart_without_thri_never_interrupts)
{
    out8(COM1 + IER, 0x01);   /* receive interrupts only */
    for (int i = 0; i < 4; i++)
        out8(COM1 + RBR, 'z');
    ck_assert_int_eq(irq_edges, 0);
    ck_assert_uint_eq(in8(COM1 + IIR) & 0x0f, 0x01);
}
END_TEST

/* --exec-output's COM2: a second instance on the same bus, with its own
 * bytes, registers and IRQ line. */
static char tx2[64];
static unsigned ntx2, irq2_line;
static int irq2_level;

static void on_tx2(void *ctx, uint8_t b)
{
    (void)ctx;
    if (ntx2 < sizeof(tx2) - 1)
        tx2[ntx2++] = (char)b;
}

static void on_irq2(void *ctx, unsigned line, int level)
{
    (void)ctx;
    irq2_line = line;
    irq2_level = level;
}

START_TEST(uart_com2_is_a_second_instance_with_its_own_irq_line)
{
    static struct serial com2;
    memset(tx2, 0, sizeof(tx2));
    ntx2 = 0;
    serial_init(&com2, GUEST_IRQ_COM2, on_tx2, on_irq2, NULL);
    struct io_device d = serial_device(&com2, GUEST_PORT_COM2);
    ck_assert_int_eq(io_bus_register(&bus, &d), 0);
    out8(GUEST_PORT_COM2 + IER, 0x02);
    ck_assert_uint_eq(irq2_line, 3);
    ck_assert_int_eq(irq2_level, 1);
    ck_assert_int_eq(irq_edges, 0);                     /* COM1's line did not move */
    out8(GUEST_PORT_COM2 + SCR, 0x5a);
    ck_assert_uint_eq(in8(COM1 + SCR), 0);              /* nor did its registers */
    for (const char *p = "out\n"; *p; p++)
        out8(GUEST_PORT_COM2 + RBR, (uint8_t)*p);
    out8(COM1 + RBR, 'c');
    ck_assert_str_eq(tx2, "out\n");
    ck_assert_str_eq(tx, "c");
    ck_assert_uint_eq(in8(GUEST_PORT_COM2 + IIR) & 0x0f, 0x02);
    ck_assert_int_eq(irq2_level, 0);
    ck_assert_uint_eq(in8(GUEST_PORT_COM2 + SCR), 0x5a);
}
END_TEST

/* ---- control ports --------------------------------------------------------------- */

START_TEST(i8042_reset_command_sets_guest_reset)
{
    ck_assert_uint_eq(in8(GUEST_PORT_I8042_CMD) & 0x02, 0);   /* input buffer empty: kb_wait() passes */
    out8(GUEST_PORT_I8042_DATA, 0xfe);                        /* data, not a command */
    ck_assert_int_eq(ctl.stop, GUEST_RUNNING);
    out8(GUEST_PORT_I8042_CMD, 0xd1);                         /* another command */
    ck_assert_int_eq(ctl.stop, GUEST_RUNNING);
    ck_assert(out8(GUEST_PORT_I8042_CMD, 0xfe));
    ck_assert_int_eq(ctl.stop, GUEST_RESET);
    out8(GUEST_PORT_EXIT, 3);                                 /* the first stop wins */
    ck_assert_int_eq(ctl.stop, GUEST_RESET);
    /* 0x61-0x63 are not the i8042's: the in-kernel PIT serves 0x61. */
    for (uint16_t port = 0x61; port <= 0x63; port++)
        ck_assert(!out8(port, 0));
}
END_TEST

START_TEST(exit_port_sets_the_exit_status)
{
    ck_assert(out8(GUEST_PORT_EXIT, 42));
    ck_assert_int_eq(ctl.stop, GUEST_EXIT_PORT);
    ck_assert_int_eq(ctl.exit_status, 42);
    out8(GUEST_PORT_EXIT, 7);
    ck_assert_int_eq(ctl.exit_status, 42);
    out8(GUEST_PORT_I8042_CMD, 0xfe);
    ck_assert_int_eq(ctl.stop, GUEST_EXIT_PORT);
    ck_assert_uint_eq(in8(GUEST_PORT_EXIT), 0xff);            /* write-only: reads float high */
}
END_TEST

static bool out16(uint16_t port, uint16_t v)
{
    uint8_t b[2] = { (uint8_t)v, (uint8_t)(v >> 8) };
    return io_bus_access(&bus, port, true, b, 2);
}

/* The FADT's fixed hardware as ACPICA drives it (drivers/acpi/acpica/
 * hwsleep.c, acpi_hw_legacy_sleep): PM1_CNT read, SLP_TYPx written, then
 * SLP_TYPx with SLP_EN as one 16-bit write, which is S5. */
START_TEST(acpi_pm1_control_powers_off_on_s5)
{
    struct io_device d = acpi_pm_device(&ctl);
    ck_assert_int_eq(io_bus_register(&bus, &d), 0);
    uint8_t evt[4] = { 0xaa, 0xaa, 0xaa, 0xaa };
    ck_assert(io_bus_access(&bus, GUEST_PORT_ACPI_PM1_EVT, false, evt, 4));
    ck_assert_uint_eq(evt[0] | evt[1] | evt[2] | evt[3], 0);   /* no fixed event, none enabled */
    ck_assert(out16(GUEST_PORT_ACPI_PM1_EVT + 2, 1 << 5));    /* GBL_EN, as acpi_enable_event sets it */
    ck_assert(io_bus_access(&bus, GUEST_PORT_ACPI_PM1_EVT, false, evt, 4));
    ck_assert_uint_eq(evt[0] | evt[1] << 8 | evt[2] << 16 | (uint32_t)evt[3] << 24, 0x00200000u);   /* read back */
    uint8_t cnt[2] = { 0, 0xaa };
    ck_assert(io_bus_access(&bus, GUEST_PORT_ACPI_PM1_CNT, false, cnt, 2));
    ck_assert_uint_eq(cnt[0] | cnt[1] << 8, 0x0001);           /* SCI_EN: always in ACPI mode */
    ck_assert(out16(GUEST_PORT_ACPI_PM1_CNT, 0x0001 | 5 << 10));   /* SLP_TYPx alone */
    ck_assert(out16(GUEST_PORT_ACPI_PM1_CNT, 0x0001 | 3 << 10 | 1 << 13));   /* SLP_EN for S3: not supported */
    out8(GUEST_PORT_ACPI_RESET, GUEST_ACPI_RESET_VALUE - 1);
    ck_assert_int_eq(ctl.stop, GUEST_RUNNING);
    ck_assert(out16(GUEST_PORT_ACPI_PM1_CNT, 0x0001 | GUEST_ACPI_SLP_TYP_S5 << 10 | 1 << 13));
    ck_assert_int_eq(ctl.stop, GUEST_POWEROFF);
    out8(GUEST_PORT_ACPI_RESET, GUEST_ACPI_RESET_VALUE);       /* the first stop wins */
    ck_assert_int_eq(ctl.stop, GUEST_POWEROFF);
}
END_TEST

/* A byte write of PM1_CNT's high byte is S5 as well; RESET_VALUE resets. */
START_TEST(acpi_pm1_control_byte_write_and_reset_register)
{
    struct io_device d = acpi_pm_device(&ctl);
    ck_assert_int_eq(io_bus_register(&bus, &d), 0);
    ck_assert(out8(GUEST_PORT_ACPI_PM1_CNT + 1, GUEST_ACPI_SLP_TYP_S5 << 2 | 1 << 5));
    ck_assert_int_eq(ctl.stop, GUEST_POWEROFF);
    memset(&ctl, 0, sizeof(ctl));
    ck_assert(out8(GUEST_PORT_ACPI_RESET, GUEST_ACPI_RESET_VALUE));
    ck_assert_int_eq(ctl.stop, GUEST_RESET);
}
END_TEST

/* ---- the bus ---------------------------------------------------------------------- */

static void nop_out(void *s, uint16_t off, const uint8_t *d, unsigned n) { (void)s, (void)off, (void)d, (void)n; }

START_TEST(io_bus_refuses_overlapping_ranges)
{
    struct io_device d = { .name = "other", .base = COM1 + 4, .len = 4, .out = nop_out };
    ck_assert_int_eq(io_bus_register(&bus, &d), -1);
    d.base = COM1 - 2;
    ck_assert_int_eq(io_bus_register(&bus, &d), -1);   /* overlaps the first bytes */
    d.base = COM1 - 4;
    d.len = 16;
    ck_assert_int_eq(io_bus_register(&bus, &d), -1);   /* contains it */
    d.base = COM1 + 8;
    d.len = 8;
    ck_assert_int_eq(io_bus_register(&bus, &d), 0);    /* adjacent is fine */
    d.base = COM1 - 8;
    ck_assert_int_eq(io_bus_register(&bus, &d), 0);
    ck_assert_uint_eq(bus.n, 6);   /* the four of the fixture, two more */
}
END_TEST

START_TEST(io_bus_unclaimed_ports_read_all_ones)
{
    uint8_t b = 0;
    uint8_t w[4] = { 0 };
    ck_assert(!io_bus_access(&bus, 0x2f8, false, &b, 1));   /* COM2: nobody */
    ck_assert_uint_eq(b, 0xff);
    ck_assert(!io_bus_access(&bus, 0xcf8, false, w, 4));
    ck_assert_uint_eq(w[0] & w[1] & w[2] & w[3], 0xff);
    ck_assert(!io_bus_access(&bus, 0x80, true, &b, 1));     /* writes vanish */
    ck_assert_uint_eq(bus.unclaimed, 3);
    ck_assert(io_bus_access(&bus, COM1 + SCR, false, &b, 1));
    ck_assert_uint_eq(bus.unclaimed, 3);
}
END_TEST

START_TEST(io_bus_has_a_device_limit_and_reaches_port_ffff)
{
    for (unsigned i = bus.n; i < IO_BUS_MAX_DEVICES - 1; i++) {
        struct io_device d = { .name = "filler", .base = (uint16_t)(0x1000 + 0x10 * i), .len = 0x10, .out = nop_out };
        ck_assert_int_eq(io_bus_register(&bus, &d), 0);
    }
    struct io_device top = { .name = "top", .base = 0xfff8, .len = 8, .out = nop_out };
    ck_assert_int_eq(io_bus_register(&bus, &top), 0);
    uint8_t b = 0;
    ck_assert(io_bus_access(&bus, 0xffff, false, &b, 1));
    ck_assert_uint_eq(b, 0xff);   /* no in handler */
    struct io_device more = { .name = "more", .base = 0x2000, .len = 1, .out = nop_out };
    ck_assert_int_eq(io_bus_register(&bus, &more), -1);
}
END_TEST

/* A shared state is kept once; a kept state must fit the snapshot. */
START_TEST(io_bus_keeps_a_shared_state_once)
{
    ck_assert_uint_eq(bus.nkept, 2);   /* the fixture's UART and its control ports, shared by three devices */
    ck_assert_uint_eq(bus.kept_bytes, sizeof(struct serial_state) + sizeof(struct control_ports));
    struct io_device d = acpi_pm_device(&ctl);
    ck_assert_int_eq(io_bus_register(&bus, &d), 0);
    ck_assert_uint_eq(bus.nkept, 2);
    static uint8_t big[IO_BUS_KEPT_BYTES];
    d = (struct io_device){ .name = "big", .base = 0x1000, .len = 1, .out = nop_out, .kept = { big, sizeof(big), NULL } };
    ck_assert_int_eq(io_bus_register(&bus, &d), -1);
    d.kept.size = 1;
    d.kept.data = &ctl;   /* kept already, with its own size */
    ck_assert_int_eq(io_bus_register(&bus, &d), -1);
    ck_assert_uint_eq(bus.n, 5);
}
END_TEST

/* The devices as the init list puts them on a bus, wired to these. */
static struct io_bus host_bus;
static struct control_ports host_ctl;
static char console[64], exec_output[64];
static unsigned nconsole, nexec_output, irq_lines;   /* irq_lines: bit n, line n is up */

static void console_tx(void *ctx, uint8_t b)
{
    (void)ctx;
    if (nconsole < sizeof(console) - 1)
        console[nconsole++] = (char)b;
}

static void exec_output_tx(void *ctx, uint8_t b)
{
    (void)ctx;
    if (nexec_output < sizeof(exec_output) - 1)
        exec_output[nexec_output++] = (char)b;
}

static void host_irq(void *ctx, unsigned line, int level)
{
    (void)ctx;
    irq_lines = level ? irq_lines | 1u << line : irq_lines & ~(1u << line);
}

static void attach(bool com2)
{
    memset(&host_bus, 0, sizeof(host_bus));
    memset(&host_ctl, 0, sizeof(host_ctl));
    memset(console, 0, sizeof(console));
    memset(exec_output, 0, sizeof(exec_output));
    nconsole = nexec_output = irq_lines = 0;
    const struct device_host host = { .bus = &host_bus, .ctl = &host_ctl, .irq = host_irq, .console_tx = console_tx,
                                      .exec_output_tx = com2 ? exec_output_tx : NULL };
    struct io_device refused;
    ck_assert_int_eq(devices_init(&host, &refused), 0);
}

static uint8_t host_in8(uint16_t port)
{
    uint8_t v = 0x3c;
    io_bus_access(&host_bus, port, false, &v, 1);
    return v;
}

static void host_out8(uint16_t port, uint8_t v) { io_bus_access(&host_bus, port, true, &v, 1); }

/* A UART's registers, as a guest reads them back. */
struct uart_regs { uint8_t ier, lcr, mcr, scr, dll, dlm; };

static struct uart_regs read_uart(uint16_t base)
{
    struct uart_regs r = { .lcr = host_in8(base + LCR) };
    r.ier = host_in8(base + IER);
    r.mcr = host_in8(base + MCR);
    r.scr = host_in8(base + SCR);
    host_out8(base + LCR, r.lcr | 0x80);   /* DLAB: the divisor latch */
    r.dll = host_in8(base + RBR);
    r.dlm = host_in8(base + IER);
    host_out8(base + LCR, r.lcr);
    return r;
}

/* Program a UART as a driver would: divisor, line, modem, FIFO, scratch,
 * and the THRE interrupt (raised at once: the transmitter is empty). */
static void program_uart(uint16_t base, uint8_t seed)
{
    host_out8(base + LCR, 0x80);
    host_out8(base + RBR, seed);
    host_out8(base + IER, (uint8_t)(seed + 1));
    host_out8(base + LCR, seed & 0x3f);
    host_out8(base + MCR, seed & 0x0b);
    host_out8(base + FCR, 0x01);
    host_out8(base + SCR, seed ^ 0xa5);
    host_out8(base + IER, 0x02 | (seed & 0x01));
}

START_TEST(devices_init_puts_each_device_on_the_bus)
{
    attach(false);
    ck_assert_uint_eq(host_bus.n, 5);   /* COM1, i8042 data and command, exit port, ACPI PM */
    ck_assert_uint_eq(host_bus.nkept, 2);
    ck_assert_uint_eq(host_in8(GUEST_PORT_COM2 + SCR), 0xff);   /* no COM2 without --exec-output */
    host_out8(COM1, 'a');
    ck_assert_str_eq(console, "a");
    host_out8(GUEST_PORT_I8042_CMD, 0xfe);
    ck_assert_int_eq(host_ctl.stop, GUEST_RESET);

    attach(true);
    ck_assert_uint_eq(host_bus.n, 6);
    ck_assert_uint_eq(host_bus.nkept, 3);
    host_out8(GUEST_PORT_COM2, 'b');
    host_out8(COM1, 'c');
    ck_assert_str_eq(exec_output, "b");
    ck_assert_str_eq(console, "c");
    host_out8(GUEST_PORT_COM2 + IER, 0x02);
    ck_assert_uint_eq(irq_lines, 1u << GUEST_IRQ_COM2);
}
END_TEST

/* A --fault-sweep cell restores the snapshot's devices through the bus:
 * each device, COM2 included, reads back what it held when the snapshot
 * was taken, whatever the previous cell did, and sends to the same
 * callbacks. */
START_TEST(devices_restore_through_the_bus)
{
    attach(true);
    program_uart(COM1, 0x11);
    program_uart(GUEST_PORT_COM2, 0x22);
    host_in8(0x80);                           /* an unclaimed access */
    const struct uart_regs com1 = read_uart(COM1), com2 = read_uart(GUEST_PORT_COM2);
    ck_assert_uint_eq(com2.scr, 0x22 ^ 0xa5);
    ck_assert_uint_eq(com2.dll, 0x22);
    const unsigned lines = irq_lines;
    ck_assert_uint_eq(lines, 1u << GUEST_IRQ_COM1 | 1u << GUEST_IRQ_COM2);
    static struct device_snapshot snap, again;
    devices_save(&host_bus, &snap);
    ck_assert_uint_eq(snap.len, 2 * sizeof(struct serial_state) + sizeof(struct control_ports));
    ck_assert_uint_eq(snap.unclaimed, 1);

    for (unsigned cell = 0; cell < 3; cell++) {
        program_uart(COM1, 0x44);
        program_uart(GUEST_PORT_COM2, 0x33);
        host_in8(GUEST_PORT_COM2 + IIR);     /* takes COM2's THRE interrupt */
        host_out8(GUEST_PORT_EXIT, 7);
        host_in8(0x80);
        ck_assert_int_eq(host_ctl.stop, GUEST_EXIT_PORT);
        const struct uart_regs c1 = read_uart(COM1), c2 = read_uart(GUEST_PORT_COM2);
        for (size_t i = 0; i < sizeof(c1); i++) {   /* every register changed */
            ck_assert_uint_ne(((const uint8_t *)&c1)[i], ((const uint8_t *)&com1)[i]);
            ck_assert_uint_ne(((const uint8_t *)&c2)[i], ((const uint8_t *)&com2)[i]);
        }
        ck_assert_int_eq(devices_restore(&host_bus, &snap), 0);
        devices_save(&host_bus, &again);
        ck_assert_uint_eq(again.len, snap.len);
        ck_assert_uint_eq(again.unclaimed, snap.unclaimed);
        ck_assert(!memcmp(again.bytes, snap.bytes, snap.len));
        ck_assert_int_eq(host_ctl.stop, GUEST_RUNNING);
        const struct uart_regs r1 = read_uart(COM1), r2 = read_uart(GUEST_PORT_COM2);
        ck_assert(!memcmp(&r1, &com1, sizeof(r1)));
        ck_assert(!memcmp(&r2, &com2, sizeof(r2)));
        irq_lines = lines;   /* the restored irqchips hold the lines (kvm/snapshot.h) */
    }
    nconsole = nexec_output = 0;
    host_out8(COM1, 'x');
    host_out8(GUEST_PORT_COM2, 'y');
    ck_assert_int_eq(console[0], 'x');
    ck_assert_int_eq(exec_output[0], 'y');
}
END_TEST

/* A snapshot of other devices is not restored, in part or at all. */
START_TEST(devices_restore_refuses_another_bus)
{
    attach(true);
    static struct device_snapshot with_com2;
    devices_save(&host_bus, &with_com2);
    attach(false);
    host_out8(COM1 + SCR, 0x77);
    ck_assert_int_eq(devices_restore(&host_bus, &with_com2), -1);
    ck_assert_uint_eq(host_in8(COM1 + SCR), 0x77);
}
END_TEST

/* Where the kept state at data starts in a snapshot of host_bus. */
static size_t kept_at(const void *data)
{
    size_t at = 0;
    for (unsigned i = 0; i < host_bus.nkept && host_bus.kept[i].data != data; i++)
        at += host_bus.kept[i].size;
    ck_assert_uint_lt(at, host_bus.kept_bytes);
    return at;
}

/* A --snapshot state file is any bytes with a CRC: a kept state no device
 * could have (a bool that is neither 0 nor 1, an exit status no byte
 * written to the exit port gives, a stop reason out of range) is not
 * restored, in part or at all. */
START_TEST(devices_restore_refuses_states_no_device_has)
{
    attach(false);
    static struct device_snapshot good, bad;
    devices_save(&host_bus, &good);
    const size_t uart = kept_at(host_bus.kept[0].data == &host_ctl ? host_bus.kept[1].data : host_bus.kept[0].data);
    const size_t ctl = kept_at(&host_ctl);
    const struct control_ports out_of_range[] = { { .stop = GUEST_EXIT_PORT, .exit_status = 300 },
                                                  { .stop = GUEST_EXIT_PORT, .exit_status = -1 },
                                                  { .stop = (enum guest_stop)9 } };
    const size_t bools[] = { offsetof(struct serial_state, thri_pending), offsetof(struct serial_state, irq_level) };
    host_out8(COM1 + SCR, 0x77);
    for (size_t i = 0; i < sizeof(bools) / sizeof(bools[0]) + sizeof(out_of_range) / sizeof(out_of_range[0]); i++) {
        bad = good;
        if (i < sizeof(bools) / sizeof(bools[0]))
            bad.bytes[uart + bools[i]] = 2;
        else
            memcpy(bad.bytes + ctl, &out_of_range[i - sizeof(bools) / sizeof(bools[0])], sizeof(struct control_ports));
        ck_assert_int_eq(devices_restore(&host_bus, &bad), -1);
        ck_assert_uint_eq(host_in8(COM1 + SCR), 0x77);
        ck_assert_int_eq(host_ctl.stop, GUEST_RUNNING);
    }
    ck_assert_int_eq(devices_restore(&host_bus, &good), 0);
}
END_TEST

/* --snapshot's command: queued bytes raise DR in LSR and, with RDI
 * enabled, the interrupt, which ranks above THRE in IIR; reading RBR
 * takes them in order, and the line drops with the last one
 * (serial8250_handle_irq, serial8250_rx_chars). */
START_TEST(uart_received_bytes_are_read_in_order_with_their_interrupt)
{
    out8(COM1 + LCR, 0x03);
    out8(COM1 + IER, 0x03);                            /* RDI and THRI */
    ck_assert_uint_eq(in8(COM1 + IIR) & 0x0f, 0x02);   /* THRE first: nothing received yet */
    ck_assert_uint_eq(in8(COM1 + LSR) & 0x01, 0);
    ck_assert(serial_receive(&uart, "ok\n", 3));
    ck_assert_int_eq(irq_level, 1);
    out8(COM1 + RBR, 'a');                             /* THRE pending again */
    ck_assert_uint_eq(in8(COM1 + IIR) & 0x0f, 0x04);   /* received data ranks above THRE */
    char got[4] = { 0 };
    for (int i = 0; in8(COM1 + LSR) & 0x01; i++)
        got[i] = (char)in8(COM1 + RBR);
    ck_assert_str_eq(got, "ok\n");
    ck_assert_uint_eq(in8(COM1 + IIR) & 0x0f, 0x02);
    ck_assert_int_eq(irq_level, 0);
    ck_assert_uint_eq(in8(COM1 + RBR), 0);             /* nothing left */
}
END_TEST

START_TEST(uart_receive_refuses_what_does_not_fit)
{
    static uint8_t big[SERIAL_RX_MAX];
    out8(COM1 + IER, 0);
    ck_assert(serial_receive(&uart, big, sizeof(big) - 1));
    ck_assert_int_eq(irq_level, 0);                    /* RDI masked */
    ck_assert(!serial_receive(&uart, "xy", 2));
    ck_assert(serial_receive(&uart, "x", 1));
    out8(COM1 + IER, 0x01);
    ck_assert_int_eq(irq_level, 1);
}
END_TEST

/* An access that runs past a device's last port, or starts before its
 * first, goes byte by byte to the ports it covers, as a wide cycle to
 * 8-bit ISA devices does: inw at the UART's scratch register (0x3ff) does
 * not wrap to its receive buffer and take a byte the guest has not read,
 * outw at 0x63 sends its high byte to the i8042's command port, and
 * nothing wraps past 0xffff to port 0. */
START_TEST(io_bus_splits_accesses_across_range_ends)
{
    uint8_t w[4];
    out8(COM1 + SCR, 0x5a);
    ck_assert(serial_receive(&uart, "k", 1));
    ck_assert(io_bus_access(&bus, COM1 + SCR, false, w, 2));
    ck_assert_uint_eq(w[0], 0x5a);
    ck_assert_uint_eq(w[1], 0xff);                      /* 0x400: nobody */
    ck_assert_uint_eq(in8(COM1 + LSR) & 0x01, 0x01);    /* the byte still waits */
    ck_assert_uint_eq(in8(COM1 + RBR), 'k');
    ck_assert_uint_eq(bus.unclaimed, 0);                /* a device took part of it */

    ck_assert(out16(GUEST_PORT_I8042_CMD - 1, 0xfe00));
    ck_assert_int_eq(ctl.stop, GUEST_RESET);

    struct io_device top = { .name = "top", .base = 0xfff8, .len = 8, .out = nop_out };
    ck_assert_int_eq(io_bus_register(&bus, &top), 0);
    struct io_device bottom = { .name = "bottom", .base = 0, .len = 8, .out = nop_out };
    ck_assert_int_eq(io_bus_register(&bus, &bottom), 0);
    memset(w, 0, sizeof(w));
    ck_assert(io_bus_access(&bus, 0xfffe, false, w, 4));
    ck_assert_uint_eq(w[0] & w[1] & w[2] & w[3], 0xff);
    ck_assert(!io_bus_access(&bus, 0x3f6, false, w, 2));   /* 0x3f6 and 0x3f7: nobody */
    ck_assert_uint_eq(bus.unclaimed, 1);
}
END_TEST

Suite *devices_suite(void)
{
    Suite *s = suite_create("devices");
    TCase *tc = tcase_create("serial");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, uart_scratch_register_keeps_what_is_written);
    tcase_add_test(tc, uart_ier_probe_sees_a_real_8250);
    tcase_add_test(tc, uart_lcr_and_divisor_latch);
    tcase_add_test(tc, uart_loopback_maps_modem_control_to_status);
    tcase_add_test(tc, uart_fifo_makes_it_a_16550a);
    tcase_add_test(tc, uart_transmitted_bytes_reach_the_callback);
    tcase_add_test(tc, uart_thre_interrupt_raised_when_enabled_and_cleared_by_iir);
    tcase_add_test(tc, uart_without_thri_never_interrupts);
    tcase_add_test(tc, uart_com2_is_a_second_instance_with_its_own_irq_line);
    tcase_add_test(tc, uart_received_bytes_are_read_in_order_with_their_interrupt);
    tcase_add_test(tc, uart_receive_refuses_what_does_not_fit);
    suite_add_tcase(s, tc);

    tc = tcase_create("control-ports");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, i8042_reset_command_sets_guest_reset);
    tcase_add_test(tc, exit_port_sets_the_exit_status);
    tcase_add_test(tc, acpi_pm1_control_powers_off_on_s5);
    tcase_add_test(tc, acpi_pm1_control_byte_write_and_reset_register);
    suite_add_tcase(s, tc);

    tc = tcase_create("io-bus");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, io_bus_refuses_overlapping_ranges);
    tcase_add_test(tc, io_bus_unclaimed_ports_read_all_ones);
    tcase_add_test(tc, io_bus_has_a_device_limit_and_reaches_port_ffff);
    tcase_add_test(tc, io_bus_splits_accesses_across_range_ends);
    suite_add_tcase(s, tc);

    tc = tcase_create("persist");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, io_bus_keeps_a_shared_state_once);
    tcase_add_test(tc, devices_init_puts_each_device_on_the_bus);
    tcase_add_test(tc, devices_restore_through_the_bus);
    tcase_add_test(tc, devices_restore_refuses_another_bus);
    tcase_add_test(tc, devices_restore_refuses_states_no_device_has);
    suite_add_tcase(s, tc);
    return s;
}
