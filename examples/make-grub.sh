#!/usr/bin/env bash
# Build a standalone GRUB (grubx64.efi) that boots KERNEL at once, for
# `handover grubx64.efi`: Debian's grub-mkstandalone -O x86_64-efi with a
# memdisk holding /boot/grub/grub.cfg, /vmlinuz and, with --initrd,
# /initrd.img. The config has no menu:
#     set timeout=0
#     linuxefi /vmlinuz CMDLINE
#     initrdefi /initrd.img
#     boot
# `linuxefi`, not `linux`: Debian's `linux` command without Secure Boot
# builds boot_params itself and enters the kernel in 32-bit mode without
# its EFI stub; `linuxefi` hands over to the stub through the EFI handover
# protocol.
#
# With --linux, `linux` and `initrd` instead, as grub-mkconfig writes them:
# GRUB then calls ExitBootServices itself and enters the kernel through the
# 32-bit boot protocol (Documentation/arch/x86/boot.rst), past its stub.
#
# With --menu, a menu of two entries instead, which waits 30 s for a key
# (handover --keys: '\n' boots the first, '\D\n' the second); each adds
# handover_menu=first or handover_menu=second to the command line.
#
# With --search, KERNEL is not put in the memdisk: GRUB finds /vmlinuz on
# a disk (search --file, over the firmware's BlockIO; `handover --esp DIR`
# serves DIR as a GPT disk with a FAT partition), so DIR/vmlinuz must be
# KERNEL.
#
# With --arch i386, GRUB for a 32-bit UEFI (grub-mkstandalone -O i386-efi,
# grubia32.efi, an IA-32 PE32 application for `handover --firmware-bits
# 32`): its linuxefi enters a mixed-mode kernel (CONFIG_EFI_MIXED) at its
# 32-bit handover entry.
#
# usage: examples/make-grub.sh [--arch x86_64|i386] [--cmdline STR] [--initrd FILE] [--menu] [--linux] [--search] KERNEL
#   --arch ARCH    x86_64 (default: grubx64.efi) or i386 (grubia32.efi)
#   --cmdline STR  the kernel's command line (default: "console=ttyS0 earlyprintk=serial")
#   --initrd FILE  an initramfs for initrdefi (none by default; handover's own
#                  --initrd and --exec reach the kernel through LoadFile2 instead)
#   --menu         the two-entry menu above
#   --linux        `linux` and `initrd`, not `linuxefi` and `initrdefi`
#   --search       /vmlinuz from a disk (handover --esp), not the memdisk
# Output: ~/.cache/handover/grub/KEY/grubx64.efi or grubia32.efi (printed), KEY a hash
# of the contents of this script, the GRUB modules, the kernel, the initrd and the
# command line. Needs grub-efi-amd64-bin (grub-efi-ia32-bin for --arch i386) and
# grub-common (scripts/packages.txt).
set -euo pipefail

cmdline="console=ttyS0 earlyprintk=serial" initrd= menu= linux= search= arch=x86_64
while [ $# -gt 1 ]; do
    case $1 in
    --arch) arch=$2; shift 2 ;;
    --cmdline) cmdline=$2; shift 2 ;;
    --initrd) initrd=$2; shift 2 ;;
    --menu) menu=1; shift ;;
    --linux) linux=1; shift ;;
    --search) search=1; shift ;;
    *) break ;;
    esac
done
[ $# = 1 ] && [ "${1#-}" = "$1" ] || { sed -n '/^# usage/,/^# Needs/s/^# \{0,1\}//p' "$0" >&2; exit 2; }
kernel=$1
for f in "$kernel" ${initrd:+"$initrd"}; do
    [ -f "$f" ] && [ -r "$f" ] || { echo "make-grub: $f: not a readable file" >&2; exit 2; }
done
case $arch in
x86_64) package=grub-efi-amd64-bin image=grubx64.efi ;;
i386) package=grub-efi-ia32-bin image=grubia32.efi ;;
*) echo "make-grub: --arch $arch: expected x86_64 or i386" >&2; exit 2 ;;
esac
mods=/usr/lib/grub/$arch-efi
command -v grub-mkstandalone >/dev/null && [ -f "$mods/linuxefi.mod" ] ||
    { echo "make-grub: need grub-mkstandalone and $mods: apt-get install grub-common $package" >&2; exit 1; }

loader=linuxefi
[ -z "$linux" ] || loader=linux
key=$( { for f in "$0" "$mods/kernel.img" "$mods/$loader.mod" "$kernel" ${initrd:+"$initrd"}; do sha256sum < "$f"; done
         printf '%s\n' "$cmdline" "${initrd:+with-initrd}" "${menu:+with-menu}" "${search:+with-search}" "$arch"; } | sha256sum | cut -c1-16)
out=${HANDOVER_CACHE:-$HOME/.cache/handover}/grub/$key
if [ -s "$out/$image" ]; then echo "$out/$image"; exit 0; fi

work=$(mktemp -d) part=
trap 'rm -rf "$work" "$part"' EXIT
boot_lines() {   # boot_lines EXTRA: load the kernel (and initrd) with EXTRA on its command line
    echo "$loader /vmlinuz $cmdline${1:+ $1}"
    [ -z "$initrd" ] || echo "${loader/linux/initrd} /initrd.img"
}
if [ -n "$menu" ]; then
    {
        echo "set timeout=30"
        for entry in first second; do
            echo "menuentry '$entry' {"
            boot_lines "handover_menu=$entry" | sed 's/^/    /'
            echo "}"
        done
    } > "$work/grub.cfg"
else
    { echo "set timeout=0"
      # partition maps and file systems are not loaded on demand: insmod
      [ -z "$search" ] || printf '%s\n' "insmod part_gpt" "insmod fat" "search --no-floppy --file /vmlinuz --set=root"
      boot_lines ""; echo "boot"; } > "$work/grub.cfg"
fi
files=("boot/grub/grub.cfg=$work/grub.cfg")
[ -n "$search" ] || files+=("vmlinuz=$kernel")
[ -z "$initrd" ] || files+=("initrd.img=$initrd")
grub-mkstandalone -O "$arch-efi" -o "$work/$image" --install-modules="normal $loader${search:+ search part_gpt fat}" \
    --locales= --fonts= --themes= "${files[@]}" >&2
mkdir -p "$out"
cp "$work/grub.cfg" "$out/grub.cfg"
# Copied under a name of this run's own and renamed when whole ($work may be
# on another file system): a copy cut short is never taken as the GRUB.
part=$(mktemp "$out/$image.XXXXXX")
cp "$work/$image" "$part"
chmod 644 "$part"
mv "$part" "$out/$image"
echo "$out/$image"
