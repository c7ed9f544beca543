/* After vmm_load every file the VMM will ever use is open: /dev/kvm, the
 * VM and vCPU fds, stdout/stderr and the --trace-efi file. From then on a
 * guest, whatever it asks of the firmware or the devices, must not make
 * the process open, exec or write anything else. Both filters are
 * allow-lists (as Firecracker's and crosvm's per-thread filters are); what
 * they share:
 *   the thread calls of vCPU threads (clone with thread flags, futex, ...);
 *   write to stdout, stderr, the trace, the report, the --kunit-json and the --exec-output file;
 *   fstat (stdio's first write);
 *   memory management for malloc; getrandom (EFI_RNG_PROTOCOL); clocks, sleeping (Stall), alarm and
 *   signal return (--timeout); close and exit;
 *   tgkill to this process only; mmap and mprotect without PROT_EXEC;
 *   putting each whole output in place: fsync, linkat, renameat and
 *   unlinkat in its own directory (allow_whole_output).
 * The run's filter adds the KVM requests the run loop makes, on the VM
 * and vCPU fds only. The --fault-sweep's filter, which makes a VM per
 * cell (new fds each time), adds every KVM request the sweep makes, by
 * request on any fd (the system ones on /dev/kvm only), writes to the
 * matrix and reads of the baseline.
 * Everything else fails with EPERM (the process is not killed, so a
 * diagnostic can still be written). libseccomp builds the BPF program.
 * Before the filter: RLIMIT_NOFILE at the descriptors already open and
 * RLIMIT_FSIZE at what --console-limit and --trace-limit allow.
 * tests/sandbox/sandbox_test.c issues a call of each family under each. */
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stdio.h>
#include <sched.h>
#include <string.h>
#include <signal.h>
#include <linux/kvm.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"

#define SANDBOX_REPORT_MAX (64ULL << 20)
#define FD_SCAN_MAX 1024   /* the descriptors set_limits looks at: 0 to 1023 */

static const unsigned long vcpu_ioctls[] = {
    KVM_RUN, KVM_GET_REGS, KVM_SET_REGS, KVM_GET_SREGS, KVM_SET_SREGS, KVM_GET_FPU, KVM_SET_FPU,
    KVM_GET_VCPU_EVENTS, KVM_SET_VCPU_EVENTS, KVM_GET_MP_STATE, KVM_SET_MP_STATE,
};

static const int plain_syscalls[] = {
    SCMP_SYS(fstat), SCMP_SYS(newfstatat), SCMP_SYS(brk), SCMP_SYS(mremap),
    SCMP_SYS(munmap), SCMP_SYS(madvise), SCMP_SYS(clock_gettime), SCMP_SYS(gettimeofday), SCMP_SYS(nanosleep),
    SCMP_SYS(clock_nanosleep), SCMP_SYS(alarm), SCMP_SYS(setitimer), SCMP_SYS(rt_sigreturn),
    SCMP_SYS(rt_sigaction), SCMP_SYS(rt_sigprocmask), SCMP_SYS(close), SCMP_SYS(exit), SCMP_SYS(exit_group), SCMP_SYS(futex),
    SCMP_SYS(getpid), SCMP_SYS(gettid), SCMP_SYS(set_robust_list), SCMP_SYS(rseq),
    SCMP_SYS(sched_yield), SCMP_SYS(getrandom), SCMP_SYS(getrusage), SCMP_SYS(mincore),
};

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZER_BUILD 1
#else
#define SANITIZER_BUILD 0
#endif

/* The highest descriptor open (at least 2), or -1 with errno. One poll
 * asks about them all, where a loop of fcntl made a thousand calls: a
 * closed one comes back POLLNVAL. main closed every inherited one above 2
 * and open fails past RLIMIT_NOFILE, so all lie below it, and poll takes
 * as many as the limit allows. */
static int highest_open_fd(void)
{
    struct pollfd fds[FD_SCAN_MAX];
    struct rlimit now;
    if (getrlimit(RLIMIT_NOFILE, &now))
        return -1;
    int n = now.rlim_cur < FD_SCAN_MAX ? (int)now.rlim_cur : FD_SCAN_MAX;
    for (int fd = 0; fd < n; fd++)
        fds[fd] = (struct pollfd){ .fd = fd, .events = 0 };
    if (poll(fds, (nfds_t)n, 0) < 0)
        return -1;
    int maxfd = 2;
    for (int fd = 3; fd < n; fd++)
        if (!(fds[fd].revents & POLLNVAL))
            maxfd = fd;
    return maxfd;
}

/* Resource limits, as Firecracker's jailer sets them: no descriptor
 * beyond those already open (open is denied anyway; this holds without
 * the filter too), and no file the VMM writes larger than what its own
 * limits allow (console, trace, and a report of a few MiB). Past the size
 * limit write fails with EFBIG instead of raising SIGXFSZ. */
static int set_limits(const struct sandbox_plan *p)
{
    struct rlimit nofile;
    int maxfd = highest_open_fd();
    if (maxfd < 0) {
        vmm_log("the open descriptors: %s", strerror(errno));
        return -1;
    }
    nofile.rlim_cur = nofile.rlim_max = (rlim_t)maxfd + 1;
    /* The limit is on a file's size, so an output appended to a big log
     * file gets its allowance on top of what the file already holds. */
    off_t biggest = 0;
    for (int i = 0; i < SANDBOX_OUTPUTS; i++) {
        struct stat st;
        if (fstat(p->outputs[i], &st) == 0 && S_ISREG(st.st_mode) && st.st_size > biggest)
            biggest = st.st_size;
    }
    rlim_t fsize = sandbox_file_size_limit(p, (uint64_t)biggest);
    struct rlimit fs = { fsize, fsize };
    if (signal(SIGXFSZ, SIG_IGN) == SIG_ERR || setrlimit(RLIMIT_NOFILE, &nofile) || setrlimit(RLIMIT_FSIZE, &fs)) {
        vmm_log("setrlimit: %s", strerror(errno));
        return -1;
    }
    return 0;
}

/* Load the filter if every rule went in (rc 0), and release it. */
static int load_filter(scmp_filter_ctx ctx, int rc, const char *what)
{
    if (rc == 0)
        rc = seccomp_load(ctx);
    seccomp_release(ctx);
    if (rc) {
        vmm_log("cannot install %s: %s", what, strerror(-rc));
        return -1;
    }
    return 0;
}

/* What both filters allow (the file's head comment). */
/* Argument n of the call equals v. libseccomp's SCMP_An(SCMP_CMP_EQ, v)
 * is a positional initializer without datum_b, which clang's
 * -Wmissing-field-initializers reports; a designated one is the same rule. */
static struct scmp_arg_cmp arg_eq(unsigned n, scmp_datum_t v)
{
    return (struct scmp_arg_cmp){ .arg = n, .op = SCMP_CMP_EQ, .datum_a = v };
}

/* A whole output put in place (files.c's vmm_whole_commit and
 * vmm_whole_discard): its file synced, linked into its directory (by its
 * fd, or through /proc for a kernel before 6.10, whose AT_EMPTY_PATH
 * needs CAP_DAC_READ_SEARCH) and renamed there; or the names removed.
 * The names are pointers the filter cannot read: a VMM taken over could
 * rename or remove any file in that directory, never elsewhere. */
static int allow_whole_output(scmp_filter_ctx ctx, const struct sandbox_whole *w)
{
    const struct scmp_arg_cmp at_fdcwd = { .arg = 0, .op = SCMP_CMP_MASKED_EQ, .datum_a = 0xffffffffu,
                                           .datum_b = (uint32_t)AT_FDCWD };
    int rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(fsync), 1, arg_eq(0, w->fd));
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(linkat), 3, arg_eq(0, w->fd), arg_eq(2, w->dir_fd),
                           arg_eq(4, AT_EMPTY_PATH));
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(linkat), 3, at_fdcwd, arg_eq(2, w->dir_fd),
                           arg_eq(4, AT_SYMLINK_FOLLOW));
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(renameat), 2, arg_eq(0, w->dir_fd), arg_eq(2, w->dir_fd));
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(renameat2), 2, arg_eq(0, w->dir_fd), arg_eq(2, w->dir_fd));
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(unlinkat), 2, arg_eq(0, w->dir_fd), arg_eq(2, 0));
    return rc;
}

static int allow_common(scmp_filter_ctx ctx, const struct sandbox_plan *p)
{
    int rc = 0;
    for (size_t i = 0; i < sizeof(plain_syscalls) / sizeof(plain_syscalls[0]); i++)
        rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, plain_syscalls[i], 0);
    /* clone only for threads: CLONE_THREAD set (glibc's pthread_create). */
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1,
                           SCMP_A0(SCMP_CMP_MASKED_EQ, (scmp_datum_t)CLONE_THREAD, (scmp_datum_t)CLONE_THREAD));
    /* clone3's flags are behind a pointer the filter cannot read: ENOSYS
     * makes glibc fall back to clone. */
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
    for (int i = 0; i < SANDBOX_OUTPUTS; i++)
        rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(write), 1, arg_eq(0, p->outputs[i]));
    /* Signals only to this process's own threads (stop_all, the
     * heartbeat), as Firecracker's jailer filter allows tgkill. */
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 1, arg_eq(0, getpid()));
    /* Memory, but never new executable mappings: nothing the VMM runs
     * after this point needs code it did not have before. */
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 1,
                           SCMP_A2(SCMP_CMP_MASKED_EQ, (scmp_datum_t)PROT_EXEC, 0));
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mprotect), 1,
                           SCMP_A2(SCMP_CMP_MASKED_EQ, (scmp_datum_t)PROT_EXEC, 0));
    for (int i = 0; i < SANDBOX_WHOLE_OUTPUTS; i++)
        if (p->whole[i].dir_fd > 2)
            rc |= allow_whole_output(ctx, &p->whole[i]);
    return rc;
}

uint64_t sandbox_file_size_limit(const struct sandbox_plan *p, uint64_t biggest)
{
    uint64_t fsize = biggest + SANDBOX_REPORT_MAX;
    if (fsize < biggest || p->output_allowance > RLIM_INFINITY - fsize)
        return RLIM_INFINITY;
    fsize += p->output_allowance;
    if (p->snapshot && p->snapshot_bytes > fsize)
        fsize = p->snapshot_bytes;
    return fsize;
}

/* The limits, no new privileges, and an allow-list whose default is
 * EPERM; NULL (logged) if any fails. */
static scmp_filter_ctx begin(const struct sandbox_plan *p)
{
    if (set_limits(p))
        return NULL;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
        vmm_log("prctl(PR_SET_NO_NEW_PRIVS): %s", strerror(errno));
        return NULL;
    }
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));
    if (!ctx)
        vmm_log("seccomp_init failed");
    return ctx;
}

static bool sanitizer_skips(const struct sandbox_plan *p)
{
    /* The sanitizer runtime's leak check at exit needs clone and ptrace. */
    if (SANITIZER_BUILD && !p->quiet)
        vmm_log("sanitizer build: seccomp filter not installed");
    return SANITIZER_BUILD;
}

/* What --snapshot's save asks (vmm/tools/warm_boot.c, vmm/kvm/snapshot.c):
 * the state's KVM requests on the run's own fds, and its two files (and
 * their removal, when the run ends unsaved). */
static const unsigned long snapshot_vcpu_ioctls[] = {
    KVM_GET_LAPIC, KVM_GET_MSRS, KVM_GET_XSAVE, KVM_GET_XCRS, KVM_GET_DEBUGREGS, KVM_GET_TSC_KHZ,
};
static const unsigned long snapshot_vm_ioctls[] = { KVM_GET_IRQCHIP, KVM_GET_PIT2, KVM_GET_CLOCK };

static int allow_snapshot_save(scmp_filter_ctx ctx, const struct sandbox_plan *p)
{
    int rc = 0;
    for (unsigned c = 0; c < p->ncpus; c++)
        for (size_t i = 0; i < sizeof(snapshot_vcpu_ioctls) / sizeof(snapshot_vcpu_ioctls[0]); i++)
            rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 2, arg_eq(0, p->vcpu_fds[c]),
                                   arg_eq(1, snapshot_vcpu_ioctls[i]));
    for (size_t i = 0; i < sizeof(snapshot_vm_ioctls) / sizeof(snapshot_vm_ioctls[0]); i++)
        rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 2, arg_eq(0, p->vm_fd),
                               arg_eq(1, snapshot_vm_ioctls[i]));
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 2, arg_eq(0, p->kvm_fd),
                           arg_eq(1, KVM_GET_MSR_INDEX_LIST));
    const int files[] = { p->snapshot_ram_fd, p->snapshot_state_fd };
    for (size_t i = 0; i < 2; i++) {
        rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(pwrite64), 1, arg_eq(0, files[i]));
        rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ftruncate), 1, arg_eq(0, files[i]));
        rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(fsync), 1, arg_eq(0, files[i]));
    }
    /* Renames within DIR only (the names are pointers the filter cannot read). */
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(renameat), 2, arg_eq(0, p->snapshot_dir_fd),
                           arg_eq(2, p->snapshot_dir_fd));
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(renameat2), 2, arg_eq(0, p->snapshot_dir_fd),
                           arg_eq(2, p->snapshot_dir_fd));
    /* A run that ends without its save removes its ram.tmp and state.tmp
     * (warm_boot_free): files in DIR, never a directory. */
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(unlinkat), 2, arg_eq(0, p->snapshot_dir_fd), arg_eq(2, 0));
    return rc;
}

int sandbox_enter(const struct sandbox_plan *p)
{
    if (sanitizer_skips(p))
        return 0;
    scmp_filter_ctx ctx = begin(p);
    if (!ctx)
        return -1;
    int rc = allow_common(ctx, p);
    for (unsigned c = 0; c < p->ncpus; c++)
        for (size_t i = 0; i < sizeof(vcpu_ioctls) / sizeof(vcpu_ioctls[0]); i++)
            rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 2,
                                   arg_eq(0, p->vcpu_fds[c]),
                                   arg_eq(1, vcpu_ioctls[i]));
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 2, arg_eq(0, p->vm_fd),
                           arg_eq(1, KVM_IRQ_LINE));
    if (p->snapshot)
        rc |= allow_snapshot_save(ctx, p);
    /* vCPU threads are started after the filter: they inherit it. */
    return load_filter(ctx, rc, "the seccomp filter");
}

/* What a sweep asks of KVM after the filter, on fds that are new for each
 * cell (vmm/tools/fault_sweep.c's restore): vmm_create_vm, vmm_setup_vcpu
 * and the baseline's dirty page log (vmm/kvm/kvm.c), the snapshots' save and load
 * (vmm/kvm/snapshot.c) and the run loop (vmm/kvm/run.c). */
static const unsigned long sweep_vm_ioctls[] = {
    KVM_SET_USER_MEMORY_REGION, KVM_SET_TSS_ADDR, KVM_CREATE_IRQCHIP, KVM_CREATE_PIT2, KVM_CREATE_VCPU,
    KVM_IRQ_LINE, KVM_GET_IRQCHIP, KVM_SET_IRQCHIP, KVM_GET_PIT2, KVM_SET_PIT2, KVM_GET_DIRTY_LOG,
};
static const unsigned long sweep_vcpu_ioctls[] = {
    KVM_RUN, KVM_GET_REGS, KVM_SET_REGS, KVM_GET_SREGS, KVM_SET_SREGS, KVM_GET_FPU, KVM_SET_FPU,
    KVM_GET_VCPU_EVENTS, KVM_SET_VCPU_EVENTS, KVM_SET_CPUID2, KVM_GET_LAPIC, KVM_SET_LAPIC, KVM_GET_MSRS,
    KVM_SET_MSRS, KVM_GET_XSAVE, KVM_SET_XSAVE, KVM_GET_XCRS, KVM_SET_XCRS, KVM_GET_DEBUGREGS, KVM_SET_DEBUGREGS,
    KVM_GET_MP_STATE, KVM_SET_MP_STATE,
};
/* On /dev/kvm itself, whose fd stays. */
static const unsigned long sweep_system_ioctls[] = {
    KVM_CREATE_VM, KVM_GET_VCPU_MMAP_SIZE, KVM_GET_SUPPORTED_CPUID, KVM_GET_MSR_INDEX_LIST,
};

static int allow_ioctls(scmp_filter_ctx ctx, const unsigned long *req, size_t n)
{
    int rc = 0;
    for (size_t i = 0; i < n; i++)
        rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1, arg_eq(1, req[i]));
    return rc;
}

int sandbox_enter_sweep(const struct sandbox_plan *p)
{
    if (sanitizer_skips(p))
        return 0;
    scmp_filter_ctx ctx = begin(p);
    if (!ctx)
        return -1;
    int rc = allow_common(ctx, p);
    rc |= allow_ioctls(ctx, sweep_vm_ioctls, sizeof(sweep_vm_ioctls) / sizeof(sweep_vm_ioctls[0]));
    rc |= allow_ioctls(ctx, sweep_vcpu_ioctls, sizeof(sweep_vcpu_ioctls) / sizeof(sweep_vcpu_ioctls[0]));
    for (size_t i = 0; i < sizeof(sweep_system_ioctls) / sizeof(sweep_system_ioctls[0]); i++)
        rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 2, arg_eq(0, p->kvm_fd),
                               arg_eq(1, sweep_system_ioctls[i]));
    if (p->sweep_matrix_fd >= 0)
        rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(write), 1, arg_eq(0, p->sweep_matrix_fd));
    if (p->sweep_baseline_fd >= 0)
        rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(read), 1, arg_eq(0, p->sweep_baseline_fd));
    return load_filter(ctx, rc, "the fault sweep's seccomp filter");
}
