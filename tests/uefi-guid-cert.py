#!/usr/bin/env python3
"""A signed PE image with each signature moved into the other form the UEFI
spec allows (2.10 section 32.2.4): every WIN_CERTIFICATE of type
WIN_CERT_TYPE_PKCS_SIGNED_DATA becomes a WIN_CERTIFICATE_UEFI_GUID of type
EFI_CERT_TYPE_PKCS7_GUID holding the same PKCS#7. The certificate table is
outside the Authenticode digest, so the signatures stay valid. The table
must end the file, as sbsign leaves it.
usage: tests/uefi-guid-cert.py IN OUT"""
import struct
import sys
import uuid

PKCS7_GUID = uuid.UUID('4aafd29d-68df-49ee-8aa9-347d375665a7').bytes_le
b = bytearray(open(sys.argv[1], 'rb').read())
pe = struct.unpack_from('<I', b, 0x3c)[0]
opt = pe + 24
dirs = opt + (112 if struct.unpack_from('<H', b, opt)[0] == 0x20b else 96)
security = dirs + 4 * 8
at, size = struct.unpack_from('<II', b, security)
if not size or at + size != len(b):
    sys.exit(f'{sys.argv[1]}: no certificate table at the end of the file')
table, off = b'', at
while off + 8 <= at + size:
    length, revision, kind = struct.unpack_from('<IHH', b, off)
    body = bytes(b[off + 8:off + length])
    if kind == 2:
        length, kind, body = length + 16, 0x0ef1, PKCS7_GUID + body
    cert = struct.pack('<IHH', length, revision, kind) + body
    table += cert + bytes(-len(cert) % 8)
    off += (struct.unpack_from('<I', b, off)[0] + 7) & ~7
struct.pack_into('<II', b, security, at, len(table))
open(sys.argv[2], 'wb').write(bytes(b[:at]) + table)
