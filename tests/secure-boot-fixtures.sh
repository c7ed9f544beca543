#!/usr/bin/env bash
# What the Secure Boot tests use, made at test time with the standard
# tools: a key set (scripts/make-secure-boot-keys.sh) in DIR/keys, and in
# DIR the EFI image IMAGE signed (sbsign) by db's key (db-signed.efi) and
# by a key no list holds (other-signed.efi), IMAGE unsigned
# (unsigned.efi), the db-signed file with a byte of its code changed
# (tampered.efi), the db-signed file with its signature in the
# WIN_CERTIFICATE_UEFI_GUID form (db-signed-uefi-guid.efi); the keys
# again with IMAGE's SHA-256 in a dbx signed by KEK (DIR/dbx-keys); db.auth written with a TimeStamp older than the
# enrolled one's (old-db.auth, a replay) and db.auth signed by the
# unenrolled key (other-db.auth); IMAGE signed by db's key and then by the
# other key (db-other-signed.efi), and the keys with the other key's
# certificate in dbx (DIR/other-dbx-keys), and appended to db
# (append-other-db.auth); an append of nothing to dbx
# (append-nothing-dbx.auth); a CA and a leaf it issued
# (DIR/ca), IMAGE signed by the leaf (ca-signed.efi), and the keys with the
# CA as db (DIR/ca-keys) and as db and dbx (DIR/ca-dbx-keys); the keys
# with an EFI_CERT_X509_SHA256 dbx (tests/x509-sha256-sig-list.py) holding
# the SHA-256 of the TBSCertificate of db's certificate (DIR/tbs-dbx-keys),
# of the other key's (DIR/other-tbs-dbx-keys), and of the CA's with the CA
# as db (DIR/ca-tbs-dbx-keys).
# usage: tests/secure-boot-fixtures.sh DIR IMAGE
set -euo pipefail
dir=${1:?usage: $0 DIR IMAGE} image=${2:?usage: $0 DIR IMAGE}
top=$(cd "$(dirname "$0")/.." && pwd)
# Kept in the cache by the contents of what makes them (tests/fixture-cache.sh).
. "$top/tests/fixture-cache.sh"
key=$(fixture_key "$0" "$image" "$top/tests/fixture-cache.sh" "$top/scripts/make-secure-boot-keys.sh" \
      "$top/tests/tamper-pe.py" "$top/tests/uefi-guid-cert.py" "$top/tests/x509-sha256-sig-list.py")
fixture_from_cache "$dir" "$key" && exit 0
rm -rf "$dir"
mkdir -p "$dir"
"$top/scripts/make-secure-boot-keys.sh" "$dir/keys"
k=$dir/keys
cp "$image" "$dir/unsigned.efi"
sbsign --key "$k/db.key" --cert "$k/db.crt" --output "$dir/db-signed.efi" "$image" 2>/dev/null
sbsign --key "$k/other.key" --cert "$k/other.crt" --output "$dir/other-signed.efi" "$image" 2>/dev/null
"$top/tests/tamper-pe.py" "$dir/db-signed.efi" "$dir/tampered.efi"
"$top/tests/uefi-guid-cert.py" "$dir/db-signed.efi" "$dir/db-signed-uefi-guid.efi"
mkdir -p "$dir/dbx-keys"
cp "$k"/*.auth "$dir/dbx-keys/"
hash-to-efi-sig-list "$image" "$dir/dbx.esl" >/dev/null
sign-efi-sig-list -k "$k/KEK.key" -c "$k/KEK.crt" dbx "$dir/dbx.esl" "$dir/dbx-keys/dbx.auth" >/dev/null
sign-efi-sig-list -t "2001-01-01 00:00:00" -k "$k/KEK.key" -c "$k/KEK.crt" db "$k/db.esl" "$dir/old-db.auth" \
    >/dev/null
# Later than keys/db.auth (made in the same second, maybe), so that only its signature is wrong.
sign-efi-sig-list -t "2099-01-01 00:00:00" -k "$k/other.key" -c "$k/other.crt" db "$k/db.esl" "$dir/other-db.auth" \
    >/dev/null
# IMAGE signed twice (two WIN_CERTIFICATEs): by db's key, then by the other
# key; the keys again with the other key's certificate in a dbx signed by
# KEK (DIR/other-dbx-keys).
sbsign --key "$k/other.key" --cert "$k/other.crt" --output "$dir/db-other-signed.efi" "$dir/db-signed.efi" 2>/dev/null
mkdir -p "$dir/other-dbx-keys"
cp "$k"/*.auth "$dir/other-dbx-keys/"
cert-to-efi-sig-list "$k/other.crt" "$dir/other.esl" >/dev/null
sign-efi-sig-list -k "$k/KEK.key" -c "$k/KEK.crt" dbx "$dir/other.esl" "$dir/other-dbx-keys/dbx.auth" >/dev/null
# The other key's certificate appended to db (sign-efi-sig-list -a), signed by KEK.
sign-efi-sig-list -a -k "$k/KEK.key" -c "$k/KEK.crt" db "$dir/other.esl" "$dir/append-other-db.auth" >/dev/null
# An append of nothing to dbx, signed by KEK.
sign-efi-sig-list -a -k "$k/KEK.key" -c "$k/KEK.crt" dbx /dev/null "$dir/append-nothing-dbx.auth" >/dev/null
# A CA and a leaf it issued (DIR/ca), IMAGE signed by the leaf alone
# (ca-signed.efi: the signature does not carry the CA); the keys again with
# the CA as db (DIR/ca-keys), and with the CA in dbx too (DIR/ca-dbx-keys).
ca=$dir/ca
mkdir -p "$ca"
openssl req -new -x509 -newkey rsa:2048 -nodes -sha256 -days 3650 -subj "/CN=handover test CA/" \
    -keyout "$ca/ca.key" -out "$ca/ca.crt" 2>/dev/null
openssl req -new -newkey rsa:2048 -nodes -sha256 -subj "/CN=handover test leaf/" -keyout "$ca/leaf.key" \
    -out "$ca/leaf.csr" 2>/dev/null
openssl x509 -req -in "$ca/leaf.csr" -CA "$ca/ca.crt" -CAkey "$ca/ca.key" -set_serial 2 -days 3650 -sha256 \
    -out "$ca/leaf.crt" 2>/dev/null
sbsign --key "$ca/leaf.key" --cert "$ca/leaf.crt" --output "$dir/ca-signed.efi" "$image" 2>/dev/null
cert-to-efi-sig-list "$ca/ca.crt" "$ca/ca.esl" >/dev/null
for keys in ca-keys ca-dbx-keys; do
    mkdir -p "$dir/$keys"
    cp "$k/PK.auth" "$k/KEK.auth" "$dir/$keys/"
    sign-efi-sig-list -k "$k/KEK.key" -c "$k/KEK.crt" db "$ca/ca.esl" "$dir/$keys/db.auth" >/dev/null
done
sign-efi-sig-list -k "$k/KEK.key" -c "$k/KEK.crt" dbx "$ca/ca.esl" "$dir/ca-dbx-keys/dbx.auth" >/dev/null
# dbx revoking a certificate by the SHA-256 of its TBSCertificate, a
# revocation time in 2020 (the signatures carry no timestamp), signed by KEK.
tbs_dbx() {
    local keys=$1 cert=$2
    openssl x509 -in "$cert" -outform DER -out "$dir/$keys/revoked.der"
    "$top/tests/x509-sha256-sig-list.py" "$dir/$keys/revoked.der" 2020-01-01 "$dir/$keys/dbx.esl"
    sign-efi-sig-list -k "$k/KEK.key" -c "$k/KEK.crt" dbx "$dir/$keys/dbx.esl" "$dir/$keys/dbx.auth" >/dev/null
}
for keys in tbs-dbx-keys other-tbs-dbx-keys; do
    mkdir -p "$dir/$keys"
    cp "$k"/*.auth "$dir/$keys/"
done
tbs_dbx tbs-dbx-keys "$k/db.crt"
tbs_dbx other-tbs-dbx-keys "$k/other.crt"
mkdir -p "$dir/ca-tbs-dbx-keys"
cp "$dir/ca-keys/"*.auth "$dir/ca-tbs-dbx-keys/"
tbs_dbx ca-tbs-dbx-keys "$ca/ca.crt"
fixture_to_cache "$dir" "$key"
