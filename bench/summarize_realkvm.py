#!/usr/bin/env python3
"""Medians and ratios of bench/realkvm.sh's runs: writes the JSON results
file and prints one table per kernel.

usage: summarize_realkvm.py OUT.json QEMU_COMMON_ARGS NOTES RUNS.jsonl..."""
import json
import statistics
import sys

MILESTONES = ['exit_boot_services', 'banner', 'run_init', 'user_space', 'power_off']


def median(xs):
    xs = [x for x in xs if x is not None]
    return round(statistics.median(xs), 3) if xs else None


def main():
    out, qemu_common, notes = sys.argv[1], sys.argv[2], sys.argv[3]
    runs = []
    for path in sys.argv[4:]:
        try:
            runs += [json.loads(line) for line in open(path) if line.strip()]
        except OSError:
            pass
    cases = {}
    for r in runs:
        cases.setdefault((r['kernel'], r['case']), []).append(r)
    results = {'qemu_common_args': qemu_common, 'notes': [n for n in open(notes).read().split('\n') if n],
               'kernels': {}}
    for (kernel, case), rs in sorted(cases.items()):
        ok = [r for r in rs if r['run']['rc'] == 0 and 'power_off' in r['run']['milestones_s']]
        entry = {
            'runs': len(rs), 'completed': len(ok),
            'command': rs[0]['run']['cmd'],
            'failures': sorted({f"rc {r['run']['rc']}, last {r['run']['last_milestone']}, "
                                f"{r['run']['stopped'] or r['run']['last_stderr_line'] or ''}"[:200]
                                for r in rs if r not in ok}),
            'wall_s': median([r['run']['wall_s'] for r in ok]),
            'milestones_s': {m: median([r['run']['milestones_s'].get(m) for r in ok]) for m in MILESTONES},
            'peak_rss_kib': median([r['run'].get('peak_rss_kib') for r in ok]),
            'cpu_s': median([(r['run'].get('user_s') or 0) + (r['run'].get('sys_s') or 0) for r in ok]),
            'kvm_exits': median([r['run'].get('perf', {}).get('kvm:kvm_exit') for r in ok
                                 if isinstance(r['run'].get('perf', {}).get('kvm:kvm_exit'), int)]),
        }
        fw = [r['handover'] for r in ok if r.get('handover')]
        if fw:
            entry['firmware_calls'] = median([f['firmware_calls'] for f in fw])
            entry['vmm_exits_io'] = median([f['vm_exits']['io'] for f in fw])
        results['kernels'].setdefault(kernel, {})[case] = entry
    for kernel, cs in results['kernels'].items():
        base = cs.get('handover', {}).get('wall_s')
        ratios = {}
        for case, e in cs.items():
            if case != 'handover' and base and e['wall_s']:
                ratios[f'handover/{case}'] = round(base / e['wall_s'], 3)
        results['kernels'][kernel]['ratios_wall'] = ratios
    json.dump(results, open(out, 'w'), indent=1)
    for kernel, cs in results['kernels'].items():
        print(f'\n{kernel} (medians of completed runs; seconds from process start)')
        print(f'{"case":14} {"done":>5} {"EBS":>7} {"banner":>7} {"init":>7} {"user":>7} {"off":>7} {"exit":>7}'
              f' {"RSS MiB":>8} {"CPU s":>6} {"exits":>8}')
        for case, e in cs.items():
            if case == 'ratios_wall':
                continue
            m = e['milestones_s']
            f = lambda v: f'{v:7.2f}' if isinstance(v, (int, float)) else f'{"-":>7}'
            rss = f'{e["peak_rss_kib"] / 1024:8.1f}' if e['peak_rss_kib'] else f'{"-":>8}'
            print(f'{case:14} {e["completed"]:>2}/{e["runs"]:<2} {f(m["exit_boot_services"])} {f(m["banner"])} '
                  f'{f(m["run_init"])} {f(m["user_space"])} {f(m["power_off"])} {f(e["wall_s"])} {rss} '
                  f'{f(e["cpu_s"])[1:]} {e["kvm_exits"] if e["kvm_exits"] is not None else "-":>8}')
            for why in e['failures']:
                print(f'{"":14}   failed: {why}')
        print('ratios (wall):', ', '.join(f'{k} {v}' for k, v in cs['ratios_wall'].items()))
    for n in results['notes']:
        print('note:', n)
    print(f'\nresults: {out}')


if __name__ == '__main__':
    main()
