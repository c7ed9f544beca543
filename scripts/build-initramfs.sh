#!/usr/bin/env bash
# Build a busybox initramfs for `handover --exec CMD --initrd FILE` (handover
# --exec without --initrd packs the same one itself): busybox-static plus the
# /init of scripts/handover-init.sh (installed as
# share/handover/handover-init.sh), which mounts the usual file systems, runs the command the VMM
# put in /handover/cmd (its stdout and stderr on the tty named in
# /handover/output if there is one: --exec-output), and reports its exit status through the exit-status
# port 0xf4 (docs/guest-abi.md): one byte written to /dev/port at offset
# 0xf4 (the kernel needs CONFIG_DEVPORT), after logging it through /dev/kmsg
# as "handover-init: command exited with status N [run ID]" (ID: the run's
# mark, /handover/run), which handover --exec also takes as the status (the
# only way on kernels without /dev/port, such as Debian's); then
# `poweroff -f` as a fallback.
# Result: $HANDOVER_CACHE/initramfs/busybox.cpio, by default
# ~/.cache/handover/initramfs/busybox.cpio (printed on stdout).
set -euo pipefail

cache=${HANDOVER_CACHE:-$HOME/.cache/handover}/initramfs
busybox=$(command -v busybox || true)
[ -n "$busybox" ] && file -L "$busybox" | grep -q 'statically linked' ||
    { echo "build-initramfs: need a static busybox: apt-get install busybox-static" >&2; exit 1; }
command -v cpio >/dev/null || { echo "build-initramfs: need cpio: apt-get install cpio" >&2; exit 1; }

here=$(dirname "$(readlink -f "$0")")
init=$here/handover-init.sh
[ -f "$init" ] || init=$here/../share/handover/handover-init.sh
[ -f "$init" ] || { echo "build-initramfs: no handover-init.sh beside $0 or in ../share/handover" >&2; exit 1; }

out=$cache/busybox.cpio
# The files' contents only, not their paths: the same archive is found
# whichever path this script is called by (a checkout, a worktree, the
# L1's view of this machine).
key=$(for f in "$0" "$init" "$busybox"; do sha256sum < "$f"; done | sha256sum | cut -c1-16)
if [ -s "$out" ] && [ "$(cat "$cache/KEY" 2>/dev/null)" = "$key" ]; then echo "$out"; exit 0; fi

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,dev,proc,sys,tmp,handover}
cp "$busybox" "$root/bin/busybox"
for applet in $("$busybox" --list); do [ "$applet" = busybox ] || ln -sf busybox "$root/bin/$applet"; done
cp "$init" "$root/init"
chmod +x "$root/init"
mkdir -p "$cache"
# A temporary name of this run's own, renamed when whole: two runs at once
# (or one cut short) never leave a part of an archive under $out.
part=$(mktemp "$out.part.XXXXXX")
trap 'rm -rf "$root" "$part"' EXIT
(cd "$root" && find . -print0 | sort -z | cpio --null -o -H newc --owner=0:0 --quiet) > "$part"
chmod 644 "$part"
mv "$part" "$out"
echo "$key" > "$cache/KEY"
echo "$out"
