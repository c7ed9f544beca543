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

#include "../host/snapshot_file.h"
#include "../run_hooks.h"

struct vmm;
struct serial;

struct warm_boot {
    struct vmm *vm;
    bool restoring;            /* DIR holds a snapshot of these inputs */
    bool ready;                /* the ready line was seen: the next port I/O exit saves and sends the command */
    bool sent;                 /* this run sent its command at the ready line */
    bool noxsave_added;        /* restoring: the saved guest's command line got noxsave from the XRSTOR probe */
    struct snapshot_inputs inputs;
    uint32_t cpuid_crc;        /* the CRC-32 of the CPUID this run's guest is given (the boot record keeps the saved one) */
    uint32_t firmware_crc;     /* and of what a restored guest uses of this build's firmware (warm_boot.c) */
    uint8_t *state;            /* the state file as read (restoring) */
    size_t state_len;
    int dir_fd;                /* DIR, locked (shared while restoring, exclusive while making one); -1: none */
    int ram_fd, state_fd;      /* a new snapshot's ram.tmp and state.tmp; -1: none (nothing is saved) */
    struct serial *uart;       /* COM1, where the command goes */
};

/* After the image and the inputs are read (their bytes are hashed), before
 * the VM: a sound snapshot of these inputs is restored, one of others (or
 * of another version of the format) is replaced, and a corrupt or
 * truncated one is refused (EXIT_USAGE, one line
 * naming the file). A new one's files are opened here, before the
 * sandbox. DIR is locked (shared to restore, exclusive to make one); a
 * run that finds it locked by another boots without a snapshot. argv: the options, of which those that do not shape the VM
 * (the command, --timeout, ...) are left out of the inputs. */
int warm_boot_prepare(struct warm_boot *w, int argc, char **argv);
/* After the VM is built and loaded as for a cold boot (the firmware's
 * state is built so), before the sandbox. Restoring: the snapshot's RAM,
 * vCPU, irqchips, devices, firmware and clock replace it, the VM gets a
 * new VM generation ID (ACPI VMGENID) and the interrupt that announces it,
 * and the command is queued. Otherwise the first VM generation ID is
 * written. 0, or an exit status. */
int warm_boot_loaded(struct warm_boot *w);
/* The run's hooks (ctx a struct warm_boot): the console's line, for the
 * ready line; then, at the port I/O exit that sent it, on the vCPU that
 * printed it, the VM saved (first run) and the command queued. */
extern const struct run_hooks warm_boot_hooks;
void warm_boot_free(struct warm_boot *w);

#endif
