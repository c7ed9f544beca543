#!/usr/bin/env bash
# What the real-KVM tier's signed Debian chain under Secure Boot uses
# (tests/integration/realkvm.sh, docs/secure-boot.md), made with the
# standard tools: in DIR, keys (scripts/make-secure-boot-keys.sh) and
# keys-debian (the same with Debian's CA in db too); esp: shim-unsigned's
# shimx64.efi signed with db's key (sbsign) as \EFI\BOOT\BOOTX64.EFI,
# Debian's signed GRUB beside it, its grub.cfg where its embedded prefix
# looks (\EFI\debian) and KERNEL (Debian's signed 6.1) at the root;
# kernel-tampered: esp with one byte of the kernel changed; tampered: esp's
# shim with one byte of GRUB changed; unsigned: shim unsigned. Kept in the
# cache by the contents of what makes them (tests/fixture-cache.sh).
# usage: tests/sb-chain-fixtures.sh DIR KERNEL
set -euo pipefail
dir=${1:?usage: $0 DIR KERNEL} kernel=${2:?usage: $0 DIR KERNEL}
top=$(cd "$(dirname "$0")/.." && pwd)
shim=/usr/lib/shim/shimx64.efi grub=/usr/lib/grub/x86_64-efi-signed/grubx64.efi.signed
ca=/usr/share/shim/debian-uefi-ca.der
for f in "$shim" "$grub" "$ca"; do
    [ -f "$f" ] || { echo "sb-chain-fixtures: no $f: apt-get install shim-unsigned grub-efi-amd64-signed" >&2; exit 1; }
done
. "$top/tests/fixture-cache.sh"
key=$(fixture_key "$0" "$kernel" "$shim" "$grub" "$ca" "$top/tests/fixture-cache.sh" \
      "$top/scripts/make-secure-boot-keys.sh" "$top/tests/tamper-pe.py")
fixture_from_cache "$dir" "$key" && exit 0
rm -rf "$dir"
mkdir -p "$dir/esp/EFI/BOOT" "$dir/esp/EFI/debian" "$dir/tampered/EFI/BOOT" "$dir/unsigned/EFI/BOOT"
"$top/scripts/make-secure-boot-keys.sh" "$dir/keys"
"$top/scripts/make-secure-boot-keys.sh" "$dir/keys-debian" "$ca"
sbsign --key "$dir/keys/db.key" --cert "$dir/keys/db.crt" --output "$dir/esp/EFI/BOOT/BOOTX64.EFI" "$shim"
cp "$grub" "$dir/esp/EFI/BOOT/grubx64.efi"
cp "$kernel" "$dir/esp/vmlinuz"
printf '%s\n' 'set timeout=0' 'linux /vmlinuz console=ttyS0 panic=-1' 'boot' \
    'echo "sb-chain: no kernel started"' 'reboot' > "$dir/esp/EFI/debian/grub.cfg"
cp -r "$dir/esp" "$dir/kernel-tampered"
"$top/tests/tamper-pe.py" "$kernel" "$dir/kernel-tampered/vmlinuz"
cp "$dir/esp/EFI/BOOT/BOOTX64.EFI" "$dir/tampered/EFI/BOOT/"
cp "$shim" "$dir/unsigned/EFI/BOOT/BOOTX64.EFI"
"$top/tests/tamper-pe.py" "$grub" "$dir/tampered/EFI/BOOT/grubx64.efi"
fixture_to_cache "$dir" "$key"
