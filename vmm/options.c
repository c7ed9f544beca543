/* The option table: each option once, with its help text and how its value
 * is taken. getopt's list and --help come from it; the man page is --help
 * run through help2man (Makefile), so the three cannot drift. */
#include "options.h"

#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../firmware-stub/firmware.h"
#include "../firmware-stub/keys.h"
#include "../guest/layout.h"
#include "verdict/exit_status.h"
#include "verdict/fault_outcome.h"
#include "host/log.h"

#define DEFAULT_CMDLINE "console=ttyS0 earlyprintk=serial"
#define HELP_COLUMN     25   /* where help text starts in --help */
/* A number defined elsewhere, as help text (SWEEP_MAX_SNAPSHOTS). */
#define HELP_STR(x)     HELP_STR_(x)
#define HELP_STR_(x)    #x

enum opt_kind {
    KIND_STRING,    /* a const char * field takes the value */
    KIND_FLAG,      /* a bool field is set */
    KIND_SIZE,      /* a uint64_t field takes a size with K/M/G suffix */
    KIND_CALL,      /* set() takes the value */
};

struct option_def {
    const char *name;
    char short_name;          /* a one-letter alias, or 0 */
    int arg;                  /* no_argument, required_argument, optional_argument */
    const char *metavar;      /* shown after the name in --help */
    const char *help;         /* lines of at most 62 columns, separated by \n */
    enum opt_kind kind;
    size_t field;             /* offsetof(struct vmm_options, ...) for the kinds that store */
    int (*set)(struct vmm_options *o, const char *arg);   /* KIND_CALL: 0, or -1 with the reason logged */
};

#define OPT_STRING(n, f, meta, h) { n, 0, required_argument, meta, h, KIND_STRING, offsetof(struct vmm_options, f), NULL }
#define OPT_BOOLEAN(n, f, h)      { n, 0, no_argument, NULL, h, KIND_FLAG, offsetof(struct vmm_options, f), NULL }
#define OPT_SIZE(n, f, h)         { n, 0, required_argument, "SIZE", h, KIND_SIZE, offsetof(struct vmm_options, f), NULL }
#define OPT_CALLBACK(n, arg, meta, h, fn) { n, 0, arg, meta, h, KIND_CALL, 0, fn }

/* Decimal, or hexadecimal after 0x; never octal, as strtoull's base 0
 * would read "010" (eight). */
static unsigned long long read_number(const char *s, char **end)
{
    return strtoull(s, end, s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 16 : 10);
}

/* A plain count: decimal or 0x hexadecimal digits only, no suffix. */
static int parse_count(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    if (*s < '0' || *s > '9')
        return -1;
    unsigned long long v = read_number(s, &end);
    if (errno || end == s || *end)
        return -1;
    *out = v;
    return 0;
}

/* Digits (decimal or 0x hexadecimal), then K, M or G (KiB, MiB, GiB, with
 * an optional "B" or "iB"). Not a sign or a space: strtoull would take
 * "-1" as 2^64 - 1. */
static int parse_size(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    if (*s < '0' || *s > '9')
        return -1;
    unsigned long long v = read_number(s, &end);
    if (errno || end == s)
        return -1;
    unsigned shift = 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    case 0: break;
    default: return -1;
    }
    if (*end == 'i' && end[1] == 'B')
        end += 2;
    else if (*end == 'B')
        end++;
    if (*end || v > (UINT64_MAX >> shift))
        return -1;
    *out = (uint64_t)v << shift;
    return 0;
}

static int set_initrd_via(struct vmm_options *o, const char *a)
{
    if (!strcmp(a, "loadfile2"))
        o->initrd_via = INITRD_VIA_LOADFILE2;
    else if (!strcmp(a, "bootparams"))
        o->initrd_via = INITRD_VIA_BOOTPARAMS;
    else {
        vmm_log("--initrd-via %s: expected loadfile2 or bootparams", a);
        return -1;
    }
    o->initrd_via_given = true;
    return 0;
}

static int set_cpus(struct vmm_options *o, const char *a)
{
    uint64_t v;
    if (parse_count(a, &v) || v < 1 || v > VMM_MAX_CPUS) {
        vmm_log("--cpus %s: give a number from 1 to %d", a, VMM_MAX_CPUS);
        return -1;
    }
    o->cpus = (unsigned)v;
    return 0;
}

/* A bare number is MiB, as QEMU's -m and vng's --memory read it. Bare
 * means no suffix, whatever its last digit: 0x1ff was read as bytes. */
static int set_mem(struct vmm_options *o, const char *a)
{
    uint64_t count;
    bool bare = !parse_count(a, &count);
    if (parse_size(a, &o->mem) || (bare && o->mem > (UINT64_MAX >> 20)))
        o->mem = 0;
    else if (bare)
        o->mem <<= 20;
    if (!o->mem || o->mem < GUEST_MIN_MEM || o->mem > GUEST_MAX_MEM || (o->mem & 0xfffff)) {
        vmm_log("--mem %s: give a whole number of MiB between 64M and 32G, e.g. 512M or 1024", a);
        return -1;
    }
    return 0;
}

static int set_entry(struct vmm_options *o, const char *a)
{
    if (!strcmp(a, "handover"))
        o->entry = ENTRY_HANDOVER;
    else if (!strcmp(a, "pe"))
        o->entry = ENTRY_PE;
    else {
        vmm_log("--entry %s: expected handover or pe", a);
        return -1;
    }
    o->entry_given = true;
    return 0;
}

static int set_cmdline(struct vmm_options *o, const char *a)
{
    o->cmdline = a;
    o->cmdline_given = true;
    return 0;
}

/* Repeatable, each STR added after those before it: a second
 * --cmdline-append took the first's place, and its words were lost. */
static int set_cmdline_append(struct vmm_options *o, const char *a)
{
    static char joined[FW_CMDLINE_MAX];
    if (!o->cmdline_append) {
        o->cmdline_append = a;
        return 0;
    }
    size_t have = strlen(o->cmdline_append), add = strlen(a);
    if (have + 1 + add >= sizeof(joined)) {
        vmm_log("--cmdline-append: %zu bytes with those before it, a command line takes at most %zu", have + 1 + add,
                sizeof(joined) - 1);
        return -1;
    }
    memmove(joined, o->cmdline_append, have);
    joined[have] = ' ';
    memcpy(joined + have + 1, a, add + 1);
    o->cmdline_append = joined;
    return 0;
}

static int set_firmware_bits(struct vmm_options *o, const char *a)
{
    if (strcmp(a, "32") && strcmp(a, "64")) {
        vmm_log("--firmware-bits %s: expected 32 or 64", a);
        return -1;
    }
    o->firmware_bits = (unsigned)atoi(a);
    return 0;
}

static int set_stop_at(struct vmm_options *o, const char *a)
{
    if (strcmp(a, "ebs")) {
        vmm_log("--stop-at %s: the only stop point is ebs", a);
        return -1;
    }
    o->stop_at = STOP_AT_EBS;
    return 0;
}

static int parse_seconds(const char *option, const char *a, unsigned *out)
{
    uint64_t v;
    if (parse_count(a, &v) || v == 0 || v > 86400) {
        vmm_log("--%s %s: give whole seconds, 1 to 86400", option, a);
        return -1;
    }
    *out = (unsigned)v;
    return 0;
}

static int set_timeout(struct vmm_options *o, const char *a)
{
    return parse_seconds("timeout", a, &o->timeout);
}

/* 0 is a setting here: no watchdog. */
static int set_watchdog(struct vmm_options *o, const char *a)
{
    uint64_t v;
    if (parse_count(a, &v) || v > 86400) {
        vmm_log("--watchdog %s: give whole seconds, 0 (none) to 86400", a);
        return -1;
    }
    o->watchdog = (unsigned)v;
    o->watchdog_given = true;
    return 0;
}

static int set_cell_timeout(struct vmm_options *o, const char *a)
{
    return parse_seconds("cell-timeout", a, &o->cell_timeout);
}

/* --shard K/N: the cells of the sweep's plan are numbered from 1; this
 * run takes those whose number is K modulo N, so that N runs with K = 1..N
 * take every cell once, and their matrices merge into the whole one. */
static int set_shard(struct vmm_options *o, const char *a)
{
    char *end = (char *)a;
    errno = 0;
    unsigned long k = 0, n = 0;
    /* Digits first: strtoul takes spaces and a sign, and reads
     * "-18446744073709551615" as 1. */
    if (*a >= '0' && *a <= '9')
        k = strtoul(a, &end, 10);
    if (!errno && end != a && *end == '/' && end[1] >= '0' && end[1] <= '9')
        n = strtoul(end + 1, &end, 10);
    if (errno || *end || !n || n > SWEEP_MAX_SHARDS || !k || k > n) {
        vmm_log("--shard %s: give K/N with 1 <= K <= N <= %d, e.g. 1/4", a, SWEEP_MAX_SHARDS);
        return -1;
    }
    o->shard = (unsigned)k;
    o->shards = (unsigned)n;
    return 0;
}

static int set_load_addr(struct vmm_options *o, const char *a)
{
    if (parse_size(a, &o->load_addr) || !o->load_addr || (o->load_addr & 0xfff)) {
        vmm_log("--load-addr %s: give a page-aligned address such as 0x4000000", a);
        return -1;
    }
    return 0;
}

static int set_add(struct vmm_options *o, const char *a)
{
    if (o->nadds == ADD_MAX_SPECS) {
        vmm_log("--add: at most %d", ADD_MAX_SPECS);
        return -1;
    }
    o->adds[o->nadds++] = a;
    return 0;
}

static int set_trace(struct vmm_options *o, const char *a)
{
    o->trace_path = a ? a : "-";
    return 0;
}

static int set_inject(struct vmm_options *o, const char *a)
{
    char err[160];
    if (inject_parse(&o->inject, a, err, sizeof(err))) {
        vmm_log("%s", err);
        return -1;
    }
    return 0;
}

static int set_keys(struct vmm_options *o, const char *a)
{
    char err[200];
    if (keys_check(a, err, sizeof(err))) {
        vmm_log("%s", err);
        return -1;
    }
    o->keys = a;
    return 0;
}

static int set_seed(struct vmm_options *o, const char *a)
{
    if (parse_count(a, &o->seed)) {
        vmm_log("--seed %s: give a number", a);
        return -1;
    }
    o->seeded = true;
    return 0;
}

static int set_fault_sweep(struct vmm_options *o, const char *a)
{
    o->fault_sweep = true;
    o->sweep_json = a;
    o->stop_at = STOP_AT_EBS;
    return 0;
}

/* --fail-on: a comma-separated list of fault outcome names, or "none".
 * A list that names nothing ("", ",") is refused: it was read as none. */
static int set_fail_on(struct vmm_options *o, const char *list)
{
    if (!list[strspn(list, ",")]) {
        vmm_log("--fail-on '%s': name the outcomes (comma-separated), or give none", list);
        return -1;
    }
    o->sweep_fail_on = 0;
    o->sweep_fail_on_given = true;
    if (!strcmp(list, "none"))
        return 0;
    char buf[256];
    if (strlen(list) >= sizeof(buf)) {
        vmm_log("--fail-on: %zu bytes, at most %zu bytes of outcome names", strlen(list), sizeof(buf) - 1);
        return -1;
    }
    snprintf(buf, sizeof(buf), "%s", list);
    for (char *save = NULL, *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        int k = -1;
        for (int i = 0; i < FAULT_OUTCOMES; i++)
            if (!strcmp(w, fault_outcome_names[i]))
                k = i;
        if (k < 0) {
            char known[256];
            size_t n = 0;
            for (int i = 0; i < FAULT_OUTCOMES && n < sizeof(known); i++)
                n += (size_t)snprintf(known + n, sizeof(known) - n, "%s, ", fault_outcome_names[i]);
            vmm_log("--fail-on %s: unknown outcome '%s' (%sor none)", list, w, known);
            return -1;
        }
        o->sweep_fail_on |= 1u << k;
    }
    return 0;
}

/* --help and --version end the run: 0 only when stdout took it all, as
 * for any output not written whole (docs/exit-status.md, status 3). The
 * write that failed may be one the printing made (stdio flushes a full
 * buffer as it goes), with nothing left for the last flush to fail on:
 * errno, zeroed before the printing, then holds its reason. */
static _Noreturn void exit_printed(void)
{
    int printing = errno;
    errno = 0;
    if (fflush(stdout) || ferror(stdout)) {
        int e = errno ? errno : printing;
        vmm_log("stdout: write failed%s%s", e ? ": " : "", e ? strerror(e) : "");
        exit(EXIT_HOST);
    }
    exit(EXIT_OK);
}

static int show_version(struct vmm_options *o, const char *a)
{
    (void)o, (void)a;
    errno = 0;
    printf("handover %s\n", HANDOVER_VERSION);
    exit_printed();
}

static int show_help(struct vmm_options *o, const char *a)
{
    (void)o, (void)a;
    errno = 0;
    print_usage(stdout);
    exit_printed();
}

/* In the order --help lists them. */
static const struct option_def options[] = {
    OPT_STRING("initrd", initrd, "FILE", "load an initramfs, placed below the kernel's initrd_addr_max"),
    OPT_CALLBACK("initrd-via", required_argument, "loadfile2|bootparams",
                 "how the stub gets the initrd: the LINUX_EFI_INITRD_MEDIA\n"
                 "LoadFile2 device path, or boot_params ramdisk_image\n"
                 "(default: bootparams for --entry handover, loadfile2 for pe)", set_initrd_via),
    OPT_CALLBACK("cmdline", required_argument, "STR",
                 "kernel command line (default: \"" DEFAULT_CMDLINE "\");\n"
                 "for an EFI application, its LoadOptions (none by default)", set_cmdline),
    OPT_CALLBACK("cmdline-append", required_argument, "STR",
                 "add STR to the command line (the default one or --cmdline's);\n"
                 "repeatable, each added after those before it", set_cmdline_append),
    OPT_CALLBACK("cpus", required_argument, "N", "vCPUs, 1..64 (default 1), listed in the ACPI MADT", set_cpus),
    OPT_BOOLEAN("no-acpi", no_acpi, "no ACPI tables (then no SMP, and no ACPI power-off)"),
    OPT_CALLBACK("mem", required_argument, "SIZE",
                 "guest RAM, with suffix K, M or G, or a bare number of MiB\n"
                 "(default 512M; 64M..32G)", set_mem),
    OPT_CALLBACK("entry", required_argument, "handover|pe",
                 "handover: efi_main(handle, systab, boot_params) at\n"
                 "startup_64 + handover_offset (RDI/RSI/RDX); pe: the PE/COFF\n"
                 "entry efi_pe_entry(handle, systab) with the Microsoft x64\n"
                 "ABI, so the stub builds boot_params itself (default handover,\n"
                 "pe for a kernel without the handover entry); an APP.efi is\n"
                 "always entered as pe", set_entry),
    OPT_CALLBACK("firmware-bits", required_argument, "32|64",
                 "the firmware's width (default 64); 32: an IA-32 firmware,\n"
                 "its tables and calls 32-bit, entering a mixed-mode kernel\n"
                 "(CONFIG_EFI_MIXED) at startup_32 + handover_offset in\n"
                 "32-bit protected mode (with --entry pe at the IA-32 entry\n"
                 "its .compat section lists), or an IA-32 (PE32) APP.efi at\n"
                 "its entry point", set_firmware_bits),
    OPT_CALLBACK("stop-at", required_argument, "ebs",
                 "stop when the stub, after a successful ExitBootServices,\n"
                 "jumps to the kernel; print the boot_params it built and\n"
                 "check its e820 table against the firmware's memory map", set_stop_at),
    OPT_CALLBACK("timeout", required_argument, "SEC", "give up after SEC seconds with exit status 124", set_timeout),
    OPT_CALLBACK("watchdog", required_argument, "SEC",
                 "the firmware's watchdog, armed as the image starts (UEFI\n"
                 "2.10 section 3.1.2), the image's SetWatchdogTimer calls\n"
                 "re-arming or disarming it; expiring before ExitBootServices,\n"
                 "it resets the platform: exit status 12 (default 300 for an\n"
                 "EFI application, as a boot manager arms it; none for a\n"
                 "bzImage, whose stub never disarms it; 0: none)", set_watchdog),
    OPT_CALLBACK("load-addr", required_argument, "ADDR", "load the kernel at ADDR instead of pref_address",
                 set_load_addr),
    OPT_STRING("exec", exec, "CMD",
               "run CMD as the guest's init job and exit with its status\n"
               "(without --initrd, handover packs /init and the host's\n"
               "/bin/busybox, from busybox-static, as the initramfs)"),
    OPT_STRING("exec-output", exec_output, "FILE",
               "write the command's stdout and stderr to FILE, apart from the\n"
               "kernel's console: the guest gets a second UART (ttyS1)"),
    OPT_STRING("snapshot", snapshot, "DIR",
               "warm boots for --exec: the first run saves the VM in DIR\n"
               "when /init is ready for a command, later runs with the same\n"
               "kernel, initrd and options restore it and run their own"),
    OPT_CALLBACK("add", required_argument, "HOST[:GUEST]",
                 "put a host file into the initramfs (repeatable), at GUEST or\n"
                 "in / by its name; an x86-64 ELF program brings its interpreter\n"
                 "and the libraries it needs: --exec ./my-test --add build/my-test\n"
                 "(a dynamic one for another machine, i386 say, is refused)", set_add),
    OPT_STRING("dtb", dtb, "auto|FILE",
               "pass a device tree as SETUP_DTB setup_data (handover entry):\n"
               "auto builds one (memory, CPUs, serial, bootargs)"),
    OPT_STRING("esp", esp, "DIR",
               "serve DIR as the EFI system partition: a volume with\n"
               "SimpleFileSystem on a device HD(1,GPT,...), and that disk,\n"
               "FAT32 in GPT, with BlockIo for loaders that read disks\n"
               "(GRUB); read once at the start; the guest's writes stay in\n"
               "memory, never in DIR; an image inside DIR is loaded from it\n"
               "(LoadedImage.FilePath)"),
    OPT_BOOLEAN("kunit", kunit,
                "read the kernel's KUnit results (KTAP) from the console,\n"
                "print a summary per suite and end when the run ends:\n"
                "exit 0 all passed, 1 a test failed, 7 run incomplete\n"
                "(adds kunit_shutdown=reboot to the command line)"),
    OPT_STRING("kunit-json", kunit_json, "FILE", "also write the results as kunit.py --json does (KernelCI)"),
    OPT_STRING("report", report_path, "FILE",
               "write a JSON boot report (calls, memory map, e820, console,\n"
               "exits, phase times) to FILE"),
    OPT_CALLBACK("trace-efi", optional_argument, "FILE",
                 "one JSON line per firmware call to FILE (default stderr,\n"
                 "where handover's own messages then become JSON lines too)", set_trace),
    OPT_BOOLEAN("no-emulation-fallbacks", no_emulation_fallbacks,
                "do not adapt to the host: no automatic noxsave, no\n"
                "instructions performed for the host (vmm/x86/emulate.c)"),
    OPT_BOOLEAN("tpm", tpm,
                "serve EFI_TCG2_PROTOCOL: measurements extend SHA-256 PCRs kept\n"
                "in the VMM and go to a TCG2 event log (no TPM device after\n"
                "ExitBootServices); --report gives the PCRs"),
    OPT_STRING("tpm-log", tpm_log, "FILE",
               "with --tpm: write the binary event log to FILE as it stood\n"
               "at ExitBootServices (or at the run's end)"),
    OPT_STRING("secure-boot", secure_boot, "KEYDIR",
               "Secure Boot: enrol KEYDIR's db.auth, dbx.auth, KEK.auth and\n"
               "PK.auth (sign-efi-sig-list's files; those present), then\n"
               "LoadImage and the image itself must be signed by a db key\n"
               "(Authenticode) or have their hash in db, and not in dbx"),
    OPT_CALLBACK("seed", required_argument, "N", "make EFI_RNG_PROTOCOL deterministic (reproducible traces)", set_seed),
    OPT_CALLBACK("keys", required_argument, "STRING",
                 "keys for ConIn.ReadKeyStroke, one a call, in order, then no\n"
                 "more; ConIn.WaitForKey is signaled while some remain. Escapes:\n"
                 "\\n or \\r Enter, \\e Escape, \\t Tab, \\b Backspace, \\\\ a\n"
                 "backslash, \\U \\D \\L \\R arrows (e.g. --keys '\\D\\D\\n')", set_keys),
    OPT_CALLBACK("inject", required_argument, "SPEC",
                 "inject a firmware fault (repeatable, once per fault); SPEC is\n"
                 "one of the faults listed below", set_inject),
    OPT_CALLBACK("fault-sweep", optional_argument, "FILE",
                 "boot once to ExitBootServices with a snapshot at every firmware\n"
                 "call a fault applies to; then restore each snapshot in a new\n"
                 "VM with one fault armed, run to ExitBootServices or failure,\n"
                 "and print the call x fault -> outcome matrix (retried,\n"
                 "fell-back, failed-cleanly, crashed, hung, bad-e820); FILE\n"
                 "gets it as JSON. Implies --stop-at ebs; one vCPU; its seccomp\n"
                 "allow-list adds the KVM requests of making a VM per cell", set_fault_sweep),
    OPT_CALLBACK("cell-timeout", required_argument, "SEC",
                 "a sweep cell still running after SEC seconds is hung\n"
                 "(default --timeout, else 4 times what the boot without\n"
                 "faults took from the cell's call on, plus 60 s)",
                 set_cell_timeout),
    OPT_SIZE("sweep-memory", sweep_memory,
             "host memory the sweep's snapshots may hold (default 1G, at most\n"
             HELP_STR(SWEEP_MAX_SNAPSHOTS) " snapshots); past it the later calls are not swept"),
    OPT_CALLBACK("fail-on", required_argument, "OUTCOMES",
                 "sweep cells with these outcomes (comma-separated, or none) make\n"
                 "the sweep exit 9 (default crashed,hung,bad-e820)", set_fail_on),
    OPT_STRING("sweep-baseline", sweep_baseline, "FILE", "a --fault-sweep matrix: cells whose outcome differs exit 9"),
    OPT_CALLBACK("shard", required_argument, "K/N",
                 "run only the sweep's cells K, K+N, K+2N, ... of its plan: N\n"
                 "runs (on N machines) with K = 1..N run every cell once", set_shard),
    OPT_SIZE("console-limit", console_limit, "print at most SIZE bytes of guest console output (default 64M)"),
    OPT_SIZE("trace-limit", trace_limit, "write at most SIZE bytes of trace (default 256M)"),
    OPT_BOOLEAN("quiet", quiet, "fewer progress messages on stderr"),
    OPT_CALLBACK("version", no_argument, NULL, "print the version and exit", show_version),
    { "help", 'h', no_argument, NULL, "print this help and exit", KIND_CALL, 0, show_help },
};

#define NOPTIONS (sizeof(options) / sizeof(options[0]))

static void print_help_lines(FILE *out, const char *text, unsigned column, unsigned at)
{
    for (const char *line = text; line; ) {
        const char *nl = strchr(line, '\n');
        int len = nl ? (int)(nl - line) : (int)strlen(line);
        fprintf(out, "%*s%.*s\n", at < column ? (int)(column - at) : 0, "", len, line);
        at = 0;
        line = nl ? nl + 1 : NULL;
    }
}

/* The widest line of the exit-status table: its meanings are one line each
 * (exit_status.h), broken at a space to fit. */
#define EXIT_STATUS_WIDTH 85
#define EXIT_STATUS_INDENT "         "

/* The exit statuses (exit_status.h), as --help prints them, and so the
 * man page's EXIT STATUS (help2man, Makefile). */
static void print_exit_statuses(FILE *out)
{
    const unsigned width = EXIT_STATUS_WIDTH - (unsigned)strlen(EXIT_STATUS_INDENT);
    for (const struct exit_status_row *r = exit_status_rows; r < exit_status_rows + exit_status_nrows; r++) {
        fprintf(out, "  %-7s", r->shown);
        for (const char *line = r->meaning; *line; ) {
            size_t len = strlen(line);
            if (len > width) {
                size_t space = width;
                while (space && line[space] != ' ')
                    space--;
                len = space ? space : width;
            }
            fprintf(out, "%s%.*s\n", line == r->meaning ? "" : EXIT_STATUS_INDENT, (int)len, line);
            line += len + (line[len] == ' ');
        }
    }
}

static void print_options(FILE *out)
{
    for (const struct option_def *d = options; d < options + NOPTIONS; d++) {
        char head[80];
        int n = snprintf(head, sizeof(head), "  --%s", d->name);
        if (d->metavar)
            n += snprintf(head + n, sizeof(head) - (size_t)n, d->arg == optional_argument ? "[=%s]" : " %s",
                          d->metavar);
        if (d->short_name)
            n += snprintf(head + n, sizeof(head) - (size_t)n, ", -%c", d->short_name);
        fputs(head, out);
        /* A name too long for the column puts its help on the next line. */
        if (n + 1 >= HELP_COLUMN) {
            fputc('\n', out);
            n = 0;
        }
        print_help_lines(out, d->help, HELP_COLUMN, (unsigned)n);
    }
}

/* Each part is a paragraph help2man knows: "Usage:" and "or:" make the
 * SYNOPSIS, a heading ending in ':' over indented "TAG  text" lines a
 * list, "Examples:" the EXAMPLES section. */
void print_usage(FILE *out)
{
    fputs("Usage: handover [options] BZIMAGE\n"
          "  or:  handover [options] BZIMAGE -- COMMAND [ARG]...\n"
          "  or:  handover [options] APP.efi\n"
          "Boot a Linux bzImage through its EFI stub on KVM, with no firmware: handover\n"
          "serves every EFI call itself. APP.efi, any other PE32+ EFI application (a\n"
          "boot loader such as GRUB), is loaded and started as a boot manager would.\n"
          "A COMMAND after -- runs in the guest as --exec runs it.\n\n", out);
    print_options(out);
    char faults[4096];
    inject_help(faults, sizeof(faults), "  ");
    fprintf(out, "\nFaults for --inject SPEC:\n%s", faults);
    fputs("\nExit status:\n", out);
    print_exit_statuses(out);
    fputs("\nA guest's own status (the exit port, --exec) may be any of these numbers: the\n"
          "last line on stderr, \"handover: end: REASON, exit status N\", and --report's\n"
          "end_reason always tell them apart (guest-status, timeout, not-started, ...).\n"
          "\n"
          "--report, --kunit-json, --tpm-log and --fault-sweep=FILE appear only whole:\n"
          "written beside FILE, synced and renamed over it when complete. A run killed\n"
          "before then leaves FILE as it was; one that could not write it whole removes it.\n"
          "--trace-efi and --exec-output are written as the run goes (tail -f). The run's\n"
          "stdout or stderr (--report /dev/stdout, even >> a log file), a FIFO or a device\n"
          "is written straight through.\n"
          "\n"
          "Examples:\n"
          "  $ handover --kunit --kunit-json results.json bzImage\n"
          "  $ handover bzImage -- uname -a\n"
          "  $ handover --exec ./my-test --add build/my-test bzImage\n"
          "  $ handover --stop-at ebs --report report.json bzImage\n"
          "  $ handover --fault-sweep=matrix.json bzImage\n", out);
}

static int take(const struct option_def *d, struct vmm_options *o, const char *arg)
{
    char *field = (char *)o + d->field;
    switch (d->kind) {
    case KIND_STRING:
        /* Every such value but --exec's command names a file or folder. */
        if (!*arg && strcmp(d->metavar, "CMD")) {
            vmm_log("--%s '': an empty %s: give its path", d->name, d->metavar);
            return -1;
        }
        memcpy(field, &arg, sizeof(arg));
        return 0;
    case KIND_FLAG:
        *(bool *)field = true;
        return 0;
    case KIND_SIZE: {
        uint64_t v;
        if (parse_size(arg, &v)) {
            vmm_log("--%s %s: give a size such as 64M", d->name, arg);
            return -1;
        }
        memcpy(field, &v, sizeof(v));
        return 0;
    }
    case KIND_CALL:
        return d->set(o, arg);
    }
    return -1;
}

/* "--trace-efi trace.jsonl BZIMAGE": an option whose value is optional
 * takes it only after '=', so the next word became a second image. Returns
 * the option whose value that word probably was, or NULL. */
static const struct option_def *detached_value(char **given, int argc, const char *word)
{
    for (int i = 1; i + 1 < argc; i++) {
        if (given[i + 1] != word || strncmp(given[i], "--", 2))
            continue;
        for (const struct option_def *d = options; d < options + NOPTIONS; d++)
            if (d->arg == optional_argument && !strcmp(given[i] + 2, d->name))
                return d;
    }
    return NULL;
}

/* The words of a command given after "--", as one sh -c string: each word
 * single-quoted unless it needs no quoting, so that the guest's shell sees
 * the words as they were typed. -1 if it does not fit. */
static int join_command(char **words, int n, char *buf, size_t len)
{
    size_t at = 0;
    for (int i = 0; i < n; i++) {
        const char *w = words[i];
        bool plain = *w && strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:=,+-@%") ==
                                 strlen(w);
        if (i && at + 1 < len)
            buf[at++] = ' ';
        if (!plain && at + 1 < len)
            buf[at++] = '\'';
        for (const char *c = w; *c && at + 4 < len; c++) {
            if (*c == '\'' && !plain) {
                memcpy(buf + at, "'\\''", 4);
                at += 4;
            } else {
                buf[at++] = *c;
            }
        }
        if (!plain && at + 1 < len)
            buf[at++] = '\'';
        if (at + 4 >= len)
            return -1;
    }
    buf[at] = 0;
    return 0;
}

/* The words getopt took no option for: the image, and after a "--" the
 * command to run as --exec (as vng and vmtest take it). GNU getopt moves
 * these words after the options, the "--" that ended them just before,
 * in their order; given (argv as it was) says which came after the "--". */
static int take_words(int argc, char **argv, char **given, const char *last_optarg, struct vmm_options *o)
{
    int dash = argc;   /* index in given of the "--" that ended the options */
    for (int i = 1; optind > 1 && i < argc; i++)
        if (given[i] == argv[optind - 1] && argv[optind - 1] != last_optarg && !strcmp(given[i], "--"))
            dash = i;
    int nafter = dash < argc ? argc - 1 - dash : 0, nimages = argc - optind - nafter;
    if (nimages > 1) {
        const struct option_def *d = detached_value(given, argc, argv[optind]);
        if (d)
            vmm_log("--%s %s: --%s takes its %s only as --%s=%s; '%s' was read as a second BZIMAGE", d->name,
                    argv[optind], d->name, d->metavar, d->name, d->metavar, argv[optind]);
        else
            vmm_log("more than one BZIMAGE given (%s, %s): a command for the guest goes in --exec CMD, or after "
                    "--: handover BZIMAGE -- CMD", argv[optind], argv[optind + 1]);
        return EXIT_USAGE;
    }
    if (nimages < 1) {
        vmm_log("no BZIMAGE given (see --help)");
        return EXIT_USAGE;
    }
    o->kernel = argv[optind];
    if (!nafter)
        return 0;
    static char command[4096];
    if (o->exec) {
        vmm_log("a command after -- and --exec %s: give one of them", o->exec);
        return EXIT_USAGE;
    }
    if (join_command(argv + argc - nafter, nafter, command, sizeof(command))) {
        vmm_log("the command after --: at most %zu bytes", sizeof(command) - 1);
        return EXIT_USAGE;
    }
    o->exec = command;
    return 0;
}

/* getopt's '?', said of the word it came from: a letter of "-qx" is not
 * the word argv[optind - 1] (getopt stays on "-qx" until its last letter),
 * and "--quiet=1" names a known option that takes no value. */
static void refuse_option(char **argv)
{
    if (optopt >= 256 && (size_t)(optopt - 256) < NOPTIONS)
        vmm_log("--%s takes no value (see --help)", options[optopt - 256].name);
    else if (optopt > 0)
        vmm_log("unknown option -%c (see --help)", optopt);
    else
        vmm_log("unknown option %s (see --help)", argv[optind - 1]);
}

/* After a refused option the words after it are still read, for --report
 * and --kunit-json alone: a refused run writes them saying so (main.c)
 * wherever they stand, not only before the option refused. */
static bool names_result_file(const struct option_def *d)
{
    return d && d->kind == KIND_STRING &&
           (d->field == offsetof(struct vmm_options, report_path) || d->field == offsetof(struct vmm_options, kunit_json));
}

int parse_options(int argc, char **argv, struct vmm_options *o)
{
    static struct option longopts[NOPTIONS + 1];
    char shortopts[NOPTIONS + 2] = ":";   /* ':' first: a missing value comes back as ':' */
    size_t nshort = 1;
    for (size_t i = 0; i < NOPTIONS; i++) {
        longopts[i] = (struct option){ options[i].name, options[i].arg, NULL, 256 + (int)i };
        if (options[i].short_name)
            shortopts[nshort++] = options[i].short_name;
    }
    *o = (struct vmm_options){ .cmdline = DEFAULT_CMDLINE, .mem = 512ULL << 20, .entry = ENTRY_HANDOVER, .firmware_bits = 64,
                               .console_limit = 64ULL << 20, .trace_limit = 256ULL << 20, .sweep_memory = 1ULL << 30,
                               .sweep_fail_on = FAULT_FAIL_ON_DEFAULT, .cpus = 1 };
    char **given = malloc((size_t)argc * sizeof(*given));
    if (!given) {
        vmm_log("out of memory");
        return EXIT_HOST;
    }
    memcpy(given, argv, (size_t)argc * sizeof(*given));
    const char *last_optarg = NULL;
    int c, rc = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        const struct option_def *d = NULL;
        if (c >= 256 && (size_t)(c - 256) < NOPTIONS)
            d = &options[c - 256];
        for (size_t i = 0; !d && i < NOPTIONS; i++)
            if (c > 0 && c == options[i].short_name)
                d = &options[i];
        if (rc) {
            if (names_result_file(d))
                take(d, o, optarg);
        } else if (c == ':') {
            vmm_log("%s needs a value (see --help)", argv[optind - 1]);
            rc = EXIT_USAGE;
        } else if (!d) {
            refuse_option(argv);
            rc = EXIT_USAGE;
        } else if (take(d, o, optarg)) {
            rc = EXIT_USAGE;
        }
        last_optarg = optarg;
    }
    if (!rc)
        rc = take_words(argc, argv, given, last_optarg, o);
    free(given);
    return rc ? rc : validate_options(o);
}

/* Two options that need each other, or exclude each other. */
static const char *conflict(const struct vmm_options *o)
{
    if (o->sweep_baseline && !o->fault_sweep)
        return "--sweep-baseline needs --fault-sweep";
    if (o->cell_timeout && !o->fault_sweep)
        return "--cell-timeout needs --fault-sweep";
    if (o->shards && !o->fault_sweep)
        return "--shard needs --fault-sweep";
    if (o->exec_output && !o->exec)
        return "--exec-output needs --exec: it takes the output of the command --exec runs";
    if (o->kunit_json && !o->kunit)
        return "--kunit-json needs --kunit";
    if (o->snapshot && !o->exec)
        return "--snapshot needs --exec: the snapshot is of a guest whose /init waits for the command";
    if (o->snapshot && (o->cpus > 1 || o->esp || o->fault_sweep))
        return "--snapshot cannot be combined with --cpus above 1, --esp or --fault-sweep (the snapshot keeps one "
               "vCPU, and the inputs it records are the kernel, the initrd and the options)";
    if (o->sweep_fail_on_given && !o->fault_sweep)
        return "--fail-on needs --fault-sweep: it names the sweep cells' outcomes that fail the run";
    if (o->exec && !o->exec[0])
        return "--exec '': give the command to run in the guest (its /init runs it with sh -c)";
    if (o->exec && o->stop_at == STOP_AT_EBS && !o->fault_sweep)
        return "--stop-at ebs and --exec cannot be combined: the run stops at ExitBootServices, before any command runs";
    if (o->kunit && o->stop_at == STOP_AT_EBS && !o->fault_sweep)
        return "--kunit and --stop-at ebs cannot be combined: the run stops at ExitBootServices, before KUnit runs";
    if (o->kunit && o->exec)
        return "--kunit and --exec cannot be combined: the run ends when KUnit's results are in, or when the "
               "command exits";
    if (o->dtb && o->entry == ENTRY_PE)
        return "--dtb needs the handover entry: with --entry pe the stub builds boot_params itself";
    if (o->initrd_via == INITRD_VIA_BOOTPARAMS && o->entry == ENTRY_PE)
        return "--initrd-via bootparams needs --entry handover: through the PE entry the stub builds boot_params";
    if (o->firmware_bits == 32 && o->tpm)
        return "--firmware-bits 32 and --tpm cannot be combined: EFI_TCG2_PROTOCOL is served in the x64 layout only";
    if (o->snapshot && o->tpm)
        return "--snapshot and --tpm cannot be combined: the PCRs and the event log live in the VMM and are not "
               "saved, so a restored VM's --report PCRs and --tpm-log would not be those of its boot";
    if (o->firmware_bits == 32 && o->snapshot)
        return "--firmware-bits 32 and --snapshot cannot be combined: warm boots are made from x64 firmware runs only";
    return NULL;
}

int validate_options(struct vmm_options *o)
{
    const char *why = conflict(o);
    if (why) {
        vmm_log("%s", why);
        return EXIT_USAGE;
    }
    /* Checked whole here: the line is built in a buffer that would cut it
     * short (vmm/main.c), and no entry takes more (COMMAND_LINE_SIZE of x86
     * kernels, LoadOptions). */
    size_t cmdlen = strlen(o->cmdline) + (o->cmdline_append ? 1 + strlen(o->cmdline_append) : 0);
    if (cmdlen >= FW_CMDLINE_MAX) {
        vmm_log("--cmdline%s: %zu bytes, a command line takes at most %d", o->cmdline_append ? " with --cmdline-append" : "",
                cmdlen, FW_CMDLINE_MAX - 1);
        return EXIT_USAGE;
    }
    if (o->no_acpi && o->cpus > 1) {
        vmm_log("--cpus %u needs the ACPI MADT: drop --no-acpi", o->cpus);
        return EXIT_USAGE;
    }
    if (o->fault_sweep) {
        bool injected = false;
        for (unsigned k = 0; k < INJECT_KINDS; k++)
            injected |= o->inject.on[k];
        const char *bad = injected ? "--inject (the sweep arms its own faults)"
                          : o->cpus > 1 ? "--cpus above 1 (the sweep snapshots one vCPU)"
                          : o->report_path ? "--report (the matrix is the sweep's report: --fault-sweep=FILE)"
                          : o->kunit ? "--kunit" : o->exec ? "--exec" : NULL;
        if (bad) {
            vmm_log("--fault-sweep cannot be combined with %s", bad);
            return EXIT_USAGE;
        }
    }
    if (o->tpm_log && (!o->tpm || o->fault_sweep)) {
        vmm_log("--tpm-log needs --tpm%s", o->tpm ? ", and cannot be combined with --fault-sweep" : "");
        return EXIT_USAGE;
    }
    if (o->nadds && !o->initrd && !o->exec) {
        vmm_log("--add packs files into the initramfs: it needs --exec or --initrd");
        return EXIT_USAGE;
    }
    if (o->initrd_via == INITRD_VIA_DEFAULT)
        o->initrd_via = o->entry == ENTRY_PE ? INITRD_VIA_LOADFILE2 : INITRD_VIA_BOOTPARAMS;
    return 0;
}
