# SPDX-License-Identifier: LGPL-2.1-or-later
"""Declarators for check-lib.py: given the token indices of one file-scope
declaration, find the name it declares (function or variable) and split
it at top-level commas or '='."""

from .lexer import C_KEYWORDS, PAREN_SPECIFIERS, TAG_KEYWORDS, is_ident

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
