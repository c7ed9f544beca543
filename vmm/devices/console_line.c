#include "console_line.h"

#include <stdio.h>

int line_consumers_add(struct line_consumers *l, const struct line_consumer *c)
{
    if (l->n >= CONSOLE_MAX_CONSUMERS)
        return -1;
    l->c[l->n++] = *c;
    return 0;
}

void console_line_byte(struct console_line *cl, const struct line_consumers *l, uint8_t byte)
{
    if (byte == '\n') {
        if (cl->len) {
            cl->line[cl->len] = 0;
            snprintf(cl->last, sizeof(cl->last), "%s", cl->line);
            for (unsigned i = 0; i < l->n; i++)
                l->c[i].line(l->c[i].ctx, cl->line);
        }
        cl->len = 0;
        return;
    }
    /* A NUL would end the line's string early and hide what follows it
     * (a panic after binary output); a terminal shows nothing for it
     * (ECMA-48 8.3.88), so neither does the line. */
    if (byte != '\r' && byte != 0 && cl->len + 1 < sizeof(cl->line)) {
        cl->line[cl->len++] = (char)byte;
        cl->line[cl->len] = 0;
    }
}

const char *console_line_current(const struct console_line *cl)
{
    return cl->len ? cl->line : cl->last;
}
