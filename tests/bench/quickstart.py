#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The Quick start's run (tlbgen-bench with no command: seed 000 threaded),
short: will-it-scale's raw per-sample lines ("min:N max:N total:N") are
left out by default and printed with --verbose, one per sample that
results.json records either way; the run ends naming the command of the
seed's 56-core table (virtual time), which it does not itself print.
The figures are read from results.json; stdout is only searched for the
raw sample lines and the command.
usage: quickstart.py TLBGEN-BENCH
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import Run, check, status  # noqa: E402

SHORT = ["-t", "1,2", "-r", "2", "-d", "20", "-s", "10", "--no-mesi", "--no-acct", "--no-plot"]
RAW = re.compile(r"^min:\d+ max:\d+ total:\d+$", re.M)


def samples(r):
    return sum(len(m.get("samples", [])) for m in r.metrics("sample_total_ops_per_sec"))


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    bench = argv[1]
    r = Run(bench, SHORT)
    n = samples(r)
    check(r.rc == 0 and n > 0, f"quick start: exit {r.rc}, {n} samples in results.json")
    check(not RAW.search(r.out), "quick start: no raw per-sample line on stdout by default "
          f"({len(RAW.findall(r.out))} of them)")
    check("tlbgen-bench seed000 --mode virtual" in r.out,
          "quick start: names the 56-core table's command (seed000 --mode virtual)")
    v = Run(bench, SHORT + ["--verbose"])
    check(v.rc == 0 and len(RAW.findall(v.out)) == samples(v) > 0,
          f"--verbose: exit {v.rc}, {len(RAW.findall(v.out))} raw lines for {samples(v)} samples")
    q = Run(bench, SHORT + ["-v", "-q"])
    check(q.rc == 0 and not RAW.search(q.out), "-v -q: quiet wins")
    return status()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
