/* An application that halts in the firmware phase to wait for a timer:
 * iPXE's cpu_nap is a HLT until the next interrupt. A firmware runs
 * applications with interrupts on and a timer tick (EDK2's every 10 ms)
 * that ends such a HLT; handover runs them with interrupts off and no
 * tick, and KVM's in-kernel LAPIC keeps the vCPU halted for good. So while
 * the firmware phase makes no call for a tick, a thread kicks vCPU 0 out
 * of KVM_RUN, and the run loop resumes it past the HLT when a timer is
 * armed (its notify function runs at the next call, events.c) or a --keys
 * key is left to read, or ends the run when neither: then nothing can
 * wake it (an armed watchdog could only reset the platform, minutes
 * later: the run ends now, saying why). The kick also looks for the
 * watchdog's expiry (run.c) while the guest runs without calls.
 *
 * After ExitBootServices the guest owns its interrupts, and a kernel that
 * halts for good does `cli; hlt` on every CPU (kernel/reboot.c
 * kernel_halt, then arch/x86/kernel/process.c stop_this_cpu; an early
 * death with interrupts off; a hostile payload). In-kernel, KVM keeps such
 * a vCPU in KVM_RUN: only an NMI, INIT or SIPI, which another vCPU would
 * have to send, ends a HLT with RFLAGS.IF clear (SDM vol. 3A, 6.8.1 and
 * HLT; KVM's kvm_vcpu_has_events), and handover sends none. So while the
 * guest makes no VM exit for a tick, the thread kicks every vCPU, and each
 * looks at itself: parked when KVM_GET_MP_STATE says HALTED with IF clear,
 * or that it waits for INIT or SIPI (an AP never started). Found parked in
 * two rounds in a row, every one of them, the guest is dead, and the run
 * ends; two rounds, as each vCPU looks at a slightly different moment. A
 * KVM that reports a halted vCPU as RUNNABLE (an emulating one may finish
 * the HLT itself) is never taken for dead: that run ends at --timeout, as
 * before. A vCPU halted with IF set (an idle kernel) waits for its timer:
 * not parked. The tick is long (HALT_WATCH_TICK_NS) and kicks come only
 * while no exit came: a guest that does I/O is never kicked. */
#include "halt_wake.h"

#include <linux/kvm.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <time.h>

#include "../../firmware-stub/events.h"
#include "../vmm.h"
#include "../x86/x86_setup.h"

/* After ExitBootServices: a guest dead for good ends about two of these
 * after its last vCPU halted; a live guest that makes no exit for as long
 * is kicked out of KVM_RUN once per tick. */
#define HALT_WATCH_TICK_NS 100000000ULL
#define HALT_WATCH_ROUNDS  2

static uint64_t vm_exits(const struct vmm *vm)
{
    uint64_t n = 0;
    for (unsigned i = 0; i < VMM_EXIT_REASONS; i++)
        n += vm->counters.exits[i];
    return n;
}

/* The firmware phase: vCPU 0 kicked when it made no call for a tick, and
 * not in a firmware call's sleep (Stall), which a signal would cut short. */
static void kick_firmware_phase(struct halt_waker *w)
{
    struct vmm *vm = w->vm;
    struct vcpu *c = &vm->vcpus[0];
    if (vm->fw.calls == w->calls_seen && !c->sleeping)
        pthread_kill(c->thread, SIGUSR1);
    w->calls_seen = vm->fw.calls;
}

/* After ExitBootServices: a round each tick; every vCPU kicked when the
 * guest made no exit since the last one (none in a firmware call's sleep,
 * which boot services alone take). */
static void kick_quiet_guest(struct halt_waker *w)
{
    struct vmm *vm = w->vm;
    uint64_t exits = vm_exits(vm);
    vm->run.halt_round++;
    for (unsigned i = 0; exits == w->exits_seen && i < vm->opt.cpus; i++) {
        struct vcpu *c = &vm->vcpus[i];
        if (c->thread && !c->exited && !c->sleeping)
            pthread_kill(c->thread, SIGUSR1);
    }
    w->exits_seen = exits;
}

static void *waker_thread(void *arg)
{
    struct halt_waker *w = arg;
    struct vmm *vm = w->vm;
    bool boot = true;
    for (;;) {
        struct timespec ts = { 0, (long)(boot ? FW_TIMER_TICK_NS : HALT_WATCH_TICK_NS) };
        nanosleep(&ts, NULL);
        pthread_mutex_lock(&vm->lock);
        bool stop = w->stop || vm->run.stop_rc != RUN_CONTINUE || vm->vcpus[0].exited;
        boot = vm->fw.phase == FW_PHASE_BOOT;
        if (!stop && boot)
            kick_firmware_phase(w);
        else if (!stop)
            kick_quiet_guest(w);
        pthread_mutex_unlock(&vm->lock);
        if (stop)
            return NULL;
    }
}

void halt_waker_start(struct halt_waker *w, struct vmm *vm)
{
    *w = (struct halt_waker){ .vm = vm, .calls_seen = vm->fw.calls, .exits_seen = vm_exits(vm) };
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

/* Whether vCPU c can run again only if another vCPU wakes it: halted with
 * interrupts off, or waiting for INIT or SIPI; -1 (logged) if KVM cannot
 * say. Its registers are read only when it is halted. */
static int vcpu_parked(const struct vcpu *c)
{
    struct kvm_mp_state mp;
    struct kvm_regs r;
    if (ioctl(c->fd, KVM_GET_MP_STATE, &mp) < 0) {
        vmm_log("KVM_GET_MP_STATE on vCPU %u: %m", c->id);
        return -1;
    }
    if (mp.mp_state == KVM_MP_STATE_UNINITIALIZED || mp.mp_state == KVM_MP_STATE_INIT_RECEIVED)
        return 1;
    if (mp.mp_state != KVM_MP_STATE_HALTED)
        return 0;
    if (ioctl(c->fd, KVM_GET_REGS, &r) < 0) {
        vmm_log("KVM_GET_REGS on vCPU %u: %m", c->id);
        return -1;
    }
    return !(r.rflags & RFLAGS_IF);
}

static bool every_vcpu_parked(const struct vmm *vm)
{
    for (unsigned i = 0; i < vm->opt.cpus; i++) {
        const struct vcpu *v = &vm->vcpus[i];
        if (v->parked_round != vm->run.halt_round || v->parked_rounds < HALT_WATCH_ROUNDS)
            return false;
    }
    return true;
}

enum halt_state halt_watch_check(struct vcpu *c)
{
    struct vmm *vm = c->vm;
    uint64_t round = vm->run.halt_round;
    if (vm->fw.phase != FW_PHASE_RUNTIME || !round)
        return HALT_NONE;
    int parked = vcpu_parked(c);
    if (parked < 0)
        return HALT_HOST_ERROR;
    if (!parked)
        c->parked_rounds = 0;
    else if (c->parked_round != round)
        c->parked_rounds = c->parked_round + 1 == round ? c->parked_rounds + 1 : 1;
    c->parked_round = parked ? round : 0;
    return every_vcpu_parked(vm) ? HALT_FOR_GOOD : HALT_NONE;
}
