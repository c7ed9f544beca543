/* vmm/options.c: parse_options on whole command lines (no VM). */
#include <getopt.h>
#include <string.h>

#include "log_capture.h"
#include "suites.h"
#include "../../firmware-stub/firmware.h"
#include "../../vmm/options.h"
#include "../../vmm/verdict/exit_status.h"

/* argv up to its NULL, as main would pass it. */
static int parse_words(char **argv, struct vmm_options *o)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    optind = 0;   /* glibc: start getopt afresh */
    return parse_options(argc, argv, o);
}

/* The words are refused as a usage error whose message holds said. */
static void assert_refused_saying(char **words, const char *said)
{
    struct vmm_options o;
    ck_assert_int_eq(parse_words(words, &o), EXIT_USAGE);
    ck_assert_ptr_nonnull(strstr(log_captured(), said));
}

/* --cmdline-append given twice adds both, in order (the second took the
 * first's place); together they are held to a command line's bound
 * (COMMAND_LINE_SIZE, FW_CMDLINE_MAX) as one long one is. */
START_TEST(cmdline_append_adds_each_one_given)
{
    struct vmm_options o;
    char *one[] = { "handover", "--cmdline-append", "quiet", "bzImage", NULL };
    ck_assert_int_eq(parse_words(one, &o), 0);
    ck_assert_str_eq(o.cmdline_append, "quiet");
    char *three[] = { "handover", "--cmdline-append", "quiet", "--cmdline-append", "loglevel=3 panic=1",
                      "--cmdline-append=x", "bzImage", NULL };
    ck_assert_int_eq(parse_words(three, &o), 0);
    ck_assert_str_eq(o.cmdline_append, "quiet loglevel=3 panic=1 x");
    static char half[FW_CMDLINE_MAX / 2 + 1];
    memset(half, 'a', sizeof(half) - 1);
    char *too_long[] = { "handover", "--cmdline-append", half, "--cmdline-append", half, "bzImage", NULL };
    ck_assert_int_eq(parse_words(too_long, &o), EXIT_USAGE);
    ck_assert_ptr_nonnull(strstr(log_captured(), "--cmdline-append: 2049 bytes with those before it, a command line takes "
                                           "at most 2047"));
}
END_TEST

/* A bare --mem is MiB whatever its last digit: 0x1ff ended in 'f', was
 * read as 511 bytes and refused, while 0x1f0 was 496 MiB. */
START_TEST(mem_bare_hex_is_mib)
{
    struct vmm_options o;
    char *hex[] = { "handover", "--mem", "0x1ff", "bzImage", NULL };
    ck_assert_int_eq(parse_words(hex, &o), 0);
    ck_assert_uint_eq(o.mem, 0x1ffULL << 20);
    char *kib[] = { "handover", "--mem", "0x20000K", "bzImage", NULL };
    ck_assert_int_eq(parse_words(kib, &o), 0);
    ck_assert_uint_eq(o.mem, 128ULL << 20);
}
END_TEST

/* --fail-on with no outcome named ("", ",") was taken as none: the sweep
 * then failed on nothing, though nothing said so. */
START_TEST(fail_on_naming_nothing_is_refused)
{
    struct vmm_options o;
    char *empty[] = { "handover", "--fault-sweep", "--fail-on", "", "bzImage", NULL };
    assert_refused_saying(empty, "--fail-on '': name the outcomes");
    char *commas[] = { "handover", "--fault-sweep", "--fail-on", ",,", "bzImage", NULL };
    ck_assert_int_eq(parse_words(commas, &o), EXIT_USAGE);
    char *none[] = { "handover", "--fault-sweep", "--fail-on", "none", "bzImage", NULL };
    ck_assert_int_eq(parse_words(none, &o), 0);
    ck_assert_uint_eq(o.sweep_fail_on, 0);
}
END_TEST

/* An empty path said "--report : No such file or directory" when it was
 * opened; it is refused as it is read, naming what to give. */
START_TEST(empty_paths_are_refused_as_read)
{
    struct vmm_options o;
    char *report[] = { "handover", "--report", "", "bzImage", NULL };
    assert_refused_saying(report, "--report '': an empty FILE: give its path");
    char *esp[] = { "handover", "--esp=", "bzImage", NULL };
    assert_refused_saying(esp, "--esp '': an empty DIR: give its path");
    char *initrd[] = { "handover", "--initrd", "", "bzImage", NULL };
    ck_assert_int_eq(parse_words(initrd, &o), EXIT_USAGE);
}
END_TEST

/* An unknown letter in "-qx" was named by the word before it ("unknown
 * option --quiet"), and "--quiet=1" called a known option unknown. */
START_TEST(refused_option_is_named_as_given)
{
    char *letters[] = { "handover", "--quiet", "-qx", "bzImage", NULL };
    assert_refused_saying(letters, "unknown option -q (see --help)");
    ck_assert_ptr_null(strstr(log_captured(), "--quiet"));
    char *valued[] = { "handover", "--quiet=1", "bzImage", NULL };
    assert_refused_saying(valued, "--quiet takes no value");
    char *unknown[] = { "handover", "--frobnicate", "bzImage", NULL };
    assert_refused_saying(unknown, "unknown option --frobnicate");
}
END_TEST

/* A refused option ended the reading of the words after it, so a
 * --report given after it was never known and no report was written (a
 * stale one from an earlier run stayed). */
START_TEST(result_files_after_a_refused_option_are_known)
{
    struct vmm_options o;
    char *report[] = { "handover", "--frobnicate", "--report", "r.json", "--kunit-json=k.json", "bzImage", NULL };
    ck_assert_int_eq(parse_words(report, &o), EXIT_USAGE);
    ck_assert_str_eq(o.report_path, "r.json");
    ck_assert_str_eq(o.kunit_json, "k.json");
    char *after_bad_value[] = { "handover", "--cpus", "0", "--cpus", "2", "--report", "r.json", "bzImage", NULL };
    ck_assert_int_eq(parse_words(after_bad_value, &o), EXIT_USAGE);
    ck_assert_str_eq(o.report_path, "r.json");
    ck_assert_uint_eq(o.cpus, 1);
    ck_assert_int_eq((int)(strstr(log_captured(), "--cpus 0:") != NULL), 1);
    ck_assert_ptr_null(strstr(log_captured(), "--cpus 2"));
}
END_TEST

/* --watchdog: whole seconds, 0 (none) to a day; given or not is kept, so
 * an EFI application without it gets a boot manager's 300 s (boot.c). */
START_TEST(watchdog_takes_seconds_and_zero)
{
    struct vmm_options o;
    char *none[] = { "handover", "app.efi", NULL };
    ck_assert_int_eq(parse_words(none, &o), 0);
    ck_assert(!o.watchdog_given);
    char *off[] = { "handover", "--watchdog", "0", "app.efi", NULL };
    ck_assert_int_eq(parse_words(off, &o), 0);
    ck_assert(o.watchdog_given);
    ck_assert_uint_eq(o.watchdog, 0);
    char *day[] = { "handover", "--watchdog=86400", "app.efi", NULL };
    ck_assert_int_eq(parse_words(day, &o), 0);
    ck_assert_uint_eq(o.watchdog, 86400);
    char *longer[] = { "handover", "--watchdog", "86401", "app.efi", NULL };
    assert_refused_saying(longer, "--watchdog 86401: give whole seconds, 0 (none) to 86400");
    char *unit[] = { "handover", "--watchdog", "5s", "app.efi", NULL };
    assert_refused_saying(unit, "--watchdog 5s: give whole seconds");
    char *negative[] = { "handover", "--watchdog", "-1", "app.efi", NULL };
    assert_refused_saying(negative, "--watchdog -1: give whole seconds");
}
END_TEST

Suite *options_suite(void)
{
    Suite *s = suite_create("options");
    TCase *tc = tcase_create("options");
    tcase_add_checked_fixture(tc, log_capture_start, log_capture_stop);
    tcase_add_test(tc, cmdline_append_adds_each_one_given);
    tcase_add_test(tc, mem_bare_hex_is_mib);
    tcase_add_test(tc, fail_on_naming_nothing_is_refused);
    tcase_add_test(tc, empty_paths_are_refused_as_read);
    tcase_add_test(tc, refused_option_is_named_as_given);
    tcase_add_test(tc, result_files_after_a_refused_option_are_known);
    tcase_add_test(tc, watchdog_takes_seconds_and_zero);
    suite_add_tcase(s, tc);
    return s;
}
