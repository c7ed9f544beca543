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
 *   0x00149000               a PAE PDPT over the first four page directories (an i386 kernel's --stop-at ebs)
 *   ...        - 0x001fffff  firmware stack (grows down from 2 MiB)
 *   0x00200000 -             conventional RAM; the kernel image goes at pref_address
 */
#ifndef HANDOVER_LAYOUT_H
#define HANDOVER_LAYOUT_H

#define GUEST_LOW_RAM_END             0x000a0000ULL
#define GUEST_LEGACY_END              0x00100000ULL
#define GUEST_FIRMWARE_BASE           0x00100000ULL
#define GUEST_GDT                     0x00104000ULL
#define GUEST_IDT                     0x00105000ULL
#define GUEST_PML4                    0x00106000ULL
#define GUEST_PDPT                    0x00107000ULL
#define GUEST_PD                      0x00108000ULL
#define GUEST_MAX_PD                  64             /* identity map up to 64 GiB */
#define GUEST_PML4_ALT                0x00148000ULL  /* a second PML4: switching CR3 to it flushes the TLB */
#define GUEST_PDPT_PAE                0x00149000ULL  /* 32-bit PAE paging on the same page directories */
#define GUEST_STACK_TOP               0x00200000ULL
#define GUEST_STACK_SIZE              0x00040000ULL  /* 256 KiB */
#define GUEST_VMM_END                 0x00200000ULL  /* end of the boot-services data the VMM owns */
#define GUEST_KERNEL_MIN              0x01000000ULL  /* 16 MiB: LOAD_PHYSICAL_ADDR */

/* RAM is [0, GUEST_HOLE_START) and, when it does not fit there, resumes at
 * 4 GiB: the hole keeps the IOAPIC and LAPIC MMIO free. */
#define GUEST_4GIB                    0x100000000ULL
#define GUEST_HOLE_START              0xC0000000ULL  /* 3 GiB: start of the 32-bit MMIO hole */
#define GUEST_HIGH_START              GUEST_4GIB     /* RAM above the hole resumes at 4 GiB */
#define GUEST_IOAPIC_ADDR             0xfec00000u
#define GUEST_LAPIC_ADDR              0xfee00000u

/* KVM_SET_TSS_ADDR: three pages Intel's VMX needs for real mode, in the
 * 32-bit hole below the BIOS area, where no RAM is. */
#define GUEST_KVM_TSS                 0xfffbd000ULL

#define GUEST_MIN_MEM                 (64ULL << 20)
#define GUEST_MAX_MEM                 (32ULL << 30)

_Static_assert(GUEST_PD + GUEST_MAX_PD * 0x1000 <= GUEST_PML4_ALT, "page directories below the second PML4");
_Static_assert(GUEST_PML4_ALT + 0x1000 <= GUEST_PDPT_PAE, "the PAE PDPT above the second PML4");
_Static_assert(GUEST_PDPT_PAE + 0x1000 <= GUEST_STACK_TOP - GUEST_STACK_SIZE, "page tables below the stack");

/* Selectors of the firmware GDT. */
#define GUEST_SEL_CODE64              0x08
#define GUEST_SEL_DATA                0x10
/* An IA-32 firmware's (--firmware-bits 32): flat 32-bit code and data at
 * the selectors boot.rst's 32-bit boot protocol names, __BOOT_CS and
 * __BOOT_DS. Its IDT's gates name 0x10 too: they serve the stub's long
 * mode, which runs on the kernel's own GDT, where 0x10 is the 64-bit
 * __KERNEL_CS (arch/x86/boot/compressed/head_64.S). */
#define GUEST_SEL_CODE32              0x10
#define GUEST_SEL_DATA32              0x18

/* I/O ports and IRQs (docs/guest-abi.md). */
/* firmware thunks: mov eax, ID; out GUEST_PORT_HYPERCALL, eax (firmware-stub/firmware.h) */
#define GUEST_PORT_HYPERCALL          0xEC
/* 8250 UART (vmm/devices/serial.c), the console, described in the DSDT;
 * the kernel's legacy ttyS0 (arch/x86/include/asm/serial.h) */
#define GUEST_PORT_COM1               0x3f8
#define GUEST_IRQ_COM1                4
#define GUEST_PORT_COM2               0x2f8          /* the second UART, only with --exec-output (SSDT) */
#define GUEST_IRQ_COM2                3
#define GUEST_PORT_I8042_DATA         0x60           /* vmm/devices/i8042.c */
#define GUEST_PORT_I8042_CMD          0x64
#define GUEST_PORT_EXIT               0xf4           /* vmm/devices/exit_port.c */

/* ACPI fixed hardware of the FADT (firmware-stub/acpi.c), served by
 * vmm/devices/acpi_pm.c; the PM1 blocks where QEMU's q35 has them. */
#define GUEST_PORT_ACPI_PM1_EVT       0x600          /* FADT PM1a_EVT_BLK: status, enable (2 bytes each) */
#define GUEST_PORT_ACPI_PM1_CNT       0x604          /* FADT PM1a_CNT_BLK (2 bytes) */
#define GUEST_PORT_ACPI_RESET         0x606          /* FADT RESET_REG */
#define GUEST_IRQ_ACPI_SCI            9              /* FADT SCI_INT */
#define GUEST_ACPI_RESET_VALUE        0x06           /* FADT RESET_VALUE */
#define GUEST_ACPI_SLP_TYP_S5         5              /* the DSDT's \_S5 package value */
/* The VM generation ID's Generic Event Device (only with --snapshot): an
 * ISA IRQ no device uses, edge and active high as an ISA IRQ without an
 * override is; vmm/tools/warm_boot.c raises it on a restore. */
#define GUEST_IRQ_VMGENID_GED         5

#endif
