/* The firmware's diagnostics: lines on cfg.log, FW_LOG_LIMIT at most. */
#ifndef HANDOVER_FW_LOG_H
#define HANDOVER_FW_LOG_H

#include "state.h"

/* One line on cfg.log, prefixed "handover: ", guest text escaped. */
void fw_log(struct firmware *fw, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
