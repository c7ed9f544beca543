#!/usr/bin/env bash
# Real-kernel tests. usage: tests/integration/kernel.sh HANDOVER tiny|debian
#   tiny:   the tiny 6.1 kernel (and its KUnit variant), built once from
#           Debian's linux-source-6.1 into ~/.cache/handover (make test);
#   debian: stock Debian 6.1 and 6.12 kernels from the archive (make test-long).
set -u
HO=$1 WHICH=$2
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/lib.sh"
echo "# $WHICH kernel tests with $HO"

if ! kvm_usable; then
    skip "$WHICH-kernels" "/dev/kvm is missing or not accessible"
    summary; exit
fi

# stop_at_ebs NAME KERNEL ENTRY TIMEOUT: ExitBootServices succeeds, and the
# boot_params e820 agrees with the firmware's map.
stop_at_ebs() {
    local loader=0xff
    [ "$3" = pe ] && loader=0x21
    expect "$1" 0 'ExitBootServices succeeded' 'e820-check: ok' 'signature EL64' "type_of_loader +$loader" \
        -- "$HO" --timeout "$4" --entry "$3" --stop-at ebs "$2"
}

# e820_reaches_kernel NAME STOPLOG BOOTLOG: every e820 range of the
# stop-at summary is in the kernel's own "BIOS-e820" listing.
e820_reaches_kernel() {
    local n=0 bad=""
    while read -r _ start end type; do
        case $type in RAM) t=usable ;; reserved) t=reserved ;; ACPI) t="ACPI data" ;; *) t=$type ;; esac
        grep -q "BIOS-e820: \[mem $start-$end\] $t" "$3" || bad="$bad $start-$end"
        n=$((n + 1))
    done < <(grep -E '^    e820 ' "$2")
    if [ "$n" -eq 0 ]; then fail "$1" "no e820 entries in $2"
    elif [ -n "$bad" ]; then fail "$1" "kernel's e820 lacks$bad" "$3"
    else pass "$1"; fi
}

if [ "$WHICH" = tiny ]; then
    if ! K=$("$TOP/scripts/build-tiny-kernel.sh" 2>"$OUT/build.log"); then
        skip tiny-kernel "could not build the tiny kernel: $(tail -n 1 "$OUT/build.log")"
        summary; exit
    fi
    stop_at_ebs tiny-stop-at-ebs-handover "$K" handover 600
    stop_at_ebs tiny-stop-at-ebs-pe "$K" pe 600
    # Past ExitBootServices into the kernel proper: the banner, the e820 the
    # kernel received, EFI runtime services in use; no root fs, so it ends
    # in the expected panic.
    expect tiny-boot 6 'Linux version 6\.1\.' 'efi: EFI v2\.100 by handover' 'BIOS-e820: \[mem 0x0000000000000000-0x000000000009ffff\] usable' \
        'Kernel panic - not syncing' '!efi: .*(error|failed)' \
        -- "$HO" --timeout 900 --cmdline "console=ttyS0 earlyprintk=serial" "$K"
    e820_reaches_kernel tiny-e820-reaches-kernel "$OUT/tiny-stop-at-ebs-handover.log" "$OUT/tiny-boot.log"
else
    if ! KS=$("$TOP/scripts/fetch-debian-kernels.sh" 2>"$OUT/fetch.log"); then
        skip debian-kernels "could not fetch the Debian kernels: $(tail -n 1 "$OUT/fetch.log")"
        summary; exit
    fi
    for K in $KS; do
        v=$(basename "$(dirname "$K")")
        stop_at_ebs "$v-stop-at-ebs-handover" "$K" handover 3600
        stop_at_ebs "$v-stop-at-ebs-pe" "$K" pe 3600
    done
    K61=$(echo "$KS" | grep debian-6.1/)
    expect debian-6.1-boot-banner 124 'Linux version 6\.1\.' 'BIOS-e820: \[mem 0x0000000000000000-0x000000000009ffff\] usable' \
        -- "$HO" --timeout 1500 "$K61"
fi
summary
