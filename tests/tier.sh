#!/usr/bin/env bash
# Run one tier of `make test` and keep what the timing table needs.
# usage: tests/tier.sh DIR NAME [--prefix] -- COMMAND...
# COMMAND's output goes to stdout (each line prefixed "[NAME] " with
# --prefix, for tiers that run side by side) and to DIR/NAME.log; its wall
# time, its counts (a Check summary line or an integration "N passed,
# N failed (K skipped)" line) and its exit status go to DIR/NAME.tier, one
# line of key=value. The exit status is COMMAND's.
set -u
dir=$1 name=$2; shift 2
prefix=
[ "${1:-}" = --prefix ] && { prefix="[$name] "; shift; }
[ "${1:-}" = -- ] && shift
mkdir -p "$dir"
log=$dir/$name.log
t0=$SECONDS
"$@" 2>&1 | tee "$log" | sed -u "s/^/${prefix//\//\\/}/"
rc=${PIPESTATUS[0]}
wall=$((SECONDS - t0))
# Counts: every summary line of the tier, added up.
read -r passed failed skipped < <(awk '
    /^[0-9]+%: Checks: [0-9]+, Failures: [0-9]+, Errors: [0-9]+/ {
        gsub(/,/, ""); n = $3; f = $5 + $7; p += n - f; fl += f }
    /^[0-9]+ passed, [0-9]+ failed/ { p += $1; fl += $3; if (match($0, /\([0-9]+ skipped\)/)) s += substr($0, RSTART + 1) + 0 }
    END { print p + 0, fl + 0, s + 0 }' "$log")
echo "tier=$name wall=$wall passed=$passed failed=$failed skipped=$skipped status=$rc" > "$dir/$name.tier"
exit "$rc"
