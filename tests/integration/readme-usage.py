#!/usr/bin/env python3
"""The README's usage block (the indented block after "## Usage") is the
output of `handover --help`, line for line.
usage: readme-usage.py README HANDOVER [--write]   (--write: make it so)"""
import subprocess
import sys

readme, handover = sys.argv[1], sys.argv[2]
text = open(readme).read()
start = text.index("## Usage\n\n") + len("## Usage\n\n")
block = []
for line in text[start:].split("\n"):
    if line and not line.startswith("    "):
        break
    block.append(line[4:])
while block and not block[-1]:
    block.pop()
help_text = subprocess.run([handover, "--help"], capture_output=True, text=True, check=True).stdout.rstrip("\n").split("\n")
if "--write" in sys.argv[3:]:
    end = start + len("\n".join(("    " + l if l else "") for l in block))
    new = "\n".join(("    " + l if l else "") for l in help_text)
    open(readme, "w").write(text[:start] + new + text[end:])
    sys.exit(0)
if block != help_text:
    for i, (a, b) in enumerate(zip(block + [""] * len(help_text), help_text + [""] * len(block))):
        if a != b:
            print(f"line {i + 1}: README {a!r} but --help {b!r}")
            break
    sys.exit(1)
print(f"README usage = --help ({len(block)} lines)")
