# shellcheck shell=bash
# The real-KVM tier, sourced by tests/integration/kernel.sh HANDOVER realkvm.
# Needs a KVM with hardware semantics (kvm_intel or kvm_amd): the guest's
# CPUID, clock and interrupts are then only what handover sets up, and guest
# user space runs. `make test` runs it through scripts/kvm-host, which
# starts an L1 with kvm_amd where this machine has no such KVM.

if [ ! -d /sys/module/kvm_intel ] && [ ! -d /sys/module/kvm_amd ]; then
    skip realkvm "this /dev/kvm is not a hardware KVM (no kvm_intel or kvm_amd): run through scripts/kvm-host"
    summary; exit
fi
# No boot here may need what only an emulating KVM needs.
NATIVE=('!emulation fallback' '!added noxsave')

# --exec boots to user space: the command's status comes back exactly, its
# output is on stdout, and the UART's interrupt (IRQ 4 on the IOAPIC) drains
# the tty. NAME KERNEL [OPTION...]
exec_boots() {
    local name=$1 K=$2; shift 2
    expect "$name-exec-0" 0 '^exec-out: hello' 'Hypervisor detected: KVM' 'kvm-clock: ' 'efi: RTPROP=0x' \
        'IO-APIC +4-edge +ttyS0' "${NATIVE[@]}" '!tsc: Unable to calibrate' \
        'milestone: exit_boot_services at' 'milestone: linux_banner at' 'milestone: run_init at' \
        -- "$HO" --timeout 300 "$@" --exec 'echo exec-out: hello; grep ttyS0 /proc/interrupts' "$K"
    expect "$name-exec-3" 3 '^exec-out: failing' "${NATIVE[@]}" \
        -- "$HO" --timeout 300 "$@" --report "$OUT/$name-exec-3.json" --exec 'echo exec-out: failing; exit 3' "$K"
    expect "$name-exec-3-report" 0 '^3 guest-status$' \
        -- python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); print(r["exec"]["status"], r["end_reason"])' \
           "$OUT/$name-exec-3.json"
}

# --exec-output: the command's stdout and stderr, byte for byte, in the
# file and not on the console, through COM2 (ttyS1 on IRQ 3: without its
# interrupt the tty sends nothing); the status still comes through the
# console. NAME KERNEL [OPTION...]
exec_output() {
    local name=$1 K=$2; shift 2
    local f="$OUT/$name-exec-output.txt"
    expect "$name-exec-output" 3 'ttyS1 at I/O 0x2f8 .*is a 16550A' 'handover-init: command exited with status 3' \
        '!out-line' '!err-line' "${NATIVE[@]}" \
        -- "$HO" --timeout 300 "$@" --report "$OUT/$name-exec-output.json" \
           --exec 'echo out-line; echo err-line >&2; exit 3' --exec-output "$f" "$K"
    expect "$name-exec-output-file" 0 '^exact$' \
        -- bash -c 'printf "out-line\nerr-line\n" | cmp - "$1" && echo exact' _ "$f"
    expect "$name-exec-output-report" 0 '^3 ok$' \
        -- python3 -c 'import json,sys; e = json.load(open(sys.argv[1]))["exec"]; print(e["status"], "ok" if e["output_file"] == sys.argv[2] else e["output_file"])' \
           "$OUT/$name-exec-output.json" "$f"
}

# --esp: boot chains from a host folder, as from an ESP. The initrds carry
# the command to run (/handover/cmd, a second archive after the
# initramfs), so that the kernel gets them from the folder, not from
# handover. KERNEL GRUB (GRUB: make-grub.sh's, or empty)
esp_initrd() {   # esp_initrd FILE COMMAND: the initramfs with /handover/cmd = COMMAND
    mkdir -p "$OUT/esp-cmd/handover"
    printf '%s' "$2" > "$OUT/esp-cmd/handover/cmd"
    (cd "$OUT/esp-cmd" && printf 'handover\nhandover/cmd\n' | cpio -o -H newc --quiet) > "$OUT/esp-cmd.cpio"
    cat "$INITRAMFS" "$OUT/esp-cmd.cpio" > "$1"
}
esp_boots() {
    local K=$1 G=$2 E
    # The kernel's own initrd= (drivers/firmware/efi/libstub/file.c),
    # through the PE entry: the stub opens it on the LoadedImage's
    # DeviceHandle, the volume the kernel lies on (leading '\' dropped).
    E=$OUT/esp-pe
    mkdir -p "$E/boot"
    cp "$K" "$E/vmlinuz"
    esp_initrd "$E/boot/initrd.img" 'echo exec-out: initrd from the esp; exit 3'
    expect esp-pe-initrd-option 3 '^exec-out: initrd from the esp' 'Kernel command line: .*initrd=\\boot\\initrd.img' \
        'guest wrote 3 to the exit port' "${NATIVE[@]}" \
        -- "$HO" --timeout 300 --esp "$E" --entry pe --trace-efi="$OUT/esp-pe.trace" \
           --cmdline 'console=ttyS0 earlyprintk=serial initrd=\boot\initrd.img' "$E/vmlinuz"
    expect esp-pe-initrd-read 0 '"call":"File.Read".*"status":"EFI_SUCCESS"' \
        '"call":"File.Open","args":\[[^]]*\],"status":"EFI_SUCCESS".*"path":"boot\\\\initrd.img"' \
        -- cat "$OUT/esp-pe.trace"
    # systemd-boot (systemd-boot-efi) as \EFI\BOOT\BOOTX64.EFI: it reads
    # loader/loader.conf and loader/entries/*.conf, loads the kernel with
    # LoadImage(HD(...)/File(\vmlinuz)) and hands it the initrd through its
    # own LoadFile2.
    local sdboot=/usr/lib/systemd/boot/efi/systemd-bootx64.efi
    if [ -f "$sdboot" ]; then
        E=$OUT/esp-sdboot
        mkdir -p "$E/EFI/BOOT" "$E/loader/entries"
        cp "$sdboot" "$E/EFI/BOOT/BOOTX64.EFI"
        cp "$K" "$E/vmlinuz"
        esp_initrd "$E/initrd.img" 'echo exec-out: behind systemd-boot; exit 3'
        printf 'timeout 0\n' > "$E/loader/loader.conf"
        printf 'title handover\nlinux /vmlinuz\ninitrd /initrd.img\noptions console=ttyS0 earlyprintk=serial\n' \
            > "$E/loader/entries/handover.conf"
        expect esp-systemd-boot 3 '^exec-out: behind systemd-boot' \
            'Loaded initrd from LINUX_EFI_INITRD_MEDIA_GUID device path' 'guest wrote 3 to the exit port' \
            "${NATIVE[@]}" -- "$HO" --timeout 300 --esp "$E" --trace-efi="$OUT/esp-sdboot.trace" \
                                 "$E/EFI/BOOT/BOOTX64.EFI"
        expect esp-systemd-boot-load-image 0 '"call":"LoadImage".*"status":"EFI_SUCCESS"' \
            '"call":"File.Open".*"path":"\\\\loader\\\\entries"' -- cat "$OUT/esp-sdboot.trace"
    else
        skip esp-systemd-boot "no $sdboot (apt-get install systemd-boot-efi)"
    fi
    # shim (shim-unsigned, Secure Boot off) as \EFI\BOOT\BOOTX64.EFI loads
    # grubx64.efi from its own directory through the volume, and GRUB the
    # kernel (from its memdisk); the --exec initramfs through handover's
    # LoadFile2.
    local shim=/usr/lib/shim/shimx64.efi
    if [ -f "$shim" ] && [ -n "$G" ]; then
        E=$OUT/esp-shim
        mkdir -p "$E/EFI/BOOT"
        cp "$shim" "$E/EFI/BOOT/BOOTX64.EFI"
        cp "$G" "$E/EFI/BOOT/grubx64.efi"
        expect esp-shim-grub 3 'Welcome to GRUB!' '^exec-out: behind shim' 'milestone: run_init at' "${NATIVE[@]}" \
            -- "$HO" --timeout 300 --esp "$E" --trace-efi="$OUT/esp-shim.trace" --initrd "$INITRAMFS" \
               --exec 'echo exec-out: behind shim; exit 3' "$E/EFI/BOOT/BOOTX64.EFI"
        expect esp-shim-grub-read 0 '"call":"File.Open","args":\[[^]]*\],"status":"EFI_SUCCESS".*"path":"\\\\EFI\\\\BOOT\\\\grubx64.efi"' \
            -- cat "$OUT/esp-shim.trace"
    else
        skip esp-shim-grub "no $shim (apt-get install shim-unsigned) or no GRUB"
    fi
}

# Measured boot (--tpm, docs/measured-boot.md), to ExitBootServices. The
# kernel's stub measures the initrd it gets through LoadFile2 into PCR 9
# (6.1's efi_load_initrd); systemd-stub measures the UKI's sections into
# PCR 11, which systemd-measure computes from the same files. tpm2_eventlog
# (tpm2-tools) replays each log; measured-boot-check.py compares. KERNEL
measured_boots() {
    local K=$1 uki dir=$OUT/measured
    mkdir -p "$dir"
    head -c 65536 /dev/urandom > "$dir/initrd.bin"
    expect tpm-stub-initrd 0 'end: stop-at-ebs, exit status 0' \
        -- "$HO" --timeout 600 --tpm --tpm-log "$dir/stub.tpmlog" --report "$dir/stub.json" --initrd "$dir/initrd.bin" \
           --initrd-via loadfile2 --stop-at ebs --trace-efi="$dir/stub.trace" "$K"
    expect tpm-stub-initrd-pcr9 0 '^measured boot ok: 17 events; PCRs 0, 1, 2, 3, 4, 5, 6, 7, 9 replayed' \
        -- "$TOP/tests/integration/measured-boot-check.py" "$dir/stub.tpmlog" "$dir/stub.json" 9=file:"$dir/initrd.bin"
    expect tpm-stub-event-log-table 0 '"guid":"LINUX_EFI_TPM_EVENT_LOG"' -- cat "$dir/stub.trace"
    # The faults: the stub warns about a failed measurement (or a full log)
    # and boots on;
    # without the protocol it measures nothing (and asks again for the log:
    # retried).
    expect tpm-inject-extend-fail 0 'injected fault tpm-extend-fail: Tcg2.HashLogExtendEvent returns EFI_DEVICE_ERROR' \
        'Failed to measure data for event 0: 0x8000000000000007' 'fault outcome: tpm-extend-fail: fell-back' \
        -- "$HO" --timeout 600 --tpm --inject tpm-extend-fail --initrd "$dir/initrd.bin" --initrd-via loadfile2 \
           --stop-at ebs "$K"
    expect tpm-inject-log-full 0 'injected fault tpm-log-full: Tcg2.HashLogExtendEvent returns EFI_VOLUME_FULL' \
        'Failed to measure data for event 0: 0x800000000000000b' 'fault outcome: tpm-log-full: fell-back' \
        -- "$HO" --timeout 600 --tpm --inject tpm-log-full --initrd "$dir/initrd.bin" --initrd-via loadfile2 \
           --stop-at ebs "$K"
    expect tpm-inject-no-tpm 0 'injected fault no-tpm: LocateProtocol returns EFI_NOT_FOUND' \
        'fault outcome: no-tpm: retried' '!Tcg2\.' \
        -- "$HO" --timeout 600 --tpm --inject no-tpm --initrd "$dir/initrd.bin" --initrd-via loadfile2 --stop-at ebs \
           --trace-efi "$K"
    if ! uki=$(golden_uki "$K" "$dir" 2>"$dir/make-uki.log"); then
        skip tpm-uki "could not build the UKI: $(tail -n 1 "$dir/make-uki.log")"
        return
    fi
    # make-uki.sh's .osrel and .cmdline, byte for byte.
    printf 'ID=handover\nPRETTY_NAME="handover UKI"\n' > "$dir/os-release"
    printf '%s\n' "$GOLDEN_CMDLINE" > "$dir/cmdline.txt"
    local pcr11
    pcr11=$(/usr/lib/systemd/systemd-measure calculate --linux="$K" --osrel="$dir/os-release" \
            --cmdline="$dir/cmdline.txt" --initrd="$dir/uki-initrd.bin" --bank=sha256 --phase= 2>"$dir/measure.log" |
            sed -n 's/^11:sha256=//p')
    expect tpm-uki 0 'end: stop-at-ebs, exit status 0' \
        -- "$HO" --timeout 600 --tpm --tpm-log "$dir/uki.tpmlog" --report "$dir/uki.json" --stop-at ebs "$uki"
    expect tpm-uki-pcr11 0 '^measured boot ok: .*PCRs 0, 1, 2, 3, 4, 5, 6, 7, 9, 11 replayed' \
        -- "$TOP/tests/integration/measured-boot-check.py" "$dir/uki.tpmlog" "$dir/uki.json" 11="${pcr11:-none}"
}

if ! INITRAMFS=$("$TOP/scripts/build-initramfs.sh" 2>"$OUT/initramfs.log"); then
    skip realkvm-exec "no initramfs: $(tail -n 1 "$OUT/initramfs.log")"
fi

# The tiny kernel: to user space, on 1, 2 and 4 vCPUs counted by the guest.
if K=$("$TOP/scripts/build-tiny-kernel.sh" 2>"$OUT/build.log"); then
    measured_boots "$K"
    [ -n "${INITRAMFS:-}" ] && exec_boots tiny "$K" --initrd "$INITRAMFS"
    if [ -n "${INITRAMFS:-}" ]; then
        exec_output tiny "$K" --initrd "$INITRAMFS"
        # A command that succeeded, but whose output could not be kept, fails the run.
        expect tiny-exec-output-full 3 '--exec-output /dev/full: write failed: No space left on device' \
            'end: output-write-failed, exit status 3' \
            -- "$HO" --timeout 300 --initrd "$INITRAMFS" --exec 'echo lost' --exec-output /dev/full "$K"
        # --console-limit holds the command's output too; the first byte left
        # out says so.
        expect tiny-exec-output-limit 0 '--exec-output: limit of 4 bytes reached' \
            -- "$HO" --timeout 300 --initrd "$INITRAMFS" --console-limit 4 --exec 'echo 0123456789' \
               --exec-output "$OUT/output-limit" "$K"
        expect tiny-exec-output-limit-file 0 '^exact$' \
            -- bash -c 'printf 0123 | cmp - "$1" && echo exact' _ "$OUT/output-limit"
        # A tty the guest has no UART for (ttyS2: nothing at 0x3e8): /init
        # says so and the output stays on the console.
        printf /dev/ttyS2 > "$OUT/output-ttyS2"
        expect tiny-exec-output-no-uart 0 'handover-init: cannot set up /dev/ttyS2 for --exec-output' '^kept: here' \
            -- "$HO" --timeout 300 --initrd "$INITRAMFS" --add "$OUT/output-ttyS2:/handover/output" \
               --exec 'echo kept: here' "$K"
    fi
    # GRUB in front, to user space: the kernel's command line is GRUB's
    # (make-grub.sh's default), the --exec initramfs comes through LoadFile2,
    # which the stub takes over GRUB's (it has none here).
    if [ -n "${INITRAMFS:-}" ] && G=$("$TOP/examples/make-grub.sh" "$K" 2>"$OUT/grub.log"); then
        expect tiny-grub-exec 3 'Welcome to GRUB!' 'Kernel command line: BOOT_IMAGE=/vmlinuz console=ttyS0' \
            '^exec-out: behind grub' 'milestone: run_init at' "${NATIVE[@]}" \
            -- "$HO" --timeout 300 --initrd "$INITRAMFS" --exec 'echo exec-out: behind grub; exit 3' "$G"
    elif [ -n "${INITRAMFS:-}" ]; then
        skip tiny-grub-exec "could not build GRUB: $(tail -n 1 "$OUT/grub.log")"
    fi
    # GRUB's `linux` (make-grub.sh --linux), as grub-mkconfig writes it:
    # GRUB calls ExitBootServices itself and enters the kernel through the
    # 32-bit boot protocol, past its stub. --stop-at ebs stops at that
    # entry and checks the e820 table GRUB built.
    if ! selected tiny-grub-linux-stop-at-ebs; then :
    elif GL=$("$TOP/examples/make-grub.sh" --linux --cmdline "console=ttyS0 nokaslr" "$K" 2>"$OUT/grub-linux.log"); then
        expect tiny-grub-linux-stop-at-ebs 0 'Welcome to GRUB!' 'ExitBootServices succeeded' \
            'the application called ExitBootServices itself, not a kernel.s stub' \
            'the boot loader entered the kernel at 0x[0-9a-f]+ \(code32_start, in 32-bit mode, paging off\)' \
            'type_of_loader +0x72' 'cmdline +"BOOT_IMAGE=/vmlinuz console=ttyS0 nokaslr"' 'signature EL64' \
            'e820-check: ok' 'end: stop-at-ebs, exit status 0$' \
            -- "$HO" --timeout 600 --stop-at ebs "$GL"
    else
        skip tiny-grub-linux-stop-at-ebs "could not build GRUB: $(tail -n 1 "$OUT/grub-linux.log")"
    fi
    # A UKI to user space: the command rides in the UKI's own .initrd (the
    # initramfs with /handover/cmd appended as a second archive), which the
    # kernel gets through systemd-stub's LoadFile2; handover's --exec would
    # install the firmware's LoadFile2 first, which the stub refuses. /init
    # still reports the status through the exit port.
    if [ -n "${INITRAMFS:-}" ]; then
        mkdir -p "$OUT/uki-cmd/handover"
        printf 'echo exec-out: in a uki; exit 3' > "$OUT/uki-cmd/handover/cmd"
        (cd "$OUT/uki-cmd" && printf 'handover\nhandover/cmd\n' | cpio -o -H newc --quiet) > "$OUT/uki-cmd.cpio"
        cat "$INITRAMFS" "$OUT/uki-cmd.cpio" > "$OUT/uki-initrd.cpio"
        if U=$("$TOP/examples/make-uki.sh" "$K" "$OUT/uki-initrd.cpio" 2>"$OUT/uki.log"); then
            expect tiny-uki-exec 3 'Loaded initrd from LINUX_EFI_INITRD_MEDIA_GUID device path' \
                'Kernel command line: console=ttyS0 earlyprintk=serial' '^exec-out: in a uki' \
                'handover-init: command exited with status 3' 'guest wrote 3 to the exit port' "${NATIVE[@]}" \
                -- "$HO" --timeout 300 "$U"
        else
            skip tiny-uki-exec "could not build the UKI: $(tail -n 1 "$OUT/uki.log")"
        fi
    fi
    [ -n "${INITRAMFS:-}" ] && esp_boots "$K" "${G:-}"
    # An installed handover works without the checkout: make install, then
    # --exec from another directory with an empty HOME, nothing prepared
    # (handover packs /init and the host's busybox itself).
    if make -s -C "$TOP" install DESTDIR="$OUT/inst" PREFIX=/usr >"$OUT/install.log" 2>&1; then
        expect installed-exec 3 '^installed: hello' 'end: guest-status, exit status 3' \
            -- env -C "$OUT" HOME="$OUT/home" PATH="$OUT/inst/usr/bin:$PATH" \
               handover --timeout 300 --exec "echo installed: hello; exit 3" "$K"
    else
        fail installed-exec "make install failed" "$OUT/install.log"
    fi
    # A wrong console= is not silence until the timeout: after
    # ExitBootServices the heartbeat says the console has been quiet.
    expect tiny-heartbeat-wrong-console 124 'heartbeat: [0-9]+ s, after ExitBootServices, no console output in the' \
        -- "$HO" --timeout 20 --cmdline console=ttyS1 "$K"
    # A guest that ends without reporting a status is never a success.
    expect tiny-exec-no-status 8 'the guest ended without reporting the command.s exit status' \
        -- "$HO" --timeout 300 --exec 'poweroff -f' "$K"
    for n in 2 4; do
        expect "tiny-cpus-$n" 0 "^guest-cpus: $n" "smp: Brought up 1 node, $n CPUs" "${NATIVE[@]}" \
            -- "$HO" --timeout 300 --cpus $n --exec 'echo guest-cpus: $(grep -c ^processor /proc/cpuinfo)' "$K"
    done
else
    skip tiny-realkvm "could not build the tiny kernel: $(tail -n 1 "$OUT/build.log")"
fi

# The tiny kernel without the handover entry (tests/kernel/nohandover.config)
# to user space, through the PE entry handover takes for it by default.
if ! KH=$("$TOP/scripts/build-tiny-kernel.sh" nohandover 2>"$OUT/build-nohandover.log"); then
    skip tiny-nohandover-exec "could not build the kernel without the handover entry: $(tail -n 1 "$OUT/build-nohandover.log")"
elif [ -n "${INITRAMFS:-}" ]; then
    expect tiny-nohandover-exec 0 '^exec-out: hello' 'booting through the PE entry' \
        'Loaded initrd from LINUX_EFI_INITRD_MEDIA_GUID device path' "${NATIVE[@]}" \
        -- "$HO" --timeout 300 --initrd "$INITRAMFS" --exec 'echo exec-out: hello' "$KH"
fi

# EFI mixed mode on a stock kernel (--firmware-bits 32): through the 32-bit
# handover entry and through the PE compat entry (.compat) to
# ExitBootServices, with the e820 table the stub built agreeing with the
# firmware's map, and to user space with --exec. The kernel boots on
# without runtime services: a 32-bit firmware's SetVirtualAddressMap is
# EFI_UNSUPPORTED, and the kernel says so and carries on. NAME KERNEL
mixed_boots() {
    local n=$1 K=$2 e loader
    for e in handover pe; do
        loader=0xff
        [ "$e" = pe ] && loader=0x21
        expect "realkvm-$n-mixed-stop-at-ebs-$e" 0 'ExitBootServices succeeded' 'signature EL32' \
            "type_of_loader +$loader" 'e820-check: ok' 'memattr-check: ok' "${NATIVE[@]}" \
            -- "$HO" --timeout 300 --firmware-bits 32 --entry "$e" --stop-at ebs --report "$OUT/$n-mixed-$e.json" "$K"
        expect "realkvm-$n-mixed-report-e820-$e" 0 'report ok' \
            -- "$TOP/tests/integration/report-check.py" "$OUT/$n-mixed-$e.json" EL32
        expect "realkvm-$n-mixed-exec-$e" 3 '^exec-out: mixed' 'efi: EFI v2\.[0-9]+ by handover' \
            'efi: Unable to switch EFI into virtual mode' 'handover-init: command exited with status 3' \
            'end: guest-status, exit status 3' "${NATIVE[@]}" \
            -- "$HO" --timeout 300 --firmware-bits 32 --entry "$e" --exec 'echo exec-out: mixed; exit 3' "$K"
    done
}

# The signed Debian chain under Secure Boot (docs/secure-boot.md; made by
# tests/sb-chain-fixtures.sh): keys of our own, shim-unsigned's shimx64.efi signed with their db key (sbsign)
# as \EFI\BOOT\BOOTX64.EFI, Debian's signed GRUB beside it, its grub.cfg
# where its embedded prefix looks (\EFI\debian) and Debian's signed 6.1
# kernel at the root. The firmware admits shim by db; shim admits GRUB by
# the vendor certificate it carries (Debian's CA), which no db holds; GRUB
# reads grub.cfg and the kernel through EFI_BLOCK_IO (the --esp folder as a
# GPT disk) and asks shim to verify the kernel, then enters its EFI
# handover entry; the kernel finds Secure Boot on and locks itself down.
# A kernel with one byte changed: GRUB says "bad shim signature", no kernel
# starts, and the run cannot pass (--exec: exit 8). A GRUB with one byte
# changed: shim refuses it ("Verification failed"), then looks for
# MokManager, which is not there: shim returns EFI_NOT_FOUND. An unsigned
# shim: the firmware refuses it. Straight from the firmware, with Debian's
# CA in db too: the signed kernel boots with Secure Boot on, the tampered
# one is refused with exit 5 and EFI_SECURITY_VIOLATION.
SBC=$OUT/sb-chain SB_SHIM=/usr/lib/shim/shimx64.efi SB_GRUB=/usr/lib/grub/x86_64-efi-signed/grubx64.efi.signed
SB_CA=/usr/share/shim/debian-uefi-ca.der
SB_KERNEL=$("$TOP/scripts/fetch-debian-kernels.sh" 2>/dev/null | grep debian-6.1/ || true)
SB_LOCKDOWN='mount -t securityfs none /sys/kernel/security; cat /sys/kernel/security/lockdown; exit 3'
if ! selected 'realkvm-sb-*'; then :
elif [ ! -f "$SB_SHIM" ] || [ ! -f "$SB_GRUB" ] || [ ! -f "$SB_CA" ]; then
    skip realkvm-sb-chain "no $SB_SHIM, $SB_GRUB or $SB_CA (apt-get install shim-unsigned grub-efi-amd64-signed)"
elif [ -z "$SB_KERNEL" ]; then
    skip realkvm-sb-chain "no Debian 6.1 kernel (scripts/fetch-debian-kernels.sh failed)"
elif ! "$TOP/tests/sb-chain-fixtures.sh" "$SBC" "$SB_KERNEL" > "$OUT/sb-chain-setup.log" 2>&1; then
    fail realkvm-sb-chain-setup "the keys, sbsign or the tampered images failed" "$OUT/sb-chain-setup.log"
else
    expect realkvm-sb-chain-kernel 3 'enrolled db, KEK, PK: user-mode' 'Welcome to GRUB!' \
        'EFI stub: UEFI Secure Boot is enabled' 'secureboot: Secure boot enabled' \
        'Kernel is locked down from EFI Secure Boot' '^none \[integrity\] confidentiality' \
        '!Verification failed' 'end: guest-status, exit status 3' \
        -- "$HO" --timeout 300 --secure-boot "$SBC/keys" --esp "$SBC/esp" --exec "$SB_LOCKDOWN" \
           --trace-efi="$OUT/sb-chain.trace" "$SBC/esp/EFI/BOOT/BOOTX64.EFI"
    # shim's own verification path: GRUB read through the volume and
    # loaded by shim itself (no LoadImage), its shim lock protocol
    # installed, and GRUB finding it; GRUB reading the disk.
    expect realkvm-sb-chain-shim-lock 0 \
        '"call":"InstallMultipleProtocolInterfaces","args":\[[^]]*\],"status":"EFI_SUCCESS".*"protocol":"SHIM_LOCK"' \
        '"call":"LocateProtocol","args":\[[^]]*\],"status":"EFI_SUCCESS".*"protocol":"SHIM_LOCK"' \
        '"call":"File.Open","args":\[[^]]*\],"status":"EFI_SUCCESS".*"path":"\\\\EFI\\\\BOOT\\\\grubx64.efi"' \
        '"call":"BlockIo.ReadBlocks","args":\[[^]]*\],"status":"EFI_SUCCESS"' \
        '!"call":"BlockIo.ReadBlocks","args":\[[^]]*\],"status":"EFI_[A-Z_]*ERROR' \
        -- cat "$OUT/sb-chain.trace"
    expect realkvm-sb-chain-kernel-tampered 8 'Welcome to GRUB!' 'error: bad shim signature' \
        'sb-chain: no kernel started' '!Linux version' 'end: exec-status-unknown, exit status 8' \
        -- "$HO" --timeout 300 --secure-boot "$SBC/keys" --esp "$SBC/kernel-tampered" --exec 'exit 0' \
           "$SBC/kernel-tampered/EFI/BOOT/BOOTX64.EFI"
    # The disk failing under GRUB from its 100th read, which is inside the
    # kernel (reads 10 to 261): GRUB says so and no kernel starts.
    expect realkvm-sb-chain-block-read-error 8 \
        'injected fault block-read-error: BlockIo.ReadBlocks returns EFI_DEVICE_ERROR' \
        "error: failure reading sector 0x[0-9a-f]+ from .hd0'" 'sb-chain: no kernel started' '!Linux version' \
        -- "$HO" --timeout 300 --secure-boot "$SBC/keys" --esp "$SBC/esp" --inject block-read-error@100 --exec 'exit 0' \
           "$SBC/esp/EFI/BOOT/BOOTX64.EFI"
    # shim's error box waits for a key (its OK): Enter.
    expect realkvm-sb-chain-grub-tampered 5 'Verification failed: \(0x1A\) Security Violation' '!Welcome to GRUB!' \
        'Failed to load image \\EFI\\BOOT\\mmx64.efi: Not Found' 'end: efi-exit, exit status 5, efi_status EFI_NOT_FOUND' \
        -- "$HO" --timeout 120 --keys '\n' --secure-boot "$SBC/keys" --esp "$SBC/tampered" \
           "$SBC/tampered/EFI/BOOT/BOOTX64.EFI"
    expect realkvm-sb-chain-shim-unsigned 5 'BOOTX64.EFI: Secure Boot refused the image \(EFI_SECURITY_VIOLATION\): not signed' \
        'end: not-started, exit status 5, efi_status EFI_SECURITY_VIOLATION' \
        -- "$HO" --timeout 120 --secure-boot "$SBC/keys" --esp "$SBC/unsigned" "$SBC/unsigned/EFI/BOOT/BOOTX64.EFI"
    expect realkvm-sb-kernel-signed 0 'enrolled db, KEK, PK: user-mode' 'EFI stub: UEFI Secure Boot is enabled' \
        'secure_boot +3' 'end: stop-at-ebs, exit status 0' \
        -- "$HO" --timeout 300 --secure-boot "$SBC/keys-debian" --stop-at ebs "$SB_KERNEL"
    expect realkvm-sb-kernel-tampered 5 \
        'vmlinuz: Secure Boot refused the image \(EFI_SECURITY_VIOLATION\): its signature is for another image' \
        '!EFI stub' 'end: not-started, exit status 5, efi_status EFI_SECURITY_VIOLATION' \
        -- "$HO" --timeout 120 --secure-boot "$SBC/keys-debian" "$SBC/kernel-tampered/vmlinuz"
fi

# Real EFI applications of Debian's packages (docs/efi-applications.md).
# memtest86+ is a bzImage that cannot be relocated and an EFI application:
# it runs as the application, at its ImageBase 0x200000, asks for the GOP
# handover does not serve, says it cannot set up its screen and halts.
MEMTEST=/boot/memtest86+x64.efi
if [ -f "$MEMTEST" ]; then
    expect memtest86-starts 4 'EFI application, entry at 0x[0-9a-f]+, image at 0x200000 ' \
        'the guest asked for EFI_GRAPHICS_OUTPUT_PROTOCOL, which handover does not serve' '^set_screen_info\(\) failed' \
        'HLT in the firmware phase with no timer armed' -- "$HO" --timeout 300 "$MEMTEST"
else
    skip memtest86-starts "no $MEMTEST (apt-get install memtest86+)"
fi
# Its IA-32 build is a PE32 application (Machine 0x14c): the IA-32
# firmware of --firmware-bits 32 runs it, in 32-bit protected mode, with
# the same ImageBase and the same end.
MEMTEST32=/boot/memtest86+ia32.efi
if [ -f "$MEMTEST32" ]; then
    expect memtest86-ia32-starts 4 'EFI application, entry at 0x[0-9a-f]+, image at 0x200000 ' \
        'the guest asked for EFI_GRAPHICS_OUTPUT_PROTOCOL, which handover does not serve' '^set_screen_info\(\) failed' \
        'HLT in the firmware phase with no timer armed' -- "$HO" --timeout 300 --firmware-bits 32 "$MEMTEST32"
else
    skip memtest86-ia32-starts "no $MEMTEST32 (apt-get install memtest86+)"
fi
# iPXE waits for Ctrl-B on its timer tick (a notify function; HLT in
# between), finds no network device (no PCI device here) and returns.
IPXE=/usr/lib/ipxe/ipxe.efi
if [ -f "$IPXE" ]; then
    expect ipxe-no-network 5 'iPXE initialising devices' 'the application halts the CPU \(HLT\) to wait for its timer' \
        'No more network devices' 'the image returned from its entry point with EFI_DEVICE_ERROR' \
        -- "$HO" --timeout 300 --trace-efi="$OUT/ipxe.trace" "$IPXE"
    expect ipxe-no-network-events 0 '"call":"CreateEvent".*"type":"EVT_SIGNAL_EXIT_BOOT_SERVICES"' \
        '"call":"NotifyFunction.Return"' -- cat "$OUT/ipxe.trace"
else
    skip ipxe-no-network "no $IPXE (apt-get install ipxe)"
fi

# efitools' HelloWorld draws its box with ConOut's cursor calls, waits for
# a key (WaitForEvent on WaitForKey) and returns.
HELLO=/usr/lib/efitools/x86_64-linux-gnu/HelloWorld.efi
if [ -f "$HELLO" ]; then
    expect efitools-helloworld 0 'This file is used to prove you have managed' \
        'the image returned from its entry point with EFI_SUCCESS' -- "$HO" --timeout 300 --keys '\n' "$HELLO"
else
    skip efitools-helloworld "no $HELLO (apt-get install efitools)"
fi

# KUnit: all pass, or the project's suite told to fail and named.
if KK=$("$TOP/scripts/build-tiny-kernel.sh" kunit 2>"$OUT/build-kunit.log"); then
    expect realkvm-kunit-pass 0 'kunit: handover_selftest +ok' 'kunit: 4 suites \(0 failed\)' "${NATIVE[@]}" \
        -- "$HO" --kunit --timeout 300 "$KK"
    expect realkvm-kunit-fail 1 'kunit: failed test: handover_selftest.handover_selftest_param_controlled' \
        'kunit: 4 suites \(1 failed\)' "${NATIVE[@]}" \
        -- "$HO" --kunit --timeout 300 --report "$OUT/kunit-fail.json" --cmdline "console=ttyS0 handover_selftest.fail=1" "$KK"
    expect realkvm-kunit-report 0 '^handover_selftest.handover_selftest_param_controlled complete$' \
        -- python3 -c 'import json,sys; k = json.load(open(sys.argv[1]))["kunit"]; print(" ".join(k["failed_tests"]), "complete" if k["complete"] and not k["passed"] else "wrong")' \
           "$OUT/kunit-fail.json"
    # The console is KTAP as the kernel printed it: the kernel's own
    # kunit.py parses handover's output (the source tree the tiny kernels
    # are built from has it). pipefail: a boot that failed fails the test,
    # whatever kunit.py makes of the console it left.
    KUNIT_PY=$(ls "${HANDOVER_CACHE:-$HOME/.cache/handover}"/src/linux-source-6.1-*/tools/testing/kunit/kunit.py 2>/dev/null | head -n 1)
    if [ -n "$KUNIT_PY" ]; then
        expect realkvm-kunit-py-parse 0 'Testing complete\. Ran [0-9]+ tests: passed: [0-9]+' '!failed: [1-9]' \
            -- bash -c 'set -o pipefail; "$1" --kunit --timeout 300 --kunit-json "$4/kunit-handover.json" "$2" 2>/dev/null |
                        tee "$4/kunit-console.txt" | python3 "$3" parse' _ "$HO" "$KK" "$KUNIT_PY" "$OUT"
        selected realkvm-kunit-json &&
            python3 "$KUNIT_PY" parse --json="$OUT/kunit-py.json" < "$OUT/kunit-console.txt" >/dev/null 2>&1
        expect realkvm-kunit-json 0 'kunit json agrees: 4 suites' \
            -- "$TOP/tests/integration/kunit-json-check.py" "$OUT/kunit-handover.json" "$OUT/kunit-py.json"
    else
        skip realkvm-kunit-py-parse "no kunit.py: the linux-source-6.1 tree is not in the cache"
    fi
else
    skip realkvm-kunit "could not build the KUnit kernel: $(tail -n 1 "$OUT/build-kunit.log")"
fi

# Stock Debian 6.1 and 6.12: both entries to ExitBootServices with their
# golden traces, a full boot with --exec, runtime services; a fault sweep
# over 6.12.
if KS=$("$TOP/scripts/fetch-debian-kernels.sh" 2>"$OUT/fetch.log"); then
    for K in $KS; do
        v=$(basename "$(dirname "$K")")
        stock_to_ebs "$K" 300
        for e in handover pe; do
            expect "$v-no-fallbacks-$e" 0 '"emulation_fallbacks": 0' -- cat "$OUT/$v-$e.json"
        done
        [ -n "${INITRAMFS:-}" ] && exec_boots "$v" "$K" --trace-efi="$OUT/$v-exec.trace"
        mixed_boots "${v#debian-}" "$K"
        # After SetVirtualAddressMap the kernel calls the runtime services
        # through its own mapping: the VMM translates its pointers.
        if ! selected "$v-runtime-services"; then :
        elif grep -q '"call":"SetVirtualAddressMap".*"status":"EFI_SUCCESS"' "$OUT/$v-exec.trace" 2>/dev/null &&
           grep -q '"phase":"runtime","call":"GetVariable"' "$OUT/$v-exec.trace"; then
            pass "$v-runtime-services"
        else
            fail "$v-runtime-services" "no successful SetVirtualAddressMap and runtime GetVariable in the trace" \
                "$OUT/$v-exec.trace"
        fi
    done
    # --add: a dynamically linked host program (built here) runs in the guest,
    # with its interpreter and libraries packed in beside it.
    K612=$(echo "$KS" | grep debian-6.12/)
    [ -n "${INITRAMFS:-}" ] && exec_output debian-6.12 "$K612" --initrd "$INITRAMFS"
    printf '#include <stdio.h>\nint main(void) { puts("dyn-hello: ok"); return 0; }\n' > "$OUT/dyn-hello.c"
    if gcc -o "$OUT/dyn-hello" "$OUT/dyn-hello.c" 2>"$OUT/gcc.log"; then
        expect debian-6.12-exec-add-dynamic 0 '^dyn-hello: ok' \
            -- "$HO" --timeout 300 --add "$OUT/dyn-hello" --exec ./dyn-hello "$K612"
        # The same into a merged-/usr initrd (/bin -> usr/bin, /lib -> usr/lib,
        # as initramfs-tools and dracut make them): the added libraries'
        # folders come as the host's symlinks, which keep the initrd's own,
        # so what it has in /lib is still there.
        if [ -n "${INITRAMFS:-}" ]; then
            mkdir -p "$OUT/merged/usr/lib"
            (cd "$OUT/merged" && cpio -id --quiet < "$INITRAMFS" && mv bin usr/bin && ln -s usr/bin bin &&
                ln -s usr/lib lib && echo 'marker: kept' > usr/lib/handover-marker &&
                find . -print0 | sort -z | cpio --null -o -H newc --owner=0:0 --quiet) > "$OUT/merged.cpio"
            expect debian-6.12-exec-add-merged-usr 0 '^marker: kept' '^dyn-hello: ok' \
                -- "$HO" --timeout 300 --initrd "$OUT/merged.cpio" --add "$OUT/dyn-hello" \
                   --exec 'cat /lib/handover-marker; ./dyn-hello' "$K612"
        fi
    else
        fail debian-6.12-exec-add-dynamic "gcc failed" "$OUT/gcc.log"
    fi
    stock_sweep "$K612" 300
else
    skip debian-kernels "could not fetch the Debian kernels: $(tail -n 1 "$OUT/fetch.log")"
fi
