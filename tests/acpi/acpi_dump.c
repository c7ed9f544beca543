/* The ACPI tables of one configuration, as files for ACPICA's tools
 * (tests/acpi/check-tables.sh runs iasl -d and acpiexec on them): the
 * firmware built on a buffer standing for guest RAM as vmm/boot.c builds
 * it, firmware_install_acpi called, then the RSDP and every table the
 * XSDT and the FADT reach written to DIR/SIG.dat (the SSDTs as SSDT1.dat,
 * SSDT2.dat in XSDT order, as acpixtract names them).
 *
 *   acpi-dump DIR [--cpus N] [--com2] [--vmgenid] [--tpm] [--firmware-bits 32]
 *
 * --com2 and --vmgenid stand for --exec-output and --snapshot. Exit 0 when
 * written, 1 on a bad argument, a table that does not fit guest RAM or
 * cannot be written. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../firmware-stub/acpi.h"
#include "../../firmware-stub/firmware.h"
#include "../../firmware-stub/tcg2.h"

#define MEM (256u << 20)

struct dump_options {
    const char *dir;
    unsigned cpus, bits;
    bool com2, vmgenid, tpm;
};

static int parse(int argc, char **argv, struct dump_options *o)
{
    *o = (struct dump_options){ .dir = argv[1], .cpus = 1, .bits = 64 };
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--cpus") && i + 1 < argc)
            o->cpus = (unsigned)strtoul(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--firmware-bits") && i + 1 < argc)
            o->bits = (unsigned)strtoul(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--com2"))
            o->com2 = true;
        else if (!strcmp(argv[i], "--vmgenid"))
            o->vmgenid = true;
        else if (!strcmp(argv[i], "--tpm"))
            o->tpm = true;
        else
            return -1;
    }
    return 0;
}

/* A table's bytes at gpa, its length from its header (the RSDP's from
 * its own Length field), written to DIR/NAME.dat. */
static int write_table(const struct guest_mem *gm, const char *dir, const char *name, uint64_t gpa, uint32_t len)
{
    const void *t = guest_mem_ptr(gm, gpa, len);
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s.dat", dir, name);
    FILE *f = fopen(path, "wb");
    if (!t || !f || fwrite(t, 1, len, f) != len || fclose(f)) {
        fprintf(stderr, "acpi-dump: cannot write %s (%u bytes at 0x%llx)\n", path, len, (unsigned long long)gpa);
        return -1;
    }
    return 0;
}

static uint32_t length_at(const struct guest_mem *gm, uint64_t gpa, unsigned off)
{
    uint32_t len = 0;
    const void *p = guest_mem_ptr(gm, gpa + off, 4);
    if (p)
        memcpy(&len, p, 4);
    return len;
}

static uint64_t u64_at(const struct guest_mem *gm, uint64_t gpa)
{
    uint64_t v = 0;
    const void *p = guest_mem_ptr(gm, gpa, 8);
    if (p)
        memcpy(&v, p, 8);
    return v;
}

static int write_header_table(const struct guest_mem *gm, const char *dir, const char *name, uint64_t gpa)
{
    return write_table(gm, dir, name, gpa, length_at(gm, gpa, 4));
}

/* The FADT's FACS (offset 36, 32 bits) and X_DSDT (offset 140). */
static int write_fadt_tables(const struct guest_mem *gm, const char *dir, uint64_t fadt)
{
    uint32_t facs = length_at(gm, fadt, 36);
    return write_header_table(gm, dir, "FACS", facs) | write_header_table(gm, dir, "DSDT", u64_at(gm, fadt + 140));
}

/* RSDP (its Length at offset 20, the XSDT at 24), then each XSDT entry. */
static int write_tables(const struct guest_mem *gm, const char *dir, uint64_t rsdp)
{
    uint64_t xsdt = u64_at(gm, rsdp + 24);
    int rc = write_table(gm, dir, "RSDP", rsdp, length_at(gm, rsdp, 20)) | write_header_table(gm, dir, "XSDT", xsdt);
    uint32_t xlen = length_at(gm, xsdt, 4);
    unsigned ssdts = 0;
    for (uint32_t off = 36; off + 8 <= xlen; off += 8) {
        uint64_t t = u64_at(gm, xsdt + off);
        const char *sig = guest_mem_ptr(gm, t, 4);
        char name[16];
        if (!sig)
            return -1;
        if (!memcmp(sig, "SSDT", 4))
            snprintf(name, sizeof(name), "SSDT%u", ++ssdts);
        else
            snprintf(name, sizeof(name), "%.4s", sig);
        rc |= write_header_table(gm, dir, name, t);
        if (!memcmp(sig, "FACP", 4))
            rc |= write_fadt_tables(gm, dir, t);
    }
    return rc;
}

int main(int argc, char **argv)
{
    struct dump_options o;
    if (argc < 2 || parse(argc, argv, &o)) {
        fprintf(stderr, "usage: acpi-dump DIR [--cpus N] [--com2] [--vmgenid] [--tpm] [--firmware-bits 32]\n");
        return 1;
    }
    void *buf = calloc(1, MEM);
    struct guest_mem gm;
    struct firmware fw;
    struct fw_config cfg = { .base = GUEST_FIRMWARE_BASE, .bits = o.bits };
    guest_mem_init(&gm, buf, MEM);
    if (!buf || firmware_init(&fw, &gm, &cfg)) {
        fprintf(stderr, "acpi-dump: cannot build the firmware\n");
        return 1;
    }
    uint64_t rsdp = firmware_install_acpi(&fw, o.cpus, o.com2, o.vmgenid);
    int rc = !rsdp || (o.tpm && firmware_install_tcg2(&fw)) || write_tables(&gm, o.dir, rsdp);
    if (!rsdp)
        fprintf(stderr, "acpi-dump: firmware_install_acpi failed for %u vCPUs\n", o.cpus);
    firmware_free(&fw);
    free(buf);
    return rc;
}
