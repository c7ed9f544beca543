/* Opening the files named on the command line without ever blocking: a FIFO
 * or a device given as an input would block open() or read() before
 * --timeout is armed. */
#ifndef HANDOVER_FILES_H
#define HANDOVER_FILES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* The files a run writes, and the --sweep-baseline it reads: opened
 * before the sandbox, which allows no open(). */
struct run_files {
    FILE *trace;              /* --trace-efi: a file, or stderr */
    FILE *report;             /* --report */
    FILE *kunit_json;         /* --kunit-json */
    FILE *sweep_matrix;       /* --fault-sweep=FILE, opened before the sweep starts */
    FILE *sweep_baseline;     /* --sweep-baseline FILE */
    FILE *exec_output;        /* --exec-output: what COM2 sends */
    FILE *tpm_log;            /* --tpm-log */
    uint64_t exec_output_bytes;
    bool exec_output_limit_told;  /* a byte past --console-limit was left out, and that said */
    bool exec_output_failed;  /* a write to it failed: the run exits 3 */
    bool write_failed;        /* an output's failed write made a success EXIT_HOST */
};

/* Open PATH for reading; only a regular file is accepted, and it is
 * checked to be one before open() touches it (a device node is never
 * opened). On failure logs "WHAT PATH: reason" and returns NULL. */
FILE *vmm_open_input(const char *what, const char *path);

/* Open (create, truncate) PATH for writing; open() never blocks (a FIFO
 * with no reader is refused). On failure logs and returns NULL. */
FILE *vmm_open_output(const char *what, const char *path);

/* A file or directory the command line names: the option (or BZIMAGE)
 * and its path, NULL when not given. */
struct named_path {
    const char *what, *path;
    bool dir;   /* a directory the run reads (--esp, --secure-boot, --snapshot) */
};

/* Whether the output PATH (for option WHAT) is, through any name or
 * symlink, the same regular file as one of the n named (the run's inputs
 * and its other outputs; WHAT's own entry is passed over), or lies inside
 * one of the named directories: opening it would truncate a file the run
 * reads (or put an empty file among them), or two outputs would write
 * into one file. True, logged, if so. */
bool vmm_output_clobbers(const char *what, const char *path, const struct named_path *named, unsigned n);

/* Make sure descriptors 0, 1 and 2 are open (on /dev/null if they were
 * closed), so that no output file can become stdout or stderr. */
int vmm_reserve_std_fds(void);

#endif
