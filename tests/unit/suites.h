/* The unit-test suites, one per area; main.c runs them all. */
#ifndef HANDOVER_UNIT_SUITES_H
#define HANDOVER_UNIT_SUITES_H

#include <check.h>

Suite *layout_suite(void);     /* test_layout.c: struct layouts against the specs */
Suite *bzimage_suite(void);    /* test_bzimage.c: parsing, placing, loading, boot_params */
Suite *pe_suite(void);         /* test_pe.c: PE32+ parsing, mapping, base relocations */
Suite *dtb_suite(void);        /* test_dtb.c: the device tree, read back with libfdt */
Suite *cpio_suite(void);       /* test_cpio.c: the newc archive and the names it refuses */
Suite *kernel_entry_suite(void); /* test_kernel_entry.c: the entry of a kernel another loader placed */
Suite *elf_deps_suite(void);   /* test_elf_deps.c: what an --add program needs */
Suite *add_files_suite(void);  /* test_add_files.c: the archive --add builds, as the kernel unpacks it */
Suite *memmap_suite(void);     /* test_memmap.c: the EFI memory map and page allocator */
Suite *guest_mem_suite(void);  /* test_guest_mem.c: bounds and page-table walks */
/* The firmware through firmware_call, on the fixture of fw_fixture.h. */
Suite *fw_tables_suite(void);  /* test_fw_tables.c: system and service tables, configuration tables */
Suite *fw_memory_suite(void);  /* test_fw_memory.c: GetMemoryMap, AllocatePages/Pool, FreePages/Pool */
Suite *fw_exit_boot_services_suite(void); /* test_fw_exit_boot_services.c: ExitBootServices */
Suite *fw_variables_suite(void);  /* test_fw_variables.c: the variable services */
Suite *fw_protocols_suite(void);  /* test_fw_protocols.c: protocol lookups, the handle database */
Suite *fw_rng_suite(void);     /* test_fw_rng.c: EFI_RNG_PROTOCOL */
Suite *fw_tcg2_suite(void);    /* test_fw_tcg2.c: EFI_TCG2_PROTOCOL, its event log and PCRs */
Suite *fw_memattr_suite(void); /* test_fw_memattr.c: EFI_MEMORY_ATTRIBUTE_PROTOCOL on the identity map */
Suite *fw_image_suite(void);   /* test_fw_image.c: LoadedImage, LoadImage, StartImage, Exit */
Suite *fw_events_suite(void);  /* test_fw_events.c: events, timers, TPLs, notify functions */
Suite *fw_console_suite(void); /* test_fw_console.c: ConOut, ConIn, --keys */
Suite *fw_runtime_suite(void); /* test_fw_runtime.c: SetVirtualAddressMap, GetTime, ResetSystem */
Suite *fw_misc_services_suite(void); /* test_fw_misc_services.c: CRC32, CopyMem, SetMem, Stall... */
Suite *fw_watchdog_suite(void);   /* test_fw_watchdog.c: SetWatchdogTimer, and the watchdog's expiry */
Suite *fw_dispatch_suite(void);   /* test_fw_dispatch.c: hostile arguments, unknown IDs, log, trace */
Suite *fw_inject_suite(void);  /* test_fw_inject.c: injected faults met through the services */
Suite *fw_ia32_suite(void);    /* test_fw_ia32.c: an IA-32 firmware's layouts, arguments and outputs */
Suite *fw_acpi_suite(void);    /* test_fw_acpi.c: the ACPI tables */
Suite *secure_boot_suite(void); /* test_secure_boot.c: signature lists, Authenticode, PK/KEK/db/dbx, LoadImage */
Suite *x86_setup_suite(void);  /* test_x86_setup.c: page tables, GDT, IDT, sregs */
Suite *cpuid_suite(void);      /* test_cpuid.c: guest CPUID normalization */
Suite *emulate_suite(void);    /* test_emulate.c: the emulation fallbacks */
Suite *devices_suite(void);    /* test_devices.c: 8250, i8042, exit port, io_bus, the init list, device snapshots */
Suite *inject_suite(void);     /* test_inject.c: fault specs, arming, snapshot pieces */
Suite *verdict_suite(void);    /* test_verdict.c: console watchers, fault outcomes, KTAP */
Suite *service_table_suite(void); /* test_service_table.c: service rows and fault descriptors */
Suite *report_suite(void);     /* test_report.c: --report's and --kunit-json's JSON */
Suite *sweep_suite(void);      /* test_sweep.c: the --fault-sweep matrix, its cells and verdict */
Suite *options_suite(void);    /* test_options.c: the command line handover is given */
Suite *fw_block_io_suite(void);  /* test_fw_block_io.c: --esp as a disk, EFI_BLOCK_IO */
Suite *simple_fs_suite(void);  /* test_simple_fs.c: --esp, its volume, file protocols and host folder */
Suite *esp_disk_suite(void);   /* test_esp_disk.c: --esp as a GPT disk with a FAT partition, read by sfdisk, fsck.fat, mtools */
Suite *snapshot_file_suite(void);   /* test_snapshot_file.c: --snapshot's state file, its checks, inputs and payload */
Suite *ram_file_suite(void);        /* test_ram_file.c: --snapshot's RAM file, written sparse */
Suite *files_suite(void);           /* test_files.c: whole outputs, renamed into place only when complete */

#endif
