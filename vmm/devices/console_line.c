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
        cl->cr = false;
        return;
    }
    if (byte == '\r') {
        cl->cr = true;
        return;
    }
    /* A carriage return no line feed follows puts what comes next at the
     * line's start, as on a terminal (a progress count redrawn in place):
     * the line starts over, and text after it is not cut off past the
     * end of the line. */
    if (cl->cr) {
        cl->len = 0;
        cl->cr = false;
    }
    /* A NUL would end the line's string early and hide what follows it
     * (a panic after binary output); a terminal shows nothing for it
     * (ECMA-48 8.3.88), so neither does the line. */
    if (byte != 0 && cl->len + 1 < sizeof(cl->line)) {
        cl->line[cl->len++] = (char)byte;
        cl->line[cl->len] = 0;
    }
}

const char *console_line_current(const struct console_line *cl)
{
    return cl->len ? cl->line : cl->last;
}
