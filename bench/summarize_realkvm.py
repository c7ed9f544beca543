#!/usr/bin/env python3
"""Medians and ratios of bench/realkvm.sh's runs: writes the JSON results
file and prints one table per kernel, then the exits by phase, the host
cost and the issue's goals.

usage: summarize_realkvm.py OUT.json QEMU_COMMON_ARGS NOTES RUNS.jsonl..."""
import json
import os
import statistics
import sys

from callgrind_figures import callgrind_figures

MILESTONES = ['exit_boot_services', 'banner', 'run_init', 'user_space', 'power_off']
# The goals: handover's process start to power-off against each peer, as a ratio.
GOALS = {'qemu-microvm': 0.5, 'qemu-q35': 0.5, 'qemu-ovmf': 0.2}
RSS_GOAL_KIB = 5 * 1024


def median(xs):
    xs = [x for x in xs if x is not None]
    return round(statistics.median(xs), 3) if xs else None


def milestone_ratios(a, b):
    """a's median over b's at each milestone both reached."""
    return {m: round(a['milestones_s'][m] / b['milestones_s'][m], 3)
            for m in MILESTONES if a['milestones_s'][m] and b['milestones_s'][m]}


def case_entry(rs, exits_run):
    ok = [r for r in rs if r['run']['rc'] == 0 and 'power_off' in r['run']['milestones_s']]
    run = lambda key: [r['run'].get(key) for r in ok]
    e = {
        'runs': len(rs), 'completed': len(ok),
        'command': rs[0]['run']['cmd'],
        'failures': sorted({f"rc {r['run']['rc']}, last {r['run']['last_milestone']}, "
                            f"{r['run']['stopped'] or r['run']['last_stderr_line'] or ''}"[:200]
                            for r in rs if r not in ok}),
        'wall_s': median(run('wall_s')),
        'milestones_s': {m: median([r['run']['milestones_s'].get(m) for r in ok]) for m in MILESTONES},
        'peak_rss_kib': median(run('peak_rss_kib')),
        'cpu_s': median([(r['run'].get('user_s') or 0) + (r['run'].get('sys_s') or 0) for r in ok]),
        'kvm_exits': median([r['run'].get('perf', {}).get('kvm:kvm_exit') for r in ok
                             if isinstance(r['run'].get('perf', {}).get('kvm:kvm_exit'), int)]),
    }
    fw = [r['handover'] for r in ok if r.get('handover')]
    if fw:
        e['firmware_calls'] = median([f['firmware_calls']['total'] for f in fw])
        e['vmm_exits_to_user_space'] = median([f['vm_exits']['io'] for f in fw])
        e['vmm_exits_by_phase'] = fw[-1].get('vm_exits_by_phase')
        e['host'] = {k: median([f['host'][k] for f in fw if f.get('host')])
                     for k in ('peak_rss_kib', 'guest_ram_touched_kib', 'rss_beyond_guest_ram_kib')}
        e['host']['start_to_entry_s'] = median([f['phase_seconds'].get('entry') for f in fw])
    if exits_run:
        e['kvm_exits_by_phase'] = exits_run['run'].get('exits_by_phase')
    return e


def main():
    out, qemu_common, notes = sys.argv[1], sys.argv[2], sys.argv[3]
    runs = []
    for path in sys.argv[4:]:
        try:
            runs += [json.loads(line) for line in open(path) if line.strip()]
        except OSError:
            pass
    if not runs:
        sys.exit(f'summarize_realkvm: no runs in {" ".join(sys.argv[4:])}: {out} left as it was')
    cases, exits_runs = {}, {}
    for r in runs:
        key = (r['kernel'], r['case'])
        if str(r['round']) == 'exits':
            exits_runs[key] = r
        else:
            cases.setdefault(key, []).append(r)
    results = {'qemu_common_args': qemu_common, 'notes': [n for n in open(notes).read().split('\n') if n],
               'kernels': {}}
    for key, rs in sorted(cases.items()):
        results['kernels'].setdefault(key[0], {})[key[1]] = case_entry(rs, exits_runs.get(key))
    for kernel, cs in results['kernels'].items():
        base = cs.get('handover')
        ratios = {}
        for case, e in cs.items():
            if case == 'handover' or not base:
                continue
            r = milestone_ratios(base, e)
            if base['wall_s'] and e['wall_s']:
                r['wall'] = round(base['wall_s'] / e['wall_s'], 3)
            ratios[f'handover/{case}'] = r
        ovmf, seabios = cs.get('qemu-ovmf'), cs.get('qemu-q35-irqchip-off')
        if ovmf and seabios and ovmf['wall_s'] and seabios['wall_s']:
            # OVMF's own cost: both with QEMU's irqchip (realkvm.sh IRQCHIP_OFF).
            ratios['qemu-ovmf/qemu-q35-irqchip-off'] = milestone_ratios(ovmf, seabios)
        goals = {}
        for peer, bound in GOALS.items():
            r = ratios.get(f'handover/{peer}', {}).get('power_off')
            goals[f'power_off handover/{peer} <= {bound}'] = None if r is None else {'ratio': r, 'met': r <= bound}
        if base and base.get('host'):
            beyond = base['host']['rss_beyond_guest_ram_kib']
            goals['VMM RSS beyond touched guest RAM <= 5 MiB'] = {'kib': beyond, 'met': beyond <= RSS_GOAL_KIB}
        if base and base.get('vmm_exits_by_phase'):
            fwp = base['vmm_exits_by_phase']['firmware']
            goals['firmware phase: VM exits to the VMM = firmware calls + port I/O'] = {
                'exits': fwp['total'], 'firmware_calls': fwp['firmware_calls'], 'port_io': fwp['port_io'],
                'met': fwp['total'] == fwp['firmware_calls'] + fwp['port_io']}
        # The bound on what systemd-stub or GRUB in front costs, in
        # seconds later than the kernel's own stub alone at each milestone.
        loaders = {}
        for case in ('handover-uki', 'handover-grub'):
            e = cs.get(case)
            if e and base:
                loaders[case] = {m: round(e['milestones_s'][m] - base['milestones_s'][m], 3) for m in MILESTONES
                                 if e['milestones_s'][m] is not None and base['milestones_s'][m] is not None}
        for path in sys.argv[4:]:
            d = os.path.join(os.path.dirname(path), f'callgrind-{kernel}')
            try:
                calls = json.load(open(os.path.join(d, 'report.json')))['firmware_calls']['total']
            except (OSError, ValueError, KeyError):
                continue
            cs['callgrind_firmware_phase'] = callgrind_figures(d, calls)
        cs['loader_cost_s'] = loaders
        cs['ratios'] = ratios
        cs['goals'] = goals
    json.dump(results, open(out, 'w'), indent=1)

    f = lambda v: f'{v:7.2f}' if isinstance(v, (int, float)) else f'{"-":>7}'
    for kernel, cs in results['kernels'].items():
        print(f'\n{kernel} (medians of completed runs; seconds from process start)')
        print(f'{"case":14} {"done":>5} {"EBS":>7} {"banner":>7} {"init":>7} {"user":>7} {"off":>7} {"exit":>7}'
              f' {"RSS MiB":>8} {"CPU s":>6} {"exits":>8}')
        for case, e in cs.items():
            if case in ('ratios', 'goals', 'loader_cost_s', 'callgrind_firmware_phase'):
                continue
            m = e['milestones_s']
            rss = f'{e["peak_rss_kib"] / 1024:8.1f}' if e['peak_rss_kib'] else f'{"-":>8}'
            print(f'{case:14} {e["completed"]:>2}/{e["runs"]:<2} {f(m["exit_boot_services"])} {f(m["banner"])} '
                  f'{f(m["run_init"])} {f(m["user_space"])} {f(m["power_off"])} {f(e["wall_s"])} {rss} '
                  f'{f(e["cpu_s"])[1:]} {e["kvm_exits"] if e["kvm_exits"] is not None else "-":>8}')
            for why in e['failures']:
                print(f'{"":14}   failed: {why}')
        for k, r in cs['loader_cost_s'].items():
            print(f'{k} beyond the kernel\'s own stub (s later than handover): ' +
                  ', '.join(f'{m} {v:+.2f}' for m, v in r.items()))
        for k, r in cs['ratios'].items():
            print(f'ratio {k}: ' + ', '.join(f'{m} {v}' for m, v in r.items()))
        print('exits by phase (kvm:kvm_exit, one perf-record run; first exit = first guest instruction):')
        for case, e in cs.items():
            x = e.get('kvm_exits_by_phase') if isinstance(e, dict) else None
            if not x or 'phases' not in x:
                continue
            parts = []
            for ph, v in x['phases'].items():
                top = sorted(v['by_reason'].items(), key=lambda kv: -kv[1])[:3]
                parts.append(f'{ph} {v["total"]} ({", ".join(f"{k} {n}" for k, n in top)})')
            print(f'  {case:14} first exit {x["first_exit_s"]:.3f} s; ' + '; '.join(parts))
        h = cs.get('handover', {}).get('host')
        if h:
            print(f'handover host cost: peak RSS {h["peak_rss_kib"]} KiB, guest RAM touched '
                  f'{h["guest_ram_touched_kib"]} KiB, beyond it {h["rss_beyond_guest_ram_kib"]} KiB; '
                  f'start to guest entry {h["start_to_entry_s"]} s')
        cg = cs.get('callgrind_firmware_phase', {})
        if cg.get('instructions_per_firmware_call'):
            print(f'firmware phase under callgrind: {cg["instructions_per_firmware_call"]} host instructions per '
                  f'firmware call ({cg["firmware_calls"]} calls; the VMM process in all: {cg["total_instructions"]})')
        for g, v in cs['goals'].items():
            print(f'goal {g}: {"not measured" if v is None else ("met" if v["met"] else "NOT met") + " " + json.dumps({k: x for k, x in v.items() if k != "met"})}')
    for n in results['notes']:
        print('note:', n)
    print(f'\nresults: {out}')
    # handover's own failed runs fail the bench (their figures are left out
    # above); QEMU's are findings of the comparison, listed in its table.
    failed = [f'{kernel} {case}: {why}' for kernel, cs in results['kernels'].items() for case, e in cs.items()
              if case.startswith('handover') and isinstance(e, dict) for why in e.get('failures', [])]
    for f in failed:
        print('FAILED:', f)
    if failed:
        sys.exit(1)


if __name__ == '__main__':
    main()
