/* Guest serial output: COM1 to stdout, kept for --report, and each line to
 * the line consumers; COM2 to the --exec-output file. */
#include <errno.h>
#include <string.h>

#include "../guest/layout.h"
#include "vmm.h"

static void ktap_consumer(void *ctx, const char *line)
{
    ktap_line(ctx, line);
}

/* --exec: /init logs the status before it writes it to the exit port; a
 * kernel without /dev/port (CONFIG_DEVPORT) still ends the VM with it. */
static void exec_status_consumer(void *ctx, const char *line)
{
    struct control_ports *ctl = ctx;
    int status;
    if (ctl->stop == GUEST_RUNNING && exec_status_scan(line, &status)) {
        ctl->stop = GUEST_EXIT_PORT;
        ctl->exit_status = status & 0xff;
    }
}

static void milestone_consumer(void *ctx, const char *line)
{
    if (console_is_banner(line))
        report_mark(ctx, PHASE_BANNER);
    if (console_is_init(line))
        report_mark(ctx, PHASE_INIT);
}

int vmm_console_init(struct vmm *vm)
{
    const struct line_consumer all[] = { { "panic", panic_watch_line, &vm->console.panic },
                                         { "ktap", ktap_consumer, &vm->ktap },
                                         { "exec-status", exec_status_consumer, &vm->ctl },
                                         { "milestones", milestone_consumer, vm } };
    const bool wanted[] = { true, vm->opt.kunit, vm->opt.exec != NULL, true };
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
        if (wanted[i] && line_consumers_add(&vm->console.consumers, &all[i])) {
            vmm_log("console: no room for the line consumer %s", all[i].name);
            return -1;
        }
    return 0;
}

void vmm_console_tx(void *ctx, uint8_t byte)
{
    struct vmm *vm = ctx;
    if (!vm->report.phase_time[PHASE_FIRST_CONSOLE])
        report_mark(vm, PHASE_FIRST_CONSOLE);
    /* The kernel's first output after ExitBootServices: the stub has
     * filled the zero page and the kernel has copied it. */
    if (vm->fw.phase == FW_PHASE_RUNTIME && !vm->report.bp_copy && vm->opt.entry == ENTRY_HANDOVER)
        report_save_boot_params(vm, vm->placed.boot_params);
    report_console(vm, byte);
    vm->console.last_output = report_elapsed();
    /* Past the limit the text is still read (KTAP, panics), not printed. */
    if (vm->console.bytes < vm->opt.console_limit) {
        putchar(byte);
        if (++vm->console.bytes == vm->opt.console_limit) {
            fflush(stdout);
            vmm_log("console output limit of %llu bytes reached (--console-limit): further output is not printed",
                    (unsigned long long)vm->opt.console_limit);
        }
    }
    if (byte == '\n')
        fflush(stdout);
    console_line_byte(&vm->console.text, &vm->console.consumers, byte);
}

/* Byte for byte as the guest sent it (its /init turns off the tty's output
 * processing), up to --console-limit; after a write error, nothing more. */
void vmm_exec_output_tx(void *ctx, uint8_t byte)
{
    struct vmm *vm = ctx;
    if (vm->files.exec_output_failed || vm->files.exec_output_bytes >= vm->opt.console_limit)
        return;
    if (putc(byte, vm->files.exec_output) == EOF) {
        vmm_log("--exec-output %s: write failed: %s", vm->opt.exec_output, strerror(errno));
        vm->files.exec_output_failed = true;
        return;
    }
    if (++vm->files.exec_output_bytes == vm->opt.console_limit)
        vmm_log("--exec-output: limit of %llu bytes reached (--console-limit): further output is not written",
                (unsigned long long)vm->opt.console_limit);
}
