#!/usr/bin/env python3
"""The README and docs/ against the tree. The README opens with the commands
a new user runs: each script it names is an executable file here and each
make target is one the Makefile defines. Every option (--name) the pages
write is one `handover --help` lists, or one of another program named
below that its script takes. (--help itself is documented only as
`handover --help` and the man page made from it.) Every file of the tree
a page names by its path (guest/layout.h, vmm/kvm/run.c, ...: source,
script, doc and data files by their extension) exists, and so does every
page an example names. Every golden trace or sweep is named, and
testing.md names every tier of the timing table and lists only
targets make help shows.
usage: docs-check.py TOP HANDOVER"""
import glob
import os
import re
import subprocess
import sys

top, handover = sys.argv[1], sys.argv[2]
# Options of other programs the pages name: the script that takes each
# (its text names the option), or None for a program outside this tree.
OTHER = {
    "--kind": "scripts/kvm-host",
    "--menu": "examples/make-grub.sh",
    "--linux": "examples/make-grub.sh",
    "--arch": "examples/make-grub.sh",
    "--search": "examples/make-grub.sh",
    "--json": None,   # the kernel's tools/testing/kunit/kunit.py
    "--key": None,    # sbsigntool's sbsign
    "--cert": None,
    "--output": None,
}
errors = []

readme = os.path.join(top, "README.md")
text = open(readme).read()
first = re.search(r"^```sh\n(.*?)^```", text, re.M | re.S)
if not first or text.index("```sh") > text.index("\n## "):
    errors.append("README.md: does not open with a ```sh block of commands before its first section")
else:
    makefile = open(os.path.join(top, "Makefile")).read()
    for word in re.split(r"\s*(?:&&|\n)\s*", first.group(1).strip()):
        argv = word.split()
        if argv[0] == "make":
            for target in argv[1:]:
                if not re.search(rf"^{re.escape(target)}:", makefile, re.M):
                    errors.append(f"README.md: make {target}: no such target in the Makefile")
        elif not os.access(os.path.join(top, argv[0]), os.X_OK):
            errors.append(f"README.md: {argv[0]}: not an executable file")

help_text = subprocess.run([handover, "--help"], capture_output=True, text=True, check=True).stdout
options = set(re.findall(r"^  (--[a-z][a-z0-9-]*)", help_text, re.M))
if len(options) < 10:
    errors.append(f"{handover} --help lists only {sorted(options)}: not the option table")
for opt, script in OTHER.items():
    if script and opt not in open(os.path.join(top, script)).read():
        errors.append(f"{script} does not take {opt}")

pages = [readme] + sorted(glob.glob(os.path.join(top, "docs", "*.md")))
for page in pages:
    for n, line in enumerate(open(page), 1):
        for opt in re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", line):
            if opt not in options and opt not in OTHER:
                errors.append(f"{os.path.relpath(page, top)}:{n}: {opt} is not an option of handover --help")

# Paths into the tree's own folders; relative to the page's folder first
# (docs/ link each other as report.md), then to the top.
FOLDERS = "guest|firmware-stub|loader|vmm|tests|scripts|examples|bench|docs"
for page in pages:
    for n, line in enumerate(open(page), 1):
        for path in re.findall(rf"(?<![\w./-])(?:{FOLDERS})/[\w./-]*\.(?:c|h|S|sh|py|md|yml|mk|json|ld)\b", line):
            if not os.path.exists(os.path.join(top, path)):
                errors.append(f"{os.path.relpath(page, top)}:{n}: {path}: no such file in the tree")

# The examples a user copies name only pages the tree (or its install) has.
for example in sorted(glob.glob(os.path.join(top, "examples", "*"))):
    for n, line in enumerate(open(example), 1):
        for page in re.findall(r"[\w./-]+\.md\b", line):
            if not any(os.path.exists(os.path.join(top, d, page)) for d in ("", "docs", "examples")):
                errors.append(f"{os.path.relpath(example, top)}:{n}: {page}: no such page in the tree")

# Every golden file the tests compare against is one a page names.
named_text = "".join(open(page).read() for page in pages)
for path in sorted(glob.glob(os.path.join(top, "tests", "golden", "*.trace")) + glob.glob(os.path.join(top, "tests", "golden", "*.sweep.json"))):
    if os.path.basename(path) not in named_text:
        errors.append(f"tests/golden/{os.path.basename(path)}: no page names it")

# testing.md names every tier of the timing table, so its rows can be read.
testing = open(os.path.join(top, "docs", "testing.md")).read()
for tier in re.findall(r"^\| ([a-z][a-z0-9-]*) \|", open(os.path.join(top, "tests", "timings.md")).read(), re.M):
    if not re.search(rf"(?<![\w-]){re.escape(tier)}(?![\w-])", testing):
        errors.append(f"docs/testing.md: the tier {tier} of tests/timings.md is not named")

# testing.md's target table lists what make help does.
makefile_text = open(os.path.join(top, "Makefile")).read()
helped = set(re.findall(r'^\t@echo "make ([a-z][a-z0-9-]*)', makefile_text, re.M))
for n, line in enumerate(open(os.path.join(top, "docs", "testing.md")), 1):
    m = re.match(r"^    make ([a-z][a-z0-9-]*)", line)
    if m and m.group(1) not in helped:
        errors.append(f"docs/testing.md:{n}: make {m.group(1)} is not in make help")

for e in errors:
    print(e)
if errors:
    sys.exit(1)
print(f"docs agree with the tree: {len(pages)} pages, {len(options)} options")
