# SPDX-License-Identifier: LGPL-2.1-or-later
"""checklib - the parts of check-lib.py, the structure checker of lib/.

check-lib.py (next to this package) is the entry point and documents the
rules; checks.py applies them. Each module imports only the ones before
it in this list:

  lexer        comments, literals, tokens and the C keyword sets
  declarators  finding the declared name in a file-scope declaration
  parse        the file-scope walk: definitions, references, atomics
  source       SourceFile (one .c/.h) and find_sources (a whole tree)
  layers       the floors and policy prefixes of a LAYERS file
  graph        includes resolved, the file dependency graph, its cycles
  checks       the rules, each returning its violation lines
"""
