/* --stop-at ebs's summary (bootinfo.c): the boot_params the stub built,
 * printed where the run stopped, and the verdict of the e820 check
 * (verdict/e820_check.h) as the run's status; then the protection the
 * stub gave the kernel (verdict/memattr_check.h), as the page tables were
 * at ExitBootServices, before the stop made them no-execute. */
#ifndef HANDOVER_BOOTINFO_H
#define HANDOVER_BOOTINFO_H

#include <stdbool.h>

#include "../run_hooks.h"
#include "../verdict/memattr_check.h"

struct vmm;

struct stop_summary {
    struct vmm *vm;
    bool printed;             /* this run stopped at the kernel: verdict is its status */
    int verdict;
    bool memattr_taken;       /* this run, when ExitBootServices succeeded: */
    struct memattr_check memattr;
};

/* The observer; ctx: a struct stop_summary. */
extern const struct run_hooks stop_summary_hooks;

#endif
