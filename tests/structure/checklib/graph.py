# SPDX-License-Identifier: LGPL-2.1-or-later
"""The file graph for check-lib.py: includes resolved to files, the
dependency edges (includes and references) between files, and the
strongly connected components and shortest cycles of that graph."""

import os


def resolve_includes(files, libdir, extra=None):
    """Fill include_targets: each "x" include that names a lib/ file,
    looked up next to the includer, then in LIBDIR, then in LIBDIR/..
    (and, for a tree, the other directories: meson's include paths)."""
    libreal = os.path.realpath(libdir)
    by_real = {os.path.realpath(sf.path): sf for sf in files.values()}
    for sf in files.values():
        if extra is not None:
            if os.path.commonpath([os.path.realpath(sf.path), libreal]) != libreal:
                continue
            libreal_ok = [os.path.realpath(x) for x in extra]
        bases = [os.path.dirname(sf.path), libdir, os.path.join(libdir, '..')] + (extra or [])
        for name, line in sf.includes:
            for base in bases:
                cand = os.path.realpath(os.path.join(base, name))
                if os.path.isfile(cand):
                    roots = libreal_ok if extra is not None else [libreal]
                    if cand in by_real and any(os.path.commonpath([cand, r]) == r for r in roots):
                        sf.include_targets.append((by_real[cand], line))
                    break


def include_closure(sf):
    """Return the set of files sf includes, directly or through others."""
    seen, todo = set(), [sf]
    while todo:
        cur = todo.pop()
        for target, _ in cur.include_targets:
            if target not in seen:
                seen.add(target)
                todo.append(target)
    seen.discard(sf)
    return seen


def build_graph(files, headers_own=False):
    """Return {(src, dst): [reason, ...]} over files (by relative path).

    A reason is ('include', line, name) or ('ref', line, symbol); with
    headers_own also ('decl', line, symbol): a .c that calls a function
    declared in a header it includes depends on the .c defining it."""
    edges = {}
    global_defs = {}
    for sf in files.values():
        for name in sf.exported(header_visible=False):
            global_defs.setdefault(name, []).append(sf)
    for sf in files.values():
        for target, line in sf.include_targets:
            if target is not sf:
                edges.setdefault((sf.rel, target.rel), []).append(('include', line, target.rel))
        own = sf.definitions()
        visible = {}
        for header in include_closure(sf):
            for name in header.exported(header_visible=header.rel.endswith('.h')):
                visible.setdefault(name, []).append(header)
        for name, line in sf.references.items():
            if name in own:
                continue
            definers = visible.get(name) or global_defs.get(name, [])
            for d in definers:
                if d is not sf and not own_implementation(sf.rel, d.rel):
                    edges.setdefault((sf.rel, d.rel), []).append(('ref', line, name))
        # Calling a function through the header that declares it is
        # depending on the .c that defines it: files that call one another
        # through a shared header are a cycle through it.
        if not headers_own or not sf.rel.endswith('.c'):
            continue
        for target, line in sf.include_targets:
            for name in target.prototypes:
                if name not in sf.references or name in own:
                    continue
                for d in global_defs.get(name, []):
                    if d is not sf and d.rel.endswith('.c'):
                        edges.setdefault((sf.rel, d.rel), []).append(
                            ('decl', line, f'{name} ({target.rel})'))
    return edges


def own_implementation(header, source):
    """True when `source` is the .c that implements `header` (x.h -> x.c in
    the same directory): a header's inline functions and macros using its
    own file's symbols is one component, not a cycle."""
    return header.endswith('.h') and source == header[:-2] + '.c'


def strongly_connected(nodes, succ):
    """Return the strongly connected components (Tarjan, iterative)."""
    index, low, on_stack, stack, comps = {}, {}, set(), [], []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(succ.get(root, ())))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, it = work[-1]
            advanced = False
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(succ.get(nxt, ()))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                comps.append(sorted(comp))
    return comps


def shortest_cycle(start, comp, succ):
    """Return a shortest cycle start -> ... -> start inside comp."""
    members = set(comp)
    parent = {start: None}
    queue = [start]
    for node in queue:
        for nxt in sorted(succ.get(node, ())):
            if nxt == start:
                path = [node]
                while parent[path[-1]] is not None:
                    path.append(parent[path[-1]])
                return list(reversed(path)) + [start]
            if nxt in members and nxt not in parent:
                parent[nxt] = node
                queue.append(nxt)
    return [start, start]
