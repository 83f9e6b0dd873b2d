#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""What docs/policies.md and docs/simulators.md tell a policy or simulator
author, against the headers and themselves:
- every tlbgen_ipi_target__*() accessor of include/tlbgen/profile.h is in
  policies.md's accessor table;
- policies.md's ipi_cond section says the condition is asked about the
  initiating CPU too (smp_call_function_many_cond() with SCF_RUN_LOCAL; the
  behaviour itself is tests/core/test_ipi_target.c), not "once per remote
  CPU";
- no C snippet of simulators.md uses a name that only a later snippet
  declares (a reader copies them in order).
usage: docs-claims.py SOURCE-ROOT
"""
import os
import re
import sys


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    root = argv[1]
    fails = []
    with open(os.path.join(root, "include/tlbgen/profile.h")) as f:
        api = set(re.findall(r"TLBGEN_API [^;]*?\b(tlbgen_ipi_target__\w+)\(", f.read()))
    with open(os.path.join(root, "docs/policies.md")) as f:
        pol = f.read()
    table = {m for m in re.findall(r"^\| `(tlbgen_ipi_target__\w+)\(", pol, re.M)}
    if not api or api - table:
        fails.append(f"policies.md: accessors missing from the table: {sorted(api - table)}")
    sec = pol.split("### `ipi_cond`", 1)[-1].split("\n## ", 1)[0]
    if "once per remote CPU" in sec or not re.search(r"initiat\w+ CPU", sec):
        fails.append("policies.md: the ipi_cond section does not say it is asked about "
                     "the initiating CPU")

    with open(os.path.join(root, "docs/simulators.md")) as f:
        blocks = re.findall(r"```c\n(.*?)```", f.read(), re.S)
    decl = re.compile(r"^\s*(?:static\s+)?(?:const\s+)?(?:struct\s+)?\w+\s+\**(\w+)\s*(?:=|;|\[)",
                      re.M)
    declared = [set(decl.findall(b)) for b in blocks]
    for i, b in enumerate(blocks):
        before = set().union(*declared[:i + 1])
        later = set().union(*declared[i + 1:]) - before
        used = set(re.findall(r"&(\w+)", b)) & later
        if used:
            fails.append(f"simulators.md: C snippet {i + 1} uses {sorted(used)}, declared "
                         "only in a later one")
    for msg in fails:
        print("FAIL: " + msg)
    if not fails:
        print(f"ok: {len(api)} accessors in the table; ipi_cond's initiator; "
              f"{len(blocks)} snippets in order")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
