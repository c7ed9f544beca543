/* Writes docs/exit-status.md on stdout from the exit-status and end-reason
 * tables (vmm/verdict/exit_status.h, end_reason.h): `make docs` runs it,
 * and the image tier fails when the page is not what it writes. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "../vmm/verdict/end_reason.h"
#include "../vmm/verdict/exit_status.h"

/* text as a Markdown table cell, an option (--name) as code. */
static void cell(const char *text)
{
    for (const char *p = text; *p; p++) {
        bool word_start = p == text || p[-1] == ' ' || p[-1] == '(';
        if (word_start && !strncmp(p, "--", 2) && p[2] >= 'a' && p[2] <= 'z') {
            size_t n = 2 + strspn(p + 2, "abcdefghijklmnopqrstuvwxyz0123456789-");
            printf("`%.*s`", (int)n, p);
            p += n - 1;
        } else if (*p == '|') {
            fputs("\\|", stdout);
        } else {
            putchar(*p);
        }
    }
}

static const char *shown(int status)
{
    if (status == END_ANY_STATUS)
        return "any";
    for (unsigned i = 0; i < exit_status_nrows; i++)
        if (exit_status_rows[i].id == status)
            return exit_status_rows[i].shown;
    return NULL;
}

int main(void)
{
    fputs("<!-- Made by `make docs` from vmm/verdict/exit_status.h and end_reason.h (scripts/exit-status-doc.c):\n"
          "     change the tables there, not this page. -->\n"
          "# Exit status and end reasons\n"
          "\n"
          "handover exits with one of the statuses below. A guest's own status (the exit\n"
          "port, `--exec`'s command) passes through as it is, so it may be any of these\n"
          "numbers too: the end reason tells the two apart. Under `--kunit`, a 0 or 5 on\n"
          "the exit port before every suite reported is not passed through: the run ends\n"
          "`kunit-incomplete` (7). The last line handover prints\n"
          "on stderr, \"handover: end: REASON, exit status N\", and `--report`'s `end_reason`\n"
          "name it. `handover --help` and the man page list the same statuses.\n"
          "\n"
          "## Exit status\n"
          "\n"
          "| Status | Meaning |\n"
          "|--------|---------|\n", stdout);
    for (unsigned i = 0; i < exit_status_nrows; i++) {
        printf("| `%s` | ", exit_status_rows[i].shown);
        cell(exit_status_rows[i].meaning);
        puts(" |");
    }
    fputs("\n"
          "## End reasons\n"
          "\n"
          "The first reason that holds, in this order, is the run's.\n"
          "\n"
          "| End reason | Exit status | When |\n"
          "|------------|-------------|------|\n", stdout);
    for (unsigned i = 0; i < END_REASON_COUNT; i++) {
        const struct end_reason_row *r = &end_reasons[i];
        printf("| `%s` | ", r->name);
        for (const int *s = r->statuses; *s != END_STATUS_LIST_END; s++) {
            if (!shown(*s)) {
                fprintf(stderr, "exit-status-doc: end reason %s: status %d is in no row of the exit-status table\n",
                        r->name, *s);
                return 1;
            }
            printf("%s%s", s == r->statuses ? "" : s[1] == END_STATUS_LIST_END ? " or " : ", ", shown(*s));
        }
        fputs(" | ", stdout);
        cell(r->meaning);
        puts(" |");
    }
    return fflush(stdout) || ferror(stdout) ? 1 : 0;
}
