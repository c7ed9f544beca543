#!/usr/bin/env bash
# bench/run.sh: handover against QEMU on this machine's KVM, same kernel,
# same command line, one VM at a time. See bench/README.md.
#
# usage: bench/run.sh [HANDOVER [PAYLOAD [KERNEL]]]
#   HANDOVER  default build/handover
#   PAYLOAD   default build/payload.bzImage (the synthetic EFI payload)
#   KERNEL    default: the tiny KUnit kernel (scripts/build-tiny-kernel.sh kunit)
# environment:
#   BENCH_RUNS=N       runs per kernel case (default 3)
#   BENCH_HOST_RUNS=N  runs per synthetic-payload command (default 30)
#   BENCH_CASES="..."  kernel cases to run (default all, see CASES below)
#   BENCH_OUT=FILE     results (default bench/results.json)
#   BENCH_WORK=DIR     logs of every run (default a new /tmp/handover-bench.*)
#   BENCH_BUDGET=SEC   from run 2 on, skip a run that would end past SEC seconds
#                      after the start (default 1500), judging by its last run
# Exit status 1 when a step failed or one of handover's runs did (the table
# and results then leave those runs out, and say which), 2 on a usage error.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
HO=$(realpath "${1:-$TOP/build/handover}")
PAYLOAD=$(realpath "${2:-$TOP/build/payload.bzImage}")
KERNEL=${3:-}
RUNS=${BENCH_RUNS:-3}
BUDGET=${BENCH_BUDGET:-1500}
HRUNS=${BENCH_HOST_RUNS:-30}
OUT=${BENCH_OUT:-$TOP/bench/results.json}
WORK=${BENCH_WORK:-$(mktemp -d /tmp/handover-bench.XXXXXX)}
CASES=${BENCH_CASES:-"handover-ebs handover-kunit handover-pe-kunit qemu-kvm-q35 qemu-kvm-microvm qemu-kvm-ovmf qemu-tcg-ovmf qemu-tcg-q35"}
CMDLINE="console=ttyS0 earlyprintk=serial noxsave kunit_shutdown=reboot"
TSRUN=(python3 "$TOP/bench/tsrun.py")
STEP_FAILED=
mkdir -p "$WORK"
: >"$WORK/runs.jsonl"
: >"$WORK/notes.txt"

say() { echo "bench: $*" >&2; }
note() { say "$*"; echo "$*" >>"$WORK/notes.txt"; }
have() { command -v "$1" >/dev/null 2>&1; }
ovmf_code() { for f in /usr/share/OVMF/OVMF_CODE_4M.fd /usr/share/OVMF/OVMF_CODE.fd; do [ -r "$f" ] && { echo "$f"; return; }; done; }

[ -x "$HO" ] || { say "no $HO (make it first)"; exit 2; }
[ -c /dev/kvm ] && [ -w /dev/kvm ] || { say "/dev/kvm missing or not writable: nothing to measure"; exit 0; }
START_LOAD=$(cat /proc/loadavg)
T_START=$(date +%s)
say "logs in $WORK; load at start: $START_LOAD"

# --- tools: install what is missing when root -------------------------------
want=()
have qemu-system-x86_64 || want+=(qemu-system-x86)
[ -n "$(ovmf_code)" ] || want+=(ovmf)
have hyperfine || want+=(hyperfine)
have valgrind || want+=(valgrind)
have perf || want+=(linux-perf)
have strace || want+=(strace)
if [ ${#want[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && have apt-get; then
        say "installing ${want[*]}"
        export DEBIAN_FRONTEND=noninteractive
        if ! apt-get install -y -q "${want[@]}" >"$WORK/apt.log" 2>&1; then
            apt-get update -q >>"$WORK/apt.log" 2>&1
            for p in "${want[@]}"; do
                apt-get install -y -q "$p" >>"$WORK/apt.log" 2>&1 || note "apt-get install $p failed (see $WORK/apt.log)"
            done
        fi
    else
        note "not root: not installing ${want[*]}; what needs them is skipped"
    fi
fi
OVMF_CODE=$(ovmf_code)
OVMF_VARS=""
case $OVMF_CODE in
    *_4M.fd) OVMF_VARS=/usr/share/OVMF/OVMF_VARS_4M.fd ;;
    *.fd) OVMF_VARS=/usr/share/OVMF/OVMF_VARS.fd ;;
esac
QEMU=$(command -v qemu-system-x86_64 || true)

PERF_EVENTS=""
if have perf && perf stat -x, -o "$WORK/perf-probe.txt" -e kvm:kvm_exit,kvm:kvm_userspace_exit -- "$HO" --quiet --cmdline "payload=exit=0 noxsave" "$PAYLOAD" >/dev/null 2>&1; then
    PERF_EVENTS=kvm:kvm_userspace_exit
else
    note "perf stat -e kvm:* does not work here: no exit counts"
fi

if [ -z "$KERNEL" ]; then
    KERNEL=$("$TOP/scripts/build-tiny-kernel.sh" kunit 2>"$WORK/kernel-build.log") ||
        { note "no KUnit kernel: $(tail -n 1 "$WORK/kernel-build.log"); kernel cases skipped"; KERNEL=""; CASES=""
          STEP_FAILED=1; }
fi

# --- host-side cost: the synthetic payload ----------------------------------
say "host-side: synthetic payload"
HOSTDIR=$WORK/host
mkdir -p "$HOSTDIR"
P_EXIT0=(--quiet --cmdline "payload=exit=0" "$PAYLOAD")
P_EXIT0_NOPROBE=(--quiet --cmdline "payload=exit=0 noxsave" "$PAYLOAD")
P_SERVICES=(--quiet --cmdline "payload=services" "$PAYLOAD")
pe_all=${PERF_EVENTS:+kvm:kvm_exit,kvm:kvm_userspace_exit,kvm:kvm_emulate_insn}
for what in exit0 services; do
    if [ $what = exit0 ]; then args=("${P_EXIT0[@]}"); else args=("${P_SERVICES[@]}"); fi
    "${TSRUN[@]}" --rss 1 ${pe_all:+--perf "$pe_all"} --count-lines "$HOSTDIR/$what.trace" \
        --milestone first_output=o:. --log "$HOSTDIR/$what.log" \
        -- "$HO" --trace-efi="$HOSTDIR/$what.trace" "${args[@]}" >"$HOSTDIR/$what.counted.json"
done
for i in $(seq 5); do
    "${TSRUN[@]}" --milestone first_output=o:. -- "$HO" "${P_EXIT0[@]}" >>"$HOSTDIR/exit0.first.jsonl"
done
# A word of hyperfine's command line (split as a shell would, with -N too):
# single-quoted, so that a path with a space or a quote stays one word.
sq() { printf "'%s'" "${1//\'/\'\\\'\'}"; }
if have hyperfine; then
    hyperfine -N --style basic --warmup 3 --runs "$HRUNS" --export-json "$HOSTDIR/timing.json" \
        -n exit0 "$(sq "$HO") --quiet --cmdline 'payload=exit=0' $(sq "$PAYLOAD")" \
        -n exit0-noprobe "$(sq "$HO") --quiet --cmdline 'payload=exit=0 noxsave' $(sq "$PAYLOAD")" \
        -n services "$(sq "$HO") --quiet --cmdline 'payload=services' $(sq "$PAYLOAD")" >"$HOSTDIR/hyperfine.txt" 2>&1 ||
        { note "hyperfine failed: $(tail -n 2 "$HOSTDIR/hyperfine.txt")"; rm -f "$HOSTDIR/timing.json"; }
    TIMER=hyperfine
else
    TIMER=loop
    python3 - "$HRUNS" "$HOSTDIR/timing.json" "$HO" "$PAYLOAD" <<'PY'
import json, subprocess, sys, time, statistics
n, out, ho, pl = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
cmds = {'exit0': 'payload=exit=0', 'exit0-noprobe': 'payload=exit=0 noxsave', 'services': 'payload=services'}
res = []
for name, cl in cmds.items():
    ts = []
    for i in range(n + 3):
        t = time.monotonic()
        subprocess.run([ho, '--quiet', '--cmdline', cl, pl], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       check=True)   # a failed run leaves no timings
        if i >= 3:
            ts.append(time.monotonic() - t)
    res.append({'command': name, 'mean': statistics.mean(ts), 'median': statistics.median(ts),
                'min': min(ts), 'max': max(ts), 'stddev': statistics.pstdev(ts), 'times': ts})
json.dump({'results': res}, open(out, 'w'))
PY
fi
if have strace; then
    for i in 1 2 3; do
        strace -f -ttt -e trace=execve,openat,ioctl -o "$HOSTDIR/strace.$i.txt" "$HO" "${P_EXIT0[@]}" >/dev/null 2>&1
    done
fi
if have valgrind; then
    valgrind --tool=callgrind --callgrind-out-file="$HOSTDIR/callgrind.plain.out" "$HO" "${P_SERVICES[@]}" \
        >"$HOSTDIR/callgrind.plain.stdout" 2>"$HOSTDIR/callgrind.plain.stderr"
    echo $? >"$HOSTDIR/callgrind.plain.rc"
    "$TOP/bench/callgrind.sh" "$HOSTDIR" "$HO" "${P_SERVICES[@]}"
fi

# --- kernel cases -------------------------------------------------------------
# Milestones on the console (o) or stderr (e); ktap_end is built into tsrun.
MS=(--milestone 'ebs=e:ExitBootServices succeeded after'
    --milestone 'banner=o:Linux version'
    --milestone 'kcmdline=o:^Kernel command line:'
    --milestone 'memory=o:^Memory: '
    --milestone 'fpu=o:x86/fpu: '
    --milestone 'smp=o:smp: Brought up'
    --milestone 'ktap_start=o:^KTAP version'
    --milestone 'kunit_summary=o:^kunit: [0-9]+ suites'
    --milestone 'reset=o:reboot: (Restarting system|machine restart)')
Q_COMMON=(-cpu qemu64 -m 512M -nographic -no-reboot -kernel "$KERNEL" -append "$CMDLINE")

case_cmd() {   # case_cmd CASE RUN: sets CMD (argv) and EXTRA (tsrun options), or returns 1 to skip
    local c=$1 r=$2
    EXTRA=()
    case $c in
        handover-*)
            local entry=handover mode=(--kunit)
            case $c in *-pe-*) entry=pe ;; esac
            case $c in *-ebs*) mode=(--stop-at ebs) ;; esac
            CMD=("$HO" --timeout 900 --entry $entry "${mode[@]}" --trace-efi="$WORK/$c.$r.trace" --cmdline "$CMDLINE" "$KERNEL")
            EXTRA=(--timeout 960 --count-lines "$WORK/$c.$r.trace")
            case $c in *-counted) EXTRA+=(--perf "kvm:kvm_userspace_exit,kvm:kvm_emulate_insn") ;; esac
            ;;
        qemu-*)
            [ -n "$QEMU" ] || { note "$c: no qemu-system-x86_64: skipped"; return 1; }
            local accel=kvm machine=q35 fw=()
            case $c in qemu-tcg-*) accel=tcg ;; esac
            case $c in *-microvm) machine=microvm ;; esac
            case $c in *-ovmf)
                [ -n "$OVMF_CODE" ] || { note "$c: no OVMF: skipped"; return 1; }
                cp "$OVMF_VARS" "$WORK/$c.$r.vars.fd"
                fw=(-drive "if=pflash,format=raw,unit=0,readonly=on,file=$OVMF_CODE"
                    -drive "if=pflash,format=raw,unit=1,file=$WORK/$c.$r.vars.fd") ;;
            esac
            CMD=("$QEMU" -accel $accel -M $machine "${fw[@]}" "${Q_COMMON[@]}")
            # QEMU pauses the guest on a KVM internal error instead of exiting.
            EXTRA=(--timeout 600 --idle 120 --kill-on 'KVM internal error|emulation failure' --kill-grace 2)
            ;;
    esac
    case $c in *-counted) ;; *) [ -n "$PERF_EVENTS" ] && EXTRA+=(--perf "$PERF_EVENTS") ;; esac
    return 0
}

# Round robin (run 1 of every case, then run 2, ...) so that the other
# jobs on the machine weigh on every case alike.
declare -A LAST_WALL
fits() {   # fits SECONDS: would a run of that length end within the budget?
    [ $(( $(date +%s) - T_START + $1 )) -le "$BUDGET" ]
}
if [ -n "$CASES" ]; then
    for r in $(seq "$RUNS"); do
        for c in $CASES; do
            if [ "$r" -gt 1 ] && [ -n "${LAST_WALL[$c]:-}" ] && ! fits "${LAST_WALL[$c]}"; then
                note "$c run $r skipped: it would end past BENCH_BUDGET=${BUDGET}s (elapsed $(( $(date +%s) - T_START ))s, last run ${LAST_WALL[$c]}s)"
                continue
            fi
            case_cmd "$c" "$r" || continue
            say "$c run $r/$RUNS (load $(cut -d' ' -f1-3 /proc/loadavg))"
            "${TSRUN[@]}" --rss 1 "${MS[@]}" "${EXTRA[@]}" --log "$WORK/$c.$r.log" -- "${CMD[@]}" >"$WORK/one.json" ||
                { note "$c run $r: bench/tsrun.py failed: no result"; STEP_FAILED=1; continue; }
            python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d.update(case=sys.argv[2], run=int(sys.argv[3]), log=sys.argv[4], load=sys.argv[5]); print(json.dumps(d))' \
                "$WORK/one.json" "$c" "$r" "$WORK/$c.$r.log" "$(cut -d' ' -f1-3 /proc/loadavg)" >>"$WORK/runs.jsonl"
            LAST_WALL[$c]=$(python3 -c 'import json,sys; print(int(json.load(open(sys.argv[1]))["wall_s"]) + 1)' "$WORK/one.json")
            python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("bench:   rc=%s wall=%.1fs last=%s %s" % (d["rc"], d["wall_s"], d["last_milestone"], d["stopped"] or ""))' "$WORK/one.json" >&2
        done
    done
    # One extra handover run counting emulated instructions (perf slows it
    # down by half, so it is not among the timed runs).
    case " $CASES " in *" handover-ebs "*)
        if [ -n "$PERF_EVENTS" ] && ! fits $(( ${LAST_WALL[handover-ebs]:-30} * 3 / 2 )); then
            note "handover-ebs-counted skipped: it would end past BENCH_BUDGET=${BUDGET}s"
        elif [ -n "$PERF_EVENTS" ]; then
            c=handover-ebs-counted
            case_cmd $c 1
            say "$c (instruction count; not timed)"
            "${TSRUN[@]}" --rss 1 "${MS[@]}" "${EXTRA[@]}" --log "$WORK/$c.1.log" -- "${CMD[@]}" >"$WORK/one.json"
            python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d.update(case=sys.argv[2], run=1, log=sys.argv[3]); print(json.dumps(d))' \
                "$WORK/one.json" $c "$WORK/$c.1.log" >>"$WORK/runs.jsonl"
        fi ;;
    esac
fi

# --- facts about the machine and the VMMs -------------------------------------
python3 - "$WORK/meta.json" <<PY
import json, sys
json.dump({
  'date': '$(date -u +%Y-%m-%dT%H:%M:%SZ)',
  'duration_s': $(( $(date +%s) - T_START )),
  'loadavg_start': '$START_LOAD', 'loadavg_end': '$(cat /proc/loadavg)',
  'nproc': $(nproc), 'host_kernel': '$(uname -r)',
  'cpu': '''$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')''',
  'handover': '$HO', 'handover_version': '''$("$HO" --version 2>&1 | head -n1)''',
  'handover_git': '$(git -C "$TOP" rev-parse --short HEAD 2>/dev/null)$(git -C "$TOP" diff --quiet HEAD -- vmm loader firmware-stub 2>/dev/null || echo +dirty)',
  'qemu': '$QEMU', 'qemu_version': '''$([ -n "$QEMU" ] && "$QEMU" --version | head -n1)''',
  'ovmf_code': '$OVMF_CODE', 'ovmf_version': '$(dpkg-query -W -f='${Version}' ovmf 2>/dev/null)',
  'kernel': '$KERNEL', 'kernel_bytes': $( [ -n "$KERNEL" ] && stat -c %s "$KERNEL" || echo 0),
  'cmdline': '$CMDLINE', 'runs': $RUNS, 'host_runs': $HRUNS, 'timer': '$TIMER',
  'perf_events': '$PERF_EVENTS', 'payload': '$PAYLOAD', 'work': '$WORK',
}, open(sys.argv[1], 'w'), indent=1)
PY
python3 "$TOP/bench/summarize.py" "$WORK" "$OUT" || STEP_FAILED=1
[ -z "$STEP_FAILED" ] || { say "FAILED: a step or a run failed (above, and in $WORK)"; exit 1; }
