#include "console_watch.h"

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

bool exec_status_scan(const char *line, int *status)
{
    const char *st = strstr(line, EXEC_STATUS_PREFIX);
    return st && sscanf(st + strlen(EXEC_STATUS_PREFIX), "%d", status) == 1;
}

bool console_is_banner(const char *line)
{
    return strstr(line, "Linux version ") != NULL;
}

bool console_is_init(const char *line)
{
    return strstr(line, "Run /") && strstr(line, " as init process");
}
