/* The one way the parsers of a guest image (loader/bzimage.c,
 * firmware-stub/pe.c) refuse an input: a one-line message naming the field
 * in err, and -1. */
#ifndef HANDOVER_FAIL_H
#define HANDOVER_FAIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

__attribute__((format(printf, 3, 4)))
static inline int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (err && errlen)
        vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

#endif
