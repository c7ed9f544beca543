/* The run loop: KVM_RUN, then dispatch the exit — port I/O to devices,
 * firmware calls to the firmware, guest crashes to a clear report. */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "../host/clock.h"
#include "../x86/emulate.h"
#include "../../guest/layout.h"
#include "../vmm.h"
#include "../x86/x86_setup.h"
#include "halt_wake.h"
#include "../../firmware-stub/watchdog.h"

static volatile sig_atomic_t timed_out;
static volatile sig_atomic_t stop_signal;   /* SIGINT, SIGTERM, SIGQUIT or SIGHUP received */

static const char *const exception_names[32] = {
    "#DE divide error", "#DB debug", "NMI", "#BP breakpoint", "#OF overflow", "#BR bound range",
    "#UD invalid opcode", "#NM device not available", "#DF double fault", "coprocessor overrun",
    "#TS invalid TSS", "#NP segment not present", "#SS stack fault", "#GP general protection",
    "#PF page fault", "reserved", "#MF x87 error", "#AC alignment check", "#MC machine check",
    "#XM SIMD error", "#VE virtualization", "#CP control protection",
};

static bool has_error_code(unsigned v)
{
    return v == 8 || (v >= 10 && v <= 14) || v == 17 || v == 21 || v == 29 || v == 30;
}

static void report_last_line(struct vmm *vm)
{
    const char *line = console_line_current(&vm->console.text);
    if (line[0])
        vmm_log("last console line: %s", line);
    if (vm->fw.last_line[0])
        vmm_log("last firmware console line: %s", vm->fw.last_line);
}

static void report_exits(struct vmm *vm)
{
    vmm_log("exits: %llu I/O, %llu firmware calls, %llu emulation fallbacks, %llu MMIO, %llu HLT, %llu other",
            (unsigned long long)vm->counters.exits[KVM_EXIT_IO], (unsigned long long)vm->counters.hypercalls, (unsigned long long)vm->counters.fallbacks,
            (unsigned long long)vm->counters.exits[KVM_EXIT_MMIO], (unsigned long long)vm->counters.exits[KVM_EXIT_HLT],
            (unsigned long long)(vm->counters.exits[KVM_EXIT_INTR] + vm->counters.exits[KVM_EXIT_UNKNOWN]));
}

static struct guest_view view_of(struct vmm *vm, const struct kvm_sregs *s)
{
    return x86_guest_view(&vm->mem, s);
}

static void report_code_bytes(struct vcpu *c, uint64_t rip)
{
    struct vmm *vm = c->vm;
    struct kvm_sregs s;
    uint8_t code[16];
    if (ioctl(c->fd, KVM_GET_SREGS, &s) < 0)
        return;
    struct guest_view v = view_of(vm, &s);
    if (!guest_view_read(&v, emulate_code_address(&s, rip), code, sizeof(code))) {
        vmm_log("code at RIP 0x%llx is not readable", (unsigned long long)rip);
        return;
    }
    char hex[3 * sizeof(code) + 1];
    for (size_t i = 0; i < sizeof(code); i++)
        snprintf(hex + 3 * i, 4, "%02x ", code[i]);
    vmm_log("code at RIP 0x%llx: %s", (unsigned long long)rip, hex);
}

static int guest_crash(struct vcpu *c, const char *what)
{
    struct vmm *vm = c->vm;
    struct kvm_regs r;
    fflush(stdout);
    vmm_log("guest stopped: %s", what);
    vmm_dump_registers(c, vmm_log_file());
    if (ioctl(c->fd, KVM_GET_REGS, &r) == 0)
        report_code_bytes(c, r.rip);
    report_last_line(vm);
    report_exits(vm);
    return EXIT_GUEST_CRASH;
}

/* The firmware's two PML4s hold the same map (x86_setup.c): moving the
 * vCPU from one to the other flushes its TLB, where rewriting the same
 * CR3 did not on this machine's KVM, nor does a VM exit (the guest's
 * entries are tagged with its VPID or ASID and outlive it). A guest on
 * page tables of its own keeps them: false then. */
static bool switch_pml4(struct kvm_sregs *s)
{
    if (s->cr3 != GUEST_PML4 && s->cr3 != GUEST_PML4_ALT)
        return false;
    s->cr3 = s->cr3 == GUEST_PML4 ? GUEST_PML4_ALT : GUEST_PML4;
    return true;
}

/* Whether the stub calling ExitBootServices on an IA-32 firmware is a
 * mixed-mode kernel's (64-bit, back in long mode after each call) or an
 * i386 kernel's: the image's own header says; behind an IA-32 loader
 * (GRUB i386-efi), the boot_params the loader built for the kernel do
 * (their setup header's XLF_KERNEL_64 names a 64-bit entry). */
static bool stub_is_mixed(const struct vmm *vm)
{
    struct kernel_entry e;
    if (!vm->placed.app)
        return vm->placed.bz.hdr.xloadflags & XLF_KERNEL_64;
    return kernel_entry_find(&vm->mem, &vm->fw.map, &e) && e.n == KERNEL_ENTRY_MAX;
}

/* After ExitBootServices with --stop-at ebs: every 2 MiB page becomes
 * no-execute but the firmware's, the loaded image's and the allocation
 * holding the code that called ExitBootServices (ret, its return address):
 * the image's own stub, or, behind a boot loader, the kernel the loader
 * placed, whose stub makes the call. So the stub's jump to the
 * decompressed kernel faults into the firmware's #PF gate. */
static int arm_stop_at_ebs(struct vcpu *c, struct kvm_sregs *s, uint64_t ret, uint64_t rbx)
{
    struct vmm *vm = c->vm;
    const struct memmap_entry *caller = memmap_entry_at(&vm->fw.map, ret);
    const uint64_t keep[3][2] = { { 0, GUEST_VMM_END }, { vm->placed.image_start, vm->placed.image_start + vm->placed.image_size },
                                  { caller ? caller->start : 0, caller ? caller->start + (caller->pages << 12) : 0 } };
    x86_set_nx_outside(&vm->mem, keep, 3, true);
    /* The stub still runs on the firmware's tables. A mixed-mode stub
     * calls with paging off and turns it on again from CR3 as it finds it
     * (efi_mixed.S efi_enter32): it goes on on the firmware's tables, and
     * (a 64-bit kernel's, which calls through that thunk) with the
     * firmware's IDT, whatever IDT the kernel loaded. */
    bool moved = switch_pml4(s);
    bool mixed = vm->opt.firmware_bits == 32 && !(s->cr0 & CR0_PG) && stub_is_mixed(vm);
    if (!moved && vm->opt.firmware_bits == 32 && !mixed && !(s->cr0 & CR0_PG)) {
        /* An i386 stub runs on with paging off to the kernel's entry: it
         * returns from this call with PAE paging on the same identity
         * map, which it never sees, and the jump faults. */
        if (!(s->cr3 = x86_setup_pae_root(&vm->mem))) {
            vmm_log("stop-at ebs: no guest RAM for the PAE page tables at 0x%llx", (unsigned long long)GUEST_PDPT_PAE);
            return -1;
        }
        s->cr4 |= CR4_PAE;
        s->cr0 |= CR0_PG;
        moved = true;
    } else if (!moved && mixed) {
        s->cr3 = GUEST_PML4;
        moved = true;
        /* An IA-32 loader ran on the firmware's 32-bit gates; the stub
         * goes on in long mode. */
        if (vm->placed.app)
            vmm_setup_idt_mixed(vm);
        if (x86_mixed_thunk_keep_firmware_idt(&vm->mem, (uint32_t)rbx))
            vmm_log("stop-at ebs: the mixed-mode stub's saved IDTR at EBX + 16 (0x%llx) is outside guest RAM: its "
                    "jump to the kernel may fault through an IDT of its own", (unsigned long long)(uint32_t)rbx + 16);
    }
    if (moved && ioctl(c->fd, KVM_SET_SREGS, s) < 0) {
        vmm_log("KVM_SET_SREGS: %s", strerror(errno));
        return -1;
    }
    return 0;
}

/* ExitBootServices called from the application handover loaded, not from
 * a kernel's stub: a boot loader that will enter the kernel itself (GRUB's
 * `linux`). A stub behind a loader runs from the kernel the loader placed
 * or loaded as an image of its own, outside the application's image. */
static bool called_by_application(const struct vmm *vm, uint64_t ret)
{
    return vm->placed.app && ret - vm->placed.image_start < vm->placed.image_size;
}

/* Behind such a loader the stop moves to the kernel's entry, trapped
 * (loader/kernel_entry.h): the loader runs on after ExitBootServices, with
 * paging off by the time it enters a 32-bit kernel, so no no-execute page
 * stops it. Debug registers (KVM_SET_GUEST_DEBUG) would leave guest memory
 * alone, but a nested KVM under QEMU TCG before 9.1 never arms them (its
 * VMRUN loads DR7 without inserting the breakpoints). No boot_params
 * found: no stop, and the run ends as it will. */
static void arm_kernel_entry(struct vmm *vm)
{
    struct kernel_entry *e = &vm->run.entry_trap;
    if (!kernel_entry_find(&vm->mem, &vm->fw.map, e)) {
        vmm_log("stop-at ebs: the application called ExitBootServices itself, and no boot_params it built for a "
                "kernel are in its memory: no kernel entry to stop at");
        return;
    }
    if (!kernel_entry_arm(&vm->mem, e)) {
        vmm_log("stop-at ebs: the application called ExitBootServices itself, and the boot_params it built at 0x%llx "
                "name a kernel entry (code32_start 0x%llx, or 0x200 past it) outside guest RAM: no kernel entry to "
                "stop at", (unsigned long long)e->boot_params, (unsigned long long)e->at[0]);
        e->n = 0;
        return;
    }
    vmm_log("stop-at ebs: the application called ExitBootServices itself, not a kernel's stub: the stop moves to "
            "the kernel's entry at 0x%llx (code32_start of the boot_params it built, found at 0x%llx)",
            (unsigned long long)e->at[0], (unsigned long long)e->boot_params);
}

/* The trap over the entry of a kernel a loader placed: --stop-at ebs's stop
 * behind that loader, the boot_params in ESI (32-bit entry) or RSI (64-bit).
 * Another one-byte OUT to the port goes to the devices (RUN_CONTINUE). */
static int kernel_entered(struct vcpu *c)
{
    struct vmm *vm = c->vm;
    struct kvm_regs r;
    struct kvm_sregs s;
    if (ioctl(c->fd, KVM_GET_REGS, &r) < 0 || ioctl(c->fd, KVM_GET_SREGS, &s) < 0) {
        vmm_log("KVM_GET_REGS: %s", strerror(errno));
        return EXIT_HOST;
    }
    bool bits64 = s.cs.l;
    uint64_t rip = bits64 ? r.rip : (uint32_t)(s.cs.base + r.rip);
    int i = kernel_entry_index(&vm->run.entry_trap, rip);
    if (i < 0)
        return RUN_CONTINUE;
    uint64_t boot_params = bits64 ? r.rsi : (uint32_t)r.rsi;
    fflush(stdout);
    vmm_log("stop-at ebs: the boot loader entered the kernel at 0x%llx (%s, in %s mode, paging %s), boot_params "
            "at 0x%llx", (unsigned long long)rip, i ? "code32_start + 0x200" : "code32_start",
            bits64 ? "64-bit" : "32-bit", (s.cr0 & CR0_PG) ? "on" : "off", (unsigned long long)boot_params);
    run_hooks_kernel(vm, boot_params);
    return EXIT_OK;
}

static int guest_exception(struct vcpu *c, unsigned vector, struct kvm_regs *r, struct kvm_sregs *s)
{
    struct vmm *vm = c->vm;
    struct guest_view v = view_of(vm, s);
    uint64_t frame[2] = { 0, 0 };
    if (s->efer & EFER_LMA) {
        guest_view_read(&v, r->rsp, frame, sizeof(frame));
    } else {
        /* Outside long mode the CPU pushes 4-byte words (SDM vol. 3A, 6.12.1). */
        uint32_t f[2] = { 0, 0 };
        guest_view_read(&v, (uint32_t)r->rsp, f, sizeof(f));
        frame[0] = f[0];
        frame[1] = f[1];
    }
    uint64_t error = has_error_code(vector) ? frame[0] : 0;
    uint64_t rip = has_error_code(vector) ? frame[1] : frame[0];

    if (vm->opt.stop_at == STOP_AT_EBS && vm->fw.phase == FW_PHASE_RUNTIME && vector == 14 && s->cr2 == rip) {
        fflush(stdout);
        vmm_log("stop-at ebs: ExitBootServices succeeded and the stub jumped to the kernel at 0x%llx",
                (unsigned long long)rip);
        /* The observers judge what the stub built (the summary's e820
         * check), and their run_end gives the status. */
        run_hooks_kernel(vm, r->rsi);
        return EXIT_OK;
    }
    char what[160];
    snprintf(what, sizeof(what), "exception %s (vector %u, error code 0x%llx) at RIP 0x%llx, CR2 0x%llx, "
             "taken through the firmware's IDT", exception_names[vector] ? exception_names[vector] : "reserved",
             vector, (unsigned long long)error, (unsigned long long)rip, (unsigned long long)s->cr2);
    fflush(stdout);
    vmm_log("guest stopped: %s", what);
    vmm_dump_registers(c, vmm_log_file());
    report_code_bytes(c, rip);
    report_last_line(vm);
    report_exits(vm);
    return EXIT_GUEST_CRASH;
}

static bool view_read(void *ctx, uint64_t va, void *dst, unsigned len)
{
    return guest_view_read(ctx, va, dst, len);
}

/* KVM_EXIT_INTERNAL_ERROR: perform the instruction if it is one the VMM
 * knows the host cannot emulate. Returns RUN_CONTINUE to resume, or an exit status. */
static int emulation_failure(struct vcpu *c)
{
    struct vmm *vm = c->vm;
    char what[160];
    bool emulation = c->run->internal.suberror == KVM_INTERNAL_ERROR_EMULATION;
    snprintf(what, sizeof(what), "KVM internal error, suberror %u%s", c->run->internal.suberror,
             emulation ? " (emulation failure: the host cannot emulate this instruction)" : "");
    if (!emulation || vm->opt.no_emulation_fallbacks)
        return guest_crash(c, what);
    struct kvm_regs r;
    struct kvm_sregs s;
    uint8_t code[EMULATE_MAX_INSN];
    if (ioctl(c->fd, KVM_GET_REGS, &r) < 0 || ioctl(c->fd, KVM_GET_SREGS, &s) < 0)
        return guest_crash(c, what);
    struct guest_view v = view_of(vm, &s);
    unsigned len = emulate_fetch(code, &s, r.rip, view_read, &v);
    struct kvm_fpu fpu;
    if (ioctl(c->fd, KVM_GET_FPU, &fpu) < 0)
        return guest_crash(c, what);
    struct emulate_mode mode = emulate_mode_of(&s, r.rflags);
    uint64_t at = r.rip;
    struct emulate_result e = emulate_instruction(code, len, &r, &fpu, view_read, &v, &mode);
    if (e.action == EMULATE_NONE)
        return guest_crash(c, what);
    vm->counters.fallbacks++;
    if (e.fpu_changed && ioctl(c->fd, KVM_SET_FPU, &fpu) < 0) {
        vmm_log("KVM_SET_FPU: %s", strerror(errno));
        return EXIT_HOST;
    }
    if (ioctl(c->fd, KVM_SET_REGS, &r) < 0) {
        vmm_log("KVM_SET_REGS: %s", strerror(errno));
        return EXIT_HOST;
    }
    if (e.action == EMULATE_INJECT_BP) {
        struct kvm_vcpu_events ev;
        if (ioctl(c->fd, KVM_GET_VCPU_EVENTS, &ev) < 0)
            return EXIT_HOST;
        ev.exception.injected = 1;
        ev.exception.nr = 3;
        ev.exception.has_error_code = 0;
        if (ioctl(c->fd, KVM_SET_VCPU_EVENTS, &ev) < 0) {
            vmm_log("KVM_SET_VCPU_EVENTS: %s", strerror(errno));
            return EXIT_HOST;
        }
    }
    unsigned which = 0;
    while (emulate_table_names[which] && strcmp(emulate_table_names[which], e.name))
        which++;
    if (!vm->counters.fallback_reported[which]) {
        vm->counters.fallback_reported[which] = true;
        if (!vm->run.opt.quiet)
            vmm_log("emulation fallback: %s at RIP 0x%llx performed by the VMM (the host cannot emulate it)", e.name,
                    (unsigned long long)at);
    }
    return RUN_CONTINUE;
}

/* XMM6-XMM15 of the vCPU into xmm, or (load) from it. */
static int callee_saved_xmm(struct vcpu *c, uint8_t (*xmm)[16], bool load)
{
    struct kvm_fpu fpu;
    if (ioctl(c->fd, KVM_GET_FPU, &fpu) < 0) {
        vmm_log("KVM_GET_FPU: %s", strerror(errno));
        return -1;
    }
    if (!load) {
        memcpy(xmm, fpu.xmm[6], 10 * 16);
        return 0;
    }
    memcpy(fpu.xmm[6], xmm, 10 * 16);
    if (ioctl(c->fd, KVM_SET_FPU, &fpu) < 0) {
        vmm_log("KVM_SET_FPU: %s", strerror(errno));
        return -1;
    }
    return 0;
}

/* A service that moves the vCPU on (StartImage, Exit, an entry point's
 * return, WaitForEvent making its call again, a notify function to run
 * or one returned): its registers replace the caller's. A new RIP also
 * tells KVM not to skip the OUT it exited on. */
static int load_transfer(struct vcpu *c, struct fw_transfer *t, struct kvm_regs *r)
{
    r->rip = t->rip;
    r->rsp = t->rsp;
    r->rcx = t->rcx;
    r->rdx = t->rdx;
    r->r8 = t->r8;
    if (!t->restore)
        return 0;
    const struct fw_callee_saved *k = &t->saved;
    r->rbx = k->rbx, r->rbp = k->rbp, r->rdi = k->rdi, r->rsi = k->rsi;
    r->r12 = k->r12, r->r13 = k->r13, r->r14 = k->r14, r->r15 = k->r15;
    return callee_saved_xmm(c, t->saved.xmm, true);
}

/* A wait the guest asked for that would end after --timeout (a client
 * that halts on purpose: systemd-boot's assert calls Stall(60 s) forever)
 * times the run out now, as the alarm would later, instead of sleeping
 * until it: same outcome, and a sweep cell that is hung says so at once. */
static bool wait_outlasts_timeout(struct vcpu *c, unsigned id)
{
    struct vmm *vm = c->vm;
    const struct run_options *o = &vm->run.opt;
    double left = o->timeout - (clock_since_start() - vm->run.started);
    /* The watchdog, if it expires first, ends the wait (firmware_sleep). */
    if (!o->timeout || (double)c->sleep_ns / 1e9 <= left || (double)firmware_watchdog_left_ns(&vm->fw) / 1e9 < left)
        return false;
    vm->run.timed_out = true;
    c->sleep_ns = 0;
    fflush(stdout);
    vmm_log("timeout: the guest's %s asks to wait %.1f s, past the %u s of %s (%.1f s left): ended now",
            firmware_service_name(id), (double)vm->fw.sleep_ns / 1e9, o->timeout, o->timeout_name, left > 0 ? left : 0);
    report_last_line(vm);
    report_exits(vm);
    return true;
}

/* The firmware's watchdog expired in boot services (firmware-stub/
 * watchdog.c): the platform resets, which the guest did not ask for, so
 * the run ends as no success, the code and data the guest gave said. */
static int watchdog_reset(struct vmm *vm)
{
    const struct fw_watchdog *w = &vm->fw.watchdog;
    fflush(stdout);
    vmm_log("the firmware's watchdog expired: %llu s set, WatchdogCode 0x%llx, WatchdogData \"%s\"; the platform "
            "resets (UEFI 2.10 section 7.5.1)", (unsigned long long)w->seconds, (unsigned long long)w->code, w->data);
    report_last_line(vm);
    report_exits(vm);
    return EXIT_WATCHDOG;
}

/* The console showed the kernel's panic line. */
static int kernel_panicked(struct vmm *vm)
{
    fflush(stdout);
    vmm_log("kernel panic: %s", vm->console.panic.line);
    if (vm->opt.exec && strstr(vm->console.panic.line, "Attempted to kill init"))
        vmm_log("init died before it could report a status: if the console shows it killed at its first "
                "system call (\"segfault at ... error 15\"), this host's KVM cannot run guest user space "
                "(nested, emulated KVM); --exec needs an ordinary KVM host");
    report_exits(vm);
    return EXIT_PANIC;
}

/* The guest reset, powered off or halted for good: a success, unless that
 * ends a kernel panic (panic=N restarts instead of printing the end marker;
 * a panic's other CPUs halt). */
static int guest_restarted(struct vmm *vm)
{
    return panic_watch_restart(&vm->console.panic) ? kernel_panicked(vm) : EXIT_OK;
}

/* The top-level image ended, by Exit or by returning from its entry point
 * (UEFI 2.10 section 7.4.5): EFI_SUCCESS is a success, unless it ended
 * before the stop point asked for; any other status is the image giving
 * up, as a kernel's stub does. */
static int image_ended(struct vmm *vm)
{
    report_last_line(vm);
    if (vm->fw.stop_status != EFI_SUCCESS)
        return EXIT_FIRMWARE_EXIT;
    if (vm->opt.stop_at == STOP_AT_EBS && vm->fw.phase == FW_PHASE_BOOT) {
        vmm_log("--stop-at ebs: the image ended with EFI_SUCCESS before any ExitBootServices");
        return EXIT_FIRMWARE_EXIT;
    }
    return EXIT_OK;
}

/* The image returned from its entry point into the thunk the firmware put
 * there (FW_ID_IMAGE_RETURN), its status in the RAX (EAX) the thunk pushed. */
static int image_returned(struct vmm *vm, const struct kvm_regs *r, const struct kvm_sregs *s)
{
    struct guest_view v = view_of(vm, s);
    uint64_t status = 0;
    if (vm->opt.firmware_bits == 32) {
        uint32_t eax = 0;   /* EAX, pushed by the thunk: bit 31 the error bit */
        guest_view_read(&v, (uint32_t)r->rsp, &eax, 4);
        status = efi_status_from32(eax);
    } else {
        guest_view_read_u64(&v, r->rsp, &status);   /* RAX, pushed by the thunk */
    }
    fflush(stdout);
    vmm_log("the image returned from its entry point with %s", efi_status_name(status));
    vm->fw.stop = FW_STOP_EXIT;
    vm->fw.stop_status = status;
    return image_ended(vm);
}

/* The call just served was the first ExitBootServices to succeed: the
 * milestone, and with --stop-at ebs the trap on the kernel's entry.
 * RUN_CONTINUE, or EXIT_HOST. */
static int exit_boot_services_done(struct vcpu *c, const struct fw_call *call, struct kvm_sregs *s)
{
    struct vmm *vm = c->vm;
    vmm_milestone(vm, MILESTONE_EBS);
    if (!vm->run.opt.quiet)
        vmm_log("ExitBootServices succeeded after %llu firmware calls", (unsigned long long)vm->fw.calls);
    if (vm->opt.stop_at != STOP_AT_EBS)
        return RUN_CONTINUE;
    /* The thunk's return address, at RSP: the caller of ExitBootServices
     * (0, inside the firmware's kept range, if unreadable). After its
     * notify functions ran, the call returns through the RSP it had. */
    uint64_t ret = 0;
    if (vm->opt.firmware_bits == 32)
        guest_view_read(&call->view, (uint32_t)call->rsp, &ret, 4);
    else
        guest_view_read(&call->view, vm->fw.transfer.pending ? vm->fw.transfer.rsp : call->rsp, &ret, 8);
    if (called_by_application(vm, ret))
        arm_kernel_entry(vm);
    else if (arm_stop_at_ebs(c, s, ret, call->saved.rbx))
        return EXIT_HOST;
    return RUN_CONTINUE;
}

/* One firmware call. Returns RUN_CONTINUE to go on, or an exit status. */
static int hypercall(struct vcpu *c, uint32_t id)
{
    struct vmm *vm = c->vm;
    struct kvm_regs r;
    struct kvm_sregs s;
    vm->counters.hypercalls++;
    if (ioctl(c->fd, KVM_GET_REGS, &r) < 0 || ioctl(c->fd, KVM_GET_SREGS, &s) < 0) {
        vmm_log("KVM_GET_REGS: %s", strerror(errno));
        return EXIT_HOST;
    }
    if (FW_ID_IS_EXCEPTION(id))
        return guest_exception(c, id - FW_ID_EXCEPTION(0), &r, &s);
    if (id == FW_ID_IMAGE_RETURN)
        return image_returned(vm, &r, &s);
    bool ebs_before = vm->fw.phase == FW_PHASE_RUNTIME;
    struct fw_call call = { r.rcx, r.rdx, r.r8, r.r9, r.rsp, view_of(vm, &s),
                            { r.rbx, r.rbp, r.rdi, r.rsi, r.r12, r.r13, r.r14, r.r15, { { 0 } } } };
    if (firmware_saves_context(id) && callee_saved_xmm(c, call.saved.xmm, false))
        return EXIT_HOST;
    if (run_hooks_before_call(vm, c, id, &call))
        return EXIT_HOST;
    r.rax = firmware_call(&vm->fw, id, &call);
    if (vm->fw.waits_for_good && vm->opt.cpus == 1)
        return guest_crash(c, "WaitForEvent on events that nothing can signal: no timer armed, no key left "
                           "(see --keys), no other vCPU (the application waits for good)");
    c->sleep_ns = vm->fw.sleep_ns;
    if (c->sleep_ns && wait_outlasts_timeout(c, id))
        return EXIT_TIMEOUT;
    run_hooks_after_call(vm, c, id, &call, r.rax);
    if (vm->fw.transfer.pending && load_transfer(c, &vm->fw.transfer, &r))
        return EXIT_HOST;
    if (vm->opt.firmware_bits == 32)
        r.rax = efi_status32(r.rax);
    if (ioctl(c->fd, KVM_SET_REGS, &r) < 0) {
        vmm_log("KVM_SET_REGS: %s", strerror(errno));
        return EXIT_HOST;
    }
    /* EFI_MEMORY_ATTRIBUTE_PROTOCOL changed the page tables the vCPU runs
     * on (firmware-stub/memattr.c): the call returns with its TLB flushed. */
    if (vm->fw.tables_changed && switch_pml4(&s) && ioctl(c->fd, KVM_SET_SREGS, &s) < 0) {
        vmm_log("KVM_SET_SREGS: %s", strerror(errno));
        return EXIT_HOST;
    }
    switch (vm->fw.stop) {
    case FW_STOP_EXIT:
        fflush(stdout);
        return image_ended(vm);
    case FW_STOP_RESET:
        return guest_restarted(vm);
    case FW_STOP_WATCHDOG:
        return watchdog_reset(vm);
    default:
        break;
    }
    if (vm->fw.phase == FW_PHASE_RUNTIME && !ebs_before)
        return exit_boot_services_done(c, &call, &s);
    return RUN_CONTINUE;
}

/* stdout could not be written: its reader went away (EPIPE: main ignores
 * SIGPIPE) or its disk is full. Nobody can read the console any more, so
 * the run stops as after any output not written whole: its report and its
 * last line are still written, with exit status 3. */
static int console_unwritable(struct vmm *vm)
{
    int e = vm->console.write_errno;
    vmm_log("stdout: write failed%s%s: the guest's console cannot be printed, so the run stops", e ? ": " : "",
            e ? strerror(e) : "");
    report_last_line(vm);
    report_exits(vm);
    vm->files.write_failed = true;
    return EXIT_HOST;
}

/* Whether the guest asked to stop (control_ports.h: through a device, or
 * --exec's status line): the status it ends with, or RUN_CONTINUE. */
static int guest_stopped(struct vmm *vm)
{
    switch (vm->ctl.stop) {
    case GUEST_RESET:
        fflush(stdout);
        if (!vm->run.opt.quiet)
            vmm_log("guest reset through the i8042 (port 0x64 command 0xfe)");
        return guest_restarted(vm);
    case GUEST_POWEROFF:
        fflush(stdout);
        if (!vm->run.opt.quiet)
            vmm_log("guest powered off (ACPI S5)");
        return guest_restarted(vm);
    case GUEST_EXIT_PORT:
        fflush(stdout);
        if (!vm->run.opt.quiet)
            vmm_log("guest wrote %d to the exit port 0x%x", vm->ctl.exit_status, GUEST_PORT_EXIT);
        return vm->ctl.exit_status;
    default:
        return RUN_CONTINUE;
    }
}

/* An OUT to the firmware-call port that no thunk makes: a thunk's is one
 * `out 0xEC, eax` (4 bytes, tables.c fill_thunks), the kernel-entry
 * trap's one `out 0xEC, al` (1 byte, loader/kernel_entry.c). A REP OUTS
 * (count > 1) or a 2-byte OUT there is a guest bug, or a hostile guest
 * replaying one call's registers as many calls: the run stops on it,
 * with no call made. */
static bool stray_firmware_port_write(const struct kvm_run *run)
{
    if (run->io.port != GUEST_PORT_HYPERCALL || run->io.direction != KVM_EXIT_IO_OUT)
        return false;
    return run->io.count != 1 || (run->io.size != 4 && run->io.size != 1);
}

static int refuse_stray_firmware_port_write(struct vcpu *c)
{
    char what[200];
    snprintf(what, sizeof(what), "an OUT to the firmware-call port 0x%x of %u element(s) of %u byte(s), where a "
             "firmware call is one 4-byte `out 0x%x, eax` (docs/guest-abi.md): refused, no call made",
             GUEST_PORT_HYPERCALL, c->run->io.count, c->run->io.size, GUEST_PORT_HYPERCALL);
    return guest_crash(c, what);
}

static int handle_io(struct vcpu *c)
{
    struct vmm *vm = c->vm;
    struct kvm_run *run = c->run;
    uint8_t *data = (uint8_t *)run + run->io.data_offset;
    bool out = run->io.direction == KVM_EXIT_IO_OUT;
    if (stray_firmware_port_write(run))
        return refuse_stray_firmware_port_write(c);
    bool call = run->io.port == GUEST_PORT_HYPERCALL && out && run->io.size == 4;
    if (call && vm->fw.phase == FW_PHASE_BOOT)
        vm->counters.firmware_phase.firmware_calls++;
    if (run->io.port == GUEST_PORT_HYPERCALL && out && run->io.size == 1 && vm->run.entry_trap.n) {
        int rc = kernel_entered(c);
        if (rc != RUN_CONTINUE)
            return rc;
    }
    if (call) {
        uint32_t id;
        memcpy(&id, data, 4);
        int rc = hypercall(c, id);
        if (rc >= 0)
            return rc;
    } else {
        for (uint32_t i = 0; i < run->io.count; i++, data += run->io.size)
            io_bus_access(&vm->bus, run->io.port, out, data, run->io.size);
    }
    int rc = run_hooks_io_exit(vm, c);
    if (rc != RUN_CONTINUE)
        return rc;
    if (run_hooks_done(vm)) {
        fflush(stdout);
        return RUN_OBSERVER_DONE;
    }
    if (vm->console.panic.ended)
        return kernel_panicked(vm);
    if (ferror(stdout))
        return console_unwritable(vm);
    return guest_stopped(vm);
}

int vmm_complete_exit(struct vcpu *c)
{
    c->run->immediate_exit = 1;
    int rc = ioctl(c->fd, KVM_RUN, 0);
    int err = errno;
    c->run->immediate_exit = timed_out || stop_signal;
    if (rc == 0 || err != EINTR) {
        vmm_log("KVM_RUN to complete vCPU %u's exit: %s", c->id, rc == 0 ? "it ran on" : strerror(err));
        return -1;
    }
    return 0;
}

/* Stop every vCPU: the first caller's status wins. Called with vm->lock
 * held. A thread that has exited may already be joined, and its pthread_t
 * is then freed memory: only threads still running are signalled. */
static void stop_all(struct vmm *vm, int rc)
{
    if (vm->run.stop_rc == RUN_CONTINUE)
        vm->run.stop_rc = rc;
    for (unsigned i = 0; i < vm->opt.cpus; i++) {
        struct vcpu *c = &vm->vcpus[i];
        c->run->immediate_exit = 1;
        if (c->thread && !c->exited && !pthread_equal(c->thread, pthread_self()))
            pthread_kill(c->thread, SIGUSR1);
    }
}

/* KVM_EXIT_SYSTEM_EVENT (kernel Documentation/virt/kvm/api.rst): a
 * shutdown or reset ends the run as the guest's own power-off or reset
 * does. Any other type is no success: KVM_SYSTEM_EVENT_CRASH is a guest
 * that says it crashed (a Hyper-V guest writing the crash control MSR,
 * arch/x86/kvm/hyperv.c, which KVM takes only when the VMM's CPUID shows
 * Hyper-V: handover's does not, and the write is a #GP), SEV_TERM a
 * confidential guest's request to be ended. */
static int system_event(struct vcpu *c)
{
    uint32_t type = c->run->system_event.type;
    if (type == KVM_SYSTEM_EVENT_SHUTDOWN || type == KVM_SYSTEM_EVENT_RESET) {
        fflush(stdout);
        vmm_log("guest system event %u (%s)", type, type == KVM_SYSTEM_EVENT_SHUTDOWN ? "shutdown" : "reset");
        return guest_restarted(c->vm);
    }
    char what[96];
    snprintf(what, sizeof(what), "KVM system event %u (%s)", type,
             type == KVM_SYSTEM_EVENT_CRASH ? "crash: the guest reported that it crashed" : "not a shutdown or reset");
    return guest_crash(c, what);
}

static int handle_exit(struct vcpu *c)
{
    struct vmm *vm = c->vm;
    uint32_t reason = c->run->exit_reason;
    char what[128];
    unsigned counted = reason < VMM_EXIT_REASONS ? reason : 0;
    vm->counters.exits[counted]++;
    if (vm->fw.phase == FW_PHASE_BOOT)
        vm->counters.firmware_phase.exits[counted]++;
    switch (reason) {
    case KVM_EXIT_IO:
        return handle_io(c);
    case KVM_EXIT_MMIO:
        if (!c->run->mmio.is_write)
            memset(c->run->mmio.data, 0xff, sizeof(c->run->mmio.data));
        return RUN_CONTINUE;
    case KVM_EXIT_INTR:
        return RUN_CONTINUE;
    case KVM_EXIT_HLT:
        return guest_crash(c, "HLT with interrupts off (the guest halted for good)");
    case KVM_EXIT_SHUTDOWN:
        /* After a panic line it is the panic's restart: with panic=N,
         * emergency_restart, and reboot=t (or every other way failing,
         * arch/x86/kernel/reboot.c) restarts by a triple fault. */
        if (vm->console.panic.line[0])
            return guest_restarted(vm);
        return guest_crash(c, "triple fault (KVM_EXIT_SHUTDOWN)");
    case KVM_EXIT_SYSTEM_EVENT:
        return system_event(c);
    case KVM_EXIT_INTERNAL_ERROR:
        return emulation_failure(c);
    case KVM_EXIT_FAIL_ENTRY:
        snprintf(what, sizeof(what), "VM entry failed, hardware reason 0x%llx",
                 (unsigned long long)c->run->fail_entry.hardware_entry_failure_reason);
        return guest_crash(c, what);
    default:
        snprintf(what, sizeof(what), "unexpected KVM exit reason %u", reason);
        return guest_crash(c, what);
    }
}

/* Whether the run is ending: a signal came (--timeout's alarm, SIGTERM)
 * or a vCPU stopped the VM. */
static bool run_stopping(struct vmm *vm)
{
    pthread_mutex_lock(&vm->lock);
    bool stopping = timed_out || stop_signal || vm->run.stop_rc != RUN_CONTINUE;
    pthread_mutex_unlock(&vm->lock);
    return stopping;
}

/* The next slice of a sleep with left ns to go: at most
 * FW_SLEEP_SLICE_NS, and ending when the watchdog expires; 0 when it has
 * expired (the run ends: its status in *rc). */
static uint64_t sleep_slice(struct vmm *vm, uint64_t left, int *rc)
{
    pthread_mutex_lock(&vm->lock);
    uint64_t ns = left < FW_SLEEP_SLICE_NS ? left : FW_SLEEP_SLICE_NS;
    uint64_t watchdog = firmware_watchdog_left_ns(&vm->fw);
    *rc = firmware_watchdog_check(&vm->fw) ? watchdog_reset(vm) : RUN_CONTINUE;
    pthread_mutex_unlock(&vm->lock);
    return *rc != RUN_CONTINUE ? 0 : watchdog < ns ? watchdog : ns;
}

/* The sleep a firmware call asked for (Stall, WaitForEvent), with
 * vm->lock released: all of it, as Stall waits at least the time asked
 * (UEFI 2.10 section 7.5.2), in slices of FW_SLEEP_SLICE_NS at most,
 * each after a look whether the run is ending or the watchdog expired
 * (the platform resets then, mid-wait). A slice a signal cuts short ends
 * the sleep: the VMM is stopping (stop_all signals each vCPU). Returns
 * RUN_CONTINUE, or the status the watchdog ended the run with. */
static int firmware_sleep(struct vcpu *c)
{
    uint64_t left = c->sleep_ns;
    int rc = RUN_CONTINUE;
    c->sleep_ns = 0;
    while (left && !run_stopping(c->vm)) {
        uint64_t ns = sleep_slice(c->vm, left, &rc);
        if (rc != RUN_CONTINUE)
            return rc;
        struct timespec ts = { (time_t)(ns / 1000000000), (long)(ns % 1000000000) };
        if (nanosleep(&ts, NULL))
            return RUN_CONTINUE;
        left -= ns;
    }
    return RUN_CONTINUE;
}

/* Every vCPU halted for good after ExitBootServices (halt_wake.c). The
 * kernel that said "reboot: System halted" halted on purpose: a success,
 * as a power-off is (--exec's run still lacks its command's status, and
 * --kunit's its suites), unless it panicked first (a panic's other CPUs
 * stop so). Said nothing, the guest died with interrupts off: a crash, as
 * a HLT for good in the firmware phase is. */
static int guest_halted(struct vcpu *c)
{
    struct vmm *vm = c->vm;
    bool panicked = vm->console.panic.line[0];
    if (!vm->console.halt_said && !panicked)
        return guest_crash(c, "every vCPU halted with interrupts off after ExitBootServices, and the kernel "
                              "never said \"reboot: System halted\": nothing can wake the guest");
    vm->run.halted = !panicked;
    fflush(stdout);
    if (vm->run.halted && !vm->run.opt.quiet)
        vmm_log("guest halted: the kernel said \"reboot: System halted\", and every vCPU then halted with "
                "interrupts off");
    return guest_restarted(vm);
}

/* A kick out of KVM_RUN (halt_wake.c): in the firmware phase a HLT with
 * nothing armed to end it ends the run as KVM_EXIT_HLT does; after
 * ExitBootServices, every vCPU halted for good does. */
static int after_kick(struct halt_waker *w, struct vcpu *c)
{
    enum halt_state h = w ? halt_wake_resume(w, c) : HALT_NONE;
    if (h == HALT_FOR_GOOD)
        return guest_crash(c, "HLT in the firmware phase with no timer armed and no key left (see --keys): "
                              "the application halted for good");
    if (h == HALT_NONE)
        h = halt_watch_check(c);
    switch (h) {
    case HALT_FOR_GOOD:
        return guest_halted(c);
    case HALT_HOST_ERROR:
        return EXIT_HOST;
    default:
        return RUN_CONTINUE;
    }
}

/* KVM_RUN returned early (a signal, --timeout's alarm, a kick): how the
 * run ends, or RUN_CONTINUE. Called with vm->lock held. */
static int after_interrupted_run(struct vcpu *c, struct halt_waker *w)
{
    struct vmm *vm = c->vm;
    int stopped = vm->run.stop_rc;
    if (timed_out && c->id != 0 && !c->dumped) {
        c->dumped = true;   /* where each vCPU was when time ran out */
        vmm_dump_registers(c, vmm_log_file());
    }
    if (stopped == RUN_CONTINUE && stop_signal && c->id == 0) {
        fflush(stdout);
        vmm_log("stopped by signal %d (%s): exit status %d", stop_signal, strsignal(stop_signal),
                EXIT_SIGNAL_BASE + stop_signal);
        report_last_line(vm);
        report_exits(vm);
        vm->run.stopped_by_signal = stop_signal;
        stopped = EXIT_SIGNAL_BASE + stop_signal;
    }
    if (stopped == RUN_CONTINUE && timed_out && c->id == 0) {
        vm->run.timed_out = true;
        fflush(stdout);
        vmm_log("timeout: the guest was still running after %u s (%s)", vm->run.opt.timeout,
                vm->run.opt.timeout_name);
        vmm_dump_registers(c, vmm_log_file());
        report_last_line(vm);
        report_exits(vm);
        stopped = EXIT_TIMEOUT;
    }
    /* The kick is the firmware's timer tick: the watchdog may expire
     * while the guest runs on, making no call (a loop, a HLT). */
    if (stopped == RUN_CONTINUE && w && firmware_watchdog_check(&vm->fw))
        stopped = watchdog_reset(vm);
    if (stopped == RUN_CONTINUE)
        stopped = after_kick(w, c);
    return stopped;
}

/* One vCPU until it or another stops the VM. Exits are handled one at a
 * time under vm->lock; a firmware call's sleep is taken after it. */
static int run_loop(struct vcpu *c, struct halt_waker *w)
{
    struct vmm *vm = c->vm;
    for (;;) {
        if (ioctl(c->fd, KVM_RUN, 0) < 0) {
            if (errno != EINTR && errno != EAGAIN) {
                vmm_log("KVM_RUN on vCPU %u: %s", c->id, strerror(errno));
                return EXIT_HOST;
            }
            c->run->immediate_exit = 0;
            pthread_mutex_lock(&vm->lock);
            int stopped = after_interrupted_run(c, w);
            pthread_mutex_unlock(&vm->lock);
            if (stopped != RUN_CONTINUE)
                return stopped;
            continue;
        }
        pthread_mutex_lock(&vm->lock);
        int rc = vm->run.stop_rc != RUN_CONTINUE ? vm->run.stop_rc : handle_exit(c);
        c->sleeping = c->sleep_ns != 0;
        pthread_mutex_unlock(&vm->lock);
        if (rc >= 0 || rc == RUN_OBSERVER_DONE)
            return rc;
        if (c->sleeping) {
            rc = firmware_sleep(c);
            pthread_mutex_lock(&vm->lock);
            c->sleeping = false;
            pthread_mutex_unlock(&vm->lock);
            if (rc != RUN_CONTINUE)
                return rc;
        }
    }
}

static void *vcpu_thread(void *arg)
{
    struct vcpu *c = arg;
    int rc = run_loop(c, NULL);
    pthread_mutex_lock(&c->vm->lock);
    stop_all(c->vm, rc);
    c->exited = true;
    pthread_mutex_unlock(&c->vm->lock);
    return NULL;
}

static struct vmm *signal_vm;

static void on_signal(int sig)
{
    if (sig == SIGALRM)
        timed_out = 1;
    else if (sig != SIGUSR1)
        stop_signal = sig;
    /* Make every vCPU's next (or current) KVM_RUN return. */
    for (unsigned i = 0; signal_vm && i < signal_vm->opt.cpus; i++)
        if (signal_vm->vcpus[i].run)   /* NULL between the VMs of a sweep */
            signal_vm->vcpus[i].run->immediate_exit = 1;
}

/* The signals that stop a run, caught from the start: one that comes
 * while the boot is made stops it at its next step (vmm_step_end), or
 * at the guest's first KVM_RUN, with the report and the end line written
 * (docs/exit-status.md), where their default action killed the process
 * without them. A parent may have blocked them (the mask passes through
 * exec): unblocked, as a run that ignores SIGTERM or its --timeout
 * (SIGALRM), or whose vCPUs never wake (SIGUSR1), cannot keep the
 * contract. */
static const int run_signals[] = { SIGINT, SIGTERM, SIGQUIT, SIGHUP, SIGALRM, SIGUSR1 };

static int catch_run_signals(void)
{
    struct sigaction sa = { .sa_handler = on_signal }, was;
    sigset_t set;
    sigemptyset(&sa.sa_mask);
    sigemptyset(&set);
    for (size_t i = 0; i < sizeof(run_signals) / sizeof(run_signals[0]); i++) {
        int sig = run_signals[i];
        if (sigaction(sig, NULL, &was) < 0)
            return -1;
        /* SIGHUP ignored from the start (nohup) stays ignored: the run is
         * to outlive its terminal. SIGINT and SIGQUIT are caught even so,
         * as a shell without job control ignores them in every command it
         * starts with &, and they are how a script stops such a run. */
        if (sig == SIGHUP && was.sa_handler == SIG_IGN)
            continue;
        /* A kick (SIGUSR1) is for KVM_RUN, which returns -EINTR for it
         * all the same (never restarted: kernel/entry/kvm.c), as do the
         * sleeps (nanosleep is never restarted after a handler): a console
         * write that waits for a slow reader goes on, where EINTR failed
         * it. The stop signals still cut such a write short. */
        sa.sa_flags = sig == SIGUSR1 ? SA_RESTART : 0;
        if (sigaction(sig, &sa, NULL) < 0 || sigaddset(&set, sig) < 0)
            return -1;
    }
    return pthread_sigmask(SIG_UNBLOCK, &set, NULL) ? -1 : 0;
}

int vmm_catch_stop_signals(struct vmm *vm)
{
    signal_vm = vm;
    if (catch_run_signals()) {
        vmm_log("sigaction: %s", strerror(errno));
        return -1;
    }
    return 0;
}

int vmm_step_end(struct vmm *vm, int rc, const char *where)
{
    int sig = stop_signal;
    if (!sig)
        return rc;
    vmm_log("stopped by signal %d (%s) %s: exit status %d", sig, strsignal(sig), where, EXIT_SIGNAL_BASE + sig);
    vm->run.stopped_by_signal = sig;
    return EXIT_SIGNAL_BASE + sig;
}

/* Every vCPU stopped with rc, unless a status was set before: the one
 * the run ends with. */
static int stop_vcpus(struct vmm *vm, int rc)
{
    pthread_mutex_lock(&vm->lock);
    stop_all(vm, rc);
    rc = vm->run.stop_rc;
    pthread_mutex_unlock(&vm->lock);
    return rc;
}

/* The threads of vCPUs 1 to n - 1, stopped. */
static void join_vcpus(struct vmm *vm, unsigned n)
{
    for (unsigned i = 1; i < n; i++)
        pthread_join(vm->vcpus[i].thread, NULL);
}

/* The threads a run starts besides main's (the vCPUs but the first, the
 * halt waker, the progress line's heartbeat) are started with the stop
 * signals blocked, and keep them so: the kernel gives a signal sent to
 * the process to any thread that does not block it, and only vCPU 0's
 * thread, main's, ends the run on one (after_interrupted_run). Taken by
 * another thread, a SIGTERM or --timeout's SIGALRM left vCPU 0 in KVM_RUN
 * until its next exit, for good if it made none. SIGUSR1, the kick, stays
 * open to each. *was gets the mask to put back. */
static void block_stop_signals(sigset_t *was)
{
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < sizeof(run_signals) / sizeof(run_signals[0]); i++)
        if (run_signals[i] != SIGUSR1)
            sigaddset(&set, run_signals[i]);
    pthread_sigmask(SIG_BLOCK, &set, was);
}

/* The threads of the vCPUs but the first (the signal handlers are
 * main's, from the start: vmm_catch_stop_signals); RUN_CONTINUE, or
 * EXIT_HOST (logged) if one cannot start, once those started are stopped
 * and joined: none may run on in a VM its caller then destroys. */
static int start_vcpus(struct vmm *vm)
{
    signal_vm = vm;
    timed_out = 0;
    /* A stop signal that came before this run (between two sweep cells)
     * still stops it, at once. */
    for (unsigned i = 0; stop_signal && i < vm->opt.cpus; i++)
        vm->vcpus[i].run->immediate_exit = 1;
    vm->vcpus[0].thread = pthread_self();
    for (unsigned i = 0; i < vm->opt.cpus; i++)
        vm->vcpus[i].parked_round = vm->vcpus[i].parked_rounds = 0;   /* halt_wake.c: none from a run before */
    sigset_t was;
    block_stop_signals(&was);
    unsigned i = 1;
    while (i < vm->opt.cpus && !pthread_create(&vm->vcpus[i].thread, NULL, vcpu_thread, &vm->vcpus[i]))
        i++;
    pthread_sigmask(SIG_SETMASK, &was, NULL);
    if (i == vm->opt.cpus)
        return RUN_CONTINUE;
    vmm_log("cannot start the thread of vCPU %u", i);
    vm->vcpus[i].thread = 0;
    stop_vcpus(vm, EXIT_HOST);
    join_vcpus(vm, i);
    return EXIT_HOST;
}

/* vCPU 0 on this thread until it or another stops the run; then every
 * vCPU is stopped and joined. The first status set wins. */
static int run_vcpus(struct vmm *vm)
{
    sigset_t was;
    block_stop_signals(&was);   /* in the threads these start */
    run_hooks_run_start(vm);
    struct halt_waker waker;
    halt_waker_start(&waker, vm);
    pthread_sigmask(SIG_SETMASK, &was, NULL);
    if (vm->run.opt.timeout)
        alarm(vm->run.opt.timeout);
    int rc = run_loop(&vm->vcpus[0], &waker);
    alarm(0);
    rc = stop_vcpus(vm, rc);
    halt_waker_stop(&waker);
    join_vcpus(vm, vm->opt.cpus);
    return rc;
}

/* --exec's command must have reported its status; then the observers
 * have their say (--kunit: the tests' result, --stop-at: the summary's). */
static int run_status(struct vmm *vm, int rc)
{
    if (vm->opt.exec && rc == EXIT_OK && vm->ctl.stop != GUEST_EXIT_PORT) {
        vmm_log("--exec: the guest ended without reporting the command's exit status (no \"handover-init: "
                "command exited with status N\" line, nothing on the exit port 0x%x)", GUEST_PORT_EXIT);
        rc = EXIT_EXEC_NO_STATUS;
    }
    rc = run_hooks_run_end(vm, rc);
    /* Only an observer with a done hook ends a run so, and its run_end
     * gives the status: a success, if it gave none. */
    return rc == RUN_OBSERVER_DONE ? EXIT_OK : rc;
}

struct run_options vmm_run_options(const struct vmm_options *o)
{
    return (struct run_options){ .timeout = o->timeout, .timeout_name = "--timeout",
                                 .console_limit = o->console_limit, .quiet = o->quiet };
}

int vmm_run(struct vmm *vm, const struct run_options *o)
{
    vm->run = (struct run_state){ .opt = *o, .stop_rc = RUN_CONTINUE, .started = clock_since_start() };
    vmm_set_log_file(o->log);
    int rc = start_vcpus(vm);
    if (rc == RUN_CONTINUE)
        rc = run_status(vm, run_vcpus(vm));
    vmm_set_log_file(NULL);
    return rc;
}

void vmm_clear_run_end(struct vmm *vm)
{
    vm->run = (struct run_state){ .stop_rc = RUN_CONTINUE };
    vm->console.panic = (struct panic_watch){ .ended = false };
    vm->console.halt_said = false;
    vm->ctl = (struct control_ports){ .stop = GUEST_RUNNING };
    vm->fw.stop = FW_RUN;
}

struct run_end vmm_run_end(const struct vmm *vm, int rc)
{
    return (struct run_end){
        .exit_status = rc, .write_failed = vm->files.write_failed, .started = vm->step == STEP_GUEST,
        .stopped_by_signal = vm->run.stopped_by_signal, .fault_sweep = vm->opt.fault_sweep,
        .timed_out = vm->run.timed_out, .watchdog = vm->fw.stop == FW_STOP_WATCHDOG,
        .exit_port = vm->ctl.stop == GUEST_EXIT_PORT, .exit_port_status = vm->ctl.exit_status,
        .panic = vm->console.panic.ended, .efi_exit = vm->fw.stop == FW_STOP_EXIT, .kunit = vm->opt.kunit,
        .exec = vm->opt.exec != NULL, .stop_at_ebs = vm->opt.stop_at == STOP_AT_EBS,
        .stop_unreached = vm->run.stop_unreached,
        .reached_runtime = vm->fw.phase == FW_PHASE_RUNTIME, .poweroff = vm->ctl.stop == GUEST_POWEROFF,
        .reset = vm->ctl.stop == GUEST_RESET || vm->fw.stop == FW_STOP_RESET, .halted = vm->run.halted,
    };
}

struct fault_run vmm_fault_run(const struct vmm *vm, int rc)
{
    return (struct fault_run){ .exit_status = rc, .reached_ebs = vm->fw.phase == FW_PHASE_RUNTIME,
                               .guest_stopped = vm->ctl.stop != GUEST_RUNNING,
                               .guest_status = vm->ctl.stop == GUEST_EXIT_PORT && rc == vm->ctl.exit_status,
                               .panic = vm->console.panic.ended,
                               .e820_mismatch = vm->run.e820_mismatch, .signal = vm->run.stopped_by_signal };
}
