/* --fault-sweep (fault_sweep.h). A snapshot is taken as a firmware call
 * traps, with RIP moved back to the start of the service's thunk: a
 * restored VM executes the thunk again and makes the same call, which the
 * restored firmware then serves with the fault armed. */
#include "fault_sweep.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../../firmware-stub/guids.h"
#include "../verdict/fault_outcome.h"
#include "../devices/persist.h"
#include "../kvm/snapshot.h"
#include "../../guest/guest_text.h"
#include "../../guest/mem_delta.h"
#include "../vmm.h"
#include "clock.h"

struct fault_run vmm_fault_run(const struct vmm *vm, int rc)
{
    return (struct fault_run){ .exit_status = rc, .reached_ebs = vm->fw.phase == FW_PHASE_RUNTIME,
                               .guest_stopped = vm->ctl.stop != GUEST_RUNNING, .e820_mismatch = vm->e820_mismatch };
}

struct sweep_snapshot {
    uint64_t seq;           /* the call's number in the trace */
    unsigned id;
    char call[96];          /* "LocateProtocol(EFI_RNG_PROTOCOL)" */
    unsigned applies;       /* bit k: inject kind k applies */
    uint64_t allocated;     /* AllocatePages: the address it got, 0 if none */
    double time;            /* seconds into the baseline boot */
    struct vcpu_state cpu;
    struct vm_state chips;
    struct firmware fw;
    struct device_snapshot dev;   /* every device on the bus, and the bus */
    struct console_line console;  /* the console's line being written */
    struct run_counters counters;
    struct mem_delta mem;   /* against the previous snapshot */
};

struct sweep_cell {
    unsigned snap;
    enum inject_kind kind;
    char spec[64];          /* the --inject SPEC a single run uses */
    enum fault_outcome outcome;
    int status;             /* the cell's exit status */
    char detail[200];
    double seconds;
    bool skipped;
};

struct fault_sweep {
    struct sweep_snapshot *snap;
    unsigned n, cap;
    uint8_t *ref;           /* guest memory as of the latest snapshot */
    uint8_t *used;          /* bitmap: pages of ref that were ever written */
    double start;
    double overhead;        /* seconds spent taking snapshots */
    uint64_t bytes;         /* host memory the snapshots hold */
    bool full;              /* the budget is spent: no more snapshots */
};

/* The host side of a snapshot: the devices through the bus, the
 * console's line, the run's counters. */
static void save_host_state(const struct vmm *vm, struct sweep_snapshot *s)
{
    devices_save(&vm->bus, &s->dev);
    s->console = vm->console.text;
    s->counters = vm->counters;
}

static int restore_host_state(struct vmm *vm, const struct sweep_snapshot *s)
{
    if (devices_restore(&vm->bus, &s->dev)) {
        vmm_log("fault sweep: the snapshot of call %llu is of other devices than the bus has",
                (unsigned long long)s->seq);
        return -1;
    }
    vm->console.text = s->console;
    vm->counters = s->counters;
    return 0;
}

static void describe_call(unsigned id, const struct fw_call *call, char *buf, size_t len)
{
    const char *name = firmware_service_name(id);
    uint64_t gp = firmware_protocol_arg(id, call);
    efi_guid_t g;
    if (gp && guest_view_read(&call->view, gp, &g, sizeof(g)) && guid_name(&g))
        snprintf(buf, len, "%s(%s)", name, guid_name(&g));
    else
        snprintf(buf, len, "%s", name ? name : "unknown");
}

static uint64_t snapshot_bytes(const struct sweep_snapshot *s)
{
    return sizeof(*s) + s->mem.n * (GUEST_PAGE_SIZE + sizeof(uint64_t)) + firmware_copy_bytes(&s->fw);
}

/* The snapshot's memory, its delta stopped at what the budget has left: a
 * guest that dirties all its RAM between two calls cannot make the host
 * allocate a copy of it. */
static int take_memory(const struct vmm *vm, const struct fault_sweep *sw, struct sweep_snapshot *s)
{
    uint64_t spent = sw->bytes + snapshot_bytes(s);
    if (sw->n + 1 > SWEEP_MAX_SNAPSHOTS || spent > vm->opt.sweep_memory)
        return MEM_DELTA_OVER_BUDGET;
    return mem_delta_take(&s->mem, vm->mem.host, sw->ref, vm->mem.size,
                          (vm->opt.sweep_memory - spent) / (GUEST_PAGE_SIZE + sizeof(uint64_t)));
}

int fault_sweep_on_call(struct vcpu *c, unsigned id, const struct fw_call *call)
{
    struct vmm *vm = c->vm;
    struct fault_sweep *sw = vm->sweep;
    unsigned applies = firmware_inject_applies(&vm->fw, id, call);
    if (!applies || sw->full)
        return 0;
    double t0 = now();
    if (sw->n == sw->cap) {
        unsigned cap = sw->cap ? 2 * sw->cap : 32;
        struct sweep_snapshot *p = realloc(sw->snap, cap * sizeof(*p));
        if (!p) {
            vmm_log("fault sweep: out of memory for snapshots");
            return -1;
        }
        sw->snap = p;
        sw->cap = cap;
    }
    struct sweep_snapshot *s = &sw->snap[sw->n];
    memset(s, 0, sizeof(*s));
    const char *what = "";
    if (vcpu_state_save(vm->kvm_fd, c->fd, &s->cpu, &what) || vm_state_save(vm->vm_fd, &s->chips, &what)) {
        vmm_log("fault sweep: snapshot: %s: %s", what, strerror(errno));
        vcpu_state_free(&s->cpu);
        return -1;
    }
    s->cpu.regs.rip = firmware_thunk(&vm->fw, id);
    int taken = firmware_copy(&s->fw, &vm->fw) ? -1 : take_memory(vm, sw, s);
    if (taken < 0) {
        vmm_log("fault sweep: out of memory for a snapshot");
        vcpu_state_free(&s->cpu);
        firmware_free(&s->fw);
        return -1;
    }
    if (taken == MEM_DELTA_OVER_BUDGET) {
        vmm_log("fault sweep: the snapshot budget (%u snapshots, --sweep-memory %llu MiB) is spent at call %llu: "
                "this and later calls are not swept", SWEEP_MAX_SNAPSHOTS,
                (unsigned long long)(vm->opt.sweep_memory >> 20), (unsigned long long)(vm->fw.seq + 1));
        vcpu_state_free(&s->cpu);
        firmware_free(&s->fw);
        sw->full = true;
        return 0;
    }
    sw->bytes += snapshot_bytes(s);
    s->seq = vm->fw.seq + 1;
    s->id = id;
    s->applies = applies;
    s->time = t0 - sw->start - sw->overhead;
    describe_call(id, call, s->call, sizeof(s->call));
    save_host_state(vm, s);
    /* The restored VM makes this call again, and its exit is counted then. */
    run_counters_uncount_call(&s->counters);
    sw->n++;
    sw->overhead += now() - t0;
    return 0;
}

void fault_sweep_after_call(struct vcpu *c, unsigned id, const struct fw_call *call, uint64_t status)
{
    struct fault_sweep *sw = c->vm->sweep;
    struct sweep_snapshot *s = sw->n ? &sw->snap[sw->n - 1] : NULL;
    if (s && s->seq == c->vm->fw.seq)
        s->allocated = firmware_allocated(id, call, status);
}

/* The faults tried at a snapshot: every kind that applies, gmm-too-small
 * once and twice, alloc-pages-above the address the call got (so that
 * the stub must do with memory below it). */
static unsigned plan_cells(const struct vmm *vm, const struct sweep_snapshot *s, unsigned si, struct sweep_cell *out)
{
    unsigned n = 0;
    for (unsigned k = 0; k < INJECT_KINDS; k++) {
        if (!(s->applies & (1u << k)))
            continue;
        for (unsigned variant = 0; variant < (k == INJECT_GMM_TOO_SMALL ? 2u : 1u); variant++) {
            struct inject in = { .on = { false } };
            in.on[k] = true;
            in.value[k] = 1 + variant;
            if (k == INJECT_ALLOC_PAGES_FAIL || k == INJECT_ALLOC_POOL_FAIL)
                in.value[k] = s->fw.cfg.inject.seen[k] + 1;
            else if (k == INJECT_ALLOC_PAGES_ABOVE)
                in.value[k] = s->allocated;
            if (inject_faults[k].takes_from)
                in.from[k] = s->fw.cfg.inject.seen[k] + 1;
            struct sweep_cell *c = &out[n++];
            memset(c, 0, sizeof(*c));
            c->snap = si;
            c->kind = (enum inject_kind)k;
            inject_spec(&in, (enum inject_kind)k, c->spec, sizeof(c->spec));
            if (k == INJECT_ALLOC_PAGES_ABOVE && !s->allocated) {
                c->skipped = true;
                snprintf(c->detail, sizeof(c->detail), "the call failed without a fault");
            }
            if (k == INJECT_NO_LOW_FREE && guest_mem_top(&vm->mem) <= GUEST_4GIB) {
                c->skipped = true;
                snprintf(c->detail, sizeof(c->detail), "needs RAM above 4 GiB (--mem 5G)");
            }
        }
    }
    return n;
}

/* --shard K/N: keep the cells numbered K, K+N, ... (from 1), in order. */
static unsigned take_shard(struct sweep_cell *cells, unsigned n, unsigned k, unsigned shards)
{
    unsigned kept = 0;
    for (unsigned i = k - 1; i < n; i += shards)
        cells[kept++] = cells[i];
    return kept;
}

/* The cell's log line that says how the run ended. */
static void cell_ending(const char *log, const struct vmm *vm, int rc, char *buf, size_t len)
{
    static const char *const ends[] = { "guest stopped: ", "the image ", "timeout: ", "kernel panic: ",
                                        "e820-check: ", "stop-at ebs: " };
    if (vm->ctl.stop == GUEST_EXIT_PORT) {
        snprintf(buf, len, "the guest wrote %d to the exit port", vm->ctl.exit_status);
        return;
    }
    for (size_t i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
        const char *p = log ? strstr(log, ends[i]) : NULL;
        if (!p)
            continue;
        size_t n = strcspn(p, "\n");
        snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), p);
        /* What the image said last on ConOut (libstub's efi_err/efi_info,
         * systemd-stub's assertion). */
        const char *said = vm->fw.last_line[0] ? vm->fw.last_line : NULL;
        if (said && strlen(buf) + 12 < len)
            snprintf(buf + strlen(buf), len - strlen(buf), " after \"%s\"", said);
        return;
    }
    snprintf(buf, len, "exit status %d", rc);
}

/* That line escaped: the cell's log holds what the image wrote to ConOut
 * as it wrote it, and the detail goes to the table and the matrix. */
static void cell_detail(const char *log, const struct vmm *vm, int rc, char *buf, size_t len)
{
    char raw[sizeof(((struct sweep_cell *)0)->detail)];
    cell_ending(log, vm, rc, raw, sizeof(raw));
    guest_text_escape(buf, len, raw);
}

/* New guest RAM holding the snapshot's memory: the pages ever written
 * are copied, the rest stay untouched zero pages, as in a boot of its own. */
static int fresh_memory(struct vmm *vm, const struct fault_sweep *sw)
{
    void *host = mmap(NULL, vm->mem.size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (host == MAP_FAILED) {
        vmm_log("fault sweep: cannot map guest RAM: %s", strerror(errno));
        return -1;
    }
    munmap(vm->mem.host, vm->mem.size);
    guest_mem_init(&vm->mem, host, vm->mem.size);
    for (uint64_t p = 0; p < vm->mem.size / GUEST_PAGE_SIZE; p++)
        if (sw->used[p / 8] & (1u << (p % 8)))
            memcpy(vm->mem.host + p * GUEST_PAGE_SIZE, sw->ref + p * GUEST_PAGE_SIZE, GUEST_PAGE_SIZE);
    return 0;
}

/* The VM as it was at snapshot s, in a new VM with new RAM: vCPU, chips,
 * and the host state (firmware, the devices and the run's counters). */
static int restore(struct vmm *vm, const struct fault_sweep *sw, const struct sweep_snapshot *s, FILE *log)
{
    const char *what = "";
    vmm_clear_run_end(vm);
    vmm_close_vm(vm);
    if (fresh_memory(vm, sw))
        return -1;
    if (vmm_create_vm(vm) || vmm_setup_vcpu(vm, 0) || vm_state_load(vm->vm_fd, &s->chips, &what) ||
        vcpu_state_load(vm->vcpus[0].fd, &s->cpu, &what)) {
        vmm_log("fault sweep: cannot restore the snapshot of call %llu%s%s", (unsigned long long)s->seq,
                what[0] ? ": " : "", what);
        return -1;
    }
    firmware_free(&vm->fw);
    if (firmware_copy(&vm->fw, &s->fw)) {
        vmm_log("fault sweep: out of memory for the firmware's variables");
        return -1;
    }
    vm->fw.cfg.trace = NULL;
    vm->fw.cfg.log = log;
    vm->fw.cfg.console = log;
    return restore_host_state(vm, s);
}

/* Restore the cell's snapshot, arm its fault, run; -1 on a host error. */
static int run_cell(struct vmm *vm, struct fault_sweep *sw, struct sweep_cell *cell, double base_end, unsigned timeout)
{
    const struct sweep_snapshot *s = &sw->snap[cell->snap];
    char *log = NULL;
    size_t log_len = 0;
    FILE *logf = open_memstream(&log, &log_len);
    if (!logf) {
        vmm_log("fault sweep: open_memstream: %s", strerror(errno));
        return -1;
    }
    double t0 = now();
    int rc = -1;
    char err[128];
    struct inject *in = &vm->fw.cfg.inject;
    if (restore(vm, sw, s, logf))
        goto out;
    *in = (struct inject){ .on = { false } };
    memcpy(in->seen, s->fw.cfg.inject.seen, sizeof(in->seen));
    if (inject_parse(in, cell->spec, err, sizeof(err))) {
        vmm_log("fault sweep: %s", err);
        goto out;
    }
    firmware_inject_memmap(&vm->fw);
    /* Enough for what was left of the baseline boot, with room for a
     * slower path; --cell-timeout or --timeout overrides it. */
    vm->opt.timeout = timeout ? timeout : (unsigned)(4 * (base_end - s->time)) + 60;
    vm->files.summary_out = logf;
    vmm_set_log_file(logf);
    rc = vmm_run(vm);
    vmm_set_log_file(NULL);
    vm->files.summary_out = NULL;
out:
    fclose(logf);
    if (rc >= 0) {
        cell->status = rc;
        const struct fault_run run = vmm_fault_run(vm, rc);
        cell->outcome = fault_outcome(&vm->fw.cfg.inject, cell->kind, &run);
        cell_detail(log, vm, rc, cell->detail, sizeof(cell->detail));
        cell->seconds = now() - t0;
    }
    free(log);
    return rc >= 0 ? 0 : -1;
}

static void print_table(const struct fault_sweep *sw, const struct sweep_cell *cells, unsigned n)
{
    printf("%5s  %-40s %-26s %-15s %s\n", "call", "service", "fault (--inject)", "outcome", "how it ended");
    for (unsigned i = 0; i < n; i++) {
        const struct sweep_snapshot *s = &sw->snap[cells[i].snap];
        printf("%5llu  %-40s %-26s %-15s %s\n", (unsigned long long)s->seq, s->call, cells[i].spec,
               cells[i].skipped ? "skipped" : fault_outcome_names[cells[i].outcome], cells[i].detail);
    }
}

static int write_json(FILE *out, const struct vmm *vm, const struct fault_sweep *sw, const struct sweep_cell *cells,
                      unsigned n, double base_end, double cells_time, double one_boot_each)
{
    json_t *rows = json_array();
    for (unsigned i = 0; i < n; i++) {
        const struct sweep_snapshot *s = &sw->snap[cells[i].snap];
        json_t *row = json_pack("{s:I, s:s, s:s, s:s, s:s, s:f}", "seq", (json_int_t)s->seq, "call", s->call, "fault",
                                inject_faults[cells[i].kind].name, "inject", cells[i].spec, "outcome",
                                cells[i].skipped ? "skipped" : fault_outcome_names[cells[i].outcome], "seconds",
                                cells[i].seconds);
        json_object_set_new(row, "detail", json_string(cells[i].detail));
        if (!cells[i].skipped)
            json_object_set_new(row, "status", json_integer(cells[i].status));
        json_array_append_new(rows, row);
    }
    json_t *root = json_pack("{s:s, s:s, s:{s:I, s:I, s:f}, s:o, s:{s:f, s:f, s:f}}", "kernel", vm->opt.kernel,
                             "entry", vmm_entry_name(vm), "baseline", "calls",
                             (json_int_t)vm->fw.calls, "snapshots", (json_int_t)sw->n, "seconds", base_end, "cells",
                             rows, "seconds", "sweep", base_end + cells_time, "one_boot_per_fault_estimate",
                             one_boot_each, "speedup", one_boot_each / (base_end + cells_time));
    /* A shard's matrix says which one it is, so that scripts/sweep-merge.py
     * can tell a whole set from a partial one. */
    if (root && vm->opt.shards)
        json_object_set_new(root, "shard", json_pack("{s:I, s:I}", "index", (json_int_t)vm->opt.shard, "count",
                                                     (json_int_t)vm->opt.shards));
    int rc = root && !json_dumpf(root, out, JSON_INDENT(1)) && fputc('\n', out) != EOF && !fflush(out) ? 0 : -1;
    json_decref(root);
    return rc;
}

/* Cells whose outcome --fail-on names, and cells whose outcome differs
 * from the --sweep-baseline matrix (matched by their --inject spec), make
 * the sweep fail with EXIT_SWEEP_FAILED; a baseline that cannot be read is
 * a usage error. */
static int sweep_verdict(const struct vmm *vm, const struct fault_sweep *sw, const struct sweep_cell *cells, unsigned n)
{
    unsigned bad = 0, differ = 0;
    for (unsigned i = 0; i < n; i++)
        if (!cells[i].skipped && (vm->opt.sweep_fail_on >> cells[i].outcome) & 1) {
            vmm_log("fault sweep: cell %s at call %llu %s: %s (--fail-on)", cells[i].spec,
                    (unsigned long long)sw->snap[cells[i].snap].seq, sw->snap[cells[i].snap].call,
                    fault_outcome_names[cells[i].outcome]);
            bad++;
        }
    if (vm->files.sweep_baseline) {
        json_error_t err;
        json_t *base = json_loadf(vm->files.sweep_baseline, 0, &err);
        json_t *rows = base ? json_object_get(base, "cells") : NULL;
        if (!json_is_array(rows)) {
            vmm_log("--sweep-baseline %s: not a --fault-sweep matrix: %s", vm->opt.sweep_baseline,
                    base ? "no cells array" : err.text);
            json_decref(base);
            return EXIT_USAGE;
        }
        for (unsigned i = 0; i < n; i++) {
            const char *now_outcome = cells[i].skipped ? "skipped" : fault_outcome_names[cells[i].outcome];
            const char *then = "absent";
            size_t j;
            json_t *row;
            json_array_foreach(rows, j, row) {
                const char *spec = json_string_value(json_object_get(row, "inject"));
                if (spec && !strcmp(spec, cells[i].spec)) {
                    then = json_string_value(json_object_get(row, "outcome"));
                    break;
                }
            }
            if (!then || strcmp(then, now_outcome)) {
                vmm_log("fault sweep: cell %s: %s, the baseline says %s", cells[i].spec, now_outcome,
                        then ? then : "?");
                differ++;
            }
        }
        json_decref(base);
    }
    if (bad || differ) {
        vmm_log("fault sweep: %u cells with an outcome --fail-on names, %u that differ from the baseline", bad, differ);
        return EXIT_SWEEP_FAILED;
    }
    return EXIT_OK;
}

int fault_sweep_run(struct vmm *vm)
{
    struct fault_sweep sw = { .start = now() };
    int rc = EXIT_HOST;
    struct sweep_cell *cells = NULL;
    bool cells_ran = false;
    sw.ref = mmap(NULL, vm->mem.size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (sw.ref == MAP_FAILED) {
        vmm_log("fault sweep: cannot map a copy of guest RAM: %s", strerror(errno));
        return EXIT_HOST;
    }
    unsigned timeout = vm->opt.cell_timeout ? vm->opt.cell_timeout : vm->opt.timeout;
    uint64_t console_limit = vm->opt.console_limit;
    bool quiet = vm->opt.quiet;
    vm->sweep = &sw;
    int base = vmm_run(vm);
    vm->sweep = NULL;
    double base_end = now() - sw.start;
    uint64_t base_calls = vm->fw.calls;
    if (base != EXIT_OK || vm->fw.phase != FW_PHASE_RUNTIME) {
        vmm_log("fault sweep: the boot without faults did not reach ExitBootServices (status %d): nothing to compare "
                "the faults with", base);
        rc = base ? base : EXIT_GUEST_CRASH;
        goto out;
    }
    if (vm->fw.cfg.trace)
        fflush(vm->fw.cfg.trace);
    cells = calloc((size_t)sw.n * 2 * INJECT_KINDS, sizeof(*cells));
    if (!cells)
        goto out;
    unsigned ncells = 0;
    for (unsigned i = 0; i < sw.n; i++)
        ncells += plan_cells(vm, &sw.snap[i], i, cells + ncells);
    unsigned planned = ncells;
    if (vm->opt.shards)
        ncells = take_shard(cells, ncells, vm->opt.shard, vm->opt.shards);
    vmm_log("fault sweep: the boot without faults reached ExitBootServices in %.1f s after %llu calls; "
            "%u snapshots (%.1f s of it), %u cells", base_end, (unsigned long long)base_calls, sw.n, sw.overhead,
            planned);
    if (vm->opt.shards)
        vmm_log("fault sweep: shard %u/%u: %u of the %u cells", vm->opt.shard, vm->opt.shards, ncells, planned);

    /* Back to the memory of the first snapshot, then forward one delta
     * at a time as the cells move through the boot. */
    munmap(sw.ref, vm->mem.size);
    sw.ref = mmap(NULL, vm->mem.size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (sw.ref == MAP_FAILED) {
        vmm_log("fault sweep: cannot map a copy of guest RAM: %s", strerror(errno));
        sw.ref = NULL;
        goto out;
    }
    sw.used = calloc(vm->mem.size / GUEST_PAGE_SIZE / 8 + 1, 1);
    if (!sw.used)
        goto out;
    vm->opt.console_limit = 0;
    vm->opt.quiet = true;
    double cells_time = 0, one_boot_each = 0;
    unsigned applied = 0;
    cells_ran = true;
    for (unsigned i = 0; i < ncells; i++) {
        for (; applied <= cells[i].snap; applied++) {
            const struct mem_delta *d = &sw.snap[applied].mem;
            mem_delta_apply(d, sw.ref);
            for (size_t j = 0; j < d->n; j++)
                sw.used[d->page[j] / 8] |= (uint8_t)(1u << (d->page[j] % 8));
        }
        if (cells[i].skipped)
            continue;
        if (run_cell(vm, &sw, &cells[i], base_end, timeout))
            goto out;
        if (vm->stopped_by_signal) {
            vmm_log("fault sweep: stopped by signal %d in cell %u of %u: no matrix", vm->stopped_by_signal, i + 1,
                    ncells);
            rc = EXIT_SIGNAL_BASE + vm->stopped_by_signal;
            goto out;
        }
        cells_time += cells[i].seconds;
        /* A boot of its own would first run up to the call (as long as
         * the baseline took to get there, less its snapshots). */
        one_boot_each += sw.snap[cells[i].snap].time + cells[i].seconds;
        vmm_log("fault sweep: %u/%u: call %llu %s, %s: %s (%.1f s)", i + 1, ncells,
                (unsigned long long)sw.snap[cells[i].snap].seq, sw.snap[cells[i].snap].call, cells[i].spec,
                fault_outcome_names[cells[i].outcome], cells[i].seconds);
    }
    vm->opt.console_limit = console_limit;
    vm->opt.quiet = quiet;
    print_table(&sw, cells, ncells);
    printf("fault sweep: %.1f s (the boot without faults %.1f s, %u cells %.1f s); one boot per fault would take "
           "about %.1f s: %.1fx faster\n", base_end + cells_time, base_end, ncells, cells_time, one_boot_each,
           one_boot_each / (base_end + cells_time));
    fflush(stdout);
    rc = sweep_verdict(vm, &sw, cells, ncells);
    if (vm->files.sweep_matrix && write_json(vm->files.sweep_matrix, vm, &sw, cells, ncells, base_end, cells_time,
                                       one_boot_each)) {
        vmm_log("--fault-sweep=%s: cannot write the matrix: %s", vm->opt.sweep_json, strerror(errno));
        rc = EXIT_HOST;
    }
out:
    /* The sweep ends as the sweep: its status, or the signal that stopped it. */
    if (cells_ran && !vm->stopped_by_signal)
        vmm_clear_run_end(vm);
    for (unsigned i = 0; i < sw.n; i++) {
        vcpu_state_free(&sw.snap[i].cpu);
        firmware_free(&sw.snap[i].fw);
        mem_delta_free(&sw.snap[i].mem);
    }
    free(sw.snap);
    free(sw.used);
    free(cells);
    if (sw.ref)
        munmap(sw.ref, vm->mem.size);
    return rc;
}
