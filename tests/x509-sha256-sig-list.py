#!/usr/bin/env python3
"""An EFI_SIGNATURE_LIST of one EFI_CERT_X509_SHA256 signature (UEFI 2.10
section 32.4.1): the SHA-256 of a certificate's TBSCertificate, as its bytes
stand in the DER (the first element of the certificate's SEQUENCE), and an
EFI_TIME of revocation, for a dbx; efitools has no tool that makes one.
usage: tests/x509-sha256-sig-list.py CERT.der 'YYYY-MM-DD' OUT"""
import hashlib
import struct
import sys
import uuid

X509_SHA256 = uuid.UUID('3bd2a492-96c0-4079-b420-fcf98ef103ed').bytes_le
OWNER = uuid.UUID('77fa9abd-0359-4d32-bd60-28f4e78f784b').bytes_le   # Microsoft's, as real dbx entries carry


def header(d, at):
    """The offset of a DER element's contents and their length."""
    n = d[at + 1]
    if n < 0x80:
        return at + 2, n
    count = n & 0x7f
    return at + 2 + count, int.from_bytes(d[at + 2:at + 2 + count], 'big')


cert = open(sys.argv[1], 'rb').read()
tbs, _ = header(cert, 0)
body, length = header(cert, tbs)
digest = hashlib.sha256(cert[tbs:body + length]).digest()
year, month, day = (int(x) for x in sys.argv[2].split('-'))
time = struct.pack('<HBBBBBBIhBB', year, month, day, 0, 0, 0, 0, 0, 0, 0, 0)
signature = OWNER + digest + time
with open(sys.argv[3], 'wb') as out:
    out.write(X509_SHA256 + struct.pack('<III', 28 + len(signature), 0, len(signature)) + signature)
