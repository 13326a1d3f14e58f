#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# Compare `stacktap unwind-table FILE` rows with `readelf --debug-dump=frames-interp FILE`
# as step functions: at every row boundary of either side, the rules must agree.
# Usage: unwind_readelf_cmp.py TABLE_TXT READELF_TXT...; prints one summary line, exit 1 on
# mismatch. Several readelf outputs (the file and its debug file) and several sections in one
# are merged by stacktap's rule (lib/unwind/sources.c): .eh_frame before .debug_frame, an FDE
# of the later section left out whole when it overlaps one taken already.
import bisect
import re
import sys

SECTION = re.compile(r'^Contents of the (\.\w+) section\b')
PRECEDENCE = ['.eh_frame', '.debug_frame']
HDR = re.compile(r'^([0-9a-f]{8,}) [0-9a-f]+ [0-9a-f]+ (CIE|FDE)(.*)$')
FDE = re.compile(r'cie=([0-9a-f]+) pc=([0-9a-f]+)\.\.([0-9a-f]+)')
ROW = re.compile(r'^([0-9a-f]{16}) (.*)$')


def parse_readelf(text):
    """{section: (cies, fdes)}; CIE offsets are per section."""
    out, cies, fdes, cur, cols = {}, {}, [], None, None
    for line in text.splitlines():
        m = SECTION.match(line)
        if m:
            cies, fdes = out.setdefault(m.group(1), ({}, []))
            cur = None
            continue
        m = HDR.match(line)
        if m:
            cols, rows = None, []
            if m.group(2) == 'CIE':
                cies[int(m.group(1), 16)] = rows
            else:
                f = FDE.search(m.group(3))
                fdes.append((int(f[1], 16), int(f[2], 16), int(f[3], 16), rows))
            cur = rows
            continue
        if line.strip().startswith('LOC'):
            cols = line.split()
            continue
        m = ROW.match(re.sub(r' \((\w+)\)', r'(\1)', line))  # "r10 (r10)" is one column
        if m and cols and cur is not None:
            cur.append((int(m.group(1), 16), dict(zip(cols[1:], m.group(2).split()))))
    return out


def representable(off):
    """A CFA offset a row holds: 16 bits of bytes, or of 8-byte units."""
    return -32768 <= off <= 32767 or (off % 8 == 0 and -32768 <= off // 8 <= 32767)


def expect(d):
    """(cfa kind, acceptable rbp columns) our row must show for a readelf row."""
    ra, cfa, rbp = d.get('ra', 'u'), d.get('CFA', '?'), d.get('rbp', 'u')
    if ra == 'u':
        return ('outermost', None)
    if ra == 'exp' and cfa == 'exp':
        return ('sigframe', None)
    if ra != 'c-8':
        return ('unsupported', None)
    if cfa == 'exp':
        return ('exp', None)
    m = re.match(r'^(rsp|rbp)([+-]\d+)$', cfa)
    if not m or not representable(int(m[2])):
        return ('unsupported', None)
    kind = '%s%+d' % (m[1], int(m[2]))
    if rbp == 'u':
        return (kind, {'same', 'undef'})
    if rbp == 's':
        return (kind, {'same'})
    m = re.match(r'^c([+-]\d+)$', rbp)
    if m and int(m[1]) % 8 == 0 and -128 <= int(m[1]) // 8 <= 127:
        return (kind, {'c%+d' % int(m[1])})
    return (kind, {'undef'})


def matches(exp, cfa, rbp):
    kind, rbps = exp
    if kind == 'exp':
        return cfa in ('plt', 'unsupported')
    if kind == 'sigframe':
        # readelf does not show the 'S' augmentation here: a signal frame's
        # expressions are our signal rule, any other such row unsupported.
        return cfa in ('signal', 'unsupported')
    if rbps is None:
        return cfa == kind
    return cfa == kind and rbp in rbps


def fde_intervals(cies, fde):
    cie, lo, hi, rows = fde
    init = cies.get(cie) or [(0, {'CFA': '?', 'ra': '?'})]
    states = list(rows)
    if not states or states[0][0] > lo:
        states.insert(0, (lo, init[0][1]))
    out = []
    for i, (loc, d) in enumerate(states):
        end = states[i + 1][0] if i + 1 < len(states) else hi
        if loc < end:
            out.append((loc, end, expect(d)))
    return out


def intervals(sections):
    """The merged step function, and how many FDEs it took from each section."""
    out, taken, used = [], [], {}
    for name in PRECEDENCE:
        cies, fdes = sections.get(name, ({}, []))
        mine = []
        for fde in fdes:
            lo, hi = fde[1], fde[2]
            if lo >= hi or any(a < hi and lo < b for a, b in taken):
                continue
            mine.append((lo, hi))
            out.extend(fde_intervals(cies, fde))
            used[name] = used.get(name, 0) + 1
        taken.extend(mine)
    out.sort(key=lambda x: x[0])
    return out, used


def parse_table(text):
    rows, on = [], False
    for line in text.splitlines():
        f = line.split()
        if f[:3] == ['vaddr', 'cfa', 'rbp']:
            on = True
        elif on and len(f) >= 3:
            rows.append((int(f[0], 16), f[1], f[2]))
    return rows


def main():
    ours = parse_table(open(sys.argv[1]).read())
    sections = {}
    for path in sys.argv[2:]:
        for name, (cies, fdes) in parse_readelf(open(path).read()).items():
            sections.setdefault(name, ({}, []))
            if fdes:  # a debug file's NOBITS copy of .eh_frame has none
                sections[name] = (cies, fdes)
    ivs, used = intervals(sections)
    starts, pcs = [iv[0] for iv in ivs], [r[0] for r in ours]
    bad = []

    def ours_at(v):
        i = bisect.bisect_right(pcs, v)
        return ours[i - 1] if i else (v, 'none', 'undef')

    def theirs_at(v):
        i = bisect.bisect_right(starts, v)
        return ivs[i - 1] if i and ivs[i - 1][0] <= v < ivs[i - 1][1] else None

    points = set(starts) | set(pcs) | {iv[1] for iv in ivs}
    for v in sorted(points):
        o, t = ours_at(v), theirs_at(v)
        ok = o[1] == 'none' if t is None else matches(t[2], o[1], o[2])
        if not ok:
            bad.append('%#x: table %s %s, readelf %s' % (v, o[1], o[2], t[2] if t else 'none'))
    print('%d readelf rows in %s FDEs, %d table rows, %d boundaries, %d mismatches'
          % (len(ivs), ' + '.join('%d %s' % (used[n], n) for n in PRECEDENCE if n in used) or '0',
             len(ours), len(points), len(bad)))
    for b in bad[:10]:
        print('  ' + b)
    return 1 if bad or not ivs or not ours else 0


if __name__ == '__main__':
    sys.exit(main())
