/* The VMM's state and the steps of a boot, as main.c calls them. */
#ifndef HANDOVER_VMM_H
#define HANDOVER_VMM_H

#include <linux/kvm.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../firmware-stub/firmware.h"
#include "../loader/kernel_entry.h"
#include "verdict/exit_status.h"
#include "verdict/end_reason.h"
#include "verdict/fault_outcome.h"
#include "boot.h"
#include "console.h"
#include "host/files.h"
#include "host/log.h"
#include "options.h"
#include "run_hooks.h"
#include "devices/control_ports.h"
#include "../guest/guest_mem.h"
#include "devices/io_bus.h"
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
    bool sleeping;            /* in that sleep (under vm->lock) */
    uint64_t parked_round;    /* after ExitBootServices: the kick round it was last found parked in, 0: not
                                 parked (halt_wake.h; under vm->lock) */
    unsigned parked_rounds;   /* how many rounds in a row, to that one */
};

/* What the run loop's exit handlers return, and vm->run.stop_rc holds,
 * besides an exit status (>= 0): RUN_CONTINUE to go on (until some vCPU
 * stops the run); RUN_OBSERVER_DONE when an observer's done hook ended it
 * (run_hooks.h). */
enum { RUN_CONTINUE = -1, RUN_OBSERVER_DONE = -2 };

/* What one run is given besides the options: a --fault-sweep cell runs
 * quieter, with its own timeout and into its own log. */
struct run_options {
    unsigned timeout;           /* seconds, 0: none */
    const char *timeout_name;   /* how messages name it: "--timeout" */
    uint64_t console_limit;     /* bytes of guest console output to print */
    bool quiet;
    FILE *log;                  /* handover's messages and the --stop-at summary; NULL: stderr and stdout */
};

/* What one run sets as it goes. vmm_run starts each from its options and
 * nothing else, so no field of a run is read as the next one's. */
struct run_state {
    struct run_options opt;
    int stop_rc;              /* first vCPU to stop sets it (under lock) */
    double started;           /* clock_since_start() when the run began */
    bool timed_out;           /* the timeout ran out, or a wait would outlast it */
    int stopped_by_signal;    /* the signal that ended the run, 0: none */
    bool e820_mismatch;       /* --stop-at ebs: the e820 check failed */
    bool stop_unreached;      /* --stop-at ebs: the run ended otherwise, a success turned failure */
    struct kernel_entry entry_trap;   /* --stop-at ebs behind a loader that enters the kernel itself */
    uint64_t halt_round;      /* after ExitBootServices: the halt waker's ticks (halt_wake.h) */
    bool halted;              /* the kernel said it halted, then every vCPU halted for good */
};

struct vmm {
    struct vmm_options opt;
    int kvm_fd, vm_fd;
    struct vcpu vcpus[VMM_MAX_CPUS];
    size_t run_size;
    pthread_mutex_t lock;     /* one exit handled at a time: devices and firmware are not thread-safe */
    struct guest_mem mem;
    struct firmware fw;
    struct io_bus bus;        /* the devices (devices/device_init.h) */
    struct control_ports ctl;
    struct vmm_console console;
    struct placement placed;  /* what was placed where */
    struct run_files files;
    struct run_counters counters;
    struct run_observers observers;   /* the tools watching the runs (run_hooks.h) */
    double milestone_at[MILESTONE_COUNT];   /* seconds since start when first reached; 0: not yet */

    enum boot_step step;      /* STEP_GUEST once the guest was entered */
    struct run_state run;     /* the last run's */
};

/* kvm.c */
int vmm_open_kvm(struct vmm *vm);
/* Guest RAM (anonymous memory of opt.mem bytes), before the VM. */
int vmm_map_memory(struct vmm *vm);
/* The VM over that RAM, with its irqchip and PIT. */
int vmm_create_vm(struct vmm *vm);
/* Dirty page logging on for the VM's memory slots (KVM_MEM_LOG_DIRTY_PAGES;
 * KVM's api.rst 4.35). */
int vmm_log_dirty_pages(struct vmm *vm);
/* The pages the guest (or KVM for it) wrote since logging began or the
 * last call, added to bitmap (bit p of byte p / 8, p a page of the
 * mapping); -1 (logged) on a KVM error. */
int vmm_dirty_pages(const struct vmm *vm, uint8_t *bitmap);
/* Close the VM and its vCPUs; RAM and /dev/kvm stay. */
void vmm_close_vm(struct vmm *vm);
/* Create vCPU id: CPUID with its APIC ID; the BSP (0) starts in long mode,
 * the others wait for INIT/SIPI in the in-kernel LAPIC. */
int vmm_setup_vcpu(struct vmm *vm, unsigned id);
/* The CPUID vCPU id is given (KVM_GET_SUPPORTED_CPUID, normalized for
 * this VM: vmm/x86/cpuid.h), allocated; NULL (logged) if KVM gives none. */
struct kvm_cpuid2 *vmm_guest_cpuid(const struct vmm *vm, unsigned id);
void vmm_destroy(struct vmm *vm);
void vmm_dump_registers(const struct vcpu *c, FILE *out);
/* KVM_SET_REGS, the error logged. */
int vmm_set_regs(const struct vcpu *c, const struct kvm_regs *r);
/* An interrupt line (KVM_IRQ_LINE): a UART's, as serial_init takes it, or
 * the VM generation ID's GED. */
void vmm_serial_irq(void *ctx, unsigned line, int level);

/* How the image was entered, as reports name it: "handover", "pe", or
 * "app" (an EFI application, through its PE entry). */
const char *vmm_entry_name(const struct vmm *vm);
/* The image's own code is IA-32 to its end, so the firmware's IDT has
 * 32-bit gates: an i386 kernel (a bzImage without XLF_KERNEL_64, which
 * only --firmware-bits 32 enters, and whose stub runs in 32-bit protected
 * mode to its end), or an IA-32 (PE32) EFI application. */
bool vmm_image_ia32(const struct vmm *vm);
/* The firmware's IDT in the mixed format (x86_setup_idt_mixed), for a
 * mixed-mode kernel's stub behind an IA-32 application. */
void vmm_setup_idt_mixed(struct vmm *vm);

/* The top-level image's EFI status, named, if it ended by Exit or by
 * returning, or Secure Boot refused it; else NULL. */
const char *vmm_image_status(const struct vmm *vm);

/* run.c: complete the exit vCPU c is in (the port I/O it did, its RIP
 * past the instruction) without running it on: KVM_RUN with
 * immediate_exit (Documentation/virt/kvm/api.rst, KVM_EXIT_IO), before
 * its state is saved. -1, logged, if it fails. */
int vmm_complete_exit(struct vcpu *c);
/* run.c: SIGINT, SIGTERM, SIGQUIT and SIGHUP (and the run's own SIGALRM
 * and SIGUSR1) caught and unblocked from the start, for the whole of vm's
 * boot and run; -1, logged, if they cannot be. */
int vmm_catch_stop_signals(struct vmm *vm);
/* run.c: a host step (before the guest, or a sweep cell's restore) ended
 * with rc: a stop signal that came meanwhile ends the run there, as the
 * signal (logged, saying WHERE), for a call it cut short (EINTR) may have
 * made the step fail; else rc. */
int vmm_step_end(struct vmm *vm, int rc, const char *where);
/* run.c: the run the options ask for (run_options's fields from them). */
struct run_options vmm_run_options(const struct vmm_options *o);
/* Run until the guest stops; returns the exit status. */
int vmm_run(struct vmm *vm, const struct run_options *o);
/* Forget how the last run ended: the run's own state, and what the guest
 * and the firmware set to stop it (panic, exit port, reset, Exit). A
 * sweep clears them before each cell and after the last, so no cell's end
 * is read as another's or as the sweep's. */
void vmm_clear_run_end(struct vmm *vm);
/* How the run that ended with rc looks to the end-reason rule; whether
 * the KTAP reader saw every suite is its own to say (kunit_complete false). */
struct run_end vmm_run_end(const struct vmm *vm, int rc);
/* How the run that ended with rc looks to the fault-outcome rule. */
struct fault_run vmm_fault_run(const struct vmm *vm, int rc);

#endif
