# SPDX-License-Identifier: LGPL-2.1-or-later
"""Sources for check-lib.py: SourceFile, one .c/.h file with its text and
what it defines, and find_sources, which reads and parses a whole tree."""

import bisect
import os
import re

from .lexer import (INCLUDE_RE, MACRO_NAME_RE, count_lines, strip_comments,
                    strip_comments_and_strings)
from .parse import parse_file


class SourceFile:
    """One .c/.h file of the tree: its text, tokens and what it defines."""

    def __init__(self, rel, path):
        self.rel = rel
        self.path = path
        with open(path, encoding='utf-8', errors='replace') as f:
            self.raw = f.read()
        self.line_count = count_lines(self.raw)
        self.newlines = [m.start() for m in re.finditer('\n', self.raw)]
        self.code = strip_comments_and_strings(self.raw)
        self.includes = [(m.group(1), self.line_of(m.start()))
                         for m in INCLUDE_RE.finditer(strip_comments(self.raw))]
        self.floor = None
        self.functions = {}       # name -> (is_static, line)
        self.variables = {}       # name -> (is_static, line)
        self.references = {}      # identifier -> first line
        self.prototypes = {}      # declared, not defined here: name -> line
        self.atomics = []         # (line, token)
        self.include_targets = []  # (SourceFile, line)
        self.macros = {m.group(1) for m in MACRO_NAME_RE.finditer(self.code)}

    def line_of(self, offset):
        """Return the 1-based line number of a character offset."""
        return bisect.bisect_left(self.newlines, offset) + 1

    def add_reference(self, name, line):
        """Record a reference to name, keeping its first line."""
        if name not in self.references or line < self.references[name]:
            self.references[name] = line

    def definitions(self):
        """Return every name this file defines (function or variable)."""
        names = set(self.functions)
        names.update(self.variables)
        return names

    def exported(self, header_visible):
        """Return the names other files can see: non-static definitions,
        plus static ones when this file is a header (header_visible)."""
        names = set()
        for table in (self.functions, self.variables):
            for name, (is_static, _) in table.items():
                if header_visible or not is_static:
                    names.add(name)
        return names


def find_sources(libdir):
    """Return {relative path: SourceFile} for every .c/.h under libdir,
    parsed."""
    files = {}
    for root, dirs, names in os.walk(libdir):
        dirs.sort()
        for name in sorted(names):
            if name.endswith(('.c', '.h')):
                path = os.path.join(root, name)
                rel = os.path.relpath(path, libdir).replace(os.sep, '/')
                files[rel] = SourceFile(rel, path)
    macros = set()
    for sf in files.values():
        macros.update(sf.macros)
    for sf in files.values():
        parse_file(sf, macros)
    return files
