#!/usr/bin/env bash
# The folders keep to their layers (docs/architecture.md): only vmm/kvm/
# calls ioctl; the pure libraries (the Makefile's PURE_DIRS) include no
# header from the VMM's upper folders (vmm.h, kvm/, tools/, host/), and the
# firmware-stub and loader reach into vmm/ only for its bottom folder, mem/.
# usage: tests/integration/layering.sh PURE_DIR...
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
calls=$(grep -rlE '\bioctl *\(' --include=*.c vmm | grep -v '^vmm/kvm/')
if [ -z "$calls" ]; then pass only-vmm-kvm-calls-ioctl
else fail only-vmm-kvm-calls-ioctl "ioctl called in: $calls"; fi
bad=
for d in "$@"; do
    for f in "$d"/*.[ch]; do
        grep -HnE '#include "[^"]*(vmm\.h|/kvm/|/tools/|/host/|^kvm/|^tools/|^host/)' "$f" && bad=1
        case $d in loader|firmware-stub)
            grep -HnE '#include "\.\./vmm/' "$f" | grep -v '\.\./vmm/mem/' && bad=1 ;;
        esac
    done
done
if [ -z "$bad" ]; then pass pure-libraries-include-only-lower-folders
else fail pure-libraries-include-only-lower-folders "see the lines above"; fi
summary
