#!/usr/bin/env bash
# bench/mixed.sh: the firmware phase of EFI mixed mode against the 64-bit
# one, on the same kernel: the tiny kernel built with CONFIG_EFI_MIXED
# (scripts/build-tiny-kernel.sh mixed), entered at its 64-bit handover entry
# and, with --firmware-bits 32, at its 32-bit one. BENCH_RUNS (default 5)
# runs of `--stop-at ebs --report` each, alternating; from each report the
# firmware calls, the firmware phase's VM exits (all, firmware calls, the
# guest's own port I/O) and its time (entry to ExitBootServices). Prints
# each run, the medians and the 32/64 ratios, and writes them as JSON to
# MIXED_OUT (default bench/mixed-results.json; with KVM_HOST_OUT set, as
# scripts/kvm-host sets it, into that folder). Needs a KVM: make bench-mixed
# runs it in scripts/kvm-host.
# usage: bench/mixed.sh [HANDOVER [KERNEL]]
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
HO=${1:-$TOP/build/handover}
K=${2:-$("$TOP/scripts/build-tiny-kernel.sh" mixed)} || { echo "bench/mixed.sh: no mixed-mode kernel"; exit 1; }
RUNS=${BENCH_RUNS:-5}
OUT=${MIXED_OUT:-${KVM_HOST_OUT:+$KVM_HOST_OUT/mixed-results.json}}
OUT=${OUT:-$TOP/bench/mixed-results.json}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# The golden traces' command line (tests/integration/seeded.sh): the same
# path through the stub in every run.
CMDLINE="console=ttyS0 earlyprintk=serial nokaslr noxsave"

for i in $(seq "$RUNS"); do
    for bits in 64 32; do
        "$HO" --quiet --timeout 900 --seed 1 --cmdline "$CMDLINE" --firmware-bits "$bits" --stop-at ebs \
            --report "$WORK/$bits-$i.json" "$K" >"$WORK/run.log" 2>&1 || {
            echo "bench/mixed.sh: the --firmware-bits $bits run failed with status $?:"; tail -n 20 "$WORK/run.log"
            exit 1; }
    done
done

python3 - "$WORK" "$RUNS" "$K" "$OUT" <<'EOF'
import json, statistics, sys
work, runs, kernel, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
FIGURES = ("firmware_calls", "exits", "exits_firmware_calls", "exits_port_io", "firmware_phase_s")

def figures(path):
    r = json.load(open(path))
    fw = r["vm_exits_by_phase"]["firmware"]
    ph = r["phase_seconds"]
    return {"firmware_calls": r["firmware_calls"]["total"], "exits": fw["total"],
            "exits_firmware_calls": fw["firmware_calls"], "exits_port_io": fw["port_io"],
            "firmware_phase_s": round(ph["exit_boot_services"] - ph["entry"], 3)}

res = {"kernel": kernel, "runs": runs, "cases": {}}
for bits in ("64", "32"):
    each = [figures(f"{work}/{bits}-{i}.json") for i in range(1, runs + 1)]
    res["cases"][bits] = {"runs": each, "median": {k: statistics.median(e[k] for e in each) for k in FIGURES}}
m64, m32 = res["cases"]["64"]["median"], res["cases"]["32"]["median"]
res["ratio_32_over_64"] = {k: round(m32[k] / m64[k], 3) if m64[k] else None for k in FIGURES}
json.dump(res, open(out, "w"), indent=1)
print(f"{'firmware phase, medians of ' + str(runs):32} {'64-bit':>10} {'mixed (32)':>10} {'32/64':>7}")
for k in FIGURES:
    r = res["ratio_32_over_64"][k]
    print(f"{k:32} {m64[k]:>10} {m32[k]:>10} {r if r is not None else '-':>7}")
print(f"written to {out}")
EOF
