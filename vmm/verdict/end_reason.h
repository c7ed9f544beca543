/* Why a run ended (--report's end_reason, the "end:" line), judged from
 * what happened, not from the exit status alone: the guest's own status
 * may be any byte, 4 and 124 included. The reasons are one table, from
 * which their names and docs/exit-status.md are made. */
#ifndef HANDOVER_END_REASON_H
#define HANDOVER_END_REASON_H

#include <stdbool.h>

#include "exit_status.h"

/* X(constant, name, (exit statuses), meaning), in the order end_reason
 * tries them (the first that holds wins). The statuses are exit_status.h's
 * constants or range rows, or END_ANY_STATUS. */
#define END_REASONS(X) \
    X(END_OUTPUT_WRITE_FAILED, "output-write-failed", (EXIT_HOST), \
      "the run succeeded but --report, --trace-efi, --kunit-json, --exec-output or the sweep matrix could not be " \
      "written whole; or stdout failed (its reader went away, its disk is full), which stops the run there") \
    X(END_SIGNAL, "signal", (EXIT_BY_SIGNAL), \
      "SIGINT, SIGTERM, SIGQUIT or SIGHUP stopped the run, before the guest was entered too (the report's " \
      "not_started_at then says where); a SIGHUP ignored when handover started (nohup) stays ignored") \
    X(END_NOT_STARTED, "not-started", (EXIT_USAGE, EXIT_HOST, EXIT_FIRMWARE_EXIT, EXIT_BAD_IMAGE), \
      "the guest was never entered: refused options, an output that cannot be opened, a bad image, a missing input " \
      "file, no /dev/kvm or a KVM error before the entry, an image Secure Boot refused (the report's not_started_at " \
      "says which)") \
    X(END_SWEEP_DONE, "sweep-done", (EXIT_OK), \
      "--fault-sweep: every cell ran, none failed (the sweep takes no --report: stderr only)") \
    X(END_SWEEP_CELLS_FAILED, "sweep-cells-failed", (EXIT_SWEEP_FAILED), \
      "--fault-sweep: cells failed by --fail-on or --sweep-baseline (stderr only)") \
    X(END_TIMEOUT, "timeout", (EXIT_TIMEOUT), \
      "--timeout ran out, or the guest asked for a wait (Stall) that would outlast it") \
    X(END_WATCHDOG, "watchdog", (EXIT_WATCHDOG), \
      "the firmware's watchdog expired before ExitBootServices (armed by the image's SetWatchdogTimer, by " \
      "--watchdog, or for 300 s as an EFI application starts): the platform reset, which the guest did not ask " \
      "for; a line of the log names the WatchdogCode and WatchdogData") \
    X(END_STOP_UNREACHED, "stop-unreached", (EXIT_STOP_UNREACHED), \
      "--stop-at ebs: the run would have succeeded (the guest reset, powered off or wrote 0 to the exit port, or " \
      "the image ended) but never reached the kernel's entry after a successful ExitBootServices") \
    X(END_GUEST_STATUS, "guest-status", (EXIT_GUEST_BYTE), \
      "the guest wrote N to the exit port " EXIT_STATUS_STR(GUEST_PORT_EXIT) ", or --exec's command reported N") \
    X(END_KERNEL_PANIC, "kernel-panic", (EXIT_PANIC), \
      "the console showed \"Kernel panic - not syncing\", then its end marker or, with panic=N, a reset, power-off or " \
      "triple fault (reboot=t)") \
    X(END_KUNIT_FINISHED, "kunit-finished", (EXIT_OK, EXIT_KUNIT_FAILED), \
      "--kunit: every planned suite reported, its tests passed or not (1 too when no suite ran: a plan of 1..0)") \
    X(END_REFUSED, "refused", (EXIT_USAGE), "after a sweep: the --sweep-baseline file is not a matrix") \
    X(END_HOST_ERROR, "host-error", (EXIT_HOST), "a KVM or host error after the guest was entered") \
    X(END_GUEST_CRASH, "guest-crash", (EXIT_GUEST_CRASH), \
      "triple fault, an exception through the firmware's IDT, HLT with interrupts off (in the firmware phase; after " \
      "ExitBootServices, every vCPU so, the kernel having said neither that it halted nor that it panicked), an " \
      "emulation failure, a WaitForEvent nothing can end, a KVM system event other than shutdown or reset (a crash " \
      "the guest reported)") \
    X(END_KUNIT_INCOMPLETE, "kunit-incomplete", (EXIT_KUNIT_INCOMPLETE), \
      "--kunit: the guest stopped before every suite reported (it powered off, reset, ended, or wrote 0 or 5 to " \
      "the exit port, which --kunit does not take for a result)") \
    X(END_EXEC_STATUS_UNKNOWN, "exec-status-unknown", (EXIT_EXEC_NO_STATUS), \
      "--exec: the guest ended without reporting the command's status") \
    X(END_EFI_EXIT, "efi-exit", (EXIT_OK, EXIT_FIRMWARE_EXIT), \
      "the image called Exit or returned from its entry point; with EFI_SUCCESS that is success unless --stop-at " \
      "ebs was not reached (the report's efi_status names the status)") \
    X(END_STOP_AT_EBS, "stop-at-ebs", (EXIT_OK, EXIT_E820_MISMATCH), \
      "--stop-at ebs: the stub jumped to the kernel, or a boot loader that called ExitBootServices itself entered " \
      "it, with an e820 that matches the memory map or not") \
    X(END_GUEST_POWEROFF, "guest-poweroff", (EXIT_OK), "ACPI S5") \
    X(END_GUEST_RESET, "guest-reset", (EXIT_OK), "the i8042 reset, or ResetSystem") \
    X(END_GUEST_HALTED, "guest-halted", (EXIT_OK), \
      "after ExitBootServices the kernel said \"reboot: System halted\" (halt -f, kunit_shutdown=halt) and every " \
      "vCPU then halted with interrupts off, where nothing can wake it") \
    X(END_ENDED, "ended", (END_ANY_STATUS), "none of the above (a KVM system event of shutdown or reset, for one)")

enum { END_ANY_STATUS = -1, END_STATUS_LIST_END = -2 };

#define END_REASON_CONSTANT(constant, name, statuses, meaning) constant,
enum end_reason_id { END_REASONS(END_REASON_CONSTANT) END_REASON_COUNT };
#undef END_REASON_CONSTANT

struct end_reason_row {
    const char *name;
    int statuses[5];       /* up to END_STATUS_LIST_END */
    const char *meaning;   /* one line */
};
extern const struct end_reason_row end_reasons[END_REASON_COUNT];

/* How a run ended, as the rule reads it. */
struct run_end {
    int exit_status;          /* vmm/verdict/exit_status.h */
    bool write_failed;        /* an output was not written whole */
    bool started;             /* the guest was entered */
    int stopped_by_signal;    /* 0: none */
    bool fault_sweep;         /* the run was a --fault-sweep */
    bool timed_out;           /* --timeout ran out, or a wait would outlast it */
    bool watchdog;            /* the firmware's watchdog expired */
    bool exit_port;           /* the guest wrote exit_port_status to the exit port */
    int exit_port_status;
    bool panic;               /* the console showed a kernel panic */
    bool efi_exit;            /* the top-level image called Exit or returned */
    bool kunit, kunit_complete;   /* --kunit, and its KTAP reader saw every suite */
    bool exec;                /* --exec */
    bool stop_at_ebs, reached_runtime;   /* --stop-at ebs, and ExitBootServices succeeded */
    bool stop_unreached;      /* --stop-at ebs: a success that never reached the stop */
    bool poweroff, reset;     /* the guest powered off, or reset (i8042 or ResetSystem) */
    bool halted;              /* the kernel said it halted, and every vCPU then halted for good */
};

/* The reason's name (end_reasons[].name). */
const char *end_reason(const struct run_end *e);

#endif
