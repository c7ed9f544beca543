/* Runs every unit-test suite. CK_FORK=no (the sanitizer and valgrind runs)
 * keeps everything in one process; the tests free what they allocate even
 * when an assertion fails (checked fixtures). */
#include <stdlib.h>

#include "suites.h"

int main(void)
{
    SRunner *sr = srunner_create(layout_suite());
    srunner_add_suite(sr, bzimage_suite());
    srunner_add_suite(sr, pe_suite());
    srunner_add_suite(sr, memmap_suite());
    srunner_add_suite(sr, guest_mem_suite());
    srunner_add_suite(sr, firmware_suite());
    srunner_add_suite(sr, x86_setup_suite());
    srunner_add_suite(sr, cpuid_suite());
    srunner_add_suite(sr, devices_suite());
    srunner_add_suite(sr, boot_data_suite());
    srunner_add_suite(sr, inject_suite());
    srunner_add_suite(sr, service_table_suite());
    srunner_add_suite(sr, simple_fs_suite());
    srunner_add_suite(sr, verdict_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
