#!/usr/bin/env bash
# CI recipe: boot a kernel, run one command as the guest's init job, and
# exit with the command's status (handover --exec). The kernel needs an
# initramfs-capable config (the status goes out through the exit-status port
# 0xf4 via /dev/port, and as a console line for kernels without
# CONFIG_DEVPORT); handover packs the initramfs itself: its /init and the
# host's /bin/busybox (apt-get install busybox-static).
#
# usage: examples/ci-exec.sh BZIMAGE 'COMMAND'
# env: HANDOVER (default: handover on PATH), TIMEOUT seconds (default 600)
#
# Needs a host whose KVM runs guest user space (bare metal, or a cloud VM
# with nested VMX/SVM). On a nested, emulating KVM init dies at its first
# system call; handover then says so and exits with status 6 (kernel panic).
# Exit status: the command's; 8 when the guest ended without reporting it.
set -euo pipefail
kernel=${1:?usage: $0 BZIMAGE COMMAND} cmd=${2:?usage: $0 BZIMAGE COMMAND}
exec "${HANDOVER:-handover}" --timeout "${TIMEOUT:-600}" --exec "$cmd" \
    --cmdline "console=ttyS0 quiet" "$kernel"
