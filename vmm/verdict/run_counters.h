/* What a run counts as it goes: VM exits by reason, firmware calls,
 * emulation fallbacks; for the "exits:" line and --report's vm_exits. */
#ifndef HANDOVER_RUN_COUNTERS_H
#define HANDOVER_RUN_COUNTERS_H

#include <stdbool.h>
#include <stdint.h>

#define VMM_EXIT_REASONS 64

struct run_counters {
    uint64_t exits[VMM_EXIT_REASONS];   /* by KVM exit reason; 0 also counts those past the table */
    uint64_t io_exits, hypercalls, fallbacks;
    bool fallback_reported[16];   /* by index in emulate_table_names: each is logged once */
};

#endif
