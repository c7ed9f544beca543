#!/usr/bin/env bash
# Regenerate tests/golden/: the firmware-call trace of the tiny kernel up to
# ExitBootServices, through both entries, with a fixed EFI_RNG seed.
#
# Regenerate only when the change in the trace is intended: a new firmware
# service or protocol, a change to the memory layout or allocator, or a new
# tiny-kernel config. Review the diff (git diff tests/golden) before
# committing it: every changed line is a change in what the stub saw.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
ho=${HANDOVER:-$top/build/handover}
k=$("$top/scripts/build-tiny-kernel.sh")
# nokaslr: the stub mixes RDRAND/RDTSC into its KASLR seed (x86-stub.c
# efi_get_seed), which no --seed can fix; without it the kernel's slot,
# and the trace, would change from run to run.
GOLDEN_CMDLINE="console=ttyS0 earlyprintk=serial nokaslr"
for e in handover pe; do
    "$ho" --quiet --timeout 900 --seed 1 --entry "$e" --stop-at ebs --cmdline "$GOLDEN_CMDLINE" \
        --trace-efi="$top/tests/golden/tiny-$e.trace" "$k" >/dev/null
    echo "tests/golden/tiny-$e.trace: $(wc -l < "$top/tests/golden/tiny-$e.trace") calls"
done
