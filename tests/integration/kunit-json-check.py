#!/usr/bin/env python3
"""handover's --kunit-json against kunit.py parse --json of the same
console: the same suites, the same cases in each (a case kunit.py shows as a
sub-group, because it has parameterised subtests, counts as a case), the
same statuses where both give one. A console in which kunit.py found no
case is nothing to compare: that fails.
usage: kunit-json-check.py HANDOVER_JSON KUNIT_PY_JSON"""
import json
import sys


def flatten(root):
    out = {}
    for g in root['sub_groups']:
        cases = {c['name']: c['status'] for c in g['test_cases']}
        for sub in g['sub_groups']:
            cases.setdefault(sub['name'], None)
        out[g['name']] = cases
    return out


mine, theirs = (json.load(open(p)) for p in sys.argv[1:3])
assert mine['name'] == theirs['name'] == 'KUnit Test Group', (mine['name'], theirs['name'])
a, b = flatten(mine), flatten(theirs)
if not b:
    sys.exit('kunit.py found no suite: nothing to compare')
if not any(b.values()):
    sys.exit(f'kunit.py found no case in its {len(b)} suites: nothing to compare')
if set(a) != set(b):
    sys.exit(f'suites differ: handover {sorted(a)}, kunit.py {sorted(b)}')
for suite in a:
    if set(a[suite]) != set(b[suite]):
        sys.exit(f'{suite}: cases differ: handover {sorted(a[suite])}, kunit.py {sorted(b[suite])}')
    for case, status in b[suite].items():
        if status is not None and a[suite][case] != status:
            sys.exit(f'{suite}.{case}: handover {a[suite][case]}, kunit.py {status}')
print(f'kunit json agrees: {len(a)} suites, {sum(len(c) for c in a.values())} cases')
