/* The command line: one table of options (options.c) from which getopt's
 * list, --help (and so the man page, made by help2man from --help) are
 * generated, and the checks across options in one function
 * (kvmtool's include/kvm/parse-options.h is the model). */
#ifndef HANDOVER_OPTIONS_H
#define HANDOVER_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../firmware-stub/inject.h"
#include "../loader/bzimage.h"
#include "host/add_files.h"

#define VMM_MAX_CPUS 64
/* A guest decides how many calls it makes and how much memory it dirties
 * between them: the snapshots a --fault-sweep keeps are bounded, by
 * --sweep-memory and by this count. */
#define SWEEP_MAX_SNAPSHOTS 1024
/* --shard K/N: at most this many runs share a sweep. */
#define SWEEP_MAX_SHARDS 1024

enum stop_at { STOP_AT_NONE, STOP_AT_EBS };
/* How the stub gets the initrd: the LINUX_EFI_INITRD_MEDIA LoadFile2
 * device path (the only way through the PE entry), or boot_params. */
enum initrd_via { INITRD_VIA_DEFAULT, INITRD_VIA_LOADFILE2, INITRD_VIA_BOOTPARAMS };

struct vmm_options {
    const char *kernel;
    const char *initrd;
    enum initrd_via initrd_via;
    bool initrd_via_given;    /* --initrd-via was on the command line */
    const char *cmdline;
    bool cmdline_given;       /* --cmdline was: an EFI application gets it as LoadOptions */
    const char *cmdline_append;   /* --cmdline-append */
    uint64_t mem;
    enum boot_entry entry;
    bool entry_given;         /* --entry was on the command line */
    unsigned firmware_bits;   /* --firmware-bits: 64, or 32 (an IA-32 firmware, a mixed-mode kernel) */
    enum stop_at stop_at;
    unsigned timeout;         /* seconds, 0: none */
    unsigned cell_timeout;    /* --cell-timeout: seconds per sweep cell, 0: see fault_sweep.c */
    unsigned watchdog;        /* --watchdog: seconds, 0: none */
    bool watchdog_given;      /* --watchdog was on the command line (else: 300 s for an EFI application) */
    uint64_t load_addr;       /* 0: pref_address */
    const char *trace_path;   /* --trace-efi[=FILE] */
    bool no_emulation_fallbacks;
    bool quiet;
    bool kunit;               /* --kunit: read KTAP, end when the run ends */
    unsigned cpus;            /* --cpus */
    const char *exec;         /* --exec CMD */
    const char *exec_output;  /* --exec-output FILE: the command's output, through COM2 */
    const char *snapshot;     /* --snapshot DIR: warm boots (vmm/tools/warm_boot.h) */
    const char *adds[ADD_MAX_SPECS];   /* --add HOST[:GUEST] */
    unsigned nadds;
    const char *dtb;          /* --dtb auto|FILE */
    const char *esp;          /* --esp DIR */
    const char *report_path;  /* --report FILE */
    const char *kunit_json;   /* --kunit-json FILE */
    bool no_acpi;             /* --no-acpi */
    uint64_t console_limit;   /* bytes of guest console output to print */
    uint64_t trace_limit;     /* bytes of --trace-efi output */
    struct inject inject;     /* --inject */
    const char *keys;         /* --keys STRING: ConIn's keys (firmware-stub/keys.h) */
    bool tpm;                 /* --tpm: EFI_TCG2_PROTOCOL (firmware-stub/tcg2.c) */
    const char *secure_boot;  /* --secure-boot KEYDIR (secure_boot.c) */
    const char *tpm_log;      /* --tpm-log FILE: its event log, written at the run's end */
    bool seeded;              /* --seed N */
    uint64_t seed;
    bool fault_sweep;         /* --fault-sweep[=FILE] */
    const char *sweep_json;   /* its FILE */
    uint64_t sweep_memory;    /* --sweep-memory: bytes of snapshots at most */
    unsigned sweep_fail_on;   /* --fail-on: bit k: fault outcome k fails the sweep */
    bool sweep_fail_on_given; /* --fail-on was on the command line */
    const char *sweep_baseline;   /* --sweep-baseline FILE: a matrix to compare with */
    unsigned shard, shards;   /* --shard K/N: the sweep runs cells K, K+N, ... (1-based); 0/0: all */
};

/* Parse argv into o: the table's defaults, each option's own check, then
 * validate_options. Returns 0, or an exit status (EXIT_USAGE) with the
 * reason logged; --help and --version print and exit 0. */
int parse_options(int argc, char **argv, struct vmm_options *o);
/* The checks that involve more than one option, and the image argument. */
int validate_options(struct vmm_options *o);
/* --help: usage, every option of the table, and the exit statuses. */
void print_usage(FILE *out);

#endif
