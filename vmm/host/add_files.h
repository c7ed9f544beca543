/* The archive handover appends to the initrd (or, for --exec without
 * --initrd, the whole initrd, with /init from scripts/handover-init.sh and
 * the host's busybox): the --exec command as handover/cmd (/init runs it;
 * with --snapshot the command comes later, vmm/tools/warm_boot.h), with
 * --exec-output the tty for its output as handover/output, and the
 * --add files; a dynamically linked program brings its interpreter (the
 * host's of that file name in the loader directories, at the path the
 * program names) and its libraries (bare names, from the library
 * directories, at the paths the host has them). A parent folder that is a
 * symlink to a folder on the host (merged /usr's /lib -> usr/lib) goes in
 * as that symlink, so an --initrd's own is kept. Built before /dev/kvm is
 * opened; no name in it holds "..". */
#ifndef HANDOVER_ADD_FILES_H
#define HANDOVER_ADD_FILES_H

#include <stdbool.h>

#include "../../loader/cpio.h"

/* COM2 (serial.h) is the kernel's second legacy port (ttyS1) whether
 * serial8250 finds it at 0x2f8 itself or 8250_pnp through the SSDT. */
#define EXEC_OUTPUT_TTY "/dev/ttyS1"

/* busybox-static's (Debian's busybox-static package), at the same path in the guest. */
#define HOST_BUSYBOX "/bin/busybox"

#define ADD_MAX_SPECS 64
#define ADD_MAX_FILES 256              /* with the libraries */
#define ADD_MAX_BYTES (512ULL << 20)   /* the whole archive */

/* What goes in, from the options. */
struct add_files_request {
    const char *exec;          /* --exec CMD; NULL: none */
    const char *run_id;        /* --exec: the run's mark, /handover/run (console_watch.h) */
    bool exec_output;          /* --exec-output: the command's output goes to EXEC_OUTPUT_TTY */
    bool snapshot;             /* --snapshot: no handover/cmd (it comes on the console) but
                                  handover/snapshot-wait and the reseed program */
    bool whole_initrd;         /* no --initrd: /init and busybox come too */
    const char *const *adds;   /* --add HOST[:GUEST] */
    unsigned nadds;
};

/* Build it into b (cpio_free it); -1 with a message naming the file, and
 * b freed. */
int add_files_archive(const struct add_files_request *r, struct cpio_builder *b);

#endif
