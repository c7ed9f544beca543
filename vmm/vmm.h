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
#include "../loader/bzimage.h"
#include "options.h"
#include "host/add_files.h"
#include "tools/fault_sweep.h"
#include "devices/control_ports.h"
#include "mem/guest_mem.h"
#include "devices/io_bus.h"
#include "verdict/ktap.h"
#include "devices/serial.h"

/* Milestones of a boot, timed for --report. */
enum report_phase { PHASE_START, PHASE_ENTRY, PHASE_EBS, PHASE_FIRST_CONSOLE, PHASE_BANNER, PHASE_INIT,
                    PHASE_END, PHASE_COUNT };

#define VMM_EXIT_REASONS 64

struct vmm;

struct vcpu {
    struct vmm *vm;
    unsigned id;
    int fd;
    struct kvm_run *run;
    pthread_t thread;
    bool exited;              /* its thread has stopped for good (under vm->lock): no more signals to it */
    bool dumped;              /* registers reported at a timeout */
};

struct vmm {
    struct vmm_options opt;
    int kvm_fd, vm_fd;
    struct vcpu vcpus[VMM_MAX_CPUS];
    size_t run_size;
    pthread_mutex_t lock;     /* one exit handled at a time: devices and firmware are not thread-safe */
    int stop_rc;              /* first vCPU to stop sets it; -1 while running */
    struct guest_mem mem;
    struct firmware fw;
    struct io_bus bus;
    struct serial serial;
    struct serial serial_out;  /* COM2, with --exec-output */
    struct control_ports ctl;
    FILE *trace;

    /* what was placed where */
    struct bzimage bz;
    bool app;                 /* the image is an EFI application, not a bzImage */
    struct pe_image app_pe;   /* then its PE image */
    void *image_file;
    size_t image_file_size;
    uint64_t image_start, image_size;   /* the loaded image (LoaderCode) */
    uint64_t entry_rip, boot_params;
    uint8_t *initrd_data;               /* the initrd (and --exec archive) */
    uint64_t initrd_size;
    char cmdline[FW_CMDLINE_MAX + 64];

    /* console line being assembled, for diagnostics */
    char line[256];
    unsigned line_len;
    char last_line[256];
    char panic[256];          /* the kernel's "Kernel panic - not syncing" line */
    bool panic_ended;         /* its "---[ end Kernel panic" line came */
    bool timed_out;           /* --timeout ran out */
    bool e820_mismatch;       /* --stop-at ebs: the e820 check failed */
    int stopped_by_signal;    /* the signal that ended the run, 0: none */
    bool heartbeat_stop;      /* the heartbeat thread is to end (under lock) */
    struct ktap ktap;         /* --kunit */
    uint64_t console_bytes;
    FILE *exec_output;        /* --exec-output FILE */
    uint64_t exec_output_bytes;
    bool exec_output_failed;  /* a write to it failed: the run exits 3 */

    uint64_t exits[VMM_EXIT_REASONS];
    uint64_t io_exits, hypercalls, fallbacks;

    /* --report */
    FILE *report;
    FILE *kunit_json;
    FILE *sweep_matrix;       /* --fault-sweep=FILE, opened before the sweep starts */
    FILE *sweep_baseline;     /* --sweep-baseline FILE, opened before the sandbox */
    double phase_time[PHASE_COUNT];   /* seconds since start; 0: not reached */
    struct memmap *map_at_ebs;
    struct boot_params *bp_copy;
    char *console_log;                 /* the first REPORT_CONSOLE_MAX bytes */
    size_t console_log_len;
    bool fallback_reported[16];   /* by index in emulate_table_names */

    struct fault_sweep *sweep;         /* the --fault-sweep boot without faults: snapshots */
    FILE *summary_out;                 /* the --stop-at summary: stdout unless set */
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

/* boot.c: load the image and build what the chosen entry needs */
int vmm_load(struct vmm *vm);
/* How the image was entered, as reports name it: "handover", "pe", or
 * "app" (an EFI application, through its PE entry). */
const char *vmm_entry_name(const struct vmm *vm);

/* run.c: run until the guest stops; returns the exit status */
int vmm_run(struct vmm *vm);
/* Why the run ended, for --report's end_reason and the last stderr line:
 * signal, timeout, guest-status (the exit port or --exec's status),
 * kernel-panic, efi-exit, kunit-finished, kunit-incomplete, refused,
 * host-error, guest-crash, exec-status-unknown, sweep-cells-failed, stop-at-ebs,
 * guest-poweroff, guest-reset, ended. */
const char *vmm_end_reason(const struct vmm *vm, int rc);

/* How the run that ended with rc looks to the fault-outcome rule. */
struct fault_run vmm_fault_run(const struct vmm *vm, int rc);

/* bootinfo.c: the --stop-at ebs summary of the boot_params the stub built */
int vmm_print_boot_params(struct vmm *vm, uint64_t bp_addr, FILE *out);
#define MAX_E820 (E820_MAX_ENTRIES_ZEROPAGE + MEMMAP_MAX_ENTRIES)
/* The e820 table in bp (plus SETUP_E820_EXT setup_data in gm). */
unsigned bootinfo_e820(const struct guest_mem *gm, const struct boot_params *bp, struct boot_e820_entry *out);
/* What the kernel's setup_e820 makes of the memory map m. */
unsigned bootinfo_expected_e820(const struct memmap *m, struct boot_e820_entry *out);
const char *bootinfo_e820_name(uint32_t type);

/* report.c: --report FILE */
void report_mark(struct vmm *vm, enum report_phase phase);
/* Seconds since PHASE_START. */
double report_elapsed(void);
/* At ExitBootServices: keep the memory map; at the kernel's entry: the zero page. */
void report_save_map(struct vmm *vm);
void report_save_boot_params(struct vmm *vm, uint64_t bp_addr);
void report_console(struct vmm *vm, uint8_t byte);
int report_write(struct vmm *vm, int exit_status);
/* --kunit-json: kunit.py --json's format; -1 with errno on failure. */
int report_write_kunit_json(const struct vmm *vm, FILE *out);

/* console.c: the serial ports' transmit callbacks: COM1 is the
 * console, COM2 goes to --exec-output's file. */
void vmm_console_tx(void *ctx, uint8_t byte);
void vmm_exec_output_tx(void *ctx, uint8_t byte);

/* Log a line "handover: ..." on stderr. */
void vmm_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Where vmm_log and register dumps go: stderr unless set (a fault-sweep
 * cell keeps its own log). */
FILE *vmm_log_file(void);
void vmm_set_log_file(FILE *f);
/* From now on, messages to stderr are JSON lines {"log":"..."}: the
 * --trace-efi lines share stderr. 0, or -1 if the stream cannot be made. */
int vmm_log_as_json(void);

#endif
