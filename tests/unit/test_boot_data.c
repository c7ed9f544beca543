/* The boot data the VMM hands a kernel besides the EFI tables: ACPI tables,
 * the device tree, the --exec cpio archive; and the emulation fallbacks and
 * the KTAP reader. */
#include <check.h>
#include <libfdt.h>
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "../../firmware-stub/acpi.h"
#include "../../firmware-stub/firmware.h"
#include "../../firmware-stub/guids.h"
#include "../../loader/cpio.h"
#include "../../loader/elf_deps.h"
#include "../../loader/dtb.h"
#include "../../vmm/x86/emulate.h"
#include "../../vmm/verdict/ktap.h"

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
    uint64_t rsdp = firmware_install_acpi(&fw, 3, false);
    ck_assert_uint_ne(rsdp, 0);
    const uint8_t *r = guest_mem_ptr(&gm, rsdp, 36);
    ck_assert(!memcmp(r, "RSD PTR ", 8));
    ck_assert_uint_eq(sum(r, 20), 0);
    ck_assert_uint_eq(sum(r, 36), 0);
    ck_assert_int_eq(memmap_type_at(&fw.map, rsdp), EFI_ACPI_RECLAIM_MEMORY);
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
        if (i == 1) {   /* MADT: 44 bytes, 3 LAPICs, an IOAPIC, 3 overrides */
            ck_assert_uint_eq(len, 44 + 3 * 8 + 12 + 3 * 10);
            ck_assert_uint_eq(h[44], 0);
            ck_assert_uint_eq(h[44 + 2 * 8 + 3], 2);   /* third LAPIC: APIC ID 2 */
            const uint8_t *uart = h + 44 + 3 * 8 + 12 + 2 * 10;
            ck_assert_uint_eq(uart[0], 2);             /* interrupt source override */
            ck_assert_uint_eq(uart[3], IRQ_SERIAL_COM1); /* ISA IRQ 4 ... */
            ck_assert_uint_eq(uart[4], IRQ_SERIAL_COM1); /* ... on GSI 4 */
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
            const uint8_t irq[] = { 0x22, 1u << IRQ_SERIAL_COM1, 0x00, 0x79, 0x00 };
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
    struct efi_configuration_table *ct = guest_mem_ptr(&gm, st->configuration_table, sizeof(*ct));
    ck_assert_uint_eq(st->number_of_table_entries, 1);
    ck_assert(guid_equal(&ct->vendor_guid, &GUID_ACPI_20_TABLE));
    ck_assert_uint_eq(ct->vendor_table, rsdp);
    ck_assert_uint_eq(firmware_install_acpi(&fw, 0, false), 0);
    ck_assert_uint_eq(firmware_install_acpi(&fw, ACPI_MAX_CPUS + 1, false), 0);
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

/* --exec-output: COM2 in an SSDT of its own and IRQ 3 in the MADT; the
 * DSDT is the same bytes as without it. */
START_TEST(acpi_com2_in_an_ssdt_and_the_madt)
{
    void *buf[2] = { calloc(1, MEM), calloc(1, MEM) };
    struct guest_mem gm[2];
    struct firmware fw[2];
    struct fw_config cfg = { .base = 0x100000 };
    uint64_t rsdp[2];
    for (int i = 0; i < 2; i++) {
        guest_mem_init(&gm[i], buf[i], MEM);
        ck_assert_int_eq(firmware_init(&fw[i], &gm[i], &cfg), 0);
        rsdp[i] = firmware_install_acpi(&fw[i], 2, i == 1);
        ck_assert_uint_ne(rsdp[i], 0);
    }
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
    /* MADT: one override more, IRQ 3 on GSI 3, after the three there were. */
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
    for (int i = 0; i < 2; i++) {
        firmware_free(&fw[i]);
        free(buf[i]);
    }
}
END_TEST

START_TEST(dtb_reads_back_with_libfdt)
{
    static uint8_t blob[16384];
    struct dtb_machine m = { .ram = { { 0, 0xc0000000 }, { 0x100000000, 0x40000000 } }, .nram = 2, .cpus = 2,
                             .bootargs = "console=ttyS0", .uart = { { 0x3f8, 4 }, { 0x2f8, 3 } }, .nuart = 1 };
    size_t n = dtb_build(blob, sizeof(blob), &m);
    ck_assert_uint_gt(n, 0);
    ck_assert_int_eq(dtb_check(blob, n), 0);
    int len;
    const char *args = fdt_getprop(blob, fdt_path_offset(blob, "/chosen"), "bootargs", &len);
    ck_assert_str_eq(args, "console=ttyS0");
    int mem = fdt_path_offset(blob, "/memory@100000000");
    ck_assert_int_ge(mem, 0);
    const fdt64_t *reg = fdt_getprop(blob, mem, "reg", &len);
    ck_assert_int_eq(len, 16);
    ck_assert_uint_eq(fdt64_to_cpu(reg[0]), 0x100000000ULL);
    ck_assert_uint_eq(fdt64_to_cpu(reg[1]), 0x40000000ULL);
    ck_assert_int_ge(fdt_path_offset(blob, "/cpus/cpu@1"), 0);
    ck_assert_int_lt(fdt_path_offset(blob, "/cpus/cpu@2"), 0);
    const char *compat = fdt_getprop(blob, fdt_path_offset(blob, "/serial@3f8"), "compatible", &len);
    ck_assert_str_eq(compat, "ns16550a");
    ck_assert_str_eq(fdt_getprop(blob, fdt_path_offset(blob, "/chosen"), "stdout-path", &len), "/serial@3f8");
    ck_assert_int_lt(fdt_path_offset(blob, "/serial@2f8"), 0);
    /* --exec-output: COM2 too, with its own port and interrupt. */
    m.nuart = 2;
    ck_assert_uint_gt(dtb_build(blob, sizeof(blob), &m), 0);
    int com2 = fdt_path_offset(blob, "/serial@2f8");
    ck_assert_int_ge(com2, 0);
    reg = fdt_getprop(blob, com2, "reg", &len);
    ck_assert_int_eq(len, 16);
    ck_assert_uint_eq(fdt64_to_cpu(reg[0]), 0x2f8);
    const fdt32_t *irq = fdt_getprop(blob, com2, "interrupts", &len);
    ck_assert_int_eq(len, 4);
    ck_assert_uint_eq(fdt32_to_cpu(irq[0]), 3);
    ck_assert_str_eq(fdt_getprop(blob, fdt_path_offset(blob, "/chosen"), "stdout-path", &len), "/serial@3f8");
    m.nuart = 1;
    /* Too small a buffer, and damaged blobs, are refused. */
    ck_assert_uint_eq(dtb_build(blob, 64, &m), 0);
    n = dtb_build(blob, sizeof(blob), &m);
    ck_assert_int_ne(dtb_check(blob, n - 1), 0);
    blob[0] ^= 0xff;
    ck_assert_int_ne(dtb_check(blob, n), 0);
}
END_TEST

START_TEST(cpio_archive_is_newc)
{
    struct cpio_builder b;
    const char *cmd = "echo hi";
    cpio_begin(&b, 1 << 20);
    cpio_add_file(&b, "handover/cmd", 0644, cmd, strlen(cmd));
    size_t n = cpio_end(&b);
    ck_assert_uint_eq(n, 124 + 8 + 124);   /* header+name padded, data padded, trailer */
    ck_assert_uint_eq(n % 4, 0);
    const char *buf = b.buf;
    ck_assert(!memcmp(buf, "070701", 6));
    /* mode (2nd field), filesize (7th) and namesize (12th), 8 hex digits each */
    ck_assert(!memcmp(buf + 6 + 1 * 8, "000081A4", 8));
    ck_assert(!memcmp(buf + 6 + 6 * 8, "00000007", 8));
    ck_assert(!memcmp(buf + 6 + 11 * 8, "0000000D", 8));
    ck_assert_str_eq(buf + 110, "handover/cmd");
    ck_assert(!memcmp(buf + 124, cmd, 7));   /* 110 + 13 = 123, padded to 124 */
    ck_assert(memmem(buf, n, "TRAILER!!!", 10) != NULL);
    cpio_free(&b);

    /* A directory entry, and an archive past its bound fails whole. */
    cpio_begin(&b, 300);
    cpio_add_dir(&b, "lib");
    ck_assert(!memcmp(b.buf + 6 + 1 * 8, "000041ED", 8));
    cpio_add_file(&b, "lib/big", 0755, cmd, 200);
    ck_assert_uint_eq(cpio_end(&b), 0);
    cpio_free(&b);
}
END_TEST

/* A cpio name is unpacked relative to the guest's / as it stands: none
 * may climb out with ".." or be absolute. */
START_TEST(cpio_names_never_climb)
{
    static const char *const safe[] = { "lib", "lib/x86_64-linux-gnu/libc.so.6", "a..b", "..a/.b", "TRAILER!!!" };
    static const char *const unsafe[] = { "", "..", ".", "/etc/passwd", "a/../b", "a/..", "../a", "a//b", "a/",
                                          "a/./b" };
    for (size_t i = 0; i < sizeof(safe) / sizeof(safe[0]); i++)
        ck_assert_msg(cpio_name_safe(safe[i]), "%s", safe[i]);
    for (size_t i = 0; i < sizeof(unsafe) / sizeof(unsafe[0]); i++)
        ck_assert_msg(!cpio_name_safe(unsafe[i]), "%s", unsafe[i]);
    struct cpio_builder b;
    cpio_begin(&b, 1 << 20);
    cpio_add_file(&b, "bin/../../etc/shadow", 0644, "x", 1);
    ck_assert_uint_eq(cpio_end(&b), 0);
    cpio_free(&b);
}
END_TEST

/* --add's ELF reader on a real dynamically linked program: this test
 * binary itself. */
START_TEST(elf_deps_of_this_program)
{
    FILE *f = fopen("/proc/self/exe", "rb");
    ck_assert_ptr_nonnull(f);
    static uint8_t image[64 << 20];
    size_t n = fread(image, 1, sizeof(image), f);
    fclose(f);
    struct elf_deps d;
    ck_assert_int_eq(elf_deps_read(image, n, &d), 0);
    ck_assert_str_eq(d.interp, "/lib64/ld-linux-x86-64.so.2");
    bool libc = false;
    for (unsigned i = 0; i < d.nneeded; i++)
        libc |= !strcmp(d.needed[i], "libc.so.6");
    ck_assert(libc);
    /* Every truncation is refused or read within bounds (ASan checks). */
    for (size_t cut = 0; cut < 4096; cut += 7)
        (void)elf_deps_read(image, cut, &d);
    ck_assert_int_eq(elf_deps_read((const uint8_t *)"#!/bin/sh\n", 10, &d), -1);
}
END_TEST

static uint8_t scratch[64];
static bool read_scratch(void *ctx, uint64_t va, void *dst, unsigned len)
{
    (void)ctx;
    if (va < 0x1000 || va + len > 0x1000 + sizeof(scratch))
        return false;
    memcpy(dst, scratch + (va - 0x1000), len);
    return true;
}

START_TEST(emulate_table)
{
    struct kvm_regs r = { .rip = 0x100, .rflags = 0x2 };
    struct kvm_fpu fpu = { 0 };
    struct emulate_result e;

    e = emulate_instruction((const uint8_t[]){ 0xcc }, 1, &r, &fpu, read_scratch, NULL);
    ck_assert_int_eq(e.action, EMULATE_INJECT_BP);
    ck_assert_uint_eq(r.rip, 0x101);

    e = emulate_instruction((const uint8_t[]){ 0x0f, 0x01, 0xcb }, 3, &r, &fpu, read_scratch, NULL);
    ck_assert_str_eq(e.name, "stac");
    ck_assert(r.rflags & (1u << 18));
    emulate_instruction((const uint8_t[]){ 0x0f, 0x01, 0xca }, 3, &r, &fpu, read_scratch, NULL);
    ck_assert(!(r.rflags & (1u << 18)));

    /* popcnt rax, rdi (F3 48 0F B8 C7) */
    r.rdi = 0xf0f0f0f0f0f0f0f1ULL;
    r.rax = 0;
    e = emulate_instruction((const uint8_t[]){ 0xf3, 0x48, 0x0f, 0xb8, 0xc7 }, 5, &r, &fpu, read_scratch, NULL);
    ck_assert_str_eq(e.name, "popcnt");
    ck_assert_uint_eq(r.rax, 33);
    ck_assert(!(r.rflags & 0x40));
    /* popcnt r9d, r10d (F3 45 0F B8 CA): 32-bit, zero source sets ZF */
    r.r10 = 0xffffffff00000000ULL;
    r.r9 = 0x1234;
    emulate_instruction((const uint8_t[]){ 0xf3, 0x45, 0x0f, 0xb8, 0xca }, 5, &r, &fpu, read_scratch, NULL);
    ck_assert_uint_eq(r.r9, 0);
    ck_assert(r.rflags & 0x40);

    /* ldmxcsr [rsp+4] (0F AE 54 24 04) */
    uint32_t mxcsr = 0x1f80;
    memcpy(scratch + 4, &mxcsr, 4);
    r.rsp = 0x1000;
    uint64_t rip = r.rip;
    e = emulate_instruction((const uint8_t[]){ 0x0f, 0xae, 0x54, 0x24, 0x04 }, 5, &r, &fpu, read_scratch, NULL);
    ck_assert_str_eq(e.name, "ldmxcsr");
    ck_assert(e.fpu_changed);
    ck_assert_uint_eq(fpu.mxcsr, 0x1f80);
    ck_assert_uint_eq(r.rip, rip + 5);
    /* reserved MXCSR bits, or an unreadable operand: not ours */
    mxcsr = 0x10000;
    memcpy(scratch + 4, &mxcsr, 4);
    struct kvm_regs before = r;
    e = emulate_instruction((const uint8_t[]){ 0x0f, 0xae, 0x54, 0x24, 0x04 }, 5, &r, &fpu, read_scratch, NULL);
    ck_assert_int_eq(e.action, EMULATE_NONE);
    ck_assert(!memcmp(&before, &r, sizeof(r)));

    /* shlx r8d, r8d, edx (C4 42 69 F7 C0), as Debian 6.12's zstd has it */
    r.r8 = 0x80000003;
    r.rdx = 33;   /* masked to 1 for 32 bits */
    e = emulate_instruction((const uint8_t[]){ 0xc4, 0x42, 0x69, 0xf7, 0xc0 }, 5, &r, &fpu, read_scratch, NULL);
    ck_assert_str_eq(e.name, "shlx");
    ck_assert_uint_eq(e.length, 5);
    ck_assert_uint_eq(r.r8, 6);
    /* shrx rax, rbx, rcx (C4 E2 F3 F7 C3: W=1, vvvv=rcx, F2) and sarx (F3) */
    r.rbx = 0x8000000000000000ULL;
    r.rcx = 4;
    emulate_instruction((const uint8_t[]){ 0xc4, 0xe2, 0xf3, 0xf7, 0xc3 }, 5, &r, &fpu, read_scratch, NULL);
    ck_assert_uint_eq(r.rax, 0x0800000000000000ULL);
    e = emulate_instruction((const uint8_t[]){ 0xc4, 0xe2, 0xf2, 0xf7, 0xc3 }, 5, &r, &fpu, read_scratch, NULL);
    ck_assert_str_eq(e.name, "sarx");
    ck_assert_uint_eq(r.rax, 0xf800000000000000ULL);

    e = emulate_instruction((const uint8_t[]){ 0xdb, 0xe3 }, 2, &r, &fpu, read_scratch, NULL);
    ck_assert_str_eq(e.name, "fninit");
    ck_assert_uint_eq(fpu.fcw, 0x37f);

    /* Anything else is left alone; so are truncated encodings. */
    before = r;
    ck_assert_int_eq(emulate_instruction((const uint8_t[]){ 0x0f, 0x0b }, 2, &r, &fpu, read_scratch, NULL).action,
                     EMULATE_NONE);
    ck_assert_int_eq(emulate_instruction((const uint8_t[]){ 0xf3, 0x48, 0x0f }, 3, &r, &fpu, read_scratch, NULL).action,
                     EMULATE_NONE);
    ck_assert_int_eq(emulate_instruction(NULL, 0, &r, &fpu, read_scratch, NULL).action, EMULATE_NONE);
    ck_assert(!memcmp(&before, &r, sizeof(r)));
}
END_TEST

static void feed(struct ktap *k, const char *text)
{
    char line[256];
    while (*text) {
        size_t n = strcspn(text, "\n");
        snprintf(line, sizeof(line), "%.*s", (int)n, text);
        ktap_line(k, line);
        text += n + (text[n] == '\n');
    }
}

START_TEST(ktap_passing_and_failing_runs)
{
    struct ktap k;
    ktap_init(&k);
    feed(&k, "Booting\nKTAP version 1\n1..2\n    KTAP version 1\n    # Subtest: example\n    1..2\n"
             "    ok 1 example_simple_test\n    ok 2 example_skip_test # SKIP this test should be skipped\n"
             "ok 1 example\n");
    ck_assert(!ktap_complete(&k));
    feed(&k, "    KTAP version 1\n    # Subtest: handover_selftest\n    1..2\n    ok 1 handover_selftest_sanity\n"
             "    # handover_selftest_param_controlled: EXPECTATION FAILED at x.c:37\n"
             "    not ok 2 handover_selftest_param_controlled\n"
             "# handover_selftest: pass:1 fail:1 skip:0 total:2\nnot ok 2 handover_selftest\n");
    ck_assert(ktap_complete(&k));
    ck_assert(!ktap_passed(&k));
    ck_assert_uint_eq(k.nsuites, 2);
    ck_assert_uint_eq(k.suites[0].passed, 1);
    ck_assert_uint_eq(k.suites[0].skipped, 1);
    ck_assert_uint_eq(k.suites[1].failed, 1);
    ck_assert_uint_eq(k.nfailed, 1);
    ck_assert_str_eq(k.failed[0], "handover_selftest.handover_selftest_param_controlled");

    ktap_free(&k);
    feed(&k, "[    0.500000] KTAP version 1\n[    0.500001] 1..1\n[    0.5] ok 1 bits-test\n");
    ck_assert(ktap_complete(&k));
    ck_assert(ktap_passed(&k));

    ktap_free(&k);   /* ok lines before a KTAP header are not results */
    feed(&k, "ok 1 nothing\n1..1\n");
    ck_assert(!k.started);
    ck_assert(!ktap_complete(&k));
    ktap_free(&k);
}
END_TEST

/* A reader that saw no line saw no run: not complete, not passed, whether
 * it was initialised or is the zeroed state of a run that never started
 * (issue 27: a refused image once read as "plan 0, complete, passed"). */
START_TEST(ktap_that_saw_no_line_is_not_complete)
{
    struct ktap zeroed = { 0 }, k;
    ck_assert(!ktap_complete(&zeroed));
    ck_assert(!ktap_passed(&zeroed));
    ktap_init(&k);
    ck_assert(!ktap_complete(&k));
    ck_assert(!ktap_passed(&k));
    feed(&k, "KTAP version 1\n1..0\n");   /* a run with no suites is one that was seen */
    ck_assert(ktap_complete(&k));
    ktap_free(&k);
}
END_TEST

/* Any number of suites: 200, three cases each, two failures in the 150th
 * (the reader once stopped at 64 suites and called the run incomplete). */
START_TEST(ktap_reads_200_suites_with_failures_in_the_150th)
{
    struct ktap k;
    ktap_init(&k);
    feed(&k, "KTAP version 1\n1..200\n");
    char buf[512];
    for (unsigned i = 1; i <= 200; i++) {
        bool bad = i == 150;
        snprintf(buf, sizeof(buf),
                 "    KTAP version 1\n    # Subtest: suite%u\n    1..3\n    ok 1 case_a\n"
                 "    %s 2 case_b\n    %s 3 case_c\n%s %u suite%u\n",
                 i, bad ? "not ok" : "ok", bad ? "not ok" : "ok", bad ? "not ok" : "ok", i, i);
        feed(&k, buf);
    }
    ck_assert(ktap_complete(&k));
    ck_assert(!ktap_passed(&k));
    ck_assert_uint_eq(k.nsuites, 200);
    ck_assert_uint_eq(k.nfailed, 2);
    ck_assert_str_eq(k.failed[0], "suite150.case_b");
    ck_assert_str_eq(k.failed[1], "suite150.case_c");
    ck_assert(!k.suites[149].ok);
    ck_assert(k.suites[199].ok);
    ck_assert_uint_eq(k.suites[199].passed, 3);
    ck_assert_uint_eq(k.ncases, 600);   /* every case, for --kunit-json */
    ck_assert_str_eq(k.cases[149 * 3 + 1].name, "case_b");
    ck_assert_uint_eq(k.cases[149 * 3 + 1].suite, 149);
    ck_assert_int_eq(k.cases[149 * 3 + 1].status, KTAP_FAIL);
    ck_assert_int_eq(k.cases[0].status, KTAP_PASS);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    ktap_summary(&k, out);
    fclose(out);
    ck_assert_ptr_nonnull(strstr(text, "kunit: 200 suites (1 failed), 600 tests: 598 passed, 2 failed, 0 skipped"));
    ck_assert_ptr_null(strstr(text, "incomplete"));
    free(text);
    ktap_free(&k);
}
END_TEST

Suite *boot_data_suite(void)
{
    Suite *s = suite_create("boot-data");
    TCase *t = tcase_create("boot-data");
    tcase_add_test(t, acpi_tables_checksum_and_link);
    tcase_add_test(t, acpi_com2_in_an_ssdt_and_the_madt);
    tcase_add_test(t, dtb_reads_back_with_libfdt);
    tcase_add_test(t, cpio_archive_is_newc);
    tcase_add_test(t, cpio_names_never_climb);
    tcase_add_test(t, elf_deps_of_this_program);
    tcase_add_test(t, emulate_table);
    tcase_add_test(t, ktap_passing_and_failing_runs);
    tcase_add_test(t, ktap_that_saw_no_line_is_not_complete);
    tcase_add_test(t, ktap_reads_200_suites_with_failures_in_the_150th);
    suite_add_tcase(s, t);
    return s;
}
