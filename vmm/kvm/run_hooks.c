/* The observers of a run (run_hooks.h): a list, and a loop per hook. */
#include "../host/clock.h"
#include "../vmm.h"

int vmm_observe(struct vmm *vm, const struct run_hooks *h, void *ctx)
{
    struct run_observers *l = &vm->observers;
    if (l->n == RUN_MAX_OBSERVERS) {
        vmm_log("no room for the observer %s", h->name);
        return -1;
    }
    if (h->console_line &&
        line_consumers_add(&vm->console.consumers, &(struct line_consumer){ h->name, h->console_line, ctx })) {
        vmm_log("console: no room for the line consumer %s", h->name);
        return -1;
    }
    l->o[l->n++] = (struct run_observer){ h, ctx };
    return 0;
}

#define EACH(vm, o) for (const struct run_observer *o = (vm)->observers.o; o < (vm)->observers.o + (vm)->observers.n; o++)

void vmm_milestone(struct vmm *vm, enum milestone m)
{
    if (vm->milestone_at[m])
        return;
    /* Never 0, which means not reached: the start is reached at 0 s. */
    vm->milestone_at[m] = clock_since_start() + 1e-9;
    EACH(vm, o)
        if (o->hooks->milestone)
            o->hooks->milestone(o->ctx, m);
}

int run_hooks_before_call(struct vmm *vm, struct vcpu *c, unsigned id, const struct fw_call *call)
{
    EACH(vm, o)
        if (o->hooks->before_call && o->hooks->before_call(o->ctx, c, id, call))
            return -1;
    return 0;
}

void run_hooks_after_call(struct vmm *vm, struct vcpu *c, unsigned id, const struct fw_call *call, uint64_t status)
{
    EACH(vm, o)
        if (o->hooks->after_call)
            o->hooks->after_call(o->ctx, c, id, call, status);
}

void run_hooks_kernel(struct vmm *vm, uint64_t boot_params)
{
    EACH(vm, o)
        if (o->hooks->kernel)
            o->hooks->kernel(o->ctx, boot_params);
}

void run_hooks_console_byte(struct vmm *vm, uint8_t byte)
{
    EACH(vm, o)
        if (o->hooks->console_byte)
            o->hooks->console_byte(o->ctx, byte);
}

int run_hooks_io_exit(struct vmm *vm, struct vcpu *c)
{
    EACH(vm, o)
        if (o->hooks->io_exit) {
            int rc = o->hooks->io_exit(o->ctx, c);
            if (rc != RUN_CONTINUE)
                return rc;
        }
    return RUN_CONTINUE;
}

bool run_hooks_done(struct vmm *vm)
{
    EACH(vm, o)
        if (o->hooks->done && o->hooks->done(o->ctx))
            return true;
    return false;
}

void run_hooks_run_start(struct vmm *vm)
{
    EACH(vm, o)
        if (o->hooks->run_start)
            o->hooks->run_start(o->ctx);
}

int run_hooks_run_end(struct vmm *vm, int status)
{
    EACH(vm, o)
        if (o->hooks->run_end)
            status = o->hooks->run_end(o->ctx, status);
    return status;
}
