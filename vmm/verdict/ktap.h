/* A streaming reader of the KTAP that KUnit prints on the console
 * (Documentation/dev-tools/ktap.rst): top-level "1..N" and one "ok"/"not
 * ok" per suite, with the suite's cases indented beneath it. */
#ifndef HANDOVER_KTAP_H
#define HANDOVER_KTAP_H

#include <stdbool.h>
#include <stdio.h>

/* Bounds on what a guest's console can make the host keep: far above any
 * real run (a whole allyesconfig KUnit run has a few hundred suites), and
 * a few MiB at most. Past them results are still counted, not stored. */
#define KTAP_MAX_SUITES 65536
#define KTAP_MAX_FAILED 65536
#define KTAP_MAX_CASES  65536
#define KTAP_NAME 256   /* KUnit names reach 78 bytes (6.1); longer ones are cut */

struct ktap_suite {
    char name[KTAP_NAME];
    unsigned passed, failed, skipped;
    bool done, ok;
};

/* One test case, as its suite's KTAP reported it. */
struct ktap_case {
    char name[KTAP_NAME];
    unsigned suite;          /* index into suites */
    enum ktap_status { KTAP_PASS, KTAP_FAIL, KTAP_SKIP } status;
};

struct ktap {
    bool started;            /* "KTAP version" seen at the top level */
    int plan;                /* top-level "1..N", -1 until seen */
    unsigned nsuites;        /* top-level results seen */
    struct ktap_suite *suites;   /* grown as suites come, up to KTAP_MAX_SUITES */
    unsigned suites_cap;
    int current;             /* index of the suite whose cases are being read, -1: none */
    char (*failed)[2 * KTAP_NAME]; /* "suite.case" of failed cases, up to KTAP_MAX_FAILED */
    unsigned nfailed, failed_cap;
    unsigned failed_unnamed; /* failures past KTAP_MAX_FAILED (or out of memory): counted only */
    struct ktap_case *cases; /* every case, up to KTAP_MAX_CASES (--kunit-json) */
    unsigned ncases, cases_cap;
    unsigned suites_dropped; /* suites past KTAP_MAX_SUITES (or out of memory) */
    bool dropped_failed;     /* one of the dropped suites failed */
};

void ktap_init(struct ktap *k);
void ktap_free(struct ktap *k);
/* Feed one console line (without the newline). */
void ktap_line(struct ktap *k, const char *line);
/* A KTAP run was seen and every planned suite has reported. */
bool ktap_complete(const struct ktap *k);
/* No suite reported (a plan of 0: none built in, or a filter that matched
 * none): such a run tested nothing. */
bool ktap_no_suites(const struct ktap *k);
/* Did every suite and every case pass (skips count as passes)? Never
 * when none ran. */
bool ktap_passed(const struct ktap *k);
/* The suite whose cases were being read when the run stopped short of its
 * plan, or NULL: KUnit prints a suite's result after its last case
 * (lib/kunit/test.c, kunit_run_tests), so a crash or hang in a case leaves
 * its suite without one. */
const struct ktap_suite *ktap_unfinished(const struct ktap *k);
/* The name of the last case the unfinished suite reported, or NULL. */
const char *ktap_unfinished_last_case(const struct ktap *k);
/* Per-suite and total summary, "kunit: ..." lines. */
void ktap_summary(const struct ktap *k, FILE *out);

#endif
