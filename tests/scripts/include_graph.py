#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The include graph of lib/ by folder: prints it, and exits 1 on a cycle
or on lib/ including tools/ or src/ (DESIGN.md section 2).

  include_graph.py [ROOT]      # ROOT defaults to the current directory
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def folder_edges(root):
    """(edges, bad): edges[a] = folders a includes; bad = includes of tools/ or src/."""
    edges, bad = {}, []
    for d, _, files in os.walk(os.path.join(root, 'lib')):
        for f in sorted(files):
            if not f.endswith(('.c', '.h')):
                continue
            path = os.path.join(d, f)
            rel = os.path.relpath(path, root)
            src = rel.split('/')[1]
            edges.setdefault(src, set())
            with open(path, encoding='utf-8', errors='replace') as fh:
                for line in fh:
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    inc = m.group(1)
                    if inc.startswith(('tools/', 'src/')):
                        bad.append(f'{rel} includes {inc}')
                    elif inc.startswith('lib/') and inc.split('/')[1] != src:
                        edges[src].add(inc.split('/')[1])
    return edges, bad


def cycles(edges):
    """Strongly connected components with more than one folder (Tarjan)."""
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else '.'
    edges, bad = folder_edges(root)
    for v in sorted(edges):
        print(f'lib/{v} -> ' + ' '.join(f'lib/{w}' for w in sorted(edges[v])))
    found = cycles(edges)
    for comp in found:
        print('cycle: ' + ' <-> '.join(f'lib/{c}' for c in comp))
    for b in bad:
        print('layering: ' + b)
    return 1 if found or bad else 0


if __name__ == '__main__':
    sys.exit(main())
