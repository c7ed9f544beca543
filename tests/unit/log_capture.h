/* handover's messages (vmm_log) caught in memory, for tests that check what
 * was said: start in a checked fixture's setup, stop in its teardown. */
#ifndef HANDOVER_UNIT_LOG_CAPTURE_H
#define HANDOVER_UNIT_LOG_CAPTURE_H

void log_capture_start(void);
/* Everything logged since the start. */
const char *log_captured(void);
void log_capture_stop(void);

#endif
