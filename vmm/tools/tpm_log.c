/* --tpm-log (tpm_log.h). */
#include "tpm_log.h"

#include "../vmm.h"

/* The log's bytes from guest memory; an empty file when the firmware
 * never built one (a run refused before the guest). */
static void write_log(const struct vmm *vm)
{
    const struct fw_tpm *t = &vm->fw.tpm;
    const void *log = t->on ? guest_mem_ptr(&vm->mem, t->log, t->log_size) : NULL;
    if (log)
        fwrite(log, 1, t->log_size, vm->files.tpm_log.f);
}

static void on_milestone(void *ctx, enum milestone m)
{
    struct tpm_log_run *r = ctx;
    if (m == MILESTONE_EBS && !r->written) {
        write_log(r->vm);
        r->written = true;
    }
}

const struct run_hooks tpm_log_hooks = { .name = "tpm-log", .milestone = on_milestone };

int tpm_log_finish(const struct tpm_log_run *r)
{
    if (!r->written)
        write_log(r->vm);
    return vmm_whole_commit(&r->vm->files.tpm_log);
}
