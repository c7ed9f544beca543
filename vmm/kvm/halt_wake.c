/* An application that halts in the firmware phase to wait for a timer:
 * iPXE's cpu_nap is a HLT until the next interrupt. A firmware runs
 * applications with interrupts on and a timer tick (EDK2's every 10 ms)
 * that ends such a HLT; handover runs them with interrupts off and no
 * tick, and KVM's in-kernel LAPIC keeps the vCPU halted for good. So while
 * the firmware phase makes no call for a tick, a thread kicks vCPU 0 out
 * of KVM_RUN, and the run loop resumes it past the HLT when a timer is
 * armed (its notify function runs at the next call, events.c), a --keys
 * key is left to read or the watchdog is armed (its expiry is looked for
 * at each kick, run.c), or ends the run when none is: then nothing can
 * wake it. */
#include "halt_wake.h"

#include <linux/kvm.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <time.h>

#include "../../firmware-stub/events.h"
#include "../vmm.h"

static void *waker_thread(void *arg)
{
    struct halt_waker *w = arg;
    struct vmm *vm = w->vm;
    for (;;) {
        struct timespec ts = { 0, (long)FW_TIMER_TICK_NS };
        nanosleep(&ts, NULL);
        pthread_mutex_lock(&vm->lock);
        struct vcpu *c = &vm->vcpus[0];
        bool stop = w->stop || vm->run.stop_rc != RUN_CONTINUE || vm->fw.phase != FW_PHASE_BOOT || c->exited;
        /* A vCPU in a firmware call's sleep (Stall) is not halted: a
         * signal would cut its sleep short. */
        if (!stop && vm->fw.calls == w->calls_seen && !c->sleeping)
            pthread_kill(c->thread, SIGUSR1);
        w->calls_seen = vm->fw.calls;
        pthread_mutex_unlock(&vm->lock);
        if (stop)
            return NULL;
    }
}

void halt_waker_start(struct halt_waker *w, struct vmm *vm)
{
    *w = (struct halt_waker){ .vm = vm, .calls_seen = vm->fw.calls };
    w->running = !pthread_create(&w->thread, NULL, waker_thread, w);
}

void halt_waker_stop(struct halt_waker *w)
{
    if (!w->running)
        return;
    pthread_mutex_lock(&w->vm->lock);
    w->stop = true;
    pthread_mutex_unlock(&w->vm->lock);
    pthread_join(w->thread, NULL);
    w->running = false;
}

enum halt_state halt_wake_resume(struct halt_waker *w, struct vcpu *c)
{
    struct vmm *vm = c->vm;
    struct kvm_mp_state mp;
    if (c->id != 0 || vm->fw.phase != FW_PHASE_BOOT)
        return HALT_NONE;
    if (ioctl(c->fd, KVM_GET_MP_STATE, &mp) < 0) {
        vmm_log("KVM_GET_MP_STATE: %m");
        return HALT_HOST_ERROR;
    }
    if (mp.mp_state != KVM_MP_STATE_HALTED)
        return HALT_NONE;
    if (!firmware_halt_can_end(&vm->fw))
        return HALT_FOR_GOOD;
    mp.mp_state = KVM_MP_STATE_RUNNABLE;
    if (ioctl(c->fd, KVM_SET_MP_STATE, &mp) < 0) {
        vmm_log("KVM_SET_MP_STATE: %m");
        return HALT_HOST_ERROR;
    }
    if (!w->resumed_reported && !vm->run.opt.quiet)
        vmm_log("the application halts the CPU (HLT) to wait for its timer: woken every 10 ms, as a firmware's "
                "timer tick would");
    w->resumed_reported = true;
    return HALT_RESUMED;
}
