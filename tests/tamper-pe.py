#!/usr/bin/env python3
"""A PE image with one byte changed: the last byte of its first section's
raw data (PointerToRawData + SizeOfRawData - 1) flipped, so that its
Authenticode hash no longer matches its signature.
usage: tests/tamper-pe.py IN OUT"""
import struct
import sys

b = bytearray(open(sys.argv[1], 'rb').read())
pe = struct.unpack_from('<I', b, 0x3c)[0]
section = pe + 24 + struct.unpack_from('<H', b, pe + 20)[0]
size, offset = struct.unpack_from('<II', b, section + 16)
b[offset + size - 1] ^= 0xff
open(sys.argv[2], 'wb').write(b)
