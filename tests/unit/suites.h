/* The unit-test suites, one per area; main.c runs them all. */
#ifndef HANDOVER_UNIT_SUITES_H
#define HANDOVER_UNIT_SUITES_H

#include <check.h>

Suite *layout_suite(void);     /* test_layout.c: struct layouts against the specs */
Suite *bzimage_suite(void);    /* test_bzimage.c: parsing, placing, loading, boot_params */
Suite *pe_suite(void);         /* test_pe.c: PE32+ parsing, mapping, base relocations */
Suite *memmap_suite(void);     /* test_memmap.c: the EFI memory map and page allocator */
Suite *guest_mem_suite(void);  /* test_guest_mem.c: bounds and page-table walks */
Suite *firmware_suite(void);   /* test_firmware.c: tables and services through firmware_call */
Suite *x86_setup_suite(void);  /* test_x86_setup.c: page tables, GDT, IDT, sregs */
Suite *devices_suite(void);    /* test_devices.c: 8250, i8042, exit port, io_bus, device persist */
Suite *inject_suite(void);     /* test_inject.c: fault specs, arming, snapshot pieces */
Suite *cpuid_suite(void);      /* test_cpuid.c: guest CPUID normalization */
Suite *verdict_suite(void);    /* test_verdict.c: console watchers, fault outcomes */
Suite *boot_data_suite(void);  /* test_boot_data.c: ACPI, device tree, cpio, emulation, KTAP */
Suite *service_table_suite(void); /* test_service_table.c: service rows and fault descriptors */
Suite *simple_fs_suite(void);  /* test_simple_fs.c: --esp, its volume, file protocols and host folder */

#endif
