#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""names_cmp.py OURS THEIRS [N]: compare st-symbolize and eu-addr2line -a -f -i outputs.

Both list, per address (in the same order), an "0x..." line, then a name line and
a FILE:LINE[:COL] line per frame, innermost first. Names differ by design (ours
are the symbol table's, demangled, for the real function; eu-addr2line prints
DWARF's), so frames are compared by their source lines (file base name and
line). Prints one line: addresses, frames on each side, and how they compare:
  same      the same chain of lines
  more      we show inline frames eu-addr2line lacks (libdw's dwarf_getscopes
            gives up on LTO units), with the same innermost line
  nodwarf   neither side has a line (no DWARF for that code)
  ours      only we have lines (eu-addr2line found no DWARF: clang units
            without .debug_aranges)
  other     anything else (the first N are printed on stderr)
"""
import re
import sys


def blocks(path):
    out, cur = [], None
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("0x") and (cur is None or len(cur) % 2 == 0):
                cur = []
                out.append(cur)
            else:
                cur.append(line)
    return out


def lines(block):
    r = []
    for i in range(1, len(block), 2):
        loc = re.sub(r":(\d+):\d+$", r":\1", block[i]).split("/")[-1]
        r.append(None if loc.startswith("??") or loc.endswith(":0") else loc)
    return r


def main():
    ours, theirs = blocks(sys.argv[1]), blocks(sys.argv[2])
    if len(ours) != len(theirs):
        sys.exit("names_cmp: %d addresses against %d" % (len(ours), len(theirs)))
    n = {"same": 0, "more": 0, "nodwarf": 0, "ours": 0, "other": 0}
    nf_ours = nf_theirs = 0
    for i, (bo, bt) in enumerate(zip(ours, theirs)):
        lo, lt = lines(bo), lines(bt)
        nf_ours += len(lo)
        nf_theirs += len(lt)
        if not any(lo) and not any(lt):
            n["nodwarf"] += 1
        elif lo == lt:
            n["same"] += 1
        elif not any(lt):
            n["ours"] += 1
        elif len(lo) > len(lt) and lo[0] == lt[0]:
            n["more"] += 1
        else:
            n["other"] += 1
            if n["other"] <= int(sys.argv[3] if len(sys.argv) > 3 else 0):
                print("other #%d\n  ours:   %s\n  theirs: %s" % (i, bo, bt), file=sys.stderr)
    print("%d addresses, frames %d (st) %d (eu): same lines %d, more inline frames %d, "
          "no DWARF on either side %d, lines only ours %d, other %d" %
          (len(ours), nf_ours, nf_theirs, n["same"], n["more"], n["nodwarf"], n["ours"],
           n["other"]))


main()
