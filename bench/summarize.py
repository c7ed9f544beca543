#!/usr/bin/env python3
"""Turn the logs of bench/run.sh into bench/results.json and a table.
usage: summarize.py WORKDIR OUT.json"""
import glob
import json
import os
import re
import statistics
import subprocess
import sys

from callgrind_figures import callgrind_figures, read

WORK, OUT = sys.argv[1], sys.argv[2]
# What failed among handover's own runs and the bench's steps: reported at
# the end, and the exit status is 1 (the figures above come only from the
# runs that succeeded). QEMU's failed runs are findings of the comparison,
# listed with their case, not problems of the bench.
PROBLEMS = []
MILESTONES = ['ebs', 'banner', 'kcmdline', 'memory', 'fpu', 'smp', 'ktap_start', 'ktap_end',
              'kunit_summary', 'reset', 'exit']
LABEL = {
    'handover-ebs': 'handover, handover entry, --stop-at ebs',
    'handover-kunit': 'handover, handover entry, --kunit',
    'handover-pe-kunit': 'handover, PE entry, --kunit',
    'handover-ebs-counted': 'handover --stop-at ebs under perf (instruction count, not timed)',
    'qemu-kvm-q35': 'QEMU -accel kvm -M q35 -kernel (SeaBIOS, direct boot)',
    'qemu-kvm-microvm': 'QEMU -accel kvm -M microvm -kernel (direct boot)',
    'qemu-kvm-ovmf': 'QEMU -accel kvm -M q35 + OVMF, -kernel (EFI stub)',
    'qemu-tcg-ovmf': 'QEMU -accel tcg -M q35 + OVMF, -kernel (EFI stub)',
    'qemu-tcg-q35': 'QEMU -accel tcg -M q35 -kernel (direct boot)',
}
HO_RC = {0: 'ok', 1: 'test failed / check failed', 2: 'usage/image', 3: 'host problem', 4: 'guest crashed',
         5: 'image gave up', 6: 'kernel panic', 7: 'kunit incomplete', 124: 'timeout'}


def load(path, default=None):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return default


def stats(xs):
    xs = [x for x in xs if x is not None]
    if not xs:
        return None
    return {'n': len(xs), 'min': round(min(xs), 4), 'median': round(statistics.median(xs), 4),
            'max': round(max(xs), 4)}


def binary(path):
    if not path or not os.path.exists(path):
        return None
    try:
        ldd = subprocess.run(['ldd', path], capture_output=True, text=True).stdout
    except OSError:
        ldd = ''
    libs = [ln.split()[0] for ln in ldd.splitlines() if ln.strip() and 'linux-vdso' not in ln]
    return {'path': path, 'bytes': os.path.getsize(path), 'shared_libraries': len(libs), 'ldd': libs}


def failure_detail(log):
    """QEMU's KVM internal error dump: suberror, RIP/EIP and the faulting bytes."""
    txt = read(log)
    d = {}
    m = re.search(r'KVM internal error\. Suberror: (\d+)', txt)
    if m:
        d['kvm_internal_error_suberror'] = int(m.group(1))
    m = re.search(r'\b(RIP|EIP)=([0-9a-f]+)', txt)
    if m:
        d['ip'] = '0x' + m.group(2)
    m = re.search(r'Code=.*?<([0-9a-f]{2})>((?: [0-9a-f]{2}){0,4})', txt)
    if m:
        d['bytes_at_ip'] = (m.group(1) + m.group(2)).strip()
    m = re.search(r'CPL=(\d)', txt)
    if m:
        d['cpl'] = int(m.group(1))
    return d


def succeeded(r):
    """A run that ended by itself with status 0: only those give figures."""
    return r['rc'] == 0 and not r.get('stopped')


def summarize_case(name, all_runs):
    runs = [r for r in all_runs if succeeded(r)]
    c = {'label': LABEL.get(name, name), 'runs': len(all_runs), 'succeeded': len(runs), 'milestones_s': {},
         'failed_runs': [{'run': r.get('run'), 'rc': r['rc'], 'stopped': r.get('stopped'),
                          'last_milestone': r['last_milestone'], 'log': r.get('log')}
                         for r in all_runs if not succeeded(r)]}
    for ms in MILESTONES:
        vals = []
        for r in runs:
            if ms == 'exit':
                vals.append(r['wall_s'] if not r.get('stopped') else None)
            else:
                vals.append(r['milestones_s'].get(ms))
        s = stats(vals)
        if s:
            c['milestones_s'][ms] = s
    fails = stats([r['milestones_s'].get('failure') for r in all_runs])
    if fails:
        c['failure_s'] = fails
    c['wall_s'] = stats([r['wall_s'] for r in runs])
    c['peak_rss_kib'] = stats([r.get('peak_rss_kib') for r in runs])
    c['cpu_user_s'] = stats([r.get('user_s') for r in runs])
    c['cpu_sys_s'] = stats([r.get('sys_s') for r in runs])
    c['last_milestone'] = sorted({r['last_milestone'] or 'none' for r in all_runs})
    c['rc'] = sorted({r['rc'] for r in all_runs})
    c['stopped'] = sorted({r['stopped'] for r in all_runs if r.get('stopped')})
    c['last_console_line'] = all_runs[-1]['last_console_line']
    c['loadavg_during'] = [r.get('load') for r in all_runs]
    ue = [r.get('perf', {}).get('kvm:kvm_userspace_exit') for r in runs]
    if any(isinstance(x, int) for x in ue):
        c['userspace_exits'] = stats([x for x in ue if isinstance(x, int)])
    ei = [r.get('perf', {}).get('kvm:kvm_emulate_insn') for r in runs]
    if any(isinstance(x, int) for x in ei):
        c['emulated_instructions'] = stats([x for x in ei if isinstance(x, int)])
    if name.startswith('handover'):
        c['firmware_calls_total'] = stats([r.get('trace_lines') for r in runs])
        ebs = []
        for r in runs:
            m = re.search(r'ExitBootServices succeeded after (\d+) firmware calls', read(r['log']))
            ebs.append(int(m.group(1)) if m else None)
        c['firmware_calls_to_ebs'] = stats(ebs)
        c['outcome'] = ', '.join(f'rc={x} {HO_RC.get(x, "guest exit code")}' for x in c['rc'])
        fb = sorted(set(re.findall(r'emulation fallback: (\S+)', read(all_runs[-1]['log']))))
        if fb:
            c['emulation_fallbacks_used'] = fb
    else:
        det = failure_detail(all_runs[-1]['log'])
        if det:
            c['failure'] = det
        if c['stopped']:
            why = c['stopped'][0]
            if 'KVM internal error' in why or 'emulation failure' in why:
                c['outcome'] = 'KVM emulation failure'
                if det.get('bytes_at_ip'):
                    c['outcome'] += f" at {det.get('ip', '?')} (bytes {det['bytes_at_ip']})"
                if fails:
                    c['outcome'] += f" after {fails['median']:.1f} s"
                c['outcome'] += '; QEMU paused the guest, stopped by the bench'
            else:
                c['outcome'] = why
        else:
            c['outcome'] = 'exited rc=' + ','.join(map(str, c['rc']))
    return c


def host_side():
    h = {}
    d = os.path.join(WORK, 'host')
    t = load(os.path.join(d, 'timing.json'), {})
    timing = {}
    for r in t.get('results', []):
        name = r.get('command_name') or r.get('command')
        timing[name] = {k: round(r[k], 6) for k in ('min', 'median', 'mean', 'stddev', 'max') if r.get(k) is not None}
        timing[name]['runs'] = len(r.get('times', []))
    h['timing_s'] = timing
    if not timing:
        PROBLEMS.append(f'host side: no timings in {d}/timing.json (hyperfine or its loop failed)')
    counted = {}
    for w in ('exit0', 'services'):
        c = load(os.path.join(d, f'{w}.counted.json'), {})
        if c.get('rc') != 0:
            PROBLEMS.append(f'host side: the counted {w} run failed (rc {c.get("rc")})')
        counted[w] = c if c.get('rc') == 0 else {}
    h['counted'] = {w: {'firmware_calls': c.get('trace_lines'), 'perf': c.get('perf'),
                        'peak_rss_kib': c.get('peak_rss_kib'), 'rc': c.get('rc')} for w, c in counted.items()}
    calls = (counted['services'].get('trace_lines') or 0) - (counted['exit0'].get('trace_lines') or 0)
    h['firmware_calls_services'] = counted['services'].get('trace_lines')
    if 'services' in timing and 'exit0' in timing and calls > 0:
        delta = timing['services']['median'] - timing['exit0']['median']
        h['services_minus_exit0_s'] = round(delta, 6)
        h['per_call_us'] = round(delta / calls * 1e6, 1)
        p_s = (counted['services'].get('perf') or {})
        p_e = (counted['exit0'].get('perf') or {})
        du = (p_s.get('kvm:kvm_userspace_exit') or 0) - (p_e.get('kvm:kvm_userspace_exit') or 0)
        di = (p_s.get('kvm:kvm_emulate_insn') or 0) - (p_e.get('kvm:kvm_emulate_insn') or 0)
        if du > 0:
            h['delta_userspace_exits'] = du
            h['per_userspace_exit_us'] = round(delta / du * 1e6, 2)
        if di > 0:
            h['delta_emulated_instructions'] = di
    if 'exit0' in timing and 'exit0-noprobe' in timing:
        h['xrstor_probe_s'] = round(timing['exit0']['median'] - timing['exit0-noprobe']['median'], 6)
    firsts = []
    for ln in read(os.path.join(d, 'exit0.first.jsonl')).splitlines():
        r = json.loads(ln)
        if succeeded(r):
            firsts.append(r['milestones_s'].get('first_output'))
        else:
            PROBLEMS.append(f'host side: a first-output run failed (rc {r["rc"]})')
    h['start_to_first_guest_output_s'] = stats(firsts)
    # strace: execve -> /dev/kvm open -> probe VM -> VM of the boot -> first KVM_RUN -> exit
    phases = []
    for f in sorted(glob.glob(os.path.join(d, 'strace.*.txt'))):
        t0 = t_kvm = t_last_run = t_exit = None
        vms, runs_after = [], []
        for ln in read(f).splitlines():
            m = re.match(r'\d+\s+(\d+\.\d+) (.*)', ln)
            if not m:
                continue
            ts, rest = float(m.group(1)), m.group(2)
            if t0 is None and rest.startswith('execve('):
                t0 = ts
            elif t_kvm is None and '"/dev/kvm"' in rest:
                t_kvm = ts
            elif 'KVM_CREATE_VM' in rest:
                vms.append(ts)
            elif 'KVM_RUN' in rest:
                if len(vms) >= 2 and not runs_after:
                    runs_after.append(ts)
                t_last_run = ts
            elif 'exited with' in rest:
                t_exit = ts
        if t0 and t_kvm and len(vms) >= 2 and runs_after and t_exit:
            phases.append({'exec_to_open_kvm': t_kvm - t0, 'probe_vm': vms[1] - vms[0],
                           'boot_vm_create_to_first_run': runs_after[0] - vms[1],
                           'exec_to_first_guest_instruction': runs_after[0] - t0,
                           'last_run_to_exit': t_exit - t_last_run, 'total': t_exit - t0})
    if phases:
        h['strace_phases_s'] = {k: stats([p[k] for p in phases]) for k in phases[0]}
        h['strace_note'] = 'under strace (inflates each syscall); timestamps at syscall entry'
    # callgrind
    cg = {}
    plain_rc = read(os.path.join(d, 'callgrind.plain.rc')).strip()
    if plain_rc:
        err = read(os.path.join(d, 'callgrind.plain.stderr'))
        cg['plain_valgrind_rc'] = int(plain_rc)
        cg['plain_valgrind_works'] = int(plain_rc) == 0 and 'guest wrote 0' in err
        if 'unhandled amd64-linux syscall: 317' in err:
            cg['plain_valgrind_problem'] = ('valgrind does not implement seccomp(2) (syscall 317): '
                                            'handover cannot install its seccomp filter and stops')
    cg.update(callgrind_figures(d, counted['services'].get('trace_lines')))
    if cg.get('rc', 0) != 0:
        PROBLEMS.append(f"host side: the callgrind run failed (rc {cg['rc']}, {d}/callgrind.stderr)")
    h['callgrind'] = cg
    return h


def fmt_ms(c, ms):
    s = c['milestones_s'].get(ms)
    if not s:
        return '-'
    if s['min'] == s['median']:
        return f"{s['median']:.1f}"
    return f"{s['min']:.1f}/{s['median']:.1f}"


def main():
    meta = load(os.path.join(WORK, 'meta.json'), {})
    runs = [json.loads(ln) for ln in read(os.path.join(WORK, 'runs.jsonl')).splitlines() if ln.strip()]
    by = {}
    for r in runs:
        by.setdefault(r['case'], []).append(r)
    cases = {n: summarize_case(n, rs) for n, rs in by.items()}
    for n, c in cases.items():
        if n.startswith('handover') and c['failed_runs']:
            PROBLEMS.append(f"{n}: {len(c['failed_runs'])} of {c['runs']} runs failed: "
                            + ', '.join(f"rc {f['rc']} ({f['log']})" for f in c['failed_runs']))
    for n, c in cases.items():
        if n.startswith('qemu-') and 'userspace_exits' not in c:
            c['userspace_exits_note'] = 'perf not available'
    ratios = {}
    for base in ('handover-kunit', 'handover-pe-kunit'):
        if base not in cases:
            continue
        for other in ('qemu-kvm-q35', 'qemu-kvm-microvm', 'qemu-kvm-ovmf', 'qemu-tcg-ovmf', 'qemu-tcg-q35'):
            if other not in cases:
                continue
            rr = {}
            for ms in MILESTONES:
                a, b = cases[base]['milestones_s'].get(ms), cases[other]['milestones_s'].get(ms)
                if a and b and b['median'] > 0:
                    rr[ms] = {'median_ratio': round(a['median'] / b['median'], 3),
                              'min_ratio': round(a['min'] / b['min'], 3)}
            ratios[f'{base} / {other}'] = rr or 'no milestone reached by both'
    res = {
        'what': 'handover vs QEMU on this host, same kernel and command line, times in seconds from process '
                'start (min/median over runs); see bench/README.md',
        'meta': meta,
        'vmm_binaries': {'handover': binary(meta.get('handover')), 'qemu-system-x86_64': binary(meta.get('qemu')),
                         'ovmf_code': ({'path': meta['ovmf_code'], 'bytes': os.path.getsize(meta['ovmf_code'])}
                                       if meta.get('ovmf_code') else None)},
        'exit_counts': {
            'kvm:kvm_exit': 'tried with perf stat: counts 0 on this host (nested PVM KVM does not fire it), '
                            'so all-exit counts are not available for any VMM',
            'kvm:kvm_userspace_exit': 'works: exits that reach the VMM process (I/O, MMIO, HLT, errors); exits '
                                      'handled inside KVM (QEMU\'s in-kernel irqchip/PIT) are not included',
            'firmware_calls': 'handover only: lines of --trace-efi',
            'perf_probe': read(os.path.join(WORK, 'perf-probe.txt')).strip().splitlines()[-2:],
        },
        'cases': cases,
        'ratios_handover_over_qemu': ratios,
        'host_side': host_side(),
        'notes': read(os.path.join(WORK, 'notes.txt')).splitlines(),
    }
    with open(OUT, 'w') as f:
        json.dump(res, f, indent=1)
        f.write('\n')

    # --- table ---
    print(f"load at start {meta.get('loadavg_start', '?')}, end {meta.get('loadavg_end', '?')}; "
          f"{meta.get('runs')} runs per case; times in s from process start, min/median")
    hdr = f"{'case':<19} {'EBS':>9} {'banner':>11} {'KUnit end':>11} {'exit':>11} {'uexits':>7} {'RSS MiB':>7} {'CPU u/s':>11}  outcome / last milestone"
    print(hdr)
    print('-' * len(hdr))
    for n, c in cases.items():
        ue = c.get('userspace_exits', {}).get('median', '-') if c.get('userspace_exits') else '-'
        if '-tcg-' in n:
            ue = 'n/a'
        rss = c['peak_rss_kib']['max'] / 1024 if c.get('peak_rss_kib') else 0
        out = c.get('outcome', '')
        cpu = (f"{c['cpu_user_s']['median']:.1f}/{c['cpu_sys_s']['median']:.1f}"
               if c.get('cpu_user_s') and c.get('cpu_sys_s') else '-')
        if n.startswith('qemu-') and c.get('stopped'):
            out += f"; last: {','.join(c['last_milestone'])}"
        print(f"{n:<19} {fmt_ms(c, 'ebs'):>9} {fmt_ms(c, 'banner'):>11} {fmt_ms(c, 'ktap_end'):>11} "
              f"{fmt_ms(c, 'exit'):>11} {ue:>7} {rss:>7.1f} {cpu:>11}  {out}")
    print('\nratios handover/QEMU (median time to milestone; <1 means handover is faster):')
    for k, rr in ratios.items():
        if isinstance(rr, str):
            print(f'  {k}: {rr}')
        else:
            print(f'  {k}: ' + ', '.join(f"{ms} {v['median_ratio']:.2f}" for ms, v in rr.items()
                                         if ms in ('banner', 'fpu', 'ktap_end', 'exit')))
    h = res['host_side']
    t = h.get('timing_s', {})
    if t:
        print('\nhost side (synthetic payload, ' + ', '.join(f"{k} {v['median']*1000:.1f} ms" for k, v in t.items())
              + ' median):')
        print(f"  firmware calls {h.get('firmware_calls_services')}, (services - exit0)/calls = "
              f"{h.get('per_call_us')} us/call; per userspace exit {h.get('per_userspace_exit_us')} us; "
              f"XRSTOR probe {h.get('xrstor_probe_s', 0)*1000:.1f} ms")
        f = h.get('start_to_first_guest_output_s')
        if f:
            print(f"  start to first guest console line {f['median']*1000:.1f} ms (median)")
    cg = h.get('callgrind', {})
    if cg.get('top_self'):
        print(f"  callgrind: {cg.get('total_instructions')} instructions in the VMM process, "
              f"{cg.get('instructions_per_firmware_call')} per firmware call (firmware_call inclusive); top:")
        for e in cg['top_self'][:6]:
            print(f"    {e['percent']:5.1f}%  {e['function']} ({e['object']})")
    b = res['vmm_binaries']
    print('\nbinaries: ' + '; '.join(f"{k} {v['bytes']/1e6:.2f} MB" + (f", {v['shared_libraries']} shared libs"
                                     if 'shared_libraries' in v else '') for k, v in b.items() if v))
    for n in res['notes']:
        print('note: ' + n)
    for p in PROBLEMS:
        print('FAILED: ' + p)
    if PROBLEMS:
        sys.exit(1)


if __name__ == '__main__':
    main()
