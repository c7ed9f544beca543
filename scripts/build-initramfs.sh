#!/usr/bin/env bash
# Build the busybox initramfs that `handover --exec CMD` boots: busybox-static
# plus an /init that mounts the usual file systems, runs the command the VMM
# put in /handover/cmd (its stdout and stderr on the tty named in
# /handover/output if there is one: --exec-output), and reports its exit status through the exit-status
# port 0xf4 (README "Guest ABI"): one byte written to /dev/port at offset
# 0xf4 (the kernel needs CONFIG_DEVPORT), after logging it through /dev/kmsg
# as "handover-init: command exited with status N", which handover --exec
# also takes as the status (the only way on kernels without /dev/port, such
# as Debian's); then `poweroff -f` as a fallback.
# Result: $HOME/.cache/handover/initramfs/busybox.cpio (printed on stdout).
set -euo pipefail

cache=${HANDOVER_CACHE:-$HOME/.cache/handover}/initramfs
busybox=$(command -v busybox || true)
[ -n "$busybox" ] && file -L "$busybox" | grep -q 'statically linked' ||
    { echo "build-initramfs: need a static busybox: apt-get install busybox-static" >&2; exit 1; }
command -v cpio >/dev/null || { echo "build-initramfs: need cpio: apt-get install cpio" >&2; exit 1; }

out=$cache/busybox.cpio
key=$( { sha256sum "$0" "$busybox"; } | sha256sum | cut -c1-16)
if [ -s "$out" ] && [ "$(cat "$cache/KEY" 2>/dev/null)" = "$key" ]; then echo "$out"; exit 0; fi

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,dev,proc,sys,tmp,handover}
cp "$busybox" "$root/bin/busybox"
for applet in $("$busybox" --list); do [ "$applet" = busybox ] || ln -sf busybox "$root/bin/$applet"; done
cat > "$root/init" <<'INIT'
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
cmd=$(cat /handover/cmd 2>/dev/null)
# --exec-output: the command's output on a UART of its own (ttyS1), byte
# for byte: -opost, or the tty would turn each \n into \r\n. The shell
# would exit on a failed `exec 3<>`, so stty tries the tty first.
out=$(cat /handover/output 2>/dev/null)
if [ -n "$out" ] && ! stty -F "$out" -opost 2>/dev/null; then
    echo "handover-init: cannot set up $out for --exec-output: the command's output goes to the console"
    out=
fi
if [ -n "$cmd" ] && [ -n "$out" ]; then
    exec 3<>"$out"
    sh -c "$cmd" >&3 2>&3 3>&-
    status=$?
    # Drained as the console is below, while it is still open.
    stty -F "$out" "$(stty -F "$out" -g)"
    exec 3>&-
elif [ -n "$cmd" ]; then
    sh -c "$cmd"
    status=$?
else
    echo "handover-init: no /handover/cmd; starting a shell"
    sh
    status=$?
fi
# The command's output must be on the wire before the status and the power
# off: the tty layer sends it from the UART's interrupt, and poweroff -f does
# not wait. Setting the console's own modes again goes through
# tcsetattr(TCSADRAIN), which returns once the UART has sent everything.
stty -F /dev/console "$(stty -F /dev/console -g 2>/dev/null)" 2>/dev/null
# The status through printk, which writes to the console synchronously and
# needs no interrupt; the console itself where there is no /dev/kmsg.
line="handover-init: command exited with status $status"
if [ -c /dev/kmsg ]; then echo "$line" > /dev/kmsg; else echo "$line"; fi
# The exit-status port: the byte written is the VMM's exit status.
printf "\\$(printf %o "$status")" | dd of=/dev/port bs=1 seek=244 count=1 2>/dev/null
poweroff -f
INIT
chmod +x "$root/init"
mkdir -p "$cache"
(cd "$root" && find . -print0 | sort -z | cpio --null -o -H newc --owner=0:0 --quiet) > "$out.tmp"
mv "$out.tmp" "$out"
echo "$key" > "$cache/KEY"
echo "$out"
