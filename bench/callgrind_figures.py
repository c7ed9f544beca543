"""The figures bench/callgrind.sh leaves: shared by bench/summarize.py
(this host's KVM) and bench/summarize_realkvm.py (the KVM host)."""
import os
import re


def read(path):
    try:
        with open(path, errors='replace') as f:
            return f.read()
    except OSError:
        return ''


def callgrind_figures(d, ncalls):
    """What bench/callgrind.sh left in d: total instructions, the top
    functions, and instructions per firmware call (firmware_call's
    inclusive count over ncalls, the calls that run made)."""
    cg = {}
    selftxt = read(os.path.join(d, 'callgrind.self.txt'))
    incltxt = read(os.path.join(d, 'callgrind.incl.txt'))
    if selftxt:
        cg['method'] = ('LD_PRELOAD of a no-op seccomp_load() so the same binary runs unsandboxed '
                        'under valgrind; KVM ioctls themselves work under valgrind')
        cg['rc'] = int(read(os.path.join(d, 'callgrind.rc')).strip() or -1)
        if cg['rc'] != 0:
            return cg   # no figures from a run that failed
        m = re.search(r'([\d,]+) \(100\.0%\)\s+PROGRAM TOTALS', selftxt)
        cg['total_instructions'] = int(m.group(1).replace(',', '')) if m else None
        top = []
        for ln in selftxt.split('file:function', 1)[-1].splitlines():
            m = re.match(r'\s*([\d,]+) \(\s*([\d.]+)%\)\s+(\S+?):(\S+) \[(.*)\]', ln)
            if m:
                top.append({'instructions': int(m.group(1).replace(',', '')), 'percent': float(m.group(2)),
                            'function': m.group(4), 'file': m.group(3), 'object': os.path.basename(m.group(5))})
            if len(top) == 12:
                break
        cg['top_self'] = top
        m = re.search(r'([\d,]+) \(\s*[\d.]+%\)\s+\S+:firmware_call \[', incltxt)
        if m and ncalls:
            fc = int(m.group(1).replace(',', ''))
            cg['firmware_call_inclusive_instructions'] = fc
            cg['firmware_calls'] = ncalls
            cg['instructions_per_firmware_call'] = round(fc / ncalls)
        for fn in ('run_loop', 'sandbox_enter', 'vmm_load', 'firmware_init', 'io_bus_access'):
            m = re.search(r'([\d,]+) \(\s*[\d.]+%\)\s+\S+:' + fn + r' \[', incltxt)
            if m:
                cg.setdefault('inclusive', {})[fn] = int(m.group(1).replace(',', ''))
    return cg
