/* Guest serial output: COM1 to stdout, each byte to the observers
 * (run_hooks.h) and each line to the line consumers (the console's own
 * watchers, and the observers' line hooks); COM2 to the --exec-output file. */
#include <errno.h>
#include <string.h>
#include <sys/random.h>

#include "host/clock.h"
#include "../guest/layout.h"
#include "vmm.h"

/* --exec: /init logs the status before it writes it to the exit port; a
 * kernel without /dev/port (CONFIG_DEVPORT) still ends the VM with it. */
static void exec_status_consumer(void *ctx, const char *line)
{
    struct vmm *vm = ctx;
    int status;
    if (vm->ctl.stop == GUEST_RUNNING && exec_status_scan(line, vm->console.exec_run_id, &status)) {
        vm->ctl.stop = GUEST_EXIT_PORT;
        vm->ctl.exit_status = status;
    }
}

int vmm_exec_run_id_new(struct vmm *vm)
{
    uint8_t id[EXEC_RUN_ID_LEN / 2];
    if (getrandom(id, sizeof(id), 0) != (ssize_t)sizeof(id)) {
        vmm_log("--exec: getrandom: %s", strerror(errno));
        return -1;
    }
    for (size_t i = 0; i < sizeof(id); i++)
        snprintf(vm->console.exec_run_id + 2 * i, 3, "%02x", id[i]);
    return 0;
}

static void milestone_consumer(void *ctx, const char *line)
{
    if (console_is_banner(line))
        vmm_milestone(ctx, MILESTONE_BANNER);
    if (console_is_init(line))
        vmm_milestone(ctx, MILESTONE_INIT);
}

int vmm_console_init(struct vmm *vm)
{
    const struct line_consumer all[] = { { "panic", panic_watch_line, &vm->console.panic },
                                         { "exec-status", exec_status_consumer, vm },
                                         { "milestones", milestone_consumer, vm },
                                         { "halt", halt_watch_line, &vm->console.halt_said } };
    const bool wanted[] = { true, vm->opt.exec != NULL, true, true };
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
        if (wanted[i] && line_consumers_add(&vm->console.consumers, &all[i])) {
            vmm_log("console: no room for the line consumer %s", all[i].name);
            return -1;
        }
    return 0;
}

/* A failed write leaves stdout's error flag set, which the run loop
 * checks after each I/O exit; the first errno is kept for its message. */
static void console_write_failed(struct vmm *vm)
{
    if (!vm->console.write_errno)
        vm->console.write_errno = errno;
}

static void console_flush(struct vmm *vm)
{
    if (fflush(stdout) == EOF)
        console_write_failed(vm);
}

void vmm_console_tx(void *ctx, uint8_t byte)
{
    struct vmm *vm = ctx;
    uint64_t limit = vm->run.opt.console_limit;
    vmm_milestone(vm, MILESTONE_FIRST_CONSOLE);
    run_hooks_console_byte(vm, byte);
    vm->console.last_output = clock_since_start();
    /* Past the limit the text is still read (KTAP, panics), not printed;
     * the first byte left out says so (with --console-limit 0 too). */
    if (vm->console.bytes < limit) {
        if (putchar(byte) == EOF)
            console_write_failed(vm);
        vm->console.bytes++;
    } else if (!vm->console.limit_told) {
        vm->console.limit_told = true;
        console_flush(vm);
        vmm_log("console output limit of %llu bytes reached (--console-limit): further output is not printed",
                (unsigned long long)limit);
    }
    if (byte == '\n')
        console_flush(vm);
    console_line_byte(&vm->console.text, &vm->console.consumers, byte);
}

/* Byte for byte as the guest sent it (its /init turns off the tty's output
 * processing), up to --console-limit, the first byte left out said; after
 * a write error, nothing more. */
void vmm_exec_output_tx(void *ctx, uint8_t byte)
{
    struct vmm *vm = ctx;
    uint64_t limit = vm->run.opt.console_limit;
    if (vm->files.exec_output_failed)
        return;
    if (vm->files.exec_output_bytes >= limit) {
        if (!vm->files.exec_output_limit_told)
            vmm_log("--exec-output: limit of %llu bytes reached (--console-limit): further output is not written",
                    (unsigned long long)limit);
        vm->files.exec_output_limit_told = true;
        return;
    }
    if (putc(byte, vm->files.exec_output) == EOF) {
        vmm_log("--exec-output %s: write failed: %s", vm->opt.exec_output, strerror(errno));
        vm->files.exec_output_failed = true;
        return;
    }
    vm->files.exec_output_bytes++;
}
