#!/usr/bin/env bash
# The runner of the KVM tiers, tested: an L1 that makes no progress is
# ended by scripts/kvm-host's watchdog within minutes, with its console's
# task list and the test it was running; kvm-tiers.sh runs that tier once
# more in a new L1 (which hangs too here, and the tier fails), and still
# runs the tiers after it.
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
# One lane, the stuck tier first: its L1 is ended with the evidence, the
# second L1 too, and the tier fails; the next tier still runs and passes.
# The consoles the watchdog keeps go to the test's own directory, not /tmp.
expect kvm-host-stall 1 '\[stuck\] kvm-host: STALL: the L1 made no progress for [0-9]+ s' \
    '\[stuck\] +kvm-host: running stuck-test' '\[stuck\] +task:sleep +state:S' '# tier stuck: its L1 failed \(status 125.*runs again in a new L1, once' \
    '# tier stuck: .* status=125 retried=1' \
    '\[after\] still here' '# tier after: .* status=0' \
    -- env KVM_TIER_LANES=1 KVM_HOST_STALL=30 TMPDIR="$OUT" tests/integration/kvm-tiers.sh "$OUT/runner-build" "$PAYLOAD" \
       "stuck=scripts/kvm-host $stuck" "after=scripts/kvm-host echo still here"
summary
