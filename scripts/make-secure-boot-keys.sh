#!/usr/bin/env bash
# Make a Secure Boot key set in DIR with the standard tools, as a
# platform owner would (openssl; efitools' cert-to-efi-sig-list and
# sign-efi-sig-list): PK, KEK and db keys and certificates, their
# signature lists, and PK.auth, KEK.auth and db.auth signed for enrolment
# (PK by itself, KEK by PK, db by KEK), the files `handover --secure-boot
# DIR` enrols. Also other.key/other.crt, a key no list holds, to sign
# what must be refused. sbsign --key DIR/db.key --cert DIR/db.crt signs
# an image db admits. Each CERT (PEM or DER) given after DIR is in db too,
# as a distribution's CA is (Debian's: /usr/share/shim/debian-uefi-ca.der),
# so that what it signed boots straight from the firmware.
# usage: scripts/make-secure-boot-keys.sh DIR [CERT...]
set -euo pipefail
dir=${1:?usage: $0 DIR [CERT...]}
for tool in openssl:openssl cert-to-efi-sig-list:efitools sign-efi-sig-list:efitools; do
    command -v "${tool%%:*}" >/dev/null ||
        { echo "make-secure-boot-keys: need ${tool%%:*}: apt-get install ${tool#*:}" >&2; exit 1; }
done
shift
mkdir -p "$dir"
certs=()
for cert in "$@"; do
    certs+=("$(realpath "$cert")")
done
cd "$dir"
owner=$(cat /proc/sys/kernel/random/uuid)
for name in PK KEK db other; do
    openssl req -new -x509 -newkey rsa:2048 -nodes -sha256 -days 3650 -subj "/CN=handover test $name/" \
        -keyout "$name.key" -out "$name.crt" 2>/dev/null
done
for name in PK KEK db; do
    cert-to-efi-sig-list -g "$owner" "$name.crt" "$name.esl" >/dev/null
done
sign-efi-sig-list -g "$owner" -k PK.key -c PK.crt PK PK.esl PK.auth >/dev/null
sign-efi-sig-list -g "$owner" -k PK.key -c PK.crt KEK KEK.esl KEK.auth >/dev/null
for i in "${!certs[@]}"; do
    openssl x509 -in "${certs[$i]}" -inform "$(grep -q -- '-----BEGIN' "${certs[$i]}" && echo pem || echo der)" \
        -out "extra-$i.crt"
    cert-to-efi-sig-list -g "$owner" "extra-$i.crt" "extra-$i.esl" >/dev/null
    cat "extra-$i.esl" >> db.esl
done
sign-efi-sig-list -g "$owner" -k KEK.key -c KEK.crt db db.esl db.auth >/dev/null
