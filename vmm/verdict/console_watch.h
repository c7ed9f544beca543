/* What the guest's console lines say about the run, line by line: a kernel
 * panic, the --exec command's status, the boot's milestones. Each reads one
 * complete line (console_line.h feeds them). */
#ifndef HANDOVER_CONSOLE_WATCH_H
#define HANDOVER_CONSOLE_WATCH_H

#include <stdbool.h>

/* kernel/panic.c: panic() prints "Kernel panic - not syncing: REASON",
 * then "---[ end Kernel panic - not syncing: REASON ]---" once it has said
 * all it will. */
struct panic_watch {
    char line[256];          /* from "Kernel panic - not syncing" on; empty: no panic */
    bool ended;              /* its end marker came, or the guest restarted after it */
};

/* A line consumer (ctx: struct panic_watch). */
void panic_watch_line(void *ctx, const char *line);

/* The guest restarted (a reset, or with reboot=t a triple fault), powered
 * off, or halted for good. kernel/panic.c: with panic=N (N != 0) panic()
 * restarts the machine (emergency_restart) where it would print its end
 * marker, so a panic seen before is over: true, and w->ended set. */
bool panic_watch_restart(struct panic_watch *w);

/* --exec: the run's own mark, EXEC_RUN_ID_LEN hex digits handover draws
 * for each run and gives /init (/handover/run, or with --snapshot on the
 * console with the command), so that the command's own output cannot end
 * the run: a line it prints that looks like /init's has no such mark. */
#define EXEC_RUN_ID_LEN 16

/* scripts/handover-init.sh logs "handover-init: command exited with status
 * N [run ID]" through /dev/kmsg, so the text may stand after a printk
 * timestamp. True with N (0-255: a shell's $?) in *status when the line
 * has it with this run's ID. */
bool exec_status_scan(const char *line, const char *run_id, int *status);

/* kernel/reboot.c kernel_halt (halt -f, kunit_shutdown=halt) prints
 * "reboot: System halted" before machine_halt stops every CPU with
 * interrupts off (arch/x86/kernel/process.c stop_this_cpu: cli; hlt for
 * good). A line consumer (ctx: a bool, set on that line). */
void halt_watch_line(void *ctx, const char *line);

/* The milestones --report times: the banner of init/version.c and
 * init/main.c's "Run /sbin/init as init process". */
bool console_is_banner(const char *line);
bool console_is_init(const char *line);

#endif
