# SPDX-License-Identifier: LGPL-2.1-or-later
"""The rules of check-lib.py (see its docstring): each check_* returns the
violations it finds, one message line each, for the caller to print."""

from .graph import shortest_cycle, strongly_connected

MAX_LINES = 500


def describe(reasons):
    """Summarise the reasons of one edge: '#include' and/or symbols."""
    parts = []
    if any(r[0] == 'include' for r in reasons):
        parts.append('#include')
    parts.extend(sorted({r[2] for r in reasons if r[0] in ('ref', 'decl')}))
    return ', '.join(parts)


def check_floors(files, edges):
    """Return the violations of rules 1 and 2 and files in no floor."""
    out = []
    for rel, sf in sorted(files.items()):
        if sf.floor is None:
            out.append(f'{rel}: in no floor (add a prefix for it to LAYERS)')
    for (src, dst), reasons in sorted(edges.items()):
        fs, fd = files[src].floor, files[dst].floor
        if fs is None or fd is None or fd <= fs:
            continue
        incs = [r for r in reasons if r[0] == 'include']
        refs = [r for r in reasons if r[0] == 'ref']
        if incs:
            out.append(f'{src}:{incs[0][1]}: includes up: {src} (floor {fs}) -> {dst} (floor {fd})')
        if refs:
            line = min(r[1] for r in refs)
            syms = ', '.join(sorted({r[2] for r in refs}))
            out.append(f'{src}:{line}: calls up: {src} (floor {fs}) -> {dst} (floor {fd}): {syms}')
    return out


def check_cycles(files, edges):
    """Return the cycles of the file graph: for each strongly connected
    component of more than one file, shortest cycles until every file of
    the component is on one of them."""
    succ = {}
    for src, dst in edges:
        succ.setdefault(src, set()).add(dst)
    out = []
    for comp in strongly_connected(sorted(files), succ):
        if len(comp) < 2:
            continue
        covered = set()
        for start in comp:
            if start in covered:
                continue
            cycle = shortest_cycle(start, comp, succ)
            covered.update(cycle)
            via = '; '.join(f'{a} -> {b}: {describe(edges[(a, b)])}'
                            for a, b in zip(cycle, cycle[1:]))
            out.append('cycle: ' + ' -> '.join(cycle) + f'  [{via}]')
    return out


def check_sizes(files):
    """Return a violation for each file over MAX_LINES lines."""
    return [f'{rel}: {sf.line_count} lines (limit {MAX_LINES})'
            for rel, sf in sorted(files.items()) if sf.line_count > MAX_LINES]


def check_atomics(files, layers):
    """Return a violation for each bare atomic token in policy code."""
    out = []
    for rel, sf in sorted(files.items()):
        if layers.is_policy(rel):
            for line, tok in sf.atomics:
                out.append(f'{rel}:{line}: bare atomic in policy code: use the access layer ({tok})')
    return out
