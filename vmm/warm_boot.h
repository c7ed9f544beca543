/* --snapshot DIR: warm boots of --exec. The first run boots until /init
 * says it is ready for a command (its line "handover-init: ready for a
 * command" on the console), saves the whole VM into DIR there, then sends
 * the command; a later run with the same inputs (host/snapshot_file.h)
 * restores that VM instead of booting and sends its own command. DIR
 * holds two files: state (the header, the vCPU, the irqchips, the devices,
 * the firmware's runtime state, the clock) and ram (guest RAM as is,
 * sparse: a page of zeros is a hole), which a restore maps copy-on-write,
 * so it reads only the pages the guest touches. docs/snapshots.md. */
#ifndef HANDOVER_WARM_BOOT_H
#define HANDOVER_WARM_BOOT_H

#include <stdbool.h>
#include <stdint.h>

#include "host/snapshot_file.h"

struct vmm;
struct vcpu;
struct serial;

struct warm_boot {
    bool restoring;            /* DIR holds a snapshot of these inputs */
    bool ready;                /* the ready line was seen: the run loop calls warm_boot_ready */
    bool saved;                /* this run saved one */
    bool noxsave_added;        /* restoring: the saved guest's command line got noxsave from the XRSTOR probe */
    struct snapshot_inputs inputs;
    uint8_t *state;            /* the state file as read (restoring) */
    size_t state_len;
    int dir_fd, ram_fd, state_fd;   /* the first run's: DIR, ram.tmp and state.tmp; -1: none */
    struct serial *uart;       /* COM1, where the command goes */
};

/* After the image and the inputs are read (their bytes are hashed), before
 * the VM: a sound snapshot of these inputs is restored, one of others is
 * replaced, and a corrupt or truncated one is refused (EXIT_USAGE, one line
 * naming the file). A new one's files are opened here, before the
 * sandbox. argv: the options, of which those that do not shape the VM
 * (the command, --timeout, ...) are left out of the inputs. */
int warm_boot_prepare(struct vmm *vm, int argc, char **argv);
/* After the VM is built and loaded as for a cold boot (the firmware's
 * state is built so), before the sandbox: the snapshot's RAM, vCPU,
 * irqchips, devices, firmware and clock replace it, and the command is
 * queued. 0, or an exit status. */
int warm_boot_restore(struct vmm *vm);
/* The run loop, once the ready line was seen, on the vCPU that printed
 * it: save the VM (first run), then queue the command. RUN_CONTINUE, or
 * an exit status. */
int warm_boot_ready(struct vmm *vm, struct vcpu *c);
/* The console's line consumer: the ready line. */
void warm_boot_line(void *ctx, const char *line);
void warm_boot_free(struct warm_boot *w);

#endif
