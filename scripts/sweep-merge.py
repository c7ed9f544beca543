#!/usr/bin/python3
"""Merge the matrices of a fault sweep run as shards (--shard K/N, one per
machine or CI job) into the matrix the unsharded sweep writes.

usage: scripts/sweep-merge.py SHARD.json... > sweep.json

Shard K holds the cells numbered K, K+N, ... of the whole sweep, in order
(vmm/tools/fault_sweep.c, take_shard), so the merge interleaves them back.
It refuses a set that is not whole (a shard missing or given twice), a shard
without a whole index and count (1 <= K <= N), or shards that disagree on
the kernel, the entry or the baseline boot's calls: exit status 2 with the
reason. Prints a one-line summary on stderr.
"""
import json
import sys


def fail(msg):
    print(f"sweep-merge: {msg}", file=sys.stderr)
    sys.exit(2)


def load(path):
    try:
        with open(path) as f:
            m = json.load(f)
    except (OSError, ValueError) as e:
        fail(f"{path}: {e}")
    if not isinstance(m, dict) or not isinstance(m.get("cells"), list):
        fail(f"{path}: not a --fault-sweep matrix (no cells array)")
    shard = m.get("shard")
    if not isinstance(shard, dict):
        fail(f"{path}: not a shard's matrix (no \"shard\" key: was it run with --shard K/N?)")
    check_shard_numbers(path, shard)
    return m


def check_shard_numbers(path, shard):
    """--shard K/N's K (index) and N (count), whole numbers with 1 <= K <= N."""
    for key in ("index", "count"):
        v = shard.get(key)
        if v is None:
            fail(f"{path}: its \"shard\" has no {key}")
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            fail(f"{path}: its shard {key} {v!r} is not a whole number of 1 or more")
    if shard["index"] > shard["count"]:
        fail(f"{path}: shard {shard['index']} of {shard['count']}: the index is past the count")


def main(paths):
    if not paths:
        fail("usage: scripts/sweep-merge.py SHARD.json... > sweep.json")
    shards = {}
    for p in paths:
        m = load(p)
        k, n = m["shard"].get("index"), m["shard"].get("count")
        if k in shards:
            fail(f"{p}: shard {k}/{n} given twice")
        shards[k] = (p, m)
    first_path, first = next(iter(shards.values()))
    n = first["shard"]["count"]
    missing = [k for k in range(1, n + 1) if k not in shards]
    if missing or len(shards) != n:
        fail(f"{len(shards)} of {n} shards given; missing: {', '.join(map(str, missing)) or 'none'}")
    for p, m in shards.values():
        for key in ("kernel", "entry"):
            if m.get(key) != first.get(key):
                fail(f"{p}: {key} {m.get(key)!r}, but {first_path} says {first.get(key)!r}")
        if m["shard"]["count"] != n:
            fail(f"{p}: shard of {m['shard']['count']}, but {first_path} is one of {n}")
        if m.get("baseline", {}).get("calls") != first.get("baseline", {}).get("calls"):
            fail(f"{p}: its boot without faults made a different number of calls than {first_path}'s")
    counts = [len(shards[k][1]["cells"]) for k in range(1, n + 1)]
    # Shard K has the cells K-1, K-1+N, ...: the first shards hold one more, at most.
    if any(counts[i] < counts[i + 1] for i in range(n - 1)) or counts[0] - counts[-1] > 1:
        fail(f"cell counts {counts} cannot come from one sweep split {n} ways")
    cells = []
    for j in range(counts[0]):
        for k in range(1, n + 1):
            if j < counts[k - 1]:
                cells.append(shards[k][1]["cells"][j])
    seconds = sum(m.get("seconds", {}).get("sweep", 0.0) for _, m in shards.values())
    merged = {
        "kernel": first["kernel"],
        "entry": first["entry"],
        "baseline": first["baseline"],
        "cells": cells,
        "seconds": {"sweep": seconds},
        "merged_shards": n,
    }
    json.dump(merged, sys.stdout, indent=1)
    sys.stdout.write("\n")
    outcomes = {}
    for c in cells:
        outcomes[c.get("outcome")] = outcomes.get(c.get("outcome"), 0) + 1
    summary = ", ".join(f"{v} {k}" for k, v in sorted(outcomes.items()))
    print(f"sweep-merge: {n} shards, {len(cells)} cells: {summary}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
