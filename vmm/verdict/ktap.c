#include "ktap.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../guest/guest_text.h"

void ktap_init(struct ktap *k)
{
    memset(k, 0, sizeof(*k));
    k->plan = -1;
    k->current = -1;
}

void ktap_free(struct ktap *k)
{
    free(k->suites);
    free(k->failed);
    free(k->cases);
    ktap_init(k);
}

/* Room for one more element in an array of cap elements of size sz, grown
 * by doubling up to max; false when full. */
static bool grow(void **a, unsigned *cap, unsigned n, size_t sz, unsigned max)
{
    if (n < *cap)
        return true;
    if (n >= max)
        return false;
    unsigned c = *cap ? 2 * *cap : 16;
    if (c > max)
        c = max;
    void *p = realloc(*a, (size_t)c * sz);
    if (!p)
        return false;
    *a = p;
    *cap = c;
    return true;
}

/* A name from the console into name (len bytes), at most n bytes of s,
 * every byte that is not printable ASCII as '?': the names reach the JSON
 * documents, whose writer refuses a string that is not UTF-8, and the
 * summary lines. */
static void copy_name(char *name, size_t len, const char *s, size_t n)
{
    if (n >= len)
        n = len - 1;
    for (size_t i = 0; i < n; i++)
        name[i] = guest_text_printable((unsigned char)s[i]) ? s[i] : '?';
    name[n] = 0;
}

/* A new suite record, or NULL when it cannot be stored. */
static struct ktap_suite *new_suite(struct ktap *k, const char *name)
{
    if (!grow((void **)&k->suites, &k->suites_cap, k->nsuites, sizeof(*k->suites), KTAP_MAX_SUITES))
        return NULL;
    struct ktap_suite *su = &k->suites[k->nsuites];
    memset(su, 0, sizeof(*su));
    copy_name(su->name, sizeof(su->name), name, strlen(name));
    return su;
}

/* Skip printk's prefix, if the kernel prints one: kernel/printk/printk.c
 * (info_print_prefix) puts the time "[    1.234567]", with
 * CONFIG_PRINTK_CALLER the caller "[     T1]", then one space. */
static const char *strip_time(const char *s)
{
    const char *p = s;
    while (*p == '[') {
        const char *e = strchr(p, ']');
        if (!e)
            return s;
        p = e + 1;
    }
    return p != s && *p == ' ' ? p + 1 : s;
}

/* "ok N name # directive" or "not ok N name ..." → ok, name, skip. */
static bool parse_result(const char *s, bool *ok, char *name, size_t len, bool *skip)
{
    if (!strncmp(s, "ok ", 3)) {
        *ok = true;
        s += 3;
    } else if (!strncmp(s, "not ok ", 7)) {
        *ok = false;
        s += 7;
    } else {
        return false;
    }
    char *end;
    strtoul(s, &end, 10);
    if (end == s)
        return false;
    s = end;
    while (*s == ' ' || *s == '-')
        s++;
    size_t n = strcspn(s, "#");
    while (n && s[n - 1] == ' ')
        n--;
    copy_name(name, len, s, n);
    const char *hash = strchr(s, '#');
    *skip = hash && strstr(hash, "SKIP");
    return true;
}

/* The N of a plan "1..N": -1 if it is no number; past INT_MAX, INT_MAX (a
 * plan no run completes), where atoi wrapped 4294967297 to 1. */
static int plan_count(const char *s)
{
    if (*s < '0' || *s > '9')
        return -1;
    unsigned long long n = strtoull(s, NULL, 10);   /* ULLONG_MAX past its range */
    return n > INT_MAX ? INT_MAX : (int)n;
}

/* A line at the top level: the header, the plan, or a suite's result,
 * which may close the suite being read or be one whose header we did not
 * see. */
static void top_level_line(struct ktap *k, const char *t)
{
    bool ok, skip;
    char name[KTAP_NAME];
    if (!strncmp(t, "KTAP version", 12) || !strncmp(t, "TAP version", 11)) {
        k->started = true;
        return;
    }
    if (!k->started)
        return;
    if (!strncmp(t, "1..", 3) && k->plan < 0) {
        k->plan = plan_count(t + 3);
        return;
    }
    if (!parse_result(t, &ok, name, sizeof(name), &skip))
        return;
    struct ktap_suite *su = k->current >= 0 ? &k->suites[k->current] : NULL;
    if (su && !su->name[0])
        snprintf(su->name, sizeof(su->name), "%s", name);   /* a suite whose header we did not see */
    else if (!su || strcmp(su->name, name))
        su = new_suite(k, name);
    k->current = -1;
    /* The SKIP directive decides, on "not ok" too (ktap.rst; kunit.py
     * reads both as skipped): a skipped suite is no failure. */
    ok = ok || skip;
    if (!su) {
        k->suites_dropped++;
        k->dropped_failed |= !ok;
        return;
    }
    su->done = true;
    su->ok = ok;
    k->nsuites++;
}

/* A test case's result in the suite being read. */
static void case_result(struct ktap *k, const char *name, bool ok, bool skip)
{
    struct ktap_suite *su = &k->suites[k->current];
    if (grow((void **)&k->cases, &k->cases_cap, k->ncases, sizeof(*k->cases), KTAP_MAX_CASES)) {
        struct ktap_case *tc = &k->cases[k->ncases++];
        snprintf(tc->name, sizeof(tc->name), "%s", name);
        tc->suite = (unsigned)k->current;
        tc->status = skip ? KTAP_SKIP : ok ? KTAP_PASS : KTAP_FAIL;
    }
    if (skip)
        su->skipped++;
    else if (ok)
        su->passed++;
    else {
        su->failed++;
        if (grow((void **)&k->failed, &k->failed_cap, k->nfailed, sizeof(*k->failed), KTAP_MAX_FAILED))
            snprintf(k->failed[k->nfailed++], sizeof(k->failed[0]), "%s%s%s", su->name, su->name[0] ? "." : "",
                     name);
        else
            k->failed_unnamed++;
    }
}

void ktap_line(struct ktap *k, const char *line)
{
    const char *s = strip_time(line);
    size_t indent = strspn(s, " \t");
    const char *t = s + indent;
    bool ok, skip;
    char name[KTAP_NAME];

    if (indent == 0) {
        top_level_line(k, t);
        return;
    }
    if (!k->started || indent != 4)
        return;   /* deeper levels are parameterised cases: counted by their parent */
    if (!strncmp(t, "# Subtest: ", 11)) {
        k->current = new_suite(k, t + 11) ? (int)k->nsuites : -1;
        return;
    }
    if (!parse_result(t, &ok, name, sizeof(name), &skip))
        return;
    /* A case with no "# Subtest:" before it (KTAP makes that line optional,
     * Documentation/dev-tools/ktap.rst) is still a result: its suite is
     * named by its own result line. */
    if (k->current < 0)
        k->current = new_suite(k, "") ? (int)k->nsuites : -1;
    if (k->current >= 0)
        case_result(k, name, ok, skip);
}

bool ktap_complete(const struct ktap *k)
{
    /* A reader that saw no KTAP header saw no run: never complete. */
    return k->started && k->plan >= 0 && (uint64_t)k->nsuites + k->suites_dropped >= (unsigned)k->plan;
}

bool ktap_no_suites(const struct ktap *k)
{
    return k->nsuites == 0 && k->suites_dropped == 0;
}

bool ktap_passed(const struct ktap *k)
{
    if (!ktap_complete(k) || ktap_no_suites(k) || k->dropped_failed)
        return false;
    /* A failed case fails the run, whatever its suite's own line says. */
    if (k->nfailed || k->failed_unnamed)
        return false;
    for (unsigned i = 0; i < k->nsuites; i++)
        if (!k->suites[i].ok)
            return false;
    return true;
}

const struct ktap_suite *ktap_unfinished(const struct ktap *k)
{
    return k->current >= 0 && !ktap_complete(k) ? &k->suites[k->current] : NULL;
}

const char *ktap_unfinished_last_case(const struct ktap *k)
{
    if (!ktap_unfinished(k) || !k->ncases || k->cases[k->ncases - 1].suite != (unsigned)k->current)
        return NULL;
    return k->cases[k->ncases - 1].name;
}

static void suite_line(const struct ktap_suite *s, const char *verdict, FILE *out)
{
    fprintf(out, "kunit: %-24s %-6s  %u passed, %u failed, %u skipped\n", s->name, verdict, s->passed, s->failed,
            s->skipped);
}

/* The suite a crash or hang cut short: its name, what it reported, and the
 * last case that finished (the one after it is where the run stopped). */
static void unfinished_summary(const struct ktap *k, FILE *out)
{
    const struct ktap_suite *s = ktap_unfinished(k);
    if (!s)
        return;
    const char *last = ktap_unfinished_last_case(k);
    suite_line(s, "UNFINISHED", out);
    if (last)
        fprintf(out, "kunit: unfinished suite %s: the run stopped after its case %s\n", s->name, last);
    else
        fprintf(out, "kunit: unfinished suite %s: the run stopped before its first case reported\n", s->name);
}

void ktap_summary(const struct ktap *k, FILE *out)
{
    unsigned passed = 0, failed = 0, skipped = 0, bad = 0;
    for (unsigned i = 0; i < k->nsuites; i++) {
        const struct ktap_suite *s = &k->suites[i];
        suite_line(s, s->ok ? "ok" : "FAILED", out);
        passed += s->passed;
        failed += s->failed;
        skipped += s->skipped;
        bad += !s->ok;
    }
    unfinished_summary(k, out);
    for (unsigned i = 0; i < k->nfailed; i++)
        fprintf(out, "kunit: failed test: %s\n", k->failed[i]);
    if (k->failed_unnamed)
        fprintf(out, "kunit: %u more failed tests, not named (more than %u)\n", k->failed_unnamed, KTAP_MAX_FAILED);
    if (k->suites_dropped)
        fprintf(out, "kunit: %u more suites, not listed (more than %u)%s\n", k->suites_dropped, KTAP_MAX_SUITES,
                k->dropped_failed ? ", some of them failed" : "");
    if (!k->started)
        fprintf(out, "kunit: no KTAP output seen\n");
    else if (ktap_complete(k) && ktap_no_suites(k))
        fprintf(out, "kunit: no suite ran (plan 1..%d): nothing was tested\n", k->plan);
    else if (!ktap_complete(k))
        fprintf(out, "kunit: incomplete: %u of %d suites reported\n", k->nsuites, k->plan);
    fprintf(out, "kunit: %u suites (%u failed), %u tests: %u passed, %u failed, %u skipped\n",
            k->nsuites + k->suites_dropped, bad + k->dropped_failed,
            passed + failed + skipped, passed, failed, skipped);
}
