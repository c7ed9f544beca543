/* KVM plumbing: /dev/kvm, the VM with its memory, irqchip and PIT, and the
 * one vCPU started in long mode (Documentation/virt/kvm/api.rst). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../x86/cpuid.h"
#include "host_probe.h"
#include "msrs.h"
#include "../../guest/layout.h"
#include "../vmm.h"
#include "../x86/x86_setup.h"

/* The capabilities every run uses (Documentation/virt/kvm/api.rst names
 * each ioctl's), checked as /dev/kvm opens: a KVM without one is refused
 * by name, not later by an ioctl's bare errno. Linux 4.11 (immediate_exit)
 * has them all. */
#define NEEDED_CAP(cap, use) { cap, #cap, use }
static const struct {
    long cap;
    const char *name, *use;
} needed_caps[] = {
    NEEDED_CAP(KVM_CAP_USER_MEMORY, "guest RAM (KVM_SET_USER_MEMORY_REGION)"),
    NEEDED_CAP(KVM_CAP_SET_TSS_ADDR, "KVM_SET_TSS_ADDR"),
    NEEDED_CAP(KVM_CAP_IRQCHIP, "the in-kernel interrupt controllers (KVM_CREATE_IRQCHIP, KVM_IRQ_LINE)"),
    NEEDED_CAP(KVM_CAP_PIT2, "the in-kernel PIT (KVM_CREATE_PIT2)"),
    NEEDED_CAP(KVM_CAP_EXT_CPUID, "the guest's CPUID (KVM_GET_SUPPORTED_CPUID, KVM_SET_CPUID2)"),
    NEEDED_CAP(KVM_CAP_IMMEDIATE_EXIT, "--timeout and the stop signals (kvm_run.immediate_exit)"),
};

static int check_needed_caps(int kvm_fd)
{
    for (size_t i = 0; i < sizeof(needed_caps) / sizeof(needed_caps[0]); i++)
        if (ioctl(kvm_fd, KVM_CHECK_EXTENSION, needed_caps[i].cap) <= 0) {
            vmm_log("KVM lacks %s, needed for %s: this KVM is too old (Linux 4.11 or later has every capability "
                    "handover needs)", needed_caps[i].name, needed_caps[i].use);
            return -1;
        }
    return 0;
}

int vmm_open_kvm(struct vmm *vm)
{
    vm->kvm_fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
    if (vm->kvm_fd < 0) {
        if (errno == ENOENT)
            vmm_log("/dev/kvm does not exist: load the kvm module (kvm_intel or kvm_amd) or run on a host with KVM");
        else if (errno == EACCES || errno == EPERM)
            vmm_log("/dev/kvm: permission denied: add yourself to the 'kvm' group or run as root");
        else
            vmm_log("/dev/kvm: %s", strerror(errno));
        return -1;
    }
    int version = ioctl(vm->kvm_fd, KVM_GET_API_VERSION, 0);
    if (version < 0) {
        vmm_log("/dev/kvm: KVM_GET_API_VERSION: %s: the device is not KVM's", strerror(errno));
        return -1;
    }
    if (version != KVM_API_VERSION) {
        vmm_log("KVM API version %d, expected %d", version, KVM_API_VERSION);
        return -1;
    }
    return check_needed_caps(vm->kvm_fd);
}

/* Guest RAM: fresh anonymous memory (all zero), aligned to 2 MiB and
 * offered to transparent huge pages, so that the host backs it, and KVM
 * maps it, 2 MiB at a time: one fault where there would be 512 (QEMU does
 * the same for its RAM blocks). Without THP the advice fails harmlessly. */
int vmm_map_memory(struct vmm *vm)
{
    const size_t huge = 2u << 20, len = vm->opt.mem + huge;
    uint8_t *raw = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (raw == MAP_FAILED) {
        vmm_log("cannot map %llu MiB of guest RAM: %s", (unsigned long long)(vm->opt.mem >> 20), strerror(errno));
        return -1;
    }
    uint8_t *host = (uint8_t *)(((uintptr_t)raw + huge - 1) & ~(uintptr_t)(huge - 1));
    if ((host > raw && munmap(raw, (size_t)(host - raw))) ||
        munmap(host + vm->opt.mem, (size_t)(raw + len - (host + vm->opt.mem)))) {
        vmm_log("munmap of guest RAM's alignment slack: %s", strerror(errno));
        return -1;
    }
    if (madvise(host, vm->opt.mem, MADV_HUGEPAGE) && errno != EINVAL)
        vmm_log("madvise(MADV_HUGEPAGE) of guest RAM: %s; going on with small pages", strerror(errno));
    guest_mem_init(&vm->mem, host, vm->opt.mem);
    return 0;
}

/* One memory slot per RAM range (guest_mem_ranges), in the mapping's
 * order, with the flags given. */
static int set_memory_slots(struct vmm *vm, uint32_t flags)
{
    struct guest_range r[2];
    int n = guest_mem_ranges(&vm->mem, r);
    uint64_t off = 0;
    for (int i = 0; i < n; i++) {
        struct kvm_userspace_memory_region region = {
            .slot = (uint32_t)i, .flags = flags, .guest_phys_addr = r[i].start, .memory_size = r[i].size,
            .userspace_addr = (uint64_t)(uintptr_t)(vm->mem.host + off),
        };
        if (ioctl(vm->vm_fd, KVM_SET_USER_MEMORY_REGION, &region) < 0) {
            vmm_log("KVM_SET_USER_MEMORY_REGION: %s", strerror(errno));
            return -1;
        }
        off += r[i].size;
    }
    return 0;
}

int vmm_log_dirty_pages(struct vmm *vm)
{
    return set_memory_slots(vm, KVM_MEM_LOG_DIRTY_PAGES);
}

int vmm_dirty_pages(const struct vmm *vm, uint8_t *bitmap)
{
    struct guest_range r[2];
    int n = guest_mem_ranges(&vm->mem, r);
    uint64_t first = 0;   /* the slot's first page in the mapping */
    for (int i = 0; i < n; i++) {
        uint64_t pages = r[i].size / GUEST_PAGE_SIZE, words = (pages + 63) / 64;
        uint64_t *log = calloc(words, sizeof(*log));
        struct kvm_dirty_log d = { .slot = (uint32_t)i, .dirty_bitmap = log };
        if (!log || ioctl(vm->vm_fd, KVM_GET_DIRTY_LOG, &d) < 0) {
            vmm_log("KVM_GET_DIRTY_LOG: %s", log ? strerror(errno) : "out of memory");
            free(log);
            return -1;
        }
        for (uint64_t w = 0; w < words; w++)
            for (uint64_t bits = log[w]; bits; bits &= bits - 1) {
                uint64_t p = first + w * 64 + (uint64_t)__builtin_ctzll(bits);
                bitmap[p / 8] |= (uint8_t)(1u << (p % 8));
            }
        free(log);
        first += pages;
    }
    return 0;
}

int vmm_create_vm(struct vmm *vm)
{
    vm->vm_fd = ioctl(vm->kvm_fd, KVM_CREATE_VM, 0);
    if (vm->vm_fd < 0) {
        vmm_log("KVM_CREATE_VM: %s", strerror(errno));
        return -1;
    }
    if (set_memory_slots(vm, 0))
        return -1;
    if (ioctl(vm->vm_fd, KVM_SET_TSS_ADDR, (unsigned long)GUEST_KVM_TSS) < 0) {
        vmm_log("KVM_SET_TSS_ADDR: %s", strerror(errno));
        return -1;
    }
    if (ioctl(vm->vm_fd, KVM_CREATE_IRQCHIP, 0) < 0) {
        vmm_log("KVM_CREATE_IRQCHIP: %s", strerror(errno));
        return -1;
    }
    struct kvm_pit_config pit = { .flags = KVM_PIT_SPEAKER_DUMMY };
    if (ioctl(vm->vm_fd, KVM_CREATE_PIT2, &pit) < 0) {
        vmm_log("KVM_CREATE_PIT2: %s", strerror(errno));
        return -1;
    }
    return 0;
}

struct kvm_cpuid2 *vmm_guest_cpuid(const struct vmm *vm, unsigned id)
{
    struct kvm_cpuid2 *c = host_supported_cpuid(vm->kvm_fd);
    if (!c) {
        vmm_log("KVM_GET_SUPPORTED_CPUID: %s", strerror(errno));
        return NULL;
    }
    cpuid_normalize(c, id, vm->opt.cpus);
    return c;
}

static int setup_cpuid(struct vmm *vm, struct vcpu *c_)
{
    struct kvm_cpuid2 *c = vmm_guest_cpuid(vm, c_->id);
    if (!c)
        return -1;
    int r = ioctl(c_->fd, KVM_SET_CPUID2, c);
    free(c);
    if (r < 0) {
        vmm_log("KVM_SET_CPUID2: %s", strerror(errno));
        return -1;
    }
    return 0;
}

/* The local APIC as a PC's firmware leaves it: LINT0 in ExtINT mode (the
 * 8259 behind it, virtual wire mode) and LINT1 delivering NMIs (Intel MP
 * specification 1.4, section 3.6.2.2; Firecracker's
 * arch/x86_64/interrupts.rs set_lint does the same). */
#define APIC_LVT_LINT0     0x350
#define APIC_LVT_LINT1     0x360
#define APIC_MODE_MASK     0x700u
#define APIC_MODE_NMI      0x400u
#define APIC_MODE_EXTINT   0x700u
#define APIC_LVT_MASKED    (1u << 16)

static void lvt_set_mode(struct kvm_lapic_state *l, unsigned reg, uint32_t mode)
{
    uint32_t v;
    memcpy(&v, l->regs + reg, 4);
    v = (v & ~(APIC_MODE_MASK | APIC_LVT_MASKED)) | mode;
    memcpy(l->regs + reg, &v, 4);
}

static int setup_lapic(struct vcpu *c)
{
    struct kvm_lapic_state l;
    if (ioctl(c->fd, KVM_GET_LAPIC, &l) < 0) {
        vmm_log("KVM_GET_LAPIC: %s", strerror(errno));
        return -1;
    }
    lvt_set_mode(&l, APIC_LVT_LINT0, APIC_MODE_EXTINT);
    lvt_set_mode(&l, APIC_LVT_LINT1, APIC_MODE_NMI);
    if (ioctl(c->fd, KVM_SET_LAPIC, &l) < 0) {
        vmm_log("KVM_SET_LAPIC: %s", strerror(errno));
        return -1;
    }
    return 0;
}

/* MSRs a PC's firmware sets before it runs a loader (Firecracker's
 * arch/x86_64/msr.rs create_boot_msr_entries): fast strings on, and the
 * MTRRs enabled with write-back as the default type, so the kernel finds
 * MTRRs and PAT usable (SDM vol. 3A, 12.11.2.1). The other boot MSRs are
 * zero at reset already. */
#define MSR_IA32_MISC_ENABLE      0x000001a0
#define MISC_ENABLE_FAST_STRING   (1ull << 0)
#define MSR_MTRR_DEF_TYPE         0x000002ff
#define MTRR_DEF_TYPE_ENABLE      (1ull << 11)
#define MTRR_TYPE_WRBACK          6ull

static int setup_msrs(struct vcpu *c)
{
    KVM_MSRS_WITH(2) m = { .hdr.nmsrs = 2 };
    m.hdr.entries[0] = (struct kvm_msr_entry){ .index = MSR_IA32_MISC_ENABLE, .data = MISC_ENABLE_FAST_STRING };
    m.hdr.entries[1] = (struct kvm_msr_entry){ .index = MSR_MTRR_DEF_TYPE,
                                               .data = MTRR_DEF_TYPE_ENABLE | MTRR_TYPE_WRBACK };
    int r = ioctl(c->fd, KVM_SET_MSRS, &m);
    if (r != 2) {
        vmm_log("KVM_SET_MSRS: set %d of 2 boot MSRs%s%s", r, r < 0 ? ": " : "", r < 0 ? strerror(errno) : "");
        return -1;
    }
    return 0;
}

int vmm_setup_vcpu(struct vmm *vm, unsigned id)
{
    struct vcpu *c = &vm->vcpus[id];
    c->vm = vm;
    c->id = id;
    c->fd = ioctl(vm->vm_fd, KVM_CREATE_VCPU, (unsigned long)id);
    if (c->fd < 0) {
        vmm_log("KVM_CREATE_VCPU %u: %s", id, strerror(errno));
        return -1;
    }
    int size = ioctl(vm->kvm_fd, KVM_GET_VCPU_MMAP_SIZE, 0);
    if (size < 0) {
        vmm_log("KVM_GET_VCPU_MMAP_SIZE: %s", strerror(errno));
        return -1;
    }
    if (size < (int)sizeof(struct kvm_run)) {
        vmm_log("KVM_GET_VCPU_MMAP_SIZE: %d bytes, less than a struct kvm_run (%zu)", size, sizeof(struct kvm_run));
        return -1;
    }
    vm->run_size = (size_t)size;
    struct kvm_run *run = mmap(NULL, vm->run_size, PROT_READ | PROT_WRITE, MAP_SHARED, c->fd, 0);
    if (run == MAP_FAILED) {
        vmm_log("mmap of kvm_run: %s", strerror(errno));
        return -1;
    }
    /* Published only once mapped: on_signal (run.c) writes through any
     * non-NULL run, and a sweep's restore gets here with it installed. */
    c->run = run;
    if (setup_cpuid(vm, c) || setup_lapic(c) || setup_msrs(c))
        return -1;
    if (id != 0)
        return 0;
    struct kvm_sregs sregs;
    if (ioctl(c->fd, KVM_GET_SREGS, &sregs) < 0) {
        vmm_log("KVM_GET_SREGS: %s", strerror(errno));
        return -1;
    }
    if (vm->opt.firmware_bits == 32) {
        x86_setup_sregs32(&sregs);
        if (vmm_image_ia32(vm))
            sregs.idt.limit = X86_IDT32_LIMIT;
    } else
        x86_setup_sregs(&sregs);
    if (ioctl(c->fd, KVM_SET_SREGS, &sregs) < 0) {
        vmm_log("KVM_SET_SREGS: %s", strerror(errno));
        return -1;
    }
    return 0;
}

int vmm_set_regs(const struct vcpu *c, const struct kvm_regs *r)
{
    if (ioctl(c->fd, KVM_SET_REGS, r) < 0) {
        vmm_log("KVM_SET_REGS: %s", strerror(errno));
        return -1;
    }
    return 0;
}

void vmm_serial_irq(void *ctx, unsigned line, int level)
{
    struct vmm *vm = ctx;
    struct kvm_irq_level irq = { .irq = line, .level = level };
    if (ioctl(vm->vm_fd, KVM_IRQ_LINE, &irq) < 0)
        vmm_log("KVM_IRQ_LINE: failed to set IRQ %u", line);
}

void vmm_dump_registers(const struct vcpu *c, FILE *out)
{
    struct kvm_regs r;
    struct kvm_sregs s;
    if (ioctl(c->fd, KVM_GET_REGS, &r) < 0 || ioctl(c->fd, KVM_GET_SREGS, &s) < 0) {
        fprintf(out, "handover: cannot read vCPU registers: %s\n", strerror(errno));
        return;
    }
    fprintf(out,
            "handover: registers of vCPU %u: rip=0x%016llx rsp=0x%016llx rflags=0x%08llx\n"
            "handover:   rax=0x%016llx rbx=0x%016llx rcx=0x%016llx rdx=0x%016llx\n"
            "handover:   rsi=0x%016llx rdi=0x%016llx rbp=0x%016llx r8=0x%016llx\n"
            "handover:   r9=0x%016llx r10=0x%016llx r11=0x%016llx r12=0x%016llx\n"
            "handover:   r13=0x%016llx r14=0x%016llx r15=0x%016llx\n"
            "handover:   cr0=0x%llx cr2=0x%llx cr3=0x%llx cr4=0x%llx efer=0x%llx cs=0x%x\n",
            c->id, r.rip, r.rsp, r.rflags, r.rax, r.rbx, r.rcx, r.rdx, r.rsi, r.rdi, r.rbp, r.r8, r.r9, r.r10, r.r11,
            r.r12, r.r13, r.r14, r.r15, s.cr0, s.cr2, s.cr3, s.cr4, s.efer, s.cs.selector);
}

void vmm_close_vm(struct vmm *vm)
{
    for (unsigned i = 0; i < VMM_MAX_CPUS; i++) {
        /* Unhooked before it is unmapped: the signal handler writes to it. */
        struct kvm_run *run = vm->vcpus[i].run;
        vm->vcpus[i].run = NULL;
        if (run)
            munmap(run, vm->run_size);
        if (vm->vcpus[i].fd > 0)
            close(vm->vcpus[i].fd);
        memset(&vm->vcpus[i], 0, sizeof(vm->vcpus[i]));
    }
    if (vm->vm_fd > 0)
        close(vm->vm_fd);
    vm->vm_fd = 0;
}

void vmm_destroy(struct vmm *vm)
{
    vmm_close_vm(vm);
    if (vm->mem.host)
        munmap(vm->mem.host, vm->mem.size);
    if (vm->kvm_fd > 0)
        close(vm->kvm_fd);
    firmware_free(&vm->fw);
}
