/* vmm/verdict/ and the console's line path: what decides a run's verdict.
 * The panic rule follows kernel/panic.c, the --exec status line
 * scripts/build-initramfs.sh's /init, the fault outcomes fault_outcome.h. */
#include <stdio.h>
#include <string.h>

#include "suites.h"
#include "../../vmm/devices/console_line.h"
#include "../../vmm/verdict/console_watch.h"
#include "../../vmm/verdict/exit_status.h"
#include "../../vmm/verdict/fault_outcome.h"

static void feed(struct console_line *cl, const struct line_consumers *l, const char *text)
{
    for (const char *p = text; *p; p++)
        console_line_byte(cl, l, (uint8_t)*p);
}

START_TEST(panic_needs_its_end_marker)
{
    struct panic_watch w = { .ended = false };
    panic_watch_line(&w, "[    1.234] Kernel panic - not syncing: VFS: Unable to mount root fs");
    ck_assert_str_eq(w.line, "Kernel panic - not syncing: VFS: Unable to mount root fs");
    ck_assert(!w.ended);
    panic_watch_line(&w, "[    1.240] CPU: 0 PID: 1 Comm: swapper");
    ck_assert(!w.ended);
    panic_watch_line(&w, "[    1.250] ---[ end Kernel panic - not syncing: VFS: Unable to mount root fs ]---");
    ck_assert(w.ended);
}
END_TEST

START_TEST(panic_keeps_the_first_reason_and_ignores_a_stray_end)
{
    struct panic_watch w = { .ended = false };
    panic_watch_line(&w, "---[ end Kernel panic ]---");
    ck_assert(!w.ended);   /* no panic line yet: not a panic */
    ck_assert_str_eq(w.line, "");
    panic_watch_line(&w, "Kernel panic - not syncing: Attempted to kill init! exitcode=0x00000100");
    panic_watch_line(&w, "Kernel panic - not syncing: a second one");
    ck_assert_str_eq(w.line, "Kernel panic - not syncing: Attempted to kill init! exitcode=0x00000100");
}
END_TEST

START_TEST(exec_status_is_found_anywhere_in_the_line)
{
    int st = -1;
    ck_assert(exec_status_scan("handover-init: command exited with status 0", &st));
    ck_assert_int_eq(st, 0);
    ck_assert(exec_status_scan("[    2.345678] handover-init: command exited with status 42", &st));
    ck_assert_int_eq(st, 42);
    ck_assert(exec_status_scan("<6>[ 2.3] handover-init: command exited with status 300 (signal)", &st));
    ck_assert_int_eq(st, 300);   /* the console takes the low byte, as the exit port would */
}
END_TEST

START_TEST(exec_status_needs_a_number)
{
    int st = 7;
    ck_assert(!exec_status_scan("handover-init: command exited with status ", &st));
    ck_assert(!exec_status_scan("handover-init: command exited with status x", &st));
    ck_assert(!exec_status_scan("handover-init: command exited", &st));
    ck_assert(!exec_status_scan("", &st));
    ck_assert_int_eq(st, 7);
}
END_TEST

START_TEST(milestones_match_the_banner_and_init)
{
    ck_assert(console_is_banner("[    0.000000] Linux version 6.12.0 (gcc) #1 SMP"));
    ck_assert(!console_is_banner("Linux version"));
    ck_assert(console_is_init("[    1.0] Run /init as init process"));
    ck_assert(console_is_init("Run /sbin/init as init process"));
    ck_assert(!console_is_init("Run /init"));
    ck_assert(!console_is_init("Trying /init as init process"));
}
END_TEST

static char seen[4][64];
static unsigned nseen;

static void record(void *ctx, const char *line)
{
    if (nseen < 4)
        snprintf(seen[nseen++], sizeof(seen[0]), "%s:%s", (const char *)ctx, line);
}

START_TEST(console_lines_go_to_every_consumer_in_order)
{
    struct console_line cl = { .len = 0 };
    struct line_consumers l = { .n = 0 };
    const struct line_consumer a = { "a", record, "a" }, b = { "b", record, "b" };
    nseen = 0;
    ck_assert_int_eq(line_consumers_add(&l, &a), 0);
    ck_assert_int_eq(line_consumers_add(&l, &b), 0);
    ck_assert_str_eq(console_line_current(&cl), "");
    feed(&cl, &l, "first\r\n\npart");
    ck_assert_uint_eq(nseen, 2);   /* the empty line reaches no one */
    ck_assert_str_eq(seen[0], "a:first");
    ck_assert_str_eq(seen[1], "b:first");
    ck_assert_str_eq(console_line_current(&cl), "part");
    feed(&cl, &l, "\n");
    ck_assert_str_eq(seen[3], "b:part");
    ck_assert_str_eq(console_line_current(&cl), "part");   /* the last complete line */
}
END_TEST

START_TEST(console_line_keeps_the_start_of_a_long_line)
{
    struct console_line cl = { .len = 0 };
    struct line_consumers l = { .n = 0 };
    for (int i = 0; i < 1000; i++)
        console_line_byte(&cl, &l, (uint8_t)('a' + i % 26));
    ck_assert_uint_eq(strlen(console_line_current(&cl)), sizeof(cl.line) - 1);
    ck_assert(!strncmp(console_line_current(&cl), "abcdefghijklmnopqrstuvwxyz", 26));
}
END_TEST

START_TEST(line_consumers_refuse_past_their_bound)
{
    struct line_consumers l = { .n = 0 };
    const struct line_consumer c = { "c", record, "c" };
    for (unsigned i = 0; i < CONSOLE_MAX_CONSUMERS; i++)
        ck_assert_int_eq(line_consumers_add(&l, &c), 0);
    ck_assert_int_eq(line_consumers_add(&l, &c), -1);
}
END_TEST

/* A panic fed byte by byte through the console's line path. */
START_TEST(panic_through_the_console_line)
{
    struct console_line cl = { .len = 0 };
    struct line_consumers l = { .n = 0 };
    struct panic_watch w = { .ended = false };
    const struct line_consumer c = { "panic", panic_watch_line, &w };
    ck_assert_int_eq(line_consumers_add(&l, &c), 0);
    feed(&cl, &l, "[ 1.0] Kernel panic - not syncing: oops\r\n[ 1.1] ---[ end Kernel panic - not syncing: oops ]---");
    ck_assert(!w.ended);   /* the end marker's line is not complete yet */
    feed(&cl, &l, "\r\n");
    ck_assert(w.ended);
    ck_assert_str_eq(w.line, "Kernel panic - not syncing: oops");
}
END_TEST

/* fault_outcome: one run per outcome. */
static enum fault_outcome outcome(uint64_t count, uint64_t first_seen, uint64_t seen_now, struct fault_run run)
{
    struct inject in = { .on = { false } };
    in.on[INJECT_NO_RNG] = true;
    in.count[INJECT_NO_RNG] = count;
    in.first_seen[INJECT_NO_RNG] = first_seen;
    in.seen[INJECT_NO_RNG] = seen_now;
    return fault_outcome(&in, INJECT_NO_RNG, &run);
}

START_TEST(fault_outcome_each_outcome)
{
    const struct fault_run ebs = { .exit_status = EXIT_OK, .reached_ebs = true };
    ck_assert_int_eq(outcome(0, 0, 3, ebs), FAULT_NOT_INJECTED);
    ck_assert_int_eq(outcome(1, 1, 2, ebs), FAULT_RETRIED);
    ck_assert_int_eq(outcome(1, 1, 1, ebs), FAULT_FELL_BACK);
    ck_assert_int_eq(outcome(1, 1, 1, (struct fault_run){ .exit_status = EXIT_FIRMWARE_EXIT }), FAULT_FAILED_CLEANLY);
    ck_assert_int_eq(outcome(1, 1, 1, (struct fault_run){ .exit_status = EXIT_OK }), FAULT_FAILED_CLEANLY);
    ck_assert_int_eq(outcome(1, 1, 1, (struct fault_run){ .exit_status = 3, .guest_stopped = true }),
                     FAULT_FAILED_CLEANLY);
    ck_assert_int_eq(outcome(1, 1, 1, (struct fault_run){ .exit_status = EXIT_GUEST_CRASH }), FAULT_CRASHED);
    ck_assert_int_eq(outcome(1, 1, 1, (struct fault_run){ .exit_status = EXIT_PANIC, .reached_ebs = true }),
                     FAULT_CRASHED);
    ck_assert_int_eq(outcome(1, 1, 1, (struct fault_run){ .exit_status = EXIT_HOST }), FAULT_CRASHED);
    ck_assert_int_eq(outcome(1, 1, 1, (struct fault_run){ .exit_status = EXIT_TIMEOUT }), FAULT_HUNG);
    ck_assert_int_eq(outcome(1, 1, 1, (struct fault_run){ .exit_status = EXIT_E820_MISMATCH, .reached_ebs = true,
                                                          .e820_mismatch = true }),
                     FAULT_BAD_E820);
}
END_TEST

/* The guest ending the run outranks a bad e820, which outranks the status. */
START_TEST(fault_outcome_precedence)
{
    ck_assert_int_eq(outcome(1, 1, 1, (struct fault_run){ .exit_status = EXIT_TIMEOUT, .guest_stopped = true,
                                                          .e820_mismatch = true }),
                     FAULT_FAILED_CLEANLY);
    ck_assert_int_eq(outcome(1, 1, 1, (struct fault_run){ .exit_status = EXIT_TIMEOUT, .e820_mismatch = true }),
                     FAULT_BAD_E820);
    ck_assert_str_eq(fault_outcome_names[FAULT_BAD_E820], "bad-e820");
    ck_assert_str_eq(fault_outcome_names[FAULT_NOT_INJECTED], "not-injected");
}
END_TEST

Suite *verdict_suite(void)
{
    Suite *s = suite_create("verdict");
    TCase *tc = tcase_create("console-watch");
    tcase_add_test(tc, panic_needs_its_end_marker);
    tcase_add_test(tc, panic_keeps_the_first_reason_and_ignores_a_stray_end);
    tcase_add_test(tc, exec_status_is_found_anywhere_in_the_line);
    tcase_add_test(tc, exec_status_needs_a_number);
    tcase_add_test(tc, milestones_match_the_banner_and_init);
    tcase_add_test(tc, console_lines_go_to_every_consumer_in_order);
    tcase_add_test(tc, console_line_keeps_the_start_of_a_long_line);
    tcase_add_test(tc, line_consumers_refuse_past_their_bound);
    tcase_add_test(tc, panic_through_the_console_line);
    suite_add_tcase(s, tc);

    tc = tcase_create("fault-outcome");
    tcase_add_test(tc, fault_outcome_each_outcome);
    tcase_add_test(tc, fault_outcome_precedence);
    suite_add_tcase(s, tc);
    return s;
}
