#!/usr/bin/env python3
"""Check the --report FILE [SIGNATURE] of a --stop-at ebs run: it stopped
there with status 0, and the e820 table in boot_params is exactly what the
memory map at ExitBootServices gives (types converted, neighbours merged, as
the kernel's setup_e820 does in drivers/firmware/efi/libstub/x86-stub.c),
converted here from the map itself, not taken from handover's own
e820_from_memory_map (which must say the same); efi_info signed SIGNATURE
(default EL64; EL32 behind --firmware-bits 32)."""
import json
import sys

# setup_e820's types; a type it does not list (OEM, OS, unaccepted) is left out.
E820_TYPE = {
    "EfiLoaderCode": "RAM", "EfiLoaderData": "RAM", "EfiBootServicesCode": "RAM", "EfiBootServicesData": "RAM",
    "EfiConventionalMemory": "RAM", "EfiACPIReclaimMemory": "ACPI", "EfiACPIMemoryNVS": "NVS",
    "EfiPersistentMemory": "persistent", "EfiUnusableMemory": "unusable",
    "EfiReservedMemoryType": "reserved", "EfiRuntimeServicesCode": "reserved", "EfiRuntimeServicesData": "reserved",
    "EfiMemoryMappedIO": "reserved", "EfiMemoryMappedIOPortSpace": "reserved", "EfiPalCode": "reserved",
}


def e820_of(memory_map):
    """The e820 table setup_e820 makes of the map, as the report writes one."""
    out = []
    for d in memory_map:
        kind = E820_TYPE.get(d["type"])
        if kind is None:
            continue
        start, end = int(d["start"], 16), int(d["start"], 16) + d["pages"] * 4096 - 1
        if out and out[-1][2] == kind and out[-1][1] + 1 == start:
            out[-1][1] = end
        else:
            out.append([start, end, kind])
    return [{"start": hex(s), "end": hex(e), "type": t} for s, e, t in out]


r = json.load(open(sys.argv[1]))
for key in ("kernel", "entry", "firmware_calls", "vm_exits", "vm_exits_by_phase", "phase_seconds", "host", "console",
            "memory_map_at_exit_boot_services", "e820_from_memory_map", "boot_params"):
    if key not in r:
        sys.exit(f"report lacks {key}")
if (r.get("end_reason"), r.get("exit_status")) != ("stop-at-ebs", 0):
    sys.exit(f"the run ended {r.get('end_reason')}, exit status {r.get('exit_status')}: not stopped at ExitBootServices")
if not r["memory_map_at_exit_boot_services"]:
    sys.exit("the memory map at ExitBootServices is empty: nothing to check the e820 table against")
got, want = r["boot_params"]["e820"], e820_of(r["memory_map_at_exit_boot_services"])
if got != want:
    sys.exit(f"e820 {got} != memory map {want}")
if r["e820_from_memory_map"] != want:
    sys.exit(f"e820_from_memory_map {r['e820_from_memory_map']} != what the memory map gives, {want}")
signature = sys.argv[2] if len(sys.argv) > 2 else "EL64"
if r["boot_params"]["efi_loader_signature"] != signature:
    sys.exit(f"boot_params efi_info lacks {signature}")
# --tpm: each PCR a number 0-23, its value 32 bytes of lowercase hex.
for pcr, value in r.get("pcrs", {}).get("sha256", {}).items():
    if not (pcr.isdigit() and int(pcr) < 24 and len(value) == 64 and set(value) <= set("0123456789abcdef")):
        sys.exit(f"pcrs.sha256: PCR {pcr!r} = {value!r} is not a PCR number and a SHA-256 digest in hex")
if r["firmware_calls"]["by_name"].get("ExitBootServices", 0) < 1:
    sys.exit("no ExitBootServices call counted")
# The firmware phase (entry to ExitBootServices): every VM exit is a
# firmware call or the guest's own port I/O (the UART), one exit each.
fw = r["vm_exits_by_phase"]["firmware"]
if set(fw["by_reason"]) - {"io"} or fw["total"] != fw["firmware_calls"] + fw["port_io"]:
    sys.exit(f"firmware phase: exits other than firmware calls and port I/O: {fw}")
if fw["firmware_calls"] != r["firmware_calls"]["total"]:
    sys.exit(f"firmware phase: {fw['firmware_calls']} hypercall exits for {r['firmware_calls']['total']} calls")
# Host cost: the guest RAM the host backs is part of the VMM's RSS, and the
# rest is the VMM's own (bounded by the bench, bench/README.md).
h = r["host"]
if not 0 < h["guest_ram_touched_kib"] <= h["peak_rss_kib"] or \
        h["rss_beyond_guest_ram_kib"] != h["peak_rss_kib"] - h["guest_ram_touched_kib"]:
    sys.exit(f"host cost inconsistent: {h}")
print(f"report ok: {len(got)} e820 entries agree with {len(r['memory_map_at_exit_boot_services'])} descriptors, "
      f"{r['firmware_calls']['total']} firmware calls; firmware phase: {fw['total']} exits = "
      f"{fw['firmware_calls']} calls + {fw['port_io']} port I/O; VMM RSS {h['peak_rss_kib']} KiB, "
      f"{h['guest_ram_touched_kib']} KiB of it guest RAM")
