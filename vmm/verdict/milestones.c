#include "milestones.h"

const char *const milestone_names[MILESTONE_COUNT] = {
    [MILESTONE_START] = "vmm_start", [MILESTONE_ENTRY] = "entry", [MILESTONE_EBS] = "exit_boot_services",
    [MILESTONE_FIRST_CONSOLE] = "first_console_output", [MILESTONE_BANNER] = "linux_banner",
    [MILESTONE_INIT] = "run_init", [MILESTONE_END] = "exit",
};
