#!/usr/bin/env python3
"""Check a --fault-sweep matrix: it covers the faults it must, and some of
its cells agree with real single-fault runs.

usage: sweep-check.py MATRIX.json --kinds K1,K2,... [--singles N] -- HANDOVER [ARGS...] KERNEL

--kinds: every fault kind the matrix must hold at least one run cell of.
--singles N: for up to N cells (one per outcome first, then the quickest),
run `HANDOVER --quiet --stop-at ebs --inject SPEC ARGS... KERNEL` and
compare the "fault outcome: SPEC: OUTCOME" line it prints for that SPEC
with the cell. A matrix in which no cell ran has nothing to check: it fails.
Prints one line per check and "sweep ok" when all pass; exit status 1 if not.
"""
import json
import re
import subprocess
import sys


def pick_cells(cells, n):
    """One cell per outcome (its quickest), then the quickest of the rest."""
    run = sorted((c for c in cells if c["outcome"] != "skipped"), key=lambda c: c["seconds"])
    chosen, outcomes = [], set()
    for c in run:
        if c["outcome"] not in outcomes:
            outcomes.add(c["outcome"])
            chosen.append(c)
    for c in run:
        if c not in chosen:
            chosen.append(c)
    return chosen[:n]


def single_outcome(cmd, spec):
    args = [cmd[0], "--quiet", "--stop-at", "ebs", "--inject", spec] + cmd[1:]
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace")
    # The line of this fault: one about another spec is not this cell's outcome.
    m = re.search(rf"fault outcome: {re.escape(spec)}: (\S+)", p.stderr)
    return (m.group(1) if m else None), p.returncode, p.stderr


def main():
    argv = sys.argv[1:]
    if "--" not in argv or len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    sep = argv.index("--")
    opts, cmd = argv[:sep], argv[sep + 1:]
    path, kinds, singles = opts[0], [], 0
    i = 1
    while i < len(opts):
        if opts[i] == "--kinds":
            kinds = [k for k in opts[i + 1].split(",") if k]
            i += 2
        elif opts[i] == "--singles":
            singles = int(opts[i + 1])
            i += 2
        else:
            print(f"unknown option {opts[i]}", file=sys.stderr)
            return 2
    with open(path) as f:
        m = json.load(f)
    cells = m["cells"]
    bad = 0
    ran = [c for c in cells if c["outcome"] != "skipped"]
    if not ran:
        print(f"not ok - {path}: no cell ran ({len(cells)} cells): nothing to check")
        bad += 1
    for k in kinds:
        have = [c for c in cells if c["fault"] == k and c["outcome"] != "skipped"]
        if have:
            print(f"ok - {k}: {len(have)} cells")
        else:
            print(f"not ok - {k}: no cell ran")
            bad += 1
    for c in cells:
        if c["outcome"] == "not-injected":
            print(f"not ok - call {c['seq']} {c['inject']}: the fault never fired")
            bad += 1
    for c in pick_cells(cells, singles):
        got, rc, err = single_outcome(cmd, c["inject"])
        if got == c["outcome"] and rc == c["status"]:
            print(f"ok - call {c['seq']} {c['call']} {c['inject']}: {got} (status {rc}) in the sweep and alone")
        else:
            print(f"not ok - call {c['seq']} {c['inject']}: sweep {c['outcome']} (status {c['status']}), "
                  f"single run {got} (status {rc})")
            sys.stdout.write("".join("    | " + l + "\n" for l in err.splitlines()[-10:]))
            bad += 1
    print(f"speedup {m['seconds']['speedup']:.1f}x: sweep {m['seconds']['sweep']:.1f} s, "
          f"one boot per fault about {m['seconds']['one_boot_per_fault_estimate']:.1f} s")
    if bad:
        print(f"sweep: {bad} checks failed")
        return 1
    print("sweep ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
