/* Guest-controlled text on handover's own output: its log lines (stderr,
 * a sweep cell's log), the sweep's table, the reports. Printable ASCII
 * passes; any other byte is shown as \xNN or replaced, so no guest escape
 * sequence or control byte reaches a terminal or a CI log. The guest's
 * console on stdout stays raw by design. */
#ifndef HANDOVER_GUEST_TEXT_H
#define HANDOVER_GUEST_TEXT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* 0x20..0x7e: a byte that may print as itself. */
static inline bool guest_text_printable(unsigned c)
{
    return c >= 0x20 && c <= 0x7e;
}

/* s up to its NUL into out (len > 0 bytes, always terminated), every byte
 * that is not printable as \xNN; cut before an escape that does not fit.
 * Returns strlen(out). */
size_t guest_text_escape(char *out, size_t len, const char *s);

/* One log line on f: prefix, the formatted message escaped, a newline. */
void guest_text_log_line(FILE *f, const char *prefix, const char *fmt, va_list ap);

#endif
