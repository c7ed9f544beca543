#include "report_hooks.h"

#include "../secure_boot.h"
#include "../vmm.h"

static void keep_boot_params(struct report_run *r, uint64_t addr)
{
    const struct boot_params *bp = guest_mem_ptr(&r->vm->mem, addr, sizeof(*bp));
    if (bp)
        report_keep_boot_params(&r->data, bp);
}

static void on_milestone(void *ctx, enum milestone m)
{
    struct report_run *r = ctx;
    if (m == MILESTONE_EBS) {
        report_keep_map(&r->data, &r->vm->fw.map);
        report_keep_memattr(&r->data, &r->vm->mem, &r->vm->fw.map);
    }
}

static void on_kernel(void *ctx, uint64_t boot_params)
{
    keep_boot_params(ctx, boot_params);
}

static void on_console_byte(void *ctx, uint8_t byte)
{
    struct report_run *r = ctx;
    const struct vmm *vm = r->vm;
    /* The kernel's first output after ExitBootServices: the stub has
     * filled the zero page and the kernel has copied it. Only after an
     * ExitBootServices of this run: a guest restored from a --snapshot is
     * past it too, but the page is the saved kernel's to reuse by now. */
    if (vm->fw.phase == FW_PHASE_RUNTIME && vm->milestone_at[MILESTONE_EBS] && !r->data.bp_copy &&
        vm->opt.entry == ENTRY_HANDOVER)
        keep_boot_params(r, vm->placed.boot_params);
    report_keep_console(&r->data, byte);
}

const struct run_hooks report_hooks = {
    .name = "report", .milestone = on_milestone, .kernel = on_kernel, .console_byte = on_console_byte,
};

int report_finish(const struct report_run *r, int status, const char *end_reason, const struct ktap *kunit)
{
    const struct vmm *vm = r->vm;
    const struct report_facts f = {
        .kernel = vm->opt.kernel, .kernel_version = vm->placed.bz.kernel_version,
        .protocol = vm->placed.bz.hdr.version, .xloadflags = vm->placed.bz.hdr.xloadflags,
        .entry = vmm_entry_name(vm),
        /* An application's: its LoadOptions, if any. */
        .cmdline = vm->placed.app && !vm->opt.cmdline_given ? "" : vm->placed.cmdline,
        .exit_status = status, .end_reason = end_reason,
        .not_started_at = vm->step == STEP_GUEST ? NULL : boot_step_names[vm->step],
        .efi_status = vmm_image_status(vm),
        .firmware_calls = vm->fw.calls, .calls_by_id = vm->fw.calls_by_id, .counters = &vm->counters,
        .milestone_at = vm->milestone_at, .mem = &vm->mem,
        .exec = vm->opt.exec, .exec_status_known = vm->ctl.stop == GUEST_EXIT_PORT,
        .exec_status = vm->ctl.exit_status, .exec_output = vm->opt.exec_output,
        .kunit = vm->opt.kunit ? kunit : NULL,
        .tpm = vm->fw.tpm.on ? &vm->fw.tpm : NULL,
        .secure_boot = secure_boot_mode_name(vm),
    };
    return report_write(vm->files.report.f, &f, &r->data);
}
