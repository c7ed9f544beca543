/* Hardening once the VM is set up: no new privileges, and a seccomp
 * filter that allows only what the run loop needs. */
#ifndef HANDOVER_SANDBOX_H
#define HANDOVER_SANDBOX_H

#include <stdbool.h>
#include <stdint.h>

/* The descriptors the VMM writes: stdout, stderr, the --trace-efi file,
 * --report, --kunit-json, --exec-output and --tpm-log (2 stands in for
 * each absent one). */
#define SANDBOX_OUTPUTS 7

/* The results a script reads whole (vmm/host/files.h's struct
 * whole_output: --report, --kunit-json, --tpm-log, the --fault-sweep
 * matrix), put in place as the run ends: each file's fd and its
 * directory's, where it is linked and renamed (a dir_fd of 2 or less:
 * none, or stdout, stderr, a FIFO or device written straight through). */
#define SANDBOX_WHOLE_OUTPUTS 4
struct sandbox_whole {
    int fd, dir_fd;
};

/* What the filters let through, and the limits set before them. */
struct sandbox_plan {
    int outputs[SANDBOX_OUTPUTS];
    uint64_t output_allowance;   /* bytes the console and the trace may add to a file (--console-limit, --trace-limit) */
    int kvm_fd, vm_fd;
    const int *vcpu_fds;
    unsigned ncpus;
    int sweep_matrix_fd, sweep_baseline_fd;   /* --fault-sweep=FILE, --sweep-baseline; -1: none */
    struct sandbox_whole whole[SANDBOX_WHOLE_OUTPUTS];
    bool quiet;                  /* a sanitizer build does not say it runs without the filter */
    /* --snapshot's first run saves the VM from the run loop: its KVM
     * requests, the writes of the two files and their renames in DIR. */
    bool snapshot;
    int snapshot_dir_fd, snapshot_ram_fd, snapshot_state_fd;
    uint64_t snapshot_bytes;     /* the RAM file's size (RLIMIT_FSIZE) */
};

/* The RLIMIT_FSIZE of a run whose biggest output file holds biggest
 * bytes already: those, the plan's output allowance and a report's
 * size, at least the snapshot's RAM file; RLIM_INFINITY when that sum
 * passes 2^64 (--console-limit and --trace-limit take any 64-bit size). */
uint64_t sandbox_file_size_limit(const struct sandbox_plan *p, uint64_t biggest);

/* 0 on success; -1 (with a message) if the filter could not be loaded. */
int sandbox_enter(const struct sandbox_plan *p);

/* The filter of --fault-sweep, which creates VMs as it goes: an
 * allow-list too, with the KVM requests of VM creation, snapshots and the
 * run loop on any fd, the matrix's writes and the baseline's reads. */
int sandbox_enter_sweep(const struct sandbox_plan *p);

#endif
