/* libFuzzer harness for the state file of --snapshot DIR (vmm/tools/warm_boot.c):
 * snapshot_check on the whole file (vmm/host/snapshot_file.c), then its
 * payload taken with saved_state_take (vmm/tools/snapshot_payload.c, what
 * warm_boot.c's restore takes it with), and the devices' part restored with
 * devices_restore (vmm/devices/persist.c) onto the bus the init list
 * builds (vmm/devices/device_init.h), which the guest then drives. The
 * CRC is no signature: modes 1 and 2 seal what they build with valid
 * CRCs, so that wild values get past it.
 *
 * Input format: a flags byte (bits 0-1: the mode, % 3; bit 2: COM2 is
 * on the bus, as with --exec-output), a program run on the bus after a
 * restore (a count byte, then that many accesses), then by mode:
 *   0 the state file: the rest
 *   1 a header sealed by the harness: a selector byte for each of
 *     version, header_size and payload_size (0: the right value, else a
 *     u32, u32, u64 from the input), ram_size u64, the inputs' bytes,
 *     then the payload: the rest
 *   2 a payload laid out by saved_state_put, as warm_boot.c's save does,
 *     from a bus that ran a first program (count byte and accesses): the
 *     boot record u32, nmsrs (a byte % 8) and has_xsave/has_xcrs (a byte),
 *     the firmware's phase u32, virtual_mode u32 and monotonic u64, the
 *     clock's 3 u64 and u32; then patches (a count byte, each a u16
 *     offset back from the payload's last byte, % its size, and a byte:
 *     the clock, the firmware and the devices come last), and the header
 *     sealed
 * An access: a port byte (% 21: COM1 0-7, COM2 0-7, the i8042 ports,
 * the exit port, PM1 status/enable, PM1 control, reset), a byte (bit 0
 * out, size 1/2/4 by bits 1-2 % 3), for an out a u32. A restore queues
 * the program's length in bytes on COM1 first, as the command is.
 *
 * Checks, from snapshot_file.h and persist.h: snapshot_check refuses
 * exactly what a reference reading refuses (magic, version, header size,
 * header CRC, payload size, payload CRC), with a message; a take never
 * goes past the payload and, once failed, stays failed; a payload
 * saved_state_take accepts is whole and within its bounds, one it refuses
 * leaves nothing to free; a payload saved_state_put made from valid
 * values is accepted and taken back as it was put; devices_restore
 * succeeds exactly when the kept states match the bus and each is a
 * state its device could be in, then devices_save gives back what it
 * restored; on a refusal the devices are left as they were. ASan and
 * UBSan (a bool that holds another value) watch the devices as the
 * guest drives them after a restore. abort() otherwise. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../firmware-stub/state.h"
#include "../../guest/layout.h"
#include "../../vmm/devices/control_ports.h"
#include "../../vmm/devices/device_init.h"
#include "../../vmm/devices/persist.h"
#include "../../vmm/devices/serial.h"
#include "../../vmm/host/snapshot_file.h"
#include "../../vmm/kvm/snapshot.h"
#include "../../vmm/tools/snapshot_payload.h"
#include "fuzz_harness.h"
#include "fuzz_input.h"

#define PROGRAM_MAX 255

static const uint16_t ports[] = {
    GUEST_PORT_COM1, GUEST_PORT_COM1 + 1, GUEST_PORT_COM1 + 2, GUEST_PORT_COM1 + 3,
    GUEST_PORT_COM1 + 4, GUEST_PORT_COM1 + 5, GUEST_PORT_COM1 + 6, GUEST_PORT_COM1 + 7,
    GUEST_PORT_COM2, GUEST_PORT_COM2 + 1, GUEST_PORT_COM2 + 2, GUEST_PORT_COM2 + 3,
    GUEST_PORT_COM2 + 4, GUEST_PORT_COM2 + 5, GUEST_PORT_COM2 + 6, GUEST_PORT_COM2 + 7,
    GUEST_PORT_I8042_DATA, GUEST_PORT_I8042_CMD, GUEST_PORT_EXIT, GUEST_PORT_ACPI_PM1_EVT + 2,
    GUEST_PORT_ACPI_PM1_CNT,
};

struct access {
    uint16_t port;
    bool out;
    unsigned size;
    uint32_t value;
};

struct program {
    struct access a[PROGRAM_MAX];
    unsigned n;
};

static void read_program(struct fuzz_in *in, struct program *p)
{
    static const unsigned sizes[] = { 1, 2, 4 };
    p->n = in_u8(in);
    for (unsigned i = 0; i < p->n; i++) {
        struct access *a = &p->a[i];
        a->port = ports[in_u8(in) % (sizeof(ports) / sizeof(ports[0]))];
        uint8_t ds = in_u8(in);
        a->out = ds & 1;
        a->size = sizes[(ds >> 1) % 3];
        a->value = a->out ? in_u32(in) : 0;
    }
}

static void on_tx(void *ctx, uint8_t byte)
{
    (void)ctx, (void)byte;
}

static void on_irq(void *ctx, unsigned line, int level)
{
    (void)ctx;
    CHECK(line == GUEST_IRQ_COM1 || line == GUEST_IRQ_COM2);
    CHECK(level == 0 || level == 1);
}

/* The bus as device_init.c builds it for a VM. */
struct machine {
    struct io_bus bus;
    struct control_ports ctl;
    struct serial *console;
};

static void machine_init(struct machine *m, bool com2)
{
    memset(m, 0, sizeof(*m));
    const struct device_host host = { &m->bus, &m->ctl, on_irq, on_tx, com2 ? on_tx : NULL, NULL, &m->console };
    struct io_device refused;
    CHECK(devices_init(&host, &refused) == 0);
    CHECK(m->console);
}

static void run(struct machine *m, const struct program *p)
{
    for (unsigned i = 0; i < p->n; i++) {
        uint8_t buf[8];
        memset(buf, 0xa5, sizeof(buf));
        memcpy(buf, &p->a[i].value, 4);
        uint8_t before[8];
        memcpy(before, buf, sizeof(buf));
        uint64_t unclaimed = m->bus.unclaimed;
        bool claimed = io_bus_access(&m->bus, p->a[i].port, p->a[i].out, buf, p->a[i].size);
        CHECK(m->bus.unclaimed == unclaimed + !claimed);
        CHECK(!memcmp(buf + p->a[i].size, before + p->a[i].size, sizeof(buf) - p->a[i].size));
        CHECK(m->ctl.exit_status >= 0 && m->ctl.exit_status <= UINT8_MAX && m->ctl.stop <= GUEST_POWEROFF);
    }
}

/* What snapshot_check must say of the file: refused (true) or not. */
static bool reference_refuses(const uint8_t *file, size_t len)
{
    struct snapshot_header h;
    if (len < sizeof(h))
        return true;
    memcpy(&h, file, sizeof(h));
    return memcmp(h.magic, SNAPSHOT_MAGIC, 8) || h.version != SNAPSHOT_VERSION || h.header_size != sizeof(h) ||
           h.header_crc != snapshot_crc(&h, offsetof(struct snapshot_header, header_crc)) ||
           h.payload_size != len - sizeof(h) || h.payload_crc != snapshot_crc(file + sizeof(h), len - sizeof(h));
}

/* The devices' kept bytes, as a snapshot would take them. */
static void kept_bytes(const struct io_bus *bus, struct device_snapshot *s)
{
    memset(s, 0, sizeof(*s));
    devices_save(bus, s);
}

/* The payload after the header: saved_state_take, then the devices
 * restored onto a fresh machine that runs the program. */
static void restore(const uint8_t *payload, size_t len, bool com2, const struct program *after)
{
    struct snapshot_cursor cur = { (uint8_t *)payload, len, 0, false };
    static struct saved_state st;
    memset(&st, 0xa5, sizeof(st));
    bool taken = saved_state_take(&cur, &st);
    CHECK(cur.at <= cur.len);
    if (!taken) {
        CHECK(!st.cpu.msrs);
        return;
    }
    /* Read as bools now, which UBSan checks: 0 or 1, as the check said. */
    CHECK(cur.at == cur.len && !cur.failed && st.cpu.msrs && st.cpu.nmsrs <= SNAPSHOT_MSRS_MAX);
    CHECK(st.cpu.has_xsave == !!st.cpu.has_xsave && st.cpu.has_xcrs == !!st.cpu.has_xcrs);
    CHECK(st.dev.len <= sizeof(st.dev.bytes) && st.fw.phase <= FW_PHASE_RUNTIME);
    free(st.cpu.msrs);
    const struct device_snapshot *dev = &st.dev;

    static struct machine m;
    machine_init(&m, com2);
    struct device_snapshot was, now;
    kept_bytes(&m.bus, &was);
    bool fits = dev->nkept == m.bus.nkept && dev->len == m.bus.kept_bytes;
    bool valid = fits;
    for (size_t i = 0, at = 0; valid && i < m.bus.nkept; at += m.bus.kept[i++].size)
        valid = !m.bus.kept[i].valid || m.bus.kept[i].valid(dev->bytes + at);
    int rc = devices_restore(&m.bus, dev);
    CHECK((rc == 0) == valid);
    kept_bytes(&m.bus, &now);
    if (rc) {
        CHECK(!memcmp(&now, &was, sizeof(now)));
        return;
    }
    CHECK(now.len == dev->len && now.nkept == dev->nkept && now.unclaimed == dev->unclaimed &&
          !memcmp(now.bytes, dev->bytes, dev->len));
    char head[8];
    int n = snprintf(head, sizeof(head), "%u\n", after->n);
    CHECK(serial_receive(m.console, head, (size_t)n));
    run(&m, after);
}

/* Mode 2's payload: saved_state_put's, from a machine that ran a
 * program; len bytes at *out (malloc'd). Before the patches it is what
 * saved_state_take gives back. */
static uint8_t *saved_payload(struct fuzz_in *in, bool com2, size_t *len)
{
    static struct machine m;
    static struct program before;
    machine_init(&m, com2);
    read_program(in, &before);
    run(&m, &before);
    static struct saved_state st, back;
    memset(&st, 0, sizeof(st));
    st.boot.noxsave_added = in_u32(in);
    st.cpu.nmsrs = in_u8(in) % 8;
    uint8_t bools = in_u8(in);
    st.cpu.has_xsave = bools & 1;
    st.cpu.has_xcrs = bools & 2;
    struct kvm_msr_entry msrs[8];
    memset(msrs, 0, sizeof(msrs));
    st.cpu.msrs = msrs;
    kept_bytes(&m.bus, &st.dev);
    st.fw.phase = in_u32(in) % (FW_PHASE_RUNTIME + 1);
    st.fw.virtual_mode = in_u32(in);
    st.fw.monotonic = in_u64(in);
    in_bytes(in, &st.clock, sizeof(st.clock));
    struct snapshot_cursor out = { 0 };
    saved_state_put(&out, &st);
    CHECK(!out.failed);
    struct snapshot_cursor again = { out.buf, out.at, 0, false };
    CHECK(saved_state_take(&again, &back));
    CHECK(back.cpu.nmsrs == st.cpu.nmsrs && !memcmp(back.cpu.msrs, msrs, st.cpu.nmsrs * sizeof(*msrs)) &&
          !memcmp(&back.dev, &st.dev, sizeof(st.dev)) && !memcmp(&back.fw, &st.fw, sizeof(st.fw)) &&
          !memcmp(&back.clock, &st.clock, sizeof(st.clock)) && back.boot.noxsave_added == st.boot.noxsave_added);
    free(back.cpu.msrs);
    unsigned patches = in_u8(in);
    for (unsigned i = 0; i < patches; i++) {
        size_t back_by = in_u16(in) % out.at;
        out.buf[out.at - 1 - back_by] = in_u8(in);
    }
    *len = out.at;
    return out.buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_in in = { data, size };
    static struct program after;
    uint8_t flags = in_u8(&in);
    bool com2 = flags & 4;
    read_program(&in, &after);
    uint8_t *file;
    size_t len;
    unsigned mode = (flags & 3) % 3;
    if (mode == 0) {
        len = in.n;
        file = malloc(len ? len : 1);
        CHECK(file);
        in_bytes(&in, file, len);
    } else {
        struct snapshot_header h;
        uint8_t sel[3] = { in_u8(&in), 0, 0 };
        uint32_t version = sel[0] ? in_u32(&in) : SNAPSHOT_VERSION;
        sel[1] = in_u8(&in);
        uint32_t header_size = sel[1] ? in_u32(&in) : sizeof(h);
        sel[2] = in_u8(&in);
        uint64_t payload_size = sel[2] ? in_u64(&in) : 0;
        uint64_t ram_size = in_u64(&in);
        struct snapshot_inputs inputs;
        in_bytes(&in, &inputs, sizeof(inputs));
        uint8_t *payload;
        size_t n;
        if (mode == 2) {
            payload = saved_payload(&in, com2, &n);
        } else {
            n = in.n;
            payload = malloc(n ? n : 1);
            CHECK(payload);
            in_bytes(&in, payload, n);
        }
        snapshot_seal(&h, &inputs, payload, n, ram_size);
        CHECK(h.payload_size == n && h.ram_size == ram_size && snapshot_inputs_equal(&h.inputs, &inputs));
        h.version = version;
        h.header_size = header_size;
        if (sel[2])
            h.payload_size = payload_size;
        h.header_crc = snapshot_crc(&h, offsetof(struct snapshot_header, header_crc));
        len = sizeof(h) + n;
        file = malloc(len);
        CHECK(file);
        memcpy(file, &h, sizeof(h));
        memcpy(file + sizeof(h), payload, n);
        free(payload);
    }
    struct snapshot_header got;
    const char *why = snapshot_check(file, len, &got);
    CHECK((why != NULL) == reference_refuses(file, len));
    if (why)
        CHECK(*why && strlen(why) < 128);
    else
        restore(file + sizeof(got), len - sizeof(got), com2, &after);
    free(file);
    return 0;
}
