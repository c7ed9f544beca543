# shellcheck shell=bash
# The options of every boot whose trace is compared byte for byte (the golden
# traces, the fault sweeps), sourced by tests/integration/kernel.sh and
# scripts/update-golden.sh.
# - --seed 1: EFI_RNG_PROTOCOL returns a fixed stream.
# - nokaslr: the stub mixes RDRAND/RDTSC into its KASLR seed (x86-stub.c
#   efi_get_seed), which no --seed can fix; without it the kernel's slot,
#   and the trace, would change from run to run.
# - noxsave: handover adds it by itself on hosts whose KVM cannot run XRSTOR
#   for the guest, and the stub copies the command line (its AllocatePool
#   size is in the trace). Naming it here keeps the command line, and so
#   the traces, the same on every kind of host. These boots stop at
#   ExitBootServices, before the kernel's FPU setup that reads it.
GOLDEN_CMDLINE="console=ttyS0 earlyprintk=serial nokaslr noxsave"
SEEDED=(--seed 1 --cmdline "$GOLDEN_CMDLINE")
# An EFI application in front of the kernel (tests/golden/grub-tiny.trace:
# examples/make-grub.sh's GRUB) gets only the seed: its kernel's command
# line is GOLDEN_CMDLINE, in the grub.cfg; --cmdline would be its LoadOptions.
APP_SEEDED=(--seed 1)
# systemd-stub's UKI of the kernel (tests/golden/uki-tiny.trace:
# examples/make-uki.sh) likewise: GOLDEN_CMDLINE is its .cmdline, 64 KiB of
# zeros its .initrd (never unpacked: the boots stop at ExitBootServices).
# golden_uki KERNEL DIR writes the initrd into DIR and prints the UKI's path.
golden_uki() {
    head -c 65536 /dev/zero > "$2/uki-initrd.bin" &&
        "$(dirname "${BASH_SOURCE[0]}")/../../examples/make-uki.sh" "$1" "$2/uki-initrd.bin" "$GOLDEN_CMDLINE"
}
# The --fault-sweep of a boot loader in front of the kernel: the UKI's and
# GRUB's, whose matrices (inject spec and outcome of every cell) are
# tests/golden/uki-tiny.sweep.json and grub-tiny.sweep.json. systemd-stub
# halts on a failed AllocatePool (its assert: "... Halting.", then Stall
# forever), and GRUB, after a failed early call, polls ReadKeyStroke at
# "Press any key to exit." or "grub rescue> " (a poll nothing tells apart
# from a menu's countdown), so those cells end as hung at --cell-timeout,
# which is short for that reason: the cells that do finish take a few
# seconds in the L1.
LOADER_SWEEP=(--timeout 900 --cell-timeout 15 --fail-on crashed,bad-e820 "${APP_SEEDED[@]}")
# The --fault-sweep of the tiny mixed-mode kernel with an IA-32 firmware
# (tests/golden/mixed-tiny.sweep.json), in 128 MiB (the golden matrix's
# addresses are those of that size).
MIXED_SWEEP=(--timeout 900 --fail-on crashed,bad-e820 --mem 128M "${SEEDED[@]}" --firmware-bits 32)
# golden_matrix SWEEP.json: the part of a matrix a golden file keeps.
golden_matrix() {
    python3 -c 'import json, sys
m = json.load(open(sys.argv[1]))
cells = [{k: c[k] for k in ("seq", "call", "inject", "outcome")} for c in m["cells"]]
print(json.dumps({"entry": m["entry"], "cells": cells}, indent=1))' "$1"
}
