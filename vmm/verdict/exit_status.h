/* handover's exit statuses, one model for every run, in one table: the
 * constants, --help's "Exit status:" (and so the man page's EXIT STATUS)
 * and docs/exit-status.md are made from it. The guest's own status passes
 * through; handover's own outcomes keep these numbers, and the end reason
 * (end_reason.h) tells the two apart. */
#ifndef HANDOVER_EXIT_STATUS_H
#define HANDOVER_EXIT_STATUS_H

#include "../../guest/layout.h"

#define EXIT_STATUS_STR(x)  EXIT_STATUS_STR_(x)
#define EXIT_STATUS_STR_(x) #x

/* Stopped by signal N: 128 + N, as a shell reports it. */
#define EXIT_SIGNAL_BASE 128

/* The table, in the order --help lists it:
 * STATUS(constant, status, meaning): one status of handover's own;
 * RANGE(row, shown as, meaning): statuses with an N in them, which row
 * names (the end reasons' table refers to it; it is no status). */
#define EXIT_STATUSES(STATUS, RANGE) \
    STATUS(EXIT_OK, 0, "success: stop point reached, guest reset, powered off or halted, the image ended with " \
                       "EFI_SUCCESS") \
    RANGE(EXIT_GUEST_BYTE, "N", "the byte the guest wrote to the exit port " EXIT_STATUS_STR(GUEST_PORT_EXIT) \
                                ", or --exec's command's status") \
    STATUS(EXIT_KUNIT_FAILED, 1, "a KUnit test failed, or the --stop-at e820 check failed") \
    STATUS(EXIT_USAGE, 2, "bad usage: refused options, or a file an option names that cannot be used") \
    STATUS(EXIT_HOST, 3, "host problem (no /dev/kvm, KVM error, an output not written whole)") \
    STATUS(EXIT_GUEST_CRASH, 4, "guest crashed (triple fault, exception, emulation failure)") \
    STATUS(EXIT_FIRMWARE_EXIT, 5, "the image gave up: EFI Exit, or returned from its entry, with a status other " \
                                  "than EFI_SUCCESS; or the firmware refused to start it (Secure Boot: " \
                                  "EFI_SECURITY_VIOLATION); the status is named in the end line") \
    STATUS(EXIT_PANIC, 6, "kernel panic") \
    STATUS(EXIT_KUNIT_INCOMPLETE, 7, "--kunit: the run did not finish") \
    STATUS(EXIT_EXEC_NO_STATUS, 8, "--exec: the guest ended without reporting the command's status") \
    STATUS(EXIT_SWEEP_FAILED, 9, "--fault-sweep: a cell failed (--fail-on, --sweep-baseline)") \
    STATUS(EXIT_STOP_UNREACHED, 10, "--stop-at ebs: the run ended otherwise, before it reached the kernel's entry " \
                                    "after ExitBootServices") \
    STATUS(EXIT_BAD_IMAGE, 11, "bad image: the image file cannot be read, or is not an x86-64 bzImage or EFI " \
                               "application that handover can boot") \
    STATUS(EXIT_WATCHDOG, 12, "the firmware's watchdog expired (SetWatchdogTimer, or --watchdog): the guest was " \
                              "still in boot services when its time ran out, and the platform reset") \
    STATUS(EXIT_TIMEOUT, 124, "timeout") \
    RANGE(EXIT_BY_SIGNAL, EXIT_STATUS_STR(EXIT_SIGNAL_BASE) "+N", "stopped by signal N")

#define EXIT_STATUS_CONSTANT(constant, status, meaning) constant = status,
#define EXIT_STATUS_ROW(row, shown, meaning)             row,
#define EXIT_STATUS_SKIP(...)
enum exit_status { EXIT_STATUSES(EXIT_STATUS_CONSTANT, EXIT_STATUS_SKIP) };
/* Above any status a process can exit with. */
enum exit_status_range { EXIT_RANGE_BEFORE = 255, EXIT_STATUSES(EXIT_STATUS_SKIP, EXIT_STATUS_ROW) };
#undef EXIT_STATUS_CONSTANT
#undef EXIT_STATUS_ROW

/* --stop-at ebs: the stub's e820 is not what the memory map gives (row 1). */
#define EXIT_E820_MISMATCH EXIT_KUNIT_FAILED

/* One row of the table, as --help and the docs print it. */
struct exit_status_row {
    int id;                /* the status, or the range row */
    const char *shown;     /* "0", "N", "128+N" */
    const char *meaning;   /* one line */
};
extern const struct exit_status_row exit_status_rows[];
extern const unsigned exit_status_nrows;

#endif
