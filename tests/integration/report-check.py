#!/usr/bin/env python3
"""Check a --report FILE: well-formed, and the e820 table in boot_params is
exactly what the memory map at ExitBootServices gives (types converted,
neighbours merged, as the kernel's setup_e820 does)."""
import json
import sys

r = json.load(open(sys.argv[1]))
for key in ("kernel", "entry", "firmware_calls", "vm_exits", "phase_seconds", "console",
            "memory_map_at_exit_boot_services", "e820_from_memory_map", "boot_params"):
    if key not in r:
        sys.exit(f"report lacks {key}")
got, want = r["boot_params"]["e820"], r["e820_from_memory_map"]
if got != want:
    sys.exit(f"e820 {got} != memory map {want}")
if r["boot_params"]["efi_loader_signature"] != "EL64":
    sys.exit("boot_params efi_info lacks EL64")
if r["firmware_calls"]["by_name"].get("ExitBootServices", 0) < 1:
    sys.exit("no ExitBootServices call counted")
print(f"report ok: {len(got)} e820 entries agree with {len(r['memory_map_at_exit_boot_services'])} descriptors, "
      f"{r['firmware_calls']['total']} firmware calls")
