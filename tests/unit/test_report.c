/* vmm/tools/report.c: --report's JSON and --kunit-json's, written from
 * plain structs (no VM), read back with jansson. The keys are those
 * docs/report.md lists. */
#include <errno.h>
#include <jansson.h>
#include <linux/kvm.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "suites.h"
#include "../../firmware-stub/firmware.h"
#include "../../vmm/host/log.h"
#include "../../vmm/tools/report.h"
#include "../../vmm/verdict/milestones.h"

#define RAM_SIZE (1u << 20)

static uint8_t *ram;
static struct guest_mem gm;
static struct report_data data;
static struct run_counters counters;
static uint64_t calls_by_id[FW_MAX_THUNKS];
static double milestone_at[MILESTONE_COUNT];
static struct ktap ktap;
static char *text;
static size_t text_len;
static json_t *doc;

static void setup(void)
{
    ram = mmap(NULL, RAM_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert_ptr_ne(ram, MAP_FAILED);
    guest_mem_init(&gm, ram, RAM_SIZE);
    memset(&counters, 0, sizeof(counters));
    memset(calls_by_id, 0, sizeof(calls_by_id));
    memset(milestone_at, 0, sizeof(milestone_at));
    ktap_init(&ktap);
}

static void teardown(void)
{
    report_data_free(&data);
    ktap_free(&ktap);
    json_decref(doc);
    doc = NULL;
    free(text);
    text = NULL;
    munmap(ram, RAM_SIZE);
}

/* A run refused at its image: nothing kept, nothing counted. */
static struct report_facts refused(void)
{
    return (struct report_facts){ .kernel = "bzImage", .kernel_version = "", .entry = "handover", .cmdline = "",
                                  .exit_status = 2, .end_reason = "not-started", .not_started_at = "image",
                                  .calls_by_id = calls_by_id, .counters = &counters, .milestone_at = milestone_at,
                                  .mem = &gm };
}

/* The report of f and data, parsed: the writer's status, doc set. */
static int write_and_read(const struct report_facts *f)
{
    json_decref(doc);   /* a test's earlier report */
    free(text);
    FILE *out = open_memstream(&text, &text_len);
    ck_assert_ptr_nonnull(out);
    int rc = report_write(out, f, &data);
    fclose(out);
    json_error_t err;
    doc = rc ? NULL : json_loads(text, 0, &err);
    ck_assert_msg(rc || doc, "not JSON: %s", err.text);
    return rc;
}

static unsigned service_id(const char *name)
{
    unsigned id = 0;
    while (id < FW_MAX_THUNKS && !(firmware_service_name(id) && !strcmp(firmware_service_name(id), name)))
        id++;
    ck_assert_uint_lt(id, FW_MAX_THUNKS);
    return id;
}

static const char *str(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

START_TEST(report_of_a_run_that_never_started)
{
    const struct report_facts f = refused();
    ck_assert_int_eq(write_and_read(&f), 0);
    ck_assert_str_eq(str(json_object_get(doc, "kernel"), "path"), "bzImage");
    ck_assert_str_eq(str(json_object_get(doc, "kernel"), "protocol"), "0x0");
    ck_assert_int_eq(json_integer_value(json_object_get(doc, "exit_status")), 2);
    ck_assert_str_eq(str(doc, "end_reason"), "not-started");
    ck_assert_str_eq(str(doc, "not_started_at"), "image");
    ck_assert(json_is_null(json_object_get(doc, "efi_status")));
    ck_assert_str_eq(str(doc, "console"), "");
    ck_assert_int_eq(json_object_size(json_object_get(json_object_get(doc, "firmware_calls"), "by_name")), 0);
    ck_assert_ptr_null(json_object_get(doc, "boot_params"));
    ck_assert_ptr_null(json_object_get(doc, "memory_map_at_exit_boot_services"));
    ck_assert_ptr_null(json_object_get(doc, "exec"));
    ck_assert_ptr_null(json_object_get(doc, "kunit"));
    ck_assert(json_is_object(json_object_get(doc, "host")));
}
END_TEST

/* phase_seconds: every milestone by name, in order, null until reached. */
START_TEST(report_phases_are_the_milestones_in_order)
{
    struct report_facts f = refused();
    milestone_at[MILESTONE_START] = 1e-9;
    milestone_at[MILESTONE_EBS] = 2.5;
    ck_assert_int_eq(write_and_read(&f), 0);
    const json_t *phases = json_object_get(doc, "phase_seconds");
    ck_assert_int_eq(json_object_size(phases), MILESTONE_COUNT);
    const char *key;
    json_t *v;
    int m = 0;
    json_object_foreach((json_t *)phases, key, v) {
        ck_assert_str_eq(key, milestone_names[m]);
        ck_assert(m == MILESTONE_START || m == MILESTONE_EBS ? json_is_real(v) : json_is_null(v));
        m++;
    }
    ck_assert_double_eq(json_real_value(json_object_get(phases, "exit_boot_services")), 2.5);
}
END_TEST

/* What the run kept: the map at ExitBootServices and the e820 it gives,
 * the zero page (its e820 continued through setup_data), the console
 * made printable. */
START_TEST(report_of_what_the_run_kept)
{
    struct report_facts f = refused();
    f.not_started_at = NULL;
    f.exit_status = 0;
    f.end_reason = "stop-at-ebs";
    f.efi_status = "EFI_SUCCESS";
    f.firmware_calls = 3;
    calls_by_id[service_id("ExitBootServices")] = 1;
    counters.exits[KVM_EXIT_IO] = 7;
    counters.hypercalls = 3;
    static struct memmap map;
    memmap_init(&map);
    ck_assert_int_eq(memmap_add_ram(&map, 0x100000, 0x100000), 0);
    report_keep_map(&data, &map);
    static struct guest_mem gm;   /* no page tables at all: no kernel found */
    report_keep_memattr(&data, &gm, &map);
    static struct boot_params bp;
    memset(&bp, 0, sizeof(bp));
    bp.e820_entries = 1;
    bp.e820_table[0] = (struct boot_e820_entry){ 0x100000, 0x100000, E820_TYPE_RAM };
    bp.efi_info.efi_loader_signature = EFI64_LOADER_SIGNATURE;
    report_keep_boot_params(&data, &bp);
    for (const char *p = "Linux\x1b[31m\tok\n"; *p; p++)
        report_keep_console(&data, (uint8_t)*p);
    ck_assert_int_eq(write_and_read(&f), 0);
    ck_assert(json_is_null(json_object_get(doc, "not_started_at")));
    ck_assert_str_eq(str(doc, "efi_status"), "EFI_SUCCESS");
    ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(doc, "vm_exits"), "io")), 7);
    ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(json_object_get(doc, "firmware_calls"),
                                                                        "by_name"), "ExitBootServices")), 1);
    const json_t *mm = json_object_get(doc, "memory_map_at_exit_boot_services");
    ck_assert_int_eq(json_array_size(mm), 1);
    ck_assert_str_eq(str(json_array_get(mm, 0), "start"), "0x100000");
    ck_assert_str_eq(str(json_array_get(json_object_get(doc, "e820_from_memory_map"), 0), "end"), "0x1fffff");
    const json_t *kp = json_object_get(doc, "kernel_protection_at_exit_boot_services");
    ck_assert_str_eq(str(kp, "check"), "none");
    ck_assert(json_is_null(json_object_get(kp, "kernel_start")));
    ck_assert_int_eq(json_array_size(json_object_get(kp, "runs")), 0);
    const json_t *b = json_object_get(doc, "boot_params");
    ck_assert_str_eq(str(b, "efi_loader_signature"), "EL64");
    ck_assert_str_eq(str(json_array_get(json_object_get(b, "e820"), 0), "type"), "RAM");
    ck_assert_str_eq(str(doc, "console"), "Linux?[31m\tok\n");
}
END_TEST

/* A copy kept again replaces the last: the zero page as the run stopped. */
START_TEST(report_keeps_the_last_zero_page_and_a_bounded_console)
{
    static struct boot_params bp;
    memset(&bp, 0, sizeof(bp));
    report_keep_boot_params(&data, &bp);
    bp.secure_boot = 3;
    report_keep_boot_params(&data, &bp);
    ck_assert_uint_eq(data.bp_copy->secure_boot, 3);
    for (unsigned i = 0; i < (1u << 20) + 10; i++)
        report_keep_console(&data, 'x');
    ck_assert_uint_eq(data.console_log_len, 1u << 20);
}
END_TEST

START_TEST(report_of_exec_and_kunit)
{
    struct report_facts f = refused();
    f.exec = "true";
    f.exec_status_known = true;
    f.exec_status = 4;
    const char *lines[] = { "KTAP version 1", "1..1", "not ok 1 suite" };
    for (size_t i = 0; i < 3; i++)
        ktap_line(&ktap, lines[i]);
    f.kunit = &ktap;
    ck_assert_int_eq(write_and_read(&f), 0);
    const json_t *exec = json_object_get(doc, "exec");
    ck_assert_str_eq(str(exec, "command"), "true");
    ck_assert_int_eq(json_integer_value(json_object_get(exec, "status")), 4);
    ck_assert(json_is_null(json_object_get(exec, "output_file")));
    const json_t *k = json_object_get(doc, "kunit");
    ck_assert(json_is_true(json_object_get(k, "complete")));
    ck_assert(json_is_false(json_object_get(k, "passed")));
    ck_assert_str_eq(str(json_array_get(json_object_get(k, "suites"), 0), "name"), "suite");
    ck_assert(json_is_null(json_object_get(k, "unfinished_suite")));
}
END_TEST

/* The KTAP reader's counts are unsigned: past INT_MAX they are still the
 * count, never a negative number (a guest that prints cases for hours). */
START_TEST(report_kunit_counts_past_int_max)
{
    struct report_facts f = refused();
    const char *lines[] = { "KTAP version 1", "1..2", "    # Subtest: big", "    1..1", "    ok 1 a", "ok 1 big",
                            "    # Subtest: cut", "    1..3", "    not ok 1 b" };
    for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
        ktap_line(&ktap, lines[i]);
    const unsigned big = 3000000000u;
    ktap.suites[0].passed = ktap.suites[0].failed = ktap.suites[0].skipped = big;
    struct ktap_suite *cut_short = &ktap.suites[ktap.current];
    ck_assert_ptr_eq(cut_short, ktap_unfinished(&ktap));
    cut_short->passed = cut_short->failed = cut_short->skipped = big;
    ktap.failed_unnamed = big;
    f.kunit = &ktap;
    ck_assert_int_eq(write_and_read(&f), 0);
    const json_t *k = json_object_get(doc, "kunit");
    const json_t *suite = json_array_get(json_object_get(k, "suites"), 0);
    const json_t *cut = json_object_get(k, "unfinished_suite");
    const char *const keys[] = { "passed", "failed", "skipped" };
    for (size_t i = 0; i < 3; i++) {
        ck_assert_int_eq(json_integer_value(json_object_get(suite, keys[i])), big);
        ck_assert_int_eq(json_integer_value(json_object_get(cut, keys[i])), big);
    }
    ck_assert_int_eq(json_integer_value(json_object_get(k, "failed_tests_not_named")), big);
    /* Dropped suites count towards the plan: the run is then complete. */
    ktap.suites_dropped = big;
    ck_assert_int_eq(write_and_read(&f), 0);
    k = json_object_get(doc, "kunit");
    ck_assert_int_eq(json_integer_value(json_object_get(k, "suites_not_listed")), big);
}
END_TEST

/* jansson refuses a string that is not UTF-8: the write fails, EILSEQ. */
START_TEST(report_refuses_a_command_line_that_is_not_utf8)
{
    struct report_facts f = refused();
    f.cmdline = "console=ttyS0 \xff";
    errno = 0;
    ck_assert_int_eq(write_and_read(&f), -1);
    ck_assert_int_eq(errno, EILSEQ);
}
END_TEST

/* So is an --exec command or --exec-output path that is not UTF-8 (the
 * command reaches the guest in the initramfs, not on the command line):
 * the report left its exec object out, the command's status with it. */
START_TEST(report_refuses_an_exec_command_that_is_not_utf8)
{
    struct report_facts f = refused();
    f.exec = "echo \xff";
    f.exec_status_known = true;
    f.exec_status = 1;
    errno = 0;
    ck_assert_int_eq(write_and_read(&f), -1);
    ck_assert_int_eq(errno, EILSEQ);
    f.exec = "true";
    f.exec_output = "out\xff.txt";
    errno = 0;
    ck_assert_int_eq(write_and_read(&f), -1);
    ck_assert_int_eq(errno, EILSEQ);
    /* A good exec object beside a command line that is not UTF-8: freed
     * with the report (the ASan run's leak check). */
    f.exec_output = NULL;
    f.cmdline = "console=ttyS0 \xff";
    errno = 0;
    ck_assert_int_eq(write_and_read(&f), -1);
    ck_assert_int_eq(errno, EILSEQ);
}
END_TEST

/* A report that cannot be written whole is a failure, however stdio
 * buffered it: a small one fits the buffer and fails only at its flush. */
START_TEST(report_to_a_full_device_fails)
{
    FILE *out = fopen("/dev/full", "w");
    ck_assert_ptr_nonnull(out);
    const struct report_facts f = refused();
    ck_assert_int_eq(report_write(out, &f, &data), -1);
    fclose(out);
}
END_TEST

/* The lines fed to the KTAP reader, then --kunit-json written for a run
 * that entered the guest (or not: in_guest false) and parsed into doc. */
static void kunit_json_of(const char *const *lines, size_t n, const char *kernel, bool in_guest)
{
    for (size_t i = 0; i < n; i++)
        ktap_line(&ktap, lines[i]);
    FILE *out = open_memstream(&text, &text_len);
    ck_assert_int_eq(report_write_kunit_json(out, &ktap, kernel, in_guest), 0);
    fclose(out);
    json_error_t err;
    doc = json_loads(text, 0, &err);
    ck_assert_ptr_nonnull(doc);
}

/* After kunit_json_of: --report's kunit object for the same KTAP reader. */
static const json_t *report_kunit_of_the_same_run(void)
{
    json_decref(doc);
    doc = NULL;
    free(text);
    text = NULL;
    struct report_facts f = refused();
    f.kunit = &ktap;
    ck_assert_int_eq(write_and_read(&f), 0);
    return json_object_get(doc, "kunit");
}

/* A run that never entered the guest is an ERROR case of the root group,
 * never a pass; a finished run lists its suites and cases. */
START_TEST(kunit_json_says_why_a_run_has_no_result)
{
    kunit_json_of(NULL, 0, NULL, false);
    const json_t *run = json_array_get(json_object_get(doc, "test_cases"), 0);
    ck_assert_str_eq(str(run, "name"), "run-not-started");
    ck_assert_str_eq(str(run, "status"), "ERROR");
    ck_assert_str_eq(str(doc, "build_environment"), "");
}
END_TEST

/* A plan of 0 tested nothing: an ERROR case too, not an empty pass. */
START_TEST(kunit_json_of_a_run_with_no_suites)
{
    const char *lines[] = { "KTAP version 1", "1..0" };
    kunit_json_of(lines, 2, NULL, true);
    const json_t *run = json_array_get(json_object_get(doc, "test_cases"), 0);
    ck_assert_ptr_nonnull(run);
    ck_assert_str_eq(str(run, "name"), "no-suites");
    ck_assert_str_eq(str(run, "status"), "ERROR");
}
END_TEST

START_TEST(kunit_json_of_a_finished_run)
{
    const char *lines[] = { "KTAP version 1", "1..1", "    KTAP version 1", "    # Subtest: example", "    1..2",
                            "    ok 1 a", "    not ok 2 b", "not ok 1 example" };
    kunit_json_of(lines, sizeof(lines) / sizeof(lines[0]), "bzImage", true);
    ck_assert_int_eq(json_array_size(json_object_get(doc, "test_cases")), 0);
    const json_t *suite = json_array_get(json_object_get(doc, "sub_groups"), 0);
    ck_assert_str_eq(str(suite, "name"), "example");
    ck_assert_str_eq(str(suite, "build_environment"), "bzImage");
    const json_t *cases = json_object_get(suite, "test_cases");
    ck_assert_str_eq(str(json_array_get(cases, 0), "status"), "PASS");
    ck_assert_str_eq(str(json_array_get(cases, 1), "status"), "FAIL");
}
END_TEST

/* A crash in a suite's case: the suite is a group all the same, with the
 * cases it reported and an ERROR where it stopped, and --report's kunit
 * object names it; a finished run has none. */
START_TEST(kunit_json_lists_the_suite_a_crash_cut_short)
{
    const char *lines[] = { "KTAP version 1", "1..2", "    # Subtest: done", "    ok 1 a", "ok 1 done",
                            "    # Subtest: cut", "    1..3", "    not ok 1 b", "    ok 2 c",
                            "Kernel panic - not syncing: Fatal exception" };
    kunit_json_of(lines, sizeof(lines) / sizeof(lines[0]), "bzImage", true);
    ck_assert_str_eq(str(json_array_get(json_object_get(doc, "test_cases"), 0), "name"), "run-incomplete");
    const json_t *groups = json_object_get(doc, "sub_groups");
    ck_assert_int_eq(json_array_size(groups), 2);
    const json_t *cut = json_array_get(groups, 1);
    ck_assert_str_eq(str(cut, "name"), "cut");
    const json_t *cases = json_object_get(cut, "test_cases");
    ck_assert_int_eq(json_array_size(cases), 3);
    ck_assert_str_eq(str(json_array_get(cases, 0), "status"), "FAIL");
    ck_assert_str_eq(str(json_array_get(cases, 1), "name"), "c");
    ck_assert_str_eq(str(json_array_get(cases, 2), "name"), "unfinished");
    ck_assert_str_eq(str(json_array_get(cases, 2), "status"), "ERROR");
    const json_t *unfinished = json_object_get(report_kunit_of_the_same_run(), "unfinished_suite");
    ck_assert_str_eq(str(unfinished, "name"), "cut");
    ck_assert_str_eq(str(unfinished, "last_case"), "c");
    ck_assert_int_eq(json_integer_value(json_object_get(unfinished, "failed")), 1);
    ck_assert_int_eq(json_integer_value(json_object_get(unfinished, "passed")), 1);
}
END_TEST

/* Names are the guest's console bytes: one that is not UTF-8 is still
 * listed (jansson refuses such a string), so a failure under it is never
 * left out of either document. */
START_TEST(kunit_json_lists_a_failure_whose_name_is_not_utf8)
{
    const char *lines[] = { "KTAP version 1", "1..2", "    KTAP version 1", "    # Subtest: good", "    1..1",
                            "    not ok 1 b\xff\x1b[0m", "not ok 1 good", "    KTAP version 1",
                            "    # Subtest: bad\xc3", "    1..1", "    not ok 1 c", "not ok 2 bad\xc3" };
    kunit_json_of(lines, sizeof(lines) / sizeof(lines[0]), "bzImage", true);
    const json_t *groups = json_object_get(doc, "sub_groups");
    ck_assert_int_eq(json_array_size(groups), 2);
    const json_t *good = json_array_get(json_object_get(json_array_get(groups, 0), "test_cases"), 0);
    ck_assert_str_eq(str(good, "name"), "b??[0m");
    ck_assert_str_eq(str(good, "status"), "FAIL");
    ck_assert_str_eq(str(json_array_get(groups, 1), "name"), "bad?");
    const json_t *k = report_kunit_of_the_same_run();
    ck_assert_int_eq(json_array_size(json_object_get(k, "suites")), 2);
    const json_t *failed = json_object_get(k, "failed_tests");
    ck_assert_int_eq(json_array_size(failed), 2);
    ck_assert_str_eq(json_string_value(json_array_get(failed, 0)), "good.b??[0m");
    ck_assert_str_eq(json_string_value(json_array_get(failed, 1)), "bad?.c");
}
END_TEST

/* vmm/host/log.c with --trace-efi on stderr: each message a JSON line
 * {"log":...} (RFC 8259), whatever bytes it carries: quotes, backslashes,
 * control bytes, escape sequences, bytes that are not UTF-8, a line past
 * the 4096 bytes a JSON line holds. In a child, whose stderr is a pipe
 * (the JSON stream, once made, stays). */
enum { LONG_LINE = 5000, JSON_LINE_MAX = 4096 };

static void log_hostile_lines(void)
{
    if (vmm_log_as_json())
        _exit(90);
    vmm_log("guest said \"%s\"", "q\"b\\c\x01\x1b[31m\xff\xc3\x28\there");
    fputs("raw \"\x01\x7f\xff\xfe\\ end\n\n", vmm_log_file());
    for (int i = 0; i < LONG_LINE; i++)
        fputc('a', vmm_log_file());
    fputc('\n', vmm_log_file());
    fflush(vmm_log_file());
    _exit(0);
}

START_TEST(log_lines_as_json_are_json_whatever_the_guest_wrote)
{
    int err[2];
    ck_assert_int_eq(pipe(err), 0);
    fflush(stderr);
    pid_t child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) {
        close(err[0]);
        dup2(err[1], STDERR_FILENO);
        log_hostile_lines();
    }
    close(err[1]);
    static char out[16384];
    size_t len = 0;
    for (ssize_t n; (n = read(err[0], out + len, sizeof(out) - 1 - len)) > 0;)
        len += (size_t)n;
    close(err[0]);
    int status;
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    const char *want[] = { "guest said \"q\"b\\c\\x01\\x1b[31m\\xff\\xc3(\\x09here\"",
                           "raw \"\x01\x7f\u00ff\u00fe\\ end", "" };
    unsigned lines = 0;
    for (char *line = out, *nl; line < out + len; line = nl + 1, lines++) {
        nl = memchr(line, '\n', (size_t)(out + len - line));
        ck_assert_ptr_nonnull(nl);
        json_error_t e;
        json_t *j = json_loadb(line, (size_t)(nl - line), 0, &e);
        ck_assert_msg(j, "line %u is not JSON: %s", lines + 1, e.text);
        const char *log = json_string_value(json_object_get(j, "log"));
        ck_assert_ptr_nonnull(log);
        ck_assert_uint_eq(json_object_size(j), 1);
        if (lines < 3) {
            ck_assert_str_eq(log, want[lines]);
        } else {   /* the long line, cut in two */
            ck_assert_uint_eq(strspn(log, "a"), strlen(log));
            ck_assert_uint_eq(strlen(log), lines == 3 ? JSON_LINE_MAX : LONG_LINE - JSON_LINE_MAX);
        }
        json_decref(j);
    }
    ck_assert_uint_eq(lines, 5);
}
END_TEST

Suite *report_suite(void)
{
    Suite *s = suite_create("report");
    TCase *tc = tcase_create("report");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, report_of_a_run_that_never_started);
    tcase_add_test(tc, report_phases_are_the_milestones_in_order);
    tcase_add_test(tc, report_of_what_the_run_kept);
    tcase_add_test(tc, report_keeps_the_last_zero_page_and_a_bounded_console);
    tcase_add_test(tc, report_of_exec_and_kunit);
    tcase_add_test(tc, report_kunit_counts_past_int_max);
    tcase_add_test(tc, report_refuses_a_command_line_that_is_not_utf8);
    tcase_add_test(tc, report_refuses_an_exec_command_that_is_not_utf8);
    tcase_add_test(tc, report_to_a_full_device_fails);
    suite_add_tcase(s, tc);

    tc = tcase_create("kunit-json");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, kunit_json_says_why_a_run_has_no_result);
    tcase_add_test(tc, kunit_json_of_a_finished_run);
    tcase_add_test(tc, kunit_json_lists_a_failure_whose_name_is_not_utf8);
    tcase_add_test(tc, kunit_json_of_a_run_with_no_suites);
    tcase_add_test(tc, kunit_json_lists_the_suite_a_crash_cut_short);
    suite_add_tcase(s, tc);

    tc = tcase_create("json-log");
    tcase_add_test(tc, log_lines_as_json_are_json_whatever_the_guest_wrote);
    suite_add_tcase(s, tc);
    return s;
}
