/* Under each filter vmm/host/sandbox.c builds (the run's
 * and --fault-sweep's), a representative call of each family a guest must
 * never make the VMM issue fails with EPERM, and what the VMM needs still
 * goes through. Each filter is entered for real (sandbox_enter and
 * sandbox_enter_sweep on a plan whose descriptors stand in for
 * /dev/kvm, the VM and the vCPU) in a child of its own, as the filter
 * cannot be left. No KVM needed. Prints TAP-like lines; exit 1 on any
 * failure. Each call is made harmless: a path that does not exist, a
 * signal 0, bad flags, and it is first made without the filter so that a
 * call which fails with EPERM anyway (no privilege) is reported as such. */
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "../../vmm/host/files.h"
#include "../../vmm/host/sandbox.h"

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif

#define NOPE "/nonexistent-handover-sandbox-test"

static struct sandbox_plan plan = { .outputs = { 1, 2, 2, 2, 2, 2, 2 }, .sweep_matrix_fd = -1, .sweep_baseline_fd = -1 };
static int vcpu_fd;
static int other_fd;   /* open before the filter, not one the VMM writes or reads */
static char buf[64];

/* -1 and errno, or the call's result; what it made is undone. */
static long made(long r)
{
    int e = errno;
    if (r >= 0 && r > 2 && r != other_fd && r < 1024)   /* a new descriptor */
        close((int)r);
    errno = e;
    return r;
}

struct call {
    const char *family;
    long (*fn)(void);
    bool no_control;   /* not made without the filter (it would fork) */
};

static long c_openat(void) { return made(syscall(SYS_openat, AT_FDCWD, NOPE, O_RDONLY)); }
static long c_open_creat(void) { return made(syscall(SYS_openat, AT_FDCWD, NOPE "/x", O_WRONLY | O_CREAT, 0600)); }
static long c_io_uring(void) { return made(syscall(SYS_io_uring_setup, 0, NULL)); }
static long c_renameat(void) { return syscall(SYS_renameat, AT_FDCWD, NOPE, AT_FDCWD, NOPE "-b"); }
static long c_unlinkat(void) { return syscall(SYS_unlinkat, AT_FDCWD, NOPE, 0); }
static long c_mknodat(void) { return syscall(SYS_mknodat, AT_FDCWD, NOPE "/p", S_IFIFO | 0600, 0); }
static long c_fchmodat2(void) { return syscall(SYS_fchmodat2, AT_FDCWD, NOPE, 0600, 0); }
static long c_setxattr(void) { return syscall(SYS_setxattr, NOPE, "user.x", "", 0, 0); }
static long c_utimensat(void) { return syscall(SYS_utimensat, AT_FDCWD, NOPE, NULL, 0); }
static long c_lchown(void) { return syscall(SYS_lchown, NOPE, -1, -1); }
static long c_execve(void) { return syscall(SYS_execve, NOPE, NULL, NULL); }
static long c_fork(void) { return syscall(SYS_fork); }
static long c_clone_process(void) { return syscall(SYS_clone, SIGCHLD, 0, NULL, NULL, 0); }
static long c_socket(void) { return made(syscall(SYS_socket, AF_UNIX, SOCK_STREAM, 0)); }
static long c_ptrace(void) { return syscall(SYS_ptrace, 16 /* PTRACE_ATTACH */, 0x7ffffff0, NULL, NULL); }
static long c_kill(void) { return syscall(SYS_kill, getppid(), 0); }
static long c_tkill(void) { return syscall(SYS_tkill, getppid(), 0); }
static long c_tgkill_other(void) { return syscall(SYS_tgkill, getppid(), getppid(), 0); }
static long c_rt_sigqueueinfo(void) { return syscall(SYS_rt_sigqueueinfo, getppid(), 0, NULL); }
static long c_pidfd_open(void) { return made(syscall(SYS_pidfd_open, getppid(), 0)); }
static long c_unshare(void) { return syscall(SYS_unshare, 0); }
static long c_setns(void) { return syscall(SYS_setns, -1, 0); }
static long c_fsopen(void) { return made(syscall(SYS_fsopen, "handover-no-such-fs", 0)); }
static long c_open_tree(void) { return made(syscall(SYS_open_tree, AT_FDCWD, NOPE, 0)); }
static long c_move_mount(void) { return syscall(SYS_move_mount, -1, "", -1, "", 0); }
static long c_mount(void) { return syscall(SYS_mount, NOPE, NOPE, "tmpfs", 0, NULL); }
static long c_setresuid(void) { return syscall(SYS_setresuid, -1, -1, -1); }
static long c_setreuid(void) { return syscall(SYS_setreuid, -1, -1); }
static long c_setfsuid(void) { return syscall(SYS_setfsuid, -1); }
static long c_init_module(void) { return syscall(SYS_init_module, NULL, 0, ""); }
static long c_finit_module(void) { return syscall(SYS_finit_module, -1, "", 0); }
static long c_kexec_load(void) { return syscall(SYS_kexec_load, 0, 0, NULL, 0x80000000UL /* no such flag */); }
static long c_reboot(void) { return syscall(SYS_reboot, 0, 0, 0, NULL); /* no magic */ }
static long c_process_vm_readv(void) { return syscall(SYS_process_vm_readv, getppid(), NULL, 0, NULL, 0, 0); }
static long c_process_vm_writev(void) { return syscall(SYS_process_vm_writev, getppid(), NULL, 0, NULL, 0, 0); }
static long c_bpf(void) { return made(syscall(SYS_bpf, -1, NULL, 0)); }
static long c_perf_event_open(void) { return made(syscall(SYS_perf_event_open, NULL, 0, -1, -1, 0)); }
static long c_memfd_create(void) { return made(syscall(SYS_memfd_create, "handover-test", 0)); }
static long c_userfaultfd(void) { return made(syscall(SYS_userfaultfd, 0)); }
static long c_mmap_exec(void)
{
    long p = syscall(SYS_mmap, NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p != -1)
        munmap((void *)p, 4096);
    return p == -1 ? -1 : 0;
}
static long c_mprotect_exec(void)
{
    void *p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    long r = syscall(SYS_mprotect, p, 4096, PROT_READ | PROT_EXEC);
    int e = errno;
    munmap(p, 4096);
    errno = e;
    return r;
}
static long c_write_other(void) { return syscall(SYS_write, other_fd, "x", 1); }
static long c_read_other(void) { return syscall(SYS_read, other_fd, buf, 1); }
static long c_ioctl_tiocsti(void) { char c = 'x'; return syscall(SYS_ioctl, other_fd, TIOCSTI, &c); }
static long c_ioctl_kvm_other_fd(void) { return syscall(SYS_ioctl, other_fd, KVM_CREATE_VM, 0); }
static long c_prctl(void) { return syscall(SYS_prctl, PR_SET_DUMPABLE, 1, 0, 0, 0); }
static long c_chroot(void) { return syscall(SYS_chroot, NOPE); }

static const struct call denied[] = {
    { "openat", c_openat, false },                 { "openat O_CREAT", c_open_creat, false },
    { "io_uring_setup", c_io_uring, false },       { "renameat", c_renameat, false },
    { "unlinkat", c_unlinkat, false },             { "mknodat", c_mknodat, false },
    { "fchmodat2", c_fchmodat2, false },           { "setxattr", c_setxattr, false },
    { "utimensat", c_utimensat, false },           { "lchown", c_lchown, false },
    { "execve", c_execve, false },                 { "fork", c_fork, true },
    { "clone (a process)", c_clone_process, true }, { "socket", c_socket, false },
    { "ptrace", c_ptrace, false },                 { "kill", c_kill, false },
    { "tkill", c_tkill, false },                   { "tgkill (another process)", c_tgkill_other, false },
    { "rt_sigqueueinfo", c_rt_sigqueueinfo, false }, { "pidfd_open", c_pidfd_open, false },
    { "unshare", c_unshare, false },               { "setns", c_setns, false },
    { "fsopen", c_fsopen, false },                 { "open_tree", c_open_tree, false },
    { "move_mount", c_move_mount, false },         { "mount", c_mount, false },
    { "chroot", c_chroot, false },                 { "setresuid", c_setresuid, false },
    { "setreuid", c_setreuid, false },             { "setfsuid", c_setfsuid, false },
    { "init_module", c_init_module, false },       { "finit_module", c_finit_module, false },
    { "kexec_load", c_kexec_load, false },         { "reboot", c_reboot, false },
    { "process_vm_readv", c_process_vm_readv, false }, { "process_vm_writev", c_process_vm_writev, false },
    { "bpf", c_bpf, false },                       { "perf_event_open", c_perf_event_open, false },
    { "memfd_create", c_memfd_create, false },     { "userfaultfd", c_userfaultfd, false },
    { "mmap PROT_EXEC", c_mmap_exec, false },      { "mprotect PROT_EXEC", c_mprotect_exec, false },
    { "write (another file)", c_write_other, false }, { "read (another file)", c_read_other, false },
    { "ioctl TIOCSTI", c_ioctl_tiocsti, false },   { "ioctl KVM_CREATE_VM (not /dev/kvm)", c_ioctl_kvm_other_fd, false },
    { "prctl", c_prctl, false },
};
#define NDENIED (sizeof(denied) / sizeof(denied[0]))

/* Without the filter: errno of each call (0 if it succeeded, -1 not made). */
static void controls(int out[NDENIED])
{
    for (size_t i = 0; i < NDENIED; i++) {
        errno = 0;
        out[i] = denied[i].no_control ? -1 : denied[i].fn() < 0 ? errno : 0;
    }
}

/* In the child: enter the filter, then report each call's errno through
 * the pipe, and check what must still work. */
static void child(int (*enter)(const struct sandbox_plan *), int wfd)
{
    int res[NDENIED + 2];
    /* The results go out as the trace does: a descriptor the filter lets
     * the VMM write. */
    plan.outputs[2] = wfd;
    if (enter(&plan)) {
        fprintf(stderr, "cannot enter the filter\n");
        _exit(2);
    }
    for (size_t i = 0; i < NDENIED; i++) {
        errno = 0;
        long r = denied[i].fn();
        res[i] = r < 0 ? errno : 0;
        if (r >= 0 && (denied[i].fn == c_fork || denied[i].fn == c_clone_process) && r == 0)
            _exit(0);   /* the filter let a process be made: the child of it leaves */
    }
    /* Allowed: a KVM request on the vCPU fd reaches the (non-KVM) file
     * and fails there, not with EPERM; a write to stderr goes out. */
    errno = 0;
    res[NDENIED] = ioctl(vcpu_fd, KVM_RUN, 0) < 0 ? errno : 0;
    res[NDENIED + 1] = write(2, "", 0) < 0 ? errno : 0;
    if (write(wfd, res, sizeof(res)) != (ssize_t)sizeof(res))
        _exit(3);
    _exit(0);
}

static int passes, failures;

static void check(const char *filter, const int ctl[NDENIED], const int got[NDENIED + 2])
{
    for (size_t i = 0; i < NDENIED; i++) {
        bool ok = got[i] == EPERM;
        const char *note = ctl[i] == EPERM ? " (EPERM without the filter too: no privilege here)" : "";
        printf("%s - %s filter: %s -> %s%s\n", ok ? "ok" : "not ok", filter, denied[i].family,
               got[i] ? strerror(got[i]) : "allowed", note);
        failures += !ok;
        passes += ok;
    }
    bool run_ok = got[NDENIED] != EPERM, write_ok = got[NDENIED + 1] == 0;
    printf("%s - %s filter: ioctl KVM_RUN on the vCPU fd reaches it (%s)\n", run_ok ? "ok" : "not ok", filter,
           strerror(got[NDENIED]));
    printf("%s - %s filter: write to stderr\n", write_ok ? "ok" : "not ok", filter);
    failures += !run_ok + !write_ok;
    passes += run_ok + write_ok;
}

/* body(enter, wfd) in a child, which writes size bytes of answers to wfd
 * and exits 0; true if they all came, into got. */
static bool in_child(const char *name, void (*body)(int (*)(const struct sandbox_plan *), int),
                     int (*enter)(const struct sandbox_plan *), int *got, size_t size)
{
    int p[2];
    if (pipe(p)) {
        perror("pipe");
        exit(2);
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        body(enter, p[1]);
    }
    close(p[1]);
    int status = 0;
    ssize_t n = read(p[0], got, size);
    close(p[0]);
    waitpid(pid, &status, 0);
    if (n == (ssize_t)size && WIFEXITED(status) && !WEXITSTATUS(status))
        return true;
    printf("not ok - %s filter: the child ended with status 0x%x before reporting\n", name, status);
    failures++;
    return false;
}

static void under(const char *name, int (*enter)(const struct sandbox_plan *), const int ctl[NDENIED])
{
    int got[NDENIED + 2];
    if (in_child(name, child, enter, got, sizeof(got)))
        check(name, ctl, got);
}

/* RLIMIT_FSIZE: what the outputs may add, on top of the biggest file,
 * never wrapped to a small limit by a huge --console-limit. */
static void file_size_limit(void)
{
    struct sandbox_plan q = plan;
    const uint64_t mib = 1 << 20;
    q.output_allowance = 2 * mib;
    uint64_t small = sandbox_file_size_limit(&q, mib);
    bool ok = small >= 3 * mib && small != RLIM_INFINITY;
    printf("%s - file size limit: 1 MiB file and 2 MiB allowance -> %llu\n", ok ? "ok" : "not ok",
           (unsigned long long)small);
    passes += ok;
    failures += !ok;
    q.output_allowance = UINT64_MAX - mib;   /* --console-limit 0xfffffffffff00000 */
    uint64_t huge = sandbox_file_size_limit(&q, 2 * mib);
    ok = huge == RLIM_INFINITY;
    printf("%s - file size limit: an allowance near 2^64 -> %llu (RLIM_INFINITY, not wrapped)\n", ok ? "ok" : "not ok",
           (unsigned long long)huge);
    passes += ok;
    failures += !ok;
}

/* --snapshot's first run removes its two files in DIR when it ends
 * unsaved (warm_boot_free): unlinkat of a file on DIR's fd reaches the
 * file system (ENOENT for a name that is not there), a directory's
 * removal (AT_REMOVEDIR) does not. Its save syncs the two files before
 * their renames: fsync reaches the RAM file's stand-in (/dev/null:
 * EINVAL), never EPERM. */
static void unlink_in_dir(int (*enter)(const struct sandbox_plan *), int wfd)
{
    int got[3];
    plan.outputs[2] = wfd;   /* the answers go out as the trace does */
    if (enter(&plan))
        _exit(2);
    got[0] = syscall(SYS_unlinkat, plan.snapshot_dir_fd, "handover-sandbox-test-none", 0) < 0 ? errno : 0;
    got[1] = syscall(SYS_unlinkat, plan.snapshot_dir_fd, "handover-sandbox-test-none", AT_REMOVEDIR) < 0 ? errno : 0;
    got[2] = fsync(plan.snapshot_ram_fd) < 0 ? errno : 0;
    _exit(write(wfd, got, sizeof(got)) == (ssize_t)sizeof(got) ? 0 : 3);
}

static void snapshot_unlink(void)
{
    int got[3];
    if (!in_child("run --snapshot", unlink_in_dir, sandbox_enter, got, sizeof(got)))
        return;
    bool ok = got[0] == ENOENT;
    printf("%s - run --snapshot filter: unlinkat of a file in DIR reaches it (%s)\n", ok ? "ok" : "not ok",
           strerror(got[0]));
    failures += !ok;
    passes += ok;
    ok = got[1] == EPERM;
    printf("%s - run --snapshot filter: unlinkat AT_REMOVEDIR in DIR -> %s\n", ok ? "ok" : "not ok", strerror(got[1]));
    failures += !ok;
    passes += ok;
    ok = got[2] != EPERM;
    printf("%s - run --snapshot filter: fsync of the RAM file reaches it (%s)\n", ok ? "ok" : "not ok",
           strerror(got[2]));
    failures += !ok;
    passes += ok;
}

/* A whole output (vmm/host/files.c) is put in place under each filter:
 * its file synced, linked and renamed in its own directory. */
static char whole_dir[] = "/tmp/handover-sandbox-test-XXXXXX";
static char whole_path[sizeof(whole_dir) + 16];

static void commit_whole(int (*enter)(const struct sandbox_plan *), int wfd)
{
    struct whole_output o;
    int got = -1;
    if (vmm_open_whole("--report", whole_path, &o))
        _exit(2);
    plan.outputs[2] = wfd;   /* the answer goes out as the trace does */
    plan.outputs[3] = fileno(o.f);
    plan.whole[0] = (struct sandbox_whole){ fileno(o.f), o.dir_fd };
    if (enter(&plan))
        _exit(2);
    fputs("whole\n", o.f);
    got = vmm_whole_commit(&o) ? errno : 0;
    _exit(write(wfd, &got, sizeof(got)) == (ssize_t)sizeof(got) ? 0 : 3);
}

static void whole_output_committed(const char *name, int (*enter)(const struct sandbox_plan *))
{
    int got;
    char text[16] = { 0 };
    if (!in_child(name, commit_whole, enter, &got, sizeof(got)))
        return;
    FILE *f = fopen(whole_path, "r");
    bool ok = !got && f && fgets(text, sizeof(text), f) && !strcmp(text, "whole\n");
    printf("%s - %s filter: a whole output is put in place (%s)\n", ok ? "ok" : "not ok", name,
           got ? strerror(got) : f ? "its text" : "no file");
    if (f)
        fclose(f);
    unlink(whole_path);
    failures += !ok;
    passes += ok;
}

int main(void)
{
    /* Stand-ins for /dev/kvm, the VM and the vCPU (and what the VMM
     * never writes): /dev/null, so a request that gets through fails
     * with ENOTTY. */
    plan.kvm_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    plan.vm_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    vcpu_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    other_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    plan.vcpu_fds = &vcpu_fd;
    plan.ncpus = 1;
    plan.quiet = true;
    plan.output_allowance = 2 << 20;
    if (plan.kvm_fd < 0 || plan.vm_fd < 0 || vcpu_fd < 0 || other_fd < 0) {
        perror("/dev/null");
        return 2;
    }
    file_size_limit();
    int ctl[NDENIED];
    controls(ctl);
    under("run", sandbox_enter, ctl);
    under("sweep", sandbox_enter_sweep, ctl);
    if (!mkdtemp(whole_dir)) {
        perror("mkdtemp");
        return 2;
    }
    snprintf(whole_path, sizeof(whole_path), "%s/report", whole_dir);
    whole_output_committed("run", sandbox_enter);
    whole_output_committed("sweep", sandbox_enter_sweep);
    rmdir(whole_dir);
    /* --snapshot's first run: its save's writes and renames are allowed
     * on its own descriptors only, so every family above stays denied. */
    plan.snapshot = true;
    plan.snapshot_dir_fd = open("/tmp", O_PATH | O_DIRECTORY | O_CLOEXEC);
    plan.snapshot_ram_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    plan.snapshot_state_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    plan.snapshot_bytes = 256 << 20;
    if (plan.snapshot_dir_fd < 0 || plan.snapshot_ram_fd < 0 || plan.snapshot_state_fd < 0) {
        perror("the snapshot's stand-ins");
        return 2;
    }
    under("run --snapshot", sandbox_enter, ctl);
    snapshot_unlink();
    printf("%d passed, %d failed\n", passes, failures);
    return failures ? 1 : 0;
}
