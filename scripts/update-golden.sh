#!/usr/bin/env bash
# Regenerate tests/golden/: the firmware-call trace of the tiny kernel up to
# ExitBootServices, through both entries, with a fixed EFI_RNG seed; and
# the same kernel behind GRUB (examples/make-grub.sh) and in systemd-stub's
# UKI (examples/make-uki.sh): the loader's calls, then the kernel stub's.
#
# Regenerate only when the change in the trace is intended: a new firmware
# service or protocol, a change to the memory layout or allocator, or a new
# tiny-kernel config. Review the diff (git diff tests/golden) before
# committing it: every changed line is a change in what the stub saw.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
ho=${HANDOVER:-$top/build/handover}
# usage: scripts/update-golden.sh [debian]
#   no argument: the tiny kernel (tests/golden/tiny-*.trace, grub-tiny.trace,
#   uki-tiny.trace, tiny-source (the linux-source-6.1 version built from),
#   and the fault-sweep matrices of GRUB and of the UKI,
#   grub-tiny.sweep.json and uki-tiny.sweep.json; the i386 kernel's
#   tiny-i386.trace and the mixed-mode kernel's mixed-tiny.sweep.json, both
#   with --firmware-bits 32);
#   debian: the stock kernels of scripts/fetch-debian-kernels.sh
#   (tests/golden/debian-6.1-*.trace, debian-6.12-*.trace); each boot takes
#   as long as the stub's decompressor: hours on an emulated KVM.
if [ "${1:-}" = debian ]; then
    kernels=$("$top/scripts/fetch-debian-kernels.sh")
    timeout=${LONG_TIMEOUT:-7200}
else
    kernels=$("$top/scripts/build-tiny-kernel.sh")
    timeout=900
    # The source they were built from (tests/integration/kernel.sh names it
    # when a tiny golden differs on a machine that builds from another).
    dpkg-query -W -f='${Version}\n' linux-source-6.1 > "$top/tests/golden/tiny-source"
fi
. "$top/tests/integration/seeded.sh"
mapfile -t images <<< "$kernels"   # one a line: a path may hold a space
for k in "${images[@]}"; do
    name=tiny
    [ "${1:-}" = debian ] && name=$(basename "$(dirname "$k")")
    for e in handover pe; do
        out="$top/tests/golden/$name-$e.trace"
        "$ho" --quiet --timeout "$timeout" "${SEEDED[@]}" --entry "$e" --stop-at ebs \
            --trace-efi="$out.new" "$k" >/dev/null
        mv "$out.new" "$out"
        echo "tests/golden/$name-$e.trace: $(wc -l < "$out") calls"
    done
done
if [ -z "${1:-}" ]; then
    grub=$("$top/examples/make-grub.sh" --cmdline "$GOLDEN_CMDLINE" "$kernels")
    out="$top/tests/golden/grub-tiny.trace"
    "$ho" --quiet --timeout "$timeout" "${APP_SEEDED[@]}" --stop-at ebs --trace-efi="$out.new" "$grub" >/dev/null
    mv "$out.new" "$out"
    echo "tests/golden/grub-tiny.trace: $(wc -l < "$out") calls"
    work=$(mktemp -d)
    out="$top/tests/golden/grub-tiny.sweep.json"
    "$ho" --quiet "${LOADER_SWEEP[@]}" --fault-sweep="$work/grub-sweep.json" "$grub" >/dev/null
    golden_matrix "$work/grub-sweep.json" > "$out"
    echo "tests/golden/grub-tiny.sweep.json: $(grep -c '"inject"' "$out") cells"
    uki=$(golden_uki "$kernels" "$work")
    out="$top/tests/golden/uki-tiny.trace"
    "$ho" --quiet --timeout "$timeout" "${APP_SEEDED[@]}" --stop-at ebs --trace-efi="$out.new" "$uki" >/dev/null
    mv "$out.new" "$out"
    echo "tests/golden/uki-tiny.trace: $(wc -l < "$out") calls"
    out="$top/tests/golden/uki-tiny.sweep.json"
    "$ho" --quiet "${LOADER_SWEEP[@]}" --fault-sweep="$work/sweep.json" "$uki" >/dev/null
    golden_matrix "$work/sweep.json" > "$out"
    rm -rf "$work"
    echo "tests/golden/uki-tiny.sweep.json: $(grep -c '"inject"' "$out") cells"
    # The i386 kernel with an IA-32 firmware, and the mixed-mode kernel's
    # fault sweep with one.
    out="$top/tests/golden/tiny-i386.trace"
    "$ho" --quiet --timeout "$timeout" "${SEEDED[@]}" --firmware-bits 32 --stop-at ebs --trace-efi="$out.new" \
        "$("$top/scripts/build-tiny-kernel.sh" i386)" >/dev/null
    mv "$out.new" "$out"
    echo "tests/golden/tiny-i386.trace: $(wc -l < "$out") calls"
    work=$(mktemp -d)
    out="$top/tests/golden/mixed-tiny.sweep.json"
    "$ho" --quiet "${MIXED_SWEEP[@]}" --fault-sweep="$work/sweep.json" "$("$top/scripts/build-tiny-kernel.sh" mixed)" \
        >/dev/null
    golden_matrix "$work/sweep.json" > "$out"
    rm -rf "$work"
    echo "tests/golden/mixed-tiny.sweep.json: $(grep -c '"inject"' "$out") cells"
fi
