#!/usr/bin/env python3
"""Reports against docs/report.md: every key a --report FILE has is listed
there (a path with dots, [] for array elements, * for an object's named keys),
with the type the page gives it; every key the page lists is present wherever
its parent is, unless the page says when it is absent (or with which option
only); and its end_reason is one docs/exit-status.md lists (that page is made
from the end-reason table: make docs). A row of the page's key table that
names no single key is an error of the page, not a key nobody checks.
usage: report-doc-check.py DOC EXIT_STATUS_DOC REPORT..."""
import json
import re
import sys

if len(sys.argv) < 4:
    sys.exit(__doc__)
doc, reasons_doc, reports = sys.argv[1], sys.argv[2], sys.argv[3:]
table = open(doc).read().split("## Keys")[1]
rows = [line for line in table.splitlines() if line.startswith("| `")]
documented = {}
for line in rows:
    m = re.match(r"^\| `([^`]+)` \| ([^|]+) \| (.*) \|$", line)
    if not m:
        sys.exit(f"{doc}: a key row names no single key (one key per row): {line}")
    documented[m.group(1)] = (m.group(2).strip(), m.group(3))
reasons = set(re.findall(r"^\| `([a-z-]+)` \|", open(reasons_doc).read().split("## End reasons")[1], re.M))
if not reasons:
    sys.exit(f"{reasons_doc}: no end reasons")


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


# The page's type words (before ", or null"), each the JSON it means.
TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "array of strings": lambda v: isinstance(v, list) and all(isinstance(e, str) for e in v),
    "string": lambda v: isinstance(v, str),
    "hex string": lambda v: isinstance(v, str) and re.fullmatch(r"0x[0-9a-f]+", v) is not None,
    "integer": is_int,
    "count": lambda v: is_int(v) and v >= 0,
    "KiB": is_int,
    "seconds": lambda v: is_int(v) or isinstance(v, float),
    "boolean": lambda v: isinstance(v, bool),
}
for key, (kind, _) in documented.items():
    if kind.removesuffix(", or null").split(",")[0] not in TYPES:
        sys.exit(f"{doc}: {key}: type {kind!r} is none this check knows")


def type_ok(kind, value):
    if value is None:
        return kind.endswith(", or null")
    return TYPES[kind.removesuffix(", or null").split(",")[0]](value)


def optional(key):
    """The page says when the key is absent (or with which option only)."""
    meaning = documented[key][1]
    return "absent" in meaning or re.match(r"with `--[a-z-]+` only", meaning) is not None


def walk(value, prefix):
    """Every (documented path, value) of value, as the page writes paths."""
    if isinstance(value, dict):
        named = f"{prefix}.*"
        for k, v in value.items():
            p = f"{prefix}.{k}" if prefix else k
            # An object whose keys are names from the run is documented with *.
            p = named if named in documented and p not in documented else p
            yield p, v
            yield from walk(v, p)
    elif isinstance(value, list):
        for v in value:
            yield prefix + "[]", v   # an element: not a key, the parent of its keys
            yield from walk(v, prefix + "[]")


def parent_of(key):
    return key.rsplit(".", 1)[0] if "." in key else ""


def absent(report, pairs):
    """The documented keys a present parent lacks."""
    objects = {"": [report]}
    for p, v in pairs:
        if isinstance(v, dict):
            objects.setdefault(p, []).append(v)
    for key in documented:
        name = key.rsplit(".", 1)[-1]
        if "*" in key or optional(key):
            continue
        for parent in objects.get(parent_of(key), []):
            if name not in parent:
                yield key


for path in reports:
    r = json.load(open(path))
    everything = list(walk(r, ""))
    pairs = [(p, v) for p, v in everything if not p.endswith("[]")]
    missing = sorted({p for p, _ in pairs} - set(documented))
    if missing:
        sys.exit(f"{path}: keys not in {doc}: {missing}")
    mistyped = sorted({p for p, v in pairs if not type_ok(documented[p][0], v)})
    if mistyped:
        sys.exit(f"{path}: keys not of the type {doc} gives: {mistyped}")
    lacking = sorted(set(absent(r, everything)))
    if lacking:
        sys.exit(f"{path}: keys {doc} lists that the report lacks: {lacking}")
    if r["end_reason"] not in reasons:
        sys.exit(f"{path}: end_reason {r['end_reason']!r} not in {reasons_doc}")
print(f"{len(reports)} reports documented; {len(documented)} keys in {doc}, {len(reasons)} end reasons in {reasons_doc}")
