/* Runs every unit-test suite. CK_FORK=no (the sanitizer and valgrind runs)
 * keeps everything in one process; the tests free what they allocate even
 * when an assertion fails (checked fixtures). */
#include <stdlib.h>

#include "suites.h"

int main(void)
{
    Suite *(*const suites[])(void) = {
        layout_suite, bzimage_suite, pe_suite, dtb_suite, cpio_suite, kernel_entry_suite, elf_deps_suite, memmap_suite,
        add_files_suite, guest_mem_suite,
        fw_tables_suite, fw_memory_suite, fw_exit_boot_services_suite, fw_variables_suite, fw_protocols_suite,
        fw_rng_suite, fw_tcg2_suite, fw_memattr_suite, fw_image_suite, fw_events_suite, fw_console_suite, fw_runtime_suite, fw_misc_services_suite,
        fw_watchdog_suite,
        fw_dispatch_suite, fw_inject_suite, fw_ia32_suite, fw_acpi_suite, secure_boot_suite, x86_setup_suite, cpuid_suite, emulate_suite,
        devices_suite, inject_suite, service_table_suite, simple_fs_suite, esp_disk_suite, fw_block_io_suite, verdict_suite,
        report_suite, sweep_suite, options_suite,
        snapshot_file_suite, ram_file_suite, files_suite,
    };
    SRunner *sr = srunner_create(suites[0]());
    for (size_t i = 1; i < sizeof(suites) / sizeof(suites[0]); i++)
        srunner_add_suite(sr, suites[i]());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
