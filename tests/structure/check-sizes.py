#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""check-sizes.py - no source file over 500 lines, outside the trees that
check-lib.py draws (tests/, examples/, include/, docs/ scripts).

Usage: check-sizes.py [--exclude NAME]... DIR...

Walks each DIR for .c, .h, .py and .sh files, skipping directories named
NAME (the structure fixtures are oversized on purpose). Prints one line
per file over the limit and exits 1 if there is any, else prints a
summary and exits 0; 2 on a usage error or a DIR that is not one.
"""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklib.checks import MAX_LINES  # noqa: E402

SUFFIXES = ('.c', '.h', '.py', '.sh')


def line_count(path):
    """Return the number of lines of the file at path."""
    with open(path, 'rb') as f:
        return sum(1 for _ in f)


def main(argv):
    """Check every DIR; print violations and return the exit status."""
    args, exclude = argv[1:], set()
    while len(args) >= 2 and args[0] == '--exclude':
        exclude.add(args[1])
        args = args[2:]
    if not args or any(a.startswith('--') for a in args):
        print('usage: check-sizes.py [--exclude NAME]... DIR...', file=sys.stderr)
        return 2
    over, seen = [], 0
    for top in args:
        if not os.path.isdir(top):
            print(f'error: {top}: not a directory', file=sys.stderr)
            return 2
        for root, dirs, names in os.walk(top):
            dirs[:] = sorted(d for d in dirs if d not in exclude and d != '__pycache__')
            for name in sorted(n for n in names if n.endswith(SUFFIXES)):
                path = os.path.join(root, name)
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
