#!/usr/bin/env bash
# Build a unified kernel image (UKI) for `handover UKI.efi`: Debian's
# systemd-stub (linuxx64.efi.stub, package systemd-boot-efi) with the
# kernel, the initrd, a command line and an os-release added by objcopy at
# the VMAs of systemd's man page systemd-stub(7), "Assembling Kernel
# Images":
#     .osrel 0x20000, .cmdline 0x30000, .linux 0x2000000, .initrd 0x3000000
# The stub then loads .linux with LoadImage/StartImage and hands .initrd
# to the kernel's stub through its own LoadFile2 (kernels 5.8 and later).
#
# usage: examples/make-uki.sh KERNEL INITRD [CMDLINE]
#   CMDLINE  the kernel's command line (default: "console=ttyS0 earlyprintk=serial");
#            it reaches the kernel as long as the UKI gets no LoadOptions
#            (handover gives none without --cmdline)
# Output: ~/.cache/handover/uki/KEY/uki.efi (printed), KEY a hash of the contents of this
# script, the stub, the kernel, the initrd and the command line.
# Needs systemd-boot-efi and binutils (scripts/packages.txt).
set -euo pipefail

[ $# = 2 ] || [ $# = 3 ] || { sed -n '/^# usage/,/^# Needs/s/^# \{0,1\}//p' "$0" >&2; exit 2; }
kernel=$1 initrd=$2 cmdline=${3:-console=ttyS0 earlyprintk=serial}
for f in "$kernel" "$initrd"; do
    [ -f "$f" ] && [ -r "$f" ] || { echo "make-uki: $f: not a readable file" >&2; exit 2; }
done
stub=/usr/lib/systemd/boot/efi/linuxx64.efi.stub
[ -f "$stub" ] && command -v objcopy >/dev/null ||
    { echo "make-uki: need $stub and objcopy: apt-get install systemd-boot-efi binutils" >&2; exit 1; }
# .linux must end before .initrd's VMA (the sections may not overlap).
[ "$(stat -c %s "$kernel")" -lt $((0x1000000)) ] ||
    { echo "make-uki: $kernel: 16 MiB or more, it would overlap .initrd at 0x3000000" >&2; exit 2; }

key=$( { for f in "$0" "$stub" "$kernel" "$initrd"; do sha256sum < "$f"; done; printf '%s\n' "$cmdline"; } | sha256sum | cut -c1-16)
out=${HANDOVER_CACHE:-$HOME/.cache/handover}/uki/$key
if [ -s "$out/uki.efi" ]; then echo "$out/uki.efi"; exit 0; fi

work=$(mktemp -d) part=
trap 'rm -rf "$work" "$part"' EXIT
printf '%s\n' "$cmdline" > "$work/cmdline.txt"
printf 'ID=handover\nPRETTY_NAME="handover UKI"\n' > "$work/os-release"
objcopy \
    --add-section .osrel="$work/os-release" --change-section-vma .osrel=0x20000 \
    --add-section .cmdline="$work/cmdline.txt" --change-section-vma .cmdline=0x30000 \
    --add-section .linux="$kernel" --change-section-vma .linux=0x2000000 \
    --add-section .initrd="$initrd" --change-section-vma .initrd=0x3000000 \
    "$stub" "$work/uki.efi"
mkdir -p "$out"
# Copied under a name of this run's own and renamed when whole ($work may be
# on another file system): a copy cut short is never taken as the UKI.
part=$(mktemp "$out/uki.efi.XXXXXX")
cp "$work/uki.efi" "$part"
chmod 644 "$part"
mv "$part" "$out/uki.efi"
echo "$out/uki.efi"
