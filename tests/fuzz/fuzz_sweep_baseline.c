/* libFuzzer harness for the --sweep-baseline FILE of --fault-sweep
 * (vmm/tools/sweep_matrix.c): the matrix an earlier sweep wrote, read by
 * sweep_verdict (jansson) and held against this sweep's cells, which
 * sweep_plan_cells plans as fault_sweep.c does.
 *
 * Input format: a --fail-on byte (bit k: outcome k), a mode byte (bit 0
 * the mode below; bits 1-2 the run's shard count % 4, 0 a whole sweep;
 * bits 3-7 its shard, % the count),
 * a call count byte (% 9) and the calls (seq u16, the kinds that apply
 * u32, the address AllocatePages got: a byte, in pages), for each cell
 * planned an outcome byte (% FAULT_OUTCOMES), then by mode:
 *   0 the baseline file: the rest
 *   1 the matrix sweep_write_json writes for these cells, with patches (a
 *     count byte, each a u16 offset % its size and a byte)
 *
 * Checks, from sweep_matrix.h: the verdict is EXIT_OK, EXIT_SWEEP_FAILED
 * or EXIT_USAGE; EXIT_USAGE exactly when the file is not JSON with a
 * cells array; otherwise a cell whose outcome --fail-on names fails the
 * sweep; a matrix written for the same cells, unpatched, with no cell
 * --fail-on names, passes when no two cells share a spec. abort()
 * otherwise. */
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../vmm/host/log.h"
#include "../../vmm/tools/sweep_matrix.h"
#include "../../vmm/verdict/exit_status.h"
#include "fuzz_harness.h"
#include "fuzz_input.h"

#define CALLS_MAX 8

static bool specs_unique(const struct sweep_cell *cells, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        for (unsigned j = 0; j < i; j++)
            if (!strcmp(cells[i].spec, cells[j].spec))
                return false;
    return true;
}

/* What sweep_verdict must answer EXIT_USAGE to. */
static bool not_a_matrix(const char *file, size_t len)
{
    json_error_t err;
    json_t *root = json_loadb(file, len, 0, &err);
    bool bad = !json_is_array(json_object_get(root, "cells"));
    json_decref(root);
    return bad;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *devnull;
    if (!devnull) {
        devnull = fopen("/dev/null", "w");
        CHECK(devnull);
        vmm_set_log_file(devnull);
    }
    struct fuzz_in in = { data, size };
    unsigned fail_on = in_u8(&in) & ((1u << FAULT_OUTCOMES) - 1);
    uint8_t mode = in_u8(&in);
    bool written = mode & 1;
    unsigned shards = (mode >> 1) % 4, shard = shards ? 1 + (unsigned)(mode >> 3) % shards : 0;
    static struct sweep_call calls[CALLS_MAX];
    static struct sweep_cell cells[CALLS_MAX * SWEEP_CELLS_PER_CALL];
    unsigned ncalls = in_u8(&in) % (CALLS_MAX + 1), n = 0;
    uint64_t seen[INJECT_KINDS] = { 0 };
    for (unsigned i = 0; i < ncalls; i++) {
        struct sweep_call *c = &calls[i];
        memset(c, 0, sizeof(*c));
        c->seq = in_u16(&in);
        c->applies = in_u32(&in) & ((1u << INJECT_KINDS) - 1);
        c->allocated = (uint64_t)in_u8(&in) << 12;
        snprintf(c->name, sizeof(c->name), "call %u", i);
        n += sweep_plan_cells(c, seen, i, i & 1, cells + n);
        for (unsigned k = 0; k < INJECT_KINDS; k++)
            seen[k] += (c->applies >> k) & 1;
    }
    bool fails = false;
    for (unsigned i = 0; i < n; i++) {
        cells[i].outcome = (enum fault_outcome)(in_u8(&in) % FAULT_OUTCOMES);
        fails |= !cells[i].skipped && ((fail_on >> cells[i].outcome) & 1);
    }

    char *file = NULL;
    size_t len = 0;
    bool patched = false;
    if (written) {
        FILE *out = open_memstream(&file, &len);
        CHECK(out);
        const struct sweep_totals t = { "bzImage", "handover", 100, ncalls, 1.0, 2.0, 30.0, 0, 0 };
        CHECK(sweep_write_json(out, &t, calls, cells, n) == 0);
        CHECK(fclose(out) == 0);
        unsigned patches = in_u8(&in);
        for (unsigned i = 0; i < patches && len; i++) {
            size_t at = in_u16(&in) % len;
            uint8_t v = in_u8(&in);
            patched |= (uint8_t)file[at] != v;
            file[at] = (char)v;
        }
    } else {
        len = in.n;
        file = calloc(1, len ? len : 1);
        CHECK(file);
        in_bytes(&in, file, len);
    }
    FILE *baseline = fmemopen(file, len ? len : 1, "r");
    CHECK(baseline);
    if (!len)
        fgetc(baseline);   /* an empty file: at its end */
    const struct sweep_part part = { shard, shards, cells, n };
    int rc = sweep_verdict(fail_on, baseline, "baseline.json", &part, calls, cells, n);
    fclose(baseline);
    CHECK(rc == EXIT_OK || rc == EXIT_SWEEP_FAILED || rc == EXIT_USAGE);
    CHECK((rc == EXIT_USAGE) == not_a_matrix(file, len));
    if (rc != EXIT_USAGE && fails)
        CHECK(rc == EXIT_SWEEP_FAILED);
    if (written && !patched && !fails && specs_unique(cells, n))
        CHECK(rc == EXIT_OK);
    free(file);
    return 0;
}
