#include "guest_text.h"

#include <stdlib.h>

size_t guest_text_escape(char *out, size_t len, const char *s)
{
    size_t n = 0;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        size_t need = guest_text_printable(c) ? 1 : 4;
        if (n + need >= len)
            break;
        if (need == 1)
            out[n] = (char)c;
        else
            snprintf(out + n, 5, "\\x%02x", c);
        n += need;
    }
    out[n] = 0;
    return n;
}

static void put_escaped(FILE *f, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (guest_text_printable(c))
            fputc(c, f);
        else
            fprintf(f, "\\x%02x", c);
    }
}

void guest_text_log_line(FILE *f, const char *prefix, const char *fmt, va_list ap)
{
    char small[1024], *msg = small;
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(small, sizeof(small), fmt, ap);
    /* A longer message is formatted again whole, or printed cut. */
    if (n >= (int)sizeof(small) && (msg = malloc((size_t)n + 1)))
        vsnprintf(msg, (size_t)n + 1, fmt, again);
    va_end(again);
    fputs(prefix, f);
    put_escaped(f, msg ? msg : small);
    fputc('\n', f);
    if (msg != small)
        free(msg);
}
