/* --fault-sweep (fault_sweep.h). A snapshot is taken as a firmware call
 * traps, with RIP moved back to the start of the service's thunk: a
 * restored VM executes the thunk again and makes the same call, which the
 * restored firmware then serves with the fault armed. */
#include "fault_sweep.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../../firmware-stub/guids.h"
#include "../../firmware-stub/events.h"
#include "../devices/persist.h"
#include "../host/clock.h"
#include "../kvm/snapshot.h"
#include "../../guest/mem_delta.h"
#include "../options.h"
#include "../vmm.h"
#include "sweep_matrix.h"

/* The VM at a call (the call itself is the sweep's calls[] of the same
 * index). */
struct sweep_snapshot {
    struct vcpu_state cpu;
    struct vm_state chips;
    struct firmware fw;
    struct device_snapshot dev;   /* every device on the bus, and the bus */
    struct console_line console;  /* the console's line being written */
    struct run_counters counters;
    struct mem_delta mem;   /* against the previous snapshot */
    uint64_t clock_ns;      /* the firmware's clock at the save (firmware_clock_ns) */
};

struct fault_sweep {
    struct vmm *vm;
    bool baseline;          /* the boot without faults runs: its calls are snapshotted */
    struct sweep_call *calls;
    struct sweep_snapshot *snap;
    unsigned n, cap;
    uint8_t *ref;           /* guest memory as of the latest snapshot */
    uint8_t *used;          /* bitmap: pages of ref that were ever written */
    uint8_t *changed;       /* bitmap: pages written since the latest snapshot
                             * (guest_mem.touched and KVM's dirty log) */
    bool logging;           /* KVM logs the baseline's dirty pages */
    bool logged;            /* changed holds every write since the latest snapshot */
    double start;
    double overhead;        /* seconds spent taking snapshots */
    uint64_t bytes;         /* host memory the snapshots hold */
    bool full;              /* the budget is spent: no more snapshots */
    struct sweep_cell *plan;   /* the whole sweep's cells */
    unsigned nplan;
    struct sweep_cell *cells;  /* this run's: the plan, or --shard's part of it */
    unsigned ncells;
    struct sweep_totals totals;
};

/* The size of a bitmap of guest RAM's pages. */
static size_t page_bitmap_bytes(const struct vmm *vm)
{
    return vm->mem.size / GUEST_PAGE_SIZE / 8 + 1;
}

/* The host side of a snapshot: the devices through the bus, the
 * console's line, the run's counters. */
static void save_host_state(const struct vmm *vm, struct sweep_snapshot *s)
{
    devices_save(&vm->bus, &s->dev);
    s->console = vm->console.text;
    s->counters = vm->counters;
}

static int restore_host_state(struct vmm *vm, const struct sweep_snapshot *s, uint64_t seq)
{
    if (devices_restore(&vm->bus, &s->dev)) {
        vmm_log("fault sweep: the snapshot of call %llu is of other devices than the bus has",
                (unsigned long long)seq);
        return -1;
    }
    vm->console.text = s->console;
    vm->counters = s->counters;
    return 0;
}

static void describe_call(const struct firmware *fw, unsigned id, const struct fw_call *call, char *buf, size_t len)
{
    const char *name = firmware_service_name(id);
    uint64_t gp = firmware_protocol_arg(fw, id, call);
    efi_guid_t g;
    if (gp && guest_view_read(&call->view, gp, &g, sizeof(g)) && guid_name(&g))
        snprintf(buf, len, "%s(%s)", name, guid_name(&g));
    else
        snprintf(buf, len, "%s", name ? name : "unknown");
}

/* What a snapshot holds of the host's memory, its call's record included. */
static uint64_t snapshot_bytes(const struct sweep_snapshot *s)
{
    return sizeof(*s) + sizeof(struct sweep_call) + s->mem.n * (GUEST_PAGE_SIZE + sizeof(uint64_t)) +
           firmware_copy_bytes(&s->fw);
}

/* The snapshot's memory, its delta stopped at what the budget has left: a
 * guest that dirties all its RAM between two calls cannot make the host
 * allocate a copy of it. Only the pages written since the latest snapshot
 * are compared with ref: those KVM logged the guest writing and those
 * host code was handed (guest_mem.touched); the first snapshot, or any
 * after KVM gave no log, compares every page. */
static int take_memory(struct vmm *vm, struct fault_sweep *sw, struct sweep_snapshot *s)
{
    uint64_t spent = sw->bytes + snapshot_bytes(s);
    if (sw->n + 1 > SWEEP_MAX_SNAPSHOTS || spent > vm->opt.sweep_memory)
        return MEM_DELTA_OVER_BUDGET;
    bool known = sw->logged;
    if (sw->logging && vmm_dirty_pages(vm, sw->changed)) {
        vmm_log("fault sweep: going on comparing all of guest RAM at each snapshot");
        sw->logging = false;
        known = false;   /* changed may hold part of a log */
    }
    int taken = mem_delta_take_pages(&s->mem, vm->mem.host, sw->ref, vm->mem.size,
                                     (vm->opt.sweep_memory - spent) / (GUEST_PAGE_SIZE + sizeof(uint64_t)),
                                     known ? sw->changed : NULL);
    memset(sw->changed, 0, page_bitmap_bytes(vm));
    sw->logged = sw->logging;
    return taken;
}

/* Room for one more snapshot and its call; -1 (logged) if there is none. */
static int make_room(struct fault_sweep *sw)
{
    if (sw->n < sw->cap)
        return 0;
    unsigned cap = sw->cap ? 2 * sw->cap : 32;
    struct sweep_snapshot *snap = realloc(sw->snap, cap * sizeof(*snap));
    if (snap)
        sw->snap = snap;
    struct sweep_call *calls = snap ? realloc(sw->calls, cap * sizeof(*calls)) : NULL;
    if (calls)
        sw->calls = calls;
    if (!snap || !calls) {
        vmm_log("fault sweep: out of memory for snapshots");
        return -1;
    }
    sw->cap = cap;
    return 0;
}

/* The VM's state into s: vCPU, chips, firmware and memory. 0; 1 when the
 * budget is spent (logged, nothing kept); -1 on a host error (logged). */
static int take_state(struct fault_sweep *sw, struct vcpu *c, unsigned id, struct sweep_snapshot *s)
{
    struct vmm *vm = sw->vm;
    const char *what = "";
    memset(s, 0, sizeof(*s));
    if (vcpu_state_save(vm->kvm_fd, c->fd, &s->cpu, &what) || vm_state_save(vm->vm_fd, &s->chips, &what)) {
        vmm_log("fault sweep: snapshot: %s: %s", what, strerror(errno));
        vcpu_state_free(&s->cpu);
        return -1;
    }
    s->cpu.regs.rip = firmware_thunk(&vm->fw, id);
    s->clock_ns = firmware_clock_ns(&vm->fw);
    int taken = firmware_copy(&s->fw, &vm->fw) ? -1 : take_memory(vm, sw, s);
    if (taken == 0)
        return 0;
    vcpu_state_free(&s->cpu);
    firmware_free(&s->fw);
    if (taken < 0) {
        vmm_log("fault sweep: out of memory for a snapshot");
        return -1;
    }
    vmm_log("fault sweep: the snapshot budget (%u snapshots, --sweep-memory %llu MiB) is spent at call %llu: "
            "this and later calls are not swept", SWEEP_MAX_SNAPSHOTS,
            (unsigned long long)(vm->opt.sweep_memory >> 20), (unsigned long long)(vm->fw.seq + 1));
    sw->full = true;
    return 1;
}

/* Before a call of the boot without faults is served: a snapshot, if a
 * fault applies to it. */
static int on_call(void *ctx, struct vcpu *c, unsigned id, const struct fw_call *call)
{
    struct fault_sweep *sw = ctx;
    struct vmm *vm = sw->vm;
    unsigned applies = sw->baseline ? firmware_inject_applies(&vm->fw, id, call) : 0;
    if (!applies || sw->full)
        return 0;
    double t0 = clock_seconds();
    if (make_room(sw))
        return -1;
    struct sweep_snapshot *s = &sw->snap[sw->n];
    int taken = take_state(sw, c, id, s);
    if (taken)
        return taken < 0 ? -1 : 0;
    sw->bytes += snapshot_bytes(s);
    struct sweep_call *rec = &sw->calls[sw->n];
    *rec = (struct sweep_call){ .seq = vm->fw.seq + 1, .id = id, .applies = applies,
                                .time = t0 - sw->start - sw->overhead };
    describe_call(&vm->fw, id, call, rec->name, sizeof(rec->name));
    save_host_state(vm, s);
    /* The restored VM makes this call again, and its exit is counted then. */
    run_counters_uncount_call(&s->counters);
    /* Nor does the boot without faults see the time the snapshot took:
     * its firmware's clock goes on from the snapshot's, as its cells' do. */
    firmware_clock_resume(&vm->fw, s->clock_ns);
    sw->n++;
    sw->overhead += clock_seconds() - t0;
    return 0;
}

/* After it was served: what a cell needs to know of the result. */
static void after_call(void *ctx, struct vcpu *c, unsigned id, const struct fw_call *call, uint64_t status)
{
    struct fault_sweep *sw = ctx;
    struct sweep_call *rec = sw->n ? &sw->calls[sw->n - 1] : NULL;
    if (sw->baseline && rec && rec->seq == c->vm->fw.seq)
        rec->allocated = firmware_allocated(&c->vm->fw, id, call, status);
}

const struct run_hooks fault_sweep_hooks = { .name = "fault-sweep", .before_call = on_call, .after_call = after_call };

struct fault_sweep *fault_sweep_new(struct vmm *vm)
{
    struct fault_sweep *sw = calloc(1, sizeof(*sw));
    if (!sw) {
        vmm_log("fault sweep: out of memory");
        return NULL;
    }
    sw->vm = vm;
    return sw;
}

void fault_sweep_free(struct fault_sweep *sw)
{
    for (unsigned i = 0; i < sw->n; i++) {
        vcpu_state_free(&sw->snap[i].cpu);
        firmware_free(&sw->snap[i].fw);
        mem_delta_free(&sw->snap[i].mem);
    }
    free(sw->snap);
    free(sw->calls);
    free(sw->used);
    free(sw->changed);
    free(sw->plan);
    free(sw->cells);
    if (sw->ref)
        munmap(sw->ref, sw->vm->mem.size);
    free(sw);
}

/* A fresh copy of guest RAM's size for ref, all zero pages; -1 (logged). */
static int map_reference(struct fault_sweep *sw)
{
    struct vmm *vm = sw->vm;
    if (sw->ref)
        munmap(sw->ref, vm->mem.size);
    sw->ref = mmap(NULL, vm->mem.size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (sw->ref == MAP_FAILED) {
        vmm_log("fault sweep: cannot map a copy of guest RAM: %s", strerror(errno));
        sw->ref = NULL;
        return -1;
    }
    return 0;
}

/* The pages written between two snapshots, found without comparing all
 * of guest RAM: host code's through guest_mem.touched, the guest's
 * through KVM's dirty page log (without it, every page is compared);
 * -1 (logged) if out of memory. */
static int track_writes(struct fault_sweep *sw)
{
    struct vmm *vm = sw->vm;
    sw->changed = calloc(page_bitmap_bytes(vm), 1);
    if (!sw->changed) {
        vmm_log("fault sweep: out of memory");
        return -1;
    }
    vm->mem.touched = sw->changed;
    sw->logging = !vmm_log_dirty_pages(vm);
    if (!sw->logging)
        vmm_log("fault sweep: no dirty page log: each snapshot compares all of guest RAM");
    return 0;
}

/* The boot without faults, snapshotting each call a fault applies to; it
 * must reach ExitBootServices to compare the faults with. */
static int run_baseline(struct fault_sweep *sw)
{
    struct vmm *vm = sw->vm;
    const struct run_options o = vmm_run_options(&vm->opt);
    sw->start = clock_seconds();
    if (map_reference(sw))
        return EXIT_HOST;
    if (track_writes(sw))
        return EXIT_HOST;
    sw->baseline = true;
    int base = vmm_run(vm, &o);
    sw->baseline = false;
    vm->mem.touched = NULL;
    sw->totals.base_end = clock_seconds() - sw->start;
    sw->totals.calls = vm->fw.calls;   /* the matrix's baseline.calls: before any cell runs */
    if (base != EXIT_OK || vm->fw.phase != FW_PHASE_RUNTIME) {
        vmm_log("fault sweep: the boot without faults did not reach ExitBootServices (status %d): nothing to compare "
                "the faults with", base);
        return base ? base : EXIT_GUEST_CRASH;
    }
    if (vm->fw.cfg.trace)
        fflush(vm->fw.cfg.trace);
    return EXIT_OK;
}

/* Every call's cells, then --shard's (the whole plan kept for the
 * baseline's verdict). */
static int plan(struct fault_sweep *sw)
{
    struct vmm *vm = sw->vm;
    size_t most = (size_t)sw->n * SWEEP_CELLS_PER_CALL;
    sw->plan = calloc(most ? most : 1, sizeof(*sw->plan));
    sw->cells = calloc(most ? most : 1, sizeof(*sw->cells));
    if (!sw->plan || !sw->cells)
        return EXIT_HOST;
    unsigned n = 0;
    for (unsigned i = 0; i < sw->n; i++)
        n += sweep_plan_cells(&sw->calls[i], sw->snap[i].fw.cfg.inject.seen, i, guest_mem_top(&vm->mem) > GUEST_4GIB,
                              sw->plan + n);
    sw->nplan = n;
    memcpy(sw->cells, sw->plan, n * sizeof(*sw->cells));
    sw->ncells = vm->opt.shards ? sweep_take_shard(sw->cells, n, vm->opt.shard, vm->opt.shards) : n;
    vmm_log("fault sweep: the boot without faults reached ExitBootServices in %.1f s after %llu calls; "
            "%u snapshots (%.1f s of it), %u cells", sw->totals.base_end, (unsigned long long)vm->fw.calls, sw->n,
            sw->overhead, n);
    if (vm->opt.shards)
        vmm_log("fault sweep: shard %u/%u: %u of the %u cells", vm->opt.shard, vm->opt.shards, sw->ncells, n);
    return EXIT_OK;
}

/* Back to the memory of the first snapshot, from which the cells move ref
 * forward one delta at a time as they move through the boot. */
static int rewind_reference(struct fault_sweep *sw)
{
    if (map_reference(sw))
        return EXIT_HOST;
    sw->used = calloc(page_bitmap_bytes(sw->vm), 1);
    return sw->used ? EXIT_OK : EXIT_HOST;
}

/* ref forward to the snapshot at index upto, *applied the deltas so far. */
static void advance_reference(struct fault_sweep *sw, unsigned upto, unsigned *applied)
{
    for (; *applied <= upto; (*applied)++) {
        const struct mem_delta *d = &sw->snap[*applied].mem;
        mem_delta_apply(d, sw->ref);
        for (size_t j = 0; j < d->n; j++)
            sw->used[d->page[j] / 8] |= (uint8_t)(1u << (d->page[j] % 8));
    }
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
static int restore(struct vmm *vm, const struct fault_sweep *sw, const struct sweep_snapshot *s, uint64_t seq, FILE *log)
{
    const char *what = "";
    vmm_clear_run_end(vm);
    vmm_close_vm(vm);
    if (fresh_memory(vm, sw))
        return -1;
    if (vmm_create_vm(vm) || vmm_setup_vcpu(vm, 0) || vm_state_load(vm->vm_fd, &s->chips, &what) ||
        vcpu_state_load(vm->vcpus[0].fd, &s->cpu, &what)) {
        vmm_log("fault sweep: cannot restore the snapshot of call %llu%s%s", (unsigned long long)seq,
                what[0] ? ": " : "", what);
        return -1;
    }
    firmware_free(&vm->fw);
    if (firmware_copy(&vm->fw, &s->fw)) {
        vmm_log("fault sweep: out of memory for the firmware's variables");
        return -1;
    }
    /* A cell starts later than its snapshot was taken: its firmware's
     * clock goes on from the snapshot's, so its timers and watchdog are
     * as far from due as they were then, not past deadlines long gone. */
    firmware_clock_resume(&vm->fw, s->clock_ns);
    vm->fw.cfg.trace = NULL;
    vm->fw.cfg.log = log;
    /* The image's text stays out of the log the cell's ending is read
     * from (a line of it could read as one); its last line is the
     * firmware's last_line, which the detail quotes. */
    vm->fw.cfg.console = NULL;
    return restore_host_state(vm, s, seq);
}

/* What a cell's run is given: quiet, nothing printed of the console, its
 * own log; --cell-timeout, else --timeout, else enough for what was left
 * of the boot without faults, with room for a slower path. */
static struct run_options cell_options(const struct fault_sweep *sw, const struct sweep_call *call, FILE *log)
{
    const struct vmm_options *o = &sw->vm->opt;
    unsigned given = o->cell_timeout ? o->cell_timeout : o->timeout;
    struct run_options r = vmm_run_options(o);
    r.timeout = given ? given : (unsigned)(4 * (sw->totals.base_end - call->time)) + 60;
    r.timeout_name = "the sweep cell's timeout";
    r.console_limit = 0;
    r.quiet = true;
    r.log = log;
    return r;
}

/* A cell's log (its run's lines, handover's own among them) on stderr,
 * each line marked: what made handover fail in it. */
static void print_cell_log(const char *spec, const char *log)
{
    vmm_log("fault sweep: the log of cell %s:", spec);
    for (const char *l = log; l && *l;) {
        const char *nl = strchr(l, '\n');
        int n = nl ? (int)(nl - l) : (int)strlen(l);
        vmm_log("fault sweep:   | %.*s", n, l);
        l += n + (nl != NULL);
    }
}

/* Cell i's outcome and detail from its run (exit status rc, its log):
 * EXIT_OK, or, for a run that says nothing of the stub (a signal stopped
 * it, or handover itself failed), the status the sweep ends with. */
static int judge_cell(struct fault_sweep *sw, unsigned i, int rc, const char *log, double seconds)
{
    struct vmm *vm = sw->vm;
    struct sweep_cell *cell = &sw->cells[i];
    const struct fault_run run = vmm_fault_run(vm, rc);
    char why[64];
    if (!fault_run_judged(&run, why, sizeof(why))) {
        vmm_log("fault sweep: cell %u of %u not judged: %s: no matrix", i + 1, sw->ncells, why);
        if (!run.signal)
            print_cell_log(cell->spec, log);
        return run.signal ? EXIT_SIGNAL_BASE + run.signal : EXIT_HOST;
    }
    cell->status = rc;
    cell->outcome = fault_outcome(&vm->fw.cfg.inject, cell->kind, &run);
    const struct sweep_cell_end end = { log, rc, vm->ctl.stop == GUEST_EXIT_PORT, vm->ctl.exit_status,
                                        vm->fw.last_line };
    sweep_cell_detail(&end, cell->detail, sizeof(cell->detail));
    cell->seconds = seconds;
    return EXIT_OK;
}

/* Restore cell i's snapshot, arm its fault, run and judge it: EXIT_OK,
 * or the status the sweep ends with (logged): EXIT_HOST if the cell could
 * not run, or a cell no outcome can be judged from (a signal, handover's
 * own failure) stops the sweep, not only its cell. */
static int run_cell(struct fault_sweep *sw, unsigned i)
{
    struct vmm *vm = sw->vm;
    struct sweep_cell *cell = &sw->cells[i];
    const struct sweep_snapshot *s = &sw->snap[cell->snap];
    const struct sweep_call *call = &sw->calls[cell->snap];
    char *log = NULL;
    size_t log_len = 0;
    FILE *logf = open_memstream(&log, &log_len);
    if (!logf) {
        vmm_log("fault sweep: open_memstream: %s", strerror(errno));
        return EXIT_HOST;
    }
    double t0 = clock_seconds();
    int rc = -1;
    char err[128];
    struct inject *in = &vm->fw.cfg.inject;
    if (restore(vm, sw, s, call->seq, logf))
        goto out;
    *in = (struct inject){ .on = { false } };
    memcpy(in->seen, s->fw.cfg.inject.seen, sizeof(in->seen));
    if (inject_parse(in, cell->spec, err, sizeof(err))) {
        vmm_log("fault sweep: %s", err);
        goto out;
    }
    firmware_inject_memmap(&vm->fw);
    const struct run_options o = cell_options(sw, call, logf);
    rc = vmm_run(vm, &o);
out:
    fclose(logf);
    int status = rc >= 0 ? judge_cell(sw, i, rc, log, clock_seconds() - t0)
                         : vmm_step_end(vm, EXIT_HOST, "while a sweep cell was made ready");
    free(log);
    return status;
}

/* Every cell in turn, until one stops the sweep. */
static int run_cells(struct fault_sweep *sw)
{
    unsigned applied = 0;
    for (unsigned i = 0; i < sw->ncells; i++) {
        struct sweep_cell *cell = &sw->cells[i];
        const struct sweep_call *call = &sw->calls[cell->snap];
        advance_reference(sw, cell->snap, &applied);
        if (cell->skipped)
            continue;
        int rc = run_cell(sw, i);
        if (rc != EXIT_OK)
            return rc;
        sw->totals.cells_time += cell->seconds;
        /* A boot of its own would first run up to the call (as long as
         * the baseline took to get there, less its snapshots). */
        sw->totals.one_boot_each += call->time + cell->seconds;
        vmm_log("fault sweep: %u/%u: call %llu %s, %s: %s (%.1f s)", i + 1, sw->ncells, (unsigned long long)call->seq,
                call->name, cell->spec, fault_outcome_names[cell->outcome], cell->seconds);
    }
    return EXIT_OK;
}

/* The table, the verdict, and the JSON matrix if asked for. */
static int conclude(struct fault_sweep *sw)
{
    struct vmm *vm = sw->vm;
    struct sweep_totals *t = &sw->totals;
    t->kernel = vm->opt.kernel;
    t->entry = vmm_entry_name(vm);
    t->snapshots = sw->n;
    t->shard = vm->opt.shard;
    t->shards = vm->opt.shards;
    sweep_print(stdout, t, sw->calls, sw->cells, sw->ncells);
    const struct sweep_part part = { vm->opt.shard, vm->opt.shards, sw->plan, sw->nplan };
    int rc = sweep_verdict(vm->opt.sweep_fail_on, vm->files.sweep_baseline, vm->opt.sweep_baseline, &part, sw->calls,
                           sw->cells, sw->ncells);
    struct whole_output *matrix = &vm->files.sweep_matrix;
    if (matrix->f && vmm_whole_finish(matrix, sweep_write_json(matrix->f, t, sw->calls, sw->cells, sw->ncells))) {
        vmm_log("--fault-sweep=%s: cannot write the matrix: %s", vm->opt.sweep_json, strerror(errno));
        rc = EXIT_HOST;
    }
    return rc;
}

int fault_sweep_run(struct fault_sweep *sw)
{
    int rc = run_baseline(sw);
    if (rc == EXIT_OK)
        rc = plan(sw);
    if (rc == EXIT_OK)
        rc = rewind_reference(sw);
    if (rc != EXIT_OK)
        return rc;
    rc = run_cells(sw);
    if (rc == EXIT_OK)
        rc = conclude(sw);
    /* The sweep ends as the sweep: its status, or the signal that stopped it. */
    if (!sw->vm->run.stopped_by_signal)
        vmm_clear_run_end(sw->vm);
    return rc;
}
