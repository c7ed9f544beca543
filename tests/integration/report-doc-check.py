#!/usr/bin/env python3
"""Reports against docs/report.md: every key a --report FILE has is listed
there (a path with dots, [] for array elements, * for an object's named keys),
its end_reason is one the page lists, and the page lists exactly the end
reasons end_reason (vmm/verdict/end_reason.c) returns.
usage: report-doc-check.py DOC END_REASON_C REPORT..."""
import json
import re
import sys

doc, source, reports = sys.argv[1], sys.argv[2], sys.argv[3:]
text = open(doc).read()
keys_part, reasons_part = text.split("## End reasons")
documented = set(re.findall(r"^\| `([^`]+)` \|", keys_part, re.M))
reasons = set(re.findall(r"^\| `([a-z-]+)` \|", reasons_part, re.M))

body = open(source).read().split("const char *end_reason(")[1].split("\n}\n")[0]
returned = set(re.findall(r'"([a-z][a-z-]*)"', body))
if returned != reasons:
    sys.exit(f"end reasons: {source} returns {sorted(returned - reasons)} not in {doc}; "
             f"{doc} lists {sorted(reasons - returned)} that it does not return")


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
        sys.exit(f"{path}: end_reason {r['end_reason']!r} not in {doc}")
print(f"{len(reports)} reports documented; {len(documented)} keys, {len(reasons)} end reasons in {doc}")
