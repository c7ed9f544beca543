/* Guest-physical layout and the guest ABI: every fixed address, port and
 * IRQ the VMM, its devices and the firmware's tables use, in one place
 * (Firecracker's arch/x86_64/layout.rs is the model). The firmware-stub and
 * the devices include it; nothing else defines an address.
 *
 *   0x00000000 - 0x0009ffff  conventional RAM (the kernel's real-mode trampoline wants some)
 *   0x000a0000 - 0x000fffff  reserved (legacy VGA/BIOS hole)
 *   0x00100000 - 0x00103fff  firmware (firmware-stub/state.h: RT code, RT data, BS data)
 *   0x00104000               GDT
 *   0x00105000               IDT (32 exception gates into firmware thunks)
 *   0x00106000               PML4
 *   0x00107000               PDPT
 *   0x00108000 - 0x00147fff  page directories, one per GiB identity-mapped (2 MiB pages)
 *   0x00148000               a second PML4, same tables (see run.c, --stop-at ebs)
 *   ...        - 0x001fffff  firmware stack (grows down from 2 MiB)
 *   0x00200000 -             conventional RAM; the kernel image goes at pref_address
 */
#ifndef HANDOVER_LAYOUT_H
#define HANDOVER_LAYOUT_H

#define LAYOUT_LOW_RAM_END    0x000a0000ULL
#define LAYOUT_LEGACY_END     0x00100000ULL
#define LAYOUT_FIRMWARE_BASE  0x00100000ULL
#define LAYOUT_GDT            0x00104000ULL
#define LAYOUT_IDT            0x00105000ULL
#define LAYOUT_PML4           0x00106000ULL
#define LAYOUT_PDPT           0x00107000ULL
#define LAYOUT_PD             0x00108000ULL
#define LAYOUT_MAX_PD         64            /* identity map up to 64 GiB */
#define LAYOUT_PML4_ALT       0x00148000ULL /* a second PML4: switching CR3 to it flushes the TLB */
#define LAYOUT_STACK_TOP      0x00200000ULL
#define LAYOUT_STACK_SIZE     0x00040000ULL /* 256 KiB */
#define LAYOUT_VMM_END        0x00200000ULL /* end of the boot-services data the VMM owns */
#define LAYOUT_KERNEL_MIN     0x01000000ULL /* 16 MiB: LOAD_PHYSICAL_ADDR */

/* RAM is [0, GUEST_HOLE_START) and, when it does not fit there, resumes at
 * 4 GiB: the hole keeps the IOAPIC and LAPIC MMIO free. */
#define GUEST_4GIB            0x100000000ULL
#define GUEST_HOLE_START      0xC0000000ULL  /* 3 GiB: start of the 32-bit MMIO hole */
#define GUEST_HIGH_START      GUEST_4GIB     /* RAM above the hole resumes at 4 GiB */
#define LAYOUT_IOAPIC_ADDR    0xfec00000u
#define LAYOUT_LAPIC_ADDR     0xfee00000u

/* KVM_SET_TSS_ADDR: three pages Intel's VMX needs for real mode, in the
 * 32-bit hole below the BIOS area, where no RAM is. */
#define LAYOUT_KVM_TSS        0xfffbd000ULL

#define LAYOUT_MIN_MEM        (64ULL << 20)
#define LAYOUT_MAX_MEM        (32ULL << 30)

_Static_assert(LAYOUT_PD + LAYOUT_MAX_PD * 0x1000 <= LAYOUT_PML4_ALT, "page directories below the second PML4");
_Static_assert(LAYOUT_PML4_ALT + 0x1000 <= LAYOUT_STACK_TOP - LAYOUT_STACK_SIZE, "page tables below the stack");

/* Selectors of the firmware GDT. */
#define GDT_CODE64 0x08
#define GDT_DATA   0x10

/* I/O ports and IRQs (docs/guest-abi.md). */
#define FW_HYPERCALL_PORT 0xEC      /* firmware thunks: out FW_HYPERCALL_PORT, eax (firmware-stub/firmware.h) */
#define PORT_SERIAL_COM1  0x3f8     /* 8250 UART (vmm/devices/serial.c), the console, described in the DSDT;
                                       the kernel's legacy ttyS0 (arch/x86/include/asm/serial.h) */
#define IRQ_SERIAL_COM1   4
#define PORT_SERIAL_COM2  0x2f8     /* the second UART, only with --exec-output (SSDT) */
#define IRQ_SERIAL_COM2   3
#define PORT_I8042_DATA   0x60      /* vmm/devices/i8042.c */
#define PORT_I8042_CMD    0x64
#define PORT_EXIT         0xf4      /* vmm/devices/exit_port.c */

/* ACPI fixed hardware of the hardware-reduced FADT (firmware-stub/acpi.c),
 * served by vmm/devices/acpi_pm.c. */
#define ACPI_SLEEP_CONTROL_PORT 0x600   /* FADT SLEEP_CONTROL_REG */
#define ACPI_SLEEP_STATUS_PORT  0x601   /* FADT SLEEP_STATUS_REG */
#define ACPI_RESET_PORT         0x602   /* FADT RESET_REG */
#define ACPI_RESET_VALUE        0x06    /* FADT RESET_VALUE */
#define ACPI_SLP_TYP_S5         5       /* the DSDT's \_S5 package value */

#endif
