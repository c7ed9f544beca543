/* ACPI tables handed over through the EFI configuration table (ACPI 6.x):
 * RSDP -> XSDT -> FADT (hardware-reduced, with a sleep control and a reset
 * register) -> DSDT (\_S5), and a MADT listing the vCPUs and the IOAPIC. */
#ifndef HANDOVER_ACPI_H
#define HANDOVER_ACPI_H

#include <stdint.h>

#include "../vmm/mem/layout.h"
#include "firmware.h"

#define ACPI_MAX_CPUS           64

/* Build the tables for ncpus vCPUs in ACPI reclaim memory and install the
 * RSDP as the ACPI 2.0 configuration table. Returns the RSDP address, 0 on
 * failure. */
uint64_t fw_install_acpi(struct firmware *fw, unsigned ncpus);

#endif
