/* The VMM's state and the steps of a boot, as main.c calls them. */
#ifndef HANDOVER_VMM_H
#define HANDOVER_VMM_H

#include <linux/kvm.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../firmware-stub/firmware.h"
#include "verdict/exit_status.h"
#include "verdict/fault_outcome.h"
#include "boot.h"
#include "console.h"
#include "host/files.h"
#include "host/log.h"
#include "tools/report.h"
#include "options.h"
#include "host/add_files.h"
#include "tools/fault_sweep.h"
#include "devices/control_ports.h"
#include "../guest/guest_mem.h"
#include "devices/io_bus.h"
#include "verdict/ktap.h"
#include "verdict/run_counters.h"

struct vmm;

/* How far the boot got before the guest was entered: a run that stops at
 * any of these never started, and says where (--report's not_started_at). */
enum boot_step { STEP_OPTIONS, STEP_OUTPUTS, STEP_IMAGE, STEP_FILES, STEP_HOST, STEP_GUEST };
extern const char *const boot_step_names[STEP_GUEST];

struct vcpu {
    struct vmm *vm;
    unsigned id;
    int fd;
    struct kvm_run *run;
    pthread_t thread;
    bool exited;              /* its thread has stopped for good (under vm->lock): no more signals to it */
    bool dumped;              /* registers reported at a timeout */
    uint64_t sleep_ns;        /* the last call's firmware sleep, taken with vm->lock released */
};

struct vmm {
    struct vmm_options opt;
    int kvm_fd, vm_fd;
    struct vcpu vcpus[VMM_MAX_CPUS];
    size_t run_size;
    pthread_mutex_t lock;     /* one exit handled at a time: devices and firmware are not thread-safe */
    int stop_rc;              /* first vCPU to stop sets it; -1 while running */
    bool heartbeat_stop;      /* the heartbeat thread is to end (under lock) */
    struct guest_mem mem;
    struct firmware fw;
    struct io_bus bus;        /* the devices (devices/device_init.h) */
    struct control_ports ctl;
    struct vmm_console console;
    struct ktap ktap;         /* --kunit */
    struct placement placed;  /* what was placed where */
    struct run_files files;
    struct report_data report;
    struct run_counters counters;

    /* how the run ended */
    enum boot_step step;      /* STEP_GUEST once the guest was entered */
    bool timed_out;           /* --timeout ran out, or a wait would outlast it */
    double run_started;       /* report_elapsed() when vmm_run began */
    bool e820_mismatch;       /* --stop-at ebs: the e820 check failed */
    int stopped_by_signal;    /* the signal that ended the run, 0: none */

    struct fault_sweep *sweep;         /* the --fault-sweep boot without faults: snapshots */
};

/* kvm.c */
int vmm_open_kvm(struct vmm *vm);
/* Guest RAM (anonymous memory of opt.mem bytes), before the VM. */
int vmm_map_memory(struct vmm *vm);
/* The VM over that RAM, with its irqchip and PIT. */
int vmm_create_vm(struct vmm *vm);
/* Close the VM and its vCPUs; RAM and /dev/kvm stay. */
void vmm_close_vm(struct vmm *vm);
/* Create vCPU id: CPUID with its APIC ID; the BSP (0) starts in long mode,
 * the others wait for INIT/SIPI in the in-kernel LAPIC. */
int vmm_setup_vcpu(struct vmm *vm, unsigned id);
void vmm_destroy(struct vmm *vm);
void vmm_dump_registers(const struct vcpu *c, FILE *out);
/* KVM_SET_REGS, the error logged. */
int vmm_set_regs(const struct vcpu *c, const struct kvm_regs *r);
/* A UART's interrupt line (KVM_IRQ_LINE), as serial_init takes it. */
void vmm_serial_irq(void *ctx, unsigned line, int level);

/* How the image was entered, as reports name it: "handover", "pe", or
 * "app" (an EFI application, through its PE entry). */
const char *vmm_entry_name(const struct vmm *vm);

/* run.c: run until the guest stops; returns the exit status */
int vmm_run(struct vmm *vm);
/* Why the run ended, for --report's end_reason and the last stderr line:
 * a name from verdict/end_reason.h's table (for not-started, vm->step says
 * where it stopped). */
const char *vmm_end_reason(const struct vmm *vm, int rc);
/* Forget how the last run ended: every field vmm_end_reason reads that a
 * run sets (timeout, signal, e820 verdict, panic, the guest's and the
 * firmware's stop). A sweep clears them before each cell and after the
 * last, so no cell's end is read as another's or as the sweep's. */
void vmm_clear_run_end(struct vmm *vm);

/* How the run that ended with rc looks to the fault-outcome rule. */
struct fault_run vmm_fault_run(const struct vmm *vm, int rc);

/* bootinfo.c: the --stop-at ebs summary of the boot_params the stub built */
int vmm_print_boot_params(struct vmm *vm, uint64_t bp_addr, FILE *out);

#endif
