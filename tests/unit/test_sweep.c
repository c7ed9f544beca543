/* vmm/tools/sweep_matrix.c: the --fault-sweep matrix without a VM: which
 * cells a call gets, --shard, how a cell ended, the verdict against
 * --fail-on and a baseline, the table and the JSON; and --help's and
 * --fail-on's outcome names against the outcome table. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "log_capture.h"
#include "suites.h"
#include "../../vmm/options.h"
#include "../../vmm/tools/sweep_matrix.h"
#include "../../vmm/verdict/exit_status.h"

static char *text;
static size_t text_len;
static json_t *doc;

static void teardown(void)
{
    log_capture_stop();
    free(text);
    text = NULL;
    json_decref(doc);
    doc = NULL;
}

static const struct sweep_call calls[2] = {
    { .seq = 3, .name = "GetMemoryMap", .applies = 1u << INJECT_GMM_TOO_SMALL, .time = 0.5 },
    { .seq = 9, .name = "AllocatePool", .applies = 1u << INJECT_ALLOC_POOL_FAIL, .time = 1.0 },
};

START_TEST(sweep_plans_each_kind_that_applies)
{
    const struct sweep_call call = { .seq = 7, .name = "AllocatePages",
                                     .applies = 1u << INJECT_GMM_TOO_SMALL | 1u << INJECT_ALLOC_PAGES_ABOVE |
                                                1u << INJECT_ALLOC_POOL_FAIL | 1u << INJECT_NO_LOW_FREE,
                                     .allocated = 0x5000000 };
    uint64_t seen[INJECT_KINDS] = { [INJECT_GMM_TOO_SMALL] = 2, [INJECT_ALLOC_POOL_FAIL] = 4 };
    struct sweep_cell cells[SWEEP_CELLS_PER_CALL];
    ck_assert_uint_eq(sweep_plan_cells(&call, seen, 6, false, cells), 5);
    /* gmm-too-small once and twice, from this call on. */
    ck_assert_str_eq(cells[0].spec, "gmm-too-small@3");
    ck_assert_str_eq(cells[1].spec, "gmm-too-small:2@3");
    /* Above the address the call got; the Nth pool allocation, N this one. */
    ck_assert_str_eq(cells[2].spec, "alloc-pages-above:0x5000000");
    ck_assert_str_eq(cells[3].spec, "alloc-pool-fail:5");
    ck_assert(!cells[3].skipped);
    ck_assert_str_eq(cells[4].spec, "no-low-free");
    ck_assert(cells[4].skipped);
    ck_assert_str_eq(cells[4].detail, "needs RAM above 4 GiB (--mem 5G)");
    for (unsigned i = 0; i < 5; i++)
        ck_assert_uint_eq(cells[i].snap, 6);
    ck_assert_uint_eq(sweep_plan_cells(&call, seen, 6, true, cells), 5);
    ck_assert(!cells[4].skipped);
}
END_TEST

START_TEST(sweep_skips_alloc_pages_above_a_failed_call)
{
    const struct sweep_call call = { .applies = 1u << INJECT_ALLOC_PAGES_ABOVE };
    const uint64_t seen[INJECT_KINDS] = { 0 };
    struct sweep_cell cells[SWEEP_CELLS_PER_CALL];
    ck_assert_uint_eq(sweep_plan_cells(&call, seen, 0, true, cells), 1);
    ck_assert(cells[0].skipped);
    ck_assert_str_eq(cells[0].detail, "the call failed without a fault");
}
END_TEST

/* --shard 2/2 of five cells: the second and the fourth, in order. */
START_TEST(sweep_shard_keeps_every_nth_cell)
{
    struct sweep_cell cells[5];
    for (unsigned i = 0; i < 5; i++)
        cells[i] = (struct sweep_cell){ .snap = i };
    ck_assert_uint_eq(sweep_take_shard(cells, 5, 2, 2), 2);
    ck_assert_uint_eq(cells[0].snap, 1);
    ck_assert_uint_eq(cells[1].snap, 3);
    for (unsigned i = 0; i < 5; i++)
        cells[i] = (struct sweep_cell){ .snap = i };
    ck_assert_uint_eq(sweep_take_shard(cells, 5, 1, 2), 3);
    ck_assert_uint_eq(cells[2].snap, 4);
}
END_TEST

/* The first of the known endings in the cell's log, with what the image
 * said last, escaped; the exit port first; else the status. */
START_TEST(sweep_cell_detail_names_how_it_ended)
{
    char buf[200];
    struct sweep_cell_end e = { .log = "handover: x\nhandover: timeout: the guest was still running after 9 s\n",
                                .status = 124, .conout = "EFI stub: \x1b[1mERROR" };
    sweep_cell_detail(&e, buf, sizeof(buf));
    ck_assert_str_eq(buf, "timeout: the guest was still running after 9 s after \"EFI stub: \\x1b[1mERROR\"");
    e.exit_port = true;
    e.exit_port_status = 3;
    sweep_cell_detail(&e, buf, sizeof(buf));
    ck_assert_str_eq(buf, "the guest wrote 3 to the exit port");
    e = (struct sweep_cell_end){ .log = NULL, .status = 5, .conout = "" };
    sweep_cell_detail(&e, buf, sizeof(buf));
    ck_assert_str_eq(buf, "exit status 5");
}
END_TEST

/* Only handover's own lines say how a cell ended: an ending's words in
 * guest text (the command line the summary prints, an image's message in
 * a log line) are not the ending. */
START_TEST(sweep_cell_detail_is_not_taken_from_guest_text)
{
    char buf[200];
    const struct sweep_cell_end e = {
        .log = "  cmdline           \"console=ttyS0 guest stopped: all well\"\n"
               "handover: heartbeat: 5 s, the last console line 5 s ago: kernel panic: none\n"
               "handover: timeout: the guest was still running after 9 s\n",
        .status = 124, .conout = "" };
    sweep_cell_detail(&e, buf, sizeof(buf));
    ck_assert_str_eq(buf, "timeout: the guest was still running after 9 s");
}
END_TEST

static struct sweep_cell two_cells[2] = {
    { .snap = 0, .kind = INJECT_GMM_TOO_SMALL, .spec = "gmm-too-small", .outcome = FAULT_RETRIED, .status = 0,
      .detail = "stop-at ebs: ok", .seconds = 0.25 },
    { .snap = 1, .kind = INJECT_ALLOC_POOL_FAIL, .spec = "alloc-pool-fail:1", .outcome = FAULT_FAILED_CLEANLY,
      .status = 5, .detail = "the image returned", .seconds = 0.5 },
};

static const struct sweep_part whole = { 0, 0, two_cells, 2 };

START_TEST(sweep_verdict_fails_on_named_outcomes)
{
    ck_assert_int_eq(sweep_verdict(0, NULL, NULL, &whole, calls, two_cells, 2), EXIT_OK);
    ck_assert_int_eq(sweep_verdict(1u << FAULT_FAILED_CLEANLY, NULL, NULL, &whole, calls, two_cells, 2), EXIT_SWEEP_FAILED);
    ck_assert_ptr_nonnull(strstr(log_captured(), "cell alloc-pool-fail:1 at call 9 AllocatePool: failed-cleanly (--fail-on)"));
    ck_assert_ptr_nonnull(strstr(log_captured(), "1 cells with an outcome --fail-on names, 0 that differ"));
}
END_TEST

/* The verdict of shard K/N (0/0: the whole sweep) of a sweep that
 * planned two_cells, whose run made the n cells at cells. */
static int verdict_of_part(const char *baseline, unsigned shard, unsigned shards, const struct sweep_cell *cells,
                           unsigned n)
{
    FILE *f = fmemopen((void *)baseline, strlen(baseline), "r");
    ck_assert_ptr_nonnull(f);
    const struct sweep_part part = { shard, shards, two_cells, 2 };
    int rc = sweep_verdict(0, f, "base.json", &part, calls, cells, n);
    fclose(f);
    return rc;
}

static int verdict_of_shard(const char *baseline, unsigned shard, unsigned shards, unsigned n)
{
    return verdict_of_part(baseline, shard, shards, two_cells, n);
}

static int verdict_against(const char *baseline)
{
    return verdict_of_shard(baseline, 0, 0, 2);
}

/* Cells are matched by their --inject spec; one the baseline lacks is "absent". */
START_TEST(sweep_verdict_against_a_baseline)
{
    ck_assert_int_eq(verdict_against("{\"cells\": [{\"inject\": \"alloc-pool-fail:1\", \"outcome\": \"failed-cleanly\"},"
                                     " {\"inject\": \"gmm-too-small\", \"outcome\": \"retried\"}]}"), EXIT_OK);
    ck_assert_int_eq(verdict_against("{\"cells\": [{\"inject\": \"gmm-too-small\", \"outcome\": \"crashed\"}]}"),
                     EXIT_SWEEP_FAILED);
    ck_assert_ptr_nonnull(strstr(log_captured(), "cell gmm-too-small: retried, the baseline says crashed"));
    ck_assert_ptr_nonnull(strstr(log_captured(), "cell alloc-pool-fail:1: failed-cleanly, the baseline says absent"));
    ck_assert_ptr_nonnull(strstr(log_captured(), "0 cells with an outcome --fail-on names, 2 that differ"));
    ck_assert_int_eq(verdict_against("{\"rows\": []}"), EXIT_USAGE);
    ck_assert_ptr_nonnull(strstr(log_captured(), "--sweep-baseline base.json: not a --fault-sweep matrix: no cells array"));
}
END_TEST

#define THREE_ROWS "[{\"inject\": \"gmm-too-small\", \"outcome\": \"retried\"}, " \
                   "{\"inject\": \"alloc-pool-fail:1\", \"outcome\": \"failed-cleanly\"}, " \
                   "{\"inject\": \"alloc-pool-fail:2\", \"outcome\": \"failed-cleanly\"}]"

/* A baseline cell the run did not make (the call it faulted is gone)
 * differs too; in shard K/N only the baseline's rows K, K+N, ... count,
 * or all of a baseline of the same shard. */
START_TEST(sweep_verdict_counts_baseline_cells_the_run_did_not_make)
{
    ck_assert_int_eq(verdict_against("{\"cells\": " THREE_ROWS "}"), EXIT_SWEEP_FAILED);
    ck_assert_ptr_nonnull(strstr(log_captured(), "cell alloc-pool-fail:2: absent, the baseline says failed-cleanly"));
    ck_assert_ptr_nonnull(strstr(log_captured(), "0 cells with an outcome --fail-on names, 1 that differ"));
    /* Shard 1/2 of a whole baseline: rows 1 and 3; the run made row 1's cell only. */
    ck_assert_int_eq(verdict_of_shard("{\"cells\": " THREE_ROWS "}", 1, 2, 1), EXIT_SWEEP_FAILED);
    ck_assert_ptr_nonnull(strstr(log_captured(), "cell alloc-pool-fail:2: absent"));
    /* Shard 2/2: row 2 only, a cell the run made. */
    ck_assert_int_eq(verdict_of_shard("{\"cells\": [" "{\"inject\": \"alloc-pool-fail:1\", \"outcome\": "
                                      "\"failed-cleanly\"}, {\"inject\": \"gmm-too-small\", \"outcome\": \"retried\"}]}",
                                      2, 2, 2), EXIT_OK);
    /* A baseline of shard 1/2 is that shard's whole: its rows all count. */
    ck_assert_int_eq(verdict_of_shard("{\"shard\": {\"index\": 1, \"count\": 2}, \"cells\": " THREE_ROWS "}",
                                      1, 2, 2), EXIT_SWEEP_FAILED);
    ck_assert_ptr_nonnull(strstr(log_captured(), "1 that differ"));
    /* A baseline of another shard: its rows are not this run's. */
    ck_assert_int_eq(verdict_of_shard("{\"shard\": {\"index\": 2, \"count\": 2}, \"cells\": " THREE_ROWS "}",
                                      1, 2, 2), EXIT_OK);
}
END_TEST

/* A whole baseline of a sweep whose first call is gone since: each shard
 * makes the cells the plan gives it now, and a baseline row another shard
 * made is not absent from this one; the gone cell is absent in one shard
 * only (its row's: rows 1, 3, ... are shard 1's). */
START_TEST(sweep_shard_against_a_shifted_whole_baseline)
{
    const char *base = "{\"cells\": [{\"inject\": \"alloc-pool-fail:9\", \"outcome\": \"retried\"}, "
                       "{\"inject\": \"gmm-too-small\", \"outcome\": \"retried\"}, "
                       "{\"inject\": \"alloc-pool-fail:1\", \"outcome\": \"failed-cleanly\"}]}";
    /* Shard 2/2 now makes alloc-pool-fail:1 alone, as the baseline says. */
    ck_assert_int_eq(verdict_of_part(base, 2, 2, &two_cells[1], 1), EXIT_OK);
    ck_assert_ptr_null(strstr(log_captured(), "absent"));
    /* Shard 1/2 makes gmm-too-small: alloc-pool-fail:9 is gone, and only it. */
    ck_assert_int_eq(verdict_of_part(base, 1, 2, two_cells, 1), EXIT_SWEEP_FAILED);
    ck_assert_ptr_nonnull(strstr(log_captured(), "cell alloc-pool-fail:9: absent, the baseline says retried"));
    ck_assert_ptr_null(strstr(log_captured(), "cell alloc-pool-fail:1: absent"));
    ck_assert_ptr_nonnull(strstr(log_captured(), "0 cells with an outcome --fail-on names, 1 that differ"));
}
END_TEST

static const struct sweep_totals totals = { .kernel = "uki.efi", .entry = "app", .calls = 40, .snapshots = 2,
                                            .base_end = 1.0, .cells_time = 0.75, .one_boot_each = 3.5 };

START_TEST(sweep_matrix_as_json)
{
    struct sweep_cell cells[3] = { two_cells[0], two_cells[1],
                                   { .snap = 1, .kind = INJECT_NO_LOW_FREE, .spec = "no-low-free", .skipped = true,
                                     .detail = "needs RAM above 4 GiB (--mem 5G)" } };
    FILE *out = open_memstream(&text, &text_len);
    ck_assert_int_eq(sweep_write_json(out, &totals, calls, cells, 3), 0);
    fclose(out);
    json_error_t err;
    doc = json_loads(text, 0, &err);
    ck_assert_ptr_nonnull(doc);
    ck_assert_str_eq(json_string_value(json_object_get(doc, "entry")), "app");
    ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(doc, "baseline"), "calls")), 40);
    ck_assert_double_eq(json_real_value(json_object_get(json_object_get(doc, "seconds"), "sweep")), 1.75);
    const json_t *rows = json_object_get(doc, "cells");
    ck_assert_int_eq(json_array_size(rows), 3);
    const json_t *pool = json_array_get(rows, 1);
    ck_assert_int_eq(json_integer_value(json_object_get(pool, "seq")), 9);
    ck_assert_str_eq(json_string_value(json_object_get(pool, "call")), "AllocatePool");
    ck_assert_str_eq(json_string_value(json_object_get(pool, "fault")), "alloc-pool-fail");
    ck_assert_str_eq(json_string_value(json_object_get(pool, "outcome")), "failed-cleanly");
    ck_assert_int_eq(json_integer_value(json_object_get(pool, "status")), 5);
    const json_t *skipped = json_array_get(rows, 2);
    ck_assert_str_eq(json_string_value(json_object_get(skipped, "outcome")), "skipped");
    ck_assert_ptr_null(json_object_get(skipped, "status"));
}
END_TEST

/* A kernel path that is not UTF-8, which JSON cannot hold: no matrix, and
 * errno says why (EILSEQ, as --report's), not what an earlier call left. */
START_TEST(sweep_matrix_refuses_a_path_that_is_not_utf8)
{
    struct sweep_totals latin1 = totals;
    latin1.kernel = "bz\xe9Image";
    FILE *out = open_memstream(&text, &text_len);
    errno = 0;
    ck_assert_int_eq(sweep_write_json(out, &latin1, calls, two_cells, 2), -1);
    ck_assert_int_eq(errno, EILSEQ);
    fclose(out);
    ck_assert_uint_eq(text_len, 0);
}
END_TEST

START_TEST(sweep_table_and_timing_line)
{
    FILE *out = open_memstream(&text, &text_len);
    sweep_print(out, &totals, calls, two_cells, 2);
    fclose(out);
    ck_assert_ptr_nonnull(strstr(text, " call  service"));
    ck_assert_ptr_nonnull(strstr(text, "    9  AllocatePool"));
    ck_assert_ptr_nonnull(strstr(text, "failed-cleanly  the image returned\n"));
    ck_assert_ptr_nonnull(strstr(text, "fault sweep: 1.8 s (the boot without faults 1.0 s, 2 cells 0.8 s); one boot per "
                                       "fault would take about 3.5 s: 2.0x faster\n"));
}
END_TEST

/* --help's text with each run of blanks and line breaks made one space. */
static const char *help_text(void)
{
    FILE *out = open_memstream(&text, &text_len);
    print_usage(out);
    fclose(out);
    size_t n = 0;
    for (size_t i = 0; text[i]; i++)
        if (!isspace((unsigned char)text[i]) || (n && text[n - 1] != ' '))
            text[n++] = isspace((unsigned char)text[i]) ? ' ' : text[i];
    text[n] = 0;
    return text;
}

START_TEST(sweep_help_names_every_outcome_and_the_default)
{
    char outcomes[256] = "outcome matrix (";
    for (int k = FAULT_NOT_INJECTED + 1; k < FAULT_OUTCOMES; k++) {
        strcat(outcomes, fault_outcome_names[k]);
        strcat(outcomes, k + 1 < FAULT_OUTCOMES ? ", " : ")");
    }
    char fail_on[256] = "(default ";
    for (int k = 0; k < FAULT_OUTCOMES; k++)
        if (FAULT_FAIL_ON_DEFAULT & 1u << k) {
            strcat(fail_on, fail_on[strlen(fail_on) - 1] == ' ' ? "" : ",");
            strcat(fail_on, fault_outcome_names[k]);
        }
    strcat(fail_on, ")");
    const char *help = help_text();
    ck_assert_msg(strstr(help, outcomes), "--help lacks \"%s\"", outcomes);
    ck_assert_msg(strstr(help, fail_on), "--help lacks \"%s\"", fail_on);
}
END_TEST

static int parse(const char *fail_on, struct vmm_options *o)
{
    char *argv[] = { "handover", "--fault-sweep", "--fail-on", (char *)fail_on, "bzImage", NULL };
    optind = 0;   /* glibc: start getopt afresh */
    return parse_options(5, argv, o);
}

START_TEST(sweep_fail_on_takes_the_outcome_names)
{
    struct vmm_options o;
    ck_assert_int_eq(parse("crashed,hung,bad-e820", &o), 0);
    ck_assert_uint_eq(o.sweep_fail_on, FAULT_FAIL_ON_DEFAULT);
    ck_assert_int_eq(parse("none", &o), 0);
    ck_assert_uint_eq(o.sweep_fail_on, 0);
    ck_assert_int_eq(parse("not-injected,failed-cleanly", &o), 0);
    ck_assert_uint_eq(o.sweep_fail_on, 1u << FAULT_NOT_INJECTED | 1u << FAULT_FAILED_CLEANLY);
    ck_assert_int_eq(parse("crashed,broken", &o), EXIT_USAGE);
    ck_assert_ptr_nonnull(strstr(log_captured(), "--fail-on crashed,broken: unknown outcome 'broken' (not-injected, "
                                           "retried, fell-back, failed-cleanly, crashed, hung, bad-e820, or none)"));
}
END_TEST

static int parse_shard(const char *shard, struct vmm_options *o)
{
    char *argv[] = { "handover", "--fault-sweep", "--shard", (char *)shard, "bzImage", NULL };
    optind = 0;
    return parse_options(5, argv, o);
}

/* --shard K/N is digits: no sign and no space, which strtoul would take
 * ("-18446744073709551615/4" read as shard 1 of 4). */
START_TEST(sweep_shard_takes_digits_only)
{
    struct vmm_options o;
    ck_assert_int_eq(parse_shard("2/4", &o), 0);
    ck_assert_uint_eq(o.shard, 2);
    ck_assert_uint_eq(o.shards, 4);
    const char *bad[] = { "-18446744073709551615/4", "+1/4", " 1/4", "1/ 4", "1/-4", "0/4", "5/4", "1/4x", "1", "" };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        ck_assert_msg(parse_shard(bad[i], &o) == EXIT_USAGE, "--shard '%s' was taken", bad[i]);
        ck_assert_ptr_nonnull(strstr(log_captured(), "give K/N with 1 <= K <= N"));
    }
}
END_TEST

Suite *sweep_suite(void)
{
    Suite *s = suite_create("sweep");
    TCase *tc = tcase_create("matrix");
    tcase_add_checked_fixture(tc, log_capture_start, teardown);
    tcase_add_test(tc, sweep_plans_each_kind_that_applies);
    tcase_add_test(tc, sweep_skips_alloc_pages_above_a_failed_call);
    tcase_add_test(tc, sweep_shard_keeps_every_nth_cell);
    tcase_add_test(tc, sweep_shard_takes_digits_only);
    tcase_add_test(tc, sweep_matrix_refuses_a_path_that_is_not_utf8);
    tcase_add_test(tc, sweep_cell_detail_names_how_it_ended);
    tcase_add_test(tc, sweep_cell_detail_is_not_taken_from_guest_text);
    tcase_add_test(tc, sweep_verdict_fails_on_named_outcomes);
    tcase_add_test(tc, sweep_verdict_against_a_baseline);
    tcase_add_test(tc, sweep_verdict_counts_baseline_cells_the_run_did_not_make);
    tcase_add_test(tc, sweep_shard_against_a_shifted_whole_baseline);
    tcase_add_test(tc, sweep_matrix_as_json);
    tcase_add_test(tc, sweep_table_and_timing_line);
    tcase_add_test(tc, sweep_help_names_every_outcome_and_the_default);
    tcase_add_test(tc, sweep_fail_on_takes_the_outcome_names);
    suite_add_tcase(s, tc);
    return s;
}
