#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""tlbgen-bench --plugin as a user meets it: a plugin whose policy names a
base profile that does not exist is refused naming that profile (not with
strerror(ENOENT) last); a plugin that registers nothing is refused, exit 2,
saying so; `--plugin PATH --help` is the tool's help with the plugin's
policies, not seed000's help.
usage: plugin-cli.py TLBGEN-BENCH GOOD-PLUGIN BAD-BASE-PLUGIN EMPTY-PLUGIN
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import check, status  # noqa: E402


def run(bench, *args):
    return subprocess.run([bench, "--no-out", *args], capture_output=True, text=True,
                          timeout=60)


def main(argv):
    if len(argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    bench, good, bad_base, empty = argv[1:]

    p = run(bench, "--plugin", bad_base, "lazy")
    last = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ""
    check(p.returncode == 2 and "'nosuch'" in p.stderr and "unknown base profile" in last
          and "No such file or directory" not in p.stderr,
          f"a plugin over base 'nosuch': exit {p.returncode} (want 2), names it: {p.stderr!r}")

    p = run(bench, "--plugin", empty, "lazy")
    check(p.returncode == 2 and "registered no policy" in p.stderr and empty in p.stderr,
          f"a plugin registering nothing: exit {p.returncode} (want 2): {p.stderr!r}")

    p = run(bench, "--plugin", good, "--help")
    check(p.returncode == 0 and p.stdout.startswith("usage: tlbgen-bench [--plugin")
          and "port-8f1d56f64f8d" in p.stdout and "registered" in p.stdout,
          f"--plugin PATH --help: exit {p.returncode}, the tool's help naming the plugin's "
          f"policy: {p.stdout[:160]!r}")
    p = run(bench, "--help")
    check(p.returncode == 0 and "registered" not in p.stdout,
          "--help without a plugin lists no plugin")
    return status()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
