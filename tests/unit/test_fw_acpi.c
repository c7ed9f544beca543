/* The ACPI tables firmware_install_acpi builds (ACPI 6.4 section 5.2):
 * checksums, the RSDP -> XSDT -> FADT/MADT/DSDT links, COM1 (and with
 * --exec-output COM2, with --snapshot the VM generation ID) described for
 * the guest, and the RSDP as the ACPI 2.0 configuration table. */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "suites.h"
#include "../../firmware-stub/acpi.h"
#include "../../firmware-stub/firmware.h"
#include "../../firmware-stub/guids.h"
#include "../../vmm/devices/control_ports.h"

#define MEM (64u << 20)

static uint8_t sum(const uint8_t *p, size_t n)
{
    uint8_t s = 0;
    while (n--)
        s = (uint8_t)(s + *p++);
    return s;
}

START_TEST(acpi_tables_checksum_and_link)
{
    void *buf = calloc(1, MEM);
    struct guest_mem gm;
    struct firmware fw;
    struct fw_config cfg = { .base = 0x100000 };
    guest_mem_init(&gm, buf, MEM);
    ck_assert_int_eq(firmware_init(&fw, &gm, &cfg), 0);
    uint64_t rsdp = firmware_install_acpi(&fw, 3, false, false);
    ck_assert_uint_ne(rsdp, 0);
    const uint8_t *r = guest_mem_ptr(&gm, rsdp, 36);
    ck_assert(!memcmp(r, "RSD PTR ", 8));
    ck_assert_uint_eq(sum(r, 20), 0);
    ck_assert_uint_eq(sum(r, 36), 0);
    ck_assert_int_eq(memmap_type_at(&fw.map, rsdp), EFI_ACPI_MEMORY_NVS);
    uint64_t xsdt;
    memcpy(&xsdt, r + 24, 8);
    const uint8_t *x = guest_mem_ptr(&gm, xsdt, 36 + 16);
    ck_assert(!memcmp(x, "XSDT", 4));
    ck_assert_uint_eq(x[4], 36 + 16);   /* FADT and MADT: no SSDT without COM2 */
    ck_assert_uint_eq(sum(x, 36 + 16), 0);
    const char *sigs[2] = { "FACP", "APIC" };
    for (int i = 0; i < 2; i++) {
        uint64_t t;
        memcpy(&t, x + 36 + 8 * i, 8);
        const uint8_t *h = guest_mem_ptr(&gm, t, 36);
        uint32_t len;
        memcpy(&len, h + 4, 4);
        ck_assert(!memcmp(h, sigs[i], 4));
        ck_assert_uint_eq(sum(guest_mem_ptr(&gm, t, len), len), 0);
        if (i == 1) {   /* MADT: 44 bytes, 3 LAPICs, an IOAPIC, 2 overrides */
            ck_assert_uint_eq(len, 44 + 3 * 8 + 12 + 2 * 10);
            ck_assert_uint_eq(h[44], 0);
            ck_assert_uint_eq(h[44 + 2 * 8 + 3], 2);   /* third LAPIC: APIC ID 2 */
            const uint8_t *uart = h + 44 + 3 * 8 + 12 + 1 * 10;
            ck_assert_uint_eq(uart[0], 2);             /* interrupt source override */
            ck_assert_uint_eq(uart[3], GUEST_IRQ_COM1); /* ISA IRQ 4 ... */
            ck_assert_uint_eq(uart[4], GUEST_IRQ_COM1); /* ... on GSI 4 */
        }
        if (i == 0) {   /* FADT -> DSDT: \_S5 and COM1 with its port and IRQ */
            uint64_t d;
            memcpy(&d, h + 140, 8);                    /* X_DSDT */
            const uint8_t *dsdt = guest_mem_ptr(&gm, d, 36);
            uint32_t dlen;
            memcpy(&dlen, dsdt + 4, 4);
            ck_assert(!memcmp(dsdt, "DSDT", 4));
            ck_assert_uint_eq(sum(guest_mem_ptr(&gm, d, dlen), dlen), 0);
            const uint8_t hid[] = { 0x0c, 0x41, 0xd0, 0x05, 0x01 };   /* EisaId ("PNP0501") */
            const uint8_t io[] = { 0x47, 0x01, 0xf8, 0x03, 0xf8, 0x03, 0x00, 0x08 };
            const uint8_t irq[] = { 0x22, 1u << GUEST_IRQ_COM1, 0x00, 0x79, 0x00 };
            ck_assert_ptr_nonnull(memmem(dsdt, dlen, "_S5_", 4));
            ck_assert_ptr_nonnull(memmem(dsdt, dlen, "COM1", 4));
            ck_assert_ptr_nonnull(memmem(dsdt, dlen, hid, sizeof(hid)));
            ck_assert_ptr_nonnull(memmem(dsdt, dlen, io, sizeof(io)));
            ck_assert_ptr_nonnull(memmem(dsdt, dlen, irq, sizeof(irq)));
            ck_assert_uint_eq(dsdt[dlen - 1], 0x00);  /* the resource template's end tag closes the table */
        }
    }
    /* The RSDP is the ACPI 2.0 configuration table. */
    struct efi_system_table *st = guest_mem_ptr(&gm, fw.systab, sizeof(*st));
    struct efi_configuration_table *ct =
        guest_mem_ptr(&gm, st->configuration_table + sizeof(*ct), sizeof(*ct));
    ck_assert_uint_eq(st->number_of_table_entries, 2);   /* after EFI_RT_PROPERTIES_TABLE */
    ck_assert(guid_equal(&ct->vendor_guid, &GUID_ACPI_20_TABLE));
    ck_assert_uint_eq(ct->vendor_table, rsdp);
    ck_assert_uint_eq(firmware_install_acpi(&fw, 0, false, false), 0);
    ck_assert_uint_eq(firmware_install_acpi(&fw, ACPI_MAX_CPUS + 1, false, false), 0);
    firmware_free(&fw);
    free(buf);
}
END_TEST

/* The ACPI table SIG that the XSDT at rsdp lists, and its length. */
static const uint8_t *acpi_table(const struct guest_mem *gm, uint64_t rsdp, const char *sig, uint32_t *len)
{
    uint64_t xsdt;
    uint32_t xlen;
    memcpy(&xsdt, guest_mem_ptr(gm, rsdp + 24, 8), 8);
    memcpy(&xlen, guest_mem_ptr(gm, xsdt + 4, 4), 4);
    for (uint32_t off = 36; off + 8 <= xlen; off += 8) {
        uint64_t t;
        memcpy(&t, guest_mem_ptr(gm, xsdt + off, 8), 8);
        const uint8_t *h = guest_mem_ptr(gm, t, 36);
        if (!memcmp(h, sig, 4)) {
            memcpy(len, h + 4, 4);
            return guest_mem_ptr(gm, t, *len);
        }
    }
    return NULL;
}

static uint32_t le32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* A PC's FADT, not a hardware-reduced one, so that the guest keeps its
 * 8259 and IRQs 0-15 are the ISA IRQs: PM1a blocks on the ports acpi_pm
 * serves, the SCI on IRQ 9 with its MADT override, a FACS, no sleep
 * control registers (ACPI 6.4, 5.2.9 for the offsets). */
START_TEST(acpi_fadt_is_a_pcs_with_pm1_blocks_and_a_facs)
{
    void *buf = calloc(1, MEM);
    struct guest_mem gm;
    struct firmware fw;
    struct fw_config cfg = { .base = 0x100000 };
    guest_mem_init(&gm, buf, MEM);
    ck_assert_int_eq(firmware_init(&fw, &gm, &cfg), 0);
    uint64_t rsdp = firmware_install_acpi(&fw, 1, false, false);
    uint32_t len;
    const uint8_t *f = acpi_table(&gm, rsdp, "FACP", &len);
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(len, 276);
    ck_assert_uint_eq(le32(f + 112) & (1u << 20), 0);          /* not HW_REDUCED_ACPI */
    ck_assert_uint_ne(le32(f + 112) & (1u << 10), 0);          /* RESET_REG_SUP */
    ck_assert_uint_eq(f[46] | f[47] << 8, GUEST_IRQ_ACPI_SCI); /* SCI_INT */
    ck_assert_uint_eq(le32(f + 48), 0);                        /* no SMI_CMD: always in ACPI mode */
    ck_assert_uint_eq(le32(f + 56), GUEST_PORT_ACPI_PM1_EVT);
    ck_assert_uint_eq(le32(f + 64), GUEST_PORT_ACPI_PM1_CNT);
    ck_assert_uint_eq(f[88], 4);                               /* PM1_EVT_LEN */
    ck_assert_uint_eq(f[89], 2);                               /* PM1_CNT_LEN */
    ck_assert_uint_eq(le32(f + 76) | f[91], 0);                /* no PM timer */
    ck_assert_uint_eq(le32(f + 80) | f[92], 0);                /* no GPE0 block */
    ck_assert_uint_eq(le32(f + 120), GUEST_PORT_ACPI_RESET);   /* RESET_REG's address */
    ck_assert_uint_eq(f[128], GUEST_ACPI_RESET_VALUE);
    static const uint8_t zero[24];
    ck_assert(!memcmp(f + 244, zero, sizeof(zero)));           /* no SLEEP_CONTROL_REG, SLEEP_STATUS_REG */
    uint32_t facs = le32(f + 36);
    ck_assert_uint_eq(facs % 64, 0);
    const uint8_t *fs = guest_mem_ptr(&gm, facs, 64);
    ck_assert(!memcmp(fs, "FACS", 4));
    ck_assert_uint_eq(le32(fs + 4), 64);
    /* The FACS holds the global lock the OS takes while it runs: never in
     * memory the OS may use once it read the tables (ACPI 6.4 section
     * 5.2.10; section 15: ACPI reclaim memory is such memory). */
    ck_assert_uint_eq(memmap_type_at(&fw.map, facs), EFI_ACPI_MEMORY_NVS);
    const uint8_t *madt = acpi_table(&gm, rsdp, "APIC", &len);
    const uint8_t sci[10] = { 2, 10, 0, GUEST_IRQ_ACPI_SCI, GUEST_IRQ_ACPI_SCI, 0, 0, 0, 0x0d, 0 };   /* level, high */
    ck_assert_ptr_nonnull(memmem(madt, len, sci, sizeof(sci)));
    const uint8_t irq0[4] = { 2, 10, 0, 0 };                   /* IRQ 0 stays on pin 0, where KVM routes it */
    ck_assert_ptr_null(memmem(madt, len, irq0, sizeof(irq0)));
    firmware_free(&fw);
    free(buf);
}
END_TEST

/* Two firmwares, each on its own guest RAM, with the tables for ncpus:
 * [1] with COM2 or a VM generation ID as asked, [0] without, so that a
 * test compares the two. */
struct acpi_pair {
    void *buf[2];
    struct guest_mem gm[2];
    struct firmware fw[2];
    uint64_t rsdp[2];
};

static const struct fw_config pair_cfg = { .base = 0x100000 };

static void pair_install(struct acpi_pair *p, unsigned ncpus, bool com2, bool vmgenid)
{
    for (int i = 0; i < 2; i++) {
        p->buf[i] = calloc(1, MEM);
        ck_assert_ptr_nonnull(p->buf[i]);
        guest_mem_init(&p->gm[i], p->buf[i], MEM);
        ck_assert_int_eq(firmware_init(&p->fw[i], &p->gm[i], &pair_cfg), 0);
        p->rsdp[i] = firmware_install_acpi(&p->fw[i], ncpus, com2 && i == 1, vmgenid && i == 1);
        ck_assert_uint_ne(p->rsdp[i], 0);
    }
}

static void pair_free(struct acpi_pair *p)
{
    for (int i = 0; i < 2; i++) {
        firmware_free(&p->fw[i]);
        free(p->buf[i]);
    }
}

/* --exec-output: COM2 in an SSDT of its own and IRQ 3 in the MADT; the
 * DSDT is the same bytes as without it. */
START_TEST(acpi_com2_in_an_ssdt_and_the_madt)
{
    struct acpi_pair p;
    pair_install(&p, 2, true, false);
    const struct guest_mem *gm = p.gm;
    const uint64_t *rsdp = p.rsdp;
    uint32_t len, len0;
    ck_assert_ptr_null(acpi_table(&gm[0], rsdp[0], "SSDT", &len));
    const uint8_t *ssdt = acpi_table(&gm[1], rsdp[1], "SSDT", &len);
    ck_assert_ptr_nonnull(ssdt);
    ck_assert_uint_eq(sum(ssdt, len), 0);
    const uint8_t uid1[] = { '_', 'U', 'I', 'D', 0x01 };               /* OneOp: COM1 is _UID 0 */
    const uint8_t hid[] = { 0x0c, 0x41, 0xd0, 0x05, 0x01 };            /* EisaId ("PNP0501") */
    const uint8_t io[] = { 0x47, 0x01, 0xf8, 0x02, 0xf8, 0x02, 0x00, 0x08 };
    const uint8_t irq[] = { 0x22, 1u << 3, 0x00, 0x79, 0x00 };
    ck_assert_ptr_nonnull(memmem(ssdt, len, "_SB_", 4));
    ck_assert_ptr_nonnull(memmem(ssdt, len, "COM2", 4));
    ck_assert_ptr_nonnull(memmem(ssdt, len, uid1, sizeof(uid1)));
    ck_assert_ptr_nonnull(memmem(ssdt, len, hid, sizeof(hid)));
    ck_assert_ptr_nonnull(memmem(ssdt, len, io, sizeof(io)));
    ck_assert_ptr_nonnull(memmem(ssdt, len, irq, sizeof(irq)));
    ck_assert_uint_eq(ssdt[len - 1], 0x00);
    /* MADT: one override more, IRQ 3 on GSI 3, after the two there were. */
    const uint8_t *madt0 = acpi_table(&gm[0], rsdp[0], "APIC", &len0);
    const uint8_t *madt = acpi_table(&gm[1], rsdp[1], "APIC", &len);
    ck_assert_uint_eq(len, len0 + 10);
    ck_assert_uint_eq(sum(madt, len), 0);
    ck_assert(!memcmp(madt + 36, madt0 + 36, len0 - 36));
    const uint8_t iso3[10] = { 2, 10, 0, 3, 3, 0, 0, 0, 0, 0 };
    ck_assert(!memcmp(madt + len0, iso3, sizeof(iso3)));
    /* The DSDT, through the FADT, is unchanged. */
    const uint8_t *fadt0 = acpi_table(&gm[0], rsdp[0], "FACP", &len0);
    const uint8_t *fadt = acpi_table(&gm[1], rsdp[1], "FACP", &len);
    uint64_t d0, d;
    memcpy(&d0, fadt0 + 140, 8);
    memcpy(&d, fadt + 140, 8);
    memcpy(&len, guest_mem_ptr(&gm[1], d + 4, 4), 4);
    ck_assert_uint_eq(d, d0);
    ck_assert(!memcmp(guest_mem_ptr(&gm[1], d, len), guest_mem_ptr(&gm[0], d0, len), len));
    pair_free(&p);
}
END_TEST

/* The tables' bytes, pinned so that no change to them goes unnoticed:
 * each configuration's two pages by CRC-32, and the MADT with COM2 byte
 * for byte (ACPI 6.4, 5.2.12). */
START_TEST(acpi_tables_keep_their_bytes)
{
    static const struct {
        unsigned ncpus;
        bool com2;
        unsigned long crc;
    } pinned[] = { { 1, false, 0x84010cb2 }, { 3, false, 0xa51ced23 }, { 2, true, 0xefd348b0 },
                   { ACPI_MAX_CPUS, true, 0xb1a5a12d } };
    static const uint8_t madt_2_com2[] = {
        'A', 'P', 'I', 'C', 0x66, 0x00, 0x00, 0x00, 0x05, 0x14, 'H', 'N', 'D', 'O', 'V', 'R',   /* header */
        'H', 'A', 'N', 'D', 'O', 'V', 'E', 'R', 0x01, 0x00, 0x00, 0x00, 'H', 'N', 'D', 'O',
        0x01, 0x00, 0x00, 0x00,
        0x00, 0x00, 0xe0, 0xfe, 0x01, 0x00, 0x00, 0x00,                 /* LAPIC address, PCAT_COMPAT */
        0x00, 0x08, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,                 /* LAPIC 0, enabled */
        0x00, 0x08, 0x01, 0x01, 0x01, 0x00, 0x00, 0x00,                 /* LAPIC 1 */
        0x01, 0x0c, 0x02, 0x00, 0x00, 0x00, 0xc0, 0xfe, 0x00, 0x00, 0x00, 0x00,   /* IOAPIC 2, GSI base 0 */
        0x02, 0x0a, 0x00, 0x09, 0x09, 0x00, 0x00, 0x00, 0x0d, 0x00,     /* the SCI, IRQ 9, level, active high */
        0x02, 0x0a, 0x00, 0x04, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00,     /* COM1 */
        0x02, 0x0a, 0x00, 0x03, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00,     /* COM2 */
    };
    for (size_t i = 0; i < sizeof(pinned) / sizeof(pinned[0]); i++) {
        void *buf = calloc(1, MEM);
        struct guest_mem gm;
        struct firmware fw;
        struct fw_config cfg = { .base = 0x100000 };
        guest_mem_init(&gm, buf, MEM);
        ck_assert_int_eq(firmware_init(&fw, &gm, &cfg), 0);
        uint64_t rsdp = firmware_install_acpi(&fw, pinned[i].ncpus, pinned[i].com2, false);
        ck_assert_uint_eq(rsdp, 0x3ffe000);   /* the RSDP opens the two pages */
        ck_assert_uint_eq(crc32(0, guest_mem_ptr(&gm, rsdp, 8192), 8192), pinned[i].crc);
        if (pinned[i].ncpus == 2) {
            uint32_t len;
            const uint8_t *madt = acpi_table(&gm, rsdp, "APIC", &len);
            ck_assert_uint_eq(len, sizeof(madt_2_com2));
            ck_assert(!memcmp(madt, madt_2_com2, len));
        }
        firmware_free(&fw);
        free(buf);
    }
}
END_TEST

/* With a VM generation ID (--snapshot): its SSDT after COM2's, byte for
 * byte (iasl -d turns these bytes back into the ASL in acpi.c), ADDR
 * naming 16 zero bytes in ACPI NVS memory; the other tables as without
 * it. */
START_TEST(acpi_vmgenid_in_an_ssdt_of_its_own)
{
    static const uint8_t body[] = {
        0x10, 0x44, 0x08, '_', 'S', 'B', '_', 0x5b, 0x82, 0x3e, 'V', 'G', 'E', 'N',
        0x08, '_', 'H', 'I', 'D', 0x0d, 'V', 'M', 'G', 'E', 'N', 'C', 'T', 'R', 0x00,
        0x08, '_', 'C', 'I', 'D', 0x0d, 'V', 'M', '_', 'G', 'E', 'N', '_', 'C', 'O', 'U', 'N', 'T', 'E', 'R', 0x00,
        0x14, 0x14, 'A', 'D', 'D', 'R', 0x00, 0xa4, 0x12, 0x0c, 0x02,
        0x0c, 0x00, 0xd0, 0xff, 0x03, 0x0c, 0x00, 0x00, 0x00, 0x00,   /* Package (2) { 0x3ffd000, 0 } */
        0x5b, 0x82, 0x3c, 'G', 'E', 'D', '_',
        0x08, '_', 'H', 'I', 'D', 0x0d, 'A', 'C', 'P', 'I', '0', '0', '1', '3', 0x00,
        0x08, '_', 'C', 'R', 'S', 0x11, 0x0e, 0x0a, 0x0b,
        0x89, 0x06, 0x00, 0x03, 0x01, 0x05, 0x00, 0x00, 0x00, 0x79, 0x00,   /* Interrupt (Edge, ActiveHigh) { 5 } */
        0x14, 0x13, '_', 'E', 'V', 'T', 0x01, 0x86, 0x5c, 0x2e, '_', 'S', 'B', '_', 'V', 'G', 'E', 'N', 0x0a, 0x80,
    };
    struct acpi_pair p;
    pair_install(&p, 1, false, true);
    const struct guest_mem *gm = p.gm;
    struct firmware *fw = p.fw;
    const uint64_t *rsdp = p.rsdp;
    ck_assert_uint_eq(rsdp[0], 0x3ffe000);
    ck_assert_uint_eq(rsdp[1], 0x3ffe000);
    ck_assert_uint_eq(fw[0].vmgenid, 0);
    ck_assert_uint_eq(fw[1].vmgenid, 0x3ffd000);
    ck_assert_int_eq(memmap_type_at(&fw[1].map, fw[1].vmgenid), EFI_ACPI_MEMORY_NVS);
    static const uint8_t zero[16];
    ck_assert(!memcmp(guest_mem_ptr(&gm[1], fw[1].vmgenid, 16), zero, 16));
    uint32_t len, len0;
    const uint8_t *ssdt = acpi_table(&gm[1], rsdp[1], "SSDT", &len);
    ck_assert_ptr_nonnull(ssdt);
    ck_assert_uint_eq(len, 36 + sizeof(body));
    ck_assert_uint_eq(sum(ssdt, len), 0);
    ck_assert(!memcmp(ssdt + 36, body, sizeof(body)));
    const char *same[] = { "FACP", "APIC" };
    for (int i = 0; i < 2; i++) {
        const uint8_t *t0 = acpi_table(&gm[0], rsdp[0], same[i], &len0);
        const uint8_t *t = acpi_table(&gm[1], rsdp[1], same[i], &len);
        ck_assert_uint_eq(len, len0);
        ck_assert(!memcmp(t, t0, len));
    }
    /* With COM2 too: both SSDTs, COM2's first, as without a VM generation ID. */
    firmware_free(&fw[1]);
    memset(p.buf[1], 0, MEM);
    ck_assert_int_eq(firmware_init(&fw[1], &gm[1], &pair_cfg), 0);
    ck_assert_uint_ne(firmware_install_acpi(&fw[1], 1, true, true), 0);
    uint64_t xsdt, t;
    memcpy(&xsdt, guest_mem_ptr(&gm[1], rsdp[1] + 24, 8), 8);
    const uint8_t *x = guest_mem_ptr(&gm[1], xsdt, 36 + 32);
    ck_assert_uint_eq(x[4], 36 + 32);
    ck_assert_uint_eq(sum(x, 36 + 32), 0);
    memcpy(&t, x + 36 + 16, 8);
    ck_assert_uint_eq(t, rsdp[1] + 0x600);
    memcpy(&t, x + 36 + 24, 8);
    ck_assert_uint_eq(t, rsdp[1] + 0x700);
    pair_free(&p);
}
END_TEST

/* What iasl and acpiexec do not check (tests/acpi/check-tables.sh runs
 * them), by ACPI 6.4 section 5.2, in each configuration a run can ask
 * for, x64 and IA-32 firmware: the RSDP's two checksums, revision and
 * length (5.2.5.3); each table's checksum, revision and OEM IDs, the
 * FADT's matching the XSDT's (5.2.9); the MADT's structures filling its
 * length exactly, one enabled local APIC per vCPU and an I/O APIC ID none
 * of them has (5.2.12); the FACS 64-byte aligned, 64 bytes, version 2,
 * named by FIRMWARE_CTRL alone (X_FIRMWARE_CTRL zero, 5.2.9); and after
 * a restore's new VM generation ID (vmm/tools/warm_boot.c writes 16
 * random bytes where ADDR points), every table the same bytes. */
struct acpi_config {
    unsigned ncpus, bits;
    bool com2, vmgenid;
};

static void check_header(const uint8_t *t, uint32_t len, const char *sig, uint8_t rev, const uint8_t *xsdt)
{
    ck_assert(!memcmp(t, sig, 4));
    ck_assert_uint_eq(le32(t + 4), len);
    ck_assert_uint_eq(t[8], rev);
    ck_assert_uint_eq(sum(t, len), 0);
    ck_assert(!memcmp(t + 10, xsdt + 10, 6 + 8));   /* OEM ID and OEM Table ID */
}

/* The MADT's structures, by their lengths, end where the table does. */
static void check_madt(const uint8_t *m, uint32_t len, const struct acpi_config *c)
{
    unsigned lapics = 0, ioapics = 0, overrides = 0;
    uint8_t ioapic_id = 0;
    uint64_t apic_ids = 0;
    uint32_t off = 44;
    for (; off + 2 <= len && m[off + 1] >= 2; off += m[off + 1]) {
        if (m[off] == 0) {
            ck_assert_uint_eq(m[off + 1], 8);
            ck_assert_uint_eq(le32(m + off + 4), 1);   /* enabled; Online Capable zero then */
            apic_ids |= 1ULL << m[off + 3];
            lapics++;
        } else if (m[off] == 1) {
            ck_assert_uint_eq(m[off + 1], 12);
            ioapic_id = m[off + 2];
            ioapics++;
        } else {
            ck_assert_uint_eq(m[off], 2);
            ck_assert_uint_eq(m[off + 1], 10);
            overrides++;
        }
    }
    ck_assert_uint_eq(off, len);
    ck_assert_uint_eq(lapics, c->ncpus);
    ck_assert_uint_eq(ioapics, 1);
    ck_assert(ioapic_id >= 64 || !(apic_ids >> ioapic_id & 1));
    ck_assert_uint_eq(overrides, 2u + c->com2);
}

static void check_fadt(const struct guest_mem *gm, const struct firmware *fw, const uint8_t *f, const uint8_t *xsdt)
{
    uint64_t xfacs, xdsdt;
    memcpy(&xfacs, f + 132, 8);
    memcpy(&xdsdt, f + 140, 8);
    check_header(f, 276, "FACP", 6, xsdt);
    ck_assert_uint_eq(f[131], 4);                     /* FADT Minor Version: ACPI 6.4 */
    ck_assert_uint_eq(xfacs, 0);
    ck_assert_uint_eq(le32(f + 40), xdsdt);
    uint32_t facs = le32(f + 36);
    ck_assert_uint_eq(facs % 64, 0);
    const uint8_t *fs = guest_mem_ptr(gm, facs, 64);
    ck_assert(!memcmp(fs, "FACS", 4));
    ck_assert_uint_eq(le32(fs + 4), 64);
    ck_assert_uint_eq(fs[32], 2);                     /* Version */
    ck_assert_int_eq(memmap_type_at(&fw->map, facs), EFI_ACPI_MEMORY_NVS);
    uint32_t dlen = le32(guest_mem_ptr(gm, xdsdt + 4, 4));
    check_header(guest_mem_ptr(gm, xdsdt, dlen), dlen, "DSDT", 2, xsdt);
}

static void check_tables(const struct guest_mem *gm, const struct firmware *fw, uint64_t rsdp,
                         const struct acpi_config *c)
{
    const uint8_t *r = guest_mem_ptr(gm, rsdp, 36);
    ck_assert(!memcmp(r, "RSD PTR ", 8));
    ck_assert_uint_eq(sum(r, 20), 0);
    ck_assert_uint_eq(sum(r, 36), 0);
    ck_assert_uint_eq(r[15], 2);
    ck_assert_uint_eq(le32(r + 20), 36);
    ck_assert_uint_eq(r[33] | r[34] | r[35], 0);
    uint64_t xa;
    memcpy(&xa, r + 24, 8);
    const unsigned n = 2 + c->com2 + c->vmgenid;
    const uint8_t *x = guest_mem_ptr(gm, xa, 36 + 8 * n);
    ck_assert(!memcmp(x + 10, r + 9, 6));             /* the RSDP's OEM ID */
    check_header(x, 36 + 8 * n, "XSDT", 1, x);
    for (unsigned i = 0; i < n; i++) {
        uint64_t t;
        memcpy(&t, x + 36 + 8 * i, 8);
        const uint8_t *h = guest_mem_ptr(gm, t, 36);
        uint32_t len = le32(h + 4);
        h = guest_mem_ptr(gm, t, len);
        if (!memcmp(h, "FACP", 4))
            check_fadt(gm, fw, h, x);
        else if (!memcmp(h, "APIC", 4)) {
            check_header(h, len, "APIC", 5, x);
            check_madt(h, len, c);
        } else
            check_header(h, len, "SSDT", 2, x);
    }
}

START_TEST(acpi_tables_follow_acpi_6_4_section_5_2)
{
    static const struct acpi_config configs[] = {
        { 1, 64, false, false }, { 4, 64, true, false }, { ACPI_MAX_CPUS, 64, true, true },
        { 2, 64, false, true },  { 1, 32, false, false }, { 3, 32, true, true },
    };
    for (size_t i = 0; i < sizeof(configs) / sizeof(configs[0]); i++) {
        const struct acpi_config *c = &configs[i];
        void *buf = calloc(1, MEM);
        struct guest_mem gm;
        struct firmware fw;
        struct fw_config cfg = { .base = 0x100000, .bits = c->bits };
        guest_mem_init(&gm, buf, MEM);
        ck_assert_int_eq(firmware_init(&fw, &gm, &cfg), 0);
        uint64_t rsdp = firmware_install_acpi(&fw, c->ncpus, c->com2, c->vmgenid);
        ck_assert_uint_ne(rsdp, 0);
        check_tables(&gm, &fw, rsdp, c);
        if (c->vmgenid) {
            static uint8_t before[8192];
            memcpy(before, guest_mem_ptr(&gm, rsdp, sizeof(before)), sizeof(before));
            memset(guest_mem_ptr(&gm, fw.vmgenid, 16), 0xa5, 16);   /* a restore's new ID */
            ck_assert(!memcmp(before, guest_mem_ptr(&gm, rsdp, sizeof(before)), sizeof(before)));
            check_tables(&gm, &fw, rsdp, c);
        }
        firmware_free(&fw);
        free(buf);
    }
}
END_TEST

/* The FADT names what the VMM serves (vmm/devices/acpi_pm.c), read from
 * the table's own bytes as the OS reads them: the PM1a event and control
 * blocks and RESET_REG inside the device's ports; SLP_TYPa of the DSDT's
 * \_S5 with SLP_EN written to PM1a_CNT powers off (ACPI 6.4 section
 * 7.4.2: \_S5's first element is SLP_TYPa), RESET_VALUE written to
 * RESET_REG resets (section 4.8.3.6), and PM1a_CNT reads SCI_EN set, as
 * a FADT with no SMI_CMD promises (5.2.9). */
static enum guest_stop acpi_pm_write(uint16_t port, uint16_t value, unsigned size)
{
    struct control_ports ctl = { 0 };
    struct io_device d = acpi_pm_device(&ctl);
    const uint8_t bytes[2] = { (uint8_t)value, (uint8_t)(value >> 8) };
    ck_assert(port >= d.base && port + size <= d.base + d.len);
    d.out(d.state, (uint16_t)(port - d.base), bytes, size);
    return ctl.stop;
}

START_TEST(acpi_fadt_names_the_registers_the_vmm_serves)
{
    struct acpi_pair p;
    pair_install(&p, 1, false, false);
    uint32_t len;
    const uint8_t *f = acpi_table(&p.gm[0], p.rsdp[0], "FACP", &len);
    struct control_ports ctl = { 0 };
    const struct io_device d = acpi_pm_device(&ctl);
    const uint32_t evt = le32(f + 56), cnt = le32(f + 64);
    ck_assert(evt >= d.base && evt + f[88] <= (uint32_t)d.base + d.len);
    ck_assert(cnt >= d.base && cnt + f[89] <= (uint32_t)d.base + d.len);
    ck_assert_uint_eq(f[116], 1);                                 /* RESET_REG in system I/O space */
    uint8_t sci_en[2];
    d.in(d.state, (uint16_t)(cnt - d.base), sci_en, 2);
    ck_assert_uint_eq(sci_en[0] & 1, 1);
    uint64_t x;
    memcpy(&x, f + 140, 8);
    const uint8_t *dsdt = guest_mem_ptr(&p.gm[0], x, 36);
    const uint8_t *s5 = memmem(dsdt, le32(dsdt + 4), "_S5_\x12", 5);
    ck_assert_ptr_nonnull(s5);
    ck_assert_uint_eq(s5[6], 0x04);                               /* NumElements, after PkgLength */
    ck_assert_uint_eq(s5[7], 0x0a);                               /* BytePrefix SLP_TYPa */
    ck_assert_int_eq(acpi_pm_write((uint16_t)cnt, (uint16_t)(s5[8] << 10 | 1 << 13 | 1), 2), GUEST_POWEROFF);
    ck_assert_int_eq(acpi_pm_write((uint16_t)le32(f + 120), f[128], 1), GUEST_RESET);
    pair_free(&p);
}
END_TEST

Suite *fw_acpi_suite(void)
{
    Suite *s = suite_create("fw-acpi");
    TCase *t = tcase_create("acpi");
    tcase_add_test(t, acpi_tables_checksum_and_link);
    tcase_add_test(t, acpi_fadt_is_a_pcs_with_pm1_blocks_and_a_facs);
    tcase_add_test(t, acpi_com2_in_an_ssdt_and_the_madt);
    tcase_add_test(t, acpi_tables_keep_their_bytes);
    tcase_add_test(t, acpi_vmgenid_in_an_ssdt_of_its_own);
    tcase_add_test(t, acpi_tables_follow_acpi_6_4_section_5_2);
    tcase_add_test(t, acpi_fadt_names_the_registers_the_vmm_serves);
    suite_add_tcase(s, t);
    return s;
}
