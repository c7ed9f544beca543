/* --tpm-log: the TCG2 event log the firmware kept (firmware-stub/tcg2.c),
 * written as it stood at ExitBootServices, after which no event can be
 * added; a run that never got there writes it at its end. */
#ifndef HANDOVER_TPM_LOG_H
#define HANDOVER_TPM_LOG_H

#include <stdbool.h>

#include "../run_hooks.h"

struct vmm;

struct tpm_log_run {
    struct vmm *vm;
    bool written;
};

/* The observer (ctx: a struct tpm_log_run): writes at ExitBootServices. */
extern const struct run_hooks tpm_log_hooks;

/* Write the log if the run did not, and put vm->files.tpm_log in place
 * (vmm_whole_commit); -1 with errno if it was not written whole. */
int tpm_log_finish(const struct tpm_log_run *r);

#endif
