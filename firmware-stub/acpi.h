/* ACPI tables handed over through the EFI configuration table (ACPI 6.x):
 * RSDP -> XSDT -> FADT (a PC's: PM1 blocks, SCI, reset register; FACS) ->
 * DSDT (\_S5, \_SB.COM1), a MADT listing the vCPUs and the IOAPIC, and
 * with a second UART an SSDT (\_SB.COM2); for a VM saved and restored, an
 * SSDT with a VM generation ID (\_SB.VGEN) and the Generic Event Device
 * that tells the OS it changed (\_SB.GED_). */
#ifndef HANDOVER_ACPI_H
#define HANDOVER_ACPI_H

#include <stdbool.h>
#include <stdint.h>

#include "state.h"
#include "../guest/layout.h"

#define ACPI_MAX_CPUS           64

/* Build the tables for ncpus vCPUs (and COM2 if com2) in ACPI NVS
 * memory and install the RSDP as the ACPI 2.0 configuration table. With
 * vmgenid, the VM generation ID's SSDT too, its 16-byte ID (zero) in ACPI
 * NVS memory at fw->vmgenid, and the GED on GUEST_IRQ_VMGENID_GED. Returns
 * the RSDP address, 0 on failure. */
uint64_t firmware_install_acpi(struct firmware *fw, unsigned ncpus, bool com2, bool vmgenid);

#endif
