#include "ktap.h"

#include <stdlib.h>
#include <string.h>

void ktap_init(struct ktap *k)
{
    memset(k, 0, sizeof(*k));
    k->plan = -1;
}

/* Skip a printk timestamp "[    1.234567] " if the kernel prints them. */
static const char *strip_time(const char *s)
{
    if (s[0] != '[')
        return s;
    const char *e = strchr(s, ']');
    return e && e[1] == ' ' ? e + 2 : s;
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
    if (n >= len)
        n = len - 1;
    memcpy(name, s, n);
    name[n] = 0;
    const char *hash = strchr(s, '#');
    *skip = hash && strstr(hash, "SKIP");
    return true;
}

void ktap_line(struct ktap *k, const char *line)
{
    const char *s = strip_time(line);
    size_t indent = strspn(s, " \t");
    const char *t = s + indent;
    bool ok, skip;
    char name[KTAP_NAME];

    if (indent == 0) {
        if (!strncmp(t, "KTAP version", 12) || !strncmp(t, "TAP version", 11)) {
            k->started = true;
            return;
        }
        if (!k->started)
            return;
        if (!strncmp(t, "1..", 3) && k->plan < 0) {
            k->plan = atoi(t + 3);
            return;
        }
        if (parse_result(t, &ok, name, sizeof(name), &skip)) {
            /* A suite's result: it may close the suite being read, or be a
             * suite whose header we did not see. */
            struct ktap_suite *su = k->current;
            if (!su || strcmp(su->name, name)) {
                if (k->nsuites >= KTAP_MAX_SUITES)
                    return;
                su = &k->suites[k->nsuites];
                memset(su, 0, sizeof(*su));
                snprintf(su->name, sizeof(su->name), "%s", name);
            }
            su->done = true;
            su->ok = ok;
            k->nsuites++;
            k->current = NULL;
        }
        return;
    }
    if (!k->started || indent != 4)
        return;   /* deeper levels are parameterised cases: counted by their parent */
    if (!strncmp(t, "# Subtest: ", 11)) {
        if (k->nsuites >= KTAP_MAX_SUITES)
            return;
        struct ktap_suite *su = &k->suites[k->nsuites];
        memset(su, 0, sizeof(*su));
        snprintf(su->name, sizeof(su->name), "%s", t + 11);
        k->current = su;
        return;
    }
    if (k->current && parse_result(t, &ok, name, sizeof(name), &skip)) {
        if (skip)
            k->current->skipped++;
        else if (ok)
            k->current->passed++;
        else {
            k->current->failed++;
            if (k->nfailed < KTAP_MAX_FAILED)
                snprintf(k->failed[k->nfailed++], sizeof(k->failed[0]), "%s.%s", k->current->name, name);
        }
    }
}

bool ktap_complete(const struct ktap *k)
{
    return k->plan >= 0 && k->nsuites >= (unsigned)k->plan;
}

bool ktap_passed(const struct ktap *k)
{
    if (!ktap_complete(k))
        return false;
    for (unsigned i = 0; i < k->nsuites; i++)
        if (!k->suites[i].ok)
            return false;
    return true;
}

void ktap_summary(const struct ktap *k, FILE *out)
{
    unsigned passed = 0, failed = 0, skipped = 0, bad = 0;
    for (unsigned i = 0; i < k->nsuites; i++) {
        const struct ktap_suite *s = &k->suites[i];
        fprintf(out, "kunit: %-24s %s  %u passed, %u failed, %u skipped\n", s->name, s->ok ? "ok    " : "FAILED",
                s->passed, s->failed, s->skipped);
        passed += s->passed;
        failed += s->failed;
        skipped += s->skipped;
        bad += !s->ok;
    }
    for (unsigned i = 0; i < k->nfailed; i++)
        fprintf(out, "kunit: failed test: %s\n", k->failed[i]);
    if (!k->started)
        fprintf(out, "kunit: no KTAP output seen\n");
    else if (!ktap_complete(k))
        fprintf(out, "kunit: incomplete: %u of %d suites reported\n", k->nsuites, k->plan);
    fprintf(out, "kunit: %u suites (%u failed), %u tests: %u passed, %u failed, %u skipped\n", k->nsuites, bad,
            passed + failed + skipped, passed, failed, skipped);
}
