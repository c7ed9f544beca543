/* vmm/verdict/ and the console's line path: what decides a run's verdict.
 * The panic rule follows kernel/panic.c, the --exec status line
 * scripts/build-initramfs.sh's /init, the fault outcomes fault_outcome.h,
 * the e820 check the kernel's setup_e820, the memattr check the stub's
 * efi_adjust_memory_range_protection, the KTAP reader
 * Documentation/dev-tools/ktap.rst. */
#include <linux/kvm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "../../vmm/devices/console_line.h"
#include "../../vmm/verdict/console_watch.h"
#include "../../vmm/verdict/e820_check.h"
#include "../../vmm/verdict/end_reason.h"
#include "../../vmm/verdict/exit_status.h"
#include "../../vmm/verdict/fault_outcome.h"
#include "../../vmm/verdict/ktap.h"
#include "../../vmm/verdict/memattr_check.h"
#include "../../vmm/x86/x86_setup.h"
#include "../../guest/page_prot.h"
#include "../../vmm/verdict/run_counters.h"

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

/* kernel/reboot.c kernel_halt's line, after a printk timestamp too; the
 * power-off's and a command's own words are no halt. */
START_TEST(halt_watch_takes_the_kernels_halt_line)
{
    bool said = false;
    halt_watch_line(&said, "reboot: Power down");
    halt_watch_line(&said, "System halted by the user's script");
    ck_assert(!said);
    halt_watch_line(&said, "[    2.345678] reboot: System halted");
    ck_assert(said);
}
END_TEST

START_TEST(exec_status_is_found_anywhere_in_the_line)
{
    int st = -1;
    ck_assert(exec_status_scan("handover-init: command exited with status 0 [run 0123456789abcdef]",
                               "0123456789abcdef", &st));
    ck_assert_int_eq(st, 0);
    ck_assert(exec_status_scan("[    2.345678] handover-init: command exited with status 42 [run 0123456789abcdef]",
                               "0123456789abcdef", &st));
    ck_assert_int_eq(st, 42);
    ck_assert(exec_status_scan("<6>[ 2.3] handover-init: command exited with status 255 [run 0123456789abcdef]x",
                               "0123456789abcdef", &st));
    ck_assert_int_eq(st, 255);
}
END_TEST

/* What is not this run's status leaves *status alone: no number; a number
 * past a shell's $? of 0-255 (once taken as its low byte, 256 as 0, a
 * pass); and a line without this run's mark, which the command's own
 * output may hold (it prints one, runs handover in the guest, cats a log),
 * so the run goes on to the real one. */
START_TEST(exec_status_refuses_what_is_not_this_runs_status)
{
    static const char *const lines[] = {
        "handover-init: command exited with status  [run 0123456789abcdef]",
        "handover-init: command exited with status x [run 0123456789abcdef]",
        "handover-init: command exited",
        "",
        "handover-init: command exited with status 256 [run 0123456789abcdef]",
        "handover-init: command exited with status 1000 [run 0123456789abcdef]",
        "handover-init: command exited with status 4294967296 [run 0123456789abcdef]",
        "handover-init: command exited with status -1 [run 0123456789abcdef]",
        "handover-init: command exited with status 0",
        "handover-init: command exited with status 0 [run fedcba9876543210]",
        "handover-init: command exited with status 0 [run 0123456789abcde]",
        "handover-init: command exited with status 0 [run ]",
    };
    for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
        int st = 7;
        ck_assert_msg(!exec_status_scan(lines[i], "0123456789abcdef", &st), "taken: %s", lines[i]);
        ck_assert_int_eq(st, 7);
    }
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

/* The console's line path with the panic watch its one consumer. */
struct panic_console {
    struct console_line cl;
    struct line_consumers l;
    struct panic_watch w;
};

static void panic_console_init(struct panic_console *p)
{
    *p = (struct panic_console){ .cl = { .len = 0 } };
    const struct line_consumer c = { "panic", panic_watch_line, &p->w };
    ck_assert_int_eq(line_consumers_add(&p->l, &c), 0);
}

/* A panic fed byte by byte through the console's line path. */
START_TEST(panic_through_the_console_line)
{
    struct panic_console p;
    panic_console_init(&p);
    feed(&p.cl, &p.l, "[ 1.0] Kernel panic - not syncing: oops\r\n[ 1.1] ---[ end Kernel panic - not syncing: oops ]---");
    ck_assert(!p.w.ended);   /* the end marker's line is not complete yet */
    feed(&p.cl, &p.l, "\r\n");
    ck_assert(p.w.ended);
    ck_assert_str_eq(p.w.line, "Kernel panic - not syncing: oops");
}
END_TEST

/* A NUL on the console (a program that wrote binary to it) before the
 * kernel's panic line, on the same line: a terminal shows nothing for it
 * (ECMA-48 8.3.88, NUL is a fill character), and the panic is still seen. */
START_TEST(a_nul_byte_hides_no_panic_line)
{
    struct panic_console p;
    panic_console_init(&p);
    feed(&p.cl, &p.l, "junk");
    console_line_byte(&p.cl, &p.l, 0);
    feed(&p.cl, &p.l, "[ 1.0] Kernel panic - not syncing: oops\n");
    ck_assert_str_eq(p.w.line, "Kernel panic - not syncing: oops");
    ck_assert_str_eq(console_line_current(&p.cl), "junk[ 1.0] Kernel panic - not syncing: oops");
}
END_TEST

/* A progress count redrawn with carriage returns and no line feed, for
 * longer than the line holds, then the kernel's panic: a carriage return
 * puts the next text at the line's start, as on a terminal, so the panic
 * is not cut off past the end of the line; "\r\n" still ends a line
 * whole. */
START_TEST(a_carriage_return_starts_the_line_over)
{
    struct panic_console p;
    panic_console_init(&p);
    for (int i = 0; i < 100; i++)
        feed(&p.cl, &p.l, "copied 10%\r");
    feed(&p.cl, &p.l, "[ 1.0] Kernel panic - not syncing: oops\r\n");
    ck_assert_str_eq(p.w.line, "Kernel panic - not syncing: oops");
    ck_assert_str_eq(console_line_current(&p.cl), "[ 1.0] Kernel panic - not syncing: oops");
}
END_TEST

/* panic=N: the kernel restarts where it would print the end marker; the
 * restart ends the panic, and a restart with no panic seen is none. */
START_TEST(panic_ends_at_a_restart_without_its_end_marker)
{
    struct panic_watch w = { .ended = false };
    ck_assert(!panic_watch_restart(&w));
    ck_assert(!w.ended);
    panic_watch_line(&w, "[ 1.0] Kernel panic - not syncing: VFS: Unable to mount root fs");
    panic_watch_line(&w, "[ 1.1] Rebooting in 1 seconds..");
    ck_assert(!w.ended);
    ck_assert(panic_watch_restart(&w));
    ck_assert(w.ended);
    ck_assert_str_eq(w.line, "Kernel panic - not syncing: VFS: Unable to mount root fs");
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
    /* --stop-at ebs with --inject: a success but for the stop point is judged as one. */
    ck_assert_int_eq(outcome(1, 1, 1, (struct fault_run){ .exit_status = EXIT_STOP_UNREACHED }), FAULT_FAILED_CLEANLY);
    ck_assert_int_eq(outcome(1, 1, 2, (struct fault_run){ .exit_status = EXIT_STOP_UNREACHED, .reached_ebs = true }),
                     FAULT_RETRIED);
    ck_assert_int_eq(outcome(1, 1, 1, (struct fault_run){ .exit_status = 3, .guest_stopped = true }),
                     FAULT_FAILED_CLEANLY);
    ck_assert_int_eq(outcome(1, 1, 1, (struct fault_run){ .exit_status = EXIT_GUEST_CRASH }), FAULT_CRASHED);
    ck_assert_int_eq(outcome(1, 1, 1, (struct fault_run){ .exit_status = EXIT_PANIC, .reached_ebs = true }),
                     FAULT_CRASHED);
    ck_assert_int_eq(outcome(1, 1, 1, (struct fault_run){ .exit_status = EXIT_HOST }), FAULT_CRASHED);
    ck_assert_int_eq(outcome(1, 1, 1, (struct fault_run){ .exit_status = EXIT_TIMEOUT }), FAULT_HUNG);
    ck_assert_int_eq(outcome(1, 1, 1, (struct fault_run){ .exit_status = EXIT_WATCHDOG }), FAULT_HUNG);
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
    /* A panic that restarted the guest (panic=N) is the panic's, not the guest's clean end. */
    ck_assert_int_eq(outcome(1, 1, 1, (struct fault_run){ .exit_status = EXIT_PANIC, .guest_stopped = true,
                                                          .panic = true }),
                     FAULT_CRASHED);
    ck_assert_str_eq(fault_outcome_names[FAULT_BAD_E820], "bad-e820");
    ck_assert_str_eq(fault_outcome_names[FAULT_NOT_INJECTED], "not-injected");
}
END_TEST

/* A run a signal stopped (a CI job's timeout sends SIGTERM), or one
 * handover itself failed (exit status 3), says nothing of what the stub
 * did: each fell to "crashed" in the --stop-at ebs line. */
START_TEST(fault_outcome_line_judges_no_run_a_signal_stopped)
{
    struct inject in = { .on = { false } };
    in.on[INJECT_GMM_TOO_SMALL] = true;
    in.value[INJECT_GMM_TOO_SMALL] = 2;
    in.from[INJECT_GMM_TOO_SMALL] = 3;
    in.count[INJECT_GMM_TOO_SMALL] = 1;
    char line[128];
    const struct fault_run stopped = { .exit_status = 128 + 15, .signal = 15 };
    fault_outcome_line(&in, INJECT_GMM_TOO_SMALL, &stopped, line, sizeof(line));
    ck_assert_str_eq(line, "gmm-too-small:2@3: not judged: the run was stopped by signal 15");
    const struct fault_run host_failed = { .exit_status = EXIT_HOST };
    fault_outcome_line(&in, INJECT_GMM_TOO_SMALL, &host_failed, line, sizeof(line));
    ck_assert_str_eq(line, "gmm-too-small:2@3: not judged: handover failed (exit status 3), not the guest");
    const struct fault_run crashed = { .exit_status = EXIT_GUEST_CRASH };
    fault_outcome_line(&in, INJECT_GMM_TOO_SMALL, &crashed, line, sizeof(line));
    ck_assert_str_eq(line, "gmm-too-small:2@3: crashed");
}
END_TEST

/* A guest's own exit status that is handover's number for its own failure
 * (the payload's 3 failed checks) is the guest's: judged, as the end
 * reason takes it (guest-status), never "handover failed". */
START_TEST(fault_outcome_line_judges_a_guest_status_of_3)
{
    struct inject in = { .on = { false } };
    in.on[INJECT_ALLOC_PAGES_ABOVE] = true;
    in.value[INJECT_ALLOC_PAGES_ABOVE] = 0x1fff9000;
    in.count[INJECT_ALLOC_PAGES_ABOVE] = 1;
    char line[128];
    const struct fault_run guest = { .exit_status = EXIT_HOST, .reached_ebs = true, .guest_stopped = true,
                                     .guest_status = true };
    fault_outcome_line(&in, INJECT_ALLOC_PAGES_ABOVE, &guest, line, sizeof(line));
    ck_assert_str_eq(line, "alloc-pages-above:0x1fff9000: failed-cleanly");
    char why[64];
    ck_assert(fault_run_judged(&guest, why, sizeof(why)));
    /* Stopped by the guest, but with a status of handover's own (the byte was 0). */
    const struct fault_run host_failed = { .exit_status = EXIT_HOST, .reached_ebs = true, .guest_stopped = true };
    ck_assert(!fault_run_judged(&host_failed, why, sizeof(why)));
}
END_TEST

/* e820_check: what setup_e820 (drivers/firmware/efi/libstub/x86-stub.c)
 * makes of a memory map, and the table the stub left in guest memory. */
static struct memmap map;

static void map_add(uint32_t type, uint64_t start, uint64_t pages)
{
    map.e[map.n++] = (struct memmap_entry){ .type = type, .start = start, .pages = pages };
}

START_TEST(e820_expected_merges_neighbours_of_one_type)
{
    static struct boot_e820_entry e[MEMMAP_MAX_ENTRIES];
    map.n = 0;
    map_add(EFI_CONVENTIONAL_MEMORY, 0, 0x9f);
    map_add(EFI_RESERVED_MEMORY_TYPE, 0x9f000, 0x61);
    map_add(EFI_LOADER_CODE, 0x100000, 0x100);
    map_add(EFI_BOOT_SERVICES_DATA, 0x200000, 0x10);
    map_add(EFI_CONVENTIONAL_MEMORY, 0x210000, 0x1df0);
    map_add(EFI_CONVENTIONAL_MEMORY, 0x4000000, 0x10);   /* not adjacent: an entry of its own */
    unsigned n = e820_expected(&map, e);
    ck_assert_uint_eq(n, 4);
    ck_assert_uint_eq(e[0].addr, 0);
    ck_assert_uint_eq(e[0].size, 0x9f000);
    ck_assert_uint_eq(e[0].type, E820_TYPE_RAM);
    ck_assert_uint_eq(e[1].type, E820_TYPE_RESERVED);
    ck_assert_uint_eq(e[2].addr, 0x100000);
    ck_assert_uint_eq(e[2].size, 0x2000000 - 0x100000);   /* LoaderCode, BS data, free: one RAM range */
    ck_assert_uint_eq(e[2].type, E820_TYPE_RAM);
    ck_assert_uint_eq(e[3].addr, 0x4000000);
}
END_TEST

START_TEST(e820_expected_converts_types_and_skips_unknown_ones)
{
    static struct boot_e820_entry e[MEMMAP_MAX_ENTRIES];
    map.n = 0;
    map_add(EFI_ACPI_RECLAIM_MEMORY, 0x1000, 1);
    map_add(EFI_ACPI_MEMORY_NVS, 0x2000, 1);
    map_add(EFI_RUNTIME_SERVICES_CODE, 0x3000, 1);
    map_add(EFI_RUNTIME_SERVICES_DATA, 0x4000, 1);   /* reserved too: merged with the one before */
    map_add(EFI_UNUSABLE_MEMORY, 0x5000, 1);
    map_add(EFI_PERSISTENT_MEMORY, 0x6000, 1);
    map_add(0x80000000, 0x7000, 1);                   /* an OS type: setup_e820 leaves it out */
    map_add(EFI_MEMORY_MAPPED_IO, 0x8000, 1);
    unsigned n = e820_expected(&map, e);
    const uint32_t want[] = { E820_TYPE_ACPI, E820_TYPE_NVS, E820_TYPE_RESERVED, E820_TYPE_UNUSABLE, E820_TYPE_PMEM,
                              E820_TYPE_RESERVED };
    ck_assert_uint_eq(n, 6);
    for (unsigned i = 0; i < n; i++)
        ck_assert_uint_eq(e[i].type, want[i]);
    ck_assert_uint_eq(e[2].size, 0x2000);
    ck_assert_uint_eq(e[5].addr, 0x8000);
    ck_assert_str_eq(e820_type_name(e[4].type), "persistent");
    ck_assert_str_eq(e820_type_name(0x99), "unknown");
}
END_TEST

static uint8_t ram[0x10000];

/* The check judges the table the kernel reads, all of it or it fails: the
 * kernel reads as many zero-page entries as e820_entries names (past the
 * table's 128 when it names more), and follows the whole setup_data list
 * wherever it points. */
START_TEST(e820_read_whole_only_when_no_part_is_out_of_reach)
{
    struct guest_mem gm;
    guest_mem_init(&gm, ram, sizeof(ram));
    memset(ram, 0, sizeof(ram));
    static struct boot_params bp;
    static struct boot_e820_entry got[MAX_E820];
    unsigned n = 0;
    memset(&bp, 0, sizeof(bp));
    bp.e820_entries = E820_MAX_ENTRIES_ZEROPAGE;
    ck_assert(e820_read_whole(&gm, &bp, got, &n));
    ck_assert_uint_eq(n, E820_MAX_ENTRIES_ZEROPAGE);
    bp.e820_entries = E820_MAX_ENTRIES_ZEROPAGE + 1;
    ck_assert(!e820_read_whole(&gm, &bp, got, &n));

    /* SETUP_E820_EXT with three entries: in RAM, then running past its end. */
    const size_t entry = sizeof(struct boot_e820_entry);
    const struct setup_data_header ext = { 0, SETUP_E820_EXT, 3 * entry };
    bp.e820_entries = 2;
    bp.hdr.setup_data = 0x1000;
    memcpy(ram + 0x1000, &ext, sizeof(ext));
    ck_assert(e820_read_whole(&gm, &bp, got, &n));
    ck_assert_uint_eq(n, 5);
    bp.hdr.setup_data = sizeof(ram) - sizeof(ext) - 2 * entry;
    memcpy(ram + bp.hdr.setup_data, &ext, sizeof(ext));
    ck_assert(!e820_read_whole(&gm, &bp, got, &n));
    ck_assert_uint_eq(n, 2);

    /* A list that leaves guest RAM, and one that loops. */
    bp.hdr.setup_data = 0x1000;
    const struct setup_data_header away = { 0x100000000ULL, SETUP_DTB, 0 }, loop = { 0x1000, SETUP_DTB, 0 };
    memcpy(ram + 0x1000, &away, sizeof(away));
    ck_assert(!e820_read_whole(&gm, &bp, got, &n));
    memcpy(ram + 0x1000, &loop, sizeof(loop));
    ck_assert(!e820_read_whole(&gm, &bp, got, &n));
    /* 64 entries that end are read whole; a 65th is past the check. */
    for (uint64_t i = 0; i < 64; i++) {
        const struct setup_data_header h = { i < 63 ? 0x1000 + 0x20 * (i + 1) : 0, SETUP_DTB, 0 };
        memcpy(ram + 0x1000 + 0x20 * i, &h, sizeof(h));
    }
    ck_assert(e820_read_whole(&gm, &bp, got, &n));
    const struct setup_data_header one_more = { 0x1000 + 0x20 * 64, SETUP_DTB, 0 };
    memcpy(ram + 0x1000 + 0x20 * 63, &one_more, sizeof(one_more));
    ck_assert(!e820_read_whole(&gm, &bp, got, &n));

    /* More entries than the check holds. */
    const struct setup_data_header many = { 0, SETUP_E820_EXT, (MEMMAP_MAX_ENTRIES + 1) * entry };
    bp.e820_entries = E820_MAX_ENTRIES_ZEROPAGE;
    memcpy(ram + 0x1000, &many, sizeof(many));
    ck_assert(!e820_read_whole(&gm, &bp, got, &n));
    ck_assert_uint_eq(n, MAX_E820);
}
END_TEST

START_TEST(e820_read_follows_the_setup_data_chain)
{
    struct guest_mem gm;
    guest_mem_init(&gm, ram, sizeof(ram));
    memset(ram, 0, sizeof(ram));
    static struct boot_params bp;
    memset(&bp, 0, sizeof(bp));
    bp.e820_entries = 2;
    bp.e820_table[0] = (struct boot_e820_entry){ 0, 0x9f000, E820_TYPE_RAM };
    bp.e820_table[1] = (struct boot_e820_entry){ 0x100000, 0x100000, E820_TYPE_RAM };
    /* A device tree first, then the e820 extension with three entries. */
    bp.hdr.setup_data = 0x1000;
    const struct setup_data_header dtb = { 0x2000, SETUP_DTB, 64 };
    memcpy(ram + 0x1000, &dtb, sizeof(dtb));
    const struct setup_data_header ext = { 0, SETUP_E820_EXT, 3 * sizeof(struct boot_e820_entry) };
    const struct boot_e820_entry more[3] = { { 0x200000, 0x1000, E820_TYPE_ACPI },
                                             { 0x201000, 0x1000, E820_TYPE_NVS },
                                             { 0x300000, 0x100000, E820_TYPE_RAM } };
    memcpy(ram + 0x2000, &ext, sizeof(ext));
    memcpy(ram + 0x2000 + sizeof(ext), more, sizeof(more));
    static struct boot_e820_entry got[MAX_E820];
    unsigned n = e820_read(&gm, &bp, got);
    ck_assert_uint_eq(n, 5);
    ck_assert_uint_eq(got[1].addr, 0x100000);
    ck_assert_uint_eq(got[3].type, E820_TYPE_NVS);
    ck_assert_uint_eq(got[4].addr, 0x300000);

    /* A chain that leaves guest RAM ends there; what was read stays. */
    const struct setup_data_header away = { 0x100000000ULL, SETUP_E820_EXT, 3 * sizeof(struct boot_e820_entry) };
    memcpy(ram + 0x2000, &away, sizeof(away));
    ck_assert_uint_eq(e820_read(&gm, &bp, got), 5);
    /* More entries than the zero page holds are not read past it. */
    bp.e820_entries = 200;
    bp.hdr.setup_data = 0;
    ck_assert_uint_eq(e820_read(&gm, &bp, got), E820_MAX_ENTRIES_ZEROPAGE);
}
END_TEST

/* GRUB's `linux` writes type 20 (GRUB_MEMORY_CODE) for
 * EfiRuntimeServicesCode: read as the kernel reads it, that is reserved,
 * one range with its reserved neighbours; the types it knows stay. */
START_TEST(e820_as_kernel_reads_makes_unknown_types_reserved)
{
    struct boot_e820_entry e[12] = {
        { 0, 0xa0000, E820_TYPE_RAM },          { 0xa0000, 0x60000, E820_TYPE_RESERVED },
        { 0x100000, 0x1000, 20 },               { 0x101000, 0x1000, E820_TYPE_RESERVED },
        { 0x102000, 0x1000, E820_TYPE_PRAM },   { 0x103000, 0x1000, E820_TYPE_SOFT_RESERVED },
    };
    const struct boot_e820_entry want[4] = {
        { 0, 0xa0000, E820_TYPE_RAM }, { 0xa0000, 0x62000, E820_TYPE_RESERVED },
        { 0x102000, 0x1000, E820_TYPE_PRAM }, { 0x103000, 0x1000, E820_TYPE_SOFT_RESERVED },
    };
    unsigned n = e820_as_kernel_reads(e, 6);
    ck_assert(e820_equal(e, n, want, 4));
    /* Neighbours that do not touch stay two ranges. */
    struct boot_e820_entry gap[4] = { { 0, 0x1000, 20 }, { 0x2000, 0x1000, E820_TYPE_RESERVED } };
    ck_assert_uint_eq(e820_as_kernel_reads(gap, 2), 2);
    ck_assert_uint_eq(gap[0].type, E820_TYPE_RESERVED);
}
END_TEST

/* e820__update_table (arch/x86/kernel/e820.c) sorts a boot loader's
 * table before the kernel uses it: an entry of no size is dropped, the
 * entries are taken in address order, where two overlap the larger type
 * wins, and PRAM neighbours stay apart (e820_nomerge). The map the kernel
 * gets is the one judged. */
START_TEST(e820_as_kernel_reads_sorts_as_the_kernel_does)
{
    struct boot_e820_entry e[16] = {
        { 0x100000, 0x100000, E820_TYPE_RAM }, { 0x50000, 0, E820_TYPE_ACPI },
        { 0, 0xa0000, E820_TYPE_RAM },         { 0x180000, 0x1000, E820_TYPE_RESERVED },
        { 0x200000, 0x1000, E820_TYPE_PRAM },  { 0x201000, 0x1000, E820_TYPE_PRAM },
    };
    const struct boot_e820_entry want[6] = {
        { 0, 0xa0000, E820_TYPE_RAM },         { 0x100000, 0x80000, E820_TYPE_RAM },
        { 0x180000, 0x1000, E820_TYPE_RESERVED }, { 0x181000, 0x7f000, E820_TYPE_RAM },
        { 0x200000, 0x1000, E820_TYPE_PRAM },  { 0x201000, 0x1000, E820_TYPE_PRAM },
    };
    unsigned n = e820_as_kernel_reads(e, 6);
    ck_assert_msg(e820_equal(e, n, want, 6), "%u entries", n);
    /* An entry that wraps: the kernel leaves the table as it is. */
    struct boot_e820_entry wraps[4] = { { 0x1000, 0x1000, E820_TYPE_RAM }, { ~0ULL - 0xfff, 0x2000, E820_TYPE_RAM } };
    ck_assert_uint_eq(e820_as_kernel_reads(wraps, 2), 2);
    ck_assert_uint_eq(wraps[1].size, 0x2000);
}
END_TEST

START_TEST(e820_mismatch_in_type_size_or_count)
{
    const struct boot_e820_entry a[2] = { { 0, 0x9f000, E820_TYPE_RAM }, { 0x100000, 0x100000, E820_TYPE_RAM } };
    struct boot_e820_entry b[2];
    memcpy(b, a, sizeof(b));
    ck_assert(e820_equal(a, 2, b, 2));
    ck_assert(!e820_equal(a, 2, b, 1));
    b[1].type = E820_TYPE_RESERVED;
    ck_assert(!e820_equal(a, 2, b, 2));
    b[1].type = E820_TYPE_RAM;
    b[1].size -= 0x1000;
    ck_assert(!e820_equal(a, 2, b, 2));

    /* The stub's table against the map: the same RAM cut in two where the
     * map has one range is a mismatch. */
    static struct boot_e820_entry want[MEMMAP_MAX_ENTRIES];
    map.n = 0;
    map_add(EFI_CONVENTIONAL_MEMORY, 0, 0x9f);
    map_add(EFI_LOADER_DATA, 0x100000, 0x80);
    map_add(EFI_CONVENTIONAL_MEMORY, 0x180000, 0x80);
    unsigned n = e820_expected(&map, want);
    ck_assert(e820_equal(a, 2, want, n));
    const struct boot_e820_entry cut[3] = { a[0], { 0x100000, 0x80000, E820_TYPE_RAM },
                                            { 0x180000, 0x80000, E820_TYPE_RAM } };
    ck_assert(!e820_equal(cut, 3, want, n));
}
END_TEST

/* memattr_check: the kernel is the EfiLoaderCode allocation with
 * read-only pages, read from the identity map in runs. */
#define KERNEL_AT   0x800000ULL
#define KERNEL_SIZE 0x600000ULL
#define TEXT_SIZE   0x1a3000ULL

static uint64_t table_page(void *ctx)
{
    uint64_t *next = ctx;
    return (*next += 0x1000);
}

START_TEST(memattr_check_reads_the_kernels_runs)
{
    static uint8_t *mem;
    struct guest_mem gm;
    struct memattr_check c;
    uint64_t tables = 0x300000;
    mem = calloc(1, 0x1000000);
    ck_assert_ptr_nonnull(mem);
    guest_mem_init(&gm, mem, 0x1000000);
    ck_assert_int_eq(x86_setup_page_tables(&gm), 4);
    map.n = 0;
    map_add(EFI_CONVENTIONAL_MEMORY, 0, 0x800);
    map_add(EFI_LOADER_CODE, KERNEL_AT, KERNEL_SIZE >> 12);
    map_add(EFI_CONVENTIONAL_MEMORY, KERNEL_AT + KERNEL_SIZE, 0x200);
    memattr_check(&gm, &map, &c);
    ck_assert(!c.found);   /* nothing read-only: the stub asked for nothing */

    /* What the stub asks: its text read-only, then executable. */
    ck_assert_int_eq(page_prot_change(&gm, KERNEL_AT, TEXT_SIZE, PAGE_PROT_READ_ONLY, 0, table_page, &tables),
                     PAGE_PROT_CHANGED);
    memattr_check(&gm, &map, &c);
    ck_assert(c.found && c.ok && !c.more);
    ck_assert_uint_eq(c.start, KERNEL_AT);
    ck_assert_uint_eq(c.end, KERNEL_AT + KERNEL_SIZE);
    ck_assert_uint_eq(c.nruns, 2);
    ck_assert_uint_eq(c.run[0].end, KERNEL_AT + TEXT_SIZE);
    ck_assert_str_eq(memattr_prot_name(c.run[0].prot), "read-only, executable");
    ck_assert_uint_eq(c.run[1].start, KERNEL_AT + TEXT_SIZE);
    ck_assert_uint_eq(c.run[1].end, KERNEL_AT + KERNEL_SIZE);
    ck_assert_str_eq(memattr_prot_name(c.run[1].prot), "writable, executable");

    /* Text left execute-protected, or a page not present: a mismatch. */
    page_prot_change(&gm, KERNEL_AT, 0x1000, PAGE_PROT_NO_EXECUTE, 0, table_page, &tables);
    memattr_check(&gm, &map, &c);
    ck_assert(c.found && !c.ok);
    ck_assert_uint_eq(c.nruns, 3);
    page_prot_change(&gm, KERNEL_AT, 0x1000, 0, PAGE_PROT_NO_EXECUTE, table_page, &tables);
    page_prot_change(&gm, KERNEL_AT + KERNEL_SIZE - 0x1000, 0x1000, PAGE_PROT_NOT_PRESENT, 0, table_page, &tables);
    memattr_check(&gm, &map, &c);
    ck_assert(c.found && !c.ok);
    ck_assert_str_eq(memattr_prot_name(c.run[c.nruns - 1].prot), "not present");

    /* More runs than it keeps: said; the runs it lists end where their
     * pages do, and every page is judged, those past the list too. */
    page_prot_change(&gm, KERNEL_AT + KERNEL_SIZE - 0x1000, 0x1000, 0, PAGE_PROT_NOT_PRESENT, table_page, &tables);
    for (uint64_t a = KERNEL_AT + TEXT_SIZE + 0x1000; a < KERNEL_AT + TEXT_SIZE + 0x20000; a += 0x2000)
        page_prot_change(&gm, a, 0x1000, PAGE_PROT_NO_EXECUTE, 0, table_page, &tables);
    memattr_check(&gm, &map, &c);
    ck_assert(c.found && c.more && c.ok);   /* writable pages, some non-executable: as a kernel's data may be */
    ck_assert_uint_eq(c.nruns, MEMATTR_MAX_RUNS);
    ck_assert_uint_eq(c.run[MEMATTR_MAX_RUNS - 1].start, KERNEL_AT + TEXT_SIZE + 0x6000);
    ck_assert_uint_eq(c.run[MEMATTR_MAX_RUNS - 1].end, KERNEL_AT + TEXT_SIZE + 0x7000);
    ck_assert_str_eq(memattr_prot_name(c.run[MEMATTR_MAX_RUNS - 1].prot), "writable, executable");
    page_prot_change(&gm, KERNEL_AT + KERNEL_SIZE - 0x1000, 0x1000, PAGE_PROT_NOT_PRESENT, 0, table_page, &tables);
    memattr_check(&gm, &map, &c);
    ck_assert(c.found && c.more && !c.ok);   /* a page past the listed runs not present */
    ck_assert_uint_eq(c.nruns, MEMATTR_MAX_RUNS);
    free(mem);
}
END_TEST

/* A sweep snapshot's call, taken back, is counted again when the restored
 * VM makes it: the report's firmware-phase figures (exits = calls + port
 * I/O) hold in the cell as they did in the boot without faults. */
START_TEST(uncounting_a_call_keeps_the_firmware_phase_figures)
{
    struct run_counters c = { .hypercalls = 7, .fallbacks = 1 };
    c.exits[KVM_EXIT_IO] = 9;
    c.firmware_phase.exits[KVM_EXIT_IO] = 9;
    c.firmware_phase.firmware_calls = 7;   /* and 2 of port I/O */
    const struct run_counters before = c;
    run_counters_uncount_call(&c);
    ck_assert_uint_eq(c.exits[KVM_EXIT_IO], 8);
    ck_assert_uint_eq(c.hypercalls, 6);
    ck_assert_uint_eq(c.firmware_phase.exits[KVM_EXIT_IO] - c.firmware_phase.firmware_calls, 2);
    ck_assert_uint_eq(c.firmware_phase.firmware_calls, 6);
    ck_assert_uint_eq(c.fallbacks, before.fallbacks);
}
END_TEST

/* end_reason: each reason, from what happened; every reason of the table
 * is one of them, under the name reports and docs/exit-status.md give it. */
#define STARTED(...) (&(struct run_end){ .started = true, __VA_ARGS__ })
#define RUN(...) { .started = true, __VA_ARGS__ }
START_TEST(end_reason_each_reason)
{
    static const struct {
        struct run_end run;
        const char *reason;
    } cases[] = {
        { RUN(.write_failed = true, .exit_status = EXIT_OK), "output-write-failed" },
        { { .exit_status = EXIT_USAGE }, "not-started" },
        { { .exit_status = EXIT_BAD_IMAGE }, "not-started" },
        { RUN(.stopped_by_signal = 15, .exit_status = 143), "signal" },
        { RUN(.fault_sweep = true, .exit_status = EXIT_OK), "sweep-done" },
        { RUN(.fault_sweep = true, .exit_status = EXIT_SWEEP_FAILED), "sweep-cells-failed" },
        { RUN(.timed_out = true, .exit_status = EXIT_TIMEOUT), "timeout" },
        { RUN(.watchdog = true, .exit_status = EXIT_WATCHDOG), "watchdog" },
        { RUN(.stop_at_ebs = true, .reached_runtime = true, .stop_unreached = true, .exit_status = EXIT_STOP_UNREACHED),
          "stop-unreached" },
        { RUN(.exit_port = true, .exit_port_status = 3, .exit_status = 3), "guest-status" },
        { RUN(.panic = true, .exit_status = EXIT_PANIC), "kernel-panic" },
        { RUN(.efi_exit = true, .exit_status = EXIT_FIRMWARE_EXIT), "efi-exit" },
        { RUN(.kunit = true, .kunit_complete = true, .exit_status = EXIT_KUNIT_FAILED), "kunit-finished" },
        { RUN(.exit_status = EXIT_USAGE), "refused" },
        { RUN(.exit_status = EXIT_HOST), "host-error" },
        { RUN(.exit_status = EXIT_GUEST_CRASH), "guest-crash" },
        { RUN(.kunit = true, .exit_status = EXIT_KUNIT_INCOMPLETE), "kunit-incomplete" },
        { RUN(.exec = true, .exit_status = EXIT_EXEC_NO_STATUS), "exec-status-unknown" },
        { RUN(.stop_at_ebs = true, .reached_runtime = true), "stop-at-ebs" },
        { RUN(.poweroff = true), "guest-poweroff" },
        { RUN(.reset = true), "guest-reset" },
        { RUN(.halted = true), "guest-halted" },
        { RUN(.exit_status = EXIT_OK), "ended" },
    };
    bool seen[END_REASON_COUNT] = { false };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        ck_assert_str_eq(end_reason(&cases[i].run), cases[i].reason);
        for (unsigned r = 0; r < END_REASON_COUNT; r++)
            seen[r] |= !strcmp(end_reasons[r].name, cases[i].reason);
    }
    for (unsigned r = 0; r < END_REASON_COUNT; r++)
        ck_assert_msg(seen[r], "no case ends %s", end_reasons[r].name);
}
END_TEST

/* What happened outranks the number: a guest may write 124 or 4 itself,
 * a failed output spoils any success, and a sweep whose last cell timed
 * out still ends as a sweep. */
START_TEST(end_reason_precedence)
{
    ck_assert_str_eq(end_reason(STARTED(.exit_port = true, .exit_port_status = EXIT_TIMEOUT,
                                        .exit_status = EXIT_TIMEOUT)), "guest-status");
    ck_assert_str_eq(end_reason(STARTED(.exit_port = true, .exit_port_status = EXIT_GUEST_CRASH,
                                        .exit_status = EXIT_GUEST_CRASH)), "guest-status");
    /* --kunit takes a 0 (or 5) on the exit port before every suite reported
     * for no result (kunit.c): the run did not finish, which the reason
     * says; "guest-status, exit status 7" named a status the guest never wrote. */
    ck_assert_str_eq(end_reason(STARTED(.exit_port = true, .exit_port_status = 0, .kunit = true,
                                        .exit_status = EXIT_KUNIT_INCOMPLETE)), "kunit-incomplete");
    ck_assert_str_eq(end_reason(STARTED(.exit_port = true, .exit_port_status = EXIT_FIRMWARE_EXIT, .kunit = true,
                                        .exit_status = EXIT_KUNIT_INCOMPLETE)), "kunit-incomplete");
    ck_assert_str_eq(end_reason(STARTED(.exit_port = true, .exit_port_status = EXIT_KUNIT_INCOMPLETE, .kunit = true,
                                        .exit_status = EXIT_KUNIT_INCOMPLETE)), "guest-status");
    ck_assert_str_eq(end_reason(&(struct run_end){ .write_failed = true, .exit_status = EXIT_HOST }),
                     "output-write-failed");
    ck_assert_str_eq(end_reason(STARTED(.write_failed = true, .stopped_by_signal = 2)), "output-write-failed");
    /* A signal while the boot was still being made ends the run as a signal,
     * with its 128+N, which not-started does not give. */
    ck_assert_str_eq(end_reason(&(struct run_end){ .stopped_by_signal = 2, .exit_status = 130 }), "signal");
    ck_assert_str_eq(end_reason(STARTED(.fault_sweep = true, .timed_out = true, .exit_status = EXIT_OK)), "sweep-done");
    ck_assert_str_eq(end_reason(STARTED(.fault_sweep = true, .exit_status = EXIT_HOST)), "host-error");
    ck_assert_str_eq(end_reason(STARTED(.kunit = false, .exit_status = EXIT_KUNIT_INCOMPLETE)), "ended");
    ck_assert_str_eq(end_reason(STARTED(.exec = false, .exit_status = EXIT_EXEC_NO_STATUS)), "ended");
    ck_assert_str_eq(end_reason(STARTED(.stop_at_ebs = true, .reached_runtime = false, .exit_status = EXIT_OK)),
                     "ended");
    /* The stub gave up (Exit) under --kunit or --exec: the run's own failure
     * names it, as efi-exit names only 0 and 5 (docs/exit-status.md). */
    ck_assert_str_eq(end_reason(STARTED(.efi_exit = true, .kunit = true, .exit_status = EXIT_KUNIT_INCOMPLETE)),
                     "kunit-incomplete");
    ck_assert_str_eq(end_reason(STARTED(.efi_exit = true, .exec = true, .exit_status = EXIT_EXEC_NO_STATUS)),
                     "exec-status-unknown");
    ck_assert_str_eq(end_reason(STARTED(.efi_exit = true, .exec = true, .exit_status = EXIT_FIRMWARE_EXIT)),
                     "efi-exit");
    /* A stop never reached outranks how the guest ended: its reset, its 0. */
    ck_assert_str_eq(end_reason(STARTED(.stop_at_ebs = true, .stop_unreached = true, .reset = true,
                                        .exit_status = EXIT_STOP_UNREACHED)), "stop-unreached");
    ck_assert_str_eq(end_reason(STARTED(.stop_at_ebs = true, .stop_unreached = true, .exit_port = true,
                                        .exit_status = EXIT_STOP_UNREACHED)), "stop-unreached");
}
END_TEST

static void feed_ktap(struct ktap *k, const char *text)
{
    char line[256];
    while (*text) {
        size_t n = strcspn(text, "\n");
        snprintf(line, sizeof(line), "%.*s", (int)n, text);
        ktap_line(k, line);
        text += n + (text[n] == '\n');
    }
}

START_TEST(ktap_passing_and_failing_runs)
{
    struct ktap k;
    ktap_init(&k);
    feed_ktap(&k, "Booting\nKTAP version 1\n1..2\n    KTAP version 1\n    # Subtest: example\n    1..2\n"
             "    ok 1 example_simple_test\n    ok 2 example_skip_test # SKIP this test should be skipped\n"
             "ok 1 example\n");
    ck_assert(!ktap_complete(&k));
    feed_ktap(&k, "    KTAP version 1\n    # Subtest: handover_selftest\n    1..2\n    ok 1 handover_selftest_sanity\n"
             "    # handover_selftest_param_controlled: EXPECTATION FAILED at x.c:37\n"
             "    not ok 2 handover_selftest_param_controlled\n"
             "# handover_selftest: pass:1 fail:1 skip:0 total:2\nnot ok 2 handover_selftest\n");
    ck_assert(ktap_complete(&k));
    ck_assert(!ktap_passed(&k));
    ck_assert_uint_eq(k.nsuites, 2);
    ck_assert_uint_eq(k.suites[0].passed, 1);
    ck_assert_uint_eq(k.suites[0].skipped, 1);
    ck_assert_uint_eq(k.suites[1].failed, 1);
    ck_assert_uint_eq(k.nfailed, 1);
    ck_assert_str_eq(k.failed[0], "handover_selftest.handover_selftest_param_controlled");

    ktap_free(&k);
    feed_ktap(&k, "[    0.500000] KTAP version 1\n[    0.500001] 1..1\n[    0.5] ok 1 bits-test\n");
    ck_assert(ktap_complete(&k));
    ck_assert(ktap_passed(&k));

    ktap_free(&k);   /* CONFIG_PRINTK_CALLER: the caller's field after the time, or alone */
    feed_ktap(&k, "[    0.500000][    T1] KTAP version 1\n[    0.500001][    T1] 1..2\n"
                  "[    0.6][    T1]     # Subtest: a\n[    0.6][    T1]     not ok 1 b\n"
                  "[    0.7][    T1] not ok 1 a\n[     T1] ok 2 c\n");
    ck_assert(ktap_complete(&k));
    ck_assert(!ktap_passed(&k));
    ck_assert_str_eq(k.failed[0], "a.b");
    ck_assert_str_eq(k.suites[1].name, "c");

    ktap_free(&k);   /* ok lines before a KTAP header are not results */
    feed_ktap(&k, "ok 1 nothing\n1..1\n");
    ck_assert(!k.started);
    ck_assert(!ktap_complete(&k));
    ktap_free(&k);
}
END_TEST

/* A failed case fails the run whatever its suite's line says: a suite
 * "ok" over a "not ok" case, or a result line whose name is not the
 * suite's (garbled, or another suite's), is no pass. */
START_TEST(ktap_failed_case_under_an_ok_suite_is_no_pass)
{
    struct ktap k;
    ktap_init(&k);
    feed_ktap(&k, "KTAP version 1\n1..1\n    # Subtest: example\n    1..2\n    ok 1 a\n    not ok 2 b\n"
                  "ok 1 example\n");
    ck_assert(ktap_complete(&k));
    ck_assert(!ktap_passed(&k));
    ktap_free(&k);
    ktap_init(&k);
    feed_ktap(&k, "KTAP version 1\n1..1\n    # Subtest: example\n    1..1\n    not ok 1 b\nok 1 exa\n");
    ck_assert(ktap_complete(&k));
    ck_assert(!ktap_passed(&k));
    ktap_free(&k);
    /* A suite without its "# Subtest:" line (optional in ktap.rst): its
     * failed case was dropped, and "ok 1 example" passed the run. */
    feed_ktap(&k, "KTAP version 1\n1..2\n    KTAP version 1\n    1..2\n    ok 1 a\n    not ok 2 b\nok 1 example\n"
                  "    # Subtest: next\n    ok 1 c\nok 2 next\n");
    ck_assert(ktap_complete(&k));
    ck_assert(!ktap_passed(&k));
    ck_assert_uint_eq(k.nsuites, 2);
    ck_assert_str_eq(k.suites[0].name, "example");
    ck_assert_uint_eq(k.suites[0].passed, 1);
    ck_assert_uint_eq(k.suites[0].failed, 1);
    ck_assert_str_eq(k.failed[0], "b");
    ck_assert_uint_eq(k.suites[1].passed, 1);
    ktap_free(&k);
}
END_TEST

/* A suite whose result line carries the SKIP directive is skipped, not
 * failed, whether it says "ok" or "not ok" (ktap.rst: the directive
 * decides; kunit.py's parser reads both as SKIPPED). */
START_TEST(ktap_skipped_suite_is_no_failure)
{
    /* plan, suites, and whether the run passed */
    const struct { const char *text; bool passed; } runs[] = {
        { "KTAP version 1\n1..3\n    # Subtest: a\n    ok 1 x\nok 1 a\n    # Subtest: b\n    1..0\n"
          "not ok 2 b # SKIP no such hardware\nok 3 c # SKIP\n", true },
        { "KTAP version 1\n1..1\nnot ok 1 b # timed out\n", false },
    };
    for (unsigned i = 0; i < 2; i++) {
        struct ktap k;
        ktap_init(&k);
        feed_ktap(&k, runs[i].text);
        ck_assert(ktap_complete(&k));
        ck_assert_int_eq(ktap_passed(&k), runs[i].passed);
        for (unsigned j = 0; j < k.nsuites; j++)
            ck_assert(k.suites[j].ok == runs[i].passed);
        ktap_free(&k);
    }
}
END_TEST

/* Names are kept whole: 6.1's KUnit has case names of 78 bytes and suite
 * names of 66 (clk_test_orphan_transparent_multiple_parent_mux_...), and
 * two cases cut at 63 bytes could no longer be told apart. */
START_TEST(ktap_long_names_are_kept_whole)
{
    const char *suite = "clk_orphan_transparent_multiple_parent_mux_test_suite_with_a_long_name";
    const char *a = "clk_test_orphan_transparent_multiple_parent_mux_set_parent_drop_range_and_more_a";
    const char *b = "clk_test_orphan_transparent_multiple_parent_mux_set_parent_drop_range_and_more_b";
    char text[1024], failed[512];
    snprintf(text, sizeof(text), "KTAP version 1\n1..1\n    # Subtest: %s\n    not ok 1 %s\n    ok 2 %s\nnot ok 1 %s\n",
             suite, a, b, suite);
    struct ktap k;
    ktap_init(&k);
    feed_ktap(&k, text);
    ck_assert(ktap_complete(&k));
    ck_assert_uint_eq(k.nsuites, 1);
    ck_assert_str_eq(k.suites[0].name, suite);
    ck_assert_uint_eq(k.ncases, 2);
    ck_assert_str_eq(k.cases[0].name, a);
    ck_assert_str_eq(k.cases[1].name, b);
    snprintf(failed, sizeof(failed), "%s.%s", suite, a);
    ck_assert_str_eq(k.failed[0], failed);
    ktap_free(&k);
}
END_TEST

/* ktap_summary's lines, to be freed. */
static char *ktap_summary_text(const struct ktap *k)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(out);
    ktap_summary(k, out);
    fclose(out);
    return text;
}

/* A reader that saw no line saw no run: not complete, not passed, whether
 * it was initialised or is the zeroed state of a run that never started
 * (a refused image once read as "plan 0, complete, passed"). */
START_TEST(ktap_that_saw_no_line_is_not_complete)
{
    struct ktap zeroed = { 0 }, k;
    ck_assert(!ktap_complete(&zeroed));
    ck_assert(!ktap_passed(&zeroed));
    ktap_init(&k);
    ck_assert(!ktap_complete(&k));
    ck_assert(!ktap_passed(&k));
    feed_ktap(&k, "KTAP version 1\n1..0\n");   /* a run with no suites is one that was seen */
    ck_assert(ktap_complete(&k));
    /* but it tested nothing (no suite built in, a filter that matched none):
     * no pass, as kunit.py's "0 tests run!" is none */
    ck_assert(!ktap_passed(&k));
    char *text = ktap_summary_text(&k);
    ck_assert_ptr_nonnull(strstr(text, "kunit: no suite ran (plan 1..0): nothing was tested\n"));
    free(text);
    ktap_free(&k);
}
END_TEST

/* A plan past an int is no plan of one suite: atoi once wrapped
 * 4294967297 to 1, so one suite's line completed a run that promised four
 * billion; and "1..x" is no plan at all. */
START_TEST(ktap_plan_past_an_int_is_never_complete)
{
    struct ktap k;
    ktap_init(&k);
    feed_ktap(&k, "KTAP version 1\n1..4294967297\n    # Subtest: a\n    1..1\n    ok 1 b\nok 1 a\n");
    ck_assert(!ktap_complete(&k));
    ck_assert(!ktap_passed(&k));
    ktap_free(&k);
    ktap_init(&k);
    feed_ktap(&k, "KTAP version 1\n1..x\n    # Subtest: a\n    1..1\n    ok 1 b\nok 1 a\n");
    ck_assert(!ktap_complete(&k));
    ktap_free(&k);
}
END_TEST

/* A panic (or hang) in a case leaves its suite without a result line
 * (lib/kunit/test.c prints it after the last case): the run is no pass,
 * and the summary names the suite and the last case that finished, not
 * only "incomplete"; a failure it reported before is still listed. */
START_TEST(ktap_crash_mid_suite_names_the_suite_and_its_last_case)
{
    struct ktap k;
    ktap_init(&k);
    feed_ktap(&k, "KTAP version 1\n1..3\n    # Subtest: first\n    1..1\n    ok 1 a\nok 1 first\n"
                  "    KTAP version 1\n    # Subtest: second\n    1..4\n    ok 1 b\n    not ok 2 c\n"
                  "    ok 3 d\n[    2.5] BUG: kernel NULL pointer dereference, address: 0000000000000000\n"
                  "[    2.6] Kernel panic - not syncing: Fatal exception\n");
    ck_assert(!ktap_complete(&k));
    ck_assert(!ktap_passed(&k));
    ck_assert_ptr_nonnull(ktap_unfinished(&k));
    ck_assert_str_eq(ktap_unfinished(&k)->name, "second");
    ck_assert_str_eq(ktap_unfinished_last_case(&k), "d");
    char *text = ktap_summary_text(&k);
    ck_assert_ptr_nonnull(strstr(text, "kunit: second                   UNFINISHED  2 passed, 1 failed, 0 skipped\n"));
    ck_assert_ptr_nonnull(strstr(text, "kunit: unfinished suite second: the run stopped after its case d\n"));
    ck_assert_ptr_nonnull(strstr(text, "kunit: failed test: second.c\n"));
    ck_assert_ptr_nonnull(strstr(text, "kunit: incomplete: 1 of 3 suites reported\n"));
    free(text);
    ktap_free(&k);

    ktap_init(&k);   /* its first case crashed */
    feed_ktap(&k, "KTAP version 1\n1..1\n    # Subtest: only\n    1..2\n");
    ck_assert_str_eq(ktap_unfinished(&k)->name, "only");
    ck_assert_ptr_null(ktap_unfinished_last_case(&k));
    text = ktap_summary_text(&k);
    ck_assert_ptr_nonnull(strstr(text, "kunit: unfinished suite only: the run stopped before its first case reported\n"));
    free(text);
    feed_ktap(&k, "    ok 1 x\n    ok 2 y\nok 1 only\n");   /* a suite that finished is none */
    ck_assert_ptr_null(ktap_unfinished(&k));
    ck_assert(ktap_passed(&k));
    ktap_free(&k);
}
END_TEST

/* Any number of suites: 200, three cases each, two failures in the 150th
 * (the reader once stopped at 64 suites and called the run incomplete). */
START_TEST(ktap_reads_200_suites_with_failures_in_the_150th)
{
    struct ktap k;
    ktap_init(&k);
    feed_ktap(&k, "KTAP version 1\n1..200\n");
    char buf[512];
    for (unsigned i = 1; i <= 200; i++) {
        bool bad = i == 150;
        snprintf(buf, sizeof(buf),
                 "    KTAP version 1\n    # Subtest: suite%u\n    1..3\n    ok 1 case_a\n"
                 "    %s 2 case_b\n    %s 3 case_c\n%s %u suite%u\n",
                 i, bad ? "not ok" : "ok", bad ? "not ok" : "ok", bad ? "not ok" : "ok", i, i);
        feed_ktap(&k, buf);
    }
    ck_assert(ktap_complete(&k));
    ck_assert(!ktap_passed(&k));
    ck_assert_uint_eq(k.nsuites, 200);
    ck_assert_uint_eq(k.nfailed, 2);
    ck_assert_str_eq(k.failed[0], "suite150.case_b");
    ck_assert_str_eq(k.failed[1], "suite150.case_c");
    ck_assert(!k.suites[149].ok);
    ck_assert(k.suites[199].ok);
    ck_assert_uint_eq(k.suites[199].passed, 3);
    ck_assert_uint_eq(k.ncases, 600);   /* every case, for --kunit-json */
    ck_assert_str_eq(k.cases[149 * 3 + 1].name, "case_b");
    ck_assert_uint_eq(k.cases[149 * 3 + 1].suite, 149);
    ck_assert_int_eq(k.cases[149 * 3 + 1].status, KTAP_FAIL);
    ck_assert_int_eq(k.cases[0].status, KTAP_PASS);
    char *text = ktap_summary_text(&k);
    ck_assert_ptr_nonnull(strstr(text, "kunit: 200 suites (1 failed), 600 tests: 598 passed, 2 failed, 0 skipped"));
    ck_assert_ptr_null(strstr(text, "incomplete"));
    free(text);
    ktap_free(&k);
}
END_TEST

Suite *verdict_suite(void)
{
    Suite *s = suite_create("verdict");
    TCase *tc = tcase_create("console-watch");
    tcase_add_test(tc, panic_needs_its_end_marker);
    tcase_add_test(tc, panic_keeps_the_first_reason_and_ignores_a_stray_end);
    tcase_add_test(tc, halt_watch_takes_the_kernels_halt_line);
    tcase_add_test(tc, exec_status_is_found_anywhere_in_the_line);
    tcase_add_test(tc, exec_status_refuses_what_is_not_this_runs_status);
    tcase_add_test(tc, milestones_match_the_banner_and_init);
    tcase_add_test(tc, console_lines_go_to_every_consumer_in_order);
    tcase_add_test(tc, console_line_keeps_the_start_of_a_long_line);
    tcase_add_test(tc, line_consumers_refuse_past_their_bound);
    tcase_add_test(tc, panic_through_the_console_line);
    tcase_add_test(tc, a_nul_byte_hides_no_panic_line);
    tcase_add_test(tc, a_carriage_return_starts_the_line_over);
    tcase_add_test(tc, panic_ends_at_a_restart_without_its_end_marker);
    suite_add_tcase(s, tc);

    tc = tcase_create("fault-outcome");
    tcase_add_test(tc, fault_outcome_each_outcome);
    tcase_add_test(tc, fault_outcome_precedence);
    tcase_add_test(tc, fault_outcome_line_judges_no_run_a_signal_stopped);
    tcase_add_test(tc, fault_outcome_line_judges_a_guest_status_of_3);
    suite_add_tcase(s, tc);

    tc = tcase_create("end-reason");
    tcase_add_test(tc, end_reason_each_reason);
    tcase_add_test(tc, end_reason_precedence);
    suite_add_tcase(s, tc);

    tc = tcase_create("e820-check");
    tcase_add_test(tc, e820_expected_merges_neighbours_of_one_type);
    tcase_add_test(tc, e820_expected_converts_types_and_skips_unknown_ones);
    tcase_add_test(tc, e820_read_follows_the_setup_data_chain);
    tcase_add_test(tc, e820_read_whole_only_when_no_part_is_out_of_reach);
    tcase_add_test(tc, e820_as_kernel_reads_makes_unknown_types_reserved);
    tcase_add_test(tc, e820_as_kernel_reads_sorts_as_the_kernel_does);
    tcase_add_test(tc, e820_mismatch_in_type_size_or_count);
    suite_add_tcase(s, tc);

    tc = tcase_create("memattr-check");
    tcase_add_test(tc, memattr_check_reads_the_kernels_runs);
    suite_add_tcase(s, tc);

    tc = tcase_create("run-counters");
    tcase_add_test(tc, uncounting_a_call_keeps_the_firmware_phase_figures);
    suite_add_tcase(s, tc);

    tc = tcase_create("ktap");
    tcase_add_test(tc, ktap_passing_and_failing_runs);
    tcase_add_test(tc, ktap_that_saw_no_line_is_not_complete);
    tcase_add_test(tc, ktap_plan_past_an_int_is_never_complete);
    tcase_add_test(tc, ktap_failed_case_under_an_ok_suite_is_no_pass);
    tcase_add_test(tc, ktap_skipped_suite_is_no_failure);
    tcase_add_test(tc, ktap_long_names_are_kept_whole);
    tcase_add_test(tc, ktap_reads_200_suites_with_failures_in_the_150th);
    tcase_add_test(tc, ktap_crash_mid_suite_names_the_suite_and_its_last_case);
    suite_add_tcase(s, tc);
    return s;
}
