#!/usr/bin/env python3
"""Check a --trace-efi trace for the stub's ExitBootServices retry
(efi_exit_boot_services, drivers/firmware/efi/libstub/efi-stub-helper.c):
the injected stale-key failure, then one GetMemoryMap that succeeds into
the buffer of the map the first try was made with, then one successful
ExitBootServices with the key that GetMemoryMap gave, and no other
ExitBootServices."""
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
gmm = calls[ebs[0] + 1]
if gmm["status"] != "EFI_SUCCESS":
    sys.exit(f"the GetMemoryMap between them failed: {gmm}")
# GetMemoryMap(&size, map, &key, ...): the map of the first try is the last one got before it.
got = [c for c in calls[:ebs[0]] if c["call"] == "GetMemoryMap" and c["status"] == "EFI_SUCCESS"]
if not got or got[-1]["args"][1] != gmm["args"][1]:
    sys.exit(f"the GetMemoryMap between them wrote {gmm['args'][1]}, not the first try's map "
             f"{got[-1]['args'][1] if got else '(none)'}")
if second["status"] != "EFI_SUCCESS":
    sys.exit(f"the retry failed: {second}")
if int(second["args"][1], 16) != gmm["decoded"]["map_key"]:
    sys.exit(f"the retry succeeded with key {second['args'][1]}, but GetMemoryMap gave {gmm['decoded']['map_key']}")
print("ExitBootServices retried once after the stale key, with one GetMemoryMap into the same map in between")
