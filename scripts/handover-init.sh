#!/bin/busybox sh
# handover's /init for --exec (docs/guest-abi.md): handover packs it with the
# host's busybox when --exec has no --initrd (vmm/host/add_files.c), and
# scripts/build-initramfs.sh (handover-initramfs) into an archive of its own.
# The applets as links first: handover's archive has only /bin/busybox.
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
cmd=$(cat /handover/cmd 2>/dev/null)
# The run's mark, which the status line below carries so that handover
# tells it from a line the command prints (docs/guest-abi.md).
run=$(cat /handover/run 2>/dev/null)
# --snapshot (docs/guest-abi.md): no command in the archive. The ready line
# is where handover saves the VM (and where a restored one resumes); then
# handover sends "SEED LEN RUN\n" and LEN bytes of command on the console.
# Raw and without echo, so the bytes come as sent and are not printed.
# SEED reseeds the kernel's CRNG, or every restored guest would draw the
# same random numbers.
if [ -e /handover/snapshot-wait ]; then
    modes=$(stty -g 2>/dev/null)
    stty raw -echo 2>/dev/null
    line="handover-init: ready for a command"
    if [ -c /dev/kmsg ]; then echo "$line" > /dev/kmsg; else echo "$line"; fi
    read -r seed len run
    cmd=$(head -c "$len")
    stty "$modes" 2>/dev/null
    printf %s "$seed" | /handover/reseed ||
        echo "handover-init: could not reseed the random number generator: restored guests may repeat its numbers"
fi
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
line="handover-init: command exited with status $status [run $run]"
if [ -c /dev/kmsg ]; then echo "$line" > /dev/kmsg; else echo "$line"; fi
# The exit-status port: the byte written is the VMM's exit status.
printf "\\$(printf %o "$status")" | dd of=/dev/port bs=1 seek=244 count=1 2>/dev/null
poweroff -f
