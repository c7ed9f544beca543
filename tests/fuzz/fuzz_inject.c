/* libFuzzer harness for the --inject SPEC parser (firmware-stub/inject.c
 * inject_parse), and inject_spec, which writes a spec back for the
 * fault-outcome lines and the --fault-sweep cells.
 *
 * Input format: a byte naming the fault already given (% (INJECT_KINDS +
 * 1); INJECT_KINDS: none), then the spec: the rest, up to a NUL.
 *
 * Checks, from inject.h: a refused spec leaves a message that starts
 * "--inject " and changes nothing; an accepted one arms exactly one fault
 * that was not given yet, with a value of at least 1 (1 for a fault that
 * takes none) and no @K for a fault that takes none; inject_spec writes it
 * back in fewer than 64 bytes (a sweep cell's spec) as a spec that parses
 * to the same fault, value and K; and a second --inject of it is refused.
 * abort() otherwise. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../../firmware-stub/inject.h"
#include "fuzz_harness.h"
#include "fuzz_input.h"

#define SPEC_MAX 256

/* The one fault in that after differs from before (exactly one). */
static unsigned armed_kind(const struct inject *before, const struct inject *after)
{
    unsigned k = INJECT_KINDS, changed = 0;
    for (unsigned i = 0; i < INJECT_KINDS; i++)
        if (after->on[i] != before->on[i]) {
            k = i;
            changed++;
        }
    CHECK(changed == 1 && after->on[k]);
    return k;
}

/* @1 arms from the first call, as no @K does (inject_spec leaves it out). */
static uint64_t first_call(uint64_t from) { return from > 1 ? from : 1; }

/* Written back, the spec parses to the same fault, value and K. */
static void check_round_trip(const struct inject *in, unsigned k)
{
    char spec[64], err[256];
    inject_spec(in, (enum inject_kind)k, spec, sizeof(spec));
    CHECK(strlen(spec) < sizeof(spec) - 1);   /* not cut short */
    struct inject back = { .on = { false } };
    CHECK(inject_parse(&back, spec, err, sizeof(err)) == 0);
    CHECK(back.on[k] && back.value[k] == in->value[k] && first_call(back.from[k]) == first_call(in->from[k]));
    CHECK(inject_parse(&back, spec, err, sizeof(err)) == -1);   /* given twice */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_in in = { data, size };
    unsigned given = in_u8(&in) % (INJECT_KINDS + 1);
    char spec[SPEC_MAX + 1] = { 0 };
    in_bytes(&in, spec, in.n < SPEC_MAX ? in.n : SPEC_MAX);

    struct inject before, after;
    memset(&before, 0, sizeof(before));
    if (given < INJECT_KINDS) {
        before.on[given] = true;
        before.value[given] = 1;
    }
    memcpy(&after, &before, sizeof(after));
    char err[256];
    memset(err, 'x', sizeof(err));
    if (inject_parse(&after, spec, err, sizeof(err))) {
        CHECK(memchr(err, 0, sizeof(err)) && !strncmp(err, "--inject ", 9));
        CHECK(!memcmp(&after, &before, sizeof(after)));
        return 0;
    }
    unsigned k = armed_kind(&before, &after);
    const struct inject_fault *f = &inject_faults[k];
    CHECK(after.value[k] >= 1);
    CHECK(f->value != INJECT_VALUE_NONE || after.value[k] == 1);
    CHECK(f->takes_from || after.from[k] == 0);
    check_round_trip(&after, k);
    return 0;
}
