/* Opening the files named on the command line without ever blocking: a FIFO
 * or a device given as an input would block open() or read() before
 * --timeout is armed. */
#ifndef HANDOVER_FILES_H
#define HANDOVER_FILES_H

#include <stdio.h>

/* Open PATH for reading; only a regular file is accepted. On failure logs
 * "WHAT PATH: reason" and returns NULL. */
FILE *vmm_open_input(const char *what, const char *path);

/* Open (create, truncate) PATH for writing; open() never blocks (a FIFO
 * with no reader is refused). On failure logs and returns NULL. */
FILE *vmm_open_output(const char *what, const char *path);

/* Make sure descriptors 0, 1 and 2 are open (on /dev/null if they were
 * closed), so that no output file can become stdout or stderr. */
int vmm_reserve_std_fds(void);

#endif
