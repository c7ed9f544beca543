/* The --fault-sweep matrix (sweep_matrix.h). */
#include "sweep_matrix.h"

#include <errno.h>
#include <jansson.h>
#include <string.h>

#include "../host/log.h"
#include "../../guest/guest_text.h"
#include "../verdict/exit_status.h"

unsigned sweep_plan_cells(const struct sweep_call *call, const uint64_t *seen, unsigned i, bool ram_above_4g,
                          struct sweep_cell *out)
{
    unsigned n = 0;
    for (unsigned k = 0; k < INJECT_KINDS; k++) {
        if (!(call->applies & (1u << k)))
            continue;
        for (unsigned variant = 0; variant < (k == INJECT_GMM_TOO_SMALL ? 2u : 1u); variant++) {
            struct inject in = { .on = { false } };
            in.on[k] = true;
            in.value[k] = 1 + variant;
            if (k == INJECT_ALLOC_PAGES_FAIL || k == INJECT_ALLOC_POOL_FAIL)
                in.value[k] = seen[k] + 1;
            else if (k == INJECT_ALLOC_PAGES_ABOVE)
                in.value[k] = call->allocated;
            if (inject_faults[k].takes_from)
                in.from[k] = seen[k] + 1;
            struct sweep_cell *c = &out[n++];
            memset(c, 0, sizeof(*c));
            c->snap = i;
            c->kind = (enum inject_kind)k;
            inject_spec(&in, (enum inject_kind)k, c->spec, sizeof(c->spec));
            if (k == INJECT_ALLOC_PAGES_ABOVE && !call->allocated) {
                c->skipped = true;
                snprintf(c->detail, sizeof(c->detail), "the call failed without a fault");
            }
            if (k == INJECT_NO_LOW_FREE && !ram_above_4g) {
                c->skipped = true;
                snprintf(c->detail, sizeof(c->detail), "needs RAM above 4 GiB (--mem 5G)");
            }
        }
    }
    return n;
}

unsigned sweep_take_shard(struct sweep_cell *cells, unsigned n, unsigned k, unsigned shards)
{
    unsigned kept = 0;
    for (unsigned i = k - 1; i < n; i += shards)
        cells[kept++] = cells[i];
    return kept;
}

/* The first line of log that starts with what, after handover's prefix
 * (vmm_log) or without it (the --stop-at ebs summary); NULL if none. Only
 * a line's start: guest text stays inside the line it was logged in
 * (escaped, no newline of its own), after some words of handover's. */
static const char *line_starting(const char *log, const char *what)
{
    static const char prefix[] = "handover: ";
    for (const char *p = log; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        const char *s = strncmp(p, prefix, sizeof(prefix) - 1) ? p : p + sizeof(prefix) - 1;
        if (!strncmp(s, what, strlen(what)))
            return s;
    }
    return NULL;
}

/* The cell's log line that says how the run ended. */
static void cell_ending(const struct sweep_cell_end *e, char *buf, size_t len)
{
    static const char *const ends[] = { "guest stopped: ", "the image ", "timeout: ", "kernel panic: ",
                                        "e820-check: ", "stop-at ebs: " };
    if (e->exit_port) {
        snprintf(buf, len, "the guest wrote %d to the exit port", e->exit_port_status);
        return;
    }
    for (size_t i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
        const char *p = line_starting(e->log, ends[i]);
        if (!p)
            continue;
        size_t n = strcspn(p, "\n");
        snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), p);
        /* What the image said last on ConOut (libstub's efi_err/efi_info,
         * systemd-stub's assertion). */
        const char *said = e->conout[0] ? e->conout : NULL;
        if (said && strlen(buf) + 12 < len)
            snprintf(buf + strlen(buf), len - strlen(buf), " after \"%s\"", said);
        return;
    }
    snprintf(buf, len, "exit status %d", e->status);
}

/* That line escaped: the cell's log holds what the image wrote to ConOut
 * as it wrote it, and the detail goes to the table and the matrix. */
void sweep_cell_detail(const struct sweep_cell_end *e, char *buf, size_t len)
{
    char raw[sizeof(((struct sweep_cell *)0)->detail)];
    cell_ending(e, raw, sizeof(raw));
    guest_text_escape(buf, len, raw);
}

static const char *outcome_name(const struct sweep_cell *c)
{
    return c->skipped ? "skipped" : fault_outcome_names[c->outcome];
}

void sweep_print(FILE *out, const struct sweep_totals *t, const struct sweep_call *calls, const struct sweep_cell *cells,
                 unsigned n)
{
    fprintf(out, "%5s  %-40s %-26s %-15s %s\n", "call", "service", "fault (--inject)", "outcome", "how it ended");
    for (unsigned i = 0; i < n; i++) {
        const struct sweep_call *c = &calls[cells[i].snap];
        fprintf(out, "%5llu  %-40s %-26s %-15s %s\n", (unsigned long long)c->seq, c->name, cells[i].spec,
                outcome_name(&cells[i]), cells[i].detail);
    }
    fprintf(out, "fault sweep: %.1f s (the boot without faults %.1f s, %u cells %.1f s); one boot per fault would take "
            "about %.1f s: %.1fx faster\n", t->base_end + t->cells_time, t->base_end, n, t->cells_time,
            t->one_boot_each, t->one_boot_each / (t->base_end + t->cells_time));
    fflush(out);
}

int sweep_write_json(FILE *out, const struct sweep_totals *t, const struct sweep_call *calls,
                     const struct sweep_cell *cells, unsigned n)
{
    json_t *rows = json_array();
    for (unsigned i = 0; i < n; i++) {
        const struct sweep_call *c = &calls[cells[i].snap];
        json_t *row = json_pack("{s:I, s:s, s:s, s:s, s:s, s:f}", "seq", (json_int_t)c->seq, "call", c->name, "fault",
                                inject_faults[cells[i].kind].name, "inject", cells[i].spec, "outcome",
                                outcome_name(&cells[i]), "seconds", cells[i].seconds);
        json_object_set_new(row, "detail", json_string(cells[i].detail));
        if (!cells[i].skipped)
            json_object_set_new(row, "status", json_integer(cells[i].status));
        json_array_append_new(rows, row);
    }
    double sweep = t->base_end + t->cells_time;
    json_t *root = json_pack("{s:s, s:s, s:{s:I, s:I, s:f}, s:o, s:{s:f, s:f, s:f}}", "kernel", t->kernel,
                             "entry", t->entry, "baseline", "calls", (json_int_t)t->calls, "snapshots",
                             (json_int_t)t->snapshots, "seconds", t->base_end, "cells", rows, "seconds", "sweep", sweep,
                             "one_boot_per_fault_estimate", t->one_boot_each, "speedup", t->one_boot_each / sweep);
    /* A shard's matrix says which one it is, so that scripts/sweep-merge.py
     * can tell a whole set from a partial one. */
    if (root && t->shards)
        json_object_set_new(root, "shard", json_pack("{s:I, s:I}", "index", (json_int_t)t->shard, "count",
                                                     (json_int_t)t->shards));
    if (!root) {
        errno = EILSEQ;   /* jansson refuses strings that are not UTF-8: the kernel's path */
        return -1;
    }
    int rc = !json_dumpf(root, out, JSON_INDENT(1)) && fputc('\n', out) != EOF && !fflush(out) ? 0 : -1;
    json_decref(root);
    return rc;
}

/* The outcome the baseline matrix gives the cell's spec: "absent" if
 * none, NULL if its row has no outcome string. */
static const char *baseline_outcome(const json_t *rows, const char *spec)
{
    size_t j;
    json_t *row;
    json_array_foreach(rows, j, row) {
        const char *s = json_string_value(json_object_get(row, "inject"));
        if (s && !strcmp(s, spec))
            return json_string_value(json_object_get(row, "outcome"));
    }
    return "absent";
}

static bool run_has_cell(const struct sweep_cell *cells, unsigned n, const char *spec)
{
    for (unsigned i = 0; i < n; i++)
        if (!strcmp(cells[i].spec, spec))
            return true;
    return false;
}

/* Is row j of the baseline a cell this run should have made and did not?
 * A baseline of a shard is that shard's whole: its rows count in the same
 * shard only. A whole baseline's row counts when the sweep's plan lacks
 * it (the call is gone), in the shard its number gives (rows K, K+N, ...:
 * sweep_take_shard's), so that one shard of N reports it; a cell another
 * shard makes is that shard's to compare. */
static bool row_missing(const json_t *base, size_t j, const char *spec, const struct sweep_part *part,
                        const struct sweep_cell *cells, unsigned n)
{
    const json_t *of = json_object_get(base, "shard");
    if (spec && run_has_cell(cells, n, spec))
        return false;
    if (of)
        return part->shards && json_integer_value(json_object_get(of, "index")) == part->shard &&
               json_integer_value(json_object_get(of, "count")) == part->shards;
    if (spec && run_has_cell(part->plan, part->nplan, spec))
        return false;
    return !part->shards || j % part->shards == part->shard - 1;
}

/* The baseline's cells the run did not make (a call that is gone), each
 * logged. */
static int missing_from_run(const json_t *base, const json_t *rows, const struct sweep_part *part,
                            const struct sweep_cell *cells, unsigned n)
{
    int missing = 0;
    size_t j;
    json_t *row;
    json_array_foreach(rows, j, row) {
        const char *spec = json_string_value(json_object_get(row, "inject"));
        const char *then = json_string_value(json_object_get(row, "outcome"));
        if (!row_missing(base, j, spec, part, cells, n))
            continue;
        char shown[2 * sizeof(cells->spec)], was[64];
        guest_text_escape(shown, sizeof(shown), spec ? spec : "?");
        guest_text_escape(was, sizeof(was), then ? then : "?");
        vmm_log("fault sweep: cell %s: absent, the baseline says %s", shown, was);
        missing++;
    }
    return missing;
}

/* The cells that differ from the baseline, and the baseline's the run did
 * not make, each logged; -1 if it is not a matrix. */
static int differ_from_baseline(FILE *baseline, const char *name, const struct sweep_part *part,
                                const struct sweep_cell *cells, unsigned n)
{
    json_error_t err;
    json_t *base = json_loadf(baseline, 0, &err);
    json_t *rows = base ? json_object_get(base, "cells") : NULL;
    if (!json_is_array(rows)) {
        vmm_log("--sweep-baseline %s: not a --fault-sweep matrix: %s", name, base ? "no cells array" : err.text);
        json_decref(base);
        return -1;
    }
    int differ = 0;
    for (unsigned i = 0; i < n; i++) {
        const char *now_outcome = outcome_name(&cells[i]), *then = baseline_outcome(rows, cells[i].spec);
        if (!then || strcmp(then, now_outcome)) {
            vmm_log("fault sweep: cell %s: %s, the baseline says %s", cells[i].spec, now_outcome, then ? then : "?");
            differ++;
        }
    }
    differ += missing_from_run(base, rows, part, cells, n);
    json_decref(base);
    return differ;
}

int sweep_verdict(unsigned fail_on, FILE *baseline, const char *baseline_name, const struct sweep_part *part,
                  const struct sweep_call *calls, const struct sweep_cell *cells, unsigned n)
{
    unsigned bad = 0;
    int differ = 0;
    for (unsigned i = 0; i < n; i++)
        if (!cells[i].skipped && (fail_on >> cells[i].outcome) & 1) {
            vmm_log("fault sweep: cell %s at call %llu %s: %s (--fail-on)", cells[i].spec,
                    (unsigned long long)calls[cells[i].snap].seq, calls[cells[i].snap].name,
                    fault_outcome_names[cells[i].outcome]);
            bad++;
        }
    if (baseline && (differ = differ_from_baseline(baseline, baseline_name, part, cells, n)) < 0)
        return EXIT_USAGE;
    if (bad || differ) {
        vmm_log("fault sweep: %u cells with an outcome --fail-on names, %d that differ from the baseline", bad, differ);
        return EXIT_SWEEP_FAILED;
    }
    return EXIT_OK;
}
