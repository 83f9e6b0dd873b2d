#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""check-lib.py - structure checker for libtlbgen's lib/ tree.

Usage: check-lib.py LIBDIR
       check-lib.py --tree ROOT DIR...

With --tree, each ROOT/DIR (lib, harness, bench) has its own LAYERS, and
the whole drawing is checked at once: DIR number k's floors sit above
every floor of DIR k-1 (lib's 0..10, then harness's, then bench's), and
a dependency between two files of different directories must go down too.

LIBDIR/LAYERS assigns every .c/.h under LIBDIR to a floor:

    # comment
    FLOOR_NUMBER  PATH_PREFIX [PATH_PREFIX...]
    policy        PATH_PREFIX [PATH_PREFIX...]

A prefix is relative to LIBDIR ("base/", "arch/x86/", "system.c") and
matches whole path components; a file belongs to the floor of its longest
matching prefix. Several lines may name the same floor. The optional
`policy` lines name the trees where bare atomics are forbidden.

Rules (each broken rule is one line on stdout; exit status 1 if any):
  1. a file includes ("...") a lib/ file on a higher floor     "includes up"
  2. a file references a function or global variable defined
     in a lib/ file on a higher floor                         "calls up"
  3. the file graph (includes + references) has a cycle       "cycle: ..."
  4. a .c/.h is over MAX_LINES lines                          "lines (limit"
  5. a file under a policy prefix calls atomic_*(), __atomic*(),
     cds_lfs_*() or names _Atomic                                    "bare atomic"
  and every .c/.h must be on some floor                       "in no floor"

References are attributed to the file that DEFINES the symbol: a
non-static function or variable anywhere, or a static (inline) function
or variable of a header the referencing file includes, directly or not.
A prototype or extern declaration is not a reference. Within a file its
own definitions shadow everything else.

The parser is a tokenizer, not a C compiler: see LIMITATIONS below.

LIMITATIONS
  - The preprocessor is not run: #if/#ifdef branches are all read, macro
    expansions are not seen (a reference written in a header macro body
    counts for the header), and a definition built by a macro is missed.
  - A local variable or parameter named like a lib/ function or global of
    another file counts as a reference to it (member names after . or ->,
    and struct/union/enum tags, do not).
  - Old-style (K&R) definitions and file-scope definitions whose name is
    produced by token pasting are not recognised.
"""

import os
import sys

# The modules live in checklib/ next to this script: find them however the
# script is run, and leave no __pycache__ in the source tree.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True

from checklib.checks import (  # noqa: E402
    check_atomics, check_cycles, check_floors, check_sizes)
from checklib.graph import build_graph, resolve_includes  # noqa: E402
from checklib.layers import Layers  # noqa: E402
from checklib.parse import parse_file  # noqa: E402
from checklib.source import find_sources  # noqa: E402


def main_tree(root, dirs):
    """Check ROOT/DIR... as one drawing; print violations, return the status."""
    files, violations, layers_all, base = {}, [], [], 0
    for d in dirs:
        libdir = os.path.join(root, d)
        layers_path = os.path.join(libdir, 'LAYERS')
        if not os.path.isfile(layers_path):
            print(f'error: {layers_path} missing: cannot check the layering of {libdir}')
            return 1
        layers = Layers(layers_path)
        violations += [f'{d}/{e}' for e in layers.errors]
        sub = find_sources(libdir)
        top = max(layers.prefixes.values(), default=0)
        for rel, sf in sub.items():
            f = layers.floor_of(rel)
            sf.floor = None if f is None else base + f
            sf.rel = f'{d}/{rel}'
            files[sf.rel] = sf
        layers_all.append((d, layers))
        base += top + 1
    # One parse over all: macros and definitions of every directory.
    macros = set()
    for sf in files.values():
        macros.update(sf.macros)
    for sf in files.values():
        sf.functions, sf.variables, sf.references, sf.prototypes = {}, {}, {}, {}
        sf.atomics = []
        parse_file(sf, macros)
    for d, _ in layers_all:
        resolve_includes({k: v for k, v in files.items()}, os.path.join(root, d),
                         extra=[os.path.join(root, x) for x, _ in layers_all])
    edges = build_graph(files, headers_own=True)
    violations += check_floors(files, edges)
    violations += check_cycles(files, edges)
    violations += check_sizes(files)
    for d, layers in layers_all:
        sub = {k[len(d) + 1:]: v for k, v in files.items() if k.startswith(d + '/')}
        violations += [f'{d}/{v}' for v in check_atomics(sub, layers)]
    for v in violations:
        print(v)
    if violations:
        print(f'check-lib: {len(violations)} violation(s) in {", ".join(dirs)} ({len(files)} files)')
        return 1
    floors = sorted({sf.floor for sf in files.values()})
    print(f'check-lib: ok: {len(files)} files of {", ".join(dirs)} on {len(floors)} floors, '
          f'{len(edges)} dependencies, no violations')
    return 0


def main(argv):
    """Check LIBDIR; print violations and return the exit status."""
    if len(argv) >= 4 and argv[1] == '--tree':
        return main_tree(os.path.normpath(argv[2]), argv[3:])
    if len(argv) != 2:
        print('usage: check-lib.py LIBDIR | --tree ROOT DIR...', file=sys.stderr)
        return 2
    libdir = os.path.normpath(argv[1])
    if not os.path.isdir(libdir):
        print(f'error: {libdir}: not a directory', file=sys.stderr)
        return 1
    layers_path = os.path.join(libdir, 'LAYERS')
    if not os.path.isfile(layers_path):
        print(f'error: {layers_path} missing: cannot check the layering of {libdir}')
        return 1
    layers = Layers(layers_path)
    files = find_sources(libdir)
    for rel, sf in files.items():
        sf.floor = layers.floor_of(rel)
    resolve_includes(files, libdir)
    edges = build_graph(files)
    violations = list(layers.errors)
    violations += check_floors(files, edges)
    violations += check_cycles(files, edges)
    violations += check_sizes(files)
    violations += check_atomics(files, layers)
    for v in violations:
        print(v)
    if violations:
        print(f'check-lib: {len(violations)} violation(s) in {libdir} ({len(files)} files)')
        return 1
    floors = sorted({sf.floor for sf in files.values()})
    print(f'check-lib: ok: {len(files)} files on {len(floors)} floors, {len(edges)} dependencies, no violations')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
