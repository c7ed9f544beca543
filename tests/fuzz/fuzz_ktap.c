/* libFuzzer harness for the KTAP reader (--kunit): the guest's console
 * text, split at newlines as vmm/console.c does, fed line by line to
 * ktap_line, then ktap_complete / ktap_passed / ktap_summary (to
 * /dev/null). Each line is handed over in a buffer of exactly its size, so
 * ASan sees a read past its NUL. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../vmm/verdict/ktap.h"
#include "fuzz_harness.h"

static FILE *devnull;

static void check_state(const struct ktap *k)
{
    CHECK(k->nsuites <= k->suites_cap && k->suites_cap <= KTAP_MAX_SUITES);
    CHECK(k->nfailed <= k->failed_cap && k->failed_cap <= KTAP_MAX_FAILED);
    CHECK(k->current == -1 || (k->current >= 0 && (unsigned)k->current < k->suites_cap));
    for (unsigned i = 0; i < k->nsuites; i++)
        CHECK(memchr(k->suites[i].name, 0, KTAP_NAME));
    for (unsigned i = 0; i < k->nfailed; i++)
        CHECK(memchr(k->failed[i], 0, sizeof(k->failed[i])));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!devnull && !(devnull = fopen("/dev/null", "w")))
        abort();
    struct ktap *k = malloc(sizeof(*k));
    if (!k)
        abort();
    ktap_init(k);
    size_t start = 0;
    while (start <= size) {
        const uint8_t *nl = memchr(data + start, '\n', size - start);
        size_t end = nl ? (size_t)(nl - data) : size;
        size_t n = end - start;
        char *line = malloc(n + 1);
        if (!line)
            abort();
        memcpy(line, data + start, n);
        line[n] = 0;
        ktap_line(k, line);
        free(line);
        check_state(k);
        start = end + 1;
    }
    bool complete = ktap_complete(k), passed = ktap_passed(k);
    CHECK(!passed || complete);
    /* A pass tested something, and no case of it failed. */
    CHECK(!passed || (!ktap_no_suites(k) && !k->nfailed && !k->failed_unnamed));
    /* A suite cut short is never part of a pass, and its last case is one it reported. */
    CHECK(!ktap_unfinished(k) || (!passed && !complete));
    CHECK(!ktap_unfinished_last_case(k) || ktap_unfinished(k));
    ktap_summary(k, devnull);
    ktap_free(k);
    free(k);
    return 0;
}
