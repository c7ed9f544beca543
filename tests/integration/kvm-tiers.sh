#!/usr/bin/env bash
# The tiers that boot guests, side by side: the synthetic payload's boots
# (with the normal build, and the tests that reach different code with the
# sanitizer build), the tiny kernel, the real-KVM tier (realkvm.sh), and on
# an emulating KVM its own tier (emulating.sh), and the example CI
# workflow's steps (workflow.sh). Each tier that needs a
# hardware KVM runs through scripts/kvm-host: natively where this machine
# has one, otherwise in an L1 of its own, so that a tier whose L1 hangs fails
# alone and the others still run. KVM_TIER_LANES (default 2, one per core
# here) tiers run at a time; the longest go first, each to the lane with the
# least work, by the durations in tests/timings.md.
# usage: tests/integration/kvm-tiers.sh BUILD PAYLOAD [TIER | NAME=COMMAND]...
# (NAME=COMMAND: a tier of that name running COMMAND, its words split at
# blanks; runner.sh uses it)
# Output lines are prefixed with their tier's name; each tier's whole log
# and its counts are in BUILD/tiers/ (tests/tier.sh). The exit status is 0
# when every tier passed.
set -u
B=$1 PAYLOAD=$2; shift 2
cd "$(dirname "$0")/../.."
T=$B/tiers
lanes=${KVM_TIER_LANES:-2}
# A tier's L1 lives at most this long (the stall watchdog and each test's
# own bound normally end a stuck one much sooner).
export KVM_HOST_TIMEOUT=${KVM_HOST_TIMEOUT:-2700}

# NAME: the command, and the seconds it is assumed to take before
# tests/timings.md says better. A command is kept as its words quoted for
# the shell (printf %q) and run as those words (run_tier), so a BUILD or
# PAYLOAD path with a space stays one argument; scripts/kvm-host takes one
# shell command, whose paths are quoted inside it (in_l1).
q() { printf '%q' "$1"; }
words() { printf '%q ' "$@"; }
in_l1() { words scripts/kvm-host "$*"; }
declare -A cmd=(
    [payload]=$(in_l1 tests/integration/payload.sh "$(q "$B/handover")" "$(q "$PAYLOAD")" kvm)
    [payload-san]=$(in_l1 tests/integration/payload.sh "$(q "$B/handover-san")" "$(q "$PAYLOAD")" san)
    [tiny]=$(in_l1 tests/integration/kernel.sh "$(q "$B/handover")" tiny)
    [realkvm]=$(in_l1 tests/integration/kernel.sh "$(q "$B/handover")" realkvm)
    [emulating]=$(words tests/integration/emulating.sh "$B" "$PAYLOAD")
    [runner]=$(words tests/integration/runner.sh "$B" "$PAYLOAD")
    [workflow]=$(words tests/integration/workflow.sh)
)
declare -A guess=([payload]=300 [payload-san]=120 [tiny]=600 [realkvm]=400 [emulating]=30 [runner]=110 [workflow]=400
                  [unit]=10 [unit-san]=20 [clang]=30 [sandbox]=1 [layering]=10 [acpi]=5 [image]=15 [image-san]=20 [fuzz]=40
                  [kvm-fake]=1)
tiers=()
for a in "$@"; do
    case $a in
        *=*)   # NAME=COMMAND: COMMAND's words are split at blanks (never globbed)
            read -r -d "" -a w <<< "${a#*=}"
            cmd[${a%%=*}]=$(words "${w[@]}"); tiers+=("${a%%=*}") ;;
        *) tiers+=("$a") ;;
    esac
done
[ ${#tiers[@]} -gt 0 ] || tiers=(payload payload-san tiny realkvm emulating runner workflow)

estimate() {   # the tier's wall time in the last table, else the guess
    local s
    s=$(awk -F'|' -v t="$1" '$2 ~ "^ *" t " *$" { gsub(/ /, "", $3); print $3 }' tests/timings.md 2>/dev/null)
    echo "${s:-${guess[$1]:-300}}"
}

# KVM_TIERS_BESIDE: a command of this machine's own that runs first in a
# lane, before that lane's tiers (make test's fast tiers: `make -k
# test-fast`), so that both cores work from the start instead of one
# running the fast tiers while the other waits. It is not a tier: the
# tiers it runs keep their own rows. It counts for as long as the last
# table's fast tiers took.
beside=${KVM_TIERS_BESIDE:-}
# Not for the tiers' own kvm-tiers.sh runs (runner.sh, the image checks):
# they would run the command again, inside itself.
unset KVM_TIERS_BESIDE
fast_tiers="unit unit-san clang sandbox layering acpi image image-san fuzz kvm-fake"
beside_estimate() {
    local t n=0
    for t in $fast_tiers; do n=$((n + $(estimate "$t"))); done
    echo "$n"
}

# Longest first, each onto the lane with the least work so far; the
# command beside, if any, first in the first lane.
declare -a load lane_tiers
for ((l = 0; l < lanes; l++)); do load[l]=0 lane_tiers[l]=""; done
[ -z "$beside" ] || load[0]=$(beside_estimate)
for t in $(for t in "${tiers[@]}"; do echo "$(estimate "$t") $t"; done | sort -rn | cut -d' ' -f2); do
    [ -n "${cmd[$t]:-}" ] || { echo "kvm-tiers: no tier named $t" >&2; exit 2; }
    best=0
    for ((l = 1; l < lanes; l++)); do [ "${load[l]}" -lt "${load[best]}" ] && best=$l; done
    load[best]=$((load[best] + $(estimate "$t")))
    lane_tiers[best]="${lane_tiers[best]} $t"
done

run_tier() {   # run_tier NAME: the tier's command, its words as cmd[NAME] quotes them
    local -a argv
    eval "argv=(${cmd[$1]})"
    tests/tier.sh "$T" "$1" --prefix -- "${argv[@]}"
}

# The Secure Boot fixtures the tiers sign with (the payload, the tiny
# kernel, the Debian chain), made here first, where openssl runs at full
# speed: the tiers' own runs of the same scripts then copy them from the
# cache (tests/fixture-cache.sh) instead of spending a minute or more of
# an L1 each. A fixture that fails here fails again in its tier, which
# says so.
running() { [[ " ${tiers[*]} " == *" $1 "* ]]; }
warm_fixtures() {
    local w=$T/fixtures k rc=0
    if running payload; then tests/secure-boot-fixtures.sh "$w/payload" "$PAYLOAD" || rc=1; fi
    if running tiny; then
        k=$(scripts/build-tiny-kernel.sh) && tests/secure-boot-fixtures.sh "$w/tiny" "$k" || rc=1
    fi
    if running realkvm; then
        k=$(scripts/fetch-debian-kernels.sh | grep debian-6.1/) && tests/sb-chain-fixtures.sh "$w/chain" "$k" || rc=1
    fi
    rm -rf "$w"
    return $rc
}
# Made while the command beside starts; every tier waits for them.
mkdir -p "$T"
rm -f "$T/fixtures.done"
{
    warm_fixtures > "$T/fixtures.log" 2>&1 ||
        echo "# kvm tiers: a Secure Boot fixture could not be made here (its tier says why; $T/fixtures.log)"
    touch "$T/fixtures.done"
} &
fixtures_made() { while [ ! -e "$T/fixtures.done" ]; do sleep 1; done; }

echo "# kvm tiers: KVM for the boots: $(scripts/kvm-host --kind); $lanes lanes:$(for ((l = 0; l < lanes; l++)); do
    printf ' [%s%s ]' "$([ "$l" = 0 ] && [ -n "$beside" ] && echo " (beside: $beside)")" "${lane_tiers[l]}"; done)"
pids=()
for ((l = 0; l < lanes; l++)); do
    (
        rc=0
        if [ "$l" = 0 ] && [ -n "$beside" ]; then
            bash -c "$beside" 2>&1 | sed -u 's/^/[beside] /'
            [ "${PIPESTATUS[0]}" = 0 ] || { rc=1; echo "# beside: $beside failed"; }
        fi
        fixtures_made
        for t in ${lane_tiers[l]}; do
            run_tier "$t"; trc=$?
            # 125: the tier's L1 failed (a stall or no exit status; the
            # reason is in its output), not a test. QEMU's TCG has lost
            # an L1's wakeups before: the tier runs once more in a new L1,
            # and the table says so (retried=1; tests/timings.sh).
            if [ "$trc" = 125 ] && [ "${cmd[$t]#scripts/kvm-host }" != "${cmd[$t]}" ]; then
                echo "# tier $t: its L1 failed (status 125, the reason above): the tier runs again in a new L1, once"
                mv "$T/$t.log" "$T/$t.first-l1.log"
                run_tier "$t"; trc=$?
                sed -i 's/$/ retried=1/' "$T/$t.tier"
            fi
            [ "$trc" = 0 ] || rc=1
            echo "# tier $t: $(cat "$T/$t.tier")"
        done
        exit $rc
    ) &
    pids+=($!)
done
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=1; done
exit $rc
