/* --report on a run (report.h): what it keeps as the run goes, through
 * the run's hooks, and the VM's facts once it ended. */
#ifndef HANDOVER_REPORT_HOOKS_H
#define HANDOVER_REPORT_HOOKS_H

#include "../run_hooks.h"
#include "report.h"

struct vmm;

struct report_run {
    struct vmm *vm;
    struct report_data data;
};

/* The observer (ctx: a struct report_run): the memory map at
 * ExitBootServices, the zero page the kernel gets, the console. */
extern const struct run_hooks report_hooks;

/* Write the report to vm->files.report: the run ended with status, for
 * end_reason; kunit is --kunit's reader (NULL without it). -1 with errno. */
int report_finish(const struct report_run *r, int status, const char *end_reason, const struct ktap *kunit);

#endif
