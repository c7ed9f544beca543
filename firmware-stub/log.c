/* The firmware's diagnostics (log.h). A guest can make the firmware log
 * in a loop (calls after ExitBootServices, bad IDs, bad pointers): the
 * lines stop at FW_LOG_LIMIT, with a last one saying so. */
#include "log.h"

#include <stdarg.h>

#include "../guest/guest_text.h"

void fw_log(struct firmware *fw, const char *fmt, ...)
{
    if (!fw->cfg.log || fw->log_lines > FW_LOG_LIMIT)
        return;
    if (++fw->log_lines > FW_LOG_LIMIT) {
        fprintf(fw->cfg.log, "handover: %u firmware messages: no more are printed (a guest looping on bad calls?)\n",
                FW_LOG_LIMIT);
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    guest_text_log_line(fw->cfg.log, "handover: ", fmt, ap);
    va_end(ap);
}
