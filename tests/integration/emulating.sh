#!/usr/bin/env bash
# The tests kept for a KVM that emulates guest ring 0 (a nested PVM host):
# there the emulation fallbacks (int3, clac/stac, popcnt, ...) and the
# automatic noxsave are exercised, which a hardware KVM never needs; every
# other boot runs on a hardware KVM (kvm-tiers.sh). On any other machine
# this says SKIP with the reason.
# usage: tests/integration/emulating.sh BUILD PAYLOAD
set -u
B=$1 PAYLOAD=$2
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
if ! kvm_usable; then
    skip emulating-kvm "this machine has no usable /dev/kvm of its own (the hardware-KVM tiers ran in scripts/kvm-host)"
elif [ "$(scripts/kvm-host --kind)" = native ]; then
    skip emulating-kvm "this /dev/kvm is a hardware KVM: the fallback tiers ran there already (kvm-tiers.sh)"
else
    rc=0
    tests/integration/payload.sh "$B/handover" "$PAYLOAD" emulating || rc=1
    tests/integration/kernel.sh "$B/handover" emulating || rc=1
    exit $rc
fi
summary
