#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""offsets_to_names.py ELF BASENAME < count-output: each frame
"[unknown] (BASENAME+0xOFF)" becomes the name of the function of ELF (an
unstripped twin) holding file offset OFF - 1 (a return address: the call
before it), or OFF for a stack's first frame; other lines are copied."""
import re
import subprocess
import sys


def run(*cmd):
    return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.splitlines()


def main():
    elf, base = sys.argv[1], sys.argv[2]
    loads = [l.split() for l in run('readelf', '-lW', elf) if l.split()[:1] == ['LOAD']]
    syms = [(int(f[0], 16), int(f[1], 16), f[3]) for f in
            (l.split() for l in run('nm', '-S', '--defined-only', elf)) if len(f) == 4]
    pat = re.compile(r'  \[unknown\] \(' + re.escape(base) + r'\+0x([0-9a-f]+)\)$')

    def name(off):
        for load in loads:
            o, v, fs = int(load[1], 16), int(load[2], 16), int(load[4], 16)
            if o <= off < o + fs:
                va = off - o + v
                return next((n for a, s, n in syms if a <= va < a + s), '?')
        return '?'

    first = True
    for line in sys.stdin.read().splitlines():
        m = pat.match(line)
        if m:
            print('  ' + name(int(m.group(1), 16) - (0 if first else 1)))
        else:
            print(line)
        first = line == ''


if __name__ == '__main__':
    main()
