#!/usr/bin/env bash
# bench/realkvm.sh: handover against QEMU on a KVM with hardware semantics,
# to user space and back. Run it through scripts/kvm-host, which
# gives a hardware KVM on any machine (make bench does). Every case boots the
# same kernel with the same initramfs (its /init prints one line and powers
# off at once) and the same command line, one VM at a time, round robin.
#
# usage: bench/realkvm.sh [HANDOVER]
# environment:
#   BENCH_RUNS=N      runs per case (default 5)
#   BENCH_KERNELS     "tiny debian-6.1 debian-6.12" (default all)
#   BENCH_CASES       subset of the cases below
#   BENCH_WORK=DIR    every run's time-stamped log (default a new /tmp dir)
#   BENCH_CMDLINE     the guest's command line (default "console=ttyS0 panic=-1":
#                     no quiet, since the banner and "Run /init" lines are the
#                     milestones, and quiet hides them)
# Each run appends one JSON line to runs.jsonl in $KVM_HOST_OUT (the
# directory scripts/kvm-host brings back) or else in BENCH_WORK, as it
# completes, so a crash of the host's QEMU keeps what ran before it.
# bench/summarize_realkvm.py makes the medians and ratios (make bench does).
#
# Cases, all with -nodefaults -no-user-config, no NIC, no option ROM, the same
# 8250 console on stdio, 512 MiB, one vCPU:
#   handover           handover, EFI handover entry
#   handover-pe        handover, PE/COFF entry
#   qemu-q35           QEMU q35 -kernel (SeaBIOS + linuxboot)
#   qemu-microvm       QEMU microvm -kernel (its default firmware,
#                      bios-microvm.bin, is qboot: Debian has no separate
#                      qboot package)
#   qemu-ovmf          QEMU q35 + OVMF (pflash code, a fresh VARS copy)
#                      -kernel: the kernel's EFI stub under real firmware; in
#                      the L1 only with QEMU's own irqchip (IRQCHIP_OFF below)
#   qemu-q35-irqchip-off  qemu-q35 the same way, to tell OVMF's cost apart
#   handover-uki       handover running the kernel as a UKI (examples/make-uki.sh:
#                      systemd-stub, the initramfs in .initrd, the command line
#                      in .cmdline): what systemd-stub costs beyond the kernel's stub
#   handover-grub      handover running GRUB (examples/make-grub.sh: standalone,
#                      linuxefi, the initramfs through initrdefi)
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
HO=$(realpath "${1:-$TOP/build/handover}")
RUNS=${BENCH_RUNS:-5}
KERNELS=${BENCH_KERNELS:-"tiny debian-6.1 debian-6.12"}
CASES=${BENCH_CASES:-"handover handover-pe handover-uki handover-grub qemu-q35 qemu-microvm qemu-ovmf qemu-q35-irqchip-off"}
WORK=${BENCH_WORK:-$(mktemp -d /tmp/handover-realkvm.XXXXXX)}
CMDLINE=${BENCH_CMDLINE:-"console=ttyS0 panic=-1"}
TSRUN=(python3 "$TOP/bench/tsrun.py")
mkdir -p "$WORK"
RUNS_FILE=${KVM_HOST_OUT:-$WORK}/runs.jsonl
say() { echo "bench-realkvm: $*" >&2; }
# A step that failed (a kernel missing, an image not built, a run whose
# timer failed): said when it happens; the exit status is 1 at the end.
STEP_FAILED=
step_failed() { say "$*"; STEP_FAILED=1; }

if [ ! -d /sys/module/kvm_amd ] && [ ! -d /sys/module/kvm_intel ]; then
    say "not a hardware KVM: run it through scripts/kvm-host (make bench does)"; exit 2
fi

# The initramfs: busybox, an /init that prints one line and powers off.
root=$WORK/initramfs
mkdir -p "$root"/{bin,dev,proc}
cp "$(command -v busybox)" "$root/bin/busybox"
ln -sf busybox "$root/bin/sh"
cat >"$root/init" <<'INIT'
#!/bin/sh
/bin/busybox mount -t devtmpfs devtmpfs /dev
/bin/busybox echo "bench: user space is up"
/bin/busybox poweroff -f
INIT
chmod +x "$root/init"
(cd "$root" && find . -print0 | sort -z | cpio --null -o -H newc --owner=0:0 --quiet) >"$WORK/initramfs.cpio"
INITRD=$WORK/initramfs.cpio

kernel_path() {
    case $1 in
        tiny) "$TOP/scripts/build-tiny-kernel.sh" 2>/dev/null ;;
        debian-*) k=${HANDOVER_CACHE:-$HOME/.cache/handover}/kernels/$1/vmlinuz; [ -r "$k" ] && echo "$k" ;;
    esac
}

ovmf=/usr/share/OVMF/OVMF_CODE_4M.fd
vars=/usr/share/OVMF/OVMF_VARS_4M.fd
QEMU_COMMON=(qemu-system-x86_64 -accel kvm -m 512M -smp 1 -nodefaults -no-user-config -display none
             -serial stdio -no-reboot)
# QEMU + OVMF aborts the L1's outer QEMU 7.2 (TCG's emulated SVM asserts in
# tcg_handle_interrupt) with KVM's in-kernel irqchip, and runs with the
# irqchip in QEMU (which needs KVM's paravirtual MSRs off: kvm=off). That is
# slower than the default, so qemu-q35-irqchip-off runs SeaBIOS the same way:
# OVMF's own cost is qemu-ovmf against it.
IRQCHIP_OFF=(-M q35,kernel-irqchip=off -cpu host,kvm=off)

# cmd_for CASE KERNEL: the command line of one run, as an array in CMD.
cmd_for() {
    case $1 in
        handover) CMD=("$HO" --timeout 300 --report "$WORK/report.json" --initrd "$INITRD" --cmdline "$CMDLINE" "$2") ;;
        handover-pe) CMD=("$HO" --timeout 300 --entry pe --report "$WORK/report.json" --initrd "$INITRD"
                          --cmdline "$CMDLINE" "$2") ;;
        handover-uki)
            app=$("$TOP/examples/make-uki.sh" "$2" "$INITRD" "$CMDLINE") || return 1
            CMD=("$HO" --timeout 300 --report "$WORK/report.json" "$app") ;;
        handover-grub)
            app=$("$TOP/examples/make-grub.sh" --cmdline "$CMDLINE" --initrd "$INITRD" "$2") || return 1
            CMD=("$HO" --timeout 300 --report "$WORK/report.json" "$app") ;;
        qemu-q35) CMD=("${QEMU_COMMON[@]}" -cpu host -M q35 -kernel "$2" -initrd "$INITRD" -append "$CMDLINE") ;;
        qemu-microvm) CMD=("${QEMU_COMMON[@]}" -cpu host -M microvm -kernel "$2" -initrd "$INITRD" -append "$CMDLINE") ;;
        qemu-ovmf)
            cp "$vars" "$WORK/vars.fd"
            CMD=("${QEMU_COMMON[@]}" "${IRQCHIP_OFF[@]}" -drive "if=pflash,format=raw,readonly=on,file=$ovmf"
                 -drive "if=pflash,format=raw,file=$WORK/vars.fd" -kernel "$2" -initrd "$INITRD" -append "$CMDLINE") ;;
        qemu-q35-irqchip-off)
            CMD=("${QEMU_COMMON[@]}" "${IRQCHIP_OFF[@]}" -kernel "$2" -initrd "$INITRD" -append "$CMDLINE") ;;
    esac
}

# Milestones, each the first line that shows it (stdout o, stderr e).
MILESTONES=(--milestone 'exit_boot_services=e:milestone: exit_boot_services'
            --milestone 'banner=o:Linux version '
            --milestone 'run_init=o:Run /init as init process'
            --milestone 'user_space=o:bench: user space is up'
            --milestone 'power_off=oe:reboot: Power down|guest powered off|ACPI S5')
perf_ok=
perf stat -e kvm:kvm_exit -x, true >/dev/null 2>&1 && perf_ok=1
[ -n "$perf_ok" ] || say "perf cannot count kvm:kvm_exit here: no exit counts"

# One run of a case; round "exits" is an extra, untimed run under perf
# record that counts kvm:kvm_exit by reason in each phase.
run_case() {
    local c=$1 kname=$2 K=$3 round=$4
    cmd_for "$c" "$K" || { step_failed "$kname $c: could not build its image: skipped"; return; }
    log=$WORK/$kname-$c-$round.log
    extra=(--rss 1)
    if [ "$round" = exits ]; then extra=(--exits-by-phase exit_boot_services,banner,run_init)
    elif [ -n "$perf_ok" ]; then extra+=(--perf kvm:kvm_exit); fi
    res=$("${TSRUN[@]}" --log "$log" "${MILESTONES[@]}" --timeout 300 --idle 120 "${extra[@]}" -- "${CMD[@]}") ||
        { step_failed "$kname $c round $round: bench/tsrun.py failed: no result"; return; }
    fw=null
    if [ "${c#handover}" != "$c" ] && [ -s "$WORK/report.json" ]; then
        fw=$(python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); print(json.dumps({k: r[k] for k in ("firmware_calls", "vm_exits", "vm_exits_by_phase", "phase_seconds", "host")}))' "$WORK/report.json")
        rm -f "$WORK/report.json"
    fi
    echo "{\"case\": \"$c\", \"kernel\": \"$kname\", \"round\": \"$round\", \"load\": \"$(cut -d' ' -f1-3 /proc/loadavg)\", \"handover\": $fw, \"run\": $res}" >>"$RUNS_FILE"
    say "$kname $c round $round: $(echo "$res" | python3 -c 'import json,sys; r=json.load(sys.stdin); print("rc", r["rc"], "wall", r["wall_s"], "s, last", r["last_milestone"])')"
}

for round in $(seq "$RUNS") ${perf_ok:+exits}; do
    for kname in $KERNELS; do
        K=$(kernel_path "$kname") && [ -n "$K" ] || { step_failed "no kernel $kname: skipped"; continue; }
        # A new order each round (the same for the same round number): a
        # case that always ran first, right after the previous kernel's QEMU
        # runs, carried that placement in every one of its runs.
        for c in $(printf '%s\n' $CASES | shuf --random-source=<(yes "$round")); do
            run_case "$c" "$kname" "$K" "$round"
        done
    done
done
# The firmware phase in host instructions per firmware call: one --stop-at
# ebs boot of each kernel under callgrind (bench/callgrind.sh).
for kname in $KERNELS; do
    K=$(kernel_path "$kname") && [ -n "$K" ] || continue
    d=${KVM_HOST_OUT:-$WORK}/callgrind-$kname
    mkdir -p "$d"
    "$TOP/bench/callgrind.sh" "$d" "$HO" --timeout 900 --stop-at ebs --report "$d/report.json" --initrd "$INITRD" \
        --cmdline "$CMDLINE" "$K"
    say "$kname: callgrind of the firmware phase, status $(cat "$d/callgrind.rc" 2>/dev/null)"
done
echo "${QEMU_COMMON[*]}" >"${KVM_HOST_OUT:-$WORK}/qemu-common-args"
say "runs in $RUNS_FILE"
[ -z "$STEP_FAILED" ] || { say "FAILED: a step failed (above)"; exit 1; }
