/* vmm_open_kvm and vmm_setup_vcpu (vmm/kvm/kvm.c) against a faked KVM:
 * open, ioctl and mmap are wrapped at link time (-Wl,--wrap).
 * vmm_open_kvm: each way /dev/kvm can fail to be KVM's device gets its own
 * message, which says what to do. vmm_setup_vcpu: the vCPU "exists" but its kvm_run
 * page cannot be mapped. on_signal (vmm/kvm/run.c) writes through any
 * non-NULL vcpu->run, and a sweep's restore sets vCPUs up with it
 * installed: a failed mapping must leave run NULL, never MAP_FAILED.
 * vcpu_state_load (vmm/kvm/snapshot.c): the order a restore puts the
 * state in, as KVM takes it; warm_boot_free (vmm/tools/warm_boot.c): a
 * new snapshot's files, unsaved, removed. handle_io (vmm/kvm/run.c): an
 * OUT to the firmware-call port that no thunk makes, through vmm_run
 * with KVM_RUN faked, and a KVM system event that is no shutdown or reset.
 * run_vcpus (vmm/kvm/run.c) with several vCPUs whose guest never exits:
 * a vCPU thread that cannot start (pthread_create wrapped), a stop
 * signal the kernel could give to any thread, a guest halted for good
 * after ExitBootServices (vmm/kvm/halt_wake.c).
 * No /dev/kvm needed. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "../../vmm/host/log.h"
#include "../../vmm/kvm/snapshot.h"
#include "../../vmm/tools/warm_boot.h"
#include "../../vmm/vmm.h"

int __real_open(const char *path, int flags, ...);
int __real_ioctl(int fd, unsigned long request, ...);
void *__real_mmap(void *addr, size_t length, int prot, int flags, int fd, off_t offset);
int __real_pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *), void *arg);

static int fake_kvm_fd = -1, fake_vm_fd = -1, fake_vcpu_fd = -1;
static int fake_run_size = 2 * 4096;   /* what KVM_GET_VCPU_MMAP_SIZE answers */
static unsigned mmap_calls;
/* A restored vCPU (restore_fd): its LAPIC timer's mode, and the
 * IA32_TSC_DEADLINE KVM kept, which it takes only in TSC-deadline mode
 * (arch/x86/kvm/lapic.c, kvm_set_lapic_tscdeadline_msr). */
#define FAKE_LVTT 0x320
#define FAKE_LVTT_TSC_DEADLINE (2u << 17)
#define FAKE_MSR_TSC_DEADLINE 0x6e0
static int restore_fd = -1;
/* A vCPU whose first KVM_RUN exits with run_exit written into its
 * kvm_run page, its data at data_offset, and the next with a HLT (its
 * other ioctls fail, as on /dev/null). */
static int run_fd = -1;
static struct kvm_run *run_page;
static struct kvm_run run_exit;
static bool restore_lvtt_deadline;
static uint64_t restore_deadline;

/* What the restored vCPU does with request (every request succeeds). */
static int fake_restore_ioctl(unsigned long request, void *arg)
{
    if (request == KVM_SET_LAPIC) {
        uint32_t lvtt;
        memcpy(&lvtt, ((struct kvm_lapic_state *)arg)->regs + FAKE_LVTT, sizeof(lvtt));
        restore_lvtt_deadline = (lvtt & (3u << 17)) == FAKE_LVTT_TSC_DEADLINE;
    }
    if (request != KVM_SET_MSRS)
        return 0;
    struct kvm_msrs *m = arg;
    for (unsigned i = 0; i < m->nmsrs; i++)
        if (m->entries[i].index == FAKE_MSR_TSC_DEADLINE && restore_lvtt_deadline)
            restore_deadline = m->entries[i].data;
    return (int)m->nmsrs;
}
/* A run whose guest never exits (stuck_vm's vCPUs): each KVM_RUN
 * returns, as KVM's does, only with EINTR: at once if immediate_exit is
 * set or a signal is pending for its thread, else when one comes to that
 * thread. vCPU 0's first, once every other vCPU is in KVM_RUN, sends the
 * process signal_at_entry with every signal blocked on its own thread:
 * the kernel gives it to another thread that does not block it, if any
 * (kernel/signal.c, complete_signal). refused_thread: the argument of the
 * pthread_create that fails. */
static struct vmm *stuck_vm;
/* What KVM says of stuck vCPU i after a kick (halt_wake.c): its mp_state
 * (0 is KVM_MP_STATE_RUNNABLE) and RFLAGS. */
static uint32_t stuck_mp_state[4];
static uint64_t stuck_rflags[4];
static int signal_at_entry;
static unsigned stuck_in_run;
static void *refused_thread;

int __wrap_pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *), void *arg)
{
    if (arg && arg == refused_thread)
        return EAGAIN;
    return __real_pthread_create(thread, attr, start, arg);
}

static struct vcpu *stuck_vcpu(int fd)
{
    for (unsigned i = 0; stuck_vm && fd >= 0 && i < stuck_vm->opt.cpus; i++)
        if (stuck_vm->vcpus[i].fd == fd)
            return &stuck_vm->vcpus[i];
    return NULL;
}

static bool signal_is_pending(int sig)
{
    sigset_t set;
    return !sigpending(&set) && sigismember(&set, sig) == 1;
}

static void send_signal_at_entry(void)
{
    while (__atomic_load_n(&stuck_in_run, __ATOMIC_SEQ_CST) + 1 < stuck_vm->opt.cpus)
        usleep(1000);
    usleep(50 * 1000);   /* each other vCPU from its count into its wait */
    kill(getpid(), signal_at_entry);
    /* Until a thread takes it, or for half a second if none does: the
     * signal waits in the process's pending set until the thread the
     * kernel chose takes it, and this thread would race that one. */
    for (int ms = 0; ms < 500 && signal_is_pending(signal_at_entry); ms++)
        usleep(1000);
    signal_at_entry = 0;
}

static int stuck_run(struct vcpu *c)
{
    sigset_t all, was;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &was);
    if (!c->run->immediate_exit) {
        if (c->id == 0 && signal_at_entry)
            send_signal_at_entry();
        else if (c->id != 0)
            __atomic_add_fetch(&stuck_in_run, 1, __ATOMIC_SEQ_CST);
        sigsuspend(&was);
    }
    pthread_sigmask(SIG_SETMASK, &was, NULL);
    errno = EINTR;
    return -1;
}

/* What opening /dev/kvm gives: an errno, or 0 for /dev/null, a device
 * that answers no KVM ioctl unless dev_kvm_answers: then it is a KVM of
 * this API version with every capability but dev_kvm_lacks. */
static int dev_kvm_errno, dev_kvm_fd = -1;
static bool dev_kvm_answers;
static long dev_kvm_lacks = -1;

int __wrap_open(const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    int mode = va_arg(ap, int);
    va_end(ap);
    if (strcmp(path, "/dev/kvm"))
        return __real_open(path, flags, mode);
    if (dev_kvm_errno) {
        errno = dev_kvm_errno;
        return -1;
    }
    dev_kvm_fd = __real_open("/dev/null", flags, mode);
    return dev_kvm_fd;
}

int __wrap_ioctl(int fd, unsigned long request, ...)
{
    va_list ap;
    va_start(ap, request);
    void *arg = va_arg(ap, void *);
    va_end(ap);
    if (fd == fake_vm_fd && request == KVM_CREATE_VCPU) {
        fake_vcpu_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
        return fake_vcpu_fd;
    }
    if (dev_kvm_answers && fd == dev_kvm_fd && request == KVM_GET_API_VERSION)
        return KVM_API_VERSION;
    if (dev_kvm_answers && fd == dev_kvm_fd && request == KVM_CHECK_EXTENSION)
        return (long)(uintptr_t)arg != dev_kvm_lacks;
    if (fd == fake_kvm_fd && request == KVM_GET_VCPU_MMAP_SIZE)
        return fake_run_size;
    if (fd >= 0 && fd == restore_fd)
        return fake_restore_ioctl(request, arg);
    if (request == KVM_RUN && stuck_vcpu(fd))
        return stuck_run(stuck_vcpu(fd));
    if (request == KVM_GET_MP_STATE && stuck_vcpu(fd)) {
        ((struct kvm_mp_state *)arg)->mp_state = stuck_mp_state[stuck_vcpu(fd)->id];
        return 0;
    }
    if (request == KVM_GET_REGS && stuck_vcpu(fd)) {
        *(struct kvm_regs *)arg = (struct kvm_regs){ .rflags = stuck_rflags[stuck_vcpu(fd)->id] };
        return 0;
    }
    if (fd >= 0 && fd == run_fd && request == KVM_RUN) {
        memcpy(run_page, &run_exit, sizeof(run_exit));
        run_exit.exit_reason = KVM_EXIT_HLT;
        return 0;
    }
    return __real_ioctl(fd, request, arg);
}

void *__wrap_mmap(void *addr, size_t length, int prot, int flags, int fd, off_t offset)
{
    if (fd >= 0 && fd == fake_vcpu_fd) {
        mmap_calls++;
        errno = ENOMEM;
        return MAP_FAILED;
    }
    return __real_mmap(addr, length, prot, flags, fd, offset);
}

/* A VM of one vCPU whose /dev/kvm and VM fds are the fake's. */
static void fake_vm(struct vmm *vm)
{
    fake_kvm_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    fake_vm_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    ck_assert_int_ge(fake_kvm_fd, 0);
    ck_assert_int_ge(fake_vm_fd, 0);
    vm->kvm_fd = fake_kvm_fd;
    vm->vm_fd = fake_vm_fd;
    vm->opt.cpus = 1;
}

/* What vmm_log says from log_to_memory to log_stop goes to *text (freed
 * by the caller). */
static FILE *log_to_memory(char **text, size_t *len)
{
    FILE *log = open_memstream(text, len);
    ck_assert_ptr_nonnull(log);
    vmm_set_log_file(log);
    return log;
}

static void log_stop(FILE *log)
{
    vmm_set_log_file(NULL);
    fclose(log);
}

START_TEST(failed_kvm_run_mapping_leaves_run_null)
{
    static struct vmm vm;
    fake_vm(&vm);
    ck_assert_int_eq(vmm_setup_vcpu(&vm, 0), -1);
    ck_assert_uint_eq(mmap_calls, 1);
    ck_assert_ptr_null(vm.vcpus[0].run);
}
END_TEST

/* A kvm_run mapping KVM says is smaller than struct kvm_run is refused
 * saying so: the call succeeded, and its errno (stale) said nothing. */
START_TEST(a_kvm_run_smaller_than_its_struct_is_named)
{
    static struct vmm vm;
    char *text = NULL;
    size_t len = 0;
    FILE *log = log_to_memory(&text, &len);
    fake_vm(&vm);
    fake_run_size = 16;
    errno = 0;
    ck_assert_int_eq(vmm_setup_vcpu(&vm, 0), -1);
    log_stop(log);
    ck_assert_msg(strstr(text, "KVM_GET_VCPU_MMAP_SIZE: 16 bytes, less than a struct kvm_run"), "said \"%s\"", text);
    ck_assert_uint_eq(mmap_calls, 0);
    free(text);
}
END_TEST

/* What vmm_open_kvm says when /dev/kvm opens with error e (0: it opens,
 * but is not KVM's device). */
static char *open_kvm_message(int e)
{
    static struct vmm vm;
    char *text = NULL;
    size_t len = 0;
    FILE *log = log_to_memory(&text, &len);
    dev_kvm_errno = e;
    ck_assert_int_eq(vmm_open_kvm(&vm), -1);
    log_stop(log);
    if (vm.kvm_fd >= 0)
        close(vm.kvm_fd);
    return text;
}

START_TEST(each_way_dev_kvm_fails_is_named)
{
    static const struct { int e; const char *says; } cases[] = {
        { ENOENT, "/dev/kvm does not exist: load the kvm module" },
        { EACCES, "/dev/kvm: permission denied: add yourself to the 'kvm' group" },
        { ENXIO, "/dev/kvm: No such device or address" },
        { 0, "/dev/kvm: KVM_GET_API_VERSION: Inappropriate ioctl for device: the device is not KVM's" },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *text = open_kvm_message(cases[i].e);
        ck_assert_msg(strstr(text, cases[i].says), "errno %d: said \"%s\", not \"%s\"", cases[i].e, text,
                      cases[i].says);
        free(text);
    }
}
END_TEST

/* A KVM too old for a capability the run uses is refused as it is
 * opened, naming the capability (Documentation/virt/kvm/api.rst gives
 * each ioctl's), not later by the ioctl's bare errno; one with them all
 * opens. */
START_TEST(a_kvm_without_a_needed_capability_is_named)
{
    static const struct { long cap; const char *says; } cases[] = {
        { KVM_CAP_USER_MEMORY, "KVM_CAP_USER_MEMORY" }, { KVM_CAP_SET_TSS_ADDR, "KVM_CAP_SET_TSS_ADDR" },
        { KVM_CAP_IRQCHIP, "KVM_CAP_IRQCHIP" },         { KVM_CAP_PIT2, "KVM_CAP_PIT2" },
        { KVM_CAP_EXT_CPUID, "KVM_CAP_EXT_CPUID" },     { KVM_CAP_IMMEDIATE_EXIT, "KVM_CAP_IMMEDIATE_EXIT" },
    };
    dev_kvm_answers = true;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        dev_kvm_lacks = cases[i].cap;
        char *text = open_kvm_message(0);
        ck_assert_msg(strstr(text, cases[i].says) && strstr(text, "too old"), "lacking %s: said \"%s\"",
                      cases[i].says, text);
        free(text);
    }
    static struct vmm vm;
    dev_kvm_lacks = -1;
    ck_assert_int_eq(vmm_open_kvm(&vm), 0);
    close(vm.kvm_fd);
}
END_TEST

/* A guest whose LAPIC timer was armed in TSC-deadline mode when it was
 * saved gets its deadline back: KVM drops the MSR put before the LAPIC. */
START_TEST(restore_keeps_the_tsc_deadline)
{
    struct kvm_msr_entry msrs[] = { { .index = 0x10, .data = 1000 }, { .index = FAKE_MSR_TSC_DEADLINE, .data = 5000 } };
    static struct vcpu_state st;
    const uint32_t lvtt = FAKE_LVTT_TSC_DEADLINE | 0xec;
    memcpy(st.lapic.regs + FAKE_LVTT, &lvtt, sizeof(lvtt));
    st.msrs = msrs;
    st.nmsrs = 2;
    restore_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    ck_assert_int_ge(restore_fd, 0);
    const char *what = NULL;
    ck_assert_int_eq(vcpu_state_load(restore_fd, &st, &what), 0);
    ck_assert_uint_eq(restore_deadline, 5000);
    close(restore_fd);
    restore_fd = -1;
}
END_TEST

/* A run that ends before its save (a signal, a timeout, a crash) leaves
 * no ram.tmp or state.tmp in the --snapshot directory. */
START_TEST(unsaved_snapshot_files_are_removed)
{
    char dir[] = "/tmp/handover-kvm-fake-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    struct warm_boot w = { .dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) };
    ck_assert_int_ge(w.dir_fd, 0);
    int keep = dup(w.dir_fd);
    w.ram_fd = openat(keep, "ram.tmp", O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    w.state_fd = openat(keep, "state.tmp", O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    ck_assert_int_ge(w.ram_fd, 0);
    ck_assert_int_ge(w.state_fd, 0);
    warm_boot_free(&w);
    ck_assert_int_eq(faccessat(keep, "ram.tmp", F_OK, 0), -1);
    ck_assert_int_eq(faccessat(keep, "state.tmp", F_OK, 0), -1);
    unlinkat(keep, "ram.tmp", 0);
    unlinkat(keep, "state.tmp", 0);
    close(keep);
    ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* A step that failed while a stop signal came ends as the signal (the
 * signal-sweep check once saw KVM_CREATE_VM cut short by its SIGTERM, in a
 * sweep cell's restore, end as a host error, exit 3); SIGHUP ignored from
 * the start (nohup) stays ignored. Each test runs in its own process. */
START_TEST(a_step_cut_short_by_a_stop_signal_ends_as_the_signal)
{
    static struct vmm vm;
    struct sigaction was;
    ck_assert(signal(SIGHUP, SIG_IGN) != SIG_ERR);
    ck_assert_int_eq(vmm_catch_stop_signals(&vm), 0);
    ck_assert_int_eq(sigaction(SIGHUP, NULL, &was), 0);
    ck_assert(was.sa_handler == SIG_IGN);
    ck_assert_int_eq(raise(SIGHUP), 0);
    ck_assert_int_eq(vmm_step_end(&vm, EXIT_HOST, "in a test"), EXIT_HOST);
    ck_assert_int_eq(raise(SIGTERM), 0);
    ck_assert_int_eq(vmm_step_end(&vm, EXIT_HOST, "in a test"), EXIT_SIGNAL_BASE + SIGTERM);
    ck_assert_int_eq(vm.run.stopped_by_signal, SIGTERM);
}
END_TEST

/* The reader of a full pipe that stdout is: it kicks the console's
 * writer (the thread kick) while its write waits, and only then reads
 * everything, to the end. */
struct slow_reader {
    int fd;
    pthread_t kick;
};

static void *kick_then_read(void *arg)
{
    struct slow_reader *r = arg;
    struct timespec wait = { 0, 100 * 1000 * 1000 };
    char buf[4096];
    nanosleep(&wait, NULL);
    pthread_kill(r->kick, SIGUSR1);
    nanosleep(&wait, NULL);
    while (read(r->fd, buf, sizeof(buf)) > 0)
        continue;
    return NULL;
}

/* A console line printed to a slow reader is not a failed write because
 * a kick (SIGUSR1: halt_wake.c's in the firmware phase, stop_all's) came
 * while it waited: the kick is for KVM_RUN, which it makes return
 * whether or not its handler restarts calls (-EINTR, never restarted:
 * kernel/entry/kvm.c), and a write cut short by it ended the run as
 * "stdout: write failed: Interrupted system call", exit status 3. */
START_TEST(a_kick_fails_no_console_write_to_a_slow_reader)
{
    static struct vmm vm;
    vm.run.opt.console_limit = 1 << 20;
    ck_assert_int_eq(vmm_catch_stop_signals(&vm), 0);
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    ck_assert_int_eq(fcntl(p[1], F_SETFL, O_NONBLOCK), 0);
    char fill[4096] = { 0 };
    while (write(p[1], fill, sizeof(fill)) > 0)
        continue;
    ck_assert_int_eq(fcntl(p[1], F_SETFL, 0), 0);
    ck_assert_int_eq(dup2(p[1], STDOUT_FILENO), STDOUT_FILENO);
    close(p[1]);
    struct slow_reader r = { .fd = p[0], .kick = pthread_self() };
    pthread_t reader;
    ck_assert_int_eq(pthread_create(&reader, NULL, kick_then_read, &r), 0);
    for (const char *c = "a line to a slow reader\n"; *c; c++)
        vmm_console_tx(&vm, (uint8_t)*c);
    ck_assert_msg(!ferror(stdout) && !vm.console.write_errno, "the write failed: %s",
                  strerror(vm.console.write_errno));
    close(STDOUT_FILENO);
    pthread_join(reader, NULL);
    close(p[0]);
}
END_TEST

/* What a run whose vCPU's one exit is e ends with: its status, the
 * firmware calls it made and its log, in *log (freed by the caller). */
static int run_one_exit(const struct kvm_run *e, unsigned long long *calls, char **log)
{
    static struct vmm vm;
    size_t len = 0;
    FILE *f = open_memstream(log, &len);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(vmm_catch_stop_signals(&vm), 0);
    run_page = calloc(1, 4096);
    ck_assert_ptr_nonnull(run_page);
    run_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    ck_assert_int_ge(run_fd, 0);
    vm.opt.cpus = 1;
    vm.vcpus[0] = (struct vcpu){ .vm = &vm, .fd = run_fd, .run = run_page };
    run_exit = *e;
    int rc = vmm_run(&vm, &(struct run_options){ .log = f });
    fclose(f);
    *calls = (unsigned long long)vm.counters.hypercalls;
    close(run_fd);
    run_fd = -1;
    free(run_page);
    return rc;
}

/* An OUT of count elements of size bytes to the firmware-call port 0xEC. */
static int run_firmware_port_out(uint32_t count, uint8_t size, unsigned long long *calls, char **log)
{
    struct kvm_run e = { .exit_reason = KVM_EXIT_IO };
    e.io.direction = KVM_EXIT_IO_OUT;
    e.io.port = 0xec;
    e.io.size = size;
    e.io.count = count;
    e.io.data_offset = 1024;
    return run_one_exit(&e, calls, log);
}

/* A REP OUTSD to the firmware-call port once made each element a full
 * firmware call with the same registers: a thunk makes one 4-byte OUT
 * (firmware-stub/tables.c), and any other OUT there but the kernel-entry
 * trap's one byte is refused once, with no call. */
START_TEST(an_out_no_thunk_makes_to_the_firmware_port_is_refused)
{
    static const struct { uint32_t count; uint8_t size; } cases[] = { { 3, 4 }, { 2, 1 }, { 1, 2 } };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        unsigned long long calls;
        char *log = NULL, want[96];
        int rc = run_firmware_port_out(cases[i].count, cases[i].size, &calls, &log);
        snprintf(want, sizeof(want), "port 0xec of %u element(s) of %u byte(s)", cases[i].count, cases[i].size);
        ck_assert_msg(rc == EXIT_GUEST_CRASH && calls == 0 && strstr(log, want),
                      "count %u size %u: status %d, %llu calls, log \"%s\"", cases[i].count, cases[i].size, rc,
                      calls, log);
        ck_assert_ptr_eq(strstr(strstr(log, want) + 1, want), NULL);
        free(log);
    }
}
END_TEST

/* KVM_SYSTEM_EVENT_CRASH, which KVM gives for a Hyper-V guest's write to
 * the crash control MSR (arch/x86/kvm/hyperv.c, HV_X64_MSR_CRASH_CTL), once
 * ended the run as a shutdown, with exit status 0. */
START_TEST(a_crash_system_event_is_a_guest_crash)
{
    struct kvm_run e = { .exit_reason = KVM_EXIT_SYSTEM_EVENT };
    e.system_event.type = KVM_SYSTEM_EVENT_CRASH;
    unsigned long long calls;
    char *log = NULL;
    int rc = run_one_exit(&e, &calls, &log);
    ck_assert_msg(rc == EXIT_GUEST_CRASH && strstr(log, "guest stopped: KVM system event 3 (crash"),
                  "status %d, log \"%s\"", rc, log);
    free(log);
}
END_TEST

/* A run of cpus vCPUs stuck in the guest (stuck_run), after
 * ExitBootServices, with the timeout and log of o (none, and /dev/null,
 * if o is NULL): its status, every vCPU thread that started stopped. */
static int run_stuck(struct vmm *vm, unsigned cpus, const struct run_options *o)
{
    ck_assert_int_eq(vmm_catch_stop_signals(vm), 0);
    vm->opt.cpus = cpus;
    vm->fw.phase = FW_PHASE_RUNTIME;   /* the halt waker kicks every vCPU of a quiet guest */
    for (unsigned i = 0; i < cpus; i++) {
        vm->vcpus[i] = (struct vcpu){ .vm = vm, .id = i, .fd = open("/dev/null", O_RDWR | O_CLOEXEC),
                                      .run = calloc(1, 4096) };
        ck_assert_int_ge(vm->vcpus[i].fd, 0);
        ck_assert_ptr_nonnull(vm->vcpus[i].run);
    }
    stuck_vm = vm;
    if (o)
        return vmm_run(vm, o);
    FILE *log = fopen("/dev/null", "w");
    ck_assert_ptr_nonnull(log);
    int rc = vmm_run(vm, &(struct run_options){ .log = log });
    fclose(log);
    return rc;
}

/* The thread of vCPU 2 of 3 cannot start: vCPU 1's, started, was left
 * running in a VM its caller then destroys. */
START_TEST(a_vcpu_thread_that_cannot_start_stops_those_started)
{
    static struct vmm vm = { .lock = PTHREAD_MUTEX_INITIALIZER };
    refused_thread = &vm.vcpus[2];
    ck_assert_int_eq(run_stuck(&vm, 3, NULL), EXIT_HOST);
    pthread_mutex_lock(&vm.lock);
    bool exited = vm.vcpus[1].exited;
    pthread_mutex_unlock(&vm.lock);
    ck_assert_msg(exited, "vCPU 1's thread runs on");
}
END_TEST

/* A stop signal sent to the process while vCPU 0 runs the guest stops
 * the run, whichever thread the kernel would give it to: taken by another
 * vCPU's thread (vCPU 0 blocks it for a moment here), it left vCPU 0 in
 * KVM_RUN for good, and this test hung. */
START_TEST(a_stop_signal_stops_a_run_whose_vcpus_never_exit)
{
    static const struct { int sig, status; } cases[] = { { SIGTERM, EXIT_SIGNAL_BASE + SIGTERM },
                                                          { SIGALRM, EXIT_TIMEOUT } };
    static struct vmm vm = { .lock = PTHREAD_MUTEX_INITIALIZER };
    signal_at_entry = cases[_i].sig;
    ck_assert_int_eq(run_stuck(&vm, 4, NULL), cases[_i].status);
    for (unsigned i = 1; i < 4; i++)
        ck_assert(vm.vcpus[i].exited);
}
END_TEST

/* A guest that halted for good after ExitBootServices (every vCPU halted
 * with RFLAGS.IF clear, or waiting for INIT/SIPI: nothing can wake it)
 * sat in KVM_RUN until --timeout, or for ever without one. It ends at
 * once, as the console decides: the kernel's "reboot: System halted"
 * (kernel/reboot.c kernel_halt) is a halt on purpose, a success, or
 * --exec's status unknown; after a panic line, a panic; said nothing, a
 * crash. */
static const struct {
    uint32_t mp_state[2];
    uint64_t rflags[2];
    bool halt_said, panic, exec;
    int status;
    const char *end, *says;
} halted[] = {
    { { KVM_MP_STATE_HALTED, KVM_MP_STATE_HALTED }, { 0x2, 0x2 }, false, false, false, EXIT_GUEST_CRASH,
      "guest-crash", "every vCPU halted with interrupts off after ExitBootServices" },
    { { KVM_MP_STATE_HALTED, KVM_MP_STATE_UNINITIALIZED }, { 0x2, 0x202 }, false, false, false, EXIT_GUEST_CRASH,
      "guest-crash", "nothing can wake the guest" },
    { { KVM_MP_STATE_HALTED, KVM_MP_STATE_HALTED }, { 0x2, 0x2 }, true, false, false, EXIT_OK, "guest-halted",
      "guest halted: the kernel said \"reboot: System halted\"" },
    { { KVM_MP_STATE_HALTED, KVM_MP_STATE_HALTED }, { 0x2, 0x2 }, true, false, true, EXIT_EXEC_NO_STATUS,
      "exec-status-unknown", "--exec: the guest ended without reporting the command's exit status" },
    { { KVM_MP_STATE_HALTED, KVM_MP_STATE_INIT_RECEIVED }, { 0x2, 0x2 }, true, true, false, EXIT_PANIC,
      "kernel-panic", "kernel panic: Kernel panic - not syncing: test" },
};

START_TEST(a_guest_halted_for_good_after_ebs_ends_the_run)
{
    static struct vmm vm = { .lock = PTHREAD_MUTEX_INITIALIZER };
    char *text = NULL;
    size_t len = 0;
    FILE *log = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(log);
    memcpy(stuck_mp_state, halted[_i].mp_state, sizeof(halted[_i].mp_state));
    memcpy(stuck_rflags, halted[_i].rflags, sizeof(halted[_i].rflags));
    vm.console.halt_said = halted[_i].halt_said;
    if (halted[_i].panic)
        snprintf(vm.console.panic.line, sizeof(vm.console.panic.line), "Kernel panic - not syncing: test");
    vm.opt.exec = halted[_i].exec ? "halt -f" : NULL;
    vm.step = STEP_GUEST;
    int rc = run_stuck(&vm, 2, &(struct run_options){ .timeout = 60, .timeout_name = "--timeout", .log = log });
    fclose(log);
    struct run_end e = vmm_run_end(&vm, rc);
    ck_assert_msg(rc == halted[_i].status && !strcmp(end_reason(&e), halted[_i].end) && strstr(text, halted[_i].says),
                  "status %d, end %s, log \"%s\"", rc, end_reason(&e), text);
    ck_assert(vm.vcpus[1].exited);
    free(text);
}
END_TEST

/* A guest one of whose vCPUs can still run is not dead: a vCPU halted with
 * interrupts on (an idle kernel, its timer to come), or one KVM calls
 * runnable (an emulating KVM may finish a HLT itself). The run goes on
 * to its --timeout. */
START_TEST(a_guest_with_a_vcpu_that_can_wake_runs_on)
{
    static const uint32_t other[] = { KVM_MP_STATE_HALTED, KVM_MP_STATE_RUNNABLE };
    static struct vmm vm = { .lock = PTHREAD_MUTEX_INITIALIZER };
    stuck_mp_state[0] = KVM_MP_STATE_HALTED;
    stuck_rflags[0] = 0x2;
    stuck_mp_state[1] = other[_i];
    stuck_rflags[1] = 0x202;
    FILE *log = fopen("/dev/null", "w");
    ck_assert_ptr_nonnull(log);
    int rc = run_stuck(&vm, 2, &(struct run_options){ .timeout = 1, .timeout_name = "--timeout", .log = log });
    fclose(log);
    ck_assert_int_eq(rc, EXIT_TIMEOUT);
}
END_TEST

int main(void)
{
    const struct {
        const char *tcase;
        const TTest *test;
    } tests[] = {
        { "vcpu_setup", failed_kvm_run_mapping_leaves_run_null },
        { "vcpu_setup", a_kvm_run_smaller_than_its_struct_is_named },
        { "open_kvm", each_way_dev_kvm_fails_is_named },
        { "open_kvm", a_kvm_without_a_needed_capability_is_named },
        { "snapshot", restore_keeps_the_tsc_deadline },
        { "snapshot", unsaved_snapshot_files_are_removed },
        { "signals", a_step_cut_short_by_a_stop_signal_ends_as_the_signal },
        { "signals", a_kick_fails_no_console_write_to_a_slow_reader },
        { "run", an_out_no_thunk_makes_to_the_firmware_port_is_refused },
        { "run", a_crash_system_event_is_a_guest_crash },
        { "vcpus", a_vcpu_thread_that_cannot_start_stops_those_started },
    };
    Suite *s = suite_create("kvm-fake");
    for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
        TCase *tc = tcase_create(tests[i].tcase);
        tcase_add_test(tc, tests[i].test);
        suite_add_tcase(s, tc);
    }
    TCase *tc = tcase_create("stop_signals");
    tcase_set_timeout(tc, 10);
    tcase_add_loop_test(tc, a_stop_signal_stops_a_run_whose_vcpus_never_exit, 0, 2);
    suite_add_tcase(s, tc);
    tc = tcase_create("halted");
    tcase_set_timeout(tc, 10);
    tcase_add_loop_test(tc, a_guest_halted_for_good_after_ebs_ends_the_run, 0, sizeof(halted) / sizeof(halted[0]));
    tcase_add_loop_test(tc, a_guest_with_a_vcpu_that_can_wake_runs_on, 0, 2);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
