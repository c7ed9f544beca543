/* handover: boot a Linux bzImage through its own EFI stub on KVM, with a
 * fake firmware served by this process. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../firmware-stub/firmware.h"
#include "../loader/efi_app.h"
#include "../loader/elf_deps.h"
#include "../loader/pe_compat.h"
#include "devices/device_init.h"
#include "verdict/fault_outcome.h"
#include "verdict/ktap.h"
#include "host/clock.h"
#include "host/add_files.h"
#include "host/files.h"
#include "kvm/host_probe.h"
#include "host/sandbox.h"
#include "tools/bootinfo.h"
#include "tools/fault_sweep.h"
#include "tools/kunit.h"
#include "tools/progress.h"
#include "tools/report_hooks.h"
#include "tools/tpm_log.h"
#include "tools/warm_boot.h"
#include "vmm.h"

static void *read_image(const char *path, size_t *size)
{
    FILE *f = vmm_open_input("BZIMAGE", path);
    struct stat st;
    if (!f)
        return NULL;
    if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode) || st.st_size > (off_t)FW_IMAGE_FILE_MAX) {
        vmm_log("%s: not a regular file of at most %u MiB", path, FW_IMAGE_FILE_MAX >> 20);
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

/* The options that mean something else, or nothing, for an EFI
 * application: it is entered at its PE entry point, builds (or has the
 * kernel's stub build) boot_params itself, and gets a command line only
 * as LoadOptions. */
static const char *app_conflict(const struct vmm_options *o)
{
    if (o->entry_given && o->entry == ENTRY_HANDOVER)
        return "--entry handover: the image is an EFI application, not a bzImage: it has no handover entry and "
               "is started at its PE entry point, as a boot manager starts it (--entry is for bzImages)";
    if (o->dtb)
        return "--dtb: the image is an EFI application: the device tree goes into boot_params, which it (or "
               "the kernel it starts) builds";
    if (o->initrd_via_given && o->initrd_via == INITRD_VIA_BOOTPARAMS)
        return "--initrd-via bootparams: the image is an EFI application: it (or the kernel it starts) builds "
               "boot_params; the initrd is offered through the LoadFile2 device path";
    if (o->load_addr)
        return "--load-addr places a bzImage: an EFI application is placed as LoadImage places it";
    if (o->cmdline_append && !o->cmdline_given)
        return "--cmdline-append: an EFI application gets no default command line to append to: give --cmdline "
               "(its LoadOptions)";
    return NULL;
}

/* UEFI 2.10 section 2.1.1: a firmware runs the images of its own
 * platform, an x64 one PE32+ (Machine 0x8664), an IA-32 one PE32 (0x14c).
 * The other kind is refused on one line naming the option that runs it. */
static bool app_machine_refused(const struct vmm *vm)
{
    uint16_t machine = vm->placed.app_pe.machine;
    if (vm->opt.firmware_bits == 32 && machine != PE_MACHINE_I386)
        vmm_log("%s: PE: Machine 0x%x: an x64 (PE32+) EFI application, which the IA-32 firmware of --firmware-bits "
                "32 does not run (drop --firmware-bits 32)", vm->opt.kernel, machine);
    else if (vm->opt.firmware_bits != 32 && machine != PE_MACHINE_X64)
        vmm_log("%s: PE: Machine 0x%x: an IA-32 (PE32) EFI application, which an x64 firmware does not run (give "
                "--firmware-bits 32)", vm->opt.kernel, machine);
    else
        return false;
    return true;
}

/* The default entry of a kernel built without the handover protocol
 * (CONFIG_EFI_HANDOVER_PROTOCOL, optional since 6.2 and deprecated,
 * Documentation/arch/x86/boot.rst): its PE entry, as a UEFI boot manager
 * would enter it, said on one line. The options chosen for the handover
 * default follow. */
static int default_to_pe(struct vmm *vm)
{
    struct vmm_options *o = &vm->opt;
    if (o->dtb || (o->initrd_via_given && o->initrd_via == INITRD_VIA_BOOTPARAMS)) {
        vmm_log("%s: xloadflags 0x%04x lacks XLF_EFI_HANDOVER_64, so it boots through the PE entry, and %s needs "
                "the handover entry (through the PE entry the stub builds boot_params)", o->kernel,
                vm->placed.bz.hdr.xloadflags, o->dtb ? "--dtb" : "--initrd-via bootparams");
        return EXIT_USAGE;
    }
    o->entry = ENTRY_PE;
    if (!o->initrd_via_given)
        o->initrd_via = INITRD_VIA_LOADFILE2;
    vmm_log("%s: no EFI handover entry (xloadflags 0x%04x lacks XLF_EFI_HANDOVER_64): booting through the PE "
            "entry", o->kernel, vm->placed.bz.hdr.xloadflags);
    return 0;
}

static int parse_image(struct vmm *vm)
{
    char err[BZIMAGE_ERR_LEN];
    if (image_kind(vm->placed.image_file, vm->placed.image_file_size) == IMAGE_EFI_APP) {
        const char *why = app_conflict(&vm->opt);
        if (efi_app_parse(&vm->placed.app_pe, vm->placed.image_file, vm->placed.image_file_size, err, sizeof(err))) {
            vmm_log("%s: %s", vm->opt.kernel, err);
            return EXIT_BAD_IMAGE;
        }
        if (why) {
            vmm_log("%s", why);
            return EXIT_USAGE;
        }
        if (app_machine_refused(vm))
            return EXIT_USAGE;
        vm->placed.app = true;
        vm->opt.entry = ENTRY_PE;
        vm->opt.initrd_via = INITRD_VIA_LOADFILE2;
        return 0;
    }
    /* A bzImage no option could make bootable is a bad image; one that
     * lacks the entry an option asked for (--firmware-bits 32, --entry) is
     * refused as that option's usage error. */
    int refusal = EXIT_BAD_IMAGE;
    if (bzimage_parse(&vm->placed.bz, vm->placed.image_file, vm->placed.image_file_size, err, sizeof(err)))
        goto refused;
    refusal = EXIT_USAGE;
    if (vm->opt.firmware_bits == 32 && vm->opt.entry == ENTRY_PE) {
        /* The entry taken is a 64-bit kernel's .compat one; an i386
         * kernel's own IA-32 PE header is not read (bzimage_parse). */
        if (!vm->placed.bz.kernel_64 && vm->placed.bz.hdr.version >= 0x020c) {
            snprintf(err, sizeof(err), "xloadflags: 0x%04x lacks XLF_KERNEL_64: an i386 kernel, entered by "
                     "--firmware-bits 32 at its 32-bit handover entry; --entry pe takes a 64-bit kernel's IA-32 "
                     ".compat entry (drop --entry pe)", vm->placed.bz.hdr.xloadflags);
            goto refused;
        }
        if (bzimage_check_entry(&vm->placed.bz, ENTRY_PE, err, sizeof(err)) ||
            pe_compat_entry(&vm->placed.bz.pe, PE_MACHINE_I386, &vm->placed.compat_entry, err, sizeof(err)))
            goto refused;
        return 0;
    }
    if (vm->opt.firmware_bits == 32) {
        if (bzimage_check_handover32(&vm->placed.bz, err, sizeof(err)))
            goto refused;
        if (!vm->placed.bz.kernel_64 && vm->opt.exec && !vm->opt.initrd) {
            vmm_log("%s: an i386 kernel: --exec's own initramfs holds the host's x86-64 busybox, which it cannot run "
                    "(give --initrd with a 32-bit one)", vm->opt.kernel);
            return EXIT_USAGE;
        }
        return 0;
    }
    if (!vm->opt.entry_given && !(vm->placed.bz.hdr.xloadflags & XLF_EFI_HANDOVER_64) &&
        !bzimage_check_entry(&vm->placed.bz, ENTRY_PE, err, sizeof(err)))
        return default_to_pe(vm);
    /* An i386 kernel with its 32-bit handover entry is fine: --firmware-bits
     * 32 boots it. */
    if (!vm->opt.entry_given && (vm->placed.bz.kernel_64 || !bzimage_offers_handover32(&vm->placed.bz)))
        refusal = EXIT_BAD_IMAGE;
    if (bzimage_check_entry(&vm->placed.bz, vm->opt.entry, err, sizeof(err)))
        goto refused;
    return 0;
refused:
    vmm_log("%s: %s", vm->opt.kernel, err);
    return refusal;
}

/* --cmdline replaces the default command line, console=ttyS0 with it:
 * kept so (a kernel may be meant to be quiet), but said, since a kernel
 * without it prints nothing on handover's console. */
static void warn_no_console(const struct vmm *vm)
{
    const char *append = vm->opt.cmdline_append ? vm->opt.cmdline_append : "";
    if (vm->opt.cmdline_given && !vm->placed.app && !strstr(vm->opt.cmdline, "console=") && !strstr(append, "console="))
        vmm_log("--cmdline has no console=: console=ttyS0 was not added, so the kernel may print nothing here "
                "(add it, or keep the default command line and use --cmdline-append)");
}

/* The kernel's command line: --cmdline (or the default), --cmdline-append,
 * and what the host and --kunit need. An EFI application gets only what was
 * given; the kernel it starts has the command line it gives it. */
static void build_cmdline(struct vmm *vm)
{
    snprintf(vm->placed.cmdline, sizeof(vm->placed.cmdline), "%s", vm->opt.cmdline);
    if (vm->opt.cmdline_append)
        append_word(vm->placed.cmdline, sizeof(vm->placed.cmdline), vm->opt.cmdline_append);
    /* A restore builds the VM as the saved boot did, without the XRSTOR
     * probe (a throwaway VM): the snapshot says whether it added noxsave. */
    if (vm->placed.restoring) {
        if (vm->placed.noxsave_added)
            append_word(vm->placed.cmdline, sizeof(vm->placed.cmdline), "noxsave");
    } else if (!vm->opt.no_emulation_fallbacks && !has_word(vm->placed.cmdline, "noxsave") &&
               host_needs_noxsave(vm->kvm_fd)) {
        if (vm->placed.app) {
            vmm_log("this host's KVM cannot run XRSTOR for the guest: the kernel the EFI application starts needs "
                    "noxsave on its command line");
        } else {
            append_word(vm->placed.cmdline, sizeof(vm->placed.cmdline), "noxsave");
            vm->placed.noxsave_added = true;
            vmm_log("this host's KVM cannot run XRSTOR for the guest: added noxsave to the command line");
        }
    }
    if (vm->opt.kunit) {
        if (vm->placed.app)
            vmm_log("--kunit: kunit_shutdown=reboot is not added to the command line of the kernel the EFI "
                    "application starts (the results are still read from the console)");
        else if (!strstr(vm->placed.cmdline, "kunit_shutdown="))
            append_word(vm->placed.cmdline, sizeof(vm->placed.cmdline), "kunit_shutdown=reboot");
    }
}

/* Once the image is in guest RAM the file's copy is dead weight: a
 * stock bzImage is some 8 MiB of the VMM's RSS (the bench holds the VMM's
 * own to 5 MiB, bench/README.md). The parsed views that pointed into it point nowhere. */
static void release_image_file(struct vmm *vm)
{
    free(vm->placed.image_file);
    vm->placed.image_file = NULL;
    vm->placed.bz.data = NULL;
    vm->placed.bz.pe.data = NULL;
    vm->placed.app_pe.data = NULL;
}

/* The files the command line names, as an output must not be any of the
 * others: the inputs read after the outputs are opened (--add's host files
 * too: --add FILE --report FILE packed the emptied FILE), and the outputs;
 * nor lie in a directory the run reads (--report ESP/EFI/BOOT/BOOTX64.EFI
 * emptied the application the --esp run was to start). */
enum { NAMED_OPTIONS = 13, NAMED_FILES = NAMED_OPTIONS + ADD_MAX_SPECS };
struct named_files {
    struct named_path at[NAMED_FILES];
    unsigned n;
    char add_host[ADD_MAX_SPECS][ELF_DEPS_NAME];   /* HOST of each --add HOST[:GUEST] */
};

static void named_files(const struct vmm_options *o, struct named_files *f)
{
    const struct named_path options[NAMED_OPTIONS] = {
        { "BZIMAGE", o->kernel, false },
        { "--initrd", o->initrd, false },
        { "--dtb", o->dtb && strcmp(o->dtb, "auto") ? o->dtb : NULL, false },
        { "--sweep-baseline", o->sweep_baseline, false },
        { "--trace-efi", o->trace_path && strcmp(o->trace_path, "-") ? o->trace_path : NULL, false },
        { "--report", o->report_path, false },
        { "--kunit-json", o->kunit_json, false },
        { "--exec-output", o->exec_output, false },
        { "--tpm-log", o->tpm_log, false },
        { "--fault-sweep", o->sweep_json, false },
        { "--esp", o->esp, true },
        { "--secure-boot", o->secure_boot, true },
        { "--snapshot", o->snapshot, true },
    };
    memcpy(f->at, options, sizeof(options));
    f->n = NAMED_OPTIONS;
    for (unsigned i = 0; i < o->nadds && i < ADD_MAX_SPECS; i++) {
        size_t hn = strcspn(o->adds[i], ":");
        if (hn && hn < ELF_DEPS_NAME) {   /* add_files_archive refuses the others */
            snprintf(f->add_host[i], ELF_DEPS_NAME, "%.*s", (int)hn, o->adds[i]);
            f->at[f->n++] = (struct named_path){ "--add", f->add_host[i], false };
        }
    }
}

/* An output created or truncated, unless it is a file the run reads or
 * another output writes (a --fault-sweep=FILE that is the
 * --sweep-baseline was emptied before the sweep read it). */
static bool clobbers(const struct vmm *vm, const char *what, const char *path)
{
    static struct named_files named;
    named_files(&vm->opt, &named);
    return vmm_output_clobbers(what, path, named.at, named.n);
}

/* A stream a user may follow as it grows (--trace-efi, --exec-output). */
static FILE *open_output(const struct vmm *vm, const char *what, const char *path)
{
    return clobbers(vm, what, path) ? NULL : vmm_open_output(what, path);
}

/* A result a script reads whole: PATH replaced only once it is
 * (files.h's struct whole_output). -1 if refused. */
static int open_whole(const struct vmm *vm, const char *what, const char *path, struct whole_output *o)
{
    return clobbers(vm, what, path) ? -1 : vmm_open_whole(what, path, o);
}

/* --report and --kunit-json: opened first, so that a run refused at any
 * later step still writes them, saying it never started. */
static int open_result_files(struct vmm *vm)
{
    if (vm->opt.report_path && open_whole(vm, "--report", vm->opt.report_path, &vm->files.report))
        return -1;
    if (vm->opt.kunit_json && open_whole(vm, "--kunit-json", vm->opt.kunit_json, &vm->files.kunit_json))
        return -1;
    return 0;
}

/* The other files a run writes (and the baseline it reads), opened before
 * any VM: a directory or an unwritable path is found before the boot (or
 * the sweep), not after it. The result files before the trace file: a
 * --trace-efi=FILE that could not be opened left no --report saying so. A
 * trace on stderr makes the messages JSON lines first, those too. */
static int open_outputs(struct vmm *vm)
{
    bool trace_to_stderr = vm->opt.trace_path && !strcmp(vm->opt.trace_path, "-");
    if (trace_to_stderr) {
        vm->files.trace = stderr;
        if (vmm_log_as_json()) {
            vmm_log("--trace-efi: cannot make the JSON message stream: %s", strerror(errno));
            return EXIT_HOST;
        }
    }
    if (open_result_files(vm))
        return EXIT_USAGE;
    if (vm->opt.trace_path && !trace_to_stderr &&
        !(vm->files.trace = open_output(vm, "--trace-efi", vm->opt.trace_path)))
        return EXIT_USAGE;
    if (vm->opt.exec_output && !(vm->files.exec_output = open_output(vm, "--exec-output", vm->opt.exec_output)))
        return EXIT_USAGE;
    if (vm->opt.tpm_log && open_whole(vm, "--tpm-log", vm->opt.tpm_log, &vm->files.tpm_log))
        return EXIT_USAGE;
    if (vm->opt.sweep_json && open_whole(vm, "--fault-sweep", vm->opt.sweep_json, &vm->files.sweep_matrix))
        return EXIT_USAGE;
    if (vm->opt.sweep_baseline &&
        !(vm->files.sweep_baseline = vmm_open_input("--sweep-baseline", vm->opt.sweep_baseline)))
        return EXIT_USAGE;
    return 0;
}

/* The image file read and parsed, and what it means for the options. */
static int take_image(struct vmm *vm)
{
    vm->placed.image_file = read_image(vm->opt.kernel, &vm->placed.image_file_size);
    if (!vm->placed.image_file)
        return EXIT_BAD_IMAGE;
    int rc = parse_image(vm);
    if (rc)
        return rc;
    warn_no_console(vm);
    return 0;
}

/* The VM over its RAM, its vCPUs, and the console's own watchers. */
static int make_vm(struct vmm *vm)
{
    if (vmm_open_kvm(vm))
        return EXIT_HOST;
    build_cmdline(vm);
    if (vmm_map_memory(vm) || vmm_create_vm(vm))
        return EXIT_HOST;
    for (unsigned i = 0; i < vm->opt.cpus; i++)
        if (vmm_setup_vcpu(vm, i))
            return EXIT_HOST;
    return vmm_console_init(vm) ? EXIT_HOST : 0;
}

/* The devices of the init list on the bus, wired to the console, the
 * --exec-output file, the interrupt lines and the guest's stop request. */
static int attach_devices(struct vmm *vm, struct warm_boot *warm)
{
    const struct device_host host = { .bus = &vm->bus, .ctl = &vm->ctl, .irq = vmm_serial_irq,
                                      .console_tx = vmm_console_tx, .console_uart = &warm->uart,
                                      .exec_output_tx = vm->files.exec_output ? vmm_exec_output_tx : NULL, .ctx = vm };
    struct io_device refused;
    if (devices_init(&host, &refused)) {
        vmm_log("cannot put %s at port 0x%x on the I/O bus (full, overlapping another device, or too much state "
                "to keep)", refused.name, refused.base);
        return EXIT_HOST;
    }
    return 0;
}

/* The image and the firmware in guest RAM, said in one line. */
static int load(struct vmm *vm)
{
    int rc = vmm_load(vm);
    if (rc)
        return rc;
    release_image_file(vm);
    if (!vm->opt.quiet && vm->placed.app)
        vmm_log("%s: EFI application, entry at 0x%llx, image at 0x%llx (0x%llx bytes), LoadOptions %s, %llu MiB RAM",
                vm->opt.kernel, (unsigned long long)vm->placed.entry_rip, (unsigned long long)vm->placed.image_start,
                (unsigned long long)vm->placed.image_size, vm->opt.cmdline_given ? "from --cmdline" : "none",
                (unsigned long long)(vm->opt.mem >> 20));
    else if (!vm->opt.quiet)
        vmm_log("%s: Linux boot protocol %u.%02u, %s entry at 0x%llx, image at 0x%llx (0x%llx bytes), %llu MiB RAM",
                vm->opt.kernel, vm->placed.bz.hdr.version >> 8, vm->placed.bz.hdr.version & 0xff,
                vm->opt.entry == ENTRY_PE ? vm->opt.firmware_bits == 32 ? "PE compat (IA-32)" : "PE"
                : vm->opt.firmware_bits == 32 ? "32-bit handover" : "handover",
                (unsigned long long)vm->placed.entry_rip,
                (unsigned long long)vm->placed.image_start, (unsigned long long)vm->placed.image_size,
                (unsigned long long)(vm->opt.mem >> 20));
    return 0;
}

/* A whole output's descriptor, 2 (stderr) standing in for an absent one. */
static int whole_fd(const struct whole_output *o)
{
    return o->f ? fileno(o->f) : 2;
}

/* What putting it in place takes (a dir_fd of 2 or less: nothing). */
static struct sandbox_whole sandbox_whole(const struct whole_output *o)
{
    return (struct sandbox_whole){ whole_fd(o), o->f ? o->dir_fd : -1 };
}

/* From here on the process may only do what the run needs (sandbox.c). A
 * sweep creates VMs as it goes: its filter allows the KVM requests that
 * takes on any fd. */
static int enter_sandbox(const struct vmm *vm, const struct warm_boot *warm)
{
    int vcpu_fds[VMM_MAX_CPUS];
    for (unsigned i = 0; i < vm->opt.cpus; i++)
        vcpu_fds[i] = vm->vcpus[i].fd;
    const struct run_files *f = &vm->files;
    const struct sandbox_plan plan = {
        .outputs = { 1, 2, f->trace ? fileno(f->trace) : 2, whole_fd(&f->report), whole_fd(&f->kunit_json),
                     f->exec_output ? fileno(f->exec_output) : 2, whole_fd(&f->tpm_log) },
        .whole = { sandbox_whole(&f->report), sandbox_whole(&f->kunit_json), sandbox_whole(&f->tpm_log),
                   sandbox_whole(&f->sweep_matrix) },
        .output_allowance = vm->opt.console_limit > UINT64_MAX - vm->opt.trace_limit
                                ? UINT64_MAX : vm->opt.console_limit + vm->opt.trace_limit,
        .kvm_fd = vm->kvm_fd, .vm_fd = vm->vm_fd, .vcpu_fds = vcpu_fds, .ncpus = vm->opt.cpus,
        .sweep_matrix_fd = f->sweep_matrix.f ? fileno(f->sweep_matrix.f) : -1,
        .sweep_baseline_fd = f->sweep_baseline ? fileno(f->sweep_baseline) : -1,
        .quiet = vm->opt.quiet,
        .snapshot = warm->ram_fd > 2, .snapshot_dir_fd = warm->dir_fd, .snapshot_ram_fd = warm->ram_fd,
        .snapshot_state_fd = warm->state_fd, .snapshot_bytes = vm->opt.mem,
    };
    return vm->opt.fault_sweep ? sandbox_enter_sweep(&plan) : sandbox_enter(&plan);
}

/* The tools that watch the runs (run_hooks.h), as the options ask for them. */
struct tools {
    struct progress progress;
    struct report_run report;
    struct ktap ktap;
    struct stop_summary stop;
    struct fault_sweep *sweep;
    struct tpm_log_run tpm_log;
    struct warm_boot warm;
};

/* Registered once the options are read, refused or not: the progress
 * lines say when even a refused run ended. -1 (logged) if one is left out. */
static int watch(struct vmm *vm, struct tools *t)
{
    if (vm->opt.fault_sweep && !(t->sweep = fault_sweep_new(vm)))
        return -1;
    const struct {
        bool wanted;
        const struct run_hooks *hooks;
        void *ctx;
    } all[] = {
        { !vm->opt.quiet && !vm->opt.fault_sweep, &progress_hooks, &t->progress },
        { vm->opt.report_path != NULL, &report_hooks, &t->report },
        { vm->opt.kunit, &kunit_hooks, &t->ktap },
        { vm->opt.stop_at == STOP_AT_EBS, &stop_summary_hooks, &t->stop },
        { vm->opt.fault_sweep, &fault_sweep_hooks, t->sweep },
        { vm->opt.tpm_log != NULL, &tpm_log_hooks, &t->tpm_log },
        { vm->opt.snapshot != NULL, &warm_boot_hooks, &t->warm },
    };
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
        if (all[i].wanted && vmm_observe(vm, all[i].hooks, all[i].ctx))
            return -1;
    return 0;
}

static int run(struct vmm *vm, const struct tools *t)
{
    if (vm->opt.fault_sweep)
        return fault_sweep_run(t->sweep);
    const struct run_options o = vmm_run_options(&vm->opt);
    return vmm_run(vm, &o);
}

static int after_step(struct vmm *vm, int rc)
{
    return vmm_step_end(vm, rc, "before the guest was entered");
}

/* Each step says how far the boot got (--report's not_started_at). */
static int boot(struct vmm *vm, struct tools *t, int argc, char **argv)
{
    vm->step = STEP_OUTPUTS;
    int rc = after_step(vm, open_outputs(vm));
    if (rc)
        return rc;
    vm->step = STEP_IMAGE;
    if ((rc = after_step(vm, take_image(vm))))
        return rc;
    vm->step = STEP_FILES;
    if ((rc = after_step(vm, vmm_read_inputs(vm) ? EXIT_USAGE : 0)))
        return rc;
    if (vm->opt.snapshot && (rc = after_step(vm, warm_boot_prepare(&t->warm, argc, argv))))
        return rc;
    vm->placed.restoring = t->warm.restoring;
    vm->placed.noxsave_added = t->warm.noxsave_added;
    vm->step = STEP_HOST;
    if ((rc = make_vm(vm)) || (rc = attach_devices(vm, &t->warm)) || (rc = load(vm)))
        return after_step(vm, rc);
    if (vm->opt.snapshot && (rc = after_step(vm, warm_boot_loaded(&t->warm))))
        return rc;
    if ((rc = after_step(vm, enter_sandbox(vm, &t->warm) ? EXIT_HOST : 0)))
        return rc;
    vm->step = STEP_GUEST;
    vmm_milestone(vm, MILESTONE_ENTRY);
    return run(vm, t);
}

/* With --stop-at ebs and --inject: what the stub did about each fault,
 * judged as a --fault-sweep cell is (fault_outcome.c). */
static void print_fault_outcomes(const struct vmm *vm, int rc)
{
    if (vm->opt.stop_at != STOP_AT_EBS || vm->opt.fault_sweep || !vm->fw.gm)
        return;
    const struct inject *in = &vm->fw.cfg.inject;
    const struct fault_run run = vmm_fault_run(vm, rc);
    for (unsigned k = 0; k < INJECT_KINDS; k++) {
        if (!in->on[k])
            continue;
        char line[128];
        fault_outcome_line(in, (enum inject_kind)k, &run, line, sizeof(line));
        vmm_log("fault outcome: %s", line);
    }
}

/* An output that could not be written whole turns a success into
 * EXIT_HOST, and the end reason then says so; a guest's own status or
 * another failure is kept (docs/exit-status.md). */
static int output_failed(struct vmm *vm, int rc)
{
    if (rc != EXIT_OK)
        return rc;
    vm->files.write_failed = true;
    return EXIT_HOST;
}

/* Why the run ended (--report's end_reason, the last line), as it stands. */
static const char *why_ended(const struct vmm *vm, const struct tools *t, int rc)
{
    struct run_end e = vmm_run_end(vm, rc);
    e.kunit_complete = ktap_complete(&t->ktap);
    return end_reason(&e);
}

/* --kunit-json, --exec-output, --tpm-log and --report finished, and a
 * matrix the sweep never wrote removed. An output that could not be
 * written whole makes a run fail: a script must not read a cut report or
 * trace as a result. */
static int write_results(struct vmm *vm, const struct tools *t, int rc)
{
    /* What the run printed after the guest stopped (its stop point's
     * findings) counts as much as the console (run.c's console_unwritable). */
    int e = fflush(stdout) == EOF ? errno : vm->console.write_errno;
    if (vm->step == STEP_GUEST && !vm->files.write_failed && ferror(stdout)) {
        vmm_log("stdout: write failed%s%s", e ? ": " : "", e ? strerror(e) : "");
        rc = output_failed(vm, rc);
    }
    if (vm->files.sweep_baseline)
        fclose(vm->files.sweep_baseline);
    /* A sweep that ended before its matrix (fault_sweep.c's conclude). */
    vmm_whole_discard(&vm->files.sweep_matrix);
    struct whole_output *kunit_json = &vm->files.kunit_json;
    if (kunit_json->f &&
        vmm_whole_finish(kunit_json, report_write_kunit_json(kunit_json->f, &t->ktap, vm->opt.kernel,
                                                           vm->step == STEP_GUEST))) {
        vmm_log("--kunit-json %s: write failed: %s", vm->opt.kunit_json, strerror(errno));
        rc = output_failed(vm, rc);
    }
    if (vm->files.exec_output && fclose(vm->files.exec_output) && !vm->files.exec_output_failed) {
        vmm_log("--exec-output %s: write failed: %s", vm->opt.exec_output, strerror(errno));
        vm->files.exec_output_failed = true;
    }
    if (vm->files.exec_output_failed)
        rc = output_failed(vm, rc);
    if (vm->files.tpm_log.f && tpm_log_finish(&t->tpm_log)) {
        vmm_log("--tpm-log %s: write failed: %s", vm->opt.tpm_log, strerror(errno));
        rc = output_failed(vm, rc);
    }
    if (vm->files.report.f &&
        vmm_whole_finish(&vm->files.report, report_finish(&t->report, rc, why_ended(vm, t, rc), &t->ktap))) {
        vmm_log("--report %s: write failed: %s", vm->opt.report_path, strerror(errno));
        rc = output_failed(vm, rc);
    }
    return rc;
}

/* The trace, which the firmware wrote as the run went: closed before the
 * report is written (main). */
static int close_trace(struct vmm *vm, int rc)
{
    FILE *trace = vm->files.trace;
    if (trace && (trace == stderr ? fflush(trace) : fclose(trace)) && trace != stderr) {
        vmm_log("--trace-efi=%s: write failed: %s", vm->opt.trace_path, strerror(errno));
        rc = output_failed(vm, rc);
    }
    return rc;
}

static void release(struct vmm *vm, struct tools *t)
{
    report_data_free(&t->report.data);
    ktap_free(&t->ktap);
    if (t->sweep)
        fault_sweep_free(t->sweep);
    free(vm->placed.initrd_data);
    free(vm->placed.dtb);
    volume_free(&vm->placed.esp);
    secure_boot_keys_free(&vm->placed.secure_boot_keys);
    cpio_free(&vm->placed.added);
    warm_boot_free(&t->warm);
}

int main(int argc, char **argv)
{
    static struct vmm vm = { .lock = PTHREAD_MUTEX_INITIALIZER };
    static struct tools tools = { .progress = { .vm = &vm }, .report = { .vm = &vm }, .stop = { .vm = &vm },
                                  .tpm_log = { .vm = &vm }, .warm = { .vm = &vm } };
    clock_start();
    vmm_milestone(&vm, MILESTONE_START);
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
    /* A reader that goes away (`handover ... | head`) makes a write fail
     * with EPIPE instead of killing the process without its report: the
     * run then ends as after any output not written whole. */
    if (signal(SIGPIPE, SIG_IGN) == SIG_ERR) {
        fprintf(stderr, "handover: cannot ignore SIGPIPE: %s\n", strerror(errno));
        return EXIT_HOST;
    }
    if (vmm_catch_stop_signals(&vm))
        return EXIT_HOST;
    ktap_init(&tools.ktap);
    int rc = parse_options(argc, argv, &vm.opt);
    if (watch(&vm, &tools) && !rc)
        rc = EXIT_HOST;
    /* Refused options still leave --report and --kunit-json saying so. */
    if (rc)
        open_result_files(&vm);
    else
        rc = boot(&vm, &tools, argc, argv);
    fflush(stdout);
    vmm_milestone(&vm, MILESTONE_END);
    print_fault_outcomes(&vm, rc);
    /* The trace first: its failure turns a success into EXIT_HOST, which
     * the report, written after it, must then say too. */
    rc = write_results(&vm, &tools, close_trace(&vm, rc));
    /* The last line says why the run ended, so that a guest's status N is
     * never mistaken for one of handover's own (docs/exit-status.md). */
    if (!vm.opt.quiet || rc != EXIT_OK)
        vmm_log("end: %s, exit status %d%s%s", why_ended(&vm, &tools, rc), rc,
                vmm_image_status(&vm) ? ", efi_status " : "", vmm_image_status(&vm) ? vmm_image_status(&vm) : "");
    release(&vm, &tools);
    vmm_destroy(&vm);
    free(vm.placed.image_file);
    return rc;
}
