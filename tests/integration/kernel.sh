#!/usr/bin/env bash
# Real-kernel tests. usage: tests/integration/kernel.sh HANDOVER tiny|debian|realkvm
#   tiny:    the tiny 6.1 kernel (and its KUnit variant), built once from
#            Debian's linux-source-6.1 into ~/.cache/handover (make test);
#   debian:  stock Debian 6.1 and 6.12 kernels from the archive to
#            ExitBootServices (make test-long: hours on an emulating KVM);
#   realkvm: on a hardware KVM (scripts/kvm-host gives one): the stock
#            kernels to ExitBootServices and a 6.12 fault sweep, full boots
#            to user space with --exec, KUnit, SMP (realkvm.sh; make test);
#   emulating: the tiny kernel's boots that need the emulation fallbacks and
#            the automatic noxsave on an emulating KVM (emulating.sh).
# HANDOVER_TEST_FULL=1 (make test-full) runs the UKI's fault sweep whole;
# make test runs a third of its cells (--shard), each against the golden
# matrix.
set -u
HO=$1 WHICH=$2
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/lib.sh"
echo "# $WHICH kernel tests with $HO"

if ! kvm_usable; then
    skip "$WHICH-kernels" "/dev/kvm is missing or not accessible"
    summary; exit
fi

# Randomness fixed (EFI_RNG seed, no KASLR) and the command line the same
# on every host: golden traces repeat byte for byte, and a fault-sweep cell
# takes the path of its single run.
. "$TOP/tests/integration/seeded.sh"

# stop_at_ebs NAME KERNEL ENTRY TIMEOUT [OPTION...]: ExitBootServices
# succeeds, the boot_params e820 agrees with the firmware's map, and the
# kernel's text ended read-only and executable (the memattr check).
stop_at_ebs() {
    local loader=0xff
    [ "$3" = pe ] && loader=0x21
    expect "$1" 0 'ExitBootServices succeeded' 'e820-check: ok' 'signature EL64' "type_of_loader +$loader" \
        'memattr-check: ok' -- "$HO" --timeout "$4" --entry "$3" --stop-at ebs "${@:5}" "$2"
}

# golden_diff NAME GOLDEN TRACE: the trace is the golden one, byte for byte.
golden_diff() {
    selected "$1" || return 0
    if [ ! -s "$2" ]; then skip "$1" "no $2 recorded (scripts/update-golden.sh [debian])"; return; fi
    if diff -u "$2" "$3" > "$3.diff"; then pass "$1"
    else fail "$1" "trace differs from $2$(golden_source_moved "$2") (if intended: scripts/update-golden.sh [debian])" \
        "$3.diff"; fi
}

# The tiny kernels are built from Debian's linux-source-6.1, whose updates
# lay the kernel out elsewhere: its traces and sweep matrices then differ in
# addresses. scripts/update-golden.sh records the version it built from in
# tests/golden/tiny-source; a failed tiny golden says when this machine's
# differs (GOLDEN: the golden file; the Debian kernels' are pinned).
golden_source_moved() {
    local made have
    case $1 in */debian-*) return ;; esac
    made=$(cat "$TOP/tests/golden/tiny-source" 2>/dev/null)
    have=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null)
    [ -n "$made" ] && [ "$made" != "$have" ] &&
        echo "; the goldens were made from linux-source-6.1 $made, this machine builds from $have"
}

# e820_reaches_kernel NAME STOPLOG BOOTLOG: every e820 range of the
# stop-at summary is in the kernel's own "BIOS-e820" listing, each type by
# the name the kernel prints (arch/x86/kernel/e820.c, e820_print_type).
e820_reaches_kernel() {
    selected "$1" || return 0
    local n=0 bad=""
    while read -r _ range type; do
        case $type in RAM) t=usable ;; reserved) t=reserved ;; ACPI) t="ACPI data" ;; NVS) t="ACPI NVS" ;; *) t=$type ;; esac
        grep -q "BIOS-e820: \[mem $range\] $t" "$3" || bad="$bad $range"
        n=$((n + 1))
    done < <(grep -E '^    e820 ' "$2")
    if [ "$n" -eq 0 ]; then fail "$1" "no e820 entries in $2"
    elif [ -n "$bad" ]; then fail "$1" "kernel's e820 lacks$bad" "$3"
    else pass "$1"; fi
}

# stock_to_ebs KERNEL TIMEOUT: a stock kernel through both entries to
# ExitBootServices, seeded, so that each boot is also the golden trace to
# compare (scripts/update-golden.sh debian records them), with its report
# checked. No emulation fallback and no automatic noxsave may be needed: on
# a hardware KVM none is, and elsewhere the log says which was used.
stock_to_ebs() {
    local K=$1 T=$2 v e
    v=$(basename "$(dirname "$K")")
    for e in handover pe; do
        stop_at_ebs "$v-stop-at-ebs-$e" "$K" $e "$T" "${SEEDED[@]}" --report "$OUT/$v-$e.json" \
            --trace-efi="$OUT/$v-$e.trace"
        expect "$v-report-e820-$e" 0 'report ok' -- "$TOP/tests/integration/report-check.py" "$OUT/$v-$e.json"
        golden_diff "$v-golden-$e" "$TOP/tests/golden/$v-$e.trace" "$OUT/$v-$e.trace"
    done
}

# stock_sweep KERNEL TIMEOUT: one --fault-sweep over a stock kernel, every
# cell classified, and cells of each kind against single runs.
stock_sweep() {
    local K=$1 T=$2 v
    v=$(basename "$(dirname "$K")")
    expect "$v-fault-sweep" 0 'fault sweep: .* cells' ' ebs-stale-key +retried ' ' gmm-too-small +failed-cleanly ' \
        -- "$HO" --timeout "$T" "${SEEDED[@]}" --fault-sweep="$OUT/$v-sweep.json" "$K"
    expect "$v-fault-sweep-agrees" 0 'sweep ok' \
        -- "$TOP/tests/integration/sweep-check.py" "$OUT/$v-sweep.json" --singles 2 \
           --kinds gmm-too-small,ebs-stale-key,alloc-pages-fail,alloc-pool-fail,getvar-error,no-rng,memmap-fragmented,memattr-fail \
           -- "$HO" --timeout "$T" "${SEEDED[@]}" "$K"
}

if [ "$WHICH" = emulating ]; then
    TESTS_ONLY=${TESTS_ONLY-"tiny-stop-at-ebs-handover tiny-stop-at-ebs-pe tiny-golden-handover tiny-golden-pe tiny-boot
        tiny-e820-reaches-kernel tiny-runtime-services tiny-exec-status tiny-kunit-pass"}
    WHICH=tiny
fi
if [ "$WHICH" = tiny ]; then
    if ! K=$("$TOP/scripts/build-tiny-kernel.sh" 2>"$OUT/build.log"); then
        skip tiny-kernel "could not build the tiny kernel: $(tail -n 1 "$OUT/build.log")"
        summary; exit
    fi
    stop_at_ebs tiny-stop-at-ebs-handover "$K" handover 600
    stop_at_ebs tiny-stop-at-ebs-pe "$K" pe 600
    # Golden traces: the same kernel and seed give the same firmware calls,
    # byte for byte (scripts/update-golden.sh regenerates them).
    for e in handover pe; do
        selected "tiny-golden-$e" || continue
        announce "tiny-golden-$e"
        "$HO" --quiet --timeout 900 "${SEEDED[@]}" --entry $e --stop-at ebs --trace-efi="$OUT/golden-$e.trace" "$K" \
            >/dev/null 2>&1
        golden_diff "tiny-golden-$e" "$TOP/tests/golden/tiny-$e.trace" "$OUT/golden-$e.trace"
    done

    # grub_from_esp NAME ARCH BOOTFILE KERNEL [OPTION...]: GRUB (make-grub.sh
    # --search) as \EFI\BOOT\BOOTFILE of --esp finds the kernel on the
    # volume, not in its memdisk: its BlockIo over the GPT disk, then FAT.
    grub_from_esp() {
        local name=$1 arch=$2 boot=$3 kernel=$4 E=$OUT/esp-$1 GS
        shift 4
        mkdir -p "$E/EFI/BOOT"
        cp "$kernel" "$E/vmlinuz"
        if GS=$("$TOP/examples/make-grub.sh" --arch "$arch" --search --cmdline "$GOLDEN_CMDLINE" "$kernel" \
                2>"$OUT/$name.log"); then
            cp "$GS" "$E/EFI/BOOT/$boot"
            expect "$name" 0 'Welcome to GRUB!' 'ExitBootServices succeeded' 'stub jumped to the kernel' \
                "cmdline +\"BOOT_IMAGE=/vmlinuz $GOLDEN_CMDLINE\"" 'e820-check: ok' \
                -- "$HO" --timeout 600 "$@" --esp "$E" --stop-at ebs --trace-efi="$OUT/$name.trace" "$E/EFI/BOOT/$boot"
            expect "$name-read" 0 '"call":"BlockIo.ReadBlocks".*"status":"EFI_SUCCESS"' '!"call":"unknown"' \
                -- cat "$OUT/$name.trace"
        else
            skip "$name" "could not build GRUB $arch-efi: $(tail -n 1 "$OUT/$name.log")"
        fi
    }

    # Debian's GRUB in front (examples/make-grub.sh: standalone, linuxefi):
    # handover loads it as an EFI application, GRUB calls the kernel's
    # handover entry, and the stub's own ExitBootServices is the stop point,
    # its e820 checked. The trace is GRUB's calls, then the stub's: golden.
    if ! selected 'tiny-grub*'; then :
    elif G=$("$TOP/examples/make-grub.sh" --cmdline "$GOLDEN_CMDLINE" "$K" 2>"$OUT/grub.log"); then
        expect tiny-grub-stop-at-ebs 0 'EFI application, entry at' 'Welcome to GRUB!' 'ExitBootServices succeeded' \
            'stub jumped to the kernel' 'e820-check: ok' 'type_of_loader +0x21' \
            "cmdline +\"BOOT_IMAGE=/vmlinuz $GOLDEN_CMDLINE\"" \
            -- "$HO" --timeout 600 "${APP_SEEDED[@]}" --stop-at ebs --trace-efi="$OUT/grub-tiny.trace" \
               --report "$OUT/grub-tiny.json" "$G"
        golden_diff tiny-golden-grub "$TOP/tests/golden/grub-tiny.trace" "$OUT/grub-tiny.trace"
        expect tiny-grub-report 0 'report ok' -- "$TOP/tests/integration/report-check.py" "$OUT/grub-tiny.json"
        expect tiny-grub-report-entry 0 '^app ""$' \
            -- python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); print(r["entry"], json.dumps(r["cmdline"]))' \
               "$OUT/grub-tiny.json"
        # Every fault at every call of GRUB's, then the kernel stub's: the
        # matrix equals the golden one cell for cell and no cell crashed or
        # got a bad e820. Whole in make test-full, every third cell in make
        # test (most of a GRUB cell's time is the hung ones' --cell-timeout).
        grub_shard=(--shard 1/3) grub_cells='fault sweep: shard 1/3: 12 of the 36 cells'
        [ -z "${HANDOVER_TEST_FULL:-}" ] || grub_shard=() grub_cells='fault sweep: .* 36 cells'
        expect tiny-grub-fault-sweep 0 "$grub_cells" '!differ from the baseline' 'end: sweep-done, exit status 0' \
            -- "$HO" "${LOADER_SWEEP[@]}" "${grub_shard[@]}" --sweep-baseline "$TOP/tests/golden/grub-tiny.sweep.json" \
               --fault-sweep="$OUT/grub-sweep.json" "$G"
        grub_from_esp tiny-grub-esp x86_64 BOOTX64.EFI "$K"
    else
        skip tiny-grub "could not build GRUB: $(tail -n 1 "$OUT/grub.log")"
    fi

    # A GRUB menu (make-grub.sh --menu) waits 30 s for a key: --keys moves
    # down one entry and boots it, through ConIn.ReadKeyStroke.
    if ! selected tiny-grub-menu-keys; then :
    elif GM=$("$TOP/examples/make-grub.sh" --menu --cmdline "$GOLDEN_CMDLINE" "$K" 2>"$OUT/grub-menu.log"); then
        expect tiny-grub-menu-keys 0 'ExitBootServices succeeded' 'cmdline +".* handover_menu=second"' \
            -- "$HO" --timeout 600 "${APP_SEEDED[@]}" --keys '\D\n' --stop-at ebs --trace-efi="$OUT/grub-menu.trace" "$GM"
        expect tiny-grub-menu-keys-read 0 '"call":"ConIn.ReadKeyStroke".*"status":"EFI_SUCCESS"' \
            -- cat "$OUT/grub-menu.trace"
    else
        skip tiny-grub-menu-keys "could not build GRUB: $(tail -n 1 "$OUT/grub-menu.log")"
    fi

    # systemd-stub's UKI (examples/make-uki.sh): LoadImage of its .linux,
    # its own LoadFile2 for .initrd (InstallMultipleProtocolInterfaces),
    # StartImage of the kernel, whose stub finds that LoadFile2 through
    # LocateDevicePath and calls it (guest code: no LoadFile2.LoadFile in
    # the trace), then the stub's ExitBootServices, its e820 checked.
    if ! selected 'tiny-uki*'; then :
    elif U=$(golden_uki "$K" "$OUT" 2>"$OUT/uki.log"); then
        expect tiny-uki-stop-at-ebs 0 'EFI application, entry at' \
            'Loaded initrd from LINUX_EFI_INITRD_MEDIA_GUID device path' 'ExitBootServices succeeded' \
            'stub jumped to the kernel' 'e820-check: ok' 'type_of_loader +0x21' "cmdline +\"$GOLDEN_CMDLINE\"" \
            'ramdisk_size +0x10000$' \
            -- "$HO" --timeout 600 "${APP_SEEDED[@]}" --stop-at ebs --trace-efi="$OUT/uki-tiny.trace" "$U"
        expect tiny-uki-trace 0 '"call":"LoadImage"' '"call":"StartImage"' \
            '"call":"InstallMultipleProtocolInterfaces".*"protocol2":"EFI_LOAD_FILE2_PROTOCOL"' \
            '"call":"LocateDevicePath".*"status":"EFI_NOT_FOUND"' '"call":"LocateDevicePath".*"status":"EFI_SUCCESS"' \
            '!LoadFile2.LoadFile' -- cat "$OUT/uki-tiny.trace"
        golden_diff tiny-golden-uki "$TOP/tests/golden/uki-tiny.trace" "$OUT/uki-tiny.trace"
        # Every fault at every call of systemd-stub's, then the kernel
        # stub's: the matrix equals the golden one cell for cell
        # (--sweep-baseline), no cell crashed or got a bad e820, and cells
        # of each outcome agree with single runs.
        # Whole, in make test-full; a third of the cells (every third one)
        # in make test, each still held to the golden matrix.
        if [ -n "${HANDOVER_TEST_FULL:-}" ]; then
            uki_cells=(' ebs-stale-key +retried ' ' no-loaded-image@2 +failed-cleanly '
                       ' alloc-pool-fail:3 +hung .*systemd-boot assertion')
            uki_shard=() uki_kinds=gmm-too-small,ebs-stale-key,alloc-pages-fail,alloc-pages-above,alloc-pool-fail,no-loaded-image,getvar-error,no-rng,memattr-fail
        else
            uki_cells=('fault sweep: shard 1/3: 1[89] of the 55 cells') uki_shard=(--shard 1/3) uki_kinds=
        fi
        expect tiny-uki-fault-sweep 0 'fault sweep: .* cells' "${uki_cells[@]}" \
            '!differ from the baseline' 'end: sweep-done, exit status 0' \
            -- "$HO" "${LOADER_SWEEP[@]}" "${uki_shard[@]}" --sweep-baseline "$TOP/tests/golden/uki-tiny.sweep.json" \
               --fault-sweep="$OUT/uki-sweep.json" "$U"
        expect tiny-uki-fault-sweep-agrees 0 'sweep ok' \
            -- "$TOP/tests/integration/sweep-check.py" "$OUT/uki-sweep.json" --singles 4 --kinds "$uki_kinds" \
               -- "$HO" --timeout 45 "${APP_SEEDED[@]}" "$U"
    else
        skip tiny-uki "could not build the UKI: $(tail -n 1 "$OUT/uki.log")"
    fi

    # Past ExitBootServices into the kernel proper: the banner, the e820 the
    # kernel received, EFI runtime services in use, init reached; no root
    # fs, so it ends in the expected panic. The kernel reads the runtime
    # properties table (RTPROP).
    # Two vCPUs from the MADT, the ACPI interpreter on the firmware's DSDT.
    expect tiny-boot 6 'Linux version 6\.1\.' 'efi: EFI v2\.100 by handover' 'BIOS-e820: \[mem 0x0000000000000000-0x000000000009ffff\] usable' \
        'smp: Brought up 1 node, 2 CPUs' 'ACPI: Interpreter enabled' 'Run /(sbin/)?init as init process' \
        'efi: RTPROP=0x[0-9a-f]+ ACPI 2\.0=0x' 'Kernel panic - not syncing' '!efi: .*(error|failed)' '!ACPI Error' \
        -- "$HO" --timeout 900 --cpus 2 --trace-efi="$OUT/tiny-boot.trace" --cmdline "console=ttyS0 earlyprintk=serial" "$K"
    # panic=-1 reboot=t: the panic restarts at once, by a triple fault
    # (kernel/panic.c emergency_restart, arch/x86/kernel/reboot.c BOOT_TRIPLE),
    # before its end marker: still the kernel's panic, not a guest crash.
    expect tiny-panic-reboot-triple 6 'Kernel panic - not syncing' 'end: kernel-panic, exit status 6' \
        '!guest stopped: triple fault' \
        -- "$HO" --timeout 900 --cmdline "console=ttyS0 panic=-1 reboot=t" "$K"
    selected tiny-e820-reaches-kernel &&
        e820_reaches_kernel tiny-e820-reaches-kernel "$OUT/tiny-stop-at-ebs-handover.log" "$OUT/tiny-boot.log"
    # Runtime services after the kernel took over, through its page tables.
    if ! selected tiny-runtime-services; then :
    elif grep -q '"call":"SetVirtualAddressMap".*"status":"EFI_SUCCESS"' "$OUT/tiny-boot.trace" &&
       grep -q '"phase":"runtime","call":"SetVariable"' "$OUT/tiny-boot.trace"; then
        pass tiny-runtime-services
    else
        fail tiny-runtime-services "no successful SetVirtualAddressMap and runtime SetVariable in the trace" "$OUT/tiny-boot.trace"
    fi

    # Secure Boot (docs/secure-boot.md): the kernel sbsign'd with keys made
    # now (tests/secure-boot-fixtures.sh). The stub reads SecureBoot and
    # SetupMode (libstub/secureboot.c efi_get_secureboot) and says so; the
    # kernel tells the same from boot_params.secure_boot (arch/x86/kernel/
    # setup.c). The unsigned and the tampered kernel are refused.
    if ! selected 'tiny-secure-boot*'; then :
    elif ! "$TOP/tests/secure-boot-fixtures.sh" "$OUT/secure-boot" "$K" > "$OUT/secure-boot-fixtures.log" 2>&1; then
        fail tiny-secure-boot-fixtures "tests/secure-boot-fixtures.sh failed" "$OUT/secure-boot-fixtures.log"
    else
        expect tiny-secure-boot 6 'enrolled db, KEK, PK: user-mode' 'UEFI Secure Boot is enabled' \
            'Secure boot enabled' 'Kernel panic - not syncing' \
            -- "$HO" --timeout 900 --secure-boot "$OUT/secure-boot/keys" --cmdline "console=ttyS0 earlyprintk=serial" \
               "$OUT/secure-boot/db-signed.efi"
        expect tiny-secure-boot-unsigned 5 'Secure Boot refused the image \(EFI_SECURITY_VIOLATION\): not signed' \
            'end: not-started, exit status 5, efi_status EFI_SECURITY_VIOLATION' \
            -- "$HO" --timeout 600 --secure-boot "$OUT/secure-boot/keys" --stop-at ebs "$OUT/secure-boot/unsigned.efi"
        expect tiny-secure-boot-tampered 5 'Secure Boot refused the image \(EFI_SECURITY_VIOLATION\): its signature is for another image' \
            -- "$HO" --timeout 600 --secure-boot "$OUT/secure-boot/keys" --stop-at ebs "$OUT/secure-boot/tampered.efi"
    fi

    # What the 6.1 stub does about each injected fault (drivers/firmware/efi/libstub/
    # x86-stub.c exit_boot, mem.c efi_get_memory_map, efi-stub-helper.c):
    # ExitBootServices is retried once after EFI_INVALID_PARAMETER;
    # a failing GetMemoryMap, AllocatePages or AllocatePool is fatal and the
    # stub calls Exit; a failing GetVariable only makes Secure Boot unknown.
    for e in handover pe; do
        expect "tiny-inject-ebs-stale-key-$e" 0 'injected fault ebs-stale-key' 'e820-check: ok' \
            -- "$HO" --timeout 600 --entry $e --stop-at ebs --inject ebs-stale-key --trace-efi="$OUT/ebs-$e.trace" "$K"
        expect "tiny-inject-ebs-retried-once-$e" 0 'retried once' -- "$TOP/tests/integration/ebs-retry.py" "$OUT/ebs-$e.trace"
        expect "tiny-inject-gmm-too-small-$e" 5 'injected fault gmm-too-small' 'EFI stub: ERROR: Failed to decompress kernel' \
            'the image called Exit\(EFI_BUFFER_TOO_SMALL\)' \
            -- "$HO" --timeout 600 --entry $e --stop-at ebs --inject gmm-too-small:1 "$K"
        expect "tiny-inject-alloc-pages-fail-$e" 5 'injected fault alloc-pages-fail' 'the image called Exit\(EFI_OUT_OF_RESOURCES\)' \
            -- "$HO" --timeout 600 --entry $e --stop-at ebs --inject alloc-pages-fail:1 "$K"
        expect "tiny-inject-alloc-pool-fail-$e" 5 'injected fault alloc-pool-fail' 'the image called Exit\(EFI_OUT_OF_RESOURCES\)' \
            -- "$HO" --timeout 600 --entry $e --stop-at ebs --inject alloc-pool-fail:1 "$K"
    done
    # The stub gives up when its kernel's text cannot be made read-only
    # (x86-stub.c efi_adjust_memory_range_protection, since 6.1.81).
    expect tiny-inject-memattr-fail 5 \
        'injected fault memattr-fail: MemoryAttribute.SetMemoryAttributes returns EFI_OUT_OF_RESOURCES' \
        'Failed to set EFI_MEMORY_RO attribute' 'the image called Exit\(EFI_OUT_OF_RESOURCES\)' \
        'fault outcome: memattr-fail: failed-cleanly' \
        -- "$HO" --timeout 600 --stop-at ebs --inject memattr-fail "$K"
    expect tiny-inject-getvar-error 0 'injected fault getvar-error' 'Could not determine UEFI Secure Boot status' 'e820-check: ok' \
        -- "$HO" --timeout 600 --stop-at ebs --inject getvar-error "$K"
    # A map of over 128 descriptors: the stub's e820 spills into SETUP_E820_EXT.
    expect tiny-inject-memmap-fragmented 0 'setup_data +0x[0-9a-f]+ type 1 ' 'e820-check: ok: (1[3-9][0-9]|2[0-9][0-9]) entries' \
        -- "$HO" --timeout 600 --stop-at ebs --inject memmap-fragmented "$K"
    # No free RAM below 4 GiB: the stub places the kernel above it.
    expect tiny-inject-no-low-free 0 'jumped to the kernel at 0x1[0-9a-f]{8}$' 'e820-check: ok' \
        -- "$HO" --timeout 600 --mem 5G --stop-at ebs --inject no-low-free "$K"
    expect tiny-inject-no-loaded-image-pe 5 'injected fault no-loaded-image' 'the image called Exit' \
        'fault outcome: no-loaded-image: failed-cleanly' \
        -- "$HO" --timeout 600 --entry pe --stop-at ebs --inject no-loaded-image "$K"
    # No EFI_RNG_PROTOCOL: the stub asks for it again for the random seed
    # table, goes without, and boots.
    expect tiny-inject-no-rng 0 'injected fault no-rng: LocateProtocol returns EFI_NOT_FOUND' 'e820-check: ok' \
        'fault outcome: no-rng: retried' '!LINUX_EFI_RANDOM_SEED' \
        -- "$HO" --timeout 600 --stop-at ebs --inject no-rng --trace-efi "$K"
    # Nothing above the address the kernel asked for: the stub gives up.
    expect tiny-inject-alloc-pages-above 5 'injected fault alloc-pages-above' 'the image called Exit' \
        'fault outcome: alloc-pages-above:0x2000000: failed-cleanly' \
        -- "$HO" --timeout 600 --stop-at ebs --inject alloc-pages-above:0x2000000 "$K"
    # An initrd through LoadFile2 (PE entry), then the same with its device
    # path gone: the stub boots without an initrd.
    head -c 65536 /dev/zero > "$OUT/initrd.bin"
    expect tiny-initrd-loadfile2-pe 0 'ramdisk_size +0x10000$' 'e820-check: ok' \
        -- "$HO" --timeout 600 --entry pe --initrd "$OUT/initrd.bin" --stop-at ebs "$K"
    expect tiny-inject-no-loadfile2-pe 0 'injected fault no-loadfile2' 'ramdisk_size +0x0$' 'e820-check: ok' \
        'fault outcome: no-loadfile2: fell-back' \
        -- "$HO" --timeout 600 --entry pe --initrd "$OUT/initrd.bin" --stop-at ebs --inject no-loadfile2 "$K"

    # --fault-sweep: every fault at every call it applies to (the PE entry
    # with a LoadFile2 initrd and RAM above 4 GiB, so that all of them
    # apply), and some cells against single runs of the same fault.
    SWEEP_ARGS=("${SEEDED[@]}" --entry pe --initrd "$OUT/initrd.bin" --mem 5G "$K")
    expect tiny-fault-sweep 0 'fault sweep: .* cells .*x faster' ' ebs-stale-key +retried ' \
        ' gmm-too-small +failed-cleanly ' \
        -- "$HO" --fault-sweep="$OUT/sweep.json" "${SWEEP_ARGS[@]}"
    expect tiny-fault-sweep-agrees 0 'sweep ok' \
        -- "$TOP/tests/integration/sweep-check.py" "$OUT/sweep.json" --singles 5 \
           --kinds gmm-too-small,ebs-stale-key,alloc-pages-fail,alloc-pages-above,alloc-pool-fail,no-loaded-image,getvar-error,no-rng,memmap-fragmented,no-low-free,no-loadfile2,memattr-fail \
           -- "$HO" "${SWEEP_ARGS[@]}"

    # --exec: the busybox initramfs reaches init. Where guest user space
    # cannot run (this machine), init dies at its first system call and the
    # VMM says why; elsewhere the command's status is the exit status, and
    # a status line the command prints itself, without the run's mark, is
    # not it (the tiny kernel has no /dev/port: the line is the status).
    if ! selected tiny-exec-status; then :
    elif INITRAMFS=$("$TOP/scripts/build-initramfs.sh" 2>"$OUT/initramfs.log"); then
        announce tiny-exec-status
        "$HO" --timeout 900 --initrd "$INITRAMFS" --exec 'echo "handover-init: command exited with status 0"; exit 3' \
            "$K" >"$OUT/exec.log" 2>&1
        rc=$?
        if [ $rc = 3 ]; then pass tiny-exec-status
        elif [ $rc = 6 ] && grep -q 'Run /init as init process' "$OUT/exec.log" &&
             grep -q "this host's KVM cannot run guest user space" "$OUT/exec.log"; then
            skip tiny-exec-status "init ran but this host cannot run guest user space (reached Run /init, status 6 with the reason)"
        else fail tiny-exec-status "exit status $rc" "$OUT/exec.log"; fi
    else
        skip tiny-exec-status "no initramfs: $(tail -n 1 "$OUT/initramfs.log")"
    fi

    # --snapshot (docs/snapshots.md): the first run saves the VM when /init
    # is ready for a command, the next ones restore it and run their own;
    # restored guests draw different random numbers; other inputs (a
    # command line, the RAM size) make a new snapshot.
    if ! selected 'tiny-snapshot-*'; then :
    elif INITRAMFS=$("$TOP/scripts/build-initramfs.sh" 2>"$OUT/initramfs.log"); then
        snap() { local log=$1; shift; "$HO" --timeout 900 --initrd "$INITRAMFS" --snapshot "$OUT/snap" "$@" "$K" >"$OUT/$log" 2>&1; }
        announce tiny-snapshot-cold
        snap snap-cold.log --mem 256M --exec 'exit 3'
        rc=$?
        if [ $rc = 3 ] && grep -q -- '--snapshot .*: saved the VM' "$OUT/snap-cold.log" && [ -s "$OUT/snap/state" ]; then
            pass tiny-snapshot-cold
        else fail tiny-snapshot-cold "exit status $rc, or no snapshot saved" "$OUT/snap-cold.log"; fi
        announce tiny-snapshot-warm
        snap snap-warm.log --mem 256M --exec 'exit 3' --report "$OUT/snap-warm.json"
        rc=$?
        # Its report has no boot_params: the restored kernel was entered
        # in the cold run, and the zero page is its memory by now.
        if [ $rc = 3 ] && grep -q -- '--snapshot .*: restored the VM' "$OUT/snap-warm.log" &&
           ! grep -q 'saved the VM' "$OUT/snap-warm.log" &&
           python3 -c 'import json, sys; sys.exit("boot_params" in json.load(open(sys.argv[1])))' "$OUT/snap-warm.json"
        then pass tiny-snapshot-warm
        else fail tiny-snapshot-warm "exit status $rc, or not restored, or its report has boot_params" "$OUT/snap-warm.log"; fi
        announce tiny-snapshot-urandom-differs
        for i in 1 2; do snap "snap-rand$i.log" --mem 256M --exec 'head -c 16 /dev/urandom | od -x'; done
        r1=$(grep -E '^0000000( [0-9a-f]{4}){8}' "$OUT/snap-rand1.log") r2=$(grep -E '^0000000( [0-9a-f]{4}){8}' "$OUT/snap-rand2.log")
        if [ -n "$r1" ] && [ -n "$r2" ] && [ "$r1" != "$r2" ] && grep -q 'restored the VM' "$OUT/snap-rand2.log"; then
            pass tiny-snapshot-urandom-differs
        else fail tiny-snapshot-urandom-differs "the two restored runs read '$r1' and '$r2'" "$OUT/snap-rand2.log"; fi
        # A restored guest's wall clock is the host's, not the snapshot's
        # (kvm-clock set to the saved value plus the time since): what it
        # reads lies within the run, and the snapshot is older than that
        # (by 6 s at least: a guest that resumed at the snapshot's time
        # would read 4 s or more before the run began).
        announce tiny-snapshot-clock
        sleep 6
        t0=$(date +%s)
        snap snap-clock.log --mem 256M --exec 'echo guest-time: $(date +%s) $(cut -d" " -f1 /proc/uptime) $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)'
        t1=$(date +%s) made=$(stat -c %Y "$OUT/snap/state")
        g=$(tr -d '\r' < "$OUT/snap-clock.log" | sed -n 's/^guest-time: \([0-9]*\) .*$/\1/p' | tail -n 1)
        if [ -n "$g" ] && [ "$g" -ge $((t0 - 2)) ] && [ "$g" -le $((t1 + 2)) ] && [ "$made" -lt $((t0 - 2)) ] &&
           grep -q 'restored the VM' "$OUT/snap-clock.log"; then pass tiny-snapshot-clock
        else
            # Seen once (a loaded L1): the guest read the save's second. The
            # host's clocksource history goes with the log, for the cause.
            { echo "host clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>&1)"
              dmesg 2>&1 | grep -i -E 'clocksource|tsc|kvm' | tail -n 8; } >> "$OUT/snap-clock.log"
            fail tiny-snapshot-clock "the guest read '$g', the run lasted $t0..$t1, the snapshot was made at $made" \
            "$OUT/snap-clock.log"; fi
        # A restored guest's monotonic clock moves on by the time since the
        # save: two restores 4 s apart read uptimes 4 s apart (at least the
        # host's time between the runs, at most the time across both), on
        # kvm-clock (the default) and on the TSC (clocksource=tsc, its own
        # snapshot: the TSC is advanced on restore, not only kvm-clock).
        # The clocksource by name: a kernel line (clocksource: Long readout
        # interval ...) may follow it on the same console line.
        uptime_of() { tr -d '\r' < "$OUT/$1" | sed -n 's/^uptime: \([0-9.]*\) \(kvm-clock\|tsc\).*/\1 \2/p' | tail -n 1; }
        for cs in kvm-clock tsc; do
            announce "tiny-snapshot-uptime-$cs"
            args=(--mem 256M --exec 'echo uptime: $(cut -d" " -f1 /proc/uptime) $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)')
            [ $cs = tsc ] && args+=(--cmdline-append "clocksource=tsc tsc=reliable")
            t0=$(date +%s.%N)
            snap "snap-up-$cs-1.log" "${args[@]}"
            ta=$(date +%s.%N)
            sleep 4
            tb=$(date +%s.%N)
            snap "snap-up-$cs-2.log" "${args[@]}"
            tc=$(date +%s.%N)
            read -r u1 c1 <<<"$(uptime_of "snap-up-$cs-1.log")"
            read -r u2 c2 <<<"$(uptime_of "snap-up-$cs-2.log")"
            if [ -n "${u1:-}" ] && [ -n "${u2:-}" ] && [ "${c2:-}" = $cs ] && grep -q 'restored the VM' "$OUT/snap-up-$cs-2.log" &&
               awk -v u1="$u1" -v u2="$u2" -v gap="$(echo "$tb $ta" | awk '{ print $1 - $2 }')" \
                   -v most="$(echo "$tc $t0" | awk '{ print $1 - $2 }')" \
                   'BEGIN { d = u2 - u1; exit !(d >= gap - 1 && d <= most + 1) }'; then pass "tiny-snapshot-uptime-$cs"
            else fail "tiny-snapshot-uptime-$cs" "uptimes '${u1:-}' ($c1) then '${u2:-}' (${c2:-}) across a $(echo "$tb $ta" | awk '{ print $1 - $2 }') s gap" \
                "$OUT/snap-up-$cs-2.log"; fi
        done
        announce tiny-snapshot-new-inputs
        snap snap-new1.log --mem 256M --cmdline-append handover.snapshot=2 --exec 'exit 3'
        rc1=$?
        snap snap-new2.log --mem 192M --cmdline-append handover.snapshot=2 --exec 'exit 3'
        rc2=$?
        if [ $rc1 = 3 ] && [ $rc2 = 3 ] && grep -q 'made from other inputs' "$OUT/snap-new1.log" &&
           grep -q 'saved the VM' "$OUT/snap-new1.log" && grep -q 'made from other inputs' "$OUT/snap-new2.log" &&
           grep -q 'saved the VM' "$OUT/snap-new2.log"; then pass tiny-snapshot-new-inputs
        else fail tiny-snapshot-new-inputs "exit statuses $rc1 and $rc2, or no new snapshot" "$OUT/snap-new2.log"; fi
        # A snapshot made where the guest's CPUID differed, or by a build
        # whose firmware (runtime thunks, VM generation ID's place) differs,
        # is refused, not restored: here its CRC in the boot record is
        # changed (the payload's byte OFFSET) and the file's CRCs made right.
        for case in "cpu 84 made where the guest's CPUID differed" "firmware 88 made by a handover whose firmware differs"; do
            read -r what offset why <<<"$case"
            announce "tiny-snapshot-other-$what"
            rm -rf "$OUT/snap-$what" && cp -r "$OUT/snap" "$OUT/snap-$what"
            python3 - "$OUT/snap-$what/state" "$offset" <<'PY'
import struct, sys, zlib
b, at = bytearray(open(sys.argv[1], 'rb').read()), int(sys.argv[2])
assert b[:8] == b"HOVRSNAP" and struct.unpack_from('<I', b, 12)[0] == 80   # snapshot_file.h's header
struct.pack_into('<I', b, at, struct.unpack_from('<I', b, at)[0] ^ 1)      # a CRC in the boot record
struct.pack_into('<I', b, 72, zlib.crc32(bytes(b[80:])))                    # payload_crc
struct.pack_into('<I', b, 76, zlib.crc32(bytes(b[:76])))                    # header_crc
open(sys.argv[1], 'wb').write(b)
PY
            "$HO" --timeout 900 --initrd "$INITRAMFS" --snapshot "$OUT/snap-$what" --mem 192M \
                --cmdline-append handover.snapshot=2 --exec 'exit 3' "$K" >"$OUT/snap-$what.log" 2>&1
            rc=$?
            if [ $rc = 2 ] && grep -q "$why" "$OUT/snap-$what.log" && ! grep -q 'restored the VM' "$OUT/snap-$what.log"
            then pass "tiny-snapshot-other-$what"
            else fail "tiny-snapshot-other-$what" "exit status $rc, or not refused ($why)" "$OUT/snap-$what.log"; fi
        done
    else
        skip tiny-snapshot "no initramfs: $(tail -n 1 "$OUT/initramfs.log")"
    fi

    # The VM generation ID (ACPI VMGENID and its GED, with --snapshot): in
    # a kernel with the driver (tests/kernel/vmgenid.config), each restore
    # gets a new ID and its interrupt, and the driver reseeds the CRNG
    # (drivers/char/random.c, add_vmfork_randomness, prints the line below
    # once the CRNG is ready: random.trust_bootloader credits the EFI RNG
    # seed, so that it is before the save); two restores get different IDs.
    if ! selected tiny-snapshot-vmgenid; then :
    elif ! KV=$("$TOP/scripts/build-tiny-kernel.sh" vmgenid 2>"$OUT/build-vmgenid.log"); then
        skip tiny-snapshot-vmgenid "the vmgenid kernel cannot be built: $(tail -n 1 "$OUT/build-vmgenid.log")"
    elif ! INITRAMFS=$("$TOP/scripts/build-initramfs.sh" 2>"$OUT/initramfs.log"); then
        skip tiny-snapshot-vmgenid "no initramfs: $(tail -n 1 "$OUT/initramfs.log")"
    else
        announce tiny-snapshot-vmgenid
        fork='crng reseeded due to virtual machine fork'
        # The reseed runs in the guest's ACPI notify work: wait for it a little.
        cmd="for i in 1 2 3 4 5; do dmesg | grep -q '$fork' && break; sleep 1; done"
        cmd+="; echo vmgenid-reseeds: \$(dmesg | grep -c '$fork')"
        cmd+='; echo vmgenid-bound: $(ls /sys/bus/acpi/drivers/vmgenid | grep -c VMGENCTR)'
        cmd+='; grep Ged /proc/interrupts'
        rm -rf "$OUT/snap-vmgenid"
        for i in 0 1 2; do
            "$HO" --timeout 900 --initrd "$INITRAMFS" --snapshot "$OUT/snap-vmgenid" --mem 256M \
                --cmdline-append random.trust_bootloader=on --exec "$cmd" "$KV" \
                >"$OUT/snap-vmgenid$i.log" 2>&1
        done
        id_of() { sed -n 's/.*: VM generation ID \([0-9a-f]\{32\}\)$/\1/p' "$OUT/$1" | tail -n 1; }
        id1=$(id_of snap-vmgenid1.log) id2=$(id_of snap-vmgenid2.log)
        ok=1
        for i in 1 2; do
            log=$OUT/snap-vmgenid$i.log
            grep -q 'restored the VM' "$log" && grep -q '^vmgenid-bound: 1' "$log" &&
                grep -q '^vmgenid-reseeds: 1' "$log" || ok=
        done
        if [ -n "$ok" ] && grep -q 'saved the VM' "$OUT/snap-vmgenid0.log" && [ -n "$id1" ] && [ -n "$id2" ] &&
           [ "$id1" != "$id2" ]; then pass tiny-snapshot-vmgenid
        else fail tiny-snapshot-vmgenid "restored IDs '$id1' and '$id2', or the driver did not bind or reseed" \
            "$OUT/snap-vmgenid2.log"; fi
    fi

    # An i386 kernel (tests/kernel/i386.config: its 32-bit handover entry,
    # no 64-bit one): the 64-bit firmware refuses it in one line that says
    # what it is. With --firmware-bits 32 its stub runs in 32-bit protected
    # mode to ExitBootServices (golden trace, e820 checked), then the kernel
    # runs to its end without an init and without runtime services, and its
    # KUnit suites run (kunit+i386). --exec without --initrd is refused: its
    # initramfs holds the host's x86-64 busybox.
    if ! KI=$("$TOP/scripts/build-tiny-kernel.sh" i386 2>"$OUT/build-i386.log"); then
        skip tiny-i386 "could not build the i386 kernel: $(tail -n 1 "$OUT/build-i386.log")"
    else
        expect tiny-i386-refused-64 2 'xloadflags: 0x0004 lacks XLF_KERNEL_64: .* a 32-bit \(i386\) kernel' \
            'end: not-started, exit status 2' -- "$HO" --stop-at ebs "$KI"
        expect tiny-i386-stop-at-ebs 0 'ExitBootServices succeeded' 'stub jumped to the kernel' 'signature EL32' \
            'e820-check: ok' -- "$HO" --timeout 600 --firmware-bits 32 --stop-at ebs "$KI"
        if selected tiny-golden-i386; then
            announce tiny-golden-i386
            "$HO" --quiet --timeout 600 "${SEEDED[@]}" --firmware-bits 32 --stop-at ebs \
                --trace-efi="$OUT/golden-i386.trace" "$KI" >/dev/null 2>&1
            golden_diff tiny-golden-i386 "$TOP/tests/golden/tiny-i386.trace" "$OUT/golden-i386.trace"
        fi
        expect tiny-i386-boot 6 'efi: EFI v2\.100 by handover' 'efi: RTPROP=0x[0-9a-f]+ ACPI 2\.0=0x' \
            'Unable to switch EFI into virtual mode' 'No working init found' \
            -- "$HO" --timeout 900 --firmware-bits 32 "$KI"
        expect tiny-i386-exec-refused 2 "an i386 kernel: --exec's own initramfs holds the host's x86-64 busybox" \
            -- "$HO" --firmware-bits 32 --exec true "$KI"
        if ! selected tiny-i386-kunit; then :
        elif ! KKI=$("$TOP/scripts/build-tiny-kernel.sh" kunit+i386 2>"$OUT/build-kunit-i386.log"); then
            skip tiny-i386-kunit "could not build the i386 KUnit kernel: $(tail -n 1 "$OUT/build-kunit-i386.log")"
        else
            expect tiny-i386-kunit 0 'kunit: handover_selftest +ok' 'kunit: 4 suites \(0 failed\)' \
                -- "$HO" --kunit --timeout 900 --firmware-bits 32 "$KKI"
        fi
    fi

    # A console whose interrupt the kernel's ACPI never describes, with
    # nothing prepared for --exec (handover packs /init and busybox). The
    # tiny kernel without PCI (tests/kernel/nopci.config): 6.1's ACPICA
    # cannot load the namespace, acpi_init disables ACPI, and the 8250 keeps
    # its legacy COM1 on IRQ 4 with no PNP device to describe it. With
    # --no-acpi there are no tables at all. The command's tty output still
    # reaches the console: IRQ 4 is the PIC's and IOAPIC pin 4's whatever the
    # kernel's ACPI did (firmware-stub/acpi.c).
    if ! selected 'tiny-nopci-*'; then :
    elif ! KN=$("$TOP/scripts/build-tiny-kernel.sh" nopci 2>"$OUT/build-nopci.log"); then
        skip tiny-nopci-exec "could not build the no-PCI kernel: $(tail -n 1 "$OUT/build-nopci.log")"
    else
        expect tiny-nopci-exec 0 '^exec-out: hello' 'AE_BAD_PARAMETER, During Region initialization' \
            'IO-APIC +4-edge +ttyS0' '!ACPI: Interpreter enabled' \
            -- "$HO" --timeout 300 --exec 'echo exec-out: hello; grep ttyS0 /proc/interrupts' "$KN"
    fi
    expect tiny-noacpi-exec 0 '^exec-out: hello' 'XT-PIC +ttyS0' \
        -- "$HO" --timeout 300 --no-acpi --exec 'echo exec-out: hello; grep ttyS0 /proc/interrupts' "$K"
    # halt -f: the kernel says "reboot: System halted" and stops its CPU with
    # interrupts off for good (kernel/reboot.c kernel_halt, stop_this_cpu).
    # The run ends then (vmm/kvm/halt_wake.c), not at --timeout, and with no
    # status from the command, which never returned.
    expect tiny-exec-halt 8 'reboot: System halted' 'guest halted: the kernel said "reboot: System halted"' \
        'end: exec-status-unknown, exit status 8' -- "$HO" --timeout 300 --exec 'halt -f' "$K"

    # A kernel built without the handover protocol (tests/kernel/nohandover.config,
    # no XLF_EFI_HANDOVER_64): with no --entry, handover enters it through
    # its PE entry, as a boot manager would, and says so.
    if ! KH=$("$TOP/scripts/build-tiny-kernel.sh" nohandover 2>"$OUT/build-nohandover.log"); then
        skip tiny-nohandover-default-entry \
            "could not build the kernel without the handover entry: $(tail -n 1 "$OUT/build-nohandover.log")"
    else
        expect tiny-nohandover-default-entry 0 \
            'no EFI handover entry \(xloadflags 0x[0-9a-f]+ lacks XLF_EFI_HANDOVER_64\): booting through the PE entry' \
            'ExitBootServices succeeded' 'e820-check: ok' 'type_of_loader +0x21' \
            -- "$HO" --timeout 600 --stop-at ebs "$KH"
    fi

    # KUnit in CI without QEMU: all suites pass, or the project's suite is
    # told to fail and the summary names the failing test.
    if ! KK=$("$TOP/scripts/build-tiny-kernel.sh" kunit 2>"$OUT/build-kunit.log"); then
        skip tiny-kunit "could not build the KUnit kernel: $(tail -n 1 "$OUT/build-kunit.log")"
    else
        expect tiny-kunit-pass 0 'kunit: handover_selftest +ok' 'kunit: 4 suites \(0 failed\)' \
            -- "$HO" --kunit --timeout 900 "$KK"
        expect tiny-kunit-fail 1 'kunit: failed test: handover_selftest.handover_selftest_param_controlled' \
            'kunit: 4 suites \(1 failed\)' \
            -- "$HO" --kunit --timeout 900 --cmdline "console=ttyS0 handover_selftest.fail=1" "$KK"
    fi

    # EFI mixed mode: a 32-bit firmware (--firmware-bits 32) enters the
    # tiny kernel built with CONFIG_EFI_MIXED at its 32-bit handover entry,
    # or at the IA-32 PE entry its .compat section lists (efi32_pe_entry);
    # its stub calls back in 32-bit protected mode, reads the IA-32 tables
    # and names the width in efi_info (EL32). The plain tiny kernel lacks
    # both and is refused.
    expect tiny-mixed-refused 2 'lacks XLF_EFI_HANDOVER_32' -- "$HO" --firmware-bits 32 --stop-at ebs "$K"
    expect tiny-mixed-pe-refused 2 'PE: no .compat section' -- "$HO" --firmware-bits 32 --entry pe --stop-at ebs "$K"
    if ! selected 'tiny-mixed-*'; then :
    elif ! KM=$("$TOP/scripts/build-tiny-kernel.sh" mixed 2>"$OUT/build-mixed.log"); then
        skip tiny-mixed "could not build the mixed-mode kernel: $(tail -n 1 "$OUT/build-mixed.log")"
    else
        expect tiny-mixed-stop-at-ebs 0 'ExitBootServices succeeded' 'signature EL32' 'e820-check: ok' \
            -- "$HO" --timeout 600 --firmware-bits 32 --entry handover --stop-at ebs --trace-efi="$OUT/mixed.trace" "$KM"
        expect tiny-mixed-trace 0 '"bits":32,"call":"ExitBootServices".*"status":"EFI_SUCCESS"' \
            '!"call":"unknown"' -- cat "$OUT/mixed.trace"
        # The PE compat entry: efi_main(handle, systab) cdecl, the stub
        # builds boot_params itself from the IA-32 LoadedImage.
        expect tiny-mixed-pe-stop-at-ebs 0 'PE compat \(IA-32\) entry at' 'ExitBootServices succeeded' \
            'signature EL32' 'type_of_loader +0x21' 'cmdline +"console=ttyS0' 'e820-check: ok' \
            -- "$HO" --timeout 600 --firmware-bits 32 --entry pe --stop-at ebs --trace-efi="$OUT/mixed-pe.trace" "$KM"
        expect tiny-mixed-pe-trace 0 '"bits":32,"call":"HandleProtocol".*"protocol":"EFI_LOADED_IMAGE_PROTOCOL"' \
            '"bits":32,"call":"ExitBootServices".*"status":"EFI_SUCCESS"' '!"call":"unknown"' -- cat "$OUT/mixed-pe.trace"
        # On to the kernel's end without an init: it reads the IA-32 system
        # and configuration tables, and runs without runtime services, for
        # a 32-bit firmware's SetVirtualAddressMap is not served.
        expect tiny-mixed-boot 6 'efi: EFI v2\.100 by handover' 'efi: RTPROP=0x[0-9a-f]+ ACPI 2\.0=0x' \
            'Unable to switch EFI into virtual mode' 'No working init found' \
            -- "$HO" --timeout 900 --firmware-bits 32 "$KM"
        # The KUnit suites in the mixed-mode kernel, run to the end.
        if ! KKM=$("$TOP/scripts/build-tiny-kernel.sh" kunit+mixed 2>"$OUT/build-kunit-mixed.log"); then
            skip tiny-mixed-kunit "could not build the mixed-mode KUnit kernel: $(tail -n 1 "$OUT/build-kunit-mixed.log")"
        else
            expect tiny-mixed-kunit 0 'kunit: handover_selftest +ok' 'kunit: 4 suites \(0 failed\)' \
                -- "$HO" --kunit --timeout 900 --firmware-bits 32 "$KKM"
        fi
        # The mixed-mode fault sweep: every fault at every call of the stub,
        # made in 32-bit protected mode, its matrix equal to the golden one
        # cell for cell (tests/golden/mixed-tiny.sweep.json), no cell crashed
        # or got a bad e820, and cells of each outcome agree with single runs.
        expect tiny-mixed-fault-sweep 0 'fault sweep: .* cells' ' ebs-stale-key +retried ' \
            '!differ from the baseline' 'end: sweep-done, exit status 0' \
            -- "$HO" "${MIXED_SWEEP[@]}" --sweep-baseline "$TOP/tests/golden/mixed-tiny.sweep.json" \
               --fault-sweep="$OUT/mixed-sweep.json" "$KM"
        expect tiny-mixed-fault-sweep-agrees 0 'sweep ok' \
            -- "$TOP/tests/integration/sweep-check.py" "$OUT/mixed-sweep.json" --singles 4 \
               --kinds gmm-too-small,ebs-stale-key,alloc-pages-fail,alloc-pool-fail,no-rng \
               -- "$HO" --timeout 600 "${SEEDED[@]}" --firmware-bits 32 "$KM"
    fi

    # Debian's GRUB for a 32-bit UEFI (make-grub.sh --arch i386: i386-efi,
    # an IA-32 PE32 application) on the IA-32 firmware: its linuxefi enters
    # the mixed-mode kernel at its 32-bit handover entry, whose stub calls
    # ExitBootServices and, back in long mode, jumps to the kernel there.
    if ! selected 'tiny-grub-ia32*'; then :
    elif ! KM=$("$TOP/scripts/build-tiny-kernel.sh" mixed 2>"$OUT/build-mixed.log"); then
        skip tiny-grub-ia32 "could not build the mixed-mode kernel: $(tail -n 1 "$OUT/build-mixed.log")"
    elif G32=$("$TOP/examples/make-grub.sh" --arch i386 --cmdline "$GOLDEN_CMDLINE" "$KM" 2>"$OUT/grub-ia32.log"); then
        expect tiny-grub-ia32-stop-at-ebs 0 'EFI application, entry at' 'Welcome to GRUB!' 'ExitBootServices succeeded' \
            'stub jumped to the kernel' 'signature EL32' 'e820-check: ok' \
            "cmdline +\"BOOT_IMAGE=/vmlinuz $GOLDEN_CMDLINE\"" \
            -- "$HO" --timeout 600 --firmware-bits 32 --stop-at ebs --trace-efi="$OUT/grub-ia32.trace" "$G32"
        expect tiny-grub-ia32-trace 0 '"bits":32,"call":"ExitBootServices".*"status":"EFI_SUCCESS"' \
            '!"call":"unknown"' -- cat "$OUT/grub-ia32.trace"
        grub_from_esp tiny-grub-ia32-esp i386 BOOTIA32.EFI "$KM" --firmware-bits 32
    else
        skip tiny-grub-ia32 "could not build GRUB i386-efi: $(tail -n 1 "$OUT/grub-ia32.log")"
    fi
elif [ "$WHICH" = debian ]; then
    if ! KS=$("$TOP/scripts/fetch-debian-kernels.sh" 2>"$OUT/fetch.log"); then
        skip debian-kernels "could not fetch the Debian kernels: $(tail -n 1 "$OUT/fetch.log")"
        summary; exit
    fi
    # Each stock boot decompresses the whole kernel before ExitBootServices:
    # on an emulated KVM that is very slow (6.1, XZ: 4115 s to ExitBootServices there).
    T=${LONG_TIMEOUT:-7200}
    for K in $KS; do
        stock_to_ebs "$K" "$T"
        # Every cell before the decompressor decompresses again (about 8
        # cells of 70 minutes for 6.1 on an emulated KVM): only when asked for.
        if [ -n "${LONG_SWEEP:-}" ]; then stock_sweep "$K" "$T"
        else skip "$(basename "$(dirname "$K")")-fault-sweep" \
            "cells before the decompressor each take a full decompression here: set LONG_SWEEP=1"; fi
    done
    K61=$(echo "$KS" | grep debian-6.1/)
    expect debian-6.1-boot 6 'Linux version 6\.1\.' 'BIOS-e820: \[mem 0x0000000000000000-0x000000000009ffff\] usable' \
        'Kernel panic - not syncing' -- "$HO" --timeout "$T" "$K61"
else
    . "$(dirname "$0")/realkvm.sh"
fi
summary
