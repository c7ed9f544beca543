/* handover's exit statuses, one model for every run (docs/exit-status.md,
 * --help): the guest's own status passes through; handover's own outcomes
 * keep these numbers, and the end reason tells the two apart. */
#ifndef HANDOVER_EXIT_STATUS_H
#define HANDOVER_EXIT_STATUS_H

#define EXIT_OK            0
#define EXIT_USAGE         2
#define EXIT_HOST          3
#define EXIT_GUEST_CRASH   4
#define EXIT_FIRMWARE_EXIT 5
#define EXIT_PANIC         6
#define EXIT_KUNIT_INCOMPLETE 7
#define EXIT_KUNIT_FAILED  1
#define EXIT_E820_MISMATCH 1    /* --stop-at ebs: the stub's e820 is not what the memory map gives */
#define EXIT_EXEC_NO_STATUS 8   /* --exec: the guest ended without a status */
#define EXIT_SWEEP_FAILED  9    /* --fault-sweep: a cell --fail-on names, or one unlike the baseline */
#define EXIT_TIMEOUT       124
#define EXIT_SIGNAL_BASE   128     /* stopped by signal N: 128 + N, as a shell reports it */

#endif
