#!/usr/bin/env bash
# Show how two kernels' EFI stubs differ in what they ask of the firmware:
# boot each to ExitBootServices with the same RNG seed, then diff the
# firmware-call traces (call, arguments, status), one line per call.
#
# usage: examples/stub-bisect.sh OLD_BZIMAGE NEW_BZIMAGE [handover|pe]
# Useful in a `git bisect run` of drivers/firmware/efi/libstub: exit 0 when
# the traces are the same, 1 when they differ, 125 (git bisect's "skip")
# when a kernel did not reach ExitBootServices, so an unbootable commit is
# skipped instead of counted as a difference; 2 on a usage error, as every
# script here.
#
# The boots are seeded as the golden traces are (tests/integration/seeded.sh):
# a fixed RNG seed, nokaslr (the stub's KASLR seed mixes RDRAND/RDTSC) and
# noxsave (added by itself on some hosts), so that equal stubs give equal
# traces byte for byte.
set -euo pipefail
[ $# = 2 ] || [ $# = 3 ] || { echo "usage: $0 OLD_BZIMAGE NEW_BZIMAGE [handover|pe]" >&2; exit 2; }
old=$1 new=$2
entry=${3:-handover}
handover=${HANDOVER:-handover}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# Reached: the stop (exit 0), or a run that ended otherwise after a
# successful ExitBootServices (exit 10, with that call in the trace).
for k in old new; do
    img=$old; [ $k = new ] && img=$new
    rc=0
    "$handover" --quiet --timeout 3600 --seed 1 --cmdline "console=ttyS0 earlyprintk=serial nokaslr noxsave" \
        --entry "$entry" --stop-at ebs --trace-efi="$dir/$k.jsonl" "$img" > "$dir/$k.out" 2>&1 || rc=$?
    if [ $rc != 0 ] && { [ $rc != 10 ] ||
         ! grep -q '"call":"ExitBootServices".*"status":"EFI_SUCCESS"' "$dir/$k.jsonl"; }; then
        echo "$k: $img did not reach ExitBootServices; skipping (exit 125):" >&2
        tail -n 5 "$dir/$k.out" >&2
        exit 125
    fi
    # One readable line per call, without the sequence numbers.
    python3 - "$dir/$k.jsonl" > "$dir/$k.txt" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    c = json.loads(line)
    inj = f' [injected {c["injected"]}]' if "injected" in c else ""
    print(f'{c["phase"]:7} {c["call"]}({", ".join(c["args"])}) = {c["status"]}{inj}')
PY
    echo "$k: $(wc -l < "$dir/$k.txt") firmware calls, $(grep -c . "$dir/$k.out") output lines"
done
if diff -u --label "$old" --label "$new" "$dir/old.txt" "$dir/new.txt"; then
    echo "the two stubs made the same firmware calls"
else
    exit 1
fi
