#!/usr/bin/env python3
"""Hand-made inputs for the checkers the boots' results go through
(report-check.py, sweep-check.py, kunit-json-check.py, ebs-retry.py): one each checker passes, and wrong ones
it must fail, each of which it once passed. payload.sh's checker-* tests
run the checkers on them, without a guest.
usage: checker-inputs.py DIR"""
import copy
import json
import os
import sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def write(name, value):
    with open(os.path.join(out, name), "w") as f:
        json.dump(value, f)


# A --stop-at ebs run's report, cut to what report-check.py reads: a map of
# five descriptors, the e820 table setup_e820 makes of it (the ACPI page
# keeps the RAM either side of it apart).
MEMORY_MAP = [
    {"type": "EfiBootServicesData", "start": "0x0", "pages": 16, "attribute": "0xf"},
    {"type": "EfiConventionalMemory", "start": "0x10000", "pages": 128, "attribute": "0xf"},
    {"type": "EfiReservedMemoryType", "start": "0x90000", "pages": 112, "attribute": "0x1"},
    {"type": "EfiACPIReclaimMemory", "start": "0x100000", "pages": 1, "attribute": "0xf"},
    {"type": "EfiConventionalMemory", "start": "0x101000", "pages": 3839, "attribute": "0xf"},
]
E820 = [
    {"start": "0x0", "end": "0x8ffff", "type": "RAM"},
    {"start": "0x90000", "end": "0xfffff", "type": "reserved"},
    {"start": "0x100000", "end": "0x100fff", "type": "ACPI"},
    {"start": "0x101000", "end": "0xffffff", "type": "RAM"},
]
REPORT = {
    "kernel": {"path": "bzImage", "version": "6.1", "protocol": "0x20f", "xloadflags": "0x7f"},
    "entry": "handover", "cmdline": "console=ttyS0", "exit_status": 0, "end_reason": "stop-at-ebs",
    "firmware_calls": {"total": 10, "by_name": {"ExitBootServices": 1}},
    "vm_exits": {"io": 12}, "phase_seconds": {}, "console": {},
    "vm_exits_by_phase": {"firmware": {"by_reason": {"io": 12}, "total": 12, "firmware_calls": 10, "port_io": 2}},
    "host": {"guest_ram_touched_kib": 100, "peak_rss_kib": 300, "rss_beyond_guest_ram_kib": 200},
    "memory_map_at_exit_boot_services": MEMORY_MAP, "e820_from_memory_map": E820,
    "boot_params": {"e820": E820, "efi_loader_signature": "EL64"},
}


def report(**change):
    r = copy.deepcopy(REPORT)
    for path, value in change.items():
        *parents, key = path.split("__")
        o = r
        for p in parents:
            o = o[p]
        o[key] = value
    return r


write("report-good.json", REPORT)
# A run that ended before its stop point (exit 10), its report otherwise whole.
write("report-unreached.json", report(end_reason="stop-unreached", exit_status=10))
# No map, no e820: two empty tables agree.
write("report-empty-map.json", report(memory_map_at_exit_boot_services=[], e820_from_memory_map=[], boot_params__e820=[]))
# The stub's table and handover's conversion agree, and both merge the ACPI
# page into RAM, which the map does not give.
MERGED = E820[:2] + [{"start": "0x100000", "end": "0xffffff", "type": "RAM"}]
write("report-not-the-map.json", report(e820_from_memory_map=MERGED, boot_params__e820=MERGED))

SECONDS = {"speedup": 1.0, "sweep": 1.0, "one_boot_per_fault_estimate": 1.0}
write("sweep-no-cell.json", {"cells": [], "seconds": SECONDS})
write("sweep-one-cell.json", {"cells": [{"seq": 3, "call": "AllocatePool", "fault": "alloc-pool-fail",
                                         "inject": "alloc-pool-fail:1", "outcome": "failed-cleanly", "status": 5,
                                         "seconds": 0.1}], "seconds": SECONDS})
# Stand-ins for the single run: one judges the fault it was given, the
# other another fault.
for name, spec in (("single-this-fault", "$s"), ("single-other-fault", "getvar-error")):
    path = os.path.join(out, name)
    with open(path, "w") as f:
        f.write('#!/bin/sh\nfor a; do [ "$p" = --inject ] && s=$a; p=$a; done\n'
                f'echo "fault outcome: {spec}: failed-cleanly" >&2\nexit 5\n')
    os.chmod(path, 0o755)

# --kunit-json and kunit.py's JSON of a console whose suites ran no case.
write("kunit-no-case.json", {"name": "KUnit Test Group", "test_cases": [],
                             "sub_groups": [{"name": "handover_selftest", "test_cases": [], "sub_groups": []}]})


# The stub's ExitBootServices retry after an injected stale key, as
# tests/golden/tiny-handover.trace writes calls.
def call(seq, name, args, status, key, **more):
    c = {"seq": seq, "phase": "boot", "call": name, "args": args, "status": status, "map_key": key}
    c.update(more)
    return c


def gmm(seq, buf, key):
    return call(seq, "GetMemoryMap", ["0x1fffb000", buf, "0x1fffb018", "0x1fffb008", "0x1fffb010"], "EFI_SUCCESS",
                key, decoded={"map_size": 480, "map_key": key})


def ebs(seq, key, status, key_after, **more):
    return call(seq, "ExitBootServices", ["0x102300", hex(key)], status, key_after, decoded={"map_key": key_after},
                **more)


def trace(name, retry_buf="0x1fffb028", retry_key=15):
    calls = [gmm(6, "0x1fffb028", 14), ebs(7, 14, "EFI_INVALID_PARAMETER", 15, injected="ebs-stale-key"),
             gmm(8, retry_buf, 15), ebs(9, retry_key, "EFI_SUCCESS", 15)]
    with open(os.path.join(out, name), "w") as f:
        f.writelines(json.dumps(c) + "\n" for c in calls)


trace("ebs-retry-good.trace")
# The retry succeeded with the stale key: a firmware that takes any key.
trace("ebs-retry-stale-key-taken.trace", retry_key=14)
# The map read again into another buffer: the stub may not allocate then.
trace("ebs-retry-other-buffer.trace", retry_buf="0x2000000")
