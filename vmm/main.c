/* handover: boot a Linux bzImage through its own EFI stub on KVM, with a
 * fake firmware served by this process. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fault_outcome.h"
#include "add_files.h"
#include "files.h"
#include "host_probe.h"
#include "layout.h"
#include "sandbox.h"
#include "vmm.h"

#ifndef HANDOVER_VERSION
#define HANDOVER_VERSION "0.1"
#endif

#define DEFAULT_CMDLINE "console=ttyS0 earlyprintk=serial"
#define DEFAULT_MEM     (512ULL << 20)
#define MAX_IMAGE_SIZE  (256u << 20)

static void usage(FILE *out)
{
    char faults[2048];
    inject_help(faults, sizeof(faults), "                           ");
    fprintf(out,
"usage: handover [options] BZIMAGE\n"
"Boot a Linux bzImage through its EFI stub on KVM, with no firmware: handover\n"
"serves every EFI call itself.\n"
"\n"
"  --initrd FILE          load an initramfs, placed below the kernel's initrd_addr_max\n"
"  --initrd-via loadfile2|bootparams\n"
"                         how the stub gets the initrd: the LINUX_EFI_INITRD_MEDIA\n"
"                         LoadFile2 device path, or boot_params ramdisk_image\n"
"                         (default: bootparams for --entry handover, loadfile2 for pe)\n"
"  --cmdline STR          kernel command line (default: \"" DEFAULT_CMDLINE "\")\n"
"  --cmdline-append STR   add STR to the command line (the default one or --cmdline's)\n"
"  --cpus N               vCPUs, 1..64 (default 1), listed in the ACPI MADT\n"
"  --no-acpi              no ACPI tables (then no SMP, and no ACPI power-off)\n"
"  --mem SIZE             guest RAM, with suffix K, M or G (default 512M; 64M..32G)\n"
"  --entry handover|pe    handover: efi_main(handle, systab, boot_params) at\n"
"                         startup_64 + handover_offset (RDI/RSI/RDX); pe: the PE/COFF\n"
"                         entry efi_pe_entry(handle, systab) with the Microsoft x64\n"
"                         ABI, so the stub builds boot_params itself (default handover)\n"
"  --stop-at ebs          stop when the stub, after a successful ExitBootServices,\n"
"                         jumps to the kernel; print the boot_params it built and\n"
"                         check its e820 table against the firmware's memory map\n"
"  --timeout SEC          give up after SEC seconds with exit status 124\n"
"  --load-addr ADDR       load the kernel at ADDR instead of pref_address\n"
"  --exec CMD             run CMD as the guest's init job and exit with its status\n"
"                         (initramfs from scripts/build-initramfs.sh unless --initrd)\n"
"  --add HOST[:GUEST]     put a host file into the initramfs (repeatable), at GUEST or\n"
"                         in / by its name; an ELF program brings its interpreter and\n"
"                         the libraries it needs: --exec ./my-test --add build/my-test\n"
"  --dtb auto|FILE        pass a device tree as SETUP_DTB setup_data (handover entry):\n"
"                         auto builds one (memory, CPUs, serial, bootargs)\n"
"  --kunit                read the kernel's KUnit results (KTAP) from the console,\n"
"                         print a summary per suite and end when the run ends:\n"
"                         exit 0 all passed, 1 a test failed, 7 run incomplete\n"
"                         (adds kunit_shutdown=reboot to the command line)\n"
"  --kunit-json FILE      also write the results as kunit.py --json does (KernelCI)\n"
"  --report FILE          write a JSON boot report (calls, memory map, e820, console,\n"
"                         exits, phase times) to FILE\n"
"  --trace-efi[=FILE]     one JSON line per firmware call to FILE (default stderr)\n"
"  --no-emulation-fallbacks\n"
"                         do not adapt to the host: no automatic noxsave, no\n"
"                         instructions performed for the host (vmm/emulate.c)\n"
"  --seed N               make EFI_RNG_PROTOCOL deterministic (reproducible traces)\n"
"  --inject SPEC          inject a firmware fault (repeatable); SPEC is one of:\n"
"%s"
"  --fault-sweep[=FILE]   boot once to ExitBootServices with a snapshot at every firmware\n"
"                         call a fault applies to; then restore each snapshot in a new\n"
"                         VM with one fault armed, run to ExitBootServices or failure,\n"
"                         and print the call x fault -> outcome matrix (retried,\n"
"                         fell-back, failed-cleanly, crashed, hung, bad-e820); FILE\n"
"                         gets it as JSON. Implies --stop-at ebs; one vCPU; a deny-list\n"
"                         seccomp filter (each cell creates a VM): no open, exec, fork\n"
"  --sweep-memory SIZE    host memory the sweep's snapshots may hold (default 1G, at most\n"
"                         1024 snapshots); past it the later calls are not swept\n"
"  --fail-on OUTCOMES     sweep cells with these outcomes (comma-separated, or none) make\n"
"                         the sweep exit 9 (default crashed,hung,bad-e820)\n"
"  --sweep-baseline FILE  a --fault-sweep matrix: cells whose outcome differs exit 9\n"
"  --console-limit SIZE   print at most SIZE bytes of guest console output (default 64M)\n"
"  --trace-limit SIZE     write at most SIZE bytes of trace (default 256M)\n"
"  --quiet                fewer progress messages on stderr\n"
"  --version, --help (-h)\n"
"\n"
"Exit status: 0 success (stop point reached, guest reset or powered off);\n"
"N the byte the guest wrote to the exit port 0xf4; 1 a KUnit test failed or\n"
"the --stop-at e820 check failed;\n"
"2 bad usage or bad image; 3 host problem (no /dev/kvm, KVM error);\n"
"4 guest crashed (triple fault, exception, emulation failure);\n"
"5 the image gave up (EFI Exit, or returned from its entry); 6 kernel panic;\n"
"7 --kunit run incomplete; 8 --exec: the guest ended without reporting the\n"
"command's status; 9 --fault-sweep: a cell failed (--fail-on, --sweep-baseline);\n"
"124 timeout; 128+N stopped by signal N.\n"
"A guest's own status (the exit port, --exec) may be any of these numbers: the\n"
"last line on stderr, \"handover: end: REASON, exit status N\", and --report's\n"
"end_reason always tell them apart (guest-status, timeout, guest-crash, ...).\n", faults);
}

/* A plain count: decimal or 0x hexadecimal digits only, no suffix. */
static int parse_count(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    if (*s < '0' || *s > '9')
        return -1;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || end == s || *end)
        return -1;
    *out = v;
    return 0;
}

static int parse_size(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
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

static void *read_image(const char *path, size_t *size)
{
    FILE *f = vmm_open_input("BZIMAGE", path);
    struct stat st;
    if (!f)
        return NULL;
    if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode) || st.st_size > (off_t)MAX_IMAGE_SIZE) {
        vmm_log("%s: not a regular file of at most %u MiB", path, MAX_IMAGE_SIZE >> 20);
        fclose(f);
        return NULL;
    }
    void *buf = malloc(st.st_size ? (size_t)st.st_size : 1);
    if (!buf || fread(buf, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
        vmm_log("%s: read failed", path);
        free(buf);
        fclose(f);
        return NULL;
    }
    fclose(f);
    *size = (size_t)st.st_size;
    return buf;
}

static bool has_word(const char *s, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = s; (p = strstr(p, word)); p += n)
        if ((p == s || p[-1] == ' ') && (p[n] == 0 || p[n] == ' '))
            return true;
    return false;
}

static void append_word(char *cmdline, size_t size, const char *word)
{
    size_t n = strlen(cmdline);
    snprintf(cmdline + n, size - n, "%s%s", n ? " " : "", word);
}

enum { OPT_INITRD = 256, OPT_INITRD_VIA, OPT_CMDLINE, OPT_MEM, OPT_ENTRY, OPT_STOP_AT, OPT_TIMEOUT, OPT_LOAD_ADDR,
       OPT_TRACE, OPT_KUNIT, OPT_CPUS, OPT_NO_ACPI, OPT_EXEC, OPT_DTB, OPT_REPORT, OPT_NO_FALLBACKS, OPT_CONSOLE_LIMIT, OPT_TRACE_LIMIT, OPT_INJECT, OPT_SEED, OPT_FAULT_SWEEP, OPT_SWEEP_MEMORY, OPT_CMDLINE_APPEND, OPT_KUNIT_JSON, OPT_ADD, OPT_FAIL_ON, OPT_SWEEP_BASELINE, OPT_QUIET, OPT_VERSION, OPT_HELP };

/* --fail-on: a comma-separated list of fault outcome names, or "none". */
static int parse_outcomes(const char *list, unsigned *mask)
{
    *mask = 0;
    if (!strcmp(list, "none"))
        return 0;
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", list);
    for (char *save = NULL, *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        int k = -1;
        for (int i = 0; i < FAULT_OUTCOMES; i++)
            if (!strcmp(w, fault_outcome_names[i]))
                k = i;
        if (k < 0) {
            vmm_log("--fail-on %s: unknown outcome '%s' (retried, fell-back, failed-cleanly, crashed, hung, bad-e820, "
                    "not-injected, or none)", list, w);
            return -1;
        }
        *mask |= 1u << k;
    }
    return 0;
}

static int parse_args(int argc, char **argv, struct vmm_options *o)
{
    static const struct option longopts[] = {
        { "initrd", required_argument, NULL, OPT_INITRD },
        { "initrd-via", required_argument, NULL, OPT_INITRD_VIA },
        { "cmdline", required_argument, NULL, OPT_CMDLINE },
        { "cmdline-append", required_argument, NULL, OPT_CMDLINE_APPEND },
        { "mem", required_argument, NULL, OPT_MEM },
        { "entry", required_argument, NULL, OPT_ENTRY },
        { "stop-at", required_argument, NULL, OPT_STOP_AT },
        { "timeout", required_argument, NULL, OPT_TIMEOUT },
        { "load-addr", required_argument, NULL, OPT_LOAD_ADDR },
        { "trace-efi", optional_argument, NULL, OPT_TRACE },
        { "kunit", no_argument, NULL, OPT_KUNIT },
        { "kunit-json", required_argument, NULL, OPT_KUNIT_JSON },
        { "cpus", required_argument, NULL, OPT_CPUS },
        { "exec", required_argument, NULL, OPT_EXEC },
        { "add", required_argument, NULL, OPT_ADD },
        { "dtb", required_argument, NULL, OPT_DTB },
        { "report", required_argument, NULL, OPT_REPORT },
        { "no-acpi", no_argument, NULL, OPT_NO_ACPI },
        { "no-emulation-fallbacks", no_argument, NULL, OPT_NO_FALLBACKS },
        { "console-limit", required_argument, NULL, OPT_CONSOLE_LIMIT },
        { "trace-limit", required_argument, NULL, OPT_TRACE_LIMIT },
        { "inject", required_argument, NULL, OPT_INJECT },
        { "seed", required_argument, NULL, OPT_SEED },
        { "fault-sweep", optional_argument, NULL, OPT_FAULT_SWEEP },
        { "sweep-memory", required_argument, NULL, OPT_SWEEP_MEMORY },
        { "fail-on", required_argument, NULL, OPT_FAIL_ON },
        { "sweep-baseline", required_argument, NULL, OPT_SWEEP_BASELINE },
        { "quiet", no_argument, NULL, OPT_QUIET },
        { "version", no_argument, NULL, OPT_VERSION },
        { "help", no_argument, NULL, OPT_HELP },
        { 0 },
    };
    *o = (struct vmm_options){ .cmdline = DEFAULT_CMDLINE, .mem = DEFAULT_MEM, .entry = ENTRY_HANDOVER,
                               .console_limit = 64ULL << 20, .trace_limit = 256ULL << 20, .sweep_memory = 1ULL << 30,
                               .sweep_fail_on = 1u << FAULT_CRASHED | 1u << FAULT_HUNG | 1u << FAULT_BAD_E820, .cpus = 1 };
    int c;
    uint64_t v;
    opterr = 0;
    /* ":h": a missing value comes back as ':', -h is --help. */
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_INITRD: o->initrd = optarg; break;
        case OPT_INITRD_VIA:
            if (!strcmp(optarg, "loadfile2")) o->initrd_via = INITRD_VIA_LOADFILE2;
            else if (!strcmp(optarg, "bootparams")) o->initrd_via = INITRD_VIA_BOOTPARAMS;
            else { vmm_log("--initrd-via %s: expected loadfile2 or bootparams", optarg); return EXIT_USAGE; }
            break;
        case OPT_CMDLINE: o->cmdline = optarg; break;
        case OPT_MEM:
            if (parse_size(optarg, &o->mem) || o->mem < LAYOUT_MIN_MEM || o->mem > LAYOUT_MAX_MEM || (o->mem & 0xfffff)) {
                vmm_log("--mem %s: give a whole number of MiB between 64M and 32G, e.g. 512M", optarg);
                return EXIT_USAGE;
            }
            break;
        case OPT_ENTRY:
            if (!strcmp(optarg, "handover")) o->entry = ENTRY_HANDOVER;
            else if (!strcmp(optarg, "pe")) o->entry = ENTRY_PE;
            else { vmm_log("--entry %s: expected handover or pe", optarg); return EXIT_USAGE; }
            break;
        case OPT_STOP_AT:
            if (strcmp(optarg, "ebs")) { vmm_log("--stop-at %s: the only stop point is ebs", optarg); return EXIT_USAGE; }
            o->stop_at = STOP_AT_EBS;
            break;
        case OPT_TIMEOUT:
            if (parse_count(optarg, &v) || v == 0 || v > 86400) {
                vmm_log("--timeout %s: give whole seconds, 1 to 86400", optarg);
                return EXIT_USAGE;
            }
            o->timeout = (unsigned)v;
            break;
        case OPT_LOAD_ADDR:
            if (parse_size(optarg, &o->load_addr) || !o->load_addr || (o->load_addr & 0xfff)) {
                vmm_log("--load-addr %s: give a page-aligned address such as 0x4000000", optarg);
                return EXIT_USAGE;
            }
            break;
        case OPT_TRACE: o->trace_path = optarg ? optarg : "-"; break;
        case OPT_KUNIT: o->kunit = true; break;
        case OPT_CPUS:
            if (parse_count(optarg, &v) || v < 1 || v > VMM_MAX_CPUS) {
                vmm_log("--cpus %s: give a number from 1 to %d", optarg, VMM_MAX_CPUS);
                return EXIT_USAGE;
            }
            o->cpus = (unsigned)v;
            break;
        case OPT_NO_ACPI: o->no_acpi = true; break;
        case OPT_EXEC: o->exec = optarg; break;
        case OPT_DTB: o->dtb = optarg; break;
        case OPT_REPORT: o->report_path = optarg; break;
        case OPT_NO_FALLBACKS: o->no_emulation_fallbacks = true; break;
        case OPT_CONSOLE_LIMIT:
        case OPT_TRACE_LIMIT:
        case OPT_SWEEP_MEMORY:
            if (parse_size(optarg, &v)) {
                vmm_log("%s %s: give a size such as 64M", c == OPT_CONSOLE_LIMIT ? "--console-limit"
                                                          : c == OPT_TRACE_LIMIT ? "--trace-limit" : "--sweep-memory",
                        optarg);
                return EXIT_USAGE;
            }
            *(c == OPT_CONSOLE_LIMIT ? &o->console_limit : c == OPT_TRACE_LIMIT ? &o->trace_limit : &o->sweep_memory) = v;
            break;
        case OPT_INJECT: {
            char err[160];
            if (inject_parse(&o->inject, optarg, err, sizeof(err))) {
                vmm_log("%s", err);
                return EXIT_USAGE;
            }
            break;
        }
        case OPT_SEED:
            if (parse_count(optarg, &o->seed)) {
                vmm_log("--seed %s: give a number", optarg);
                return EXIT_USAGE;
            }
            o->seeded = true;
            break;
        case OPT_FAULT_SWEEP: o->fault_sweep = true; o->sweep_json = optarg; o->stop_at = STOP_AT_EBS; break;
        case OPT_QUIET: o->quiet = true; break;
        case OPT_VERSION: printf("handover %s\n", HANDOVER_VERSION); exit(0);
        case OPT_HELP:
        case 'h': usage(stdout); exit(0);
        case OPT_CMDLINE_APPEND: o->cmdline_append = optarg; break;
        case OPT_KUNIT_JSON: o->kunit_json = optarg; break;
        case OPT_ADD:
            if (o->nadds == ADD_MAX_SPECS) {
                vmm_log("--add: at most %d", ADD_MAX_SPECS);
                return EXIT_USAGE;
            }
            o->adds[o->nadds++] = optarg;
            break;
        case OPT_SWEEP_BASELINE: o->sweep_baseline = optarg; break;
        case OPT_FAIL_ON:
            if (parse_outcomes(optarg, &o->sweep_fail_on))
                return EXIT_USAGE;
            break;
        case ':':
            vmm_log("%s needs a value (see --help)", argv[optind - 1]);
            return EXIT_USAGE;
        default:
            vmm_log("unknown option %s (see --help)", argv[optind - 1]);
            return EXIT_USAGE;
        }
    }
    if (o->sweep_baseline && !o->fault_sweep) {
        vmm_log("--sweep-baseline needs --fault-sweep");
        return EXIT_USAGE;
    }
    if (o->kunit_json && !o->kunit) {
        vmm_log("--kunit-json needs --kunit");
        return EXIT_USAGE;
    }
    if (o->kunit && o->exec) {
        vmm_log("--kunit and --exec cannot be combined: the run ends when KUnit's results are in, or when the command exits");
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
    if (optind != argc - 1) {
        vmm_log(optind >= argc ? "no BZIMAGE given (see --help)" : "more than one BZIMAGE given (see --help)");
        return EXIT_USAGE;
    }
    o->kernel = argv[optind];
    if (o->exec && !o->initrd) {
        static char path[4096];
        const char *home = getenv("HOME");
        snprintf(path, sizeof(path), "%s/.cache/handover/initramfs/busybox.cpio", home ? home : "");
        if (access(path, R_OK)) {
            vmm_log("--exec needs an initramfs whose /init runs the command: run handover-initramfs (installed "
                    "with handover; scripts/build-initramfs.sh in the source tree), or give --initrd");
            return EXIT_USAGE;
        }
        o->initrd = path;
    }
    if (o->nadds && !o->initrd) {
        vmm_log("--add packs files into the initramfs: it needs --exec or --initrd");
        return EXIT_USAGE;
    }
    if (o->dtb && o->entry == ENTRY_PE) {
        vmm_log("--dtb needs the handover entry: with --entry pe the stub builds boot_params itself");
        return EXIT_USAGE;
    }
    if (o->initrd_via == INITRD_VIA_BOOTPARAMS && o->entry == ENTRY_PE) {
        vmm_log("--initrd-via bootparams needs --entry handover: through the PE entry the stub builds boot_params");
        return EXIT_USAGE;
    }
    if (o->initrd_via == INITRD_VIA_DEFAULT)
        o->initrd_via = o->entry == ENTRY_PE ? INITRD_VIA_LOADFILE2 : INITRD_VIA_BOOTPARAMS;
    return 0;
}

static int boot(struct vmm *vm)
{
    char err[BZIMAGE_ERR_LEN];
    vm->image_file = read_image(vm->opt.kernel, &vm->image_file_size);
    if (!vm->image_file)
        return EXIT_USAGE;
    if (bzimage_parse(&vm->bz, vm->image_file, vm->image_file_size, err, sizeof(err)) ||
        bzimage_check_entry(&vm->bz, vm->opt.entry, err, sizeof(err))) {
        vmm_log("%s: %s", vm->opt.kernel, err);
        return EXIT_USAGE;
    }
    if (vm->opt.trace_path) {
        vm->trace = strcmp(vm->opt.trace_path, "-") ? vmm_open_output("--trace-efi", vm->opt.trace_path) : stderr;
        if (!vm->trace)
            return EXIT_USAGE;
    }
    if (vm->opt.report_path && !(vm->report = vmm_open_output("--report", vm->opt.report_path)))
        return EXIT_USAGE;
    if (vm->opt.kunit_json && !(vm->kunit_json = vmm_open_output("--kunit-json", vm->opt.kunit_json)))
        return EXIT_USAGE;
    /* Opened now: a directory or an unwritable path is found before the
     * sweep, not after it. */
    if (vm->opt.sweep_json && !(vm->sweep_matrix = vmm_open_output("--fault-sweep", vm->opt.sweep_json)))
        return EXIT_USAGE;
    if (vm->opt.sweep_baseline &&
        !(vm->sweep_baseline = vmm_open_input("--sweep-baseline", vm->opt.sweep_baseline)))
        return EXIT_USAGE;
    if (vmm_open_kvm(vm))
        return EXIT_HOST;
    snprintf(vm->cmdline, sizeof(vm->cmdline), "%s", vm->opt.cmdline);
    if (vm->opt.cmdline_append)
        append_word(vm->cmdline, sizeof(vm->cmdline), vm->opt.cmdline_append);
    if (!vm->opt.no_emulation_fallbacks && !has_word(vm->cmdline, "noxsave") && host_needs_noxsave(vm->kvm_fd)) {
        append_word(vm->cmdline, sizeof(vm->cmdline), "noxsave");
        vmm_log("this host's KVM cannot run XRSTOR for the guest: added noxsave to the command line");
    }
    if (vm->opt.kunit) {
        ktap_init(&vm->ktap);
        if (!strstr(vm->cmdline, "kunit_shutdown="))
            append_word(vm->cmdline, sizeof(vm->cmdline), "kunit_shutdown=reboot");
    }
    if (vmm_map_memory(vm) || vmm_create_vm(vm))
        return EXIT_HOST;
    for (unsigned i = 0; i < vm->opt.cpus; i++)
        if (vmm_setup_vcpu(vm, i))
            return EXIT_HOST;
    struct serial *s = &vm->serial;
    serial_init(s, vmm_console_tx, vmm_serial_irq, vm);
    struct io_device devs[] = { serial_device(s, PORT_SERIAL_COM1), i8042_data_device(&vm->ctl),
                                i8042_command_device(&vm->ctl), exit_port_device(&vm->ctl), acpi_pm_device(&vm->ctl) };
    for (size_t i = 0; i < sizeof(devs) / sizeof(devs[0]); i++)
        if (io_bus_register(&vm->bus, &devs[i])) {
            vmm_log("cannot put %s at port 0x%x on the I/O bus (full, or overlapping another device)", devs[i].name,
                    devs[i].base);
            return EXIT_HOST;
        }
    int rc = vmm_load(vm);
    if (rc)
        return rc;
    if (!vm->opt.quiet)
        vmm_log("%s: Linux boot protocol %u.%02u, %s entry at 0x%llx, image at 0x%llx (0x%llx bytes), %llu MiB RAM",
                vm->opt.kernel, vm->bz.hdr.version >> 8, vm->bz.hdr.version & 0xff,
                vm->opt.entry == ENTRY_PE ? "PE" : "handover", (unsigned long long)vm->entry_rip,
                (unsigned long long)vm->image_start, (unsigned long long)vm->image_size,
                (unsigned long long)(vm->opt.mem >> 20));
    /* A sweep creates VMs as it goes: no filter on its ioctls (--help). */
    if (vm->opt.fault_sweep ? sandbox_enter_sweep(vm) : sandbox_enter(vm))
        return EXIT_HOST;
    report_mark(vm, PHASE_ENTRY);
    return vm->opt.fault_sweep ? fault_sweep_run(vm) : vmm_run(vm);
}

/* With --stop-at ebs and --inject: what the stub did about each fault,
 * judged as a --fault-sweep cell is (fault_outcome.c). */
static void print_fault_outcomes(const struct vmm *vm, int rc)
{
    if (vm->opt.stop_at != STOP_AT_EBS || vm->opt.fault_sweep || !vm->fw.gm)
        return;
    const struct inject *in = &vm->fw.cfg.inject;
    for (unsigned k = 0; k < INJECT_KINDS; k++) {
        if (!in->on[k])
            continue;
        char spec[64];
        inject_spec(in, (enum inject_kind)k, spec, sizeof(spec));
        vmm_log("fault outcome: %s: %s", spec,
                fault_outcome_names[fault_outcome(vm, (enum inject_kind)k, rc)]);
    }
}

int main(int argc, char **argv)
{
    static struct vmm vm = { .lock = PTHREAD_MUTEX_INITIALIZER };
    report_mark(&vm, PHASE_START);
    /* Descriptors inherited from the caller are not the VMM's to use (nor a
     * guest's to reach through it): closed, as Firecracker's jailer does. */
    if (close_range(3, ~0U, 0) && errno != ENOSYS) {
        fprintf(stderr, "handover: close_range: %s\n", strerror(errno));
        return EXIT_HOST;
    }
    if (vmm_reserve_std_fds()) {
        fprintf(stderr, "handover: cannot open /dev/null for a closed stdin, stdout or stderr\n");
        return EXIT_HOST;
    }
    int rc = parse_args(argc, argv, &vm.opt);
    if (rc)
        return rc;
    rc = boot(&vm);
    fflush(stdout);
    report_mark(&vm, PHASE_END);
    print_fault_outcomes(&vm, rc);
    /* An output that could not be written whole makes a run fail: a script
     * must not read a cut report or trace as a result. */
    if (vm.sweep_baseline)
        fclose(vm.sweep_baseline);
    if (vm.sweep_matrix && fclose(vm.sweep_matrix) && rc == EXIT_OK)
        rc = EXIT_HOST;
    if (vm.kunit_json && (report_write_kunit_json(&vm, vm.kunit_json) || fclose(vm.kunit_json))) {
        vmm_log("--kunit-json %s: write failed: %s", vm.opt.kunit_json, strerror(errno));
        if (rc == EXIT_OK)
            rc = EXIT_HOST;
    }
    if (report_write(&vm, rc) || (vm.report && fclose(vm.report))) {
        vmm_log("--report %s: write failed: %s", vm.opt.report_path, strerror(errno));
        if (rc == EXIT_OK)
            rc = EXIT_HOST;
    }
    free(vm.map_at_ebs);
    free(vm.bp_copy);
    free(vm.console_log);
    free(vm.initrd_data);
    if (vm.trace && (vm.trace == stderr ? fflush(vm.trace) : fclose(vm.trace)) && vm.trace != stderr) {
        vmm_log("--trace-efi=%s: write failed: %s", vm.opt.trace_path, strerror(errno));
        if (rc == EXIT_OK)
            rc = EXIT_HOST;
    }
    /* The last line says why the run ended, so that a guest's status N is
     * never mistaken for one of handover's own (README "Exit status"). */
    if (!vm.opt.quiet || rc != EXIT_OK)
        vmm_log("end: %s, exit status %d", vmm_end_reason(&vm, rc), rc);
    vmm_destroy(&vm);
    free(vm.image_file);
    return rc;
}
