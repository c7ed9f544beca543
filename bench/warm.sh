#!/bin/bash
# Warm boots against cold ones (--snapshot, docs/snapshots.md): `--exec true`
# on the tiny kernel and on Debian's stock 6.12 (scripts/fetch-debian-kernels.sh;
# left out, said, when it cannot be fetched) with the busybox initramfs,
# BENCH_RUNS (default 5) runs each of: no --snapshot; --snapshot into an empty directory (boot, save,
# run); --snapshot restoring the saved VM. Prints each run's wall time, the
# medians and the cold/warm ratio. Needs a KVM: make bench-warm runs it in
# scripts/kvm-host.
# usage: bench/warm.sh [HANDOVER]
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
HO=${1:-$TOP/build/handover}
RUNS=${BENCH_RUNS:-5}
TINY=$("$TOP/scripts/build-tiny-kernel.sh") || { echo "bench/warm.sh: no tiny kernel"; exit 1; }
D612=$("$TOP/scripts/fetch-debian-kernels.sh" 2>/dev/null | grep debian-6.12/) ||
    echo "bench/warm.sh: no Debian 6.12 kernel (scripts/fetch-debian-kernels.sh failed): the tiny kernel only"
INITRAMFS=$("$TOP/scripts/build-initramfs.sh") || { echo "bench/warm.sh: no initramfs"; exit 1; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# One run's wall time in seconds; a run that fails ends the bench.
timed() {
    local t0 t1 rc
    t0=$(date +%s.%N)
    "$HO" --quiet --timeout 900 --mem 256M --initrd "$INITRAMFS" --exec true "$@" "$K" >"$WORK/run.log" 2>&1
    rc=$?
    t1=$(date +%s.%N)
    if [ $rc != 0 ]; then echo "bench/warm.sh: run failed with status $rc:"; tail -n 20 "$WORK/run.log"; exit 1; fi
    echo "$t0 $t1" | awk '{ printf "%.3f\n", $2 - $1 }'
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# One kernel's three cases: bench KERNEL NAME
bench() {
    K=$1
    rm -f "$WORK/plain" "$WORK/cold" "$WORK/warm"
    echo "== $2"
    for i in $(seq "$RUNS"); do
        timed >> "$WORK/plain"
        rm -rf "$WORK/snap"
        timed --snapshot "$WORK/snap" >> "$WORK/cold"
    done
    du -k --apparent-size "$WORK/snap/ram" | awk '{ printf "snapshot RAM file: %d KiB apparent, ", $1 }'
    du -k "$WORK/snap/ram" | awk '{ printf "%d KiB on disk (sparse)\n", $1 }'
    for i in $(seq "$RUNS"); do timed --snapshot "$WORK/snap" >> "$WORK/warm"; done
    for c in plain cold warm; do printf '%-6s %s s, median %s s\n' "$c" "$(paste -sd' ' "$WORK/$c")" "$(median < "$WORK/$c")"; done
    awk -v c="$(median < "$WORK/cold")" -v p="$(median < "$WORK/plain")" -v w="$(median < "$WORK/warm")" \
        'BEGIN { printf "cold (with the save) / warm: %.1fx; no snapshot / warm: %.1fx\n", c / w, p / w }'
}

bench "$TINY" tiny
# Without the 6.12 kernel (said above) the tiny kernel's figures stand alone.
if [ -n "$D612" ]; then bench "$D612" "Debian 6.12"; fi
