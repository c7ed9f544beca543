#!/usr/bin/env python3
"""Reports against docs/report.md: every key a --report FILE has is listed
there (a path with dots, [] for array elements, * for an object's named keys),
and its end_reason is one docs/exit-status.md lists (that page is made from
the end-reason table: make docs).
usage: report-doc-check.py DOC EXIT_STATUS_DOC REPORT..."""
import json
import re
import sys

if len(sys.argv) < 4:
    sys.exit(__doc__)
doc, reasons_doc, reports = sys.argv[1], sys.argv[2], sys.argv[3:]
documented = set(re.findall(r"^\| `([^`]+)` \|", open(doc).read(), re.M))
reasons = set(re.findall(r"^\| `([a-z-]+)` \|", open(reasons_doc).read().split("## End reasons")[1], re.M))
if not reasons:
    sys.exit(f"{reasons_doc}: no end reasons")


def paths(value, prefix):
    """Every key path of value, as the page writes them."""
    if isinstance(value, dict):
        for k, v in value.items():
            p = f"{prefix}.{k}" if prefix else k
            named = f"{prefix}.*"
            # An object whose keys are names from the run is documented with *.
            yield named if named in documented and p not in documented else p
            yield from paths(v, named if named in documented and p not in documented else p)
    elif isinstance(value, list):
        for v in value:
            yield from paths(v, prefix + "[]")


for path in reports:
    r = json.load(open(path))
    missing = sorted(set(paths(r, "")) - documented)
    if missing:
        sys.exit(f"{path}: keys not in {doc}: {missing}")
    if r["end_reason"] not in reasons:
        sys.exit(f"{path}: end_reason {r['end_reason']!r} not in {reasons_doc}")
print(f"{len(reports)} reports documented; {len(documented)} keys in {doc}, {len(reasons)} end reasons in {reasons_doc}")
