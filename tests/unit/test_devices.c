/* vmm/devices/: serial.c, i8042.c, exit_port.c, acpi_pm.c, io_bus.c, persist.c: the devices as the
 * kernel's drivers probe them, through the port bus the run loop uses.
 * The 8250 sequences follow drivers/tty/serial/8250/8250_port.c
 * (autoconfig, autoconfig_16550a, serial8250_do_startup). */
#include <linux/kvm.h>
#include <string.h>

#include "suites.h"
#include "../../vmm/devices/control_ports.h"
#include "../../vmm/devices/io_bus.h"
#include "../../vmm/devices/persist.h"
#include "../../guest/layout.h"
#include "../../vmm/devices/serial.h"

#define COM1 PORT_SERIAL_COM1
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
    ck_assert_uint_eq(line, IRQ_SERIAL_COM1);
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
    serial_init(&uart, IRQ_SERIAL_COM1, on_tx, on_irq, NULL);
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
    serial_init(&com2, IRQ_SERIAL_COM2, on_tx2, on_irq2, NULL);
    struct io_device d = serial_device(&com2, PORT_SERIAL_COM2);
    ck_assert_int_eq(io_bus_register(&bus, &d), 0);
    out8(PORT_SERIAL_COM2 + IER, 0x02);
    ck_assert_uint_eq(irq2_line, 3);
    ck_assert_int_eq(irq2_level, 1);
    ck_assert_int_eq(irq_edges, 0);                     /* COM1's line did not move */
    out8(PORT_SERIAL_COM2 + SCR, 0x5a);
    ck_assert_uint_eq(in8(COM1 + SCR), 0);              /* nor did its registers */
    for (const char *p = "out\n"; *p; p++)
        out8(PORT_SERIAL_COM2 + RBR, (uint8_t)*p);
    out8(COM1 + RBR, 'c');
    ck_assert_str_eq(tx2, "out\n");
    ck_assert_str_eq(tx, "c");
    ck_assert_uint_eq(in8(PORT_SERIAL_COM2 + IIR) & 0x0f, 0x02);
    ck_assert_int_eq(irq2_level, 0);
    ck_assert_uint_eq(in8(PORT_SERIAL_COM2 + SCR), 0x5a);
}
END_TEST

/* ---- control ports --------------------------------------------------------------- */

START_TEST(i8042_reset_command_sets_guest_reset)
{
    ck_assert_uint_eq(in8(PORT_I8042_CMD) & 0x02, 0);   /* input buffer empty: kb_wait() passes */
    out8(PORT_I8042_DATA, 0xfe);                        /* data, not a command */
    ck_assert_int_eq(ctl.stop, GUEST_RUNNING);
    out8(PORT_I8042_CMD, 0xd1);                         /* another command */
    ck_assert_int_eq(ctl.stop, GUEST_RUNNING);
    ck_assert(out8(PORT_I8042_CMD, 0xfe));
    ck_assert_int_eq(ctl.stop, GUEST_RESET);
    out8(PORT_EXIT, 3);                                 /* the first stop wins */
    ck_assert_int_eq(ctl.stop, GUEST_RESET);
    /* 0x61-0x63 are not the i8042's: the in-kernel PIT serves 0x61. */
    for (uint16_t port = 0x61; port <= 0x63; port++)
        ck_assert(!out8(port, 0));
}
END_TEST

START_TEST(exit_port_sets_the_exit_status)
{
    ck_assert(out8(PORT_EXIT, 42));
    ck_assert_int_eq(ctl.stop, GUEST_EXIT_PORT);
    ck_assert_int_eq(ctl.exit_status, 42);
    out8(PORT_EXIT, 7);
    ck_assert_int_eq(ctl.exit_status, 42);
    out8(PORT_I8042_CMD, 0xfe);
    ck_assert_int_eq(ctl.stop, GUEST_EXIT_PORT);
    ck_assert_uint_eq(in8(PORT_EXIT), 0xff);            /* write-only: reads float high */
}
END_TEST

/* ---- the bus ---------------------------------------------------------------------- */

static void nop_out(void *s, uint16_t off, const uint8_t *d, unsigned n) { (void)s, (void)off, (void)d, (void)n; }

START_TEST(io_bus_refuses_overlapping_ranges)
{
    struct io_device d = { "other", COM1 + 4, 4, NULL, nop_out, NULL };
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
        struct io_device d = { "filler", (uint16_t)(0x1000 + 0x10 * i), 0x10, NULL, nop_out, NULL };
        ck_assert_int_eq(io_bus_register(&bus, &d), 0);
    }
    struct io_device top = { "top", 0xfff8, 8, NULL, nop_out, NULL };
    ck_assert_int_eq(io_bus_register(&bus, &top), 0);
    uint8_t b = 0;
    ck_assert(io_bus_access(&bus, 0xffff, false, &b, 1));
    ck_assert_uint_eq(b, 0xff);   /* no in handler */
    struct io_device more = { "more", 0x2000, 1, NULL, nop_out, NULL };
    ck_assert_int_eq(io_bus_register(&bus, &more), -1);
}
END_TEST

/* A --fault-sweep cell restores the snapshot's device states and run
 * counters: what the previous cell did is gone, and the callbacks stay. */
static struct console_line text;
static struct run_counters counters;

static void run_a_while(uint8_t scr, uint64_t exits, unsigned fallback, const char *line)
{
    out8(COM1 + SCR, scr);
    out8(COM1 + IER, 0x02);   /* THRI: the interrupt line goes up */
    counters.exits[KVM_EXIT_IO] += exits;
    counters.hypercalls += exits / 2;
    counters.fallbacks++;
    counters.fallback_reported[fallback] = true;
    for (const char *p = line; *p; p++)
        console_line_byte(&text, &(struct line_consumers){ .n = 0 }, (uint8_t)*p);
}

START_TEST(devices_restore_their_state_and_the_run_counters)
{
    const struct device_set devs = { &uart, &ctl, &text, &counters };
    memset(&text, 0, sizeof(text));
    memset(&counters, 0, sizeof(counters));
    struct device_states snap;
    run_a_while(0x11, 10, 1, "EFI stub: booting\n");
    devices_save(&devs, &snap);
    const struct run_counters at_snapshot = counters;

    for (unsigned cell = 0; cell < 3; cell++) {
        run_a_while(0x22, 1000, 2, "Linux version 6.12\nRun /init");
        out8(PORT_EXIT, 7);
        ck_assert_int_eq(ctl.stop, GUEST_EXIT_PORT);
        devices_restore(&devs, &snap);
        /* Each cell starts where the snapshot was, not where the last cell ended. */
        ck_assert_int_eq(memcmp(&counters, &at_snapshot, sizeof(counters)), 0);
        ck_assert_uint_eq(counters.exits[KVM_EXIT_IO], 10);
        ck_assert(counters.fallback_reported[1] && !counters.fallback_reported[2]);
        ck_assert_uint_eq(in8(COM1 + SCR), 0x11);
        ck_assert_int_eq(ctl.stop, GUEST_RUNNING);
        ck_assert_str_eq(console_line_current(&text), "EFI stub: booting");
    }
    /* The restored UART still sends to the same callback. */
    ntx = 0;
    out8(COM1, 'x');
    ck_assert_uint_eq(ntx, 1);
    ck_assert_int_eq(tx[0], 'x');
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
    suite_add_tcase(s, tc);

    tc = tcase_create("control-ports");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, i8042_reset_command_sets_guest_reset);
    tcase_add_test(tc, exit_port_sets_the_exit_status);
    suite_add_tcase(s, tc);

    tc = tcase_create("io-bus");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, io_bus_refuses_overlapping_ranges);
    tcase_add_test(tc, io_bus_unclaimed_ports_read_all_ones);
    tcase_add_test(tc, io_bus_has_a_device_limit_and_reaches_port_ffff);
    suite_add_tcase(s, tc);

    tc = tcase_create("persist");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, devices_restore_their_state_and_the_run_counters);
    suite_add_tcase(s, tc);
    return s;
}
