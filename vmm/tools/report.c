/* --report FILE: one JSON document about the boot, for machines: kernel
 * identification, entry, firmware calls by name, the memory map at
 * ExitBootServices, the boot_params and e820 the stub built, the console
 * text, VM exits and the time of each phase. Built with jansson. */
#include "report.h"

#include <errno.h>
#include <jansson.h>
#include <linux/kvm.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "../../firmware-stub/firmware.h"
#include "../../guest/guest_text.h"
#include "../../guest/page_prot.h"
#include "../verdict/e820_check.h"
#include "../verdict/milestones.h"

/* Raised when a field changes meaning or goes away (adding one does not). */
#define REPORT_SCHEMA_VERSION 3   /* 3: a run that never entered the guest ends "not-started" */

#define REPORT_CONSOLE_MAX (1u << 20)

void report_keep_map(struct report_data *r, const struct memmap *m)
{
    if (!r->map_at_ebs)
        r->map_at_ebs = malloc(sizeof(*r->map_at_ebs));
    if (r->map_at_ebs)
        *r->map_at_ebs = *m;
}

void report_keep_memattr(struct report_data *r, const struct guest_mem *gm, const struct memmap *m)
{
    if (!r->memattr_at_ebs)
        r->memattr_at_ebs = malloc(sizeof(*r->memattr_at_ebs));
    if (r->memattr_at_ebs)
        memattr_check(gm, m, r->memattr_at_ebs);
}

void report_keep_boot_params(struct report_data *r, const struct boot_params *bp)
{
    if (!r->bp_copy)
        r->bp_copy = malloc(sizeof(*bp));
    if (r->bp_copy)
        *r->bp_copy = *bp;
}

void report_keep_console(struct report_data *r, uint8_t byte)
{
    if (r->console_log_len >= REPORT_CONSOLE_MAX)
        return;
    if (!r->console_log && !(r->console_log = malloc(REPORT_CONSOLE_MAX)))
        return;
    /* Kept printable ASCII, so the report is valid UTF-8 JSON. */
    r->console_log[r->console_log_len++] = guest_text_printable(byte) || byte == '\n' || byte == '\t' ? (char)byte : '?';
}

void report_data_free(struct report_data *r)
{
    free(r->map_at_ebs);
    free(r->memattr_at_ebs);
    free(r->bp_copy);
    free(r->console_log);
    *r = (struct report_data){ NULL, NULL, NULL, NULL, 0 };
}

static json_t *hex(uint64_t v)
{
    char buf[24];
    snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)v);
    return json_string(buf);
}

static json_t *e820_json(const struct boot_e820_entry *e, unsigned n)
{
    json_t *a = json_array();
    for (unsigned i = 0; i < n; i++)
        json_array_append_new(a, json_pack("{s:o,s:o,s:s}", "start", hex(e[i].addr), "end", hex(e[i].addr + e[i].size - 1),
                                           "type", e820_type_name(e[i].type)));
    return a;
}

static json_t *memmap_json(const struct memmap *m)
{
    json_t *a = json_array();
    for (unsigned i = 0; i < m->n; i++)
        json_array_append_new(a, json_pack("{s:s,s:o,s:I,s:o}", "type", efi_memory_type_name(m->e[i].type), "start",
                                           hex(m->e[i].start), "pages", (json_int_t)m->e[i].pages, "attribute",
                                           hex(m->e[i].attribute)));
    return a;
}

static json_t *boot_params_json(const struct boot_params *bp, const struct guest_mem *mem)
{
    static struct boot_e820_entry e820[MAX_E820];
    const struct setup_header *h = &bp->hdr;
    unsigned n = e820_read(mem, bp, e820);
    return json_pack("{s:s,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:i,s:o,s:o,s:o}",
                     "efi_loader_signature", bp->efi_info.efi_loader_signature == EFI64_LOADER_SIGNATURE ? "EL64"
                     : bp->efi_info.efi_loader_signature == EFI32_LOADER_SIGNATURE ? "EL32" : "",
                     "efi_systab", hex(bp->efi_info.efi_systab | (uint64_t)bp->efi_info.efi_systab_hi << 32),
                     "efi_memmap", hex(bp->efi_info.efi_memmap | (uint64_t)bp->efi_info.efi_memmap_hi << 32),
                     "version", hex(h->version), "type_of_loader", hex(h->type_of_loader),
                     "loadflags", hex(h->loadflags), "code32_start", hex(h->code32_start),
                     "cmd_line_ptr", hex(h->cmd_line_ptr | (uint64_t)bp->ext_cmd_line_ptr << 32),
                     "ramdisk_image", hex(h->ramdisk_image | (uint64_t)bp->ext_ramdisk_image << 32),
                     "secure_boot", bp->secure_boot,
                     "ramdisk_size", hex(h->ramdisk_size | (uint64_t)bp->ext_ramdisk_size << 32),
                     "setup_data", hex(h->setup_data), "e820", e820_json(e820, n));
}

/* Exits by reason name, the nonzero ones; *total gets their sum. */
static json_t *exits_json(const uint64_t *exits, uint64_t *total)
{
    json_t *o = json_object();
    *total = 0;
    for (unsigned r = 0; r < VMM_EXIT_REASONS; r++) {
        char buf[24];
        if (!exits[r])
            continue;
        json_object_set_new(o, kvm_exit_name(r, buf, sizeof(buf)), json_integer((json_int_t)exits[r]));
        *total += exits[r];
    }
    return o;
}

/* The firmware phase (entry to ExitBootServices) and what came after. */
static json_t *exits_by_phase_json(const struct run_counters *c)
{
    uint64_t after[VMM_EXIT_REASONS], fw_total, after_total;
    for (unsigned r = 0; r < VMM_EXIT_REASONS; r++)
        after[r] = c->exits[r] - c->firmware_phase.exits[r];
    json_t *fw = exits_json(c->firmware_phase.exits, &fw_total);
    json_t *rest = exits_json(after, &after_total);
    const struct firmware_phase_exits *f = &c->firmware_phase;
    return json_pack("{s:{s:I,s:I,s:I,s:o},s:{s:I,s:o}}", "firmware", "total", (json_int_t)fw_total,
                     "firmware_calls", (json_int_t)f->firmware_calls, "port_io",
                     (json_int_t)(f->exits[KVM_EXIT_IO] - f->firmware_calls), "by_reason", fw, "after", "total",
                     (json_int_t)after_total, "by_reason", rest);
}

/* The suite a crash or hang cut short, or null. */
static json_t *unfinished_json(const struct ktap *k)
{
    const struct ktap_suite *su = ktap_unfinished(k);
    const char *last = ktap_unfinished_last_case(k);
    if (!su)
        return json_null();
    return json_pack("{s:s,s:I,s:I,s:I,s:o}", "name", su->name, "passed", (json_int_t)su->passed, "failed",
                     (json_int_t)su->failed, "skipped", (json_int_t)su->skipped, "last_case",
                     last ? json_string(last) : json_null());
}

/* The KUnit results as the KTAP reader saw them: per suite and the failed
 * cases by name. */
static json_t *kunit_json(const struct ktap *k)
{
    json_t *suites = json_array(), *failed = json_array();
    for (unsigned i = 0; i < k->nsuites; i++) {
        const struct ktap_suite *su = &k->suites[i];
        json_array_append_new(suites, json_pack("{s:s,s:b,s:I,s:I,s:I}", "name", su->name, "ok", su->ok, "passed",
                                                (json_int_t)su->passed, "failed", (json_int_t)su->failed, "skipped",
                                                (json_int_t)su->skipped));
    }
    for (unsigned i = 0; i < k->nfailed; i++)
        json_array_append_new(failed, json_string(k->failed[i]));
    /* Counts as json_int_t: the reader's are unsigned, past INT_MAX too. */
    return json_pack("{s:b,s:b,s:b,s:i,s:o,s:o,s:I,s:I,s:o}", "started", k->started, "complete", ktap_complete(k),
                     "passed", ktap_passed(k), "plan", k->plan, "suites", suites, "failed_tests", failed,
                     "suites_not_listed", (json_int_t)k->suites_dropped, "failed_tests_not_named",
                     (json_int_t)k->failed_unnamed, "unfinished_suite", unfinished_json(k));
}

/* --kunit-json: the results in the format of kunit.py's --json (the
 * kernel's tools/testing/kunit/kunit_json.py, KernelCI's test schema): a
 * "KUnit Test Group" whose sub_groups are the suites, each with its
 * test_cases. Parameterised cases are one case each, with their result. */
/* The fields kunit_json.py puts in every group. */
static int kunit_json_common(json_t *g, const char *kernel)
{
    json_t *c = json_pack("{s:s,s:s,s:s,s:n,s:n,s:n,s:s}", "arch", "x86_64", "defconfig", "", "build_environment",
                          kernel ? kernel : "", "lab_name", "kernel", "job", "git_branch", "kselftest");
    int rc = c ? json_object_update(g, c) : -1;
    json_decref(c);
    return rc;
}

/* Why the KUnit run has no whole result, or NULL when it has one: a reader
 * of the JSON must never take a run that did not finish for a pass. */
static const char *kunit_run_problem(const struct ktap *k, bool started)
{
    if (!started)
        return "run-not-started";
    if (!k->started)
        return "no-ktap-output";
    if (!ktap_complete(k))
        return "run-incomplete";
    return ktap_no_suites(k) ? "no-suites" : NULL;
}

int report_write_kunit_json(FILE *out, const struct ktap *k, const char *kernel, bool started)
{
    static const char *const status[] = { [KTAP_PASS] = "PASS", [KTAP_FAIL] = "FAIL", [KTAP_SKIP] = "SKIP" };
    json_t *groups = json_array();
    const struct ktap_suite *unfinished = ktap_unfinished(k);
    unsigned nsuites = k->nsuites + (unfinished != NULL);   /* the unfinished one is at nsuites */
    for (unsigned i = 0; i < nsuites; i++) {
        json_t *cases = json_array();
        for (unsigned c = 0; c < k->ncases; c++)
            if (k->cases[c].suite == i)
                json_array_append_new(cases, json_pack("{s:s,s:s}", "name", k->cases[c].name, "status",
                                                       status[k->cases[c].status]));
        /* The case after its last is where the run stopped: ERROR, as
         * kunit.py marks a crashed test. */
        if (i == k->nsuites)
            json_array_append_new(cases, json_pack("{s:s,s:s}", "name", "unfinished", "status", "ERROR"));
        json_t *g = json_pack("{s:s,s:[],s:o}", "name", k->suites[i].name, "sub_groups", "test_cases", cases);
        if (g && !kunit_json_common(g, kernel))
            json_array_append_new(groups, g);
    }
    /* The run's own problem is a test case of the root group, ERROR as
     * kunit.py marks a crashed test: no reader counts it as passed. */
    const char *problem = kunit_run_problem(k, started);
    json_t *run_cases = problem ? json_pack("[{s:s,s:s}]", "name", problem, "status", "ERROR") : json_array();
    json_t *root = json_pack("{s:s,s:o,s:o}", "name", "KUnit Test Group", "sub_groups", groups, "test_cases", run_cases);
    if (!root || kunit_json_common(root, kernel)) {
        errno = EILSEQ;
        return -1;
    }
    int rc = json_dumpf(root, out, JSON_INDENT(4)) || fputc('\n', out) == EOF || fflush(out) ? -1 : 0;
    json_decref(root);
    return rc;
}

/* Guest RAM the host has backed so far: the resident pages of its
 * mapping (they only grow; a page the guest never touched costs nothing). */
static uint64_t guest_ram_touched(const struct guest_mem *m)
{
    enum { CHUNK = 1 << 15 };   /* pages per mincore call */
    static unsigned char vec[CHUNK];
    uint64_t pages = m->size / GUEST_PAGE_SIZE, resident = 0;
    for (uint64_t p = 0; p < pages; p += CHUNK) {
        uint64_t n = pages - p < CHUNK ? pages - p : CHUNK;
        if (mincore(m->host + p * GUEST_PAGE_SIZE, n * GUEST_PAGE_SIZE, vec))
            return 0;
        for (uint64_t i = 0; i < n; i++)
            resident += vec[i] & 1;
    }
    return resident * GUEST_PAGE_SIZE;
}

/* What the run cost the host: the VMM's peak RSS against the guest RAM it
 * backs (the bench's bound: at most 5 MiB beyond it), and CPU time. */
static json_t *host_cost_json(const struct guest_mem *mem)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru))
        return json_null();
    json_int_t peak = (json_int_t)ru.ru_maxrss, touched = (json_int_t)(guest_ram_touched(mem) >> 10);
    return json_pack("{s:I,s:I,s:I,s:f,s:f}", "peak_rss_kib", peak, "guest_ram_touched_kib", touched,
                     "rss_beyond_guest_ram_kib", peak - touched,
                     "user_seconds", (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
                     "system_seconds", (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
}

/* Firmware calls by service name, the ones made. */
static json_t *calls_json(const uint64_t *calls_by_id)
{
    json_t *calls = json_object();
    for (unsigned id = 0; id < FW_MAX_THUNKS; id++) {
        const char *name = firmware_service_name(id);
        if (name && calls_by_id[id])
            json_object_set_new(calls, name, json_integer((json_int_t)calls_by_id[id]));
    }
    return calls;
}

/* The milestones by name, in order: null for one not reached. */
static json_t *phases_json(const double *milestone_at)
{
    json_t *phases = json_object();
    for (int m = 0; m < MILESTONE_COUNT; m++)
        json_object_set_new(phases, milestone_names[m], milestone_at[m] ? json_real(milestone_at[m]) : json_null());
    return phases;
}

/* NULL if the command or --exec-output's path is not UTF-8, which
 * jansson refuses (report_write then fails, as for the command line). */
static json_t *exec_json(const struct report_facts *f)
{
    /* --exec-output: where the command's output went (else the console). */
    return json_pack("{s:s,s:o,s:o}", "command", f->exec, "status",
                     f->exec_status_known ? json_integer(f->exec_status) : json_null(), "output_file",
                     f->exec_output ? json_string(f->exec_output) : json_null());
}

/* The memattr check: "ok", "mismatch" or "none" (no kernel found), and
 * the kernel's pages in runs. */
static json_t *memattr_json(const struct memattr_check *c)
{
    json_t *runs = json_array();
    for (unsigned i = 0; i < c->nruns; i++) {
        unsigned p = c->run[i].prot;
        json_array_append_new(runs, json_pack("{s:o,s:o,s:b,s:b,s:b}", "start", hex(c->run[i].start), "end",
                                              hex(c->run[i].end - 1), "present", !(p & PAGE_PROT_NOT_PRESENT),
                                              "read_only", !!(p & PAGE_PROT_READ_ONLY), "executable",
                                              !(p & PAGE_PROT_NO_EXECUTE)));
    }
    return json_pack("{s:s,s:o,s:o,s:o}", "check", !c->found ? "none" : c->ok ? "ok" : "mismatch", "kernel_start",
                     c->found ? hex(c->start) : json_null(), "kernel_end", c->found ? hex(c->end - 1) : json_null(),
                     "runs", runs);
}

/* --tpm: the SHA-256 bank's PCRs that were extended, by number. */
static json_t *pcrs_json(const struct fw_tpm *t)
{
    json_t *bank = json_object();
    for (unsigned i = 0; i < FW_TPM_PCRS; i++) {
        if (!(t->extended >> i & 1))
            continue;
        char key[4], value[2 * FW_TPM_DIGEST + 1];
        snprintf(key, sizeof(key), "%u", i);
        for (unsigned b = 0; b < FW_TPM_DIGEST; b++)
            snprintf(value + 2 * b, 3, "%02x", t->pcr[i][b]);
        json_object_set_new(bank, key, json_string(value));
    }
    return json_pack("{s:o}", "sha256", bank);
}

/* What was kept at ExitBootServices and at the kernel. */
static void add_kept(json_t *root, const struct report_data *d, const struct guest_mem *mem)
{
    static struct boot_e820_entry want[MEMMAP_MAX_ENTRIES];
    if (d->map_at_ebs) {
        json_object_set_new(root, "memory_map_at_exit_boot_services", memmap_json(d->map_at_ebs));
        json_object_set_new(root, "e820_from_memory_map", e820_json(want, e820_expected(d->map_at_ebs, want)));
    }
    if (d->memattr_at_ebs)
        json_object_set_new(root, "kernel_protection_at_exit_boot_services", memattr_json(d->memattr_at_ebs));
    if (d->bp_copy)
        json_object_set_new(root, "boot_params", boot_params_json(d->bp_copy, mem));
}

int report_write(FILE *out, const struct report_facts *f, const struct report_data *d)
{
    const struct run_counters *c = f->counters;
    json_t *root = json_pack(
        "{s:{s:s?,s:s,s:o,s:o},s:s,s:s,s:i,s:s,s:s,s:i,s:{s:I,s:o},s:{s:I,s:I,s:I,s:I,s:I,s:I},s:o}",
        "kernel", "path", f->kernel, "version", f->kernel_version, "protocol", hex(f->protocol),
        "xloadflags", hex(f->xloadflags),
        "entry", f->entry,
        "cmdline", f->cmdline,
        "exit_status", f->exit_status, "end_reason", f->end_reason,
        "handover_version", HANDOVER_VERSION, "report_schema", REPORT_SCHEMA_VERSION,
        "firmware_calls", "total", (json_int_t)f->firmware_calls, "by_name", calls_json(f->calls_by_id),
        "vm_exits", "io", (json_int_t)c->exits[KVM_EXIT_IO], "firmware_calls", (json_int_t)c->hypercalls,
        "emulation_fallbacks", (json_int_t)c->fallbacks, "mmio", (json_int_t)c->exits[KVM_EXIT_MMIO],
        "interrupted", (json_int_t)c->exits[KVM_EXIT_INTR], "internal_error",
        (json_int_t)c->exits[KVM_EXIT_INTERNAL_ERROR],
        "phase_seconds", phases_json(f->milestone_at));
    json_t *exec = f->exec ? exec_json(f) : NULL;
    if (!root || (f->exec && !exec)) {
        json_decref(root);
        json_decref(exec);
        errno = EILSEQ;   /* jansson refuses strings that are not UTF-8: the command line, the path, --exec's */
        return -1;
    }
    /* Where a run that never entered the guest stopped: options, outputs,
     * image, files (--initrd, --add, --dtb) or host (/dev/kvm, KVM). */
    json_object_set_new(root, "not_started_at", f->not_started_at ? json_string(f->not_started_at) : json_null());
    /* The status the top-level image ended with (Exit, or its entry's
     * return); null if it did not end so. */
    json_object_set_new(root, "efi_status", f->efi_status ? json_string(f->efi_status) : json_null());
    json_object_set_new(root, "vm_exits_by_phase", exits_by_phase_json(c));
    json_object_set_new(root, "host", host_cost_json(f->mem));
    add_kept(root, d, f->mem);
    if (exec)
        json_object_set_new(root, "exec", exec);
    if (f->kunit)
        json_object_set_new(root, "kunit", kunit_json(f->kunit));
    if (f->tpm)
        json_object_set_new(root, "pcrs", pcrs_json(f->tpm));
    if (f->secure_boot)
        json_object_set_new(root, "secure_boot", json_string(f->secure_boot));
    json_object_set_new(root, "console", json_stringn(d->console_log ? d->console_log : "", d->console_log_len));
    /* The flush's result counts: stdio may drop what a failed flush could
     * not write, and the fclose after it then succeeds (/dev/full). */
    int rc = json_dumpf(root, out, JSON_INDENT(2)) || fputc('\n', out) == EOF || fflush(out) || ferror(out) ? -1 : 0;
    json_decref(root);
    return rc;
}
