#!/usr/bin/env python3
"""Check a --tpm boot: tpm2_eventlog (tpm2-tools) parses the --tpm-log FILE,
the PCRs it replays from the log are the SHA-256 PCRs --report gives, and
each PCR named on the command line holds what it should.

usage: measured-boot-check.py LOG REPORT [N=HEX | N=file:PATH]...
  N=HEX        PCR N holds HEX (from systemd-measure, say)
  N=file:PATH  PCR N is one extend of the SHA-256 of PATH's bytes (the
               kernel's stub measuring the initrd into PCR 9)"""
import hashlib
import json
import re
import subprocess
import sys

if len(sys.argv) < 3:
    sys.exit(__doc__)
log, report = sys.argv[1], sys.argv[2]
out = subprocess.run(["tpm2_eventlog", log], capture_output=True, text=True)
if out.returncode:
    sys.exit(f"tpm2_eventlog {log}: exit status {out.returncode}: {out.stderr.strip()}")
# The replay, at the end: "pcrs:", "  sha256:", then "    N  : 0xHEX" lines.
replayed, bank = {}, None
for line in out.stdout.split("pcrs:", 1)[-1].splitlines():
    if re.match(r"^  \S+:$", line):
        bank = line.strip()[:-1]
    m = re.match(r"^    (\d+) *: 0x([0-9A-Fa-f]+)$", line)
    if m and bank == "sha256":
        replayed[m.group(1)] = m.group(2).lower()
events = out.stdout.count("- EventNum:")
if not events or not replayed:
    sys.exit(f"tpm2_eventlog {log}: {events} events, {len(replayed)} SHA-256 PCRs replayed: nothing to compare")
reported = json.load(open(report)).get("pcrs", {}).get("sha256")
if reported is None:
    sys.exit(f"{report} has no pcrs.sha256")
if replayed != reported:
    sys.exit(f"the log replays to {replayed}, the report says {reported}")
for want in sys.argv[3:]:
    pcr, value = want.split("=", 1)
    if value.startswith("file:"):
        with open(value[5:], "rb") as f:
            value = hashlib.sha256(bytes(32) + hashlib.sha256(f.read()).digest()).hexdigest()
    if reported.get(pcr) != value.lower():
        sys.exit(f"PCR {pcr} is {reported.get(pcr)}, expected {value.lower()}")
print(f"measured boot ok: {events} events; PCRs {', '.join(sorted(reported, key=int))} replayed from the log "
      f"as --report gives them; {len(sys.argv) - 3} expected values hold")
