#!/usr/bin/env bash
# The timing table at the end of `make test`: one row per tier (from the
# DIR/NAME.tier lines tests/tier.sh wrote), its wall time and test counts,
# and the whole run's wall time; then, for each tier that failed, why.
# Printed, and the table written to OUT.md (the repository keeps the last
# run's table in tests/timings.md, so that a slowdown shows in a diff).
# usage: tests/timings.sh DIR TOTAL-SECONDS [OUT.md]
set -u
dir=$1 total=$2 out=${3:-}
table() {
    local seen=
    echo "| tier | wall s | passed | failed | skipped | status |"
    echo "|---|---:|---:|---:|---:|---|"
    local f
    # In the order make test runs them, then any other.
    for f in $(for t in unit unit-san clang sandbox layering acpi image image-san fuzz payload payload-san tiny realkvm emulating; do
                   [ -e "$dir/$t.tier" ] && echo "$dir/$t.tier"; done
               ls "$dir"/*.tier 2>/dev/null) ; do
        case " $seen " in *" $f "*) continue ;; esac
        seen="$seen $f"
        # shellcheck disable=SC2034
        local tier wall passed failed skipped status retried=
        eval "$(tr ' ' '\n' < "$f" | grep -E '^(tier|wall|passed|failed|skipped|status|retried)=[A-Za-z0-9_.-]*$')"
        # A tier without a summary line (the fuzzers) has no counts.
        [ "$passed$failed$skipped" = 000 ] && passed=- failed=- skipped=-
        echo "| $tier | $wall | $passed | $failed | $skipped | $([ "$status" = 0 ] && echo ok || echo "FAILED ($status)")${retried:+, in a second L1} |"
    done
    echo
    echo "Total: ${total} s wall ($((total / 60)) min $((total % 60)) s) on $(nproc) cores;" \
         "KVM for the boots: $("$(dirname "$0")/../scripts/kvm-host" --kind)$([ -c /dev/kvm ] && echo ", this machine has /dev/kvm" || echo ", no /dev/kvm here")."
}
# why: for each tier that failed, its failed tests and what the KVM host
# said (a stall, a timeout), so that the end of the output, which is what a
# CI page shows first, names the cause.
why() {
    local f name
    for f in "$dir"/*.first-l1.log; do
        [ -e "$f" ] || continue
        echo "Tier $(basename "$f" .first-l1.log)'s first L1 failed (from $f):"
        grep -E '^kvm-host: |STALL|^ *kvm-host: running ' "$f" | head -n 10 | sed 's/^/    /'
    done
    for f in "$dir"/*.tier; do
        grep -q ' status=0\( \|$\)' "$f" && continue
        name=$(basename "$f" .tier)
        echo "Why tier $name failed (from $dir/$name.log):"
        grep -E '^(not ok - |kvm-host: |Failures: |[0-9]+%: Checks: )|STALL|timed out|^ *kvm-host: running ' "$dir/$name.log" 2>/dev/null \
            | grep -v '^[0-9]*%: Checks: .*Failures: 0, Errors: 0' | head -n 20 | sed 's/^/    /'
        tail -n 5 "$dir/$name.log" 2>/dev/null | sed 's/^/    last: /'
    done
}
t=$(table)
echo "$t"
why
if [ -n "$out" ]; then
    { echo "# The last \`make ${TIMINGS_TARGET:-test}\`'s timing table (tests/timings.sh writes it)"
      echo
      echo "$t"; } > "$out"
fi
