/* A vCPU halted in the firmware phase, and a guest halted for good after
 * ExitBootServices (halt_wake.c). */
#ifndef HANDOVER_HALT_WAKE_H
#define HANDOVER_HALT_WAKE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct vmm;
struct vcpu;

struct halt_waker {
    struct vmm *vm;
    pthread_t thread;
    bool running, stop;          /* stop: under vm->lock */
    uint64_t calls_seen;         /* vm->fw.calls at the last tick */
    uint64_t exits_seen;         /* after ExitBootServices: the VM exits counted at the last tick */
    bool resumed_reported;       /* the one log line said */
};

/* Start or stop the thread that kicks vCPUs out of KVM_RUN: vCPU 0 when
 * the firmware phase made no call for a tick, every vCPU when the guest
 * made no VM exit for a tick after ExitBootServices. Start fails silently
 * (no kicks, as before). */
void halt_waker_start(struct halt_waker *w, struct vmm *vm);
void halt_waker_stop(struct halt_waker *w);

enum halt_state { HALT_NONE, HALT_RESUMED, HALT_FOR_GOOD, HALT_HOST_ERROR };

/* After a kick, with vm->lock held: whether vCPU c sat in HLT in the
 * firmware phase, and if so, resume it past the HLT when a timer is armed
 * (HALT_RESUMED), or say that nothing can wake it (HALT_FOR_GOOD). */
enum halt_state halt_wake_resume(struct halt_waker *w, struct vcpu *c);

/* After a kick after ExitBootServices, with vm->lock held: whether vCPU c
 * is parked (halt_wake.c), noted for the waker's round; HALT_FOR_GOOD when
 * every vCPU was found parked in this round and the one before. */
enum halt_state halt_watch_check(struct vcpu *c);

#endif
