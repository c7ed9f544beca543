#include "warm_boot.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../devices/persist.h"
#include "../devices/serial.h"
#include "../host/clock.h"
#include "../host/ram_file.h"
#include "../kvm/snapshot.h"
#include "../vmm.h"
#include "snapshot_payload.h"

#define READY_LINE "handover-init: ready for a command"
#define SEED_BYTES 32
#define COMMAND_HEAD_MAX (2 * SEED_BYTES + EXEC_RUN_ID_LEN + 26)   /* "SEED LEN RUN\n" */
#define MSR_IA32_TSC 0x10   /* the time-stamp counter (SDM vol. 4, table 2-2) */
#define VMGENID_BYTES 16    /* the VM generation ID, a 128-bit random number */

/* Options whose value does not shape the VM: left out of the inputs.
 * --exec-output's FILE does not, but whether there is one does (COM2). */
static const struct {
    const char *name;
    bool presence;   /* the option's name is an input, its value not */
} not_inputs[] = {
    { "--exec", false }, { "--snapshot", false }, { "--timeout", false }, { "--report", false },
    { "--console-limit", false }, { "--exec-output", true },
};

static void put_options(struct snapshot_cursor *c, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--"))
            break;   /* the command after -- */
        if (!strcmp(argv[i], "--quiet"))
            continue;
        size_t k = 0, n = 0;
        for (; k < sizeof(not_inputs) / sizeof(not_inputs[0]); k++) {
            n = strlen(not_inputs[k].name);
            if (!strncmp(argv[i], not_inputs[k].name, n) && (argv[i][n] == 0 || argv[i][n] == '='))
                break;
        }
        if (k == sizeof(not_inputs) / sizeof(not_inputs[0])) {
            snapshot_put(c, argv[i], strlen(argv[i]) + 1);
            continue;
        }
        if (not_inputs[k].presence)
            snapshot_put(c, not_inputs[k].name, n + 1);
        if (argv[i][n] == 0)
            i++;   /* its value, the next word */
    }
}

static int inputs_of(struct vmm *vm, int argc, char **argv, struct snapshot_inputs *in)
{
    struct snapshot_cursor opts = { 0 };
    put_options(&opts, argc, argv);
    if (opts.failed) {
        free(opts.buf);
        vmm_log("--snapshot: out of memory");
        return -1;
    }
    *in = (struct snapshot_inputs){
        .kernel_size = vm->placed.image_file_size, .initrd_size = vm->placed.initrd_size, .options_size = opts.at,
        .kernel_crc = snapshot_crc(vm->placed.image_file, vm->placed.image_file_size),
        .initrd_crc = snapshot_crc(vm->placed.initrd_data, vm->placed.initrd_size),
        .options_crc = snapshot_crc(opts.buf, opts.at), .layout = snapshot_layout_crc(),
    };
    /* --dtb FILE is placed in guest RAM too. */
    if (vm->placed.dtb)
        in->options_crc = snapshot_crc_more(in->options_crc, vm->placed.dtb, vm->placed.dtb_len);
    free(opts.buf);
    return 0;
}

static int path_in(char *out, size_t len, const char *dir, const char *name)
{
    if ((size_t)snprintf(out, len, "%s/%s", dir, name) >= len) {
        vmm_log("--snapshot %s: the path is too long", dir);
        return -1;
    }
    return 0;
}

/* The state file whole, at most SNAPSHOT_STATE_MAX bytes: 0, 1 if there
 * is none, or an exit status (logged). */
static int read_state(const char *path, uint8_t **buf, size_t *len)
{
    struct stat st;
    int fd = file_open_nonblocking(path, &st);
    if (fd < 0 && errno == ENOENT)
        return 1;
    if (fd < 0) {
        vmm_log("%s: %s", path, strerror(errno));
        return EXIT_USAGE;
    }
    if (!S_ISREG(st.st_mode) || st.st_size > SNAPSHOT_STATE_MAX) {
        vmm_log("%s: not a snapshot: not a regular file of at most %u bytes: refused", path, SNAPSHOT_STATE_MAX);
        close(fd);
        return EXIT_USAGE;
    }
    *len = (size_t)st.st_size;
    *buf = malloc(*len ? *len : 1);
    size_t got = 0;
    ssize_t n = 1;
    while (*buf && got < *len && (n = read(fd, *buf + got, *len - got)) > 0)
        got += (size_t)n;
    int err = errno;
    close(fd);
    if (!*buf || n < 0 || got != *len) {
        vmm_log("%s: read failed: %s", path, !*buf ? "out of memory" : n < 0 ? strerror(err) : "the file shrank");
        free(*buf);
        *buf = NULL;
        return EXIT_HOST;
    }
    return 0;
}

/* NAME in the directory made anew: what was there is removed, not
 * opened, so that a symlink left under the name is never followed (its
 * target truncated and written). The fd, or -1 with errno. */
static int create_new(int dir_fd, const char *name)
{
    if (unlinkat(dir_fd, name, 0) && errno != ENOENT)
        return -1;
    return openat(dir_fd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
}

/* A new snapshot's files, opened before the sandbox, in DIR (w->dir_fd,
 * locked exclusively): the old state goes first, so that a run stopped
 * before it saved leaves no snapshot. */
static int open_new(struct warm_boot *w, const char *dir)
{
    if ((unlinkat(w->dir_fd, "state", 0) && errno != ENOENT) ||
        (w->ram_fd = create_new(w->dir_fd, "ram.tmp")) < 0 || (w->state_fd = create_new(w->dir_fd, "state.tmp")) < 0) {
        vmm_log("--snapshot %s: %s", dir, strerror(errno));
        return EXIT_USAGE;
    }
    return 0;
}

/* DIR's lock (flock on DIR itself): shared while a run reads the state
 * and the RAM, exclusive while one makes a new snapshot, from removing
 * the old state to its own renames at the save. Two runs that share DIR
 * would otherwise undo each other: each one's create_new removed the
 * other's ram.tmp and state.tmp, so one renamed the other's half-written
 * files into place, and a restore could read one snapshot's state with
 * another's RAM. 0, 1 if another run holds it (logged), or an exit status. */
static int lock_dir(struct warm_boot *w, const char *dir, int how)
{
    if (!flock(w->dir_fd, how | LOCK_NB))
        return 0;
    if (errno != EWOULDBLOCK) {
        vmm_log("--snapshot %s: flock: %s", dir, strerror(errno));
        return EXIT_HOST;
    }
    if (!w->vm->opt.quiet)
        vmm_log("--snapshot %s: another run is %s: this run boots without it", dir,
                how == LOCK_EX ? "using or making the snapshot there" : "making a new snapshot there");
    return 1;
}

/* lock_dir's answer rc when another run holds DIR's lock (1): the run
 * boots cold, sends its command at the ready line and saves nothing, so
 * it keeps no descriptor of DIR. Otherwise rc, an exit status. */
static int boot_without_snapshot(struct warm_boot *w, int rc)
{
    if (rc != 1)
        return rc;
    close(w->dir_fd);
    w->dir_fd = -1;
    return 0;
}

/* The state file's payload, after its header (snapshot_check passed). */
static struct snapshot_cursor payload_of(const struct warm_boot *w)
{
    return (struct snapshot_cursor){ w->state + sizeof(struct snapshot_header),
                                     w->state_len - sizeof(struct snapshot_header), 0, false };
}

int warm_boot_prepare(struct warm_boot *w, int argc, char **argv)
{
    struct vmm *vm = w->vm;
    const char *dir = vm->opt.snapshot;
    w->dir_fd = w->ram_fd = w->state_fd = -1;
    if (strlen(vm->opt.exec) > SERIAL_RX_MAX - COMMAND_HEAD_MAX) {
        vmm_log("--snapshot: the command is sent on the console after the restore: at most %d bytes",
                SERIAL_RX_MAX - COMMAND_HEAD_MAX);
        return EXIT_USAGE;
    }
    if (inputs_of(vm, argc, argv, &w->inputs))
        return EXIT_HOST;
    if (mkdir(dir, 0755) && errno != EEXIST) {
        vmm_log("--snapshot %s: cannot make the directory: %s", dir, strerror(errno));
        return EXIT_USAGE;
    }
    char path[PATH_MAX];
    if (path_in(path, sizeof(path), dir, "state"))
        return EXIT_USAGE;
    w->dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (w->dir_fd < 0) {
        vmm_log("--snapshot %s: %s", dir, strerror(errno));
        return EXIT_USAGE;
    }
    int rc = lock_dir(w, dir, LOCK_SH);
    if (rc)
        return boot_without_snapshot(w, rc);
    if ((rc = read_state(path, &w->state, &w->state_len)) > 1)
        return rc;
    if (rc == 0) {
        struct snapshot_header h;
        const char *why = snapshot_check(w->state, w->state_len, &h);
        bool other_version = why && snapshot_other_version(w->state, w->state_len);
        if (why && !other_version) {
            vmm_log("%s: %s: refused (remove it to make a new snapshot)", path, why);
            return EXIT_USAGE;
        }
        if (!why && snapshot_inputs_equal(&h.inputs, &w->inputs) && h.ram_size == vm->opt.mem) {
            struct boot_record boot;
            struct snapshot_cursor cur = payload_of(w);
            if (!snapshot_take(&cur, &boot, sizeof(boot))) {
                vmm_log("%s: its payload is not what version %u keeps: refused", path, SNAPSHOT_VERSION);
                return EXIT_USAGE;
            }
            w->noxsave_added = boot.noxsave_added != 0;
            w->restoring = true;
            return 0;
        }
        if (other_version)   /* said even with --quiet: a handover update costs the next run a cold boot */
            vmm_log("--snapshot %s: its snapshot was made by another version of handover (%s): making a new one",
                    dir, why);
        else if (!vm->opt.quiet)
            vmm_log("--snapshot %s: its snapshot was made from other inputs (kernel, initrd or options): making a "
                    "new one", dir);
        free(w->state);
        w->state = NULL;
    }
    rc = lock_dir(w, dir, LOCK_EX);
    if (rc)
        return boot_without_snapshot(w, rc);
    return open_new(w, dir);
}

/* "SEED LEN RUN\n" and the command on COM1, which /init reads (raw, no
 * echo): SEED is fresh for each run, so that no two guests restored from
 * one snapshot share the CRNG's state (scripts/handover-reseed.c); RUN is
 * the run's mark for the status line (console_watch.h). */
static int queue_command(struct warm_boot *w)
{
    const struct vmm *vm = w->vm;
    uint8_t seed[SEED_BYTES];
    if (getrandom(seed, sizeof(seed), 0) != (ssize_t)sizeof(seed)) {
        vmm_log("--snapshot: getrandom: %s", strerror(errno));
        return EXIT_HOST;
    }
    char head[COMMAND_HEAD_MAX];
    size_t n = 0;
    for (size_t i = 0; i < sizeof(seed); i++)
        n += (size_t)snprintf(head + n, sizeof(head) - n, "%02x", seed[i]);
    n += (size_t)snprintf(head + n, sizeof(head) - n, " %zu %s\n", strlen(vm->opt.exec), vm->console.exec_run_id);
    if (!w->uart || !serial_receive(w->uart, head, n) || !serial_receive(w->uart, vm->opt.exec, strlen(vm->opt.exec))) {
        vmm_log("--snapshot: the command does not fit in the console's input");
        return EXIT_HOST;
    }
    return 0;
}

static uint64_t realtime_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The guest calibrated its TSC at boot: a restore on a host whose TSC
 * runs at another rate asks KVM to scale it to the saved one (as
 * Firecracker does), and says so where KVM cannot. */
static void keep_tsc_rate(struct vmm *vm, uint32_t saved_khz)
{
    int khz = vcpu_tsc_khz(vm->vcpus[0].fd);
    if (!saved_khz || khz < 0 || (uint32_t)khz == saved_khz)
        return;
    if (vcpu_set_tsc_khz(vm->vcpus[0].fd, saved_khz))
        vmm_log("--snapshot: the guest's TSC ran at %u kHz, this host's runs at %d kHz and KVM cannot scale it (%s): "
                "the restored guest's TSC clock runs off",
                saved_khz, khz, strerror(errno));
}

/* The saved MSR_IA32_TSC moved on by the host's real time since the save,
 * at the guest's rate, so that the TSC and kvm-clock agree after a restore
 * (a guest that reads the TSC sees the time pass). KVM takes a
 * host-initiated write of the TSC as the vCPU's new offset. */
static void advance_tsc(struct vcpu_state *cpu, uint64_t since_ns, uint32_t khz)
{
    /* kHz is cycles per millisecond: whole ms, then the rest, without overflow. */
    uint64_t cycles = since_ns / 1000000 * khz + since_ns % 1000000 * khz / 1000000;
    for (unsigned i = 0; i < cpu->nmsrs; i++)
        if (cpu->msrs[i].index == MSR_IA32_TSC)
            cpu->msrs[i].data += cycles;
}

/* A fresh VM generation ID where the ACPI tables' ADDR names it (with
 * ACPI): random, so that no two runs share one. On a restore, the Generic
 * Event Device's interrupt then tells the guest (its _EVT notifies the
 * VGEN device), whose driver feeds the new ID to the CRNG and reseeds it
 * (Linux's drivers/virt/vmgenid.c: add_vmfork_randomness). The edge
 * waits in the IOAPIC and the LAPIC until the guest takes it. */
static int new_generation(struct warm_boot *w, bool notify)
{
    struct vmm *vm = w->vm;
    if (!vm->fw.vmgenid)
        return 0;
    uint8_t *id = guest_mem_ptr(&vm->mem, vm->fw.vmgenid, VMGENID_BYTES);
    if (!id || getrandom(id, VMGENID_BYTES, 0) != VMGENID_BYTES) {
        vmm_log("--snapshot: cannot make a VM generation ID: %s", id ? strerror(errno) : "not in guest RAM");
        return EXIT_HOST;
    }
    if (notify) {
        vmm_serial_irq(vm, GUEST_IRQ_VMGENID_GED, 1);
        vmm_serial_irq(vm, GUEST_IRQ_VMGENID_GED, 0);
    }
    if (!vm->opt.quiet) {
        char hex[2 * VMGENID_BYTES + 1];
        for (size_t i = 0; i < VMGENID_BYTES; i++)
            snprintf(hex + 2 * i, 3, "%02x", id[i]);
        vmm_log("--snapshot %s: VM generation ID %s", vm->opt.snapshot, hex);
    }
    return 0;
}

/* The snapshot's RAM over the RAM the cold boot's loading wrote,
 * copy-on-write: the file is never written, and only the pages the guest
 * touches are read. 0, or the exit status. */
static int map_ram(struct warm_boot *w)
{
    struct vmm *vm = w->vm;
    char path[PATH_MAX];
    if (path_in(path, sizeof(path), vm->opt.snapshot, "ram"))
        return EXIT_USAGE;
    struct stat st;
    int fd = file_open_nonblocking(path, &st);
    if (fd < 0) {
        vmm_log("%s: %s: the snapshot cannot be restored without it", path, strerror(errno));
        return EXIT_USAGE;
    }
    if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size != vm->opt.mem) {
        vmm_log("%s: %lld bytes, where the snapshot's RAM is %llu: refused", path, (long long)st.st_size,
                (unsigned long long)vm->opt.mem);
        close(fd);
        return EXIT_USAGE;
    }
    int rc = ram_file_map(fd, vm->mem.host, vm->opt.mem, EXIT_HOST);
    int err = errno;
    close(fd);
    if (rc) {
        vmm_log("%s: mapping it: %s", path, strerror(err));
        return EXIT_HOST;
    }
    return 0;
}

/* The state file's payload into *s; 0, or the exit status (nothing
 * left to free). */
static int take_state(struct warm_boot *w, struct saved_state *s)
{
    struct snapshot_cursor cur = payload_of(w);
    if (saved_state_take(&cur, s))
        return 0;
    char path[PATH_MAX];
    path_in(path, sizeof(path), w->vm->opt.snapshot, "state");
    vmm_log("%s: its payload is not what version %u keeps: refused", path, SNAPSHOT_VERSION);
    return EXIT_USAGE;
}

/* Why the saved guest cannot go on in this VM (the boot record's CRCs
 * against this run's), or NULL. */
static const char *other_machine(const struct warm_boot *w, const struct boot_record *b)
{
    if (b->cpuid_crc != w->cpuid_crc)
        return "where the guest's CPUID differed (another CPU, or another KVM): its kernel may use what this one lacks";
    if (b->firmware_crc != w->firmware_crc)
        return "by a handover whose firmware differs from this one's (its runtime services or its VM generation ID's "
               "place)";
    return NULL;
}

static int restore(struct warm_boot *w)
{
    struct vmm *vm = w->vm;
    struct saved_state s;
    int rc = take_state(w, &s);
    if (rc)
        return rc;
    const char *why = other_machine(w, &s.boot);
    if (why) {
        vmm_log("--snapshot %s: made %s: refused (remove %s/state to make a new snapshot)", vm->opt.snapshot, why,
                vm->opt.snapshot);
        vcpu_state_free(&s.cpu);
        return EXIT_USAGE;
    }
    if ((rc = map_ram(w))) {
        vcpu_state_free(&s.cpu);
        return rc;
    }
    close(w->dir_fd);   /* the state is read and the RAM mapped: DIR's lock goes */
    w->dir_fd = -1;
    uint64_t now = realtime_ns(), since = now > s.clock.realtime_ns ? now - s.clock.realtime_ns : 0;
    keep_tsc_rate(vm, s.clock.tsc_khz);
    advance_tsc(&s.cpu, since, s.clock.tsc_khz);
    const char *what = "the devices";
    rc = vm_state_load(vm->vm_fd, &s.chips, &what) || vcpu_state_load(vm->vcpus[0].fd, &s.cpu, &what) ||
         devices_restore(&vm->bus, &s.dev);
    vcpu_state_free(&s.cpu);
    if (rc) {
        char path[PATH_MAX];
        path_in(path, sizeof(path), vm->opt.snapshot, "state");
        vmm_log("%s: restoring %s failed: %s", path, what, strerror(errno));
        return EXIT_HOST;
    }
    vm->fw.phase = (enum fw_phase)s.fw.phase;
    vm->fw.virtual_mode = s.fw.virtual_mode != 0;
    vm->fw.monotonic = s.fw.monotonic;
    /* kvm-clock goes on from the save by the host's real time since, as
     * the TSC did above (after it: KVM computes the guest's kvm-clock
     * page from the TSC): the guest's monotonic clock and, from it, its
     * wall clock move on as the host's did. KVM adds the time since
     * itself where it gave the save's real time (KVM_CLOCK_REALTIME). */
    if ((!s.clock.kvm_realtime_ns || vm_clock_load(vm->vm_fd, s.clock.kvmclock_ns, s.clock.kvm_realtime_ns)) &&
        vm_clock_load(vm->vm_fd, s.clock.kvmclock_ns + since, 0)) {
        vmm_log("KVM_SET_CLOCK: %s", strerror(errno));
        return EXIT_HOST;
    }
    /* The guest's clock as KVM now gives it, read back for the log: it
     * should be the saved one plus the time since. */
    uint64_t clock_now, realtime_now;
    if (!vm->opt.quiet && !vm_clock_save(vm->vm_fd, &clock_now, &realtime_now))
        vmm_log("--snapshot %s: restored the VM saved %.1f s ago (kvm-clock %.3f s at the save, %.3f s now)",
                vm->opt.snapshot, (double)since / 1e9, (double)s.clock.kvmclock_ns / 1e9, (double)clock_now / 1e9);
    return new_generation(w, true) ? EXIT_HOST : queue_command(w);
}

/* The CRC-32 of the CPUID the guest was given (vCPU 0's), which its
 * kernel read once at boot to choose what instructions and features to
 * use: a guest restored on a host whose CPU lacks some of them would run
 * into #UD or worse, so a snapshot is restored only where it is the same.
 * 0, or an exit status. */
static int guest_cpuid_crc(struct warm_boot *w)
{
    struct kvm_cpuid2 *c = vmm_guest_cpuid(w->vm, 0);
    if (!c)
        return EXIT_HOST;
    w->cpuid_crc = snapshot_crc(c->entries, c->nent * sizeof(c->entries[0]));
    free(c);
    return 0;
}

/* The CRC-32 of what a restored guest goes on using of the firmware as
 * this build laid it out, read from the RAM its cold load just built:
 * the runtime services' thunks, one per service ID, which the kernel
 * calls, and the VM generation ID's address, which a restore writes. A
 * build that numbers the services otherwise or puts the ID elsewhere,
 * whatever its structures' sizes, must not restore a snapshot of another
 * (its calls would reach the wrong services, its ID land in the guest's
 * own memory). */
static uint32_t firmware_crc(const struct vmm *vm)
{
    const size_t len = FW_RT_DATA_OFFSET - FW_RT_CODE_OFFSET;
    const uint8_t *thunks = guest_mem_ptr(&vm->mem, GUEST_FIRMWARE_BASE + FW_RT_CODE_OFFSET, len);
    uint32_t crc = snapshot_crc(&vm->fw.vmgenid, sizeof(vm->fw.vmgenid));
    return thunks ? snapshot_crc_more(crc, thunks, len) : crc;
}

int warm_boot_loaded(struct warm_boot *w)
{
    int rc = guest_cpuid_crc(w);
    if (rc)
        return rc;
    w->firmware_crc = firmware_crc(w->vm);
    return w->restoring ? restore(w) : new_generation(w, false);
}

/* How it booted, the vCPU, irqchips, devices, firmware and clock, in the
 * order warm_boot_prepare and restore take them. */
static int build_payload(const struct warm_boot *w, struct vcpu *c, struct snapshot_cursor *out)
{
    struct vmm *vm = w->vm;
    struct saved_state s;
    const char *what = "KVM_GET_CLOCK";
    memset(&s, 0, sizeof(s));
    if (vcpu_state_save(vm->kvm_fd, c->fd, &s.cpu, &what) || vm_state_save(vm->vm_fd, &s.chips, &what) ||
        (what = "KVM_GET_CLOCK", vm_clock_save(vm->vm_fd, &s.clock.kvmclock_ns, &s.clock.kvm_realtime_ns))) {
        vmm_log("--snapshot: %s: %s", what, strerror(errno));
        vcpu_state_free(&s.cpu);
        return -1;
    }
    /* The TSC once more, beside the clocks: the MSRs were read one by one
     * before, and a restore advances the TSC by the real time since. */
    uint64_t tsc;
    if (!vcpu_read_msr(c->fd, MSR_IA32_TSC, &tsc))
        for (unsigned i = 0; i < s.cpu.nmsrs; i++)
            if (s.cpu.msrs[i].index == MSR_IA32_TSC)
                s.cpu.msrs[i].data = tsc;
    s.clock.realtime_ns = realtime_ns();
    int khz = vcpu_tsc_khz(c->fd);
    s.clock.tsc_khz = khz > 0 ? (uint32_t)khz : 0;
    s.boot = (struct boot_record){ vm->placed.noxsave_added, w->cpuid_crc, w->firmware_crc, 0 };
    devices_save(&vm->bus, &s.dev);
    s.fw = (struct firmware_runtime){ (uint32_t)vm->fw.phase, vm->fw.virtual_mode, vm->fw.monotonic };
    saved_state_put(out, &s);
    vcpu_state_free(&s.cpu);
    if (out->failed)
        vmm_log("--snapshot: out of memory");
    return out->failed ? -1 : 0;
}

static int save(struct warm_boot *w, struct vcpu *c)
{
    struct vmm *vm = w->vm;
    double started = clock_since_start();
    struct snapshot_cursor payload = { 0 };
    struct snapshot_header h;
    uint64_t written = 0;
    if (vmm_complete_exit(c) || build_payload(w, c, &payload)) {
        free(payload.buf);
        return EXIT_HOST;
    }
    snapshot_seal(&h, &w->inputs, payload.buf, payload.at, vm->opt.mem);
    /* Both on disk before their names: a host that crashes after the
     * renames finds a whole snapshot, never a state whose RAM file is
     * cut (the state's CRC-32 does not cover the RAM). */
    int rc = ram_file_write(w->ram_fd, vm->mem.host, vm->opt.mem, &written) ||
             file_pwrite_all(w->state_fd, (const uint8_t *)&h, sizeof(h), 0) ||
             file_pwrite_all(w->state_fd, payload.buf, payload.at, sizeof(h)) || fsync(w->ram_fd) ||
             fsync(w->state_fd) || renameat(w->dir_fd, "ram.tmp", w->dir_fd, "ram") ||
             renameat(w->dir_fd, "state.tmp", w->dir_fd, "state");
    free(payload.buf);
    if (rc) {
        vmm_log("--snapshot %s: saving failed: %s", vm->opt.snapshot, strerror(errno));
        return EXIT_HOST;
    }
    if (!vm->opt.quiet)
        vmm_log("--snapshot %s: saved the VM (%llu of %llu MiB of RAM in use) in %.2f s", vm->opt.snapshot,
                (unsigned long long)(written >> 20), (unsigned long long)(vm->opt.mem >> 20),
                clock_since_start() - started);
    return 0;
}

static int ready_io_exit(void *ctx, struct vcpu *c)
{
    struct warm_boot *w = ctx;
    if (!w->ready)
        return RUN_CONTINUE;
    w->ready = false;
    w->sent = true;
    int rc = w->ram_fd >= 0 ? save(w, c) : 0;
    if (!rc)
        rc = queue_command(w);
    return rc ? rc : RUN_CONTINUE;
}

static void ready_line(void *ctx, const char *line)
{
    struct warm_boot *w = ctx;
    if (!w->restoring && !w->sent && strstr(line, READY_LINE))
        w->ready = true;
}

const struct run_hooks warm_boot_hooks = { .name = "snapshot-ready", .console_line = ready_line,
                                           .io_exit = ready_io_exit };

/* A new snapshot's files, if the run ended before its save renamed them
 * into place (a signal, a timeout, a crash, a failed save): removed while
 * DIR is still locked, so that DIR keeps no half-written RAM. After a save
 * they are gone (ENOENT). */
static void remove_unsaved(const struct warm_boot *w)
{
    if (w->dir_fd <= 2 || w->ram_fd <= 2)
        return;
    unlinkat(w->dir_fd, "ram.tmp", 0);
    unlinkat(w->dir_fd, "state.tmp", 0);
}

void warm_boot_free(struct warm_boot *w)
{
    remove_unsaved(w);
    free(w->state);
    w->state = NULL;
    const int fds[] = { w->dir_fd, w->ram_fd, w->state_fd };
    for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
        if (fds[i] > 2)
            close(fds[i]);
    w->dir_fd = w->ram_fd = w->state_fd = -1;
}
