#!/usr/bin/env bash
# The runner of the KVM tiers, tested: an L1 that makes no progress is
# ended by scripts/kvm-host's watchdog within minutes, with its console's
# task list and the test it was running, and kvm-tiers.sh still runs the
# tiers after the one whose L1 hung.
# usage: tests/integration/runner.sh BUILD PAYLOAD
set -u
B=$1 PAYLOAD=$2
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
echo "# the tier runner"
if [ "$(scripts/kvm-host --kind)" != l1 ]; then
    skip kvm-host-stall "the tiers run on this host's own hardware KVM: there is no L1 to watch"
    summary; exit
fi
stuck='echo "<3>kvm-host: running stuck-test" > /dev/kmsg; sleep 100000'
# One lane, the stuck tier first: its L1 is ended with the evidence and the
# tier fails; the next tier still runs and passes.
expect kvm-host-stall 1 '\[stuck\] kvm-host: STALL: the L1 made no progress for [0-9]+ s' \
    '\[stuck\] +kvm-host: running stuck-test' '\[stuck\] +task:sleep +state:S' '# tier stuck: .* status=125' \
    '\[after\] still here' '# tier after: .* status=0' \
    -- env KVM_TIER_LANES=1 KVM_HOST_STALL=30 tests/integration/kvm-tiers.sh "$OUT/runner-build" "$PAYLOAD" \
       "stuck=scripts/kvm-host $stuck" "after=scripts/kvm-host echo still here"
summary
