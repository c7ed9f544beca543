/* handover's own voice: one line per event on stderr (host/log.c). */
#ifndef HANDOVER_LOG_H
#define HANDOVER_LOG_H

#include <stdio.h>

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
