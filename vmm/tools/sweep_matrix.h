/* The --fault-sweep matrix (fault_sweep.h runs the cells): which faults
 * to try at each call a snapshot was taken at, how a cell ended, the
 * table, the JSON matrix and the sweep's verdict. Plain structs, no VM. */
#ifndef HANDOVER_SWEEP_MATRIX_H
#define HANDOVER_SWEEP_MATRIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../../firmware-stub/inject.h"
#include "../verdict/fault_outcome.h"

/* A firmware call of the boot without faults that some fault applies to. */
struct sweep_call {
    uint64_t seq;                  /* the call's number in the trace */
    unsigned id;
    char name[96];                 /* "LocateProtocol(EFI_RNG_PROTOCOL)" */
    unsigned applies;              /* bit k: inject kind k applies */
    uint64_t allocated;            /* AllocatePages: the address it got, 0 if none */
    double time;                   /* seconds into the boot without faults */
};

/* One fault at one call, and how the run from there ended. */
struct sweep_cell {
    unsigned snap;                 /* the call's index */
    enum inject_kind kind;
    char spec[64];                 /* the --inject SPEC a single run uses */
    enum fault_outcome outcome;
    int status;                    /* the cell's exit status */
    char detail[200];              /* how it ended, escaped */
    double seconds;
    bool skipped;                  /* not run: detail says why */
};

/* The most cells one call gets. */
#define SWEEP_CELLS_PER_CALL (2 * INJECT_KINDS)

/* The cells of the call at index i into out: every kind that applies,
 * gmm-too-small once and twice, alloc-pages-above the address the call
 * got. seen[k]: the calls kind k applied to before this one (the
 * firmware's count); ram_above_4g: the guest has RAM above 4 GiB. Returns
 * their number. */
unsigned sweep_plan_cells(const struct sweep_call *call, const uint64_t *seen, unsigned i, bool ram_above_4g,
                          struct sweep_cell *out);
/* --shard K/N: keep the cells numbered K, K+N, ... (from 1), in order;
 * returns how many are kept. */
unsigned sweep_take_shard(struct sweep_cell *cells, unsigned n, unsigned k, unsigned shards);

/* How a cell's run ended, as its log and the VM tell. */
struct sweep_cell_end {
    const char *log;               /* the cell's messages; NULL: none */
    int status;
    bool exit_port;                /* the guest wrote exit_port_status to the exit port */
    int exit_port_status;
    const char *conout;            /* the image's last ConOut line, "" if none */
};

/* The line that says how the cell ended, escaped, into buf. */
void sweep_cell_detail(const struct sweep_cell_end *e, char *buf, size_t len);

/* The sweep as a whole. */
struct sweep_totals {
    const char *kernel, *entry;
    uint64_t calls;                /* the boot without faults' firmware calls */
    unsigned snapshots;
    double base_end;               /* seconds the boot without faults took */
    double cells_time;             /* seconds the cells took */
    double one_boot_each;          /* the estimate of a boot per fault */
    unsigned shard, shards;        /* --shard K/N; shards 0: the whole sweep */
};

/* The table and the timing line, on out. */
void sweep_print(FILE *out, const struct sweep_totals *t, const struct sweep_call *calls, const struct sweep_cell *cells,
                 unsigned n);
/* The JSON matrix; -1 if it could not be written. */
int sweep_write_json(FILE *out, const struct sweep_totals *t, const struct sweep_call *calls,
                     const struct sweep_cell *cells, unsigned n);
/* What part of the sweep a run makes: shard K/N (shards 0: the whole
 * sweep) of plan, every cell of the whole sweep (sweep_take_shard's
 * cells before it kept the shard's). */
struct sweep_part {
    unsigned shard, shards;
    const struct sweep_cell *plan;
    unsigned nplan;
};

/* Cells whose outcome fail_on names (bit k: outcome k), cells whose
 * outcome differs from the baseline matrix (NULL: none; matched by their
 * --inject spec), and the baseline's cells the run did not make make the
 * sweep fail with EXIT_SWEEP_FAILED, each logged: of a baseline of this
 * shard, its cells this run did not make; of a whole one, its cells the
 * plan lacks (the call is gone), each by the shard its row's number gives.
 * A baseline that is not a matrix is EXIT_USAGE. */
int sweep_verdict(unsigned fail_on, FILE *baseline, const char *baseline_name, const struct sweep_part *part,
                  const struct sweep_call *calls, const struct sweep_cell *cells, unsigned n);

#endif
