# SPDX-License-Identifier: LGPL-2.1-or-later
"""Parsing for check-lib.py: the file-scope walk of one file that records
its definitions and prototypes (TopLevelParser), then the references and
bare atomics it holds (parse_file and the collect_* helpers)."""

import re

from .declarators import (drop_paren_specifiers, find_function_name,
                          find_variable_name, split_top_level)
from .lexer import (BODY, C_KEYWORDS, DEFINE_RE, DIRECTIVE_RE, TAG_KEYWORDS,
                    blank, is_ident, matching, tokenize)

ATOMIC_PREFIXES = ('atomic_', '__atomic', 'cds_lfs_')
ATOMIC_WORDS = ('_Atomic',)


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
