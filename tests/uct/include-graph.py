#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""include-graph.py [--print] [--self-test] DIR

Checks that the includes of the sources in DIR go one way: a file x.h and
x.cc are one module x, a module uses y when one of its files has
#include "y.h" and y.h is in DIR, and no module may use itself through
others.  Exits 1 and prints every cycle's modules when there is one.

--print      also prints the modules in layers, each using only those of
             the layers below it (layer 0 uses no other module of DIR)
--self-test  checks the checker on made-up trees (one with a cycle, one
             without) and exits
"""
import os
import re
import sys
import tempfile

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def module_graph(d):
    files = [f for f in os.listdir(d) if f.endswith(('.h', '.cc', '.inl'))]
    headers = {f for f in files if f.endswith('.h')}
    graph = {}
    for f in files:
        mod = f.rsplit('.', 1)[0]
        graph.setdefault(mod, set())
        with open(os.path.join(d, f), encoding='utf-8') as fh:
            for inc in INCLUDE.findall(fh.read()):
                name = os.path.basename(inc)
                if name in headers and name.rsplit('.', 1)[0] != mod:
                    graph[mod].add(name.rsplit('.', 1)[0])
    return graph


def cycles(graph):
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def layers(graph):
    level = {}

    def depth(v):
        if v not in level:
            level[v] = 1 + max((depth(w) for w in graph[v]), default=-1)
        return level[v]

    for v in graph:
        depth(v)
    by = {}
    for v, n in level.items():
        by.setdefault(n, []).append(v)
    return [sorted(by[n]) for n in sorted(by)]


def check(d, show):
    graph = module_graph(d)
    found = cycles(graph)
    for comp in found:
        print('include cycle among: ' + ', '.join(comp))
        for v in comp:
            uses = sorted(w for w in graph[v] if w in comp)
            print('  %s -> %s' % (v, ', '.join(uses)))
    if not found and show:
        for n, mods in enumerate(layers(graph)):
            print('layer %d: %s' % (n, ' '.join(mods)))
    if not found:
        print('%s: %d modules, the includes go one way' % (d, len(graph)))
    return 1 if found else 0


def self_test():
    def tree(files):
        d = tempfile.mkdtemp()
        for name, text in files.items():
            with open(os.path.join(d, name), 'w') as fh:
                fh.write(text)
        return d

    # a.cc uses b, b.cc uses a: a cycle though no header includes another.
    bad = tree({'a.h': '', 'a.cc': '#include "a.h"\n#include "b.h"\n',
                'b.h': '#include <vector>\n', 'b.cc': '#include "b.h"\n#include "a.h"\n',
                'c.h': '#include "a.h"\n'})
    good = tree({'a.h': '', 'a.cc': '#include "a.h"\n#include "b.h"\n',
                 'b.h': '#include "hl/unique_fd.h"\n', 'b.cc': '#include "b.h"\n',
                 'c.h': '#include "a.h"\n'})
    g = module_graph(bad)
    ok = cycles(g) == [['a', 'b']] and cycles(module_graph(good)) == [] and \
        layers(module_graph(good)) == [['b'], ['a'], ['c']]
    print('self-test ' + ('passed' if ok else 'FAILED'))
    return 0 if ok else 1


def main(argv):
    show = '--print' in argv
    if '--self-test' in argv:
        return self_test()
    dirs = [a for a in argv if not a.startswith('--')]
    if len(dirs) != 1:
        print(__doc__.strip())
        return 2
    return check(dirs[0], show)


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
