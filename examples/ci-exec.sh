#!/usr/bin/env bash
# CI recipe: boot a kernel, run one command as the guest's init job, and
# exit with the command's status (handover --exec). The kernel needs an
# initramfs-capable config (the status goes out through the exit-status port
# 0xf4 via /dev/port, and as a console line for kernels without
# CONFIG_DEVPORT); the initramfs is busybox-static, built once by
# scripts/build-initramfs.sh.
#
# usage: examples/ci-exec.sh BZIMAGE 'COMMAND'
# env: HANDOVER (default: handover on PATH), TIMEOUT seconds (default 600)
#
# Needs a host whose KVM runs guest user space (bare metal, or a cloud VM
# with nested VMX/SVM). On a nested, emulating KVM init dies at its first
# system call; handover then says so and exits with status 6 (kernel panic).
set -euo pipefail
kernel=${1:?usage: $0 BZIMAGE COMMAND} cmd=${2:?usage: $0 BZIMAGE COMMAND}
here=$(cd "$(dirname "$0")/.." && pwd)
initramfs=$("$here/scripts/build-initramfs.sh")
exec "${HANDOVER:-handover}" --timeout "${TIMEOUT:-600}" --initrd "$initramfs" --exec "$cmd" \
    --cmdline "console=ttyS0 quiet" "$kernel"
