# SPDX-License-Identifier: LGPL-2.1-or-later
"""Lexing for check-lib.py: comments and literals blanked out, tokens, the
C keyword sets, and the small token-list helpers the parser shares."""

import re

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
