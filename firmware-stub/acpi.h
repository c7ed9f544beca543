/* ACPI tables handed over through the EFI configuration table (ACPI 6.x):
 * RSDP -> XSDT -> FADT (hardware-reduced, with a sleep control and a reset
 * register) -> DSDT (\_S5, \_SB.COM1), a MADT listing the vCPUs and the
 * IOAPIC, and with a second UART an SSDT (\_SB.COM2). */
#ifndef HANDOVER_ACPI_H
#define HANDOVER_ACPI_H

#include <stdbool.h>
#include <stdint.h>

#include "firmware.h"

#define ACPI_SLEEP_CONTROL_PORT 0x600   /* FADT SLEEP_CONTROL_REG */
#define ACPI_SLEEP_STATUS_PORT  0x601   /* FADT SLEEP_STATUS_REG */
#define ACPI_RESET_PORT         0x602   /* FADT RESET_REG */
#define ACPI_RESET_VALUE        0x06
#define ACPI_SLP_TYP_S5         5       /* the \_S5 package's value */
#define ACPI_SLEEP_TYPE_SHIFT   2       /* SLP_TYPx in the sleep control register */
#define ACPI_SLEEP_TYPE_MASK    0x1c
#define ACPI_SLEEP_ENABLE       0x20
#define ACPI_UART_PORT          0x3f8   /* COM1 in the DSDT */
#define ACPI_UART_IRQ           4
#define ACPI_UART2_PORT         0x2f8   /* COM2 in the SSDT (--exec-output) */
#define ACPI_UART2_IRQ          3
#define ACPI_IOAPIC_ADDR        0xfec00000u
#define ACPI_LAPIC_ADDR         0xfee00000u
#define ACPI_MAX_CPUS           64

/* Build the tables for ncpus vCPUs (and COM2 if com2) in ACPI reclaim
 * memory and install the RSDP as the ACPI 2.0 configuration table. Returns
 * the RSDP address, 0 on failure. */
uint64_t fw_install_acpi(struct firmware *fw, unsigned ncpus, bool com2);

#endif
