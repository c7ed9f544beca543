#!/usr/bin/env python3
"""Run one command, time-stamp every stdout/stderr line as it arrives and
report when each milestone was first seen, as one JSON object.

usage: tsrun.py [options] -- CMD...
  --log FILE           write every line as "T.TTTTTT o|e text" (seconds since start)
  --milestone NAME=S:REGEX  first line on stream S (o, e or oe) that matches REGEX
                       (re.search, escape sequences stripped); repeatable, in the
                       order milestones are expected
  --kill-on REGEX      once a line matches (any stream), stop the command after
                       --kill-grace seconds (QEMU pauses a guest on a KVM internal
                       error instead of exiting)
  --kill-grace SEC     default 2
  --idle SEC           stop the command if no line arrived for SEC seconds after the
                       first stdout line (a guest that hangs)
  --timeout SEC        stop the command after SEC seconds (like timeout(1))
  --rss 1              run under /usr/bin/time and report peak RSS (KiB), user and sys CPU s
  --perf EVENTS        run under perf stat -x, -e EVENTS and report the counts
  --exits-by-phase B1,B2,...  run under perf record -e kvm:kvm_exit (CLOCK_MONOTONIC,
                       the clock of these time stamps) and count the exits by reason
                       in each phase: from the start to milestone B1, B1 to B2, ...,
                       the last to the end (a boundary never reached is left out);
                       also the time of the first exit (the guest's first instruction)
  --count-lines FILE   report the number of lines of FILE after the run (EFI trace)

"Stopping" sends SIGTERM to the innermost process (the VMM, not the time/perf
wrappers, so they still report), then SIGKILL to the group after 5 s.
Also a built-in milestone ktap_end: the top-level KTAP result line whose
number is the top-level plan ("1..N" ... "ok N name").
"""
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time

ESC = re.compile(r'\x1b\[[0-9;=?]*[A-Za-z]|\x1b[()][0-9A-Za-z]|[\x00-\x08\x0b-\x1f\x7f]')


def parse(argv):
    opt = {'log': None, 'milestones': [], 'kill_on': None, 'kill_grace': 2.0, 'idle': None,
           'timeout': None, 'rss': False, 'perf': None, 'count_lines': None, 'exits_by_phase': None}
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == '--':
            return opt, argv[i + 1:]
        val = argv[i + 1] if i + 1 < len(argv) else None
        if val is None:
            sys.exit(f'tsrun: {a} needs a value')
        if a == '--log':
            opt['log'] = val
        elif a == '--milestone':
            name, _, rest = val.partition('=')
            streams, _, rx = rest.partition(':')
            opt['milestones'].append((name, streams, re.compile(rx)))
        elif a == '--kill-on':
            opt['kill_on'] = re.compile(val)
        elif a == '--kill-grace':
            opt['kill_grace'] = float(val)
        elif a == '--idle':
            opt['idle'] = float(val)
        elif a == '--timeout':
            opt['timeout'] = float(val)
        elif a == '--rss':
            opt['rss'] = val == '1'
        elif a == '--perf':
            opt['perf'] = val
        elif a == '--exits-by-phase':
            opt['exits_by_phase'] = val.split(',')
        elif a == '--count-lines':
            opt['count_lines'] = val
        else:
            sys.exit(f'tsrun: unknown option {a}')
        i += 2
    sys.exit('tsrun: no command (use -- CMD...)')


def innermost(pid):
    """Deepest descendant of pid (follows the first child at each level)."""
    while True:
        try:
            with open(f'/proc/{pid}/task/{pid}/children') as f:
                kids = f.read().split()
        except OSError:
            return pid
        if not kids:
            return pid
        pid = int(kids[-1])


def exits_by_phase(record, t0, seen, bounds):
    """kvm:kvm_exit samples of perf record, by reason, split at the
    milestones in bounds that were reached."""
    p = subprocess.run(['perf', 'script', '-i', record, '-F', 'time,trace'], capture_output=True, text=True,
                       errors='replace')
    cuts = sorted((seen[b], b) for b in bounds if b in seen)
    phases, first = {}, None
    for line in p.stdout.splitlines():
        m = re.match(r'\s*([0-9.]+):\s.*?reason (\S+)', line)
        if not m:
            continue
        t = float(m.group(1)) - t0
        first = t if first is None else min(first, t)
        name = next((f'to_{b}' for tb, b in cuts if t < tb), 'to_end')
        ph = phases.setdefault(name, {'total': 0, 'by_reason': {}})
        ph['total'] += 1
        ph['by_reason'][m.group(2)] = ph['by_reason'].get(m.group(2), 0) + 1
    if p.returncode or first is None:
        return {'error': (p.stderr.strip().splitlines() or ['no kvm_exit samples'])[-1]}
    order = [f'to_{b}' for _, b in cuts] + ['to_end']
    return {'first_exit_s': round(first, 6), 'phases': {k: phases[k] for k in order if k in phases}}


def main():
    opt, cmd = parse(sys.argv[1:])
    tmp = tempfile.mkdtemp(prefix='tsrun.')
    rss_file = os.path.join(tmp, 'rss')
    perf_file = os.path.join(tmp, 'perf')
    record_file = os.path.join(tmp, 'perf.data')
    full = list(cmd)
    if opt['exits_by_phase']:
        full = ['perf', 'record', '-q', '-e', 'kvm:kvm_exit', '-k', 'CLOCK_MONOTONIC', '-o', record_file, '--'] + full
    if opt['rss']:
        full = ['/usr/bin/time', '-f', '%M %U %S', '-o', rss_file] + full
    if opt['perf']:
        full = ['perf', 'stat', '-x,', '-o', perf_file, '-e', opt['perf'], '--'] + full

    lock = threading.Lock()
    seen = {}                 # milestone -> t
    info = {'lines': {'o': 0, 'e': 0}, 'last': {'o': '', 'e': ''}, 'first_o': None,
            'last_t': 0.0, 'kill_at': None, 'stopped': None, 'ktap_plan': None,
            'kill_line': None}
    logf = open(opt['log'], 'w') if opt['log'] else None

    t0 = time.monotonic()
    p = subprocess.Popen(full, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, start_new_session=True)

    def reader(stream, tag):
        for raw in iter(stream.readline, b''):
            t = time.monotonic() - t0
            line = ESC.sub('', raw.decode('utf-8', 'replace')).rstrip()
            with lock:
                info['last_t'] = t
                if logf:
                    logf.write(f'{t:.6f} {tag} {line}\n')
                if not line:
                    continue
                info['lines'][tag] += 1
                info['last'][tag] = line
                if tag == 'o' and info['first_o'] is None:
                    info['first_o'] = t
                for name, streams, rx in opt['milestones']:
                    if name not in seen and tag in streams and rx.search(line):
                        seen[name] = t
                if tag == 'o':
                    m = re.fullmatch(r'1\.\.(\d+)', line)
                    if m and info['ktap_plan'] is None:
                        info['ktap_plan'] = m.group(1)
                    m = re.match(r'(not )?ok (\d+) ', line)
                    if m and info['ktap_plan'] == m.group(2) and 'ktap_end' not in seen:
                        seen['ktap_end'] = t
                if opt['kill_on'] and info['kill_at'] is None and opt['kill_on'].search(line):
                    info['kill_at'] = t + opt['kill_grace']
                    info['kill_line'] = line
                    seen.setdefault('failure', t)

    threads = [threading.Thread(target=reader, args=(p.stdout, 'o'), daemon=True),
               threading.Thread(target=reader, args=(p.stderr, 'e'), daemon=True)]
    for th in threads:
        th.start()

    def stop(why):
        info['stopped'] = why
        try:
            os.kill(innermost(p.pid), signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            p.wait(5)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)

    while p.poll() is None:
        time.sleep(0.05)
        now = time.monotonic() - t0
        with lock:
            kill_at, first_o, last_t = info['kill_at'], info['first_o'], info['last_t']
        if kill_at is not None and now >= kill_at:
            stop('kill-on: ' + info['kill_line'])
        elif opt['timeout'] and now >= opt['timeout']:
            stop(f'timeout after {opt["timeout"]:g} s')
        elif opt['idle'] and first_o is not None and now - last_t >= opt['idle']:
            stop(f'idle: no output for {opt["idle"]:g} s')
    wall = time.monotonic() - t0
    for th in threads:
        th.join(2)
    if logf:
        logf.close()

    order = [m[0] for m in opt['milestones']] + ['ktap_end']
    res = {'cmd': cmd, 'rc': p.returncode, 'wall_s': round(wall, 6),
           'milestones_s': {k: round(seen[k], 6) for k in order + ['failure'] if k in seen},
           'last_milestone': None, 'stopped': info['stopped'],
           'console_lines': info['lines']['o'], 'last_console_line': info['last']['o'],
           'last_stderr_line': info['last']['e']}
    reached = [k for k in order if k in seen]
    if reached:
        res['last_milestone'] = max(reached, key=lambda k: seen[k])
    if opt['rss']:
        try:
            rss, user, sys_ = open(rss_file).read().split()[-3:]
            res['peak_rss_kib'], res['user_s'], res['sys_s'] = int(rss), float(user), float(sys_)
        except (OSError, ValueError):
            res['peak_rss_kib'] = None
    if opt['perf']:
        counts = {}
        try:
            for ln in open(perf_file):
                f = ln.strip().split(',')
                if len(f) >= 3 and not ln.startswith('#'):
                    counts[f[2]] = int(f[0]) if f[0].isdigit() else f[0]
        except OSError:
            pass
        res['perf'] = counts
    if opt['count_lines']:
        try:
            with open(opt['count_lines']) as f:
                res['trace_lines'] = sum(1 for _ in f)
        except OSError:
            res['trace_lines'] = None
    if opt['exits_by_phase']:
        res['exits_by_phase'] = exits_by_phase(record_file, t0, seen, opt['exits_by_phase'])
    for f in (rss_file, perf_file, record_file):
        if os.path.exists(f):
            os.unlink(f)
    os.rmdir(tmp)
    print(json.dumps(res))


if __name__ == '__main__':
    main()
