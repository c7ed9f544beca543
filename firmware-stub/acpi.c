/* Table layouts from the ACPI 6.4 specification, chapter 5.2; field names
 * as in the kernel's include/acpi/actbl*.h. A PC's FADT: PM1a event and
 * control blocks (S5 through SLP_TYPx/SLP_EN), an SCI, a FACS, the reset
 * register; no PM timer, no GPE blocks, no SMI_CMD (always in ACPI mode).
 *
 * Not hardware-reduced, so that the guest has its legacy PIC and with it
 * the ISA IRQs 0-15, whatever its ACPI, PNP or APIC configuration. On a
 * hardware-reduced platform Linux uses no PIC (arch/x86/kernel/acpi/boot.c,
 * acpi_generic_reduced_hw_init: legacy_pic = &null_legacy_pic), so
 * nr_legacy_irqs() is 0, the IOAPIC's pins get dynamic IRQ numbers
 * (acpi_parse_ioapic: IOAPIC_DOMAIN_DYNAMIC) and no IRQ 4 exists. The 8250
 * driver's legacy COM1 (arch/x86/include/asm/serial.h, SERIAL_PORT_DFNS:
 * 0x3f8, IRQ 4), which a kernel keeps when no PNP device replaces it
 * (no CONFIG_PNP, or a 6.1 kernel without PCI, whose ACPI namespace fails
 * to load so that acpi_init calls disable_acpi()), then fails
 * request_irq(4) in serial8250_do_startup: the tty is left with
 * TTY_IO_ERROR (serial_core.c, uart_startup) and every write to
 * /dev/console fails, while printk's polled console still prints. With the
 * PIC, IRQ 4 is ISA IRQ 4 on the PIC and on IOAPIC pin 4
 * (mp_config_acpi_legacy_irqs), and KVM_IRQ_LINE raises both. */
#include "acpi.h"

#include <stddef.h>
#include <string.h>

#include "guids.h"
#include "system_table.h"

struct __attribute__((packed)) acpi_header {
    char signature[4];
    uint32_t length;
    uint8_t revision;
    uint8_t checksum;
    char oem_id[6];
    char oem_table_id[8];
    uint32_t oem_revision;
    char creator_id[4];
    uint32_t creator_revision;
};

struct __attribute__((packed)) acpi_rsdp {
    char signature[8];
    uint8_t checksum;
    char oem_id[6];
    uint8_t revision;
    uint32_t rsdt_address;
    uint32_t length;
    uint64_t xsdt_address;
    uint8_t extended_checksum;
    uint8_t reserved[3];
};

struct __attribute__((packed)) acpi_gas {
    uint8_t space_id, bit_width, bit_offset, access_width;
    uint64_t address;
};

struct __attribute__((packed)) acpi_fadt {
    struct acpi_header header;
    uint32_t facs, dsdt;
    uint8_t model, preferred_profile;
    uint16_t sci_interrupt;
    uint32_t smi_command;
    uint8_t acpi_enable, acpi_disable, s4_bios_request, pstate_control;
    uint32_t pm1a_event_block, pm1b_event_block, pm1a_control_block, pm1b_control_block;
    uint32_t pm2_control_block, pm_timer_block, gpe0_block, gpe1_block;
    uint8_t pm1_event_length, pm1_control_length, pm2_control_length, pm_timer_length;
    uint8_t gpe0_block_length, gpe1_block_length, gpe1_base, cst_control;
    uint16_t c2_latency, c3_latency, flush_size, flush_stride;
    uint8_t duty_offset, duty_width, day_alarm, month_alarm, century;
    uint16_t boot_flags;
    uint8_t reserved;
    uint32_t flags;
    struct acpi_gas reset_register;
    uint8_t reset_value;
    uint16_t arm_boot_flags;
    uint8_t minor_revision;
    uint64_t xfacs, xdsdt;
    struct acpi_gas xpm1a_event_block, xpm1b_event_block, xpm1a_control_block, xpm1b_control_block;
    struct acpi_gas xpm2_control_block, xpm_timer_block, xgpe0_block, xgpe1_block;
    struct acpi_gas sleep_control, sleep_status;
    uint64_t hypervisor_id;
};
_Static_assert(sizeof(struct acpi_fadt) == 276, "FADT revision 6 is 276 bytes");

/* 5.2.10, FACS: no waking vector (no S3), the global lock free. */
struct __attribute__((packed)) acpi_facs {
    char signature[4];
    uint32_t length;
    uint32_t hardware_signature;
    uint32_t firmware_waking_vector;
    uint32_t global_lock;
    uint32_t flags;
    uint64_t xfirmware_waking_vector;
    uint8_t version;
    uint8_t reserved[3];
    uint32_t ospm_flags;
    uint8_t reserved1[24];
};
_Static_assert(sizeof(struct acpi_facs) == 64, "FACS is 64 bytes");
_Static_assert(sizeof(struct acpi_rsdp) == 36, "RSDP is 36 bytes");

#define ACPI_FADT_WBINVD         (1u << 0)
#define ACPI_FADT_POWER_BUTTON   (1u << 4)    /* set: no fixed-feature power button */
#define ACPI_FADT_SLEEP_BUTTON   (1u << 5)    /* set: no fixed-feature sleep button */
#define ACPI_FADT_RESET_REGISTER (1u << 10)
#define ACPI_FADT_NO_VGA         (1u << 2)   /* IA-PC boot architecture flags */
#define ACPI_FADT_NO_CMOS_RTC    (1u << 5)
#define ACPI_GAS_SYSTEM_IO 1
#define ACPI_GAS_BYTE      1
#define ACPI_PM1_EVT_LEN   4    /* PM1 status and enable, 2 bytes each */
#define ACPI_PM1_CNT_LEN   2

/* MADT, ACPI 6.4 section 5.2.12: the header, the local APIC address and
 * flags, then the interrupt controller structures. */
struct __attribute__((packed)) acpi_madt {
    struct acpi_header header;
    uint32_t local_apic_address;
    uint32_t flags;
};

/* 5.2.12.2, Processor Local APIC Structure. */
struct __attribute__((packed)) madt_local_apic {
    uint8_t type, length;
    uint8_t processor_uid;
    uint8_t apic_id;
    uint32_t flags;
};

/* 5.2.12.3, I/O APIC Structure. */
struct __attribute__((packed)) madt_io_apic {
    uint8_t type, length;
    uint8_t io_apic_id;
    uint8_t reserved;
    uint32_t address;
    uint32_t gsi_base;
};

/* 5.2.12.5, Interrupt Source Override Structure. */
struct __attribute__((packed)) madt_int_override {
    uint8_t type, length;
    uint8_t bus;           /* 0: ISA */
    uint8_t source;        /* the bus-relative IRQ */
    uint32_t gsi;
    uint16_t flags;        /* MPS INTI flags */
};
_Static_assert(sizeof(struct acpi_madt) == 44, "MADT header, local APIC address and flags are 44 bytes");
_Static_assert(sizeof(struct madt_local_apic) == 8, "a processor local APIC structure is 8 bytes");
_Static_assert(sizeof(struct madt_io_apic) == 12, "an I/O APIC structure is 12 bytes");
_Static_assert(sizeof(struct madt_int_override) == 10, "an interrupt source override is 10 bytes");

#define MADT_PCAT_COMPAT     1
#define MADT_LOCAL_APIC      0
#define MADT_IO_APIC         1
#define MADT_INT_OVERRIDE    2
#define MADT_LAPIC_ENABLED   1
/* MPS INTI flags (5.2.12.5): polarity in bits 1:0, trigger mode in 3:2;
 * 0 in both conforms to the bus (ISA: edge, active high). */
#define MPS_INTI_ACTIVE_HIGH (1u << 0)
#define MPS_INTI_LEVEL       (3u << 2)

/* The ISA overrides: the SCI, level and active high as KVM's IOAPIC takes
 * it, and each UART's IRQ on its own GSI. Every other ISA IRQ is on the
 * IOAPIC pin of its number, as KVM's default GSI routing wires the PIC and
 * the IOAPIC (arch/x86/kvm/irq_comm.c, default_routing): the PIT's IRQ 0
 * on pin 0, so no override moves it to GSI 2 as on a PC. Linux maps the
 * ISA IRQs without an override by itself (arch/x86/kernel/acpi/boot.c,
 * mp_config_acpi_legacy_irqs); the UARTs' are there for OSes that map only
 * what the MADT names. */
static const struct {
    uint8_t irq;
    uint32_t gsi;
    uint16_t flags;
    bool com2;             /* only with the second UART */
} isa_overrides[] = {
    { GUEST_IRQ_ACPI_SCI, GUEST_IRQ_ACPI_SCI, MPS_INTI_LEVEL | MPS_INTI_ACTIVE_HIGH, false },
    { GUEST_IRQ_COM1, GUEST_IRQ_COM1, 0, false },
    { GUEST_IRQ_COM2, GUEST_IRQ_COM2, 0, true },
};
#define ISA_OVERRIDES (sizeof(isa_overrides) / sizeof(isa_overrides[0]))

/* A UART in AML (ACPI 6.4 chapter 20):
 *   Scope (\_SB) { Device (COMn) {
 *       Name (_HID, EisaId ("PNP0501")) Name (_UID, uid)
 *       Name (_CRS, ResourceTemplate () { IO (Decode16, port, port, 0, 8) IRQNoFlags () { irq } }) } }
 * uid is ZeroOp or OneOp: the kernel's 8250_pnp takes the UART from here,
 * as QEMU's microvm (hw/i386/acpi-microvm.c) and Firecracker
 * (src/vmm/src/acpi/) describe their legacy devices. */
#define UART_AML(n, uid, port, irq)                                                                              \
    0x10, 0x32, '_', 'S', 'B', '_',  /* ScopeOp, PkgLength 50, "_SB_" */                                        \
    0x5b, 0x82, 0x2b, 'C', 'O', 'M', n,           /* DeviceOp, PkgLength 43, "COMn" */                          \
    0x08, '_', 'H', 'I', 'D', 0x0c, 0x41, 0xd0, 0x05, 0x01,  /* DWordPrefix EisaId("PNP0501") */                \
    0x08, '_', 'U', 'I', 'D', uid,                                                                              \
    0x08, '_', 'C', 'R', 'S', 0x11, 0x10, 0x0a, 0x0d,      /* BufferOp, PkgLength 16, size 13 */                \
    0x47, 0x01, (port) & 0xff, (port) >> 8,   /* I/O port descriptor, Decode16, min */                          \
    (port) & 0xff, (port) >> 8, 0x00, 0x08,   /* max, alignment, length */                                      \
    0x22, 1u << (irq), 0x00,         /* IRQ descriptor, no flags: edge, active high */                          \
    0x79, 0x00                       /* end tag */
#define UART_AML_LEN (1 + 0x32)

/* DSDT body: Name (_S5, Package (4) { 5, 5, 0, 0 }) and COM1. */
static const uint8_t dsdt_aml[] = {
    0x08, '_', 'S', '5', '_',        /* NameOp "_S5_" */
    0x12, 0x08, 0x04,                /* PackageOp, PkgLength 8, NumElements 4 */
    0x0a, GUEST_ACPI_SLP_TYP_S5,           /* BytePrefix 5 */
    0x0a, GUEST_ACPI_SLP_TYP_S5,
    0x00, 0x00,                      /* ZeroOp, ZeroOp */
    UART_AML('1', 0x00, GUEST_PORT_COM1, GUEST_IRQ_COM1),
};
_Static_assert(sizeof(dsdt_aml) == 14 + UART_AML_LEN, "the PkgLengths above match the bytes");

/* SSDT body: COM2, for --exec-output. A table of its own, so that without
 * it the DSDT, and every table's place, stay as they are. */
static const uint8_t ssdt_aml[] = { UART_AML('2', 0x01, GUEST_PORT_COM2, GUEST_IRQ_COM2) };
_Static_assert(sizeof(ssdt_aml) == UART_AML_LEN, "the PkgLengths above match the bytes");
_Static_assert(GUEST_IRQ_COM1 < 8 && GUEST_IRQ_COM2 < 8, "the IRQ mask byte above holds IRQs 0-7");

/* The VM generation ID (Microsoft's "Virtual Machine Generation ID"
 * specification; Linux's drivers/virt/vmgenid.c binds _HID VMGENCTR or
 * VM_GEN_COUNTER and reads ADDR), and a Generic Event Device (ACPI 6.4
 * section 5.6.9, drivers/acpi/evged.c) whose interrupt runs _EVT, which
 * notifies the driver that the ID changed (Notify 0x80), as Firecracker's
 * and cloud-hypervisor's GED do: this FADT has no GPE block, so an
 * interrupt of its own is how an event reaches AML. In ASL:
 *   Scope (\_SB) {
 *     Device (VGEN) { Name (_HID, "VMGENCTR") Name (_CID, "VM_GEN_COUNTER")
 *       Method (ADDR) { Return (Package (2) { low, high }) } }
 *     Device (GED_) { Name (_HID, "ACPI0013")
 *       Name (_CRS, ResourceTemplate () { Interrupt (ResourceConsumer, Edge, ActiveHigh, Exclusive) { irq } })
 *       Method (_EVT, 1) { Notify (\_SB.VGEN, 0x80) } } }
 * low and high are DWordConsts, patched with the ID's address. */
#define VMGENID_ADDR_LOW  0x3e   /* offsets in the body below */
#define VMGENID_ADDR_HIGH 0x43
static const uint8_t vmgenid_aml[] = {
    0x10, 0x44, 0x08, '_', 'S', 'B', '_',        /* ScopeOp, PkgLength 132, "_SB_" */
    0x5b, 0x82, 0x3e, 'V', 'G', 'E', 'N',         /* DeviceOp, PkgLength 62, "VGEN" */
    0x08, '_', 'H', 'I', 'D', 0x0d, 'V', 'M', 'G', 'E', 'N', 'C', 'T', 'R', 0x00,   /* StringPrefix */
    0x08, '_', 'C', 'I', 'D', 0x0d, 'V', 'M', '_', 'G', 'E', 'N', '_', 'C', 'O', 'U', 'N', 'T', 'E', 'R', 0x00,
    0x14, 0x14, 'A', 'D', 'D', 'R', 0x00,         /* MethodOp, PkgLength 20, no arguments */
    0xa4, 0x12, 0x0c, 0x02,                       /* ReturnOp PackageOp, PkgLength 12, 2 elements */
    0x0c, 0x00, 0x00, 0x00, 0x00,                 /* DWordPrefix low */
    0x0c, 0x00, 0x00, 0x00, 0x00,                 /* DWordPrefix high */
    0x5b, 0x82, 0x3c, 'G', 'E', 'D', '_',         /* DeviceOp, PkgLength 60, "GED_" */
    0x08, '_', 'H', 'I', 'D', 0x0d, 'A', 'C', 'P', 'I', '0', '0', '1', '3', 0x00,
    0x08, '_', 'C', 'R', 'S', 0x11, 0x0e, 0x0a, 0x0b,   /* BufferOp, PkgLength 14, size 11 */
    0x89, 0x06, 0x00, 0x03, 0x01,                 /* Extended Interrupt: length 6, consumer and edge, 1 */
    GUEST_IRQ_VMGENID_GED, 0x00, 0x00, 0x00,
    0x79, 0x00,                                   /* end tag */
    0x14, 0x13, '_', 'E', 'V', 'T', 0x01,         /* MethodOp, PkgLength 19, 1 argument */
    0x86, 0x5c, 0x2e, '_', 'S', 'B', '_', 'V', 'G', 'E', 'N', 0x0a, 0x80,   /* NotifyOp \_SB.VGEN, 0x80 */
};
_Static_assert(sizeof(vmgenid_aml) == 1 + 132, "the PkgLengths above match the bytes");

#define OFF_RSDP 0x000
#define OFF_XSDT 0x040
#define OFF_FACS 0x0c0   /* 64-byte aligned (5.2.10) */
#define OFF_FADT 0x100
#define OFF_DSDT 0x280
#define OFF_MADT 0x300
#define OFF_SSDT 0x600
#define OFF_VMGENID_SSDT 0x700
#define ACPI_PAGES 2

static uint8_t checksum(const void *p, size_t n)
{
    const uint8_t *b = p;
    uint8_t sum = 0;
    while (n--)
        sum = (uint8_t)(sum + *b++);
    return (uint8_t)-sum;
}

static void header(struct acpi_header *h, const char *sig, uint32_t len, uint8_t rev)
{
    memcpy(h->signature, sig, 4);
    h->length = len;
    h->revision = rev;
    memcpy(h->oem_id, "HNDOVR", 6);
    memcpy(h->oem_table_id, "HANDOVER", 8);
    h->oem_revision = 1;
    memcpy(h->creator_id, "HNDO", 4);
    h->creator_revision = 1;
    h->checksum = 0;
    h->checksum = checksum(h, len);
}

static struct acpi_gas io_port(uint16_t port)
{
    return (struct acpi_gas){ ACPI_GAS_SYSTEM_IO, 8, 0, ACPI_GAS_BYTE, port };
}

static void build_aml_table(void *at, const char *sig, const uint8_t *aml, size_t len)
{
    struct acpi_header *h = at;
    memcpy(h + 1, aml, len);
    header(h, sig, (uint32_t)(sizeof(*h) + len), 2);
}

static uint8_t *put(uint8_t *p, const void *entry, size_t len)
{
    memcpy(p, entry, len);
    return p + len;
}

/* One local APIC per vCPU (processor UID and APIC ID both its index, the
 * ID leaf 1 of CPUID gives it), the IOAPIC with the next ID, the overrides. */
static void build_madt(void *at, unsigned ncpus, bool com2)
{
    struct acpi_madt *m = at;
    m->local_apic_address = GUEST_LAPIC_ADDR;
    m->flags = MADT_PCAT_COMPAT;
    uint8_t *p = (uint8_t *)(m + 1);
    for (unsigned i = 0; i < ncpus; i++) {
        const struct madt_local_apic lapic = { MADT_LOCAL_APIC, sizeof(lapic), (uint8_t)i, (uint8_t)i,
                                               MADT_LAPIC_ENABLED };
        p = put(p, &lapic, sizeof(lapic));
    }
    const struct madt_io_apic ioapic = { MADT_IO_APIC, sizeof(ioapic), (uint8_t)ncpus, 0, GUEST_IOAPIC_ADDR, 0 };
    p = put(p, &ioapic, sizeof(ioapic));
    for (size_t i = 0; i < ISA_OVERRIDES; i++) {
        const struct madt_int_override iso = { MADT_INT_OVERRIDE, sizeof(iso), 0, isa_overrides[i].irq,
                                               isa_overrides[i].gsi, isa_overrides[i].flags };
        if (com2 || !isa_overrides[i].com2)
            p = put(p, &iso, sizeof(iso));
    }
    header(&m->header, "APIC", (uint32_t)(p - (uint8_t *)m), 5);
}

static void build_facs(void *at)
{
    struct acpi_facs *f = at;
    memcpy(f->signature, "FACS", 4);
    f->length = sizeof(*f);
    f->version = 2;
}

/* The PM1 blocks by their 32-bit fields, which ACPICA widens into the X_
 * ones (drivers/acpi/acpica/tbfadt.c, acpi_tb_convert_fadt). */
static void build_fadt(void *at, uint64_t dsdt, uint64_t facs)
{
    struct acpi_fadt *f = at;
    f->facs = (uint32_t)facs;
    f->dsdt = (uint32_t)dsdt;
    f->xdsdt = dsdt;
    f->sci_interrupt = GUEST_IRQ_ACPI_SCI;
    f->pm1a_event_block = GUEST_PORT_ACPI_PM1_EVT;
    f->pm1a_control_block = GUEST_PORT_ACPI_PM1_CNT;
    f->pm1_event_length = ACPI_PM1_EVT_LEN;
    f->pm1_control_length = ACPI_PM1_CNT_LEN;
    f->flags = ACPI_FADT_WBINVD | ACPI_FADT_POWER_BUTTON | ACPI_FADT_SLEEP_BUTTON | ACPI_FADT_RESET_REGISTER;
    f->boot_flags = ACPI_FADT_NO_VGA | ACPI_FADT_NO_CMOS_RTC;
    f->reset_register = io_port(GUEST_PORT_ACPI_RESET);
    f->reset_value = GUEST_ACPI_RESET_VALUE;
    f->minor_revision = 4;
    memcpy(&f->hypervisor_id, "HNDOVR\0\0", 8);
    header(&f->header, "FACP", sizeof(*f), 6);
}

#define XSDT_MAX_ENTRIES 4

/* The FADT, the MADT, with COM2 the SSDT and with a VM generation ID its
 * SSDT, by address. */
static void build_xsdt(void *at, uint64_t base, bool com2, bool vmgenid)
{
    struct acpi_header *x = at;
    uint64_t entries[XSDT_MAX_ENTRIES] = { base + OFF_FADT, base + OFF_MADT };
    size_t n = 2;
    if (com2)
        entries[n++] = base + OFF_SSDT;
    if (vmgenid)
        entries[n++] = base + OFF_VMGENID_SSDT;
    memcpy(x + 1, entries, n * sizeof(entries[0]));
    header(x, "XSDT", (uint32_t)(sizeof(*x) + n * sizeof(entries[0])), 1);
}

/* Revision 2: the ACPI 1.0 checksum over the first 20 bytes, the
 * extended one over all of it (5.2.5.3). */
static void build_rsdp(void *at, uint64_t xsdt)
{
    struct acpi_rsdp *r = at;
    memcpy(r->signature, "RSD PTR ", 8);
    memcpy(r->oem_id, "HNDOVR", 6);
    r->revision = 2;
    r->length = sizeof(*r);
    r->xsdt_address = xsdt;
    r->checksum = checksum(r, 20);
    r->extended_checksum = checksum(r, sizeof(*r));
}

_Static_assert(OFF_XSDT + sizeof(struct acpi_header) + XSDT_MAX_ENTRIES * sizeof(uint64_t) <= OFF_FACS, "XSDT fits");
_Static_assert(OFF_FACS % 64 == 0 && OFF_FACS + sizeof(struct acpi_facs) <= OFF_FADT, "FACS fits, aligned");
_Static_assert(OFF_FADT + sizeof(struct acpi_fadt) <= OFF_DSDT, "FADT fits");
_Static_assert(OFF_DSDT + sizeof(struct acpi_header) + sizeof(dsdt_aml) <= OFF_MADT, "DSDT fits");
_Static_assert(OFF_MADT + sizeof(struct acpi_madt) + ACPI_MAX_CPUS * sizeof(struct madt_local_apic) +
                   sizeof(struct madt_io_apic) + ISA_OVERRIDES * sizeof(struct madt_int_override) <=
               OFF_SSDT, "MADT fits");
_Static_assert(OFF_SSDT + sizeof(struct acpi_header) + sizeof(ssdt_aml) <= OFF_VMGENID_SSDT, "SSDT fits");
_Static_assert(OFF_VMGENID_SSDT + sizeof(struct acpi_header) + sizeof(vmgenid_aml) <= ACPI_PAGES * 4096,
               "the VM generation ID's SSDT fits");

/* The ID's 16 bytes in a page of ACPI NVS memory, which the OS keeps and
 * maps (the specification asks for memory the OS does not use as RAM),
 * zero until the VMM writes one; the SSDT's ADDR names it. */
static int build_vmgenid(struct firmware *fw, void *at)
{
    uint64_t id;
    if (memmap_take_below(&fw->map, EFI_ACPI_MEMORY_NVS, 1, 0xffffffffULL, &id) != EFI_SUCCESS)
        return -1;
    memset(guest_mem_ptr(fw->gm, id, 4096), 0, 4096);
    uint8_t aml[sizeof(vmgenid_aml)];
    memcpy(aml, vmgenid_aml, sizeof(aml));
    const uint32_t low = (uint32_t)id, high = (uint32_t)(id >> 32);
    memcpy(aml + VMGENID_ADDR_LOW, &low, 4);
    memcpy(aml + VMGENID_ADDR_HIGH, &high, 4);
    build_aml_table(at, "SSDT", aml, sizeof(aml));
    fw->vmgenid = id;
    return 0;
}

/* The tables' pages are ACPI NVS memory, not ACPI reclaim memory, for the
 * FACS among them: the OS writes its global lock and waking vector while
 * it runs, so its memory must stay the firmware's (ACPI 6.4 section
 * 5.2.10: never reported as memory the OS may use; section 15,
 * AddressRangeACPI is RAM the OS may take once it read the tables). One
 * allocation for all of them, so that the memory map has as many
 * descriptors as before. */
uint64_t firmware_install_acpi(struct firmware *fw, unsigned ncpus, bool com2, bool vmgenid)
{
    uint64_t base;
    if (!ncpus || ncpus > ACPI_MAX_CPUS ||
        memmap_take_below(&fw->map, EFI_ACPI_MEMORY_NVS, ACPI_PAGES, 0xffffffffULL, &base) != EFI_SUCCESS)
        return 0;
    uint8_t *t = guest_mem_ptr(fw->gm, base, ACPI_PAGES * 4096);
    memset(t, 0, ACPI_PAGES * 4096);
    build_aml_table(t + OFF_DSDT, "DSDT", dsdt_aml, sizeof(dsdt_aml));
    if (com2)
        build_aml_table(t + OFF_SSDT, "SSDT", ssdt_aml, sizeof(ssdt_aml));
    if (vmgenid && build_vmgenid(fw, t + OFF_VMGENID_SSDT))
        return 0;
    build_madt(t + OFF_MADT, ncpus, com2);
    build_facs(t + OFF_FACS);
    build_fadt(t + OFF_FADT, base + OFF_DSDT, base + OFF_FACS);
    build_xsdt(t + OFF_XSDT, base, com2, vmgenid);
    build_rsdp(t + OFF_RSDP, base + OFF_XSDT);
    if (fw_install_config_table(fw, &GUID_ACPI_20_TABLE, base + OFF_RSDP) != EFI_SUCCESS)
        return 0;
    return base + OFF_RSDP;
}
