#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""check-sizes.py - no source file over 500 lines: C, Python and shell,
in every tree (check-lib.py checks only the .c/.h of lib/, harness/, bench/).

Usage: check-sizes.py [--exclude PATH]... PATH...

Each PATH is a file or a directory walked for .c, .h, .py and .sh files
and scripts (a first line starting with #!); a directory equal to an
excluded PATH is skipped (the structure fixtures are oversized on
purpose). Prints one line per file over the limit and exits 1 if there
is any, else a summary and 0; 2 on a usage error or a missing PATH.
"""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklib.checks import MAX_LINES  # noqa: E402

SUFFIXES = ('.c', '.h', '.py', '.sh')


def is_source(path):
    """Return whether the file at path is C, Python or shell source."""
    if path.endswith(SUFFIXES):
        return True
    with open(path, 'rb') as f:
        return f.read(2) == b'#!'


def line_count(path):
    """Return the number of lines of the file at path."""
    with open(path, 'rb') as f:
        return sum(1 for _ in f)


def sources(top, exclude):
    """Yield the source files at or under top, skipping excluded dirs."""
    if os.path.isfile(top):
        yield top
        return
    for root, dirs, names in os.walk(top):
        dirs[:] = sorted(d for d in dirs if d != '__pycache__' and
                         os.path.normpath(os.path.join(root, d)) not in exclude)
        for name in sorted(names):
            path = os.path.join(root, name)
            if is_source(path):
                yield path


def main(argv):
    """Check every DIR; print violations and return the exit status."""
    args, exclude = argv[1:], set()
    while len(args) >= 2 and args[0] == '--exclude':
        exclude.add(os.path.normpath(args[1]))
        args = args[2:]
    if not args or any(a.startswith('--') for a in args):
        print('usage: check-sizes.py [--exclude PATH]... PATH...', file=sys.stderr)
        return 2
    over, seen = [], 0
    for top in args:
        if not os.path.exists(top):
            print(f'error: {top}: no such file or directory', file=sys.stderr)
            return 2
        for path in sources(top, exclude):
            seen += 1
            n = line_count(path)
            if n > MAX_LINES:
                over.append(f'{path}: {n} lines (limit {MAX_LINES})')
    for v in over:
        print(v)
    if over:
        print(f'check-sizes: {len(over)} file(s) over {MAX_LINES} lines ({seen} files)')
        return 1
    print(f'check-sizes: ok: {seen} files, none over {MAX_LINES} lines')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
