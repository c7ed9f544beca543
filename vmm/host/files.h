/* Opening the files named on the command line without ever blocking: a FIFO
 * or a device given as an input would block open() or read() before
 * --timeout is armed. */
#ifndef HANDOVER_FILES_H
#define HANDOVER_FILES_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* An output a script reads as a whole (--report, --kunit-json, the
 * --fault-sweep matrix, --tpm-log). It is written to an unnamed file
 * (O_TMPFILE) in the directory of the file it replaces, and linked and
 * renamed over that file only when complete, after an fsync: PATH is only
 * ever the whole earlier file or the whole new one. A run killed before
 * then (SIGKILL, the OOM killer, a host crash) leaves PATH as it was and
 * nothing beside it (the unnamed file goes with the process). The run's
 * own stdout or stderr (--report /dev/stdout, whatever file or pipe the
 * shell made it), a FIFO or a device is written straight through. */
struct whole_output {
    FILE *f;                   /* NULL: not open (never opened, or finished) */
    int dir_fd;                /* PATH's directory; -1: stdout, stderr, a FIFO or device, written straight through */
    bool named_temp;           /* a file system without O_TMPFILE: the file has the name temp from the start */
    char name[NAME_MAX + 1];   /* PATH's last component, symlinks resolved */
    char temp[NAME_MAX + 1];   /* ".NAME.handover-PID": the name it is renamed from */
};

/* The files a run writes, and the --sweep-baseline it reads: opened
 * before the sandbox, which allows no open(). */
struct run_files {
    FILE *trace;              /* --trace-efi: a file, or stderr */
    struct whole_output report;        /* --report */
    struct whole_output kunit_json;    /* --kunit-json */
    struct whole_output sweep_matrix;  /* --fault-sweep=FILE, opened before the sweep starts */
    FILE *sweep_baseline;     /* --sweep-baseline FILE */
    FILE *exec_output;        /* --exec-output: what COM2 sends */
    struct whole_output tpm_log;       /* --tpm-log */
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
 * with no reader is refused). On failure logs and returns NULL. For the
 * streams a user may follow as they grow (--trace-efi, --exec-output). */
FILE *vmm_open_output(const char *what, const char *path);

/* Open the whole output PATH (struct whole_output): PATH itself is not
 * touched, but it must be one a run could write (an existing file not
 * writable, a missing directory, a FIFO with no reader are refused at
 * once). 0, or -1 logged as "WHAT PATH: reason". */
int vmm_open_whole(const char *what, const char *path, struct whole_output *o);

/* o's file complete: flushed, synced and renamed over PATH, then closed.
 * 0, or -1 with errno of the first failure, o discarded. */
int vmm_whole_commit(struct whole_output *o);

/* o finished after the write that returned written (0: whole): committed,
 * or discarded and -1 with the write's errno. */
int vmm_whole_finish(struct whole_output *o, int written);

/* o's file not complete (a write failed, or nothing was written): closed,
 * never renamed, and the file at PATH removed, so that no earlier run's
 * is read as this run's. errno is kept. */
void vmm_whole_discard(struct whole_output *o);

/* A file or directory the command line names: the option (or BZIMAGE)
 * and its path, NULL when not given. */
struct named_path {
    const char *what, *path;
    bool dir;   /* a directory the run reads (--esp, --secure-boot, --snapshot) */
};

/* Whether the output PATH (for option WHAT) is, through any name,
 * symlink or bind mount, the same regular file as one of the n named (the
 * run's inputs and its other outputs; WHAT's own entry is passed over),
 * or, while it does not exist, the same name in the same directory (a
 * whole output is made only at the run's end, so another output's check
 * cannot find it made), or lies inside one of the named directories:
 * opening it would truncate a file the run reads (or put an empty file
 * among them), or two outputs would write into one file. Directories are
 * compared by inode. True, logged, if so. */
bool vmm_output_clobbers(const char *what, const char *path, const struct named_path *named, unsigned n);

/* Make sure descriptors 0, 1 and 2 are open (on /dev/null if they were
 * closed), so that no output file can become stdout or stderr. */
int vmm_reserve_std_fds(void);

#endif
