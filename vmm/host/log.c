/* handover's own messages: "handover: ..." lines on stderr, or on a file a
 * --fault-sweep cell keeps. When the --trace-efi lines share stderr, each
 * message becomes a JSON line too ({"log":"..."}), so that a script reading
 * stderr reads JSON only and a person still reads every word. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../../guest/guest_text.h"
#include "log.h"

static FILE *log_file;
static FILE *json_log;   /* the JSON-wrapping stream, once made */

FILE *vmm_log_file(void)
{
    return log_file ? log_file : json_log ? json_log : stderr;
}

void vmm_set_log_file(FILE *f)
{
    log_file = f;
}

/* Escaped: messages carry guest text (console lines, what the image
 * printed) and stderr is handover's own voice. */
void vmm_log(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    guest_text_log_line(vmm_log_file(), "handover: ", fmt, ap);
    va_end(ap);
}

/* One JSON string of the bytes [s, s + n): quotes, backslashes, control
 * characters and bytes above 0x7f (guest text is not always UTF-8) escaped. */
static void json_string(FILE *out, const char *s, size_t n)
{
    fputc('"', out);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (!guest_text_printable(c))
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

/* fopencookie's write: whole lines out as {"log":"..."}, a partial line
 * kept until its newline (or the stream's close). */
struct json_lines {
    char line[4096];
    size_t len;
};

static void json_flush_line(struct json_lines *j)
{
    size_t n = j->len;
    const char *text = j->line;
    if (n >= 10 && !memcmp(text, "handover: ", 10))
        text += 10, n -= 10;
    fputs("{\"log\":", stderr);
    json_string(stderr, text, n);
    fputs("}\n", stderr);
    fflush(stderr);
    j->len = 0;
}

static ssize_t json_write(void *cookie, const char *buf, size_t size)
{
    struct json_lines *j = cookie;
    for (size_t i = 0; i < size; i++) {
        if (buf[i] == '\n' || j->len == sizeof(j->line))
            json_flush_line(j);
        if (buf[i] != '\n')
            j->line[j->len++] = buf[i];
    }
    return (ssize_t)size;
}

static int json_close(void *cookie)
{
    struct json_lines *j = cookie;
    if (j->len)
        json_flush_line(j);
    return 0;
}

int vmm_log_as_json(void)
{
    static struct json_lines lines;
    if (json_log)
        return 0;
    json_log = fopencookie(&lines, "w", (cookie_io_functions_t){ .write = json_write, .close = json_close });
    if (!json_log)
        return -1;
    setvbuf(json_log, NULL, _IOLBF, 0);
    return 0;
}
