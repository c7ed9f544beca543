/* Register names and bits as in the 8250/16550 datasheets (and the
 * kernel's include/uapi/linux/serial_reg.h). */
#include "serial.h"

#include <string.h>

#include "device_init.h"
#include "../../guest/layout.h"

#define UART_RX   0   /* in, DLAB=0 */
#define UART_TX   0   /* out, DLAB=0 */
#define UART_IER  1
#define UART_IIR  2   /* in */
#define UART_FCR  2   /* out */
#define UART_LCR  3
#define UART_MCR  4
#define UART_LSR  5
#define UART_MSR  6
#define UART_SCR  7

#define UART_IER_RDI     0x01
#define UART_IER_THRI    0x02
#define UART_IIR_NO_INT  0x01
#define UART_IIR_THRI    0x02
#define UART_IIR_RDI     0x04
#define UART_IIR_FIFO    0xc0
#define UART_FCR_ENABLE_FIFO 0x01
#define UART_LCR_DLAB    0x80
#define UART_MCR_LOOP    0x10
#define UART_LSR_TEMT    0x40
#define UART_LSR_THRE    0x20
#define UART_LSR_DR      0x01

void serial_init(struct serial *s, unsigned irq_line, void (*tx)(void *, uint8_t),
                 void (*irq)(void *, unsigned, int), void *ctx)
{
    memset(s, 0, sizeof(*s));
    s->irq_line = irq_line;
    s->tx = tx;
    s->irq = irq;
    s->ctx = ctx;
}

static bool rx_ready(const struct serial *s)
{
    return s->rx_at < s->rx_len;
}

static void update_irq(struct serial *s)
{
    bool level = ((s->state.ier & UART_IER_THRI) && s->state.thri_pending) ||
                 ((s->state.ier & UART_IER_RDI) && rx_ready(s));
    if (level != s->state.irq_level && s->irq) {
        s->state.irq_level = level;
        s->irq(s->ctx, s->irq_line, level);
    }
}

static uint8_t serial_read(struct serial *s, uint16_t reg)
{
    switch (reg) {
    case UART_RX: {
        if (s->state.lcr & UART_LCR_DLAB)
            return s->state.dll;
        if (!rx_ready(s))
            return 0;
        uint8_t byte = s->rx[s->rx_at++];
        if (!rx_ready(s))
            s->rx_at = s->rx_len = 0;
        update_irq(s);
        return byte;
    }
    case UART_IER:
        return (s->state.lcr & UART_LCR_DLAB) ? s->state.dlm : s->state.ier;
    case UART_IIR: {
        uint8_t fifo = (s->state.fcr & UART_FCR_ENABLE_FIFO) ? UART_IIR_FIFO : 0;
        /* The 16550A's priorities: line status, received data, THRE, modem status. */
        if ((s->state.ier & UART_IER_RDI) && rx_ready(s))
            return fifo | UART_IIR_RDI;
        if ((s->state.ier & UART_IER_THRI) && s->state.thri_pending) {
            s->state.thri_pending = false;   /* reading IIR clears a THRE interrupt */
            update_irq(s);
            return fifo | UART_IIR_THRI;
        }
        return fifo | UART_IIR_NO_INT;
    }
    case UART_LCR:
        return s->state.lcr;
    case UART_MCR:
        return s->state.mcr;
    case UART_LSR:
        /* the transmitter always empty; DR while bytes wait */
        return UART_LSR_TEMT | UART_LSR_THRE | (rx_ready(s) ? UART_LSR_DR : 0);
    case UART_MSR:
        if (s->state.mcr & UART_MCR_LOOP)   /* loopback: DTR->DSR, RTS->CTS, OUT1->RI, OUT2->DCD */
            return (uint8_t)(((s->state.mcr & 0x02) << 3) | ((s->state.mcr & 0x01) << 5) | ((s->state.mcr & 0x04) << 4) |
                             ((s->state.mcr & 0x08) << 4));
        return 0xb0;   /* DCD, DSR, CTS */
    default:
        return s->state.scr;
    }
}

static void serial_write(struct serial *s, uint16_t reg, uint8_t v)
{
    switch (reg) {
    case UART_TX:
        if (s->state.lcr & UART_LCR_DLAB) {
            s->state.dll = v;
        } else {
            if (!(s->state.mcr & UART_MCR_LOOP) && s->tx)
                s->tx(s->ctx, v);
            s->state.thri_pending = true;   /* sent at once: THR is empty again */
        }
        break;
    case UART_IER:
        if (s->state.lcr & UART_LCR_DLAB) {
            s->state.dlm = v;
        } else {
            if ((v & UART_IER_THRI) && !(s->state.ier & UART_IER_THRI))
                s->state.thri_pending = true;
            s->state.ier = v & 0x0f;
        }
        break;
    case UART_FCR:
        s->state.fcr = v;
        break;
    case UART_LCR:
        s->state.lcr = v;
        break;
    case UART_MCR:
        s->state.mcr = v & 0x1f;
        break;
    case UART_SCR:
        s->state.scr = v;
        break;
    default:
        break;
    }
    update_irq(s);
}

static void serial_in(void *state, uint16_t off, uint8_t *data, unsigned size)
{
    for (unsigned i = 0; i < size; i++)
        data[i] = serial_read(state, (uint16_t)((off + i) & 7));
}

static void serial_out(void *state, uint16_t off, const uint8_t *data, unsigned size)
{
    for (unsigned i = 0; i < size; i++)
        serial_write(state, (uint16_t)((off + i) & 7), data[i]);
}

bool serial_receive(struct serial *s, const void *data, size_t len)
{
    if (len > SERIAL_RX_MAX - s->rx_len)
        return false;
    memcpy(s->rx + s->rx_len, data, len);
    s->rx_len += len;
    update_irq(s);
    return true;
}

/* Its bools 0 or 1, read as bytes: a bool of another value is undefined. */
static bool serial_state_valid(const void *bytes)
{
    const uint8_t *b = bytes;
    return b[offsetof(struct serial_state, thri_pending)] <= 1 && b[offsetof(struct serial_state, irq_level)] <= 1;
}

struct io_device serial_device(struct serial *s, uint16_t base)
{
    return (struct io_device){ .name = "serial", .base = base, .len = 8, .in = serial_in, .out = serial_out,
                               .state = s, .kept = { &s->state, sizeof(s->state), serial_state_valid } };
}

static struct serial com1, com2;

/* COM1, the console; COM2 only when the host takes its bytes
 * (--exec-output): without it the guest sees no UART at 0x2f8, as before
 * the option existed. */
static unsigned serial_attach(const struct device_host *host, struct io_device *ranges)
{
    serial_init(&com1, GUEST_IRQ_COM1, host->console_tx, host->irq, host->ctx);
    if (host->console_uart)
        *host->console_uart = &com1;
    ranges[0] = serial_device(&com1, GUEST_PORT_COM1);
    if (!host->exec_output_tx)
        return 1;
    serial_init(&com2, GUEST_IRQ_COM2, host->exec_output_tx, host->irq, host->ctx);
    ranges[1] = serial_device(&com2, GUEST_PORT_COM2);
    return 2;
}
DEVICE_INIT(serial_attach)
