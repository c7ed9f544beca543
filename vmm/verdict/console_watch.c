#include "console_watch.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define EXEC_STATUS_PREFIX "handover-init: command exited with status "

void panic_watch_line(void *ctx, const char *line)
{
    struct panic_watch *w = ctx;
    const char *p = strstr(line, "Kernel panic - not syncing");
    if (p && !w->line[0])
        snprintf(w->line, sizeof(w->line), "%s", p);
    if (w->line[0] && strstr(line, "---[ end Kernel panic"))
        w->ended = true;
}

bool panic_watch_restart(struct panic_watch *w)
{
    return w->ended = w->ended || w->line[0];
}

void halt_watch_line(void *ctx, const char *line)
{
    if (strstr(line, "reboot: System halted"))
        *(bool *)ctx = true;
}

bool exec_status_scan(const char *line, const char *run_id, int *status)
{
    const char *p = strstr(line, EXEC_STATUS_PREFIX);
    if (!p)
        return false;
    p += strlen(EXEC_STATUS_PREFIX);
    char mark[EXEC_RUN_ID_LEN + 8];
    snprintf(mark, sizeof(mark), " [run %s]", run_id);
    int n = 0, digits = 0;
    while (digits < 4 && p[digits] >= '0' && p[digits] <= '9')
        n = n * 10 + (p[digits++] - '0');
    if (!digits || n > UINT8_MAX || strncmp(p + digits, mark, strlen(mark)))
        return false;
    *status = n;
    return true;
}

bool console_is_banner(const char *line)
{
    return strstr(line, "Linux version ") != NULL;
}

bool console_is_init(const char *line)
{
    return strstr(line, "Run /") && strstr(line, " as init process");
}
