# SPDX-License-Identifier: LGPL-2.1-or-later
"""LAYERS files for check-lib.py: the floor of each path prefix, the policy
prefixes, and the errors found while reading them."""


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
