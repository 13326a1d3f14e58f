#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# Seeds for fuzz_recording's entry mode: a recording's entries as
# [u8 type][u16 length][payload]... (entries over 64 KiB are left out).
#   python3 rec2entries.py recording/X.rec > recording/X.entries
import struct, subprocess, sys

data = open(sys.argv[1], 'rb').read()
hsize = struct.unpack_from('<I', data, 12)[0]
off, out = hsize, bytearray()
while off + 20 <= len(data):
    magic, seq, raw, comp, crc = struct.unpack_from('<5I', data, off)
    frame = data[off + 20:off + 20 + comp]
    off += 20 + comp
    chunk = subprocess.run(['zstd', '-dc'], input=frame, capture_output=True, check=True).stdout
    p = 0
    while p + 8 <= len(chunk):
        etype, _, elen = struct.unpack_from('<HHI', chunk, p)
        payload = chunk[p + 8:p + 8 + elen]
        p += 8 + ((elen + 7) & ~7)
        if elen < 65536:
            out += struct.pack('<BH', etype, elen) + payload
sys.stdout.buffer.write(bytes(out))
