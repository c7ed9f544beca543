#!/usr/bin/env bash
# The tiers that need a hardware KVM, one after the other: the synthetic
# payload's boots with both builds, the tiny kernel, and the real-KVM tier
# (realkvm.sh). make test runs this through tests/kvm-host/run, so that it
# gets a hardware KVM on any machine. Each tier prints its own summary line;
# the exit status is 0 when every tier passed.
# usage: tests/integration/kvm-tiers.sh BUILD PAYLOAD
set -u
B=$1 PAYLOAD=$2
cd "$(dirname "$0")/../.."
rc=0
tier() {   # tier NAME COMMAND...: run it, say how long it took
    local t0=$SECONDS
    "${@:2}" || rc=1
    echo "# tier $1: $((SECONDS - t0)) s"
}
tier payload tests/integration/payload.sh "$B/handover" "$PAYLOAD" kvm
tier payload-san tests/integration/payload.sh "$B/handover-san" "$PAYLOAD" kvm
tier tiny tests/integration/kernel.sh "$B/handover" tiny
tier realkvm tests/integration/kernel.sh "$B/handover" realkvm
exit $rc
