/* The milestones of a boot, in the order a boot reaches them: the run
 * loop and the console raise them (run_hooks.h), --report times them
 * (phase_seconds) and the "milestone:" lines name them. */
#ifndef HANDOVER_MILESTONES_H
#define HANDOVER_MILESTONES_H

enum milestone {
    MILESTONE_START,           /* handover started */
    MILESTONE_ENTRY,           /* the guest is entered */
    MILESTONE_EBS,             /* ExitBootServices succeeded */
    MILESTONE_FIRST_CONSOLE,   /* the UART's first byte */
    MILESTONE_BANNER,          /* the kernel's banner (init/version.c) */
    MILESTONE_INIT,            /* init/main.c's "Run /sbin/init as init process" */
    MILESTONE_END,             /* the run is over */
    MILESTONE_COUNT
};

/* Their names: --report's phase_seconds keys. */
extern const char *const milestone_names[MILESTONE_COUNT];

#endif
