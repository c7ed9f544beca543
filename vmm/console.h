/* The guest console (COM1): its bytes are printed up to --console-limit,
 * handed to the observers (run_hooks.h), and gathered into lines for the
 * line consumers. */
#ifndef HANDOVER_CONSOLE_H
#define HANDOVER_CONSOLE_H

#include <stdbool.h>
#include <stdint.h>

#include "devices/console_line.h"
#include "verdict/console_watch.h"

struct vmm;

struct vmm_console {
    struct console_line text;          /* the line being written and the last one */
    struct line_consumers consumers;
    struct panic_watch panic;          /* the kernel's "Kernel panic - not syncing" line */
    bool halt_said;                    /* the kernel's "reboot: System halted" line came (console_watch.h) */
    uint64_t bytes;                    /* printed, the firmware's ConOut included (--console-limit) */
    bool limit_told;                   /* a byte past --console-limit was left out, and that said */
    double last_output;                /* clock_since_start() at the UART's last byte, 0: none yet */
    int write_errno;                   /* errno of the first failed write to stdout, 0: none */
    char exec_run_id[EXEC_RUN_ID_LEN + 1];   /* --exec: this run's mark (console_watch.h) */
};

/* --exec: a fresh exec_run_id from getrandom; 0, or -1 said. */
int vmm_exec_run_id_new(struct vmm *vm);
/* Register the watchers the options ask for; 0, or -1 if one is left out. */
int vmm_console_init(struct vmm *vm);
/* The UARTs' transmit callbacks: COM1 is the console, COM2 goes to the
 * --exec-output file. */
void vmm_console_tx(void *ctx, uint8_t byte);
void vmm_exec_output_tx(void *ctx, uint8_t byte);

#endif
