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

import bisect
import os
import re
import sys

MAX_LINES = 500

# Comments and literals, in one pass so that "/*" inside a string (or a
# quote inside a comment) is read correctly.
LEXICAL_RE = re.compile(
    r'//[^\n]*'
    r'|/\*.*?\*/'
    r'|"(?:\\.|[^"\\\n])*"'
    r"|'(?:\\.|[^'\\\n])*'",
    re.DOTALL)

TOKEN_RE = re.compile(r'[A-Za-z_]\w*|\d[\w.]*|->|\S')
IDENT_RE = re.compile(r'[A-Za-z_]\w*$')
INCLUDE_RE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"', re.MULTILINE)
# A preprocessor directive with its backslash-continued lines.
DIRECTIVE_RE = re.compile(r'^[ \t]*#(?:[^\n]*\\\n)*[^\n]*', re.MULTILINE)
MACRO_NAME_RE = re.compile(r'^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)', re.MULTILINE)
DEFINE_RE = re.compile(r'[ \t]*#[ \t]*define[ \t]+[A-Za-z_]\w*(\([^)]*\))?')

ATOMIC_PREFIXES = ('atomic_', '__atomic', 'cds_lfs_')
ATOMIC_WORDS = ('_Atomic',)

# Words followed by a parenthesised group that is not a declarator.
PAREN_SPECIFIERS = {
    '__attribute__', '__attribute', '__declspec', '_Alignas', 'alignas',
    '_Atomic', 'typeof', '__typeof__', '__typeof', '__asm__', '__asm', 'asm',
    '__extension__', 'sizeof', '_Alignof', '__alignof__',
}
TAG_KEYWORDS = {'struct', 'union', 'enum'}
C_KEYWORDS = {
    'auto', 'break', 'case', 'char', 'const', 'continue', 'default', 'do',
    'double', 'else', 'enum', 'extern', 'float', 'for', 'goto', 'if',
    'inline', 'int', 'long', 'register', 'restrict', 'return', 'short',
    'signed', 'sizeof', 'static', 'struct', 'switch', 'typedef', 'union',
    'unsigned', 'void', 'volatile', 'while', '_Bool', '_Complex', '_Atomic',
    '_Noreturn', '_Thread_local', '__inline', '__inline__', '__restrict',
    '__thread', 'bool',
}
BODY = '{}'  # stands for a skipped { ... } in a pending declaration


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


def count_lines(text):
    """Return the number of lines of text, as wc -l would, plus one for a
    last line without a newline."""
    lines = text.count('\n')
    if text and not text.endswith('\n'):
        lines += 1
    return lines


def blank(text):
    """Return text with every character but newlines replaced by a space."""
    return re.sub(r'[^\n]', ' ', text)


def strip_comments(text):
    """Replace comments by blanks, keeping string literals and line breaks."""
    def repl(m):
        s = m.group(0)
        return blank(s) if s.startswith('/') else s
    return LEXICAL_RE.sub(repl, text)


def strip_comments_and_strings(text):
    """Replace comments and the contents of string/char literals by blanks."""
    def repl(m):
        s = m.group(0)
        if s.startswith('/'):
            return blank(s)
        return s[0] + blank(s[1:-1]) + s[-1]
    return LEXICAL_RE.sub(repl, text)


def tokenize(text):
    """Return the tokens of text as parallel lists (texts, offsets)."""
    texts, offsets = [], []
    for m in TOKEN_RE.finditer(text):
        texts.append(m.group(0))
        offsets.append(m.start())
    return texts, offsets


def matching(tokens, i, open_tok, close_tok):
    """Return the index of the token closing the group opened at tokens[i]
    (or the last index if the group never closes)."""
    depth = 0
    for j in range(i, len(tokens)):
        if tokens[j] == open_tok:
            depth += 1
        elif tokens[j] == close_tok:
            depth -= 1
            if depth == 0:
                return j
    return len(tokens) - 1


def is_ident(tok):
    """True if tok is an identifier (keywords included)."""
    return IDENT_RE.match(tok) is not None


def drop_paren_specifiers(decl, tokens):
    """Return the token indices of decl without __attribute__((...)) and
    similar word+group specifiers that would look like declarators."""
    out = []
    k = 0
    while k < len(decl):
        tok = tokens[decl[k]]
        nxt = tokens[decl[k + 1]] if k + 1 < len(decl) else None
        if tok in PAREN_SPECIFIERS and nxt == '(':
            depth = 0
            k += 1
            while k < len(decl):
                t = tokens[decl[k]]
                if t == '(':
                    depth += 1
                elif t == ')':
                    depth -= 1
                k += 1
                if depth == 0:
                    break
            continue
        out.append(decl[k])
        k += 1
    return out


def find_function_name(decl, tokens):
    """Find the declarator name of a function (definition or prototype).

    decl is a list of token indices. Candidates are identifiers followed by
    '('; the name is the last one at the shallowest paren depth, which is
    right for `int f(...)`, `TLBGEN_API int f(...)`, `MACRO(x) int f(...)`
    and `void (*f(int))(void)`. Returns (position in decl, index of the
    parameter list's '(') or None when decl is not a function declarator,
    e.g. for the pointer variable `void (*fp)(void)`, whose name is followed
    by ')'.
    """
    best = None
    depth = 0
    for k, idx in enumerate(decl):
        tok = tokens[idx]
        if tok == '(':
            depth += 1
        elif tok == ')':
            depth -= 1
        elif is_ident(tok) and tok not in C_KEYWORDS and k + 1 < len(decl) \
                and tokens[decl[k + 1]] == '(':
            if best is None or depth <= best[0]:
                best = (depth, k)
    if best is None:
        return None
    k = best[1]
    return k, decl[k + 1]


def find_variable_name(decl, tokens, macros):
    """Return the position in decl of a variable declarator's name: the
    last identifier outside brackets that is not a keyword, a tag name or
    a macro (`struct s {...} __cacheline_aligned;`), or None (e.g. for the
    forward declaration `struct foo;`)."""
    name = None
    depth = 0
    for k, idx in enumerate(decl):
        tok = tokens[idx]
        if tok in ('[', '('):
            depth += 1
        elif tok in (']', ')'):
            depth -= 1
        elif depth == 0 and is_ident(tok) and tok not in C_KEYWORDS and tok not in macros:
            prev = tokens[decl[k - 1]] if k > 0 else None
            name = None if prev in TAG_KEYWORDS else k
    if name is None:
        # `void (*fp)(void)`: the name sits inside the first group.
        for k, idx in enumerate(decl):
            if tokens[idx] == '*' and k + 1 < len(decl) and is_ident(tokens[decl[k + 1]]) \
                    and k > 0 and tokens[decl[k - 1]] == '(':
                return k + 1
    return name


def split_top_level(decl, tokens, sep):
    """Split a list of token indices at sep tokens outside any group."""
    parts, cur, depth = [], [], 0
    for idx in decl:
        tok = tokens[idx]
        if tok in ('(', '[', '{'):
            depth += 1
        elif tok in (')', ']', '}'):
            depth -= 1
        if tok == sep and depth == 0:
            parts.append(cur)
            cur = []
        else:
            cur.append(idx)
    parts.append(cur)
    return parts


class TopLevelParser:
    """Walks the file-scope tokens of one file (directives blanked out),
    recording definitions into sf and marking which tokens are not
    references: declarator names, parameter lists, aggregate bodies."""

    def __init__(self, sf, tokens, offsets, macros):
        self.sf = sf
        self.macros = macros
        self.tokens = tokens          # the last one is the BODY placeholder
        self.offsets = offsets
        self.body = len(tokens) - 1
        self.not_ref = set()

    def add_function(self, name_idx, specifiers):
        """Record the function whose name is tokens[name_idx]."""
        name = self.tokens[name_idx]
        is_static = 'static' in specifiers
        self.sf.functions.setdefault(name, (is_static, self.sf.line_of(self.offsets[name_idx])))

    def add_variable(self, name_idx, specifiers):
        """Record the file-scope variable whose name is tokens[name_idx]."""
        name = self.tokens[name_idx]
        is_static = 'static' in specifiers
        self.sf.variables.setdefault(name, (is_static, self.sf.line_of(self.offsets[name_idx])))

    def mark_range(self, first, last):
        """Mark tokens first..last (inclusive) as not references."""
        self.not_ref.update(range(first, last + 1))

    def specifiers(self, decl):
        """Return the set of words of a declaration (static, extern, ...)."""
        return {self.tokens[i] for i in decl if is_ident(self.tokens[i])}

    def function_declarator(self, decl):
        """If decl declares a function, mark its name and parameter list as
        non-references and return the name's token index; else None."""
        decl = drop_paren_specifiers(decl, self.tokens)
        found = find_function_name(decl, self.tokens)
        if found is None:
            return None
        k, lparen = found
        self.mark_range(lparen, matching(self.tokens, lparen, '(', ')'))
        self.not_ref.add(decl[k])
        return decl[k]

    def on_body(self, pending, lbrace, rbrace):
        """Classify `pending {...}`; return True if it ends the declaration
        (a function body), False if the declaration goes on."""
        toks = self.tokens
        cleaned = [i for i in drop_paren_specifiers(pending, toks) if toks[i] != BODY]
        last_declarator = split_top_level(cleaned, toks, ',')[-1]
        if len(split_top_level(last_declarator, toks, '=')) > 1:
            return False                   # initializer: `x = { ... };`
        if cleaned and (toks[cleaned[-1]] in TAG_KEYWORDS or
                        (len(cleaned) > 1 and toks[cleaned[-2]] in TAG_KEYWORDS)):
            self.mark_range(lbrace, rbrace)  # struct/union/enum body
            return False
        if cleaned and toks[cleaned[-1]] == ')':
            name_idx = self.function_declarator(pending)
            if name_idx is not None:
                self.add_function(name_idx, self.specifiers(pending))
            return True
        return True                        # unknown block (macro?): skip it

    def on_declaration(self, pending):
        """Handle a file-scope declaration ended by ';'."""
        toks = self.tokens
        if not pending:
            return
        words = self.specifiers(pending)
        if 'typedef' in words or toks[pending[0]] in ('_Static_assert', 'static_assert'):
            self.mark_range(pending[0], pending[-1])
            return
        parts = split_top_level(pending, toks, ',')
        for n, part in enumerate(parts):
            lhs = split_top_level(part, toks, '=')[0]
            if n == 0:
                lhs = [i for i in lhs if toks[i] != BODY]
            if not lhs:
                continue
            name_idx = self.function_declarator(lhs)
            if name_idx is not None:       # a prototype: not a definition
                self.sf.prototypes.setdefault(toks[name_idx],
                                              self.sf.line_of(self.offsets[name_idx]))
                continue
            k = find_variable_name(drop_paren_specifiers(lhs, toks), toks, self.macros)
            if k is None:
                continue
            clean = drop_paren_specifiers(lhs, toks)
            self.not_ref.add(clean[k])
            if 'extern' not in words:
                self.add_variable(clean[k], words)
            else:
                self.sf.prototypes.setdefault(toks[clean[k]],
                                              self.sf.line_of(self.offsets[clean[k]]))

    def run(self):
        """Walk all tokens; return the set of token indices that are not
        references."""
        toks = self.tokens
        pending = []
        i = 0
        while i < self.body:
            tok = toks[i]
            if tok == '{':
                j = matching(toks, i, '{', '}')
                if self.on_body(pending, i, j):
                    pending = []
                else:
                    pending.append(self.body)
                i = j + 1
                continue
            if tok == ';':
                self.on_declaration(pending)
                pending = []
            elif tok != '}':
                pending.append(i)
            i += 1
        return self.not_ref


def parse_file(sf, macros):
    """Fill sf's definitions, references and atomic uses; macros are the
    names #defined anywhere in the tree."""
    directives = list(DIRECTIVE_RE.finditer(sf.code))
    top = DIRECTIVE_RE.sub(lambda m: blank(m.group(0)), sf.code)
    tokens, offsets = tokenize(top)
    parser = TopLevelParser(sf, tokens + [BODY], offsets + [len(top)], macros)
    not_ref = parser.run()
    collect_references(sf, tokens, offsets, not_ref)
    for m in directives:
        collect_directive(sf, m)
    collect_atomics(sf)


def collect_references(sf, tokens, offsets, not_ref):
    """Record every identifier of tokens that may name a definition."""
    for i, tok in enumerate(tokens):
        if i in not_ref or not is_ident(tok) or tok in C_KEYWORDS:
            continue
        prev = tokens[i - 1] if i > 0 else None
        if prev in ('.', '->') or prev in TAG_KEYWORDS:
            continue
        sf.add_reference(tok, sf.line_of(offsets[i]))


def collect_directive(sf, m):
    """Record the references in a #define body (the rest of the
    directives name macros and headers, not functions)."""
    text = m.group(0)
    head = DEFINE_RE.match(text)
    if head is None:
        return
    base = m.start() + head.end()
    tokens, offsets = tokenize(text[head.end():])
    for k, tok in enumerate(tokens):
        prev = tokens[k - 1] if k > 0 else None
        if is_ident(tok) and tok not in C_KEYWORDS and prev not in ('.', '->') \
                and prev not in TAG_KEYWORDS and prev != '#':
            sf.add_reference(tok, sf.line_of(base + offsets[k]))


def collect_atomics(sf):
    """Record the bare atomic operations (outside #include lines): a call of
    atomic_*(), __atomic*() or cds_lfs_*(), or a _Atomic qualifier. Naming
    an atomic type (atomic_ulong in a parameter list) accesses nothing."""
    code = re.sub(r'^[ \t]*#[ \t]*include[^\n]*', lambda m: blank(m.group(0)), sf.code,
                  flags=re.MULTILINE)
    for m in re.finditer(r'([A-Za-z_]\w*)(\s*\()?', code):
        tok = m.group(1)
        if tok in ATOMIC_WORDS:
            pass
        elif not (tok.startswith(ATOMIC_PREFIXES) and m.group(2)):
            continue
        use = (sf.line_of(m.start()), tok)
        if use not in sf.atomics:
            sf.atomics.append(use)


class Layers:
    """The floors and policy prefixes of a LAYERS file."""

    def __init__(self, path):
        self.prefixes = {}   # prefix -> floor
        self.policy = []
        self.errors = []
        with open(path, encoding='utf-8') as f:
            for n, line in enumerate(f, 1):
                self.parse_line(line.split('#', 1)[0].split(), n)

    def parse_line(self, words, n):
        """Parse one LAYERS line (already split into words)."""
        if not words:
            return
        if len(words) < 2:
            self.errors.append(f'LAYERS:{n}: expected "FLOOR PREFIX..." or "policy PREFIX..."')
            return
        if words[0] == 'policy':
            self.policy.extend(normalise_prefix(p) for p in words[1:])
            return
        try:
            floor = int(words[0])
        except ValueError:
            self.errors.append(f'LAYERS:{n}: "{words[0]}" is neither a floor number nor "policy"')
            return
        for prefix in words[1:]:
            prefix = normalise_prefix(prefix)
            old = self.prefixes.get(prefix)
            if old is not None and old != floor:
                self.errors.append(f'LAYERS:{n}: {prefix} is on floors {old} and {floor}')
            self.prefixes[prefix] = floor

    def floor_of(self, rel):
        """Return the floor of a path relative to LIBDIR, or None."""
        best, floor = -1, None
        for prefix, f in self.prefixes.items():
            if prefix_matches(prefix, rel) and len(prefix) > best:
                best, floor = len(prefix), f
        return floor

    def is_policy(self, rel):
        """True if rel lies under a policy prefix."""
        return any(prefix_matches(p, rel) for p in self.policy)


def normalise_prefix(prefix):
    """Return prefix without './' and trailing '/'."""
    prefix = prefix.strip()
    while prefix.startswith('./'):
        prefix = prefix[2:]
    return prefix.rstrip('/')


def prefix_matches(prefix, rel):
    """True if prefix names rel or a directory above it."""
    return prefix in ('', '.') or rel == prefix or rel.startswith(prefix + '/')


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
