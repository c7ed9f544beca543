/* Guest serial output: COM1 to stdout, and the current line kept for
 * diagnostics; COM2 to the --exec-output file. The UARTs' IRQs go to the
 * in-kernel irqchip. */
#include <errno.h>
#include <string.h>

#define EXEC_STATUS_PREFIX "handover-init: command exited with status "

#include "mem/layout.h"
#include "vmm.h"

void vmm_console_tx(void *ctx, uint8_t byte)
{
    struct vmm *vm = ctx;
    if (!vm->phase_time[PHASE_FIRST_CONSOLE])
        report_mark(vm, PHASE_FIRST_CONSOLE);
    /* The kernel's first output after ExitBootServices: the stub has
     * filled the zero page and the kernel has copied it. */
    if (vm->fw.phase == FW_PHASE_RUNTIME && !vm->bp_copy && vm->opt.entry == ENTRY_HANDOVER)
        report_save_boot_params(vm, vm->boot_params);
    report_console(vm, byte);
    /* Past the limit the text is still read (KTAP, panics), not printed. */
    if (vm->console_bytes < vm->opt.console_limit) {
        putchar(byte);
        if (++vm->console_bytes == vm->opt.console_limit) {
            fflush(stdout);
            vmm_log("console output limit of %llu bytes reached (--console-limit): further output is not printed",
                    (unsigned long long)vm->opt.console_limit);
        }
    }
    if (byte == '\n') {
        fflush(stdout);
        if (vm->line_len) {
            vm->line[vm->line_len] = 0;
            snprintf(vm->last_line, sizeof(vm->last_line), "%s", vm->line);
            /* kernel/panic.c prints the reason, then an end marker once
             * it has said all it will. */
            const char *p = strstr(vm->line, "Kernel panic - not syncing");
            if (p && !vm->panic[0])
                snprintf(vm->panic, sizeof(vm->panic), "%s", p);
            if (vm->panic[0] && strstr(vm->line, "---[ end Kernel panic"))
                vm->panic_ended = true;
            if (vm->opt.kunit)
                ktap_line(&vm->ktap, vm->line);
            /* --exec: scripts/build-initramfs.sh's /init logs the status
             * through /dev/kmsg (so the line carries a printk timestamp)
             * before it writes it to the exit port; a kernel without
             * /dev/port (CONFIG_DEVPORT) still ends the VM with it. */
            int status;
            const char *st = strstr(vm->line, EXEC_STATUS_PREFIX);
            if (vm->opt.exec && vm->ctl.stop == GUEST_RUNNING && st &&
                sscanf(st + strlen(EXEC_STATUS_PREFIX), "%d", &status) == 1) {
                vm->ctl.stop = GUEST_EXIT_PORT;
                vm->ctl.exit_status = status & 0xff;
            }
            if (strstr(vm->line, "Linux version "))
                report_mark(vm, PHASE_BANNER);
            if (strstr(vm->line, "Run /") && strstr(vm->line, " as init process"))
                report_mark(vm, PHASE_INIT);
        }
        vm->line_len = 0;
        return;
    }
    if (byte != '\r' && vm->line_len + 1 < sizeof(vm->line)) {
        vm->line[vm->line_len++] = (char)byte;
        vm->line[vm->line_len] = 0;
    }
}

/* Byte for byte as the guest sent it (its /init turns off the tty's output
 * processing), up to --console-limit; after a write error, nothing more. */
void vmm_exec_output_tx(void *ctx, uint8_t byte)
{
    struct vmm *vm = ctx;
    if (vm->exec_output_failed || vm->exec_output_bytes >= vm->opt.console_limit)
        return;
    if (putc(byte, vm->exec_output) == EOF) {
        vmm_log("--exec-output %s: write failed: %s", vm->opt.exec_output, strerror(errno));
        vm->exec_output_failed = true;
        return;
    }
    if (++vm->exec_output_bytes == vm->opt.console_limit)
        vmm_log("--exec-output: limit of %llu bytes reached (--console-limit): further output is not written",
                (unsigned long long)vm->opt.console_limit);
}
