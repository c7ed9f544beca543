#!/usr/bin/env bash
# Fast integration tests: the synthetic payload (tests/payload/) on KVM,
# plus the command-line and image checks that need no guest.
# usage: tests/integration/payload.sh HANDOVER PAYLOAD [image|kvm|san|emulating]
#   image:     only the checks that need no guest (make test runs them here);
#   kvm:       only the boots (make test runs them on a hardware KVM);
#   san:       the boots that reach code the others do not, for the
#              sanitizer build: firmware services and hostile pointers,
#              events, a vCPU race, traces, reports and failed writes, the
#              fault sweep and its snapshots, signals, crashes and timeouts
#              (make test-full runs every boot with it);
#   emulating: the boots about the emulation fallbacks, for an emulating KVM.
set -u
HO=$1 PAYLOAD=$2 PART=${3:-all}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/lib.sh"
TOP=$(cd "$(dirname "$0")/../.." && pwd)
echo "# payload tests with $HO"
case $PART in
    san) [ -n "${HANDOVER_TEST_FULL:-}" ] || TESTS_ONLY=${TESTS_ONLY-"services-* hostile-* efi-exit-* fallbacks-handover events events-wait-made-again notify notify-traced
        race-crc-double-fetch stop-at-ebs-* report-e820-* initrd-loadfile2-pe fault-sweep fault-sweep-agrees
        trace-deterministic trace-on-stderr-is-all-json console-limit trace-limit report-write-fails trace-write-fails* stdout-*
        report-non-utf8 report-with-stdout-closed dtb-auto relocated triple-fault timeout stall-past-timeout exit-port signal-* panic-then-reset* exec-panic-then-reset* exec-efi-exit-success*
        sweep-fail-on sweep-baseline-same sweep-baseline-differs sweep-baseline-cell-gone fault-sweep-memory-budget"} ;;
    emulating) TESTS_ONLY=${TESTS_ONLY-"services-handover fallbacks-* no-emulation-fallbacks cmdline-append"} ;;
esac

img() {   # img NAME PYTHON-EXPR-ON-bytearray-b : write a modified payload
    python3 - "$PAYLOAD" "$OUT/$1" "$2" <<'PY'
import sys, struct
b = bytearray(open(sys.argv[1], 'rb').read())
exec(sys.argv[3])
open(sys.argv[2], 'wb').write(b)
PY
    echo "$OUT/$1"
}

# --- no guest needed -------------------------------------------------------
if [ "$PART" = all ] || [ "$PART" = image ]; then
expect help 0 '^Usage: handover' '--stop-at ebs' '^Exit status:' '^Examples:' -- "$HO" --help
expect version 0 '^handover [0-9]' -- "$HO" --version
# --help and --version end as any run whose output was not written whole: 3, not 0.
expect help-write-fails 3 'stdout: write failed: No space left on device' -- sh -c '"$0" --help >/dev/full' "$HO"
expect version-write-fails 3 'stdout: write failed: No space left on device' -- sh -c '"$0" --version >/dev/full' "$HO"
expect no-image 2 'no BZIMAGE' -- "$HO"
expect bad-option 2 'unknown option --frobnicate' -- "$HO" --frobnicate "$PAYLOAD"
expect bad-entry 2 '--entry efi: expected handover or pe' -- "$HO" --entry efi "$PAYLOAD"
expect bad-mem 2 '--mem 1: ' -- "$HO" --mem 1 "$PAYLOAD"
expect bad-cpus 2 '--cpus 0: give a number from 1 to 64' -- "$HO" --cpus 0 "$PAYLOAD"
# A size or address is digits: strtoull would read "-0x1000" as 2^64 - 0x1000.
expect negative-load-addr 2 '--load-addr -0x1000: give a page-aligned address' -- "$HO" --load-addr -0x1000 "$PAYLOAD"
expect negative-size 2 '--console-limit -1: give a size such as 64M' -- "$HO" --console-limit -1 "$PAYLOAD"
# The command line is checked whole, never cut short where it does not fit.
LONG_CMDLINE=$(printf 'a%.0s' $(seq 3000))
expect cmdline-too-long 2 '--cmdline: 3000 bytes, a command line takes at most 2047' -- "$HO" --cmdline "$LONG_CMDLINE" "$PAYLOAD"
expect cmdline-append-too-long 2 '--cmdline with --cmdline-append: [0-9]+ bytes, a command line takes at most 2047' \
    -- "$HO" --cmdline-append "$LONG_CMDLINE" "$PAYLOAD"
# A --fail-on list is read whole: past 255 bytes it was cut, dropping its last names.
expect fail-on-too-long 2 '--fail-on: .*at most 255 bytes' \
    -- "$HO" --fault-sweep --fail-on "$(printf 'crashed,%.0s' $(seq 40))frob" "$PAYLOAD"
# Decimal or 0x hexadecimal, never octal: 010 is ten (strtoull's base 0 read eight).
expect count-leading-zero 2 '--cpus 10 needs the ACPI MADT' -- "$HO" --cpus 010 --no-acpi "$PAYLOAD"
expect size-leading-zero 2 '--cpus 2 needs the ACPI MADT' '!--mem' -- "$HO" --mem 070 --cpus 2 --no-acpi "$PAYLOAD"
expect cpus-need-acpi 2 '--cpus 2 needs the ACPI MADT' -- "$HO" --cpus 2 --no-acpi "$PAYLOAD"
expect bad-inject 2 '--inject frob: unknown fault' -- "$HO" --inject frob "$PAYLOAD"
expect bad-inject-value 2 '--inject alloc-pages-fail: needs a value' -- "$HO" --inject alloc-pages-fail "$PAYLOAD"
expect bad-inject-from 2 '--inject alloc-pages-fail:1@2: takes no @K' -- "$HO" --inject alloc-pages-fail:1@2 "$PAYLOAD"
expect bad-inject-from-zero 2 '--inject getvar-error@0: @K needs a positive call number' \
    -- "$HO" --inject getvar-error@0 "$PAYLOAD"
expect sweep-with-inject 2 '--fault-sweep cannot be combined with --inject' \
    -- "$HO" --fault-sweep --inject no-rng "$PAYLOAD"
expect sweep-with-cpus 2 '--fault-sweep cannot be combined with --cpus above 1' -- "$HO" --fault-sweep --cpus 2 "$PAYLOAD"
expect bad-timeout 2 '--timeout soon' -- "$HO" --timeout soon "$PAYLOAD"
expect bad-keys-escape 2 '--keys: \\q at offset 2 names no key \(the escapes are ' -- "$HO" --keys 'ab\q' "$PAYLOAD"
expect bad-keys-backslash 2 '--keys: ends in a lone backslash' -- "$HO" --keys 'ab\' "$PAYLOAD"
# A usage error is exit status 2; an image that cannot be read, or is not
# one handover can boot, is 11 (docs/exit-status.md): a CI step tells them apart.
expect missing-image 11 'no/such/file: No such file' 'end: not-started, exit status 11' -- "$HO" no/such/file
# A run that never started is not a KUnit pass: its end
# reason is not-started, --report says where it stopped and that the KTAP
# reader saw nothing, and --kunit-json has an ERROR case for the run.
cat > "$OUT/not-started.py" <<'PY'
import json, sys   # the report's and the KUnit JSON's verdict on a run
r, k = (json.load(open(p)) for p in sys.argv[1:3])
print(r["end_reason"], r["not_started_at"], r["kunit"]["complete"], r["kunit"]["passed"],
      " ".join(c["name"] + ":" + c["status"] for c in k["test_cases"]))
PY
expect kunit-missing-image 11 'end: not-started, exit status 11' \
    -- "$HO" --kunit --report "$OUT/kunit-missing.json" --kunit-json "$OUT/kunit-missing-kunit.json" no/such/file
expect kunit-missing-image-results 0 '^not-started image False False run-not-started:ERROR$' -- python3 "$OUT/not-started.py" "$OUT/kunit-missing.json" "$OUT/kunit-missing-kunit.json"
if ! selected kunit-no-dev-kvm; then :
elif command -v unshare >/dev/null && [ "$(id -u)" = 0 ]; then
    expect kunit-no-dev-kvm 3 '/dev/kvm does not exist' 'end: not-started, exit status 3' \
        -- unshare -m sh -c "mount -t tmpfs none /dev && exec $(realpath "$HO") --kunit --report $OUT/kunit-nokvm.json \
           --kunit-json $OUT/kunit-nokvm-kunit.json $PAYLOAD"
    expect kunit-no-dev-kvm-results 0 '^not-started host False False run-not-started:ERROR$' -- python3 "$OUT/not-started.py" "$OUT/kunit-nokvm.json" "$OUT/kunit-nokvm-kunit.json"
else
    skip kunit-no-dev-kvm "needs root and unshare to hide /dev/kvm"
fi
# Options. A value that an optional-argument option takes
# only after '=' is named, not read as a second image; a command after --
# is --exec's (the report of a run stopped at a missing --dtb shows it).
expect trace-efi-detached-value 2 "--trace-efi takes its FILE only as --trace-efi=FILE; 'trace.jsonl' was read" \
    -- "$HO" --trace-efi trace.jsonl "$PAYLOAD"
expect fault-sweep-detached-value 2 "--fault-sweep takes its FILE only as --fault-sweep=FILE" \
    -- "$HO" --fault-sweep m.json "$PAYLOAD"
# An output that names a file the run reads, or another output, is refused
# before it is opened: --fault-sweep=FILE on its own --sweep-baseline
# emptied the baseline (O_TRUNC) before the sweep could read it.
cp "$TOP/tests/golden/mixed-tiny.sweep.json" "$OUT/own-baseline.json"
expect output-is-sweep-baseline 2 '--fault-sweep .*own-baseline.json: the same file as --sweep-baseline' \
    -- "$HO" --fault-sweep="$OUT/own-baseline.json" --sweep-baseline "$OUT/own-baseline.json" "$PAYLOAD"
expect output-is-sweep-baseline-kept 0 -- cmp "$TOP/tests/golden/mixed-tiny.sweep.json" "$OUT/own-baseline.json"
cp "$PAYLOAD" "$OUT/own-image"
expect output-is-the-image 2 '--report .*own-image: the same file as BZIMAGE' -- "$HO" --report "$OUT/own-image" "$OUT/own-image"
expect output-is-the-image-kept 0 -- cmp "$PAYLOAD" "$OUT/own-image"
echo "an --add file" > "$OUT/added-file"
expect output-is-an-added-file 2 '--report .*added-file: the same file as --add .*added-file' \
    -- "$HO" --report "$OUT/added-file" --add "$OUT/added-file:/x" --exec true "$PAYLOAD"
expect output-is-an-added-file-kept 0 '^an --add file$' -- cat "$OUT/added-file"
mkdir -p "$OUT/esp-with-app/EFI/BOOT"
echo "the boot application" > "$OUT/esp-with-app/EFI/BOOT/BOOTX64.EFI"
expect output-inside-the-esp 2 '--report .*BOOTX64.EFI: inside --esp .*esp-with-app, a directory the run reads' \
    -- "$HO" --report "$OUT/esp-with-app/EFI/BOOT/BOOTX64.EFI" --esp "$OUT/esp-with-app"
expect output-inside-the-esp-kept 0 '^the boot application$' -- cat "$OUT/esp-with-app/EFI/BOOT/BOOTX64.EFI"
rm -f "$OUT/esp-with-app/new.json"
expect output-new-inside-the-esp 2 '--report .*new.json: inside --esp ' \
    -- "$HO" --report "$OUT/esp-with-app/../esp-with-app/new.json" --esp "$OUT/esp-with-app"
expect output-new-inside-the-esp-not-made 1 -- test -e "$OUT/esp-with-app/new.json"
rm -f "$OUT/shared-output.json" "$OUT/shared-output-link.json"
ln -s shared-output.json "$OUT/shared-output-link.json"
# Found by the names, before either is made (the report, opened first,
# appears only at the run's end: it no longer made the file the trace's
# check then found).
expect outputs-share-a-file 2 '--report .*shared-output-link.json: the same file as --trace-efi .*shared-output.json' \
    -- "$HO" --trace-efi="$OUT/shared-output.json" --report "$OUT/shared-output-link.json" "$PAYLOAD"
expect outputs-share-a-file-not-made 1 -- test -e "$OUT/shared-output.json"
expect results-share-a-new-file 2 '--report .*same-new.json: the same file as --kunit-json .*same-new.json' \
    -- "$HO" --kunit --report "$OUT/same-new.json" --kunit-json "$OUT/same-new.json" "$PAYLOAD"
expect two-images 2 'more than one BZIMAGE given .*after --: handover BZIMAGE -- CMD' -- "$HO" "$PAYLOAD" "$PAYLOAD"
expect command-after-dashes 2 '--dtb no/such.dtb: No such file' \
    -- "$HO" --report "$OUT/dashes.json" --initrd "$PAYLOAD" "$PAYLOAD" --dtb no/such.dtb -- sh -c "echo it's" -a
expect command-after-dashes-is-exec 0 "^sh -c 'echo it'\\\\''s' -a\$" \
    -- python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["exec"]["command"])' "$OUT/dashes.json"
expect command-after-dashes-and-exec 2 'a command after -- and --exec true: give one of them' \
    -- "$HO" --exec true "$PAYLOAD" -- false
expect stop-at-ebs-with-exec 2 '^handover: --stop-at ebs and --exec cannot be combined' \
    -- "$HO" --stop-at ebs --exec true "$PAYLOAD"
expect kunit-with-stop-at-ebs 2 '^handover: --kunit and --stop-at ebs cannot be combined' \
    -- "$HO" --kunit --stop-at ebs "$PAYLOAD"
expect fail-on-needs-sweep 2 '^handover: --fail-on needs --fault-sweep' -- "$HO" --fail-on none "$PAYLOAD"
expect exec-empty 2 "^handover: --exec '': give the command" -- "$HO" --exec '' "$PAYLOAD"
# --snapshot: its state file is checked before /dev/kvm is opened; a
# corrupt or truncated one is refused, exit 2, naming the file and what
# is wrong (the header's checks: tests/unit/test_snapshot_file.c).
expect snapshot-needs-exec 2 '^handover: --snapshot needs --exec' -- "$HO" --snapshot "$OUT/snap" "$PAYLOAD"
expect snapshot-one-vcpu 2 '^handover: --snapshot cannot be combined with --cpus above 1' \
    -- "$HO" --snapshot "$OUT/snap" --cpus 2 --exec true "$PAYLOAD"
expect snapshot-tpm 2 '^handover: --snapshot and --tpm cannot be combined' \
    -- "$HO" --snapshot "$OUT/snap" --tpm --exec true "$PAYLOAD"
mkdir -p "$OUT/snap-bad" "$OUT/snap-short"
printf 'not a snapshot, but long enough to hold the header of one: %080d' 0 > "$OUT/snap-bad/state"
head -c 40 /dev/zero > "$OUT/snap-short/state"
expect snapshot-corrupt-refused 2 "snap-bad/state: not a handover snapshot \\(bad magic\\): refused" \
    -- "$HO" --snapshot "$OUT/snap-bad" --initrd "$PAYLOAD" --exec true "$PAYLOAD"
expect snapshot-truncated-refused 2 'snap-short/state: truncated: 40 bytes' \
    -- "$HO" --snapshot "$OUT/snap-short" --initrd "$PAYLOAD" --exec true "$PAYLOAD"
# One of another version of the format (an older handover's) is replaced,
# not refused: here state.tmp, a folder, ends the run before any guest.
rm -rf "$OUT/snap-old" && mkdir -p "$OUT/snap-old/state.tmp"
{ printf 'HOVRSNAP\001\000\000\000'; head -c 200 /dev/zero; } > "$OUT/snap-old/state"
expect snapshot-other-version-replaced 2 \
    'snap-old: its snapshot was made by another version of handover \(version 1 with a 0-byte header' \
    'snap-old: Is a directory' '!refused' \
    -- "$HO" --snapshot "$OUT/snap-old" --initrd "$PAYLOAD" --exec true "$PAYLOAD"
# A state file that is a FIFO is refused at once (open() does not wait for a writer).
mkdir -p "$OUT/snap-fifo"
rm -f "$OUT/snap-fifo/state"
mkfifo "$OUT/snap-fifo/state"
expect snapshot-fifo-refused 2 'snap-fifo/state: not a snapshot: not a regular file' \
    -- "$HO" --snapshot "$OUT/snap-fifo" --initrd "$PAYLOAD" --exec true "$PAYLOAD"
# A new snapshot's ram.tmp left as a symlink is replaced, not followed:
# the file it names keeps its bytes (state.tmp, a folder, ends the run
# before any guest).
rm -rf "$OUT/snap-link" && mkdir -p "$OUT/snap-link/state.tmp"
printf 'keep me' > "$OUT/snap-victim"
ln -s "$OUT/snap-victim" "$OUT/snap-link/ram.tmp"
expect snapshot-tmp-symlink-not-followed 2 "snap-link: Is a directory" \
    -- "$HO" --snapshot "$OUT/snap-link" --initrd "$PAYLOAD" --exec true "$PAYLOAD"
if selected snapshot-tmp-symlink-kept-its-target; then
    announce snapshot-tmp-symlink-kept-its-target
    if [ "$(cat "$OUT/snap-victim")" = 'keep me' ] && [ ! -L "$OUT/snap-link/ram.tmp" ]; then
        pass snapshot-tmp-symlink-kept-its-target
    else fail snapshot-tmp-symlink-kept-its-target "ram.tmp's symlink was followed: $(wc -c < "$OUT/snap-victim") bytes left"; fi
fi
# Two runs that share DIR: while one holds DIR's lock (flock, here
# flock(1) as a run making a snapshot would), another neither reads DIR
# nor makes a snapshot there: it boots without one (before, it read the
# corrupt state and refused; a first run removed the other's ram.tmp and
# state.tmp and renamed the other's half-written files into place).
rm -rf "$OUT/snap-busy" && mkdir -p "$OUT/snap-busy/state.tmp"
printf 'not a snapshot, but long enough to hold the header of one: %080d' 0 > "$OUT/snap-busy/state"
# Booting without it ends as the same run without --snapshot does (3 where
# there is no /dev/kvm): the status is the run's own, never hidden.
if selected snapshot-dir-busy; then
    "$HO" --timeout 10 --initrd "$PAYLOAD" --exec true "$PAYLOAD" >"$OUT/snap-busy-cold.log" 2>&1
    cold=$?
fi
expect snapshot-dir-busy 0 'snap-busy: another run is making a new snapshot there: this run boots without it' \
    '!refused' '!Is a directory' "^handover: exit status ${cold:-}\$" \
    -- flock -x "$OUT/snap-busy" sh -c '"$@"; echo "handover: exit status $?"' sh \
       "$HO" --snapshot "$OUT/snap-busy" --timeout 10 --initrd "$PAYLOAD" --exec true "$PAYLOAD"
expect snapshot-dir-busy-untouched 0 '^not a snapshot' -- sh -c "test -d '$OUT/snap-busy/state.tmp' && cat '$OUT/snap-busy/state'"
# --cmdline without console= is kept, and said; with one, nothing is said.
# Both runs go on to the files (the missing --dtb), past the command line.
expect cmdline-without-console 2 '--cmdline has no console=: console=ttyS0 was not added' '--dtb no/such.dtb: No such file' \
    -- "$HO" --cmdline nokaslr --dtb no/such.dtb "$PAYLOAD"
expect cmdline-with-console 2 '!no console=' '--dtb no/such.dtb: No such file' \
    -- "$HO" --cmdline 'console=ttyS0 nokaslr' --dtb no/such.dtb "$PAYLOAD"
# A bare --mem is MiB (as QEMU reads it): 64 is the smallest, 40000 too much.
expect mem-bare-mib 2 '--dtb no/such.dtb' '!--mem' -- "$HO" --mem 64 --dtb no/such.dtb "$PAYLOAD"
expect mem-bare-mib-bound 2 '--mem 40000: give a whole number of MiB' -- "$HO" --mem 40000 "$PAYLOAD"
# The files the boot reads are checked before /dev/kvm is opened: exit 2
# naming the file, and the report says the run stopped at the files.
expect initrd-missing 2 '--initrd no/such.cpio: No such file' -- "$HO" --initrd no/such.cpio "$PAYLOAD"
expect add-missing 2 '--add no/such-file: No such file' -- "$HO" --initrd "$PAYLOAD" --add no/such-file "$PAYLOAD"
expect dtb-not-a-tree 2 '--dtb .*: not a valid flattened device tree' \
    -- "$HO" --report "$OUT/dtb-bad.json" --dtb "$PAYLOAD" "$PAYLOAD"
expect dtb-not-a-tree-report 0 '^not-started files$' \
    -- python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); print(r["end_reason"], r["not_started_at"])' \
    "$OUT/dtb-bad.json"
# --exec needs nothing prepared: with an empty HOME and no
# cache, handover packs /init and the host's busybox itself, before /dev/kvm
# (the run stops at the missing --dtb, after the archive); without a
# busybox on the host it says what to install.
mkdir -p "$OUT/empty-home"
expect exec-needs-no-cache 2 '--dtb no/such.dtb: No such file' '!handover-initramfs' \
    -- env HOME="$OUT/empty-home" HANDOVER_CACHE="$OUT/empty-home/cache" "$HO" --exec true --dtb no/such.dtb "$PAYLOAD"
if ! selected exec-without-busybox; then :
elif command -v unshare >/dev/null && [ "$(id -u)" = 0 ]; then
    expect exec-without-busybox 2 '/bin/busybox with its /init: No such file .*busybox-static.*or give --initrd' \
        -- unshare -m sh -c "mount -t tmpfs none \"\$(readlink -f /bin)\" && exec $(realpath "$HO") --exec true $PAYLOAD"
else
    skip exec-without-busybox "needs root and unshare to hide /bin/busybox"
fi
# make install: every example script installed executable
# and run from another directory, without the checkout: each prints its
# usage and exits 2, a usage error's status; ci-kunit.sh finds its base
# config fragment (a stand-in kernel tree checks the fragments it is given;
# HANDOVER=true stands in for the boot).
if selected installed-examples; then
    INST=$OUT/inst
    if make -s -C "$TOP" install BUILD="$(cd "$(dirname "$HO")" && pwd)" DESTDIR="$INST" PREFIX=/usr \
            >"$OUT/install.log" 2>&1; then
        bad=
        for e in "$INST"/usr/share/handover/examples/*.sh; do
            [ -x "$e" ] || bad="$bad $(basename "$e"):not-executable"
            (cd "$OUT" && "$e" >"$OUT/example.log" 2>&1)
            rc=$?
            { [ "$rc" = 2 ] && grep -q '^usage: ' "$OUT/example.log"; } ||
                { bad="$bad $(basename "$e"):status-$rc"; cp "$OUT/example.log" "$OUT/example-failed.log"; }
        done
        if [ -z "$bad" ]; then pass installed-examples; else fail installed-examples "$bad" "$OUT/example-failed.log"; fi
    else
        fail installed-examples "make install failed" "$OUT/install.log"
    fi
    mkdir -p "$OUT/ksrc/scripts/kconfig"
    printf 'tinyconfig olddefconfig bzImage:\n\t@mkdir -p $(O)/arch/x86/boot && touch $(O)/.config $(O)/arch/x86/boot/bzImage\n' \
        > "$OUT/ksrc/Makefile"
    printf '#!/bin/sh\nshift 3\nfor f; do [ -r "$f" ] || { echo "no fragment $f"; exit 1; }; done\necho "fragments: $*"\n' \
        > "$OUT/ksrc/scripts/kconfig/merge_config.sh"
    printf '#!/bin/sh\nfor image; do :; done\nls "$image" && echo "boots $image"\n' > "$OUT/ksrc-boot"
    chmod +x "$OUT/ksrc/scripts/kconfig/merge_config.sh" "$OUT/ksrc-boot"
    cp -r "$OUT/ksrc" "$OUT/ksrc-rel"
    expect installed-ci-kunit 0 'fragments: .*/share/handover/examples/\.\./tiny\.config ' \
        -- env -C "$OUT" HANDOVER=true "$INST/usr/share/handover/examples/ci-kunit.sh" "$OUT/ksrc"
    # A tree named relative to here, as kbuild reads O= (relative to the
    # tree, after make -C): the image is where the example boots it from.
    expect ci-kunit-relative-tree 0 'boots /.*/ksrc-rel/\.handover-build/arch/x86/boot/bzImage$' \
        -- env -C "$OUT" HANDOVER="$OUT/ksrc-boot" "$TOP/examples/ci-kunit.sh" ksrc-rel
    expect installed-initramfs-builder 0 'initramfs/busybox\.cpio$' \
        -- env -C "$OUT" HANDOVER_CACHE="$OUT/cache" "$INST/usr/bin/handover-initramfs"
    # make uninstall removes every file make install made, in a PREFIX with a space.
    expect install-uninstall 0 '^installed [1-9][0-9]* files, left 0$' \
        -- sh -c 'make -s -C "$1" install BUILD="$2" DESTDIR="$3" PREFIX="/my tools" &&
            n=$(find "$3" -type f | wc -l) && make -s -C "$1" uninstall DESTDIR="$3" PREFIX="/my tools" &&
            echo "installed $n files, left $(find "$3" -type f | wc -l)"' \
            sh "$TOP" "$(cd "$(dirname "$HO")" && pwd)" "$OUT/inst-spaced"
fi
# The scripts' cache (HANDOVER_CACHE) holds only whole results. A kernel
# whose copy into the cache failed (a full disk: a cp that writes 100 bytes
# and fails stands in) is built again by the next run, not taken as it is;
# the stand-in source tree builds a 4096-byte bzImage. Two initramfs builds
# at once (a cpio that takes a second) both succeed with a whole archive.
if selected tiny-kernel-cut-short; then
    ksrc_ver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null)
    if [ -z "$ksrc_ver" ] || [ ! -r /usr/src/linux-source-6.1.tar.xz ]; then
        skip tiny-kernel-cut-short "needs linux-source-6.1 (scripts/install-packages.sh)"
    else
        fake=$OUT/kcache/src/linux-source-6.1-$ksrc_ver
        mkdir -p "$fake/scripts/kconfig" "$OUT/full-disk"
        touch "$fake/.extracted"
        printf 'tinyconfig olddefconfig:\n\t@touch $(O)/.config\nbzImage:\n\t@mkdir -p $(O)/arch/x86/boot && head -c 4096 /dev/zero > $(O)/arch/x86/boot/bzImage\n' \
            > "$fake/Makefile"
        printf '#!/bin/sh\nshift 3\nout=$1\nshift\ncat "$@" > "$out"\n' > "$fake/scripts/kconfig/merge_config.sh"
        printf '#!/bin/sh\nhead -c 100 "$1" > "$2"\necho "cp: error writing $2: No space left on device" >&2\nexit 1\n' \
            > "$OUT/full-disk/cp"
        chmod +x "$fake/scripts/kconfig/merge_config.sh" "$OUT/full-disk/cp"
        # The first run's copy is the one cut short: it must have failed so.
        HANDOVER_CACHE="$OUT/kcache" PATH="$OUT/full-disk:$PATH" "$TOP/scripts/build-tiny-kernel.sh" \
            >"$OUT/kernel-full-disk.log" 2>&1
        echo "the full disk's run: exit status $?" >>"$OUT/kernel-full-disk.log"
        expect tiny-kernel-cut-short 0 '^4096 .*/kernels/tiny-[0-9a-f]+/bzImage$' \
            '^cp: error writing .*: No space left on device' "^the full disk's run: exit status [1-9]" \
            -- sh -c 'cat "$3"; k=$(HANDOVER_CACHE="$1" "$2") && echo "$(stat -c %s "$k") $k"' sh "$OUT/kcache" \
            "$TOP/scripts/build-tiny-kernel.sh" "$OUT/kernel-full-disk.log"
        # A cache whose path kbuild refuses is said at once, not after the extraction.
        mkdir -p "$OUT/k cache/src"
        cp -r "$fake" "$OUT/k cache/src/"
        expect tiny-kernel-spaced-cache 1 "cannot be built under '.*/k cache'.*set HANDOVER_CACHE" \
            -- env HANDOVER_CACHE="$OUT/k cache" "$TOP/scripts/build-tiny-kernel.sh"
    fi
fi
if selected initramfs-two-at-once; then
    mkdir -p "$OUT/slow-cpio"
    printf '#!/bin/sh\ncat > /dev/null\nsleep 1\necho whole-archive\n' > "$OUT/slow-cpio/cpio"
    chmod +x "$OUT/slow-cpio/cpio"
    expect initramfs-two-at-once 0 '^first 0 whole-archive$' '^second 0 whole-archive$' \
        -- env HANDOVER_CACHE="$OUT/cache-two" PATH="$OUT/slow-cpio:$PATH" sh -c '
            run() { out=$("$1"); echo "$2 $? $(cat "$out")"; }
            run "$0" first & sleep 0.3; run "$0" second; wait' "$TOP/scripts/build-initramfs.sh"
fi
# The Secure Boot fixtures are made once for the same files, then copied
# from the cache (tests/fixture-cache.sh): openssl runs no more, and the
# copy is what was made.
if selected sb-fixtures-cached; then
    mkdir -p "$OUT/counting-openssl"
    printf '#!/bin/sh\necho ran >> "%s"\nexec /usr/bin/openssl "$@"\n' "$OUT/openssl-runs" > "$OUT/counting-openssl/openssl"
    chmod +x "$OUT/counting-openssl/openssl"
    expect sb-fixtures-cached 0 '^second run: 0 openssl runs, the same files$' \
        -- env HANDOVER_CACHE="$OUT/fixture-cache" PATH="$OUT/counting-openssl:$PATH" sh -c '
            "$1" "$2/first" "$3" && n=$(wc -l < "$4") && "$1" "$2/second" "$3" &&
            diff -r "$2/first" "$2/second" && echo "second run: $(($(wc -l < "$4") - n)) openssl runs, the same files"' \
           _ "$TOP/tests/secure-boot-fixtures.sh" "$OUT/sb-cached" "$PAYLOAD" "$OUT/openssl-runs"
fi
# In an L1 (KVM_HOST_IN_L1), fetch-debian-kernels.sh asks apt nothing (a
# half-minute a call under TCG): it names the kernels this machine
# fetched, or says that one is missing.
if selected 'debian-kernels-in-l1*'; then
    mkdir -p "$OUT/no-apt" "$OUT/kcache-l1/kernels/debian-6.1" "$OUT/kcache-l1/kernels/debian-6.12"
    printf '#!/bin/sh\necho apt asked >&2\nexit 1\n' > "$OUT/no-apt/apt-cache"
    chmod +x "$OUT/no-apt/apt-cache"
    for v in 6.1 6.12; do
        echo kernel > "$OUT/kcache-l1/kernels/debian-$v/vmlinuz"
        echo "linux-image-$v" > "$OUT/kcache-l1/kernels/debian-$v/VERSION"
    done
    expect debian-kernels-in-l1 0 '/kcache-l1/kernels/debian-6\.1/vmlinuz$' '/kcache-l1/kernels/debian-6\.12/vmlinuz$' \
        '!apt asked' -- env KVM_HOST_IN_L1=1 HANDOVER_CACHE="$OUT/kcache-l1" PATH="$OUT/no-apt:$PATH" \
           "$TOP/scripts/fetch-debian-kernels.sh"
    rm "$OUT/kcache-l1/kernels/debian-6.12/vmlinuz"
    expect debian-kernels-in-l1-missing 1 'no debian-6\.12 kernel in .*: fetch it outside the L1 \(make test-assets\)' \
        '!apt asked' -- env KVM_HOST_IN_L1=1 HANDOVER_CACHE="$OUT/kcache-l1" PATH="$OUT/no-apt:$PATH" \
           "$TOP/scripts/fetch-debian-kernels.sh"
fi
# The archive is found again whichever path the script is called by (the
# tiers call it by its absolute path, people by a relative one, the L1
# sees this machine through another mount): it is built once.
if selected initramfs-cache-any-path; then
    mkdir -p "$OUT/counting-cpio"
    printf '#!/bin/sh\necho built >> "%s"\nexec /usr/bin/cpio "$@"\n' "$OUT/cpio-runs" > "$OUT/counting-cpio/cpio"
    chmod +x "$OUT/counting-cpio/cpio"
    ln -s "$TOP" "$OUT/top-link"
    expect initramfs-cache-any-path 0 '^cpio runs: 1$' \
        -- env HANDOVER_CACHE="$OUT/cache-paths" PATH="$OUT/counting-cpio:$PATH" sh -c '
            "$1/scripts/build-initramfs.sh" && (cd "$1" && scripts/build-initramfs.sh) &&
            "$2/scripts/build-initramfs.sh" && echo "cpio runs: $(wc -l < "$3")"' _ "$TOP" "$OUT/top-link" "$OUT/cpio-runs"
fi
# A shard's matrix without its index or count (hand-edited, cut short) is a
# usage error naming the file and what it lacks (it once crashed, status 1).
printf '{"cells": [], "shard": {"count": 2}}' > "$OUT/shard-no-index.json"
printf '{"cells": [], "shard": {"index": 1}}' > "$OUT/shard-no-count.json"
expect sweep-merge-shard-without-index 2 'sweep-merge: .*/shard-no-index\.json: its "shard" has no index$' \
    -- "$TOP/scripts/sweep-merge.py" "$OUT/shard-no-index.json"
expect sweep-merge-shard-without-count 2 'sweep-merge: .*/shard-no-count\.json: its "shard" has no count$' '!Traceback' \
    -- "$TOP/scripts/sweep-merge.py" "$OUT/shard-no-count.json"
# kvm-tiers.sh keeps a BUILD and a PAYLOAD path with a space whole, into a
# tier's scripts/kvm-host command (natively here, no test selected: no L1,
# no boot); a NAME=COMMAND tier's words are split at blanks, never globbed.
if selected kvm-tiers-spaced-paths; then
    mkdir -p "$OUT/build dir"
    ln -s "$(realpath "$HO")" "$OUT/build dir/handover"
    ln -s "$(realpath "$PAYLOAD")" "$OUT/build dir/pay load.bzImage"
    expect kvm-tiers-spaced-paths 0 '^\[payload\] # payload tests with .*/build dir/handover$' \
        '^# tier payload: .* status=0' '^\[words\] a "b c" \*$' \
        -- env HANDOVER_KVM_HOST=native TESTS_ONLY=no-such-test CI=false "$TOP/tests/integration/kvm-tiers.sh" \
           "$OUT/build dir" "$OUT/build dir/pay load.bzImage" payload 'words=echo a  "b c"  *'
fi
# KVM_TIERS_BESIDE (make test's fast tiers) runs first in the first lane,
# before that lane's tiers, its lines marked; its failure fails the run.
# It is not passed on: the fast tiers' own kvm-tiers.sh runs (this check)
# ran it again inside themselves, until their bound.
if selected kvm-tiers-beside; then
    expect kvm-tiers-beside 1 '^beside first$' '^\[beside\] from beside, KVM_TIERS_BESIDE unset$' '^# beside: .* failed$' \
        '^# tier one: .* status=0' \
        -- env HANDOVER_KVM_HOST=native KVM_TIER_LANES=1 CI=false \
           KVM_TIERS_BESIDE='echo from beside, KVM_TIERS_BESIDE ${KVM_TIERS_BESIDE-unset}; exit 3' sh -c '
            "$1" "$2" "$3" "one=echo tier one" > "$4"; rc=$?
            awk "/from beside/ { b = NR } /tier one\$/ { o = NR } END { print (b && o && b < o) ? \"beside first\" : \"order wrong\" }" "$4"
            cat "$4"; exit $rc' _ "$TOP/tests/integration/kvm-tiers.sh" "$OUT/beside-build" "$PAYLOAD" "$OUT/beside.log"
fi
# A workflow whose job has no steps fails saying so (it once failed only by
# accident, on an empty `if:` read from a step file that was not there).
printf 'on: push\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps: []\n' > "$OUT/no-steps.yml"
expect workflow-no-steps 1 '^not ok - workflow-parse: ' 'workflow-steps: job build has no steps' '!if: ' \
    -- env -u TESTS_ONLY "$TOP/tests/integration/workflow.sh" "$OUT/no-steps.yml"
# The CI examples' usage errors are status 2, never one their results use.
expect ci-exec-usage 2 "^usage: .*ci-exec\.sh BZIMAGE 'COMMAND'" -- "$TOP/examples/ci-exec.sh" "$PAYLOAD"
expect ci-kunit-usage 2 '^usage: .*ci-kunit\.sh KERNEL_SRC' -- "$TOP/examples/ci-kunit.sh"
# A tool the script needs and cannot find is named with its package.
if selected secure-boot-keys-without-efitools; then
    mkdir -p "$OUT/no-efitools"
    for t in bash env mkdir cat realpath openssl; do ln -sf "$(command -v "$t")" "$OUT/no-efitools/$t"; done
    expect secure-boot-keys-without-efitools 1 'need cert-to-efi-sig-list: apt-get install efitools' \
        -- env PATH="$OUT/no-efitools" "$TOP/scripts/make-secure-boot-keys.sh" "$OUT/keys-without-efitools"
fi
# scripts/kvm-host --prepare with a stand-in kernel package (apt-cache and
# apt-get stubs; its modules are ELF objects with only a .modinfo), on the
# PATH a user has on Debian (no /usr/sbin, where depmod and modprobe are):
# the L1's initramfs loads all of its modules. A package without one of
# them is refused, and no L1 is left in the cache for the next run to take.
l1_package() {   # l1_package DIR MODULE...: the package in DIR, stubs in DIR/bin
    local d=$1 m k=6.1.0-99-amd64; shift
    mkdir -p "$d/pkg/DEBIAN" "$d/pkg/boot" "$d/pkg/lib/modules/$k/kernel" "$d/bin"
    printf 'Package: linux-image-%s\nVersion: 1\nArchitecture: amd64\nMaintainer: t <t@t>\nDescription: t\n' "$k" \
        > "$d/pkg/DEBIAN/control"
    echo kernel > "$d/pkg/boot/vmlinuz-$k"
    echo 'int x;' | cc -c -x c - -o "$d/empty.o"
    for m; do
        printf 'name=%s\0depends=\0vermagic=%s SMP mod_unload modversions \0' "$m" "$k" > "$d/modinfo"
        objcopy --add-section .modinfo="$d/modinfo" "$d/empty.o" "$d/pkg/lib/modules/$k/kernel/$m.ko"
    done
    dpkg-deb -b -Zgzip "$d/pkg" "$d/linux-image-$k.deb" >/dev/null
    printf '#!/bin/sh\necho "  Depends: linux-image-%s"\n' "$k" > "$d/bin/apt-cache"
    printf '#!/bin/sh\ncp "%s/linux-image-%s.deb" .\n' "$d" "$k" > "$d/bin/apt-get"
    chmod +x "$d/bin/apt-cache" "$d/bin/apt-get"
}
if selected kvm-host-prepare-user-path; then
    l1_package "$OUT/l1-whole" virtio_pci 9pnet_virtio 9p overlay kvm_amd
    expect kvm-host-prepare-user-path 0 '^virtio_pci\.ko$' '^9pnet_virtio\.ko$' '^9p\.ko$' '^overlay\.ko$' '^kvm_amd\.ko$' \
        -- env HANDOVER_CACHE="$OUT/l1-whole/cache" PATH="$OUT/l1-whole/bin:/usr/local/bin:/usr/bin:/bin" sh -c '
            l1=$("$0" --prepare) && cd "$l1" && cpio -i --quiet --to-stdout modules/order < initrd.cpio' "$TOP/scripts/kvm-host"
fi
if selected kvm-host-prepare-module-missing; then
    l1_package "$OUT/l1-short" virtio_pci 9pnet_virtio 9p overlay
    expect kvm-host-prepare-module-missing 125 'kvm-host: linux-image-6\.1\.0-99-amd64 has no module kvm_amd' \
        '!^6\.1\.0-99-amd64' \
        -- env HANDOVER_CACHE="$OUT/l1-short/cache" PATH="$OUT/l1-short/bin:$PATH" sh -c '
            "$0" --prepare; rc=$?; ls "$HANDOVER_CACHE/kvm-host"; exit $rc' "$TOP/scripts/kvm-host"
fi
# A refused image still writes --report with its end reason.
expect report-of-refused-image 11 'boot_flag: 0x0000' \
    -- "$HO" --report "$OUT/refused-image.json" "$(img refused 'b[0x1fe:0x200] = b"\0\0"')"
expect report-of-refused-image-says 0 '^not-started image 11$' \
    -- python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); print(r["end_reason"], r["not_started_at"], r["exit_status"])' \
    "$OUT/refused-image.json"
# Refused options still write the report, saying so.
expect report-of-refused-options 2 'unknown option --frobnicate' \
    -- "$HO" --report "$OUT/refused-options.json" --frobnicate "$PAYLOAD"
expect report-of-refused-options-says 0 '^not-started options$' \
    -- python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); print(r["end_reason"], r["not_started_at"])' \
    "$OUT/refused-options.json"
# An output that cannot be opened is refused before the others are:
# --report was opened after --trace-efi=FILE, so no report said so.
expect report-of-refused-trace 2 '--trace-efi .*/no/such/dir/trace: No such file or directory' \
    -- "$HO" --trace-efi="$OUT/no/such/dir/trace" --report "$OUT/refused-trace.json" "$PAYLOAD"
expect report-of-refused-trace-says 0 '^not-started outputs 2$' \
    -- python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); print(r["end_reason"], r["not_started_at"], r["exit_status"])' \
    "$OUT/refused-trace.json"
# A stop signal before the guest is entered ends the run as the signal,
# with its report saying where (docs/exit-status.md): here SIGINT is
# blocked and pending when handover starts (a parent's mask passes through
# exec), which kept it from ever stopping the run; one that came during
# the boot killed handover without its report or end line.
expect signal-before-guest 130 'stopped by signal 2 \(Interrupt\) before the guest' 'end: signal, exit status 130' \
    -- python3 -c 'import os, signal, sys; signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
os.kill(os.getpid(), signal.SIGINT); os.execv(sys.argv[1], sys.argv[1:])' \
    "$HO" --report "$OUT/signal-before-guest.json" "$PAYLOAD"
expect signal-before-guest-report 0 '^signal outputs 130$' \
    -- python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); print(r["end_reason"], r["not_started_at"], r["exit_status"])' \
    "$OUT/signal-before-guest.json"
# A result a script reads whole (--report, --kunit-json, --tpm-log, the
# --fault-sweep matrix) is at its path only whole: a run killed before its
# end (SIGKILL: a CI job's own timeout, the OOM killer) leaves the earlier
# file as it was and nothing beside it. Each was opened with O_TRUNC as the
# run started, so the kill left it empty. kill-at.py stops the run as it
# opens /dev/kvm (after every output is opened), or as it syncs its first
# result (written whole, not yet in place).
killed_run() {   # killed_run NAME SYSCALL OPTION...: a run killed at SYSCALL, with its earlier results
    local name=$1 at=$2 d="$OUT/$1"; shift 2
    mkdir -p "$d"
    for f in report.json kunit.json tpm.log matrix.json; do echo "earlier $f" > "$d/$f"; done
    expect "$name" 137 -- python3 "$(dirname "$0")/kill-at.py" "$at" -- "$HO" "$@" "$PAYLOAD"
    expect "$name-kept" 0 '^earlier kunit.json earlier matrix.json earlier report.json earlier tpm.log$' \
        '^kunit.json matrix.json report.json tpm.log$' \
        -- sh -c 'cd "$1" && cat kunit.json matrix.json report.json tpm.log | paste -sd" "; ls -A | paste -sd" "' _ "$d"
}
killed_run killed-mid-run openat=/dev/kvm --report "$OUT/killed-mid-run/report.json" \
    --kunit --kunit-json "$OUT/killed-mid-run/kunit.json" --tpm --tpm-log "$OUT/killed-mid-run/tpm.log"
killed_run killed-writing-results fsync --report "$OUT/killed-writing-results/report.json" \
    --kunit --kunit-json "$OUT/killed-writing-results/kunit.json" --tpm --tpm-log "$OUT/killed-writing-results/tpm.log"
killed_run killed-sweep openat=/dev/kvm --fault-sweep="$OUT/killed-sweep/matrix.json"
# A run that could not write a result whole leaves none at its path: not
# the cut one, nor the earlier run's, which a script would read as this
# run's. On a full file system (a tmpfs of one page, which the earlier
# report holds) the truncated earlier file made room, and a report of the
# refused run was written over it.
if ! selected report-disk-full; then :
elif command -v unshare >/dev/null && [ "$(id -u)" = 0 ]; then
    mkdir -p "$OUT/full"
    expect report-disk-full 2 '--report .*/full/report.json: write failed: No space left on device' \
        '^left: *$' \
        -- unshare -m sh -c 'mount -t tmpfs -o size=4k none "$1" && echo earlier > "$1/report.json" &&
           "$2" --report "$1/report.json" --frobnicate "$3"; rc=$?; echo "left: $(ls -A "$1")"; exit $rc' \
           _ "$OUT/full" "$(realpath "$HO")" "$PAYLOAD"
else
    skip report-disk-full "needs root and unshare to mount a small tmpfs"
fi
# A FIFO or a device cannot be replaced: the report is written through it.
expect report-to-stdout 0 '^not-started options$' \
    -- sh -c '"$0" --report /dev/stdout --frobnicate "$1" 2>/dev/null |
              python3 -c "import json, sys; r = json.load(sys.stdin); print(r[\"end_reason\"], r[\"not_started_at\"])"' \
    "$HO" "$PAYLOAD"
# The run's stdout redirected to a file (>> a log): written through where
# it stands, after the earlier line, not renamed over the log.
expect report-to-stdout-appended 0 '^earlier$' '^not-started options$' \
    -- sh -c 'echo earlier > "$2"; "$0" --report /dev/stdout --frobnicate "$1" >> "$2" 2>/dev/null
              head -n 1 "$2"
              tail -n +2 "$2" | python3 -c "import json, sys; r = json.load(sys.stdin); print(r[\"end_reason\"], r[\"not_started_at\"])"' \
    "$HO" "$PAYLOAD" "$OUT/report-appended.log"
mkfifo "$OUT/report-fifo"
expect report-to-a-fifo 0 '^not-started options 2$' -- python3 -c '
import json, os, subprocess, sys
fifo = os.open(sys.argv[2], os.O_RDONLY | os.O_NONBLOCK)   # a reader, so the open finds one
rc = subprocess.run([sys.argv[1], "--report", sys.argv[2], "--frobnicate", sys.argv[3]], stderr=subprocess.DEVNULL).returncode
os.set_blocking(fifo, True)
r = json.loads(os.read(fifo, 1 << 20))
print(r["end_reason"], r["not_started_at"], rc)' "$HO" "$OUT/report-fifo" "$PAYLOAD"
# handover's stderr is its own voice: a control byte in what it reports
# (a file name here, a guest console line in a run) is printed escaped.
ESC=$(printf '\033')
expect log-escapes-control-bytes 11 'no-such-\\x1b\]0;owned\\x07: No such file' "!$ESC" \
    -- "$HO" "$OUT/no-such-$ESC]0;owned$(printf '\a')"
expect help-short 0 '^Usage: handover' -- "$HO" -h
expect missing-value 2 '--cmdline needs a value' -- "$HO" "$PAYLOAD" --cmdline
expect timeout-no-suffix 2 '--timeout 1k: give whole seconds' -- "$HO" --timeout 1k "$PAYLOAD"
expect cpus-no-suffix 2 '--cpus 2k: give a number' -- "$HO" --cpus 2k "$PAYLOAD"
expect add-needs-initramfs 2 '--add packs files into the initramfs: it needs --exec or --initrd' \
    -- "$HO" --add "$PAYLOAD" "$PAYLOAD"
expect secure-boot-missing-dir 2 '^handover: --secure-boot no/such/dir: No such file or directory' \
    'end: not-started, exit status 2' -- "$HO" --secure-boot no/such/dir "$PAYLOAD"
expect secure-boot-not-a-dir 2 "^handover: --secure-boot $PAYLOAD: not a folder" -- "$HO" --secure-boot "$PAYLOAD" "$PAYLOAD"
expect tpm-log-needs-tpm 2 '--tpm-log needs --tpm$' -- "$HO" --tpm-log "$OUT/no.tpmlog" "$PAYLOAD"
expect tpm-log-not-in-sweep 2 '--tpm-log needs --tpm, and cannot be combined with --fault-sweep' \
    -- "$HO" --tpm --tpm-log "$OUT/no.tpmlog" --fault-sweep "$PAYLOAD"
# --add reads what a program names only from the standard directories, and
# all of it before /dev/kvm is opened: an interpreter by
# its file name from the loader directories, a library only by a bare name;
# no '..' in a guest path; a FIFO or device is refused before it is opened.
elf() {   # elf NAME PT_INTERP [DT_NEEDED...]: a minimal dynamic ELF64
    python3 - "$OUT/$1" "${@:2}" <<'PY'
import sys, struct
out, interp, needed = sys.argv[1], sys.argv[2].encode() + b"\0", sys.argv[3:]
strs = b"\0" + b"".join(n.encode() + b"\0" for n in needed)
soff = 64 + 3 * 56 + len(interp)
doff = (soff + len(strs) + 7) & ~7
dyn, pos = struct.pack("<qQ", 5, soff), 1                 # DT_STRTAB (vaddr = file offset)
for n in needed:
    dyn += struct.pack("<qQ", 1, pos); pos += len(n) + 1   # DT_NEEDED
dyn += struct.pack("<qQ", 0, 0)
end = doff + len(dyn)
b = bytearray(b"\x7fELF\x02\x01\x01" + bytes(9) + struct.pack("<HHIQQQIHHHHHH", 3, 62, 1, 0, 64, 0, 0, 64, 56, 3, 64, 0, 0))
b += struct.pack("<IIQQQQQQ", 1, 5, 0, 0, 0, end, end, 0x1000)                                # PT_LOAD
b += struct.pack("<IIQQQQQQ", 3, 4, 232, 232, 232, len(interp), len(interp), 1)               # PT_INTERP
b += struct.pack("<IIQQQQQQ", 2, 6, doff, doff, doff, len(dyn), len(dyn), 8)                  # PT_DYNAMIC
b += interp + strs
b += bytes(doff - len(b)) + dyn
open(out, "wb").write(b)
PY
    echo "$OUT/$1"
}
expect add-interp-host-path 2 'its interpreter /etc/passwd: no passwd in /lib64' \
    -- "$HO" --initrd "$PAYLOAD" --add "$(elf interp-passwd /etc/passwd)" "$PAYLOAD"
expect add-interp-dotdot 2 "its interpreter /lib64/../etc/ld.so.cache is not an absolute path without '..'" \
    -- "$HO" --initrd "$PAYLOAD" --add "$(elf interp-dotdot /lib64/../etc/ld.so.cache)" "$PAYLOAD"
expect add-needed-path 2 'needs /etc/passwd, not a bare library name' \
    -- "$HO" --initrd "$PAYLOAD" --add "$(elf needed-path /lib64/ld-linux-x86-64.so.2 /etc/passwd)" "$PAYLOAD"
expect add-needed-dotdot 2 'needs \.\., not a bare library name' \
    -- "$HO" --initrd "$PAYLOAD" --add "$(elf needed-dotdot /lib64/ld-linux-x86-64.so.2 ..)" "$PAYLOAD"
# More DT_NEEDED names than elf_deps reads (64) are said, not packed in part.
expect add-needed-too-many 2 'needs more than 64 libraries' \
    -- "$HO" --initrd "$PAYLOAD" --add "$(elf needed-many /lib64/ld-linux-x86-64.so.2 $(seq -f 'libmany%g.so' 65))" "$PAYLOAD"
expect add-needed-64 2 'needs libmany1.so, which is in none of the library directories' \
    -- "$HO" --initrd "$PAYLOAD" --add "$(elf needed-64 /lib64/ld-linux-x86-64.so.2 $(seq -f 'libmany%g.so' 64))" "$PAYLOAD"
expect add-guest-dotdot 2 "the guest path /bin/../../x has an empty, '.' or '..' component" \
    -- "$HO" --initrd "$PAYLOAD" --add "$PAYLOAD:/bin/../../x" "$PAYLOAD"
mkfifo "$OUT/add-fifo"
( : > "$OUT/add-fifo"; touch "$OUT/add-fifo-opened" ) & writer=$!
expect add-fifo 2 'add-fifo: not a regular file' -- timeout 20 "$HO" --initrd "$PAYLOAD" --add "$OUT/add-fifo" "$PAYLOAD"
expect add-fifo-as-image 11 'add-fifo: not a regular file' -- timeout 20 "$HO" "$OUT/add-fifo"
sleep 0.3
expect add-fifo-never-opened 0 '^still blocked$' -- bash -c '[ -e "$1" ] || echo still blocked' _ "$OUT/add-fifo-opened"
kill "$writer" 2>/dev/null; wait "$writer" 2>/dev/null
# A file whose bytes are not the size stat gives (a /proc file says 0) is
# refused, never packed cut short.
expect add-proc-file 2 '--add /proc/self/status: its size said 0 bytes, the read found otherwise' \
    -- "$HO" --initrd "$PAYLOAD" --add /proc/self/status "$PAYLOAD"
# --esp DIR is read before /dev/kvm is opened: a missing folder, a file,
# and a file over the bound are usage errors naming it; a FIFO (never
# opened) and a symlink out of the folder are left out, each said, before.
expect esp-missing 2 "--esp $OUT/no-such-esp: No such file or directory" -- "$HO" --esp "$OUT/no-such-esp" "$PAYLOAD"
expect esp-not-a-folder 2 "--esp $PAYLOAD: not a directory" -- "$HO" --esp "$PAYLOAD" "$PAYLOAD"
mkdir -p "$OUT/esp"
mkfifo "$OUT/esp/a-fifo"
ln -s /etc/passwd "$OUT/esp/a-link"
truncate -s $((256 * 1024 * 1024 + 1)) "$OUT/esp/big"
( : > "$OUT/esp/a-fifo"; touch "$OUT/esp-fifo-opened" ) & writer=$!
expect esp-bounds 2 'a-fifo: not a regular file or a directory: left out' \
    'a-link: a symlink leading out of the folder: left out' 'big: 268435457 bytes, more than a file may have \(256 MiB\)' \
    -- timeout 20 "$HO" --esp "$OUT/esp" "$PAYLOAD"
sleep 0.3
expect esp-fifo-never-opened 0 '^still blocked$' -- bash -c '[ -e "$1" ] || echo still blocked' _ "$OUT/esp-fifo-opened"
kill "$writer" 2>/dev/null; wait "$writer" 2>/dev/null
expect kunit-with-exec 2 '--kunit and --exec cannot be combined' -- "$HO" --kunit --exec true "$PAYLOAD"
expect exec-output-needs-exec 2 '--exec-output needs --exec' -- "$HO" --exec-output "$OUT/exec-out" "$PAYLOAD"
expect exec-output-not-created 0 '^absent$' -- bash -c '[ -e "$1" ] || echo absent' _ "$OUT/exec-out"
# Opened before any VM, as --report is: a directory is refused (any regular
# file stands in for the initramfs).
expect exec-output-dir 2 '--exec-output .*: Is a directory' \
    -- "$HO" --initrd "$PAYLOAD" --exec true --exec-output "$OUT" "$PAYLOAD"
# An EFI application that is not a bzImage (the payload without its boot
# sector's boot_flag and its "HdrS"):
# the options that belong to a bzImage are refused, and so are a driver and
# a truncated file, each naming what is wrong.
APP=$(img app.efi 'b[0x1fe:0x206] = bytes(8)')
expect app-entry-handover 2 '--entry handover: the image is an EFI application, not a bzImage' \
    -- "$HO" --entry handover "$APP"
expect app-dtb 2 '--dtb: the image is an EFI application' -- "$HO" --dtb auto "$APP"
expect app-initrd-via-bootparams 2 '--initrd-via bootparams: the image is an EFI application' \
    -- "$HO" --initrd "$PAYLOAD" --initrd-via bootparams "$APP"
expect app-load-addr 2 '--load-addr places a bzImage' -- "$HO" --load-addr 0x4000000 "$APP"
expect app-cmdline-append 2 '--cmdline-append: an EFI application gets no default command line' \
    -- "$HO" --cmdline-append quiet "$APP"
DRIVER=$(img driver.efi 'b[0x1fe:0x206] = bytes(8); o = struct.unpack_from("<I", b, 0x3c)[0] + 24; struct.pack_into("<H", b, o + 68, 11)')
expect app-driver 11 'PE: Subsystem 11 is an EFI boot service driver, not an application \(10\)' -- "$HO" "$DRIVER"
# A firmware runs the applications of its own machine (UEFI 2.10 section
# 2.1.1): an x64 PE32+ one on the x64 firmware, an IA-32 PE32 one (the
# fuzz_pe seed test_pe.c's image is made as) on --firmware-bits 32's.
expect app-x64-on-ia32-firmware 2 'PE: Machine 0x8664: an x64 \(PE32\+\) EFI application, which the IA-32 firmware of --firmware-bits 32 does not run' \
    -- "$HO" --firmware-bits 32 "$APP"
APP32="$(dirname "$0")/../fuzz/corpus/pe/pe32-highlow"
expect app-ia32-on-x64-firmware 2 'PE: Machine 0x14c: an IA-32 \(PE32\) EFI application, which an x64 firmware does not run \(give --firmware-bits 32\)' \
    -- "$HO" "$APP32"
head -c 1024 "$APP" > "$OUT/app-truncated.efi"
expect app-truncated 11 'app-truncated.efi: PE: ' -- "$HO" "$OUT/app-truncated.efi"
head -c 1000 "$PAYLOAD" > "$OUT/unbootable.img"
expect stub-bisect-usage 2 '^usage: .*stub-bisect.sh OLD_BZIMAGE NEW_BZIMAGE' \
    -- "$(dirname "$0")/../../examples/stub-bisect.sh" "$PAYLOAD"
expect stub-bisect-skips-unbootable 125 'did not reach ExitBootServices; skipping' \
    -- env HANDOVER="$HO" "$(dirname "$0")/../../examples/stub-bisect.sh" "$OUT/unbootable.img" "$PAYLOAD"
# In CI a SKIP not listed in tests/allowed-skips fails the tier.
expect ci-skip-policy 1 'not ok - made-up-tier: SKIP is not allowed in CI' '^0 passed, 1 failed \(2 skipped\)' \
    -- env CI=true bash -c ". '$(dirname "$0")/lib.sh'; skip made-up-tier 'no kernel'; skip sandboxed 'san build'; summary"
# The man page (make man: help2man from --help) documents every option.
man=$(dirname "$HO")/handover.1
if ! selected man-page-has-every-option; then :
elif [ -s "$man" ]; then
    options=$("$HO" --help | grep -oE '^  --[a-z-]+' | sed 's/^ *//')
    missing=$(for o in $options; do grep -qF -- "${o//-/\\-}" "$man" || echo "$o"; done)
    if [ "$(echo "$options" | grep -c .)" -lt 10 ]; then
        fail man-page-has-every-option "$HO --help lists only: $options"
    elif [ -z "$missing" ]; then pass man-page-has-every-option
    else fail man-page-has-every-option "not in $man: $missing"; fi
else
    fail man-page-has-every-option "no $man (make man)"
fi
# docs/exit-status.md is what the exit-status and end-reason tables make
# (make docs writes it).
expect exit-status-doc-is-made 0 '^docs/exit-status.md is made$' \
    -- bash -c 'set -o pipefail; "$1" | diff -u "$2" - && echo "docs/exit-status.md is made"' \
    _ "$(dirname "$HO")/exit-status-doc" "$TOP/docs/exit-status.md"
# Its sections: SYNOPSIS, EXIT STATUS with a row for every status
# docs/exit-status.md lists, EXAMPLES, and the --inject faults as a list.
expect man-page-sections 0 '^sections ok$' -- python3 - "$man" "$TOP/docs/exit-status.md" <<'PY'
import re, sys
man, doc = open(sys.argv[1]).read(), open(sys.argv[2]).read()
for sect in ('.SH SYNOPSIS', '.SH "EXIT STATUS"', '.SH EXAMPLES', '.SS "Faults for --inject SPEC:"'):
    assert '\n' + sect + '\n' in man, f'no {sect}'
status = man.split('.SH "EXIT STATUS"')[1].split('.SH ')[0]
rows = set(re.findall(r'^\.TP\n(\S+)\n', status, re.M))
statuses = re.findall(r'^\| `([^`]+)` \|', doc.split('## Exit status')[1].split('\n## ')[0], re.M)
assert statuses, 'no statuses in docs/exit-status.md'
for want in statuses:
    assert want in rows, f'{want} not in EXIT STATUS: {sorted(rows)}'
assert re.search(r'^\.TP\ngmm\\-too\\-small\[:N\]\n', man, re.M), 'the --inject faults are not a list'
print('sections ok')
PY
# The README's first commands exist, and every option the README and docs/
# name is one handover takes.
expect docs-agree-with-tree 0 '^docs agree with the tree' \
    -- "$(dirname "$0")/docs-check.py" "$TOP" "$HO"
# Inputs that are not regular files, and an output FIFO nobody reads, are
# refused at once (open() would block before --timeout is armed).
mkfifo "$OUT/fifo"
expect fifo-image 11 'BZIMAGE .*/fifo: not a regular file' -- timeout 20 "$HO" "$OUT/fifo"
expect fifo-report 2 '--report .*/fifo: .*a FIFO with no reader' -- timeout 20 "$HO" --report "$OUT/fifo" "$PAYLOAD"
expect fifo-trace 2 '--trace-efi .*/fifo: .*a FIFO with no reader' -- timeout 20 "$HO" --trace-efi="$OUT/fifo" "$PAYLOAD"
expect fifo-exec-output 2 '--exec-output .*/fifo: .*a FIFO with no reader' \
    -- timeout 20 "$HO" --initrd "$PAYLOAD" --exec true --exec-output "$OUT/fifo" "$PAYLOAD"

expect image-truncated 11 'truncated' -- "$HO" "$(img trunc 'b = b[:0x100]')"
expect image-truncated-setup 11 'setup_sects' -- "$HO" "$(img trunc2 'b = b[:0x800]')"
expect image-boot-flag 11 'boot_flag: 0x0000' -- "$HO" "$(img flag 'b[0x1fe:0x200] = b"\0\0"')"
expect image-hdrs 11 'header: magic' -- "$HO" "$(img hdrs 'b[0x202:0x206] = b"XXXX"')"
expect image-old-protocol 11 'version: boot protocol 2.10' -- "$HO" "$(img old 'b[0x206:0x208] = struct.pack("<H", 0x20a)')"
# An IA-32 firmware passes sizes in 32 bits: a 5 GiB initrd (sparse, never
# read) is refused up front.
truncate -s 5G "$OUT/initrd-5g"
expect initrd-too-big-for-firmware-32 2 '5120 MiB, more than a 32-bit firmware \(--firmware-bits 32\) can pass' \
    -- "$HO" --mem 12G --firmware-bits 32 --initrd "$OUT/initrd-5g" "$(img mixed 'b[0x236] |= 4')"
rm -f "$OUT/initrd-5g"
P211=$(img p211 'b[0x206:0x208] = struct.pack("<H", 0x20b); b[0x236:0x238] = bytes(2)')
expect image-protocol-2-11 11 'boot protocol 2.11 predates xloadflags' '!i386' -- "$HO" "$P211"
expect image-protocol-2-11-firmware-32-pe 2 'boot protocol 2.11 predates xloadflags' '!i386' \
    -- "$HO" --firmware-bits 32 --entry pe "$P211"
# A kernel without XLF_EFI_HANDOVER_64 boots through its PE entry by default
# (the kvm part); asked for the handover entry, or for what needs it, it is
# refused with the reason.
NOHAND=$(img nohand 'b[0x236] &= ~8')
expect image-no-handover-entry-handover 2 'lacks XLF_EFI_HANDOVER_64: no 64-bit EFI handover entry \(without --entry it boots through the PE entry\)' \
    -- "$HO" --entry handover "$NOHAND"
expect image-no-handover-dtb 2 'lacks XLF_EFI_HANDOVER_64, so it boots through the PE entry, and --dtb needs the handover entry' \
    -- "$HO" --dtb auto "$NOHAND"
# A 32-bit firmware enters the 32-bit handover entry by default, which the
# payload (like a kernel without CONFIG_EFI_MIXED) does not have.
expect image-no-handover32 2 'lacks XLF_EFI_HANDOVER_32: no 32-bit EFI handover entry, which --firmware-bits 32 needs' \
    -- "$HO" --firmware-bits 32 "$PAYLOAD"
# Through the PE entry it enters the IA-32 entry a .compat section lists
# (a mixed-mode kernel's efi32_pe_entry): the payload has none, and a
# .compat whose entry is not code is refused in one line.
expect firmware-bits-pe 2 'PE: no .compat section: the image lists no entry for machine 0x14c' \
    -- "$HO" --firmware-bits 32 --entry pe "$PAYLOAD"
# The entry is the .compat section's own address (.data's, renamed).
expect image-compat-not-code 2 'PE: .compat entry for machine 0x14c: entry point RVA 0x[0-9a-f]+ is not in an executable section' \
    -- "$HO" --firmware-bits 32 --entry pe "$(img compat 'i = b.index(b".data\0\0\0", 0, 0x1000); b[i:i+8] = b".compat\0"
va, o = struct.unpack_from("<I", b, i + 12)[0], struct.unpack_from("<I", b, i + 20)[0]
b[o:o+9] = bytes([1, 8, 0x4c, 1]) + struct.pack("<I", va) + bytes(1)')"
expect firmware-bits-tpm 2 '^handover: --firmware-bits 32 and --tpm cannot be combined' -- "$HO" --firmware-bits 32 --tpm "$PAYLOAD"
expect firmware-bits-snapshot 2 '^handover: --firmware-bits 32 and --snapshot cannot be combined' \
    -- "$HO" --firmware-bits 32 --snapshot "$OUT/snap32" --exec true "$PAYLOAD"
expect firmware-bits-bad 2 '^handover: --firmware-bits 16: expected 32 or 64' -- "$HO" --firmware-bits 16 "$PAYLOAD"
# A kernel without a 64-bit entry is an i386 kernel: fine, for --firmware-bits 32,
# when it has the 32-bit handover entry; without it, an image no option boots.
expect image-no-64bit 2 'XLF_KERNEL_64: .*--firmware-bits 32 enters it' \
    -- "$HO" "$(img no64-handover32 'b[0x236] = (b[0x236] & ~1) | 4')"
expect image-no-64bit-no-32bit 11 'XLF_KERNEL_64: .*, and no 32-bit handover entry either' '!--firmware-bits 32 enters it' \
    -- "$HO" "$(img no64 'b[0x236] &= ~1')"
# Its IA-32 PE entry is not the .compat entry --firmware-bits 32 --entry pe takes.
expect image-no-64bit-pe32 2 'XLF_KERNEL_64: an i386 kernel, entered by --firmware-bits 32 at its 32-bit handover entry' \
    '!64-bit firmware' -- "$HO" --firmware-bits 32 --entry pe "$OUT/no64"
expect image-handover-offset 11 'handover_offset' -- "$HO" "$(img hoff 'b[0x264:0x268] = struct.pack("<I", 0x7fffffff)')"
expect image-pe-machine 11 'PE: Machine 0x14c' -- "$HO" --entry pe "$(img pem 'o = struct.unpack_from("<I", b, 0x3c)[0]; b[o+4:o+6] = struct.pack("<H", 0x14c)')"
# Every key of a report is documented, and so is every end reason:
# the reports of the runs refused above. No report given is a usage error,
# not a pass.
expect reports-documented-none 1 '^usage: report-doc-check.py' \
    -- "$(dirname "$0")/report-doc-check.py" "$TOP/docs/report.md" "$TOP/docs/exit-status.md"
expect reports-documented 0 'reports documented' \
    -- "$(dirname "$0")/report-doc-check.py" "$TOP/docs/report.md" "$TOP/docs/exit-status.md" \
       "$OUT/kunit-missing.json" "$OUT/refused-options.json" "$OUT/dashes.json" "$OUT/dtb-bad.json" \
       "$OUT/refused-image.json"
# A key of another type than the page gives fails the check.
selected reports-documented-mistyped && python3 -c 'import json, sys
r = json.load(open(sys.argv[1])); r["exit_status"] = str(r["exit_status"]); json.dump(r, open(sys.argv[2], "w"))' \
    "$OUT/refused-options.json" "$OUT/mistyped.json"
expect reports-documented-mistyped 1 "keys not of the type .*'exit_status'" \
    -- "$(dirname "$0")/report-doc-check.py" "$TOP/docs/report.md" "$TOP/docs/exit-status.md" "$OUT/mistyped.json"
# The checkers of the boots' reports, sweeps, traces and KUnit JSON fail on
# wrong inputs, made by hand (each one they once passed), and pass right ones.
C=$OUT/checker
"$(dirname "$0")/checker-inputs.py" "$C"
expect checker-report-good 0 '^report ok: 4 e820 entries agree with 5 descriptors' \
    -- "$(dirname "$0")/report-check.py" "$C/report-good.json"
expect checker-report-unreached 1 '^the run ended stop-unreached, exit status 10: not stopped at ExitBootServices$' \
    -- "$(dirname "$0")/report-check.py" "$C/report-unreached.json"
expect checker-report-empty-map 1 '^the memory map at ExitBootServices is empty' \
    -- "$(dirname "$0")/report-check.py" "$C/report-empty-map.json"
expect checker-report-not-the-map 1 "^e820 .* != memory map .*'start': '0x100000', 'end': '0x100fff', 'type': 'ACPI'" \
    -- "$(dirname "$0")/report-check.py" "$C/report-not-the-map.json"
expect checker-sweep-good 0 '^ok - call 3 AllocatePool alloc-pool-fail:1: failed-cleanly \(status 5\)' '^sweep ok$' \
    -- "$(dirname "$0")/sweep-check.py" "$C/sweep-one-cell.json" --kinds alloc-pool-fail --singles 1 -- "$C/single-this-fault" K
expect checker-sweep-no-cell 1 'no cell ran \(0 cells\): nothing to check' '!^sweep ok' \
    -- "$(dirname "$0")/sweep-check.py" "$C/sweep-no-cell.json" --kinds '' --singles 4 -- "$C/single-this-fault" K
expect checker-sweep-other-fault 1 'sweep failed-cleanly \(status 5\), single run None' '!^sweep ok' \
    -- "$(dirname "$0")/sweep-check.py" "$C/sweep-one-cell.json" --singles 1 -- "$C/single-other-fault" K
expect checker-ebs-retry-good 0 '^ExitBootServices retried once' -- "$(dirname "$0")/ebs-retry.py" "$C/ebs-retry-good.trace"
expect checker-ebs-retry-stale-key-taken 1 '^the retry succeeded with key 0xe, but GetMemoryMap gave 15$' \
    -- "$(dirname "$0")/ebs-retry.py" "$C/ebs-retry-stale-key-taken.trace"
expect checker-ebs-retry-other-buffer 1 'wrote 0x2000000, not the first try.s map 0x1fffb028$' \
    -- "$(dirname "$0")/ebs-retry.py" "$C/ebs-retry-other-buffer.trace"
expect checker-kunit-json-no-case 1 '^kunit.py found no case in its 1 suites: nothing to compare$' \
    -- "$(dirname "$0")/kunit-json-check.py" "$C/kunit-no-case.json" "$C/kunit-no-case.json"
fi
[ "$PART" = image ] && { summary; exit; }

if ! kvm_usable; then
    skip kvm-tests "/dev/kvm is missing or not accessible: the payload cannot run"
    summary; exit
fi

# --- the payload on KVM ----------------------------------------------------
# init_size is checked against guest RAM, after /dev/kvm is opened.
expect image-init-size 2 'init_size' -- "$HO" "$(img initsz 'b[0x260:0x264] = struct.pack("<I", 0x3f000000)')"
expect image-init-size-ram 2 'init_size: the kernel needs' -- "$HO" --mem 64M "$(img initsz2 'b[0x260:0x264] = struct.pack("<I", 0x3800000)')"
# boot.rst, xloadflags: only a kernel with XLF_CAN_BE_LOADED_ABOVE_4G goes
# above 4 GiB; one that lacks it, with pref_address at 4 GiB (RAM there
# with --mem 5G), is moved below, to 16 MiB (it is relocatable: a
# non-relocatable one with a PE header is taken as an EFI application).
expect image-above-4g-without-xlf 0 'payload: done, 0 failures' 'image at 0x1000000 \(' \
    -- "$HO" --timeout 60 --mem 5G "$(img above4g 'b[0x236] &= ~2; b[0x258:0x260] = struct.pack("<Q", 1 << 32)')"
expect image-no-handover-boots-pe 0 'no EFI handover entry \(xloadflags 0x[0-9a-f]+ lacks XLF_EFI_HANDOVER_64\): booting through the PE entry' \
    'PE entry at' 'payload: entry pe' 'payload: done, 0 failures' \
    -- "$HO" --timeout 60 --cmdline payload=services "$(img nohand 'b[0x236] &= ~8')"
for e in handover pe; do
    expect "services-$e" 0 'payload: done, 0 failures' '!not ok' 'ExitBootServices succeeded' \
        -- "$HO" --timeout 60 --entry $e --cmdline payload=services "$PAYLOAD"
    expect "stop-at-ebs-$e" 0 'e820-check: ok' 'signature EL64' 'stop-at ebs: ExitBootServices succeeded' \
        -- "$HO" --timeout 60 --entry $e --stop-at ebs --cmdline payload=stop-at-ebs "$PAYLOAD"
    expect "hostile-$e" 0 'payload: done, 0 failures' '!not ok' \
        -- "$HO" --timeout 60 --entry $e --cmdline payload=hostile "$PAYLOAD"
    expect "efi-exit-$e" 5 'the image called Exit\(EFI_LOAD_ERROR\)' 'end: efi-exit, exit status 5, efi_status EFI_LOAD_ERROR$' \
        -- "$HO" --timeout 60 --entry $e --cmdline payload=efi-exit "$PAYLOAD"
    expect "fallbacks-$e" 0 'payload: done, 0 failures' '!not ok' '^ok [0-9]+ - int3$' '^ok [0-9]+ - popcnt_zf$' \
        -- "$HO" --timeout 60 --entry $e --cmdline payload=fallbacks "$PAYLOAD"
done
# The top-level image's end: EFI_SUCCESS, by Exit or by
# returning, exits 0; another status exits 5; both name the status in the
# end line and in --report's efi_status. A stop point never reached is no
# success.
APP=$(img app.efi 'b[0x1fe:0x206] = bytes(8)')
expect app-return-success 0 'the image returned from its entry point with EFI_SUCCESS' \
    'end: efi-exit, exit status 0, efi_status EFI_SUCCESS$' -- "$HO" --timeout 60 --cmdline payload=efi-return "$APP"
expect app-exit-success 0 'the image called Exit\(EFI_SUCCESS\)' 'end: efi-exit, exit status 0, efi_status EFI_SUCCESS$' \
    -- "$HO" --timeout 60 --report "$OUT/app-exit-success.json" --cmdline payload=efi-exit-success "$APP"
# An application whose ImageBase is not free RAM goes, as LoadImage puts
# it, where its sections keep their SectionAlignment: 2 MiB here.
APP_2M=$(img app-2m.efi 'b[0x1fe:0x206] = bytes(8); o = struct.unpack_from("<I", b, 0x3c)[0] + 24; struct.pack_into("<I", b, o + 32, 0x200000)')
expect app-section-alignment 0 'EFI application, entry at 0x[0-9a-f]+, image at 0x[0-9a-f]*[02468ace]00000 ' \
    'the image returned from its entry point with EFI_SUCCESS' -- "$HO" --timeout 60 --cmdline payload=efi-return "$APP_2M"
expect app-exit-error 5 'the image called Exit\(EFI_LOAD_ERROR\)' 'end: efi-exit, exit status 5, efi_status EFI_LOAD_ERROR$' \
    -- "$HO" --timeout 60 --report "$OUT/app-exit-error.json" --cmdline payload=efi-exit "$APP"
expect app-exit-reports 0 '^EFI_SUCCESS 0 EFI_LOAD_ERROR 5$' -- python3 -c 'import json, sys
r = [json.load(open(f)) for f in sys.argv[1:]]
print(*(x for j in r for x in (j["efi_status"], j["exit_status"])))' "$OUT/app-exit-success.json" "$OUT/app-exit-error.json"
expect stop-at-ebs-unreached 5 'the image ended with EFI_SUCCESS before any ExitBootServices' \
    'end: efi-exit, exit status 5, efi_status EFI_SUCCESS$' \
    -- "$HO" --timeout 60 --stop-at ebs --cmdline payload=efi-exit-success "$PAYLOAD"
# Nor is any other end that would have been a success: the guest's 0 on
# the exit port, with no ExitBootServices or after one with no jump to
# the kernel.
expect stop-at-ebs-unreached-no-ebs 10 '--stop-at ebs: the run ended before its stop point: no ExitBootServices' \
    'end: stop-unreached, exit status 10$' -- "$HO" --timeout 60 --stop-at ebs --cmdline payload=exit=0 "$PAYLOAD"
expect stop-at-ebs-unreached-no-jump 10 'payload: done, 0 failures' \
    'the run ended before its stop point: ExitBootServices succeeded, but no jump to the kernel was seen' \
    'end: stop-unreached, exit status 10$' -- "$HO" --timeout 60 --stop-at ebs --cmdline payload=services "$PAYLOAD"
# The summary shows the guest's efi_info signature escaped, never its raw
# bytes (here ESC [2J, which clears a terminal).
expect stop-at-ebs-signature-escaped 1 'signature \\x1b\[2J systab' 'e820-check: MISMATCH.*efi_info lacks EL64' \
    '!'$'\x1b' -- "$HO" --timeout 60 --stop-at ebs --cmdline 'payload=stop-at-ebs payload.bad-signature' "$PAYLOAD"
# A boot loader that calls ExitBootServices itself and enters the kernel
# (payload.loader: as GRUB's `linux`): the stop is at the kernel's entry,
# code32_start in the boot_params the loader built, whose e820 is checked.
expect stop-at-ebs-loader 0 'the application called ExitBootServices itself, not a kernel.s stub' \
    'the boot loader entered the kernel at 0x3000000 \(code32_start, in 64-bit mode, paging on\)' \
    'type_of_loader +0x21' 'e820-check: ok' 'end: stop-at-ebs, exit status 0$' \
    -- "$HO" --timeout 60 --stop-at ebs --cmdline 'payload=stop-at-ebs payload.loader' "$APP"
# Events: a timer waited for (the call made again until due) and --keys through ConIn.
expect events 0 'payload: done, 0 failures' '!not ok' '^ok [0-9]+ - wait_for_key_index$' \
    -- "$HO" --timeout 60 --keys 'x\n' --trace-efi="$OUT/events.trace" --cmdline payload=events "$PAYLOAD"
expect events-wait-made-again 0 '"call":"WaitForEvent".*"wait":"none signaled' -- cat "$OUT/events.trace"
# Notify functions: the firmware calls the payload's
# through its trampoline, traced as NotifyFunction.Return.
expect notify 0 'payload: done, 0 failures' '!not ok' '^ok [0-9]+ - notify_ebs_ran_before_it_returned$' \
    '^ok [0-9]+ - notify_entry_stack_aligned$' '^ok [0-9]+ - notify_restore_tpl_delivers$' \
    -- "$HO" --timeout 60 --trace-efi="$OUT/notify.trace" --cmdline payload=notify "$PAYLOAD"
expect notify-traced 0 '"call":"NotifyFunction.Return".*"decoded":\{"event":"0x[0-9a-f]+","notify_function"' \
    -- cat "$OUT/notify.trace"
# EFI_MEMORY_ATTRIBUTE_PROTOCOL on the firmware's page tables: a page the
# payload wrote, then made read-only (execute-protected), faults at the
# next write (call): the vCPU's TLB was flushed before the call returned.
expect memattr 4 '!not ok' '^ok [0-9]+ - memattr_get_mixed$' '^ok [0-9]+ - memattr_set_firmware_pages$' \
    'exception #PF page fault \(vector 14, error code 0x3\)' \
    -- "$HO" --timeout 60 --trace-efi="$OUT/memattr.trace" --cmdline payload=memattr "$PAYLOAD"
expect memattr-xp 4 '!not ok' '^ok [0-9]+ - memattr_get_what_was_cleared$' \
    'exception #PF page fault \(vector 14, error code 0x11\)' \
    -- "$HO" --timeout 60 --cmdline payload=memattr-xp "$PAYLOAD"
expect memattr-traced 0 '"call":"MemoryAttribute.SetMemoryAttributes".*"attributes":"EFI_MEMORY_RO\|EFI_MEMORY_XP"' \
    -- cat "$OUT/memattr.trace"

# Secure Boot (--secure-boot, docs/secure-boot.md): keys made now with
# openssl and efitools, the payload sbsign'd with them
# (tests/secure-boot-fixtures.sh). The payload is the image, and LoadImage
# is handed the --initrd (boot_params' ramdisk) as another image.
SB=$OUT/secure-boot
SB_MODE="payload=secure-boot payload.secureboot=1"
if ! selected 'secure-boot-*'; then :
elif ! command -v sbsign >/dev/null || ! command -v sign-efi-sig-list >/dev/null || ! command -v openssl >/dev/null; then
    skip secure-boot "needs openssl, efitools and sbsigntool (scripts/install-packages.sh)"
elif ! "$TOP/tests/secure-boot-fixtures.sh" "$SB" "$PAYLOAD" > "$OUT/secure-boot-fixtures.log" 2>&1; then
    fail secure-boot-fixtures "tests/secure-boot-fixtures.sh failed" "$OUT/secure-boot-fixtures.log"
else
    expect secure-boot-user-mode 0 'secure-boot .*: enrolled db, KEK, PK: user-mode' '^ok [0-9]+ - secure_boot_modes$' \
        '^ok [0-9]+ - secure_boot_read_only$' '^ok [0-9]+ - secure_boot_load_image$' 'payload: done, 0 failures' \
        -- "$HO" --timeout 60 --secure-boot "$SB/keys" --report "$OUT/secure-boot.json" --initrd "$SB/db-signed.efi" \
           --cmdline "$SB_MODE payload.load=success" "$SB/db-signed.efi"
    expect secure-boot-report 0 '^user-mode$' \
        -- python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["secure_boot"])' "$OUT/secure-boot.json"
    for refused in unsigned:'not signed, and its SHA-256 [0-9a-f]{64} is not in db' \
                   other-signed:'its signature is not anchored in db' \
                   tampered:'its signature is for another image'; do
        name=${refused%%:*} why=${refused#*:}
        expect "secure-boot-load-$name" 0 "LoadImage: Secure Boot refused the image \(EFI_SECURITY_VIOLATION\): $why" \
            '^ok [0-9]+ - secure_boot_load_image$' 'payload: done, 0 failures' \
            -- "$HO" --timeout 60 --secure-boot "$SB/keys" --initrd "$SB/$name.efi" \
               --cmdline "$SB_MODE payload.load=security-violation" "$SB/db-signed.efi"
        # The image itself, as a boot manager's LoadImage checks a boot
        # option: the firmware refused to start it, an EFI status (exit 5).
        expect "secure-boot-image-$name" 5 "$name.efi: Secure Boot refused the image \(EFI_SECURITY_VIOLATION\): $why" \
            'end: not-started, exit status 5, efi_status EFI_SECURITY_VIOLATION' \
            -- "$HO" --timeout 60 --secure-boot "$SB/keys" "$SB/$name.efi"
    done
    expect secure-boot-image-in-dbx 5 'enrolled db, dbx, KEK, PK: user-mode' \
        'Secure Boot refused the image \(EFI_SECURITY_VIOLATION\): its SHA-256 [0-9a-f]{64} is in dbx' \
        -- "$HO" --timeout 60 --secure-boot "$SB/dbx-keys" --report "$OUT/secure-boot-refused.json" "$SB/db-signed.efi"
    expect secure-boot-image-refused-report 0 '^EFI_SECURITY_VIOLATION not-started host$' \
        -- python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))
print(r["efi_status"], r["end_reason"], r["not_started_at"])' "$OUT/secure-boot-refused.json"
    # dbx revoking db's certificate by the SHA-256 of its TBSCertificate
    # (EFI_CERT_X509_SHA256): the image it signed is refused; the same
    # image, with another certificate's TBS hash in dbx, starts.
    expect secure-boot-image-tbs-in-dbx 5 'enrolled db, dbx, KEK, PK: user-mode' \
        "refused the image \(EFI_SECURITY_VIOLATION\): its signature carries a certificate whose TBSCertificate's" \
        'end: not-started, exit status 5, efi_status EFI_SECURITY_VIOLATION' \
        -- "$HO" --timeout 60 --secure-boot "$SB/tbs-dbx-keys" "$SB/db-signed.efi"
    expect secure-boot-image-other-tbs-in-dbx 0 'enrolled db, dbx, KEK, PK: user-mode' \
        '^ok [0-9]+ - secure_boot_load_image$' 'payload: done, 0 failures' \
        -- "$HO" --timeout 60 --secure-boot "$SB/other-tbs-dbx-keys" --initrd "$SB/db-signed.efi" \
           --cmdline "$SB_MODE payload.load=success" "$SB/db-signed.efi"
    # Without PK.auth the platform stays in Setup Mode: nothing is checked.
    mkdir -p "$SB/setup-mode" "$SB/bad-db"
    cp "$SB/keys/db.auth" "$SB/keys/KEK.auth" "$SB/setup-mode/"
    expect secure-boot-setup-mode 0 'enrolled db, KEK: setup-mode' '^ok [0-9]+ - secure_boot_modes$' \
        '^ok [0-9]+ - secure_boot_load_image$' 'payload: done, 0 failures' \
        -- "$HO" --timeout 60 --secure-boot "$SB/setup-mode" --initrd "$SB/other-signed.efi" \
           --cmdline "payload=secure-boot payload.secureboot=0 payload.load=success" "$PAYLOAD"
    # A key file that is a symbolic link to nothing is a file that cannot
    # be read (exit 2), not a key left out: without PK.auth nothing would
    # be checked.
    mkdir -p "$SB/dangling-pk"
    cp "$SB/keys/db.auth" "$SB/keys/KEK.auth" "$SB/dangling-pk/"
    ln -sfn no-such.auth "$SB/dangling-pk/PK.auth"
    expect secure-boot-dangling-key 2 "^handover: --secure-boot $SB/dangling-pk/PK.auth: No such file or directory" \
        'end: not-started, exit status 2' -- "$HO" --timeout 60 --secure-boot "$SB/dangling-pk" "$PAYLOAD"
    # A file that is not EFI_VARIABLE_AUTHENTICATION_2 is refused, and says why.
    head -c 100 /dev/zero > "$SB/bad-db/db.auth"
    expect secure-boot-bad-auth-file 2 \
        "db.auth: refused: EFI_SECURITY_VIOLATION, EFI_VARIABLE_AUTHENTICATION_2: AuthInfo's dwLength 0 does not fit" \
        -- "$HO" --timeout 60 --secure-boot "$SB/bad-db" "$PAYLOAD"
    # A verification failure injected: LoadImage of a signed image refused.
    expect secure-boot-inject-refuse 1 \
        'injected fault secure-boot-refuse: LoadImage returns EFI_SECURITY_VIOLATION' \
        'not ok [0-9]+ - secure_boot_load_image: status 0x800000000000001a' \
        -- "$HO" --timeout 60 --secure-boot "$SB/keys" --inject secure-boot-refuse --initrd "$SB/db-signed.efi" \
           --cmdline "$SB_MODE payload.load=success" "$SB/db-signed.efi"
    # --tpm: the firmware's own measurements (PCR 7's Secure Boot variables,
    # PCR 4's EV_EFI_ACTION and image, the separators), which tpm2_eventlog
    # replays to --report's PCRs (16 events: the Spec ID event, then the
    # firmware's 15); PCR 4 and PCR 0 computed here.
    pcrs=$(python3 - "$SB/dbx.esl" <<'PY'
import hashlib, sys
h = lambda b: hashlib.sha256(b).digest()
extend = lambda pcr, d: h(pcr + d)
image = open(sys.argv[1], 'rb').read()[-32:]   # hash-to-efi-sig-list's digest of the payload
sep = h(bytes(4))
pcr4 = extend(extend(extend(bytes(32), h(b"Calling EFI Application from Boot Option")), sep), image)
print(f"0={extend(bytes(32), sep).hex()} 4={pcr4.hex()}")
PY
)
    expect secure-boot-tpm 0 'payload: done, 0 failures' \
        -- "$HO" --timeout 60 --tpm --tpm-log "$OUT/secure-boot.tpmlog" --report "$OUT/secure-boot-tpm.json" \
           --secure-boot "$SB/keys" --cmdline "$SB_MODE" "$SB/db-signed.efi"
    # shellcheck disable=SC2086
    expect secure-boot-tpm-replayed 0 '^measured boot ok: 16 events; PCRs 0, 1, 2, 3, 4, 5, 6, 7 replayed' \
        -- "$TOP/tests/integration/measured-boot-check.py" "$OUT/secure-boot.tpmlog" "$OUT/secure-boot-tpm.json" $pcrs
    expect secure-boot-tpm-events 0 'EV_EFI_VARIABLE_DRIVER_CONFIG' 'UnicodeName: SecureBoot' 'UnicodeName: dbx' \
        'EV_EFI_ACTION' 'EV_SEPARATOR' 'EV_EFI_BOOT_SERVICES_APPLICATION' -- tpm2_eventlog "$OUT/secure-boot.tpmlog"
    expect secure-boot-sweep 0 'fault sweep: .* cells' ' secure-boot-refuse ' \
        -- "$HO" --timeout 60 --fault-sweep="$OUT/secure-boot-sweep.json" --secure-boot "$SB/keys" \
           --initrd "$SB/db-signed.efi" --cmdline "$SB_MODE payload.load=success" "$SB/db-signed.efi"
fi
expect cmdline-append 0 'payload: cmdline "payload=services handover.extra=1( noxsave)?"' 'payload: done, 0 failures' \
    -- "$HO" --timeout 60 --cmdline payload=services --cmdline-append handover.extra=1 "$PAYLOAD"
expect stub-bisect-same 0 'the two stubs made the same firmware calls' \
    -- env HANDOVER="$HO" "$(dirname "$0")/../../examples/stub-bisect.sh" "$PAYLOAD" "$PAYLOAD"
# Port 0x61 follows PIT channel 2 (the kernel's PIT calibration needs it).
expect pit-port-61 0 '^ok [0-9]+ - pit_out2_rises$' 'payload: done, 0 failures' \
    -- "$HO" --timeout 60 --cmdline payload=pit "$PAYLOAD"
# A second vCPU flips the system table's HeaderSize while the BSP calls
# InstallConfigurationTable: the VMM's CRC must not take its length from guest
# memory (the double fetch read host memory out of bounds; ASan build too).
# Each call is a VM exit (0.5 ms in an L1): make test makes 20000 calls,
# make test-full the payload's default 200000, with a bound to match (a
# loaded machine made the 200000 calls last over 120 s).
if [ -n "${HANDOVER_TEST_FULL:-}" ]; then race_calls=200000 race_bound=540; else race_calls=20000 race_bound=120; fi
expect race-crc-double-fetch 0 '^ok [0-9]+ - race_ap_started$' '^ok [0-9]+ - race_ap_ran_during_calls$' \
    'payload: done, 0 failures' \
    -- "$HO" --timeout $race_bound --cpus 2 --cmdline "payload=race payload.race=$race_calls" "$PAYLOAD"
# On this machine's KVM the int3 needs the VMM; on ordinary KVM the host runs it.
# A run that failed says nothing about the int3: it is no reason to skip.
if selected no-emulation-fallbacks; then
    "$HO" --timeout 60 --cmdline payload=fallbacks "$PAYLOAD" >"$OUT/fallbacks-probe.log" 2>&1
    rc=$?
    if [ $rc != 0 ]; then
        fail no-emulation-fallbacks "the run with the fallbacks ended with exit status $rc, not 0" "$OUT/fallbacks-probe.log"
    elif grep -q 'emulation fallback: int3' "$OUT/fallbacks-probe.log"; then
        expect no-emulation-fallbacks 4 'emulation failure' 'code at RIP 0x[0-9a-f]+: cc' '!emulation fallback:' \
            -- "$HO" --timeout 60 --no-emulation-fallbacks --cmdline payload=fallbacks "$PAYLOAD"
    else
        skip no-emulation-fallbacks "this host's KVM runs int3 itself: nothing to fall back from"
    fi
fi
expect dtb-auto 0 'setup_data +0x[0-9a-f]+ type 2 len [0-9]+' 'e820-check: ok' \
    -- "$HO" --timeout 60 --dtb auto --stop-at ebs --cmdline payload=stop-at-ebs "$PAYLOAD"
expect dtb-bad-file 2 '--dtb .*: not a valid flattened device tree' -- "$HO" --dtb "$PAYLOAD" "$PAYLOAD"
expect initrd-via-pe-bootparams 2 '--initrd-via bootparams needs --entry handover' \
    -- "$HO" --entry pe --initrd-via bootparams --initrd "$PAYLOAD" "$PAYLOAD"
# A kernel whose initrd_addr_max (0x22c, boot.rst) RAM already reaches: more
# --mem cannot help, and the message says what can.
low_max=$(img low-initrd-max.bzImage 'struct.pack_into("<I", b, 0x22c, 0x3ffffff)')
truncate -s 100M "$OUT/initrd-100m"
expect initrd-past-initrd-addr-max 2 'do not fit in guest RAM below initrd_addr_max 0x3ffffff \(the RAM below it is all used' \
    '!raise --mem' -- "$HO" --mem 256M --initrd "$OUT/initrd-100m" --initrd-via bootparams "$low_max"
rm -f "$OUT/initrd-100m"
for e in handover pe; do
    expect "initrd-loadfile2-$e" 0 'payload: done, 0 failures' '^ok [0-9]+ - locate_device_path_initrd$' \
        -- "$HO" --timeout 60 --entry $e --initrd-via loadfile2 --initrd "$PAYLOAD" \
        --cmdline "payload=services payload.initrd=1" "$PAYLOAD"
done
expect initrd-bootparams 0 "ramdisk_size +0x$(printf %x "$(stat -c %s "$PAYLOAD")")" -- "$HO" --timeout 60 --initrd "$PAYLOAD" --stop-at ebs \
    --cmdline payload=stop-at-ebs "$PAYLOAD"
for e in handover pe; do
    selected "report-e820-$e" || continue
    "$HO" --timeout 60 --entry $e --report "$OUT/report-$e.json" --stop-at ebs --cmdline payload=stop-at-ebs "$PAYLOAD" >/dev/null 2>&1
    expect "report-e820-$e" 0 'report ok' -- "$(dirname "$0")/report-check.py" "$OUT/report-$e.json"
done
# The reports of a boot to ExitBootServices have every key documented
# (docs/report.md); a report the boot did not write fails it.
selected report-e820-handover &&
    expect report-e820-documented 0 'reports documented' \
        -- "$(dirname "$0")/report-doc-check.py" "$(dirname "$0")/../../docs/report.md" \
           "$(dirname "$0")/../../docs/exit-status.md" "$OUT"/report-*.json
# --fault-sweep over the payload's stop-at-ebs run: each fault at each call
# it applies to, restored from a snapshot; cells agree with single runs.
expect fault-sweep 0 'fault sweep: .* cells' ' ebs-stale-key +retried ' ' alloc-pool-fail:1 +failed-cleanly ' \
    -- "$HO" --timeout 60 --fault-sweep="$OUT/sweep.json" --cmdline payload=stop-at-ebs "$PAYLOAD"
expect fault-sweep-agrees 0 'sweep ok' \
    -- "$(dirname "$0")/sweep-check.py" "$OUT/sweep.json" --singles 8 \
       --kinds gmm-too-small,ebs-stale-key,alloc-pages-fail,alloc-pages-above,alloc-pool-fail,memmap-fragmented \
       -- "$HO" --timeout 60 --cmdline payload=stop-at-ebs "$PAYLOAD"
# The default mode swept with --stop-at ebs: it jumps to no kernel, so
# every cell runs on past ExitBootServices, as the boot without faults
# does, and ends on the exit port with its number of failed checks. The
# cell that fails AllocatePages at the top pages fails 3, handover's own
# exit status for its failures: it was "not judged: handover failed",
# which stopped the sweep. Half the cells (--shard 2/2) hold that one.
expect sweep-services-stop-at-ebs 0 ' alloc-pages-above:0x[0-9a-f]+ +failed-cleanly +the guest wrote 3 to the exit port' \
    'end: sweep-done, exit status 0' '!not judged' \
    -- "$HO" --timeout 60 --stop-at ebs --fault-sweep --shard 2/2 "$PAYLOAD"
# A timer armed before a call the sweep snapshots is as far from due in
# that call's cells as at the snapshot: the payload finds it not due after
# the call, due after a Stall past it, and its getvar-error cell falls
# back as a boot of its own does (it was due at once: failed-cleanly).
expect sweep-timer-resumed 0 ' getvar-error +fell-back ' 'end: sweep-done, exit status 0' \
    -- "$HO" --timeout 60 --fault-sweep --cmdline "payload=stop-at-ebs payload.timer-across-call" "$PAYLOAD"
# Two shards of the same sweep run every cell once: merged, they are the
# whole matrix, cell for cell.
for k in 1 2; do
    expect "fault-sweep-shard-$k" 0 "fault sweep: shard $k/2: [0-9]+ of the [0-9]+ cells" \
        -- "$HO" --timeout 60 --fault-sweep="$OUT/sweep-shard-$k.json" --shard $k/2 --cmdline payload=stop-at-ebs "$PAYLOAD"
done
expect fault-sweep-shards-merge 0 '^shards merge into the whole matrix: [0-9]+ cells$' \
    -- sh -c '"$1" "$3" "$4" >"$5" && python3 -c "import json, sys
cells = lambda f: [(c[\"seq\"], c[\"inject\"], c[\"outcome\"]) for c in json.load(open(f))[\"cells\"]]
whole, merged = cells(sys.argv[1]), cells(sys.argv[2])
assert whole == merged and whole, (whole, merged)
print(\"shards merge into the whole matrix:\", len(whole), \"cells\")" "$2" "$5"' sh "$TOP/scripts/sweep-merge.py" \
       "$OUT/sweep.json" "$OUT/sweep-shard-1.json" "$OUT/sweep-shard-2.json" "$OUT/sweep-merged.json"
expect fault-sweep-shards-partial 2 'sweep-merge: 1 of 2 shards given; missing: 2' \
    -- "$TOP/scripts/sweep-merge.py" "$OUT/sweep-shard-1.json"
expect fault-sweep-shards-unsharded 2 'not a shard.s matrix' -- "$TOP/scripts/sweep-merge.py" "$OUT/sweep.json"
expect relocated 0 'payload: done, 0 failures' 'image at 0x7400000' \
    -- "$HO" --timeout 60 --load-addr 0x7400000 "$PAYLOAD"
expect mem-5g 0 'payload: done, 0 failures' '5120 MiB RAM' \
    -- "$HO" --timeout 60 --mem 5G "$PAYLOAD"
expect cpus-2 0 'payload: done, 0 failures' -- "$HO" --timeout 60 --cpus 2 --cmdline payload=services "$PAYLOAD"
expect no-acpi 0 'payload: done, 0 failures' -- "$HO" --timeout 60 --no-acpi --cmdline payload=services "$PAYLOAD"
expect exit-port 42 'guest wrote 42 to the exit port' -- "$HO" --timeout 60 --cmdline payload=exit=42 "$PAYLOAD"
expect timeout 124 'timeout: the guest was still running after 2 s' 'payload: looping' \
    -- "$HO" --timeout 2 --cmdline payload=loop "$PAYLOAD"
# A guest that waits longer than it has left (Stall(60 s) with --timeout
# 20) times out at once, as it would at the alarm.
expect stall-past-timeout 124 'payload: halting' \
    "timeout: the guest's Stall asks to wait 60.0 s, past the 20 s of --timeout \([0-9.]+ s left\): ended now" \
    'end: timeout, exit status 124' -- "$HO" --timeout 20 --cmdline payload=halt "$PAYLOAD"
# A WaitForEvent that nothing can signal (no timer, no --keys, one vCPU)
# ends the run at once, as a HLT for good does, not at --timeout.
expect wait-for-key-never 4 'payload: waiting for a key' 'WaitForEvent on 1 event\(s\) that nothing will signal' \
    'guest stopped: WaitForEvent on events that nothing can signal' 'end: guest-crash, exit status 4' \
    -- "$HO" --timeout 60 --cmdline payload=wait-for-key "$PAYLOAD"
expect wait-for-key-typed 0 'payload: done, 0 failures' '!not ok' \
    -- "$HO" --timeout 60 --keys k --cmdline payload=wait-for-key "$PAYLOAD"
# Stall waits all it is asked, past 10 s too (it ended after 10 s): a
# timer of 10.4 s is due after a Stall of 10.5 s.
expect stall-long 0 'payload: stalling 10.5 s' 'ok [0-9]+ - stall_outlasts_a_shorter_timer' \
    'payload: done, 0 failures' '!not ok' -- "$HO" --timeout 60 --cmdline payload=stall-long "$PAYLOAD"
# A HLT with no timer armed is ended by a firmware's tick when a --keys
# key is left to read (halt_wake.c); with none, it is for good.
expect halt-for-key-typed 0 'payload: halting until a key' 'payload: done, 0 failures' '!not ok' \
    -- "$HO" --timeout 60 --keys k --cmdline payload=halt-for-key "$PAYLOAD"
expect halt-for-key-never 4 'payload: halting until a key' \
    'guest stopped: HLT in the firmware phase with no timer armed and no key left' 'end: guest-crash, exit status 4' \
    -- "$HO" --timeout 60 --cmdline payload=halt-for-key "$PAYLOAD"
# After ExitBootServices a guest whose every vCPU halted with interrupts
# off (the APs of --cpus 2 never started) can never wake: the run ends
# then (halt_wake.c), not at the --timeout it sat in before. Said first,
# "reboot: System halted" makes it a halt on purpose (halt -f), a
# success, but never --exec's command's status.
expect halt-after-ebs 4 'payload: halting for good after ExitBootServices' \
    'guest stopped: every vCPU halted with interrupts off after ExitBootServices' 'end: guest-crash, exit status 4' \
    -- "$HO" --timeout 600 --cmdline payload=halt-after-ebs "$PAYLOAD"
expect halt-after-ebs-cpus-2 4 'payload: halting for good after ExitBootServices' \
    'guest stopped: every vCPU halted with interrupts off after ExitBootServices' 'end: guest-crash, exit status 4' \
    -- "$HO" --timeout 600 --cpus 2 --cmdline payload=halt-after-ebs "$PAYLOAD"
expect halt-after-ebs-said 0 '^reboot: System halted' 'guest halted: the kernel said "reboot: System halted"' \
    'end: guest-halted, exit status 0' \
    -- "$HO" --timeout 600 --cmdline 'payload=halt-after-ebs payload.say-halted' "$PAYLOAD"
expect halt-after-ebs-exec 8 '^reboot: System halted' 'end: exec-status-unknown, exit status 8' \
    -- "$HO" --timeout 600 --initrd "$PAYLOAD" --exec true --cmdline 'payload=halt-after-ebs payload.say-halted' \
       "$PAYLOAD"
# The firmware's watchdog (UEFI 2.10 section 7.5.1): armed for 2 s by the
# guest, it resets the platform while the guest loops making no call or
# stalls past it, long before --timeout; a
# reset the guest did not ask for is no success (end reason watchdog,
# exit status 12), and a line of the log names its code and data.
# Disarmed (0), it never expires. --watchdog arms it for a bzImage too.
WATCHDOG_EXPIRED="the firmware's watchdog expired: 2 s set, WatchdogCode 0x48414e444f564552, WatchdogData \"payload stuck\""
expect watchdog-spin 12 'payload: watchdog armed' "$WATCHDOG_EXPIRED" 'end: watchdog, exit status 12$' '!end: timeout' \
    -- "$HO" --timeout 300 --report "$OUT/watchdog-spin.json" --cmdline payload=watchdog-spin "$PAYLOAD"
expect watchdog-spin-report 0 '^watchdog 12$' -- python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
print(r["end_reason"], r["exit_status"])' "$OUT/watchdog-spin.json"
# A HLT that only the watchdog's reset could end is a guest that cannot go
# on: said at once (as memtest86+ in the real-KVM tier), not at the reset.
expect watchdog-halt 4 'payload: watchdog armed' 'HLT in the firmware phase with no timer armed' \
    'end: guest-crash, exit status 4$' '!watchdog expired' \
    -- "$HO" --timeout 300 --cmdline payload=watchdog-halt "$PAYLOAD"
expect watchdog-stall 12 'payload: watchdog armed' "$WATCHDOG_EXPIRED" 'end: watchdog, exit status 12$' '!timeout:' \
    -- "$HO" --timeout 30 --cmdline payload=watchdog-stall "$PAYLOAD"
expect watchdog-disarmed 0 'payload: watchdog armed' 'ok [0-9]+ - stall_past_the_disarmed_watchdog' \
    'payload: done, 0 failures' '!not ok' -- "$HO" --timeout 60 --cmdline payload=watchdog-disarmed "$PAYLOAD"
expect watchdog-option 12 "the firmware's watchdog expired: 2 s set, WatchdogCode 0x0, WatchdogData \"\"" \
    'end: watchdog, exit status 12$' -- "$HO" --timeout 300 --watchdog 2 --cmdline payload=loop "$PAYLOAD"
expect triple-fault 4 'triple fault' 'registers of vCPU 0: rip=' -- "$HO" --timeout 60 --cmdline payload=triple-fault "$PAYLOAD"
# cmdline_size counts the bytes without the terminating zero (boot.rst): a
# line of 24 bytes boots a kernel whose cmdline_size is 24, one of 25 is
# refused (24 was: "allows 23"). noxsave is in the line, so never added.
CMDLINE_24=$(img cmdline-size-24 'struct.pack_into("<I", b, 0x238, 24)')
expect cmdline-at-cmdline-size 0 'payload: cmdline "payload=services noxsave"' 'payload: done, 0 failures' \
    -- "$HO" --timeout 60 --cmdline 'payload=services noxsave' "$CMDLINE_24"
expect cmdline-past-cmdline-size 2 '--cmdline: 25 bytes, but the kernel.s cmdline_size allows 24' \
    -- "$HO" --timeout 60 --cmdline 'payload=services  noxsave' "$CMDLINE_24"

# One JSON object per firmware call, the same bytes on every run.
if selected trace-deterministic; then
"$HO" --timeout 60 --trace-efi="$OUT/trace1" --cmdline payload=services "$PAYLOAD" >/dev/null 2>&1
"$HO" --timeout 60 --trace-efi="$OUT/trace2" --cmdline payload=services "$PAYLOAD" >/dev/null 2>&1
if ! cmp -s "$OUT/trace1" "$OUT/trace2"; then
    fail trace-deterministic "two runs gave different traces"
elif ! python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$OUT/trace1" 2>/dev/null; then
    fail trace-deterministic "trace is not JSON Lines"
elif ! grep -q '"call":"ExitBootServices".*"status":"EFI_INVALID_PARAMETER"' "$OUT/trace1" \
     || ! grep -q '"call":"ExitBootServices".*"status":"EFI_SUCCESS"' "$OUT/trace1"; then
    fail trace-deterministic "trace lacks the stale-key and the successful ExitBootServices"
else
    pass trace-deterministic
fi
fi

# --trace-efi without FILE: the trace and handover's own messages share
# stderr, every line of it JSON (the messages as {"log":...}), the stub's
# calls and the end line both there; the console stays on stdout.
if selected trace-on-stderr-is-all-json; then
"$HO" --timeout 60 --trace-efi --cmdline payload=services "$PAYLOAD" >"$OUT/trace-stderr.out" 2>"$OUT/trace-stderr.err"
if ! python3 -c '
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
calls = [l for l in lines if "call" in l]
logs = [l["log"] for l in lines if "log" in l]
assert len(calls) + len(logs) == len(lines), "a line that is neither a call nor a message"
assert any(c["call"] == "ExitBootServices" for c in calls), "no ExitBootServices call"
assert logs and logs[-1].startswith("end: "), "the last message is not the end line"
' "$OUT/trace-stderr.err" 2>"$OUT/trace-stderr.why"; then
    fail trace-on-stderr-is-all-json "$(tail -n 1 "$OUT/trace-stderr.why")" "$OUT/trace-stderr.err"
elif ! grep -q 'payload: done' "$OUT/trace-stderr.out"; then
    fail trace-on-stderr-is-all-json "the console is not on stdout" "$OUT/trace-stderr.out"
else
    pass trace-on-stderr-is-all-json
fi
fi

# Limits: a guest cannot flood the console or the trace.
expect console-limit 0 'console output limit of 300 bytes reached' '!payload: done' \
    -- "$HO" --timeout 60 --console-limit 300 --cmdline payload=services "$PAYLOAD"
expect trace-limit 0 'trace limit of 1000 bytes reached' -- "$HO" --timeout 60 --trace-limit 1000 \
    --trace-efi="$OUT/trace-limited" --cmdline payload=services "$PAYLOAD"

# The run loop is sandboxed: seccomp filter and no_new_privs (vmm/host/sandbox.c).
# Polled, not slept on: under an L1's TCG the sanitizer build takes seconds
# to reach the run loop.
if selected sandboxed; then
"$HO" --timeout 60 --cmdline payload=loop "$PAYLOAD" >"$OUT/sandbox.log" 2>&1 &
pid=$!
for _ in $(seq 120); do
    grep -q '^Seccomp:[[:space:]]*2' "/proc/$pid/status" 2>/dev/null && break
    grep -q 'seccomp filter not installed' "$OUT/sandbox.log" && break
    sleep 0.5
done
if grep -q '^Seccomp:[[:space:]]*2' "/proc/$pid/status" 2>/dev/null && grep -q '^NoNewPrivs:[[:space:]]*1' "/proc/$pid/status"; then
    pass sandboxed
    # What the jailer-like limits add: few descriptors, bounded file sizes.
    if grep -Eq '^Max open files +([0-9]|[1-9][0-9]) ' "/proc/$pid/limits" &&
       grep -Eq '^Max file size +[0-9]+ ' "/proc/$pid/limits"; then
        pass sandbox-limits
    else
        fail sandbox-limits "$(grep -E '^Max (open files|file size)' "/proc/$pid/limits" | tr -s ' ' | tr '\n' ';')"
    fi
elif grep -q 'seccomp filter not installed' "$OUT/sandbox.log"; then
    skip sandboxed "sanitizer build: the filter is off"
else
    fail sandboxed "$(grep -E '^(Seccomp|NoNewPrivs)' "/proc/$pid/status" 2>&1 | tr '\n' ' ')" "$OUT/sandbox.log"
fi
kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
fi
# Descriptors inherited from the caller are closed at start.
if selected inherited-fds-closed; then
"$HO" --timeout 60 --cmdline payload=loop "$PAYLOAD" >"$OUT/fds.log" 2>&1 9>"$OUT/inherited" &
pid=$!
for _ in $(seq 120); do grep -q 'payload: looping' "$OUT/fds.log" && break; kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
# Only a VMM running the guest shows its descriptors: one that ended holds none.
if ! grep -q 'payload: looping' "$OUT/fds.log" || ! fds=$(ls -l "/proc/$pid/fd/"); then
    fail inherited-fds-closed "the VMM did not run the guest, so its descriptors could not be looked at" "$OUT/fds.log"
elif grep -q "$OUT/inherited" <<<"$fds"; then
    fail inherited-fds-closed "the inherited descriptor is still open in the VMM"
else pass inherited-fds-closed; fi
kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
fi

# Inputs that are not regular files, read after /dev/kvm is opened.
mkfifo "$OUT/fifo-in"
expect fifo-initrd 2 '--initrd .*/fifo-in: not a regular file' -- timeout 20 "$HO" --initrd "$OUT/fifo-in" "$PAYLOAD"
expect fifo-dtb 2 '--dtb .*/fifo-in: not a regular file' -- timeout 20 "$HO" --dtb "$OUT/fifo-in" "$PAYLOAD"
# An output that cannot be written whole fails the run (host problem, 3).
expect report-write-fails 3 '--report /dev/full: write failed' 'end: output-write-failed, exit status 3' \
    -- "$HO" --timeout 60 --report /dev/full --cmdline payload=services "$PAYLOAD"
expect trace-write-fails 3 '--trace-efi=/dev/full: write failed' 'end: output-write-failed, exit status 3' \
    -- "$HO" --timeout 60 --trace-efi=/dev/full --report "$OUT/trace-write-fails.json" --cmdline payload=services "$PAYLOAD"
# The report says the run's end as the exit status and the end line do: it
# was written before the trace was closed, and said exit status 0.
expect trace-write-fails-report 0 '^output-write-failed 3$' \
    -- python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); print(r["end_reason"], r["exit_status"])' \
    "$OUT/trace-write-fails.json"
# A console nobody can read ends the run as any failed output does, with
# its report and last line: a reader that went away (EPIPE: its pipe's
# read end is closed before handover starts), never SIGPIPE; a full disk.
expect stdout-reader-gone 3 'stdout: write failed: Broken pipe' 'end: output-write-failed, exit status 3' \
    -- python3 -c 'import os, subprocess, sys; r, w = os.pipe(); os.close(r); sys.exit(subprocess.call(sys.argv[1:], stdout=w))' \
    "$HO" --timeout 60 --report "$OUT/stdout-gone.json" --cmdline payload=services "$PAYLOAD"
expect stdout-reader-gone-report 0 '^output-write-failed 3$' \
    -- python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); print(r["end_reason"], r["exit_status"])' "$OUT/stdout-gone.json"
expect stdout-full 3 'stdout: write failed: No space left on device' 'end: output-write-failed, exit status 3' \
    -- bash -c '"$@" >/dev/full' _ "$HO" --timeout 60 --cmdline payload=services "$PAYLOAD"
# A slow reader is no failed write: stdout a pipe of one page, read only
# after 2 s, so the console's writes wait, and vCPU 0 is kicked meanwhile
# (the firmware phase's halt waker); that kick failed the write with EINTR
# (kvm-fake a_kick_fails_no_console_write_to_a_slow_reader).
expect stdout-slow-reader 0 'payload: done, 0 failures' '!write failed' \
    -- python3 -c 'import fcntl, os, subprocess, sys, time
r, w = os.pipe()
fcntl.fcntl(w, 1031, 4096)   # F_SETPIPE_SZ
p = subprocess.Popen(sys.argv[1:], stdout=w)
os.close(w)
time.sleep(2)
sys.stdout.buffer.write(os.fdopen(r, "rb").read())
sys.exit(p.wait())' "$HO" --timeout 60 --cmdline payload=services "$PAYLOAD"
expect report-non-utf8 3 '--report .*: write failed: Invalid or incomplete multibyte' \
    -- "$HO" --timeout 60 --report "$OUT/nonutf8.json" --cmdline "$(printf 'payload=services \xff')" "$PAYLOAD"
# With stdout closed, the report does not become fd 1 and fill with console text.
selected report-with-stdout-closed &&
    "$HO" --timeout 60 --report "$OUT/closed-stdout.json" --cmdline payload=services "$PAYLOAD" >&- 2>/dev/null
expect report-with-stdout-closed 0 '^report is JSON$' \
    -- python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); assert r["exit_status"] == 0; print("report is JSON")' \
       "$OUT/closed-stdout.json"
# ConOut counts against --console-limit like the serial console; the first
# byte left out says so, at a limit of 0 too.
expect console-limit-conout 0 '!hello from ConOut' 'console output limit of 0 bytes reached' -- "$HO" --timeout 60 --console-limit 0 --cmdline payload=services "$PAYLOAD"
# Many vCPUs, many times: a vCPU thread that stops late must not signal one
# that is already joined (it crashed 5 runs in 6 at --cpus 64).
if selected cpus-64-fifty-runs; then
crashes=0
for i in $(seq 50); do
    "$HO" --quiet --timeout 60 --cpus 64 --cmdline payload=services "$PAYLOAD" >"$OUT/cpus64.log" 2>&1 ||
        { crashes=$((crashes + 1)); cp "$OUT/cpus64.log" "$OUT/cpus64-failed.log"; }
done
if [ $crashes = 0 ]; then pass cpus-64-fifty-runs
else fail cpus-64-fifty-runs "$crashes of 50 runs failed" "$OUT/cpus64-failed.log"; fi
fi

# A heartbeat while the firmware phase lasts, milestones with their times,
# and neither with --quiet.
expect heartbeat-and-milestones 124 'heartbeat: [0-9]+ s, firmware phase, [0-9]+ calls so far, the last [A-Za-z]+' \
    'milestone: entry at [0-9.]+ s' 'milestone: exit at [0-9.]+ s' -- "$HO" --timeout 7 --cmdline payload=loop "$PAYLOAD"
expect quiet-has-no-progress 124 '!heartbeat:' '!milestone:' 'timeout' \
    -- "$HO" --quiet --timeout 7 --cmdline payload=loop "$PAYLOAD"
# The guest's own status and handover's outcomes with the same number are
# told apart by the last stderr line and the report's end_reason.
end_reason() {   # end_reason NAME STATUS REASON OPTION...
    local name=$1 want=$2 reason=$3; shift 3
    expect "$name" "$want" "end: $reason, exit status $want\$" \
        -- "$HO" --report "$OUT/$name.json" "$@" "$PAYLOAD"
    expect "$name-report" 0 "^$reason\$" \
        -- python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["end_reason"])' "$OUT/$name.json"
}
end_reason status-guest-4 4 guest-status --timeout 60 --cmdline payload=exit=4
end_reason status-crash-4 4 guest-crash --timeout 60 --cmdline payload=triple-fault
# A crash the guest reports through the Hyper-V crash control MSR: KVM
# takes the write only when the VMM's CPUID shows Hyper-V (then it is
# KVM_SYSTEM_EVENT_CRASH), and handover's does not, so it is a #GP; a
# guest crash either way, never a shutdown's status 0.
expect hv-crash 4 'guest stopped: (exception #GP|KVM system event 3 \(crash)' 'end: guest-crash, exit status 4$' \
    -- "$HO" --timeout 60 --cmdline payload=hv-crash "$PAYLOAD"
end_reason status-guest-124 124 guest-status --timeout 60 --cmdline payload=exit=124
end_reason status-timeout-124 124 timeout --timeout 2 --cmdline payload=loop
# panic=N restarts the machine instead of printing the panic's end marker:
# the reset that follows the panic line is the panic, not a success.
end_reason panic-then-reset 6 kernel-panic --timeout 60 --cmdline payload=panic-reset
end_reason exec-panic-then-reset 6 kernel-panic --timeout 60 --exec true --cmdline payload=panic-reset
# An image that ends under --exec ran no command: exec-status-unknown, the
# reason that status 8 names, not efi-exit (0 or 5).
expect exec-efi-exit-success 8 'end: exec-status-unknown, exit status 8, efi_status EFI_SUCCESS$' \
    -- "$HO" --report "$OUT/exec-efi-exit-success.json" --timeout 60 --exec true --cmdline payload=efi-exit-success \
       "$PAYLOAD"
expect exec-efi-exit-success-report 0 '^exec-status-unknown$' \
    -- python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["end_reason"])' "$OUT/exec-efi-exit-success.json"
# A sweep fails (9) on the outcomes --fail-on names, and on cells that differ
# from a baseline matrix.
expect sweep-fail-on 9 'cell alloc-pool-fail:1 at call .*: failed-cleanly \(--fail-on\)' 'end: sweep-cells-failed, exit status 9' \
    -- "$HO" --timeout 60 --fault-sweep --fail-on failed-cleanly --cmdline payload=stop-at-ebs "$PAYLOAD"
# Cells that end at their timeout leave nothing behind: the sweep still
# ends as the sweep, not as a timeout of its last cell.
expect sweep-hung-cells 0 ' hung ' 'end: sweep-done, exit status 0' '!end: timeout' \
    -- "$HO" --timeout 60 --cell-timeout 1 --fault-sweep --fail-on none \
       --cmdline "payload=stop-at-ebs payload.hang-on-fail" "$PAYLOAD"
expect sweep-baseline-same 0 'fault sweep: .* cells' '!differ from the baseline' \
    -- "$HO" --timeout 60 --fault-sweep --sweep-baseline "$OUT/sweep.json" --cmdline payload=stop-at-ebs "$PAYLOAD"
selected sweep-baseline-differs &&
    python3 -c 'import json,sys; m = json.load(open(sys.argv[1])); c = [x for x in m["cells"] if x["fault"] == "ebs-stale-key"][0]; c["outcome"] = "crashed"; json.dump(m, open(sys.argv[2], "w"))' \
        "$OUT/sweep.json" "$OUT/sweep-changed.json"
expect sweep-baseline-differs 9 'cell ebs-stale-key[^ ]*: retried, the baseline says crashed' \
    -- "$HO" --timeout 60 --fault-sweep --sweep-baseline "$OUT/sweep-changed.json" --cmdline payload=stop-at-ebs "$PAYLOAD"
# A baseline cell the run does not make (a call that is gone) differs too,
# in a whole sweep and in the shard that would have made it.
{ selected sweep-baseline-cell-gone || selected sweep-baseline-cell-gone-shard; } &&
    python3 -c 'import json,sys; m = json.load(open(sys.argv[1])); c = dict(m["cells"][-1]); c["inject"] = "alloc-pool-fail:999"; m["cells"] += [c] * 2; json.dump(m, open(sys.argv[2], "w"))' \
        "$OUT/sweep.json" "$OUT/sweep-gone.json"
expect sweep-baseline-cell-gone 9 'cell alloc-pool-fail:999: absent, the baseline says' '2 that differ from the baseline' \
    -- "$HO" --timeout 60 --fault-sweep --sweep-baseline "$OUT/sweep-gone.json" --cmdline payload=stop-at-ebs "$PAYLOAD"
expect sweep-baseline-cell-gone-shard 9 'cell alloc-pool-fail:999: absent, the baseline says' '1 that differ from the baseline' \
    -- "$HO" --timeout 60 --fault-sweep --shard 1/2 --sweep-baseline "$OUT/sweep-gone.json" --cmdline payload=stop-at-ebs "$PAYLOAD"
# The sweep runs sandboxed too (its own allow-list, since it makes VMs):
# this is where that list is shown to hold all a real sweep needs.
if selected sweep-sandboxed; then
"$HO" --timeout 120 --fault-sweep --sweep-memory 16M --cmdline "payload=stop-at-ebs payload.hog=40" "$PAYLOAD" \
    >"$OUT/sweep-sb.log" 2>&1 &
pid=$!
seen=
for _ in $(seq 600); do
    grep -q '^Seccomp:[[:space:]]*2' "/proc/$pid/status" 2>/dev/null && { seen=1; break; }
    grep -q 'seccomp filter not installed' "$OUT/sweep-sb.log" && { seen=san; break; }
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
done
wait "$pid"
rc=$?
if [ "$seen" = san ]; then skip sweep-sandboxed "sanitizer build: the filter is off"
elif [ "$seen" = 1 ] && [ $rc = 0 ]; then pass sweep-sandboxed
else fail sweep-sandboxed "filter seen: ${seen:-no}, exit status $rc" "$OUT/sweep-sb.log"; fi
fi
expect sweep-matrix-dir 2 '--fault-sweep .*: Is a directory' -- "$HO" --fault-sweep="$OUT" "$PAYLOAD"
expect bad-fail-on 2 '--fail-on crashy: unknown outcome' -- "$HO" --fault-sweep --fail-on crashy "$PAYLOAD"
expect bad-cell-timeout 2 '--cell-timeout 0: give whole seconds' -- "$HO" --fault-sweep --cell-timeout 0 "$PAYLOAD"
expect bad-shard 2 '--shard 3/2: give K/N with 1 <= K <= N' -- "$HO" --fault-sweep --shard 3/2 "$PAYLOAD"
expect shard-needs-sweep 2 '--shard needs --fault-sweep' -- "$HO" --shard 1/2 "$PAYLOAD"
expect cell-timeout-needs-sweep 2 '--cell-timeout needs --fault-sweep' -- "$HO" --cell-timeout 5 "$PAYLOAD"
# A guest that dirties memory between calls cannot make the sweep's
# snapshots grow without bound: past --sweep-memory the later calls are
# not swept, and the sweep still reports what it has.
expect fault-sweep-memory-budget 0 'snapshot budget .* is spent at call' 'fault sweep: .* cells' \
    -- "$HO" --timeout 120 --fault-sweep --sweep-memory 32M --cmdline "payload=stop-at-ebs payload.hog=16" "$PAYLOAD"
expect bad-sweep-memory 2 '--sweep-memory lots: give a size' -- "$HO" --sweep-memory lots "$PAYLOAD"
# A signal mid-run ends it with 128 + N, a whole report naming the reason,
# a trace of whole lines, and no verdict on a fault (it said not-injected,
# or crashed once the fault had fired: the status 128 + N).
for sig in TERM INT; do
    selected "signal-$sig" || continue
    "$HO" --timeout 120 --report "$OUT/sig-$sig.json" --trace-efi="$OUT/sig-$sig.trace" --cmdline payload=loop \
        --stop-at ebs --inject getvar-error "$PAYLOAD" >"$OUT/sig-$sig.log" 2>&1 &
    pid=$!
    for _ in $(seq 120); do grep -q 'payload: looping' "$OUT/sig-$sig.log" && break; sleep 0.5; done
    kill -"$sig" "$pid"
    wait "$pid"
    rc=$?
    want=$((128 + $(kill -l "$sig")))
    if [ "$rc" != "$want" ]; then fail "signal-$sig" "exit status $rc, expected $want" "$OUT/sig-$sig.log"
    elif ! python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["end_reason"] == "signal", r["end_reason"]; [json.loads(l) for l in open(sys.argv[2])]' \
            "$OUT/sig-$sig.json" "$OUT/sig-$sig.trace" 2>"$OUT/sig-$sig.py"; then
        fail "signal-$sig" "report or trace not whole" "$OUT/sig-$sig.py"
    elif ! grep -q "end: signal, exit status $want" "$OUT/sig-$sig.log"; then
        fail "signal-$sig" "no final end line" "$OUT/sig-$sig.log"
    elif ! grep -q "fault outcome: getvar-error: not judged: the run was stopped by signal $((want - 128))" \
            "$OUT/sig-$sig.log"; then
        fail "signal-$sig" "a fault judged in a run a signal stopped" "$OUT/sig-$sig.log"
    else pass "signal-$sig"; fi
done

# A signal in the middle of a sweep ends the sweep, not only its cell.
if selected signal-sweep; then
"$HO" --timeout 120 --fault-sweep --cmdline "payload=stop-at-ebs payload.hog=2" "$PAYLOAD" >"$OUT/sig-sweep.log" 2>&1 &
pid=$!
for _ in $(seq 600); do grep -q 'fault sweep: 2/' "$OUT/sig-sweep.log" && break; sleep 0.1; done
kill -TERM "$pid"
wait "$pid"
rc=$?
if [ "$rc" = 143 ] && grep -q 'fault sweep: cell [0-9]* of [0-9]* not judged: the run was stopped by signal 15: no matrix' "$OUT/sig-sweep.log" &&
   grep -q 'end: signal, exit status 143' "$OUT/sig-sweep.log"; then pass signal-sweep
else fail signal-sweep "exit status $rc, expected 143 with the sweep stopped" "$OUT/sig-sweep.log"; fi
fi

# Without /dev/kvm: a clear message and the host-problem status.
if ! selected no-dev-kvm; then :
elif command -v unshare >/dev/null && [ "$(id -u)" = 0 ]; then
    expect no-dev-kvm 3 '/dev/kvm does not exist' \
        -- unshare -m sh -c "mount -t tmpfs none /dev && exec $(realpath "$HO") $PAYLOAD"
else
    skip no-dev-kvm "needs root and unshare to hide /dev/kvm"
fi

summary
