#include "progress.h"

#include <signal.h>
#include <time.h>

#include "../host/clock.h"
#include "../vmm.h"

/* What a microVM user compares (Firecracker's Guest-boot-time). */
static void on_milestone(void *ctx, enum milestone m)
{
    const struct progress *p = ctx;
    if (m != MILESTONE_START && m != MILESTONE_FIRST_CONSOLE)
        vmm_log("milestone: %s at %.3f s", milestone_names[m], p->vm->milestone_at[m]);
}

/* While the stub runs (before ExitBootServices) nothing else is printed,
 * and on an emulating KVM that is minutes; after it, a kernel whose console
 * is not ttyS0 (a wrong console=) prints nothing until the timeout. A line
 * every HEARTBEAT_SECONDS of silence says the guest is alive and where it is. */
#define HEARTBEAT_SECONDS 5

/* One beat, with vm->lock held: before ExitBootServices the firmware's
 * progress; after it, only when the console has been quiet for a beat, how
 * long, and its last line. */
static void heartbeat(const struct vmm *vm)
{
    double now = clock_since_start(), ebs = vm->milestone_at[MILESTONE_EBS], last = vm->console.last_output;
    if (vm->fw.phase == FW_PHASE_BOOT) {
        const char *call = vm->fw.calls ? firmware_service_name(vm->fw.last_id) : NULL;
        vmm_log("heartbeat: %.0f s, firmware phase, %llu calls so far, the last %s", now,
                (unsigned long long)vm->fw.calls, call ? call : "none yet");
    } else if (last <= ebs) {
        vmm_log("heartbeat: %.0f s, after ExitBootServices, no console output in the %.0f s since: is the kernel's "
                "console ttyS0 (console=ttyS0 on its command line)?", now, now - ebs);
    } else if (now - last >= HEARTBEAT_SECONDS) {
        vmm_log("heartbeat: %.0f s, after ExitBootServices, the last console line %.0f s ago: %s", now, now - last,
                console_line_current(&vm->console.text));
    }
}

static void *heartbeat_thread(void *arg)
{
    struct progress *p = arg;
    struct vmm *vm = p->vm;
    for (;;) {
        struct timespec ts = { HEARTBEAT_SECONDS, 0 };
        nanosleep(&ts, NULL);
        pthread_mutex_lock(&vm->lock);
        bool stop = p->stop || vm->run.stop_rc != RUN_CONTINUE;
        if (!stop)
            heartbeat(vm);
        pthread_mutex_unlock(&vm->lock);
        if (stop)
            return NULL;
    }
}

static void on_run_start(void *ctx)
{
    struct progress *p = ctx;
    p->stop = false;
    p->beating = !pthread_create(&p->heartbeat, NULL, heartbeat_thread, p);
}

static int on_run_end(void *ctx, int status)
{
    struct progress *p = ctx;
    if (!p->beating)
        return status;
    pthread_mutex_lock(&p->vm->lock);
    p->stop = true;
    pthread_mutex_unlock(&p->vm->lock);
    pthread_kill(p->heartbeat, SIGUSR1);   /* cut its sleep short (the run's handler is still installed) */
    pthread_join(p->heartbeat, NULL);
    p->beating = false;
    return status;
}

const struct run_hooks progress_hooks = {
    .name = "progress", .milestone = on_milestone, .run_start = on_run_start, .run_end = on_run_end,
};
