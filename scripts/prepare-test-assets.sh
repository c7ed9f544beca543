#!/usr/bin/env bash
# Build or fetch, on this machine, everything the KVM tests boot: the tiny,
# KUnit, no-PCI, no-handover, mixed-mode, VM generation ID and i386 (plain
# and KUnit each) kernels, the --exec initramfs, the GRUBs in front of the
# tiny kernel (examples/make-grub.sh) and its UKI (examples/make-uki.sh), the stock
# Debian kernels, and the L1 of scripts/kvm-host. The KVM tests may run in
# that L1, which has no network and throws its writes away, so they find
# all of it in the cache. A step that fails is reported and the tests that
# need it say SKIP with the reason; this script itself always succeeds.
top=$(cd "$(dirname "$0")/.." && pwd)
step() {   # step NAME COMMAND...
    local log; log=$(mktemp)
    if "${@:2}" >"$log" 2>&1; then echo "assets: $1 ready"
    else echo "assets: $1 not available: $(tail -n 1 "$log")"; fi
    rm -f "$log"
}
step "tiny kernel" "$top/scripts/build-tiny-kernel.sh"
step "KUnit kernel" "$top/scripts/build-tiny-kernel.sh" kunit
step "no-PCI kernel" "$top/scripts/build-tiny-kernel.sh" nopci
step "no-handover kernel" "$top/scripts/build-tiny-kernel.sh" nohandover
step "mixed-mode kernel" "$top/scripts/build-tiny-kernel.sh" mixed
step "mixed-mode KUnit kernel" "$top/scripts/build-tiny-kernel.sh" kunit+mixed
step "VM generation ID kernel" "$top/scripts/build-tiny-kernel.sh" vmgenid
step "i386 kernel" "$top/scripts/build-tiny-kernel.sh" i386
step "i386 KUnit kernel" "$top/scripts/build-tiny-kernel.sh" kunit+i386
step "initramfs" "$top/scripts/build-initramfs.sh"
# The kernel tier's (the golden trace's command line) and the real-KVM tier's.
. "$top/tests/integration/seeded.sh"
if tiny=$("$top/scripts/build-tiny-kernel.sh" 2>/dev/null); then
    step "GRUB (golden)" "$top/examples/make-grub.sh" --cmdline "$GOLDEN_CMDLINE" "$tiny"
    step "GRUB" "$top/examples/make-grub.sh" "$tiny"
    step "GRUB (menu)" "$top/examples/make-grub.sh" --menu --cmdline "$GOLDEN_CMDLINE" "$tiny"
    uki_dir=$(mktemp -d)
    step "UKI (golden)" golden_uki "$tiny" "$uki_dir"
    rm -rf "$uki_dir"
fi
step "Debian kernels" "$top/scripts/fetch-debian-kernels.sh"
[ "$("$top/scripts/kvm-host" --kind)" = l1 ] && step "L1 KVM host" "$top/scripts/kvm-host" --prepare
exit 0
