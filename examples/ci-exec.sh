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
# Exit status: the command's; 8 when the guest ended without reporting it;
# 2 for a usage error.
set -euo pipefail
# A usage error is status 2, as handover's own: 1 could be the command's.
[ $# = 2 ] && [ -n "$1" ] && [ -n "$2" ] || { echo "usage: $0 BZIMAGE 'COMMAND'" >&2; exit 2; }
kernel=$1 cmd=$2
exec "${HANDOVER:-handover}" --timeout "${TIMEOUT:-600}" --exec "$cmd" \
    --cmdline "console=ttyS0 quiet" "$kernel"
