/* --report FILE and --kunit-json FILE (report.c): what a run keeps for
 * them as it goes, and their writers. */
#ifndef HANDOVER_REPORT_H
#define HANDOVER_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../../firmware-stub/memmap.h"
#include "../../guest/bootparam.h"

struct vmm;

/* Milestones of a boot, timed for --report. */
enum report_phase { PHASE_START, PHASE_ENTRY, PHASE_EBS, PHASE_FIRST_CONSOLE, PHASE_BANNER, PHASE_INIT,
                    PHASE_END, PHASE_COUNT };

struct report_data {
    double phase_time[PHASE_COUNT];   /* seconds since start; 0: not reached */
    struct memmap *map_at_ebs;
    struct boot_params *bp_copy;
    char *console_log;                /* the first REPORT_CONSOLE_MAX bytes */
    size_t console_log_len;
};

void report_mark(struct vmm *vm, enum report_phase phase);
/* Seconds since PHASE_START. */
double report_elapsed(void);
/* At ExitBootServices: keep the memory map; at the kernel's entry: the zero page. */
void report_save_map(struct vmm *vm);
void report_save_boot_params(struct vmm *vm, uint64_t bp_addr);
void report_console(struct vmm *vm, uint8_t byte);
int report_write(struct vmm *vm, int exit_status);
/* --kunit-json: kunit.py --json's format; -1 with errno on failure. */
int report_write_kunit_json(const struct vmm *vm, FILE *out);

#endif
