#include "log_capture.h"

#include <stdio.h>
#include <stdlib.h>

#include "suites.h"
#include "../../vmm/host/log.h"

static FILE *log_out;
static char *log_text;
static size_t log_len;

void log_capture_start(void)
{
    log_out = open_memstream(&log_text, &log_len);
    ck_assert_ptr_nonnull(log_out);
    vmm_set_log_file(log_out);
}

const char *log_captured(void)
{
    fflush(log_out);
    return log_text;
}

void log_capture_stop(void)
{
    vmm_set_log_file(NULL);
    fclose(log_out);
    free(log_text);
    log_text = NULL;
}
