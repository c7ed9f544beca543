#!/usr/bin/env bash
# bench/sweep.sh: --fault-sweep against one boot per fault, measured.
# Runs the sweep once, then every cell it ran as a single boot
# (`--stop-at ebs --inject SPEC`), one at a time, and compares the wall
# times; also checks that each single boot's outcome is the cell's.
#
# usage: bench/sweep.sh [HANDOVER [KERNEL [HANDOVER-ARGS...]]]
#   HANDOVER  default build/handover
#   KERNEL    default: the tiny kernel (scripts/build-tiny-kernel.sh)
#   HANDOVER-ARGS  more options for every run (after --seed 1 and a nokaslr
#             command line; a later --cmdline replaces it)
# environment: SWEEP_OUT=FILE  results (default bench/sweep-results.json)
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
HO=$(realpath "${1:-$TOP/build/handover}")
K=${2:-$("$TOP/scripts/build-tiny-kernel.sh")}
shift 2 2>/dev/null || shift $#
# Randomness fixed (EFI_RNG seed, no KASLR) so that a single boot takes the
# same path as the sweep's cell: otherwise an allocation lands elsewhere.
ARGS=(--seed 1 --cmdline "console=ttyS0 earlyprintk=serial nokaslr" "$@")
OUT=${SWEEP_OUT:-$TOP/bench/sweep-results.json}
WORK=$(mktemp -d /tmp/handover-sweep.XXXXXX)

[ -c /dev/kvm ] && [ -w /dev/kvm ] || { echo "sweep bench: /dev/kvm missing or not writable: nothing to measure" >&2; exit 0; }

t0=$(date +%s.%N)
"$HO" --fault-sweep="$WORK/matrix.json" "${ARGS[@]}" "$K" >"$WORK/sweep.out" 2>"$WORK/sweep.err" || {
    echo "sweep bench: the sweep failed, see $WORK/sweep.err" >&2; exit 1; }
t1=$(date +%s.%N)

: >"$WORK/singles.jsonl"
python3 - "$WORK/matrix.json" <<'EOF' | while read -r spec; do
import json, sys
for c in json.load(open(sys.argv[1]))["cells"]:
    if c["outcome"] != "skipped":
        print(c["inject"])
EOF
    s0=$(date +%s.%N)
    "$HO" --quiet --stop-at ebs --inject "$spec" "${ARGS[@]}" "$K" </dev/null >/dev/null 2>"$WORK/single.err"
    rc=$?
    s1=$(date +%s.%N)
    outcome=$(sed -n 's/^handover: fault outcome: [^ ]*: //p' "$WORK/single.err" | head -n 1)
    printf '{"inject":"%s","status":%d,"outcome":"%s","seconds":%s}\n' "$spec" "$rc" "$outcome" \
        "$(python3 -c "print(round($s1 - $s0, 2))")" >>"$WORK/singles.jsonl"
done

python3 - "$WORK/matrix.json" "$WORK/singles.jsonl" "$(python3 -c "print($t1 - $t0)")" "$OUT" <<'EOF'
import json, sys
matrix = json.load(open(sys.argv[1]))
singles = [json.loads(l) for l in open(sys.argv[2])]
sweep_wall = float(sys.argv[3])
cells = {c["inject"]: c for c in matrix["cells"]}
agree = sum(1 for s in singles if cells[s["inject"]]["outcome"] == s["outcome"])
single_wall = sum(s["seconds"] for s in singles)
res = {
    "kernel": matrix["kernel"], "entry": matrix["entry"], "cells": len(singles),
    "sweep_seconds": round(sweep_wall, 1), "single_boots_seconds": round(single_wall, 1),
    "speedup_measured": round(single_wall / sweep_wall, 2),
    "speedup_estimated_by_sweep": round(matrix["seconds"]["speedup"], 2),
    "outcomes_agree": agree,
    "disagree": [s for s in singles if cells[s["inject"]]["outcome"] != s["outcome"]],
}
json.dump(res, open(sys.argv[4], "w"), indent=1)
print(f"fault sweep: {len(singles)} cells in {sweep_wall:.1f} s; one boot per fault {single_wall:.1f} s: "
      f"{single_wall / sweep_wall:.1f}x faster measured ({matrix['seconds']['speedup']:.1f}x estimated by the "
      f"sweep); outcomes agree in {agree}/{len(singles)}")
EOF
