/* --tpm-log (tpm_log.h). */
#include "tpm_log.h"

#include <errno.h>

#include "../vmm.h"

/* The log's bytes from guest memory; an empty file when the firmware
 * never built one (a run refused before the guest). */
static void write_log(const struct vmm *vm)
{
    const struct fw_tpm *t = &vm->fw.tpm;
    const void *log = t->on ? guest_mem_ptr(&vm->mem, t->log, t->log_size) : NULL;
    if (log)
        fwrite(log, 1, t->log_size, vm->files.tpm_log);
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
    FILE *f = r->vm->files.tpm_log;
    if (!r->written)
        write_log(r->vm);
    bool failed = ferror(f);
    if (fclose(f))
        return -1;
    if (failed)
        errno = EIO;   /* a write failed, and its errno is gone */
    return failed ? -1 : 0;
}
