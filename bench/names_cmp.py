#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""names_cmp.py OURS THEIRS: compare st-addr2line and eu-addr2line -a -f -i outputs.

Both list, per address, "0xADDR", then a name line and a FILE:LINE[:COL] line
per frame, innermost first. Prints one line: addresses, frames on each side,
and how the blocks compare:
  same      identical frames (ignoring eu's " in OUTER" of its first line, which
            it takes from the symbol table when libdw's dwarf_getscopes fails)
  more      we show inline frames eu-addr2line lacks, with the same outermost
            function name (or its symbol) and the same innermost line
  nodwarf   we found no function in the DWARF (eu then prints the symbol)
  other     anything else
"""
import re
import sys


def blocks(path):
    out, cur = [], None
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("0x") and (cur is None or len(cur[1]) % 2 == 0):
                cur = (int(line, 16), [])
                out.append(cur)
            else:
                cur[1].append(line)
    return out


def frames(lines):
    fr = []
    for i in range(0, len(lines) - 1, 2):
        name = re.sub(r" inlined at .*$", "", lines[i])
        fr.append((name, lines[i + 1]))
    return fr


def main():
    ours, theirs = blocks(sys.argv[1]), blocks(sys.argv[2])
    if [a for a, _ in ours] != [a for a, _ in theirs]:
        sys.exit("names_cmp: the two outputs are not for the same addresses")
    n = {"same": 0, "more": 0, "nodwarf": 0, "other": 0}
    nf_ours = nf_theirs = 0
    for (addr, lo), (_, lt) in zip(ours, theirs):
        fo, ft = frames(lo), frames(lt)
        nf_ours += len(fo)
        nf_theirs += len(ft)
        if fo == ft:
            n["same"] += 1
        elif fo and fo[0][0] == "??":
            n["nodwarf"] += 1
        elif len(fo) > len(ft) and ft and fo[0][1] == ft[0][1] and \
                (fo[-1][0] == ft[-1][0] or len(ft) == 1):
            n["more"] += 1
        else:
            n["other"] += 1
            if n["other"] <= int(sys.argv[3] if len(sys.argv) > 3 else 0):
                print("other: 0x%x\n  ours:   %s\n  theirs: %s" % (addr, fo, ft), file=sys.stderr)
    print("%d addresses, frames %d (st) %d (eu): same %d, more inline frames %d, "
          "no DWARF function %d, other %d" % (len(ours), nf_ours, nf_theirs, n["same"],
                                             n["more"], n["nodwarf"], n["other"]))


main()
