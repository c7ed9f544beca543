/* The guest console's text as lines: the UART's bytes are gathered into
 * the line being written, and each complete line goes to every registered
 * line consumer (the panic detector, the KTAP reader, the --exec status,
 * the milestones), so the console's byte path names none of them. */
#ifndef HANDOVER_CONSOLE_LINE_H
#define HANDOVER_CONSOLE_LINE_H

#include <stdbool.h>
#include <stdint.h>

/* The state a snapshot keeps: the line being written and the last one. */
struct console_line {
    char line[256];
    unsigned len;
    char last[256];
    bool cr;   /* a carriage return came last: the line starts over unless a line feed follows */
};

struct line_consumer {
    const char *name;
    void (*line)(void *ctx, const char *line);   /* one complete line, without its newline */
    void *ctx;
};

#define CONSOLE_MAX_CONSUMERS 8

struct line_consumers {
    struct line_consumer c[CONSOLE_MAX_CONSUMERS];
    unsigned n;
};

/* -1 when the list is full: a watcher that is not on it is a bug. */
__attribute__((warn_unused_result)) int line_consumers_add(struct line_consumers *l, const struct line_consumer *c);

/* One byte of console output: '\n' completes a non-empty line, which every
 * consumer gets in the order they were added; '\r' followed by anything but
 * '\n' starts the line over, NUL is dropped, and a line longer than the
 * buffer keeps its start. */
void console_line_byte(struct console_line *cl, const struct line_consumers *l, uint8_t byte);

/* For diagnostics: the line being written, or else the last complete one
 * ("" before any). */
const char *console_line_current(const struct console_line *cl);

#endif
