/* A streaming reader of the KTAP that KUnit prints on the console
 * (Documentation/dev-tools/ktap.rst): top-level "1..N" and one "ok"/"not
 * ok" per suite, with the suite's cases indented beneath it. */
#ifndef HANDOVER_KTAP_H
#define HANDOVER_KTAP_H

#include <stdbool.h>
#include <stdio.h>

#define KTAP_MAX_SUITES 64
#define KTAP_MAX_FAILED 32
#define KTAP_NAME 64

struct ktap_suite {
    char name[KTAP_NAME];
    unsigned passed, failed, skipped;
    bool done, ok;
};

struct ktap {
    bool started;            /* "KTAP version" seen at the top level */
    int plan;                /* top-level "1..N", -1 until seen */
    unsigned nsuites;        /* top-level results seen */
    struct ktap_suite suites[KTAP_MAX_SUITES];
    struct ktap_suite *current;  /* suite whose cases are being read */
    char failed[KTAP_MAX_FAILED][2 * KTAP_NAME]; /* "suite.case" of failed cases */
    unsigned nfailed;
};

void ktap_init(struct ktap *k);
/* Feed one console line (without the newline). */
void ktap_line(struct ktap *k, const char *line);
/* Every planned suite has reported. */
bool ktap_complete(const struct ktap *k);
/* Did every suite pass (skips count as passes)? */
bool ktap_passed(const struct ktap *k);
/* Per-suite and total summary, "kunit: ..." lines. */
void ktap_summary(const struct ktap *k, FILE *out);

#endif
