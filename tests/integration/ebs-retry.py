#!/usr/bin/env python3
"""Check a --trace-efi trace for the stub's ExitBootServices retry: the
injected stale-key failure, then GetMemoryMap into the same buffer, then
one successful ExitBootServices, and no other ExitBootServices."""
import json
import sys

calls = [json.loads(line) for line in open(sys.argv[1])]
ebs = [i for i, c in enumerate(calls) if c["call"] == "ExitBootServices"]
if len(ebs) != 2:
    sys.exit(f"expected 2 ExitBootServices calls, found {len(ebs)}")
first, second = calls[ebs[0]], calls[ebs[1]]
if first.get("injected") != "ebs-stale-key" or first["status"] != "EFI_INVALID_PARAMETER":
    sys.exit(f"first ExitBootServices was not the injected failure: {first}")
between = [c["call"] for c in calls[ebs[0] + 1:ebs[1]]]
if between != ["GetMemoryMap"]:
    sys.exit(f"between the two ExitBootServices calls: {between}, expected one GetMemoryMap")
if second["status"] != "EFI_SUCCESS":
    sys.exit(f"the retry failed: {second}")
print("ExitBootServices retried once after the stale key, with one GetMemoryMap in between")
