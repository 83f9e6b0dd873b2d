#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""tlbgen-bench seed001 (virtual time), read from results.json: deterministic
through the CLI, no oracle violation (exit 0), and the direction of the
mechanism: more IPIs per flush to CPUs that run another mm (stale) under the
lazy untrimmed cpumask than under clear-on-switch and the per-HZ trim; the
seed's figure on the row of the machine's CPU count; bad options exit 2.

usage: vseed1.py TLBGEN-BENCH"""
import sys

sys.path.insert(0, sys.path[0] + "/../bench")
from benchlib import Run, check, status  # noqa: E402

bench = sys.argv[1]
# The mechanism is a steady-state one: in 2 ms a thread has done about 25
# of its 256 pages and few have remapped; 10 ms is past the first remaps.
args = ["seed001", "--threads", "40,80", "--ms", "10", "--runs", "1", "--seed", "2"]
a, b = Run(bench, args), Run(bench, args)
for r in (a, b):
    if r.rc:
        r.show()
        sys.exit(1)
check(a.figures() == b.figures(), "two runs: the same results.json")
for t in (40, 80):
    s = a.values("stale_ipis_per_flush", "policy", threads=t)
    check(s["lazy"] > s["clear"] and s["lazy"] > s["trim"],
          "%d threads: stale IPIs per flush clear/lazy/trim %.4f/%.4f/%.4f" % (t, s["clear"], s["lazy"], s["trim"]))
    v = sum(a.values("violations", "policy", threads=t).values())
    check(v == 0, "%d threads: %d oracle violations" % (t, v))
check(a.value("seed_change_vs_clear_pct", threads=80, policy="lazy") == -13.2,
      "the seed's -13.2% on the 80-thread row")
check(a.value("seed_change_vs_lazy_pct", threads=40, policy="trim") == 3.6,
      "the seed's +3.6% on the 40-thread row")
for bad in (["--machine", "nosuch"], ["--ms", "0"], ["--threads", "0"], ["--threads", "81"],
            ["--runs", "0"], ["--mode", "threads"], ["-p", "v6.0"]):
    r = Run(bench, ["seed001"] + bad, keep=False)
    check(r.rc == 2, "seed001 %s: exit %d (want 2)" % (" ".join(bad), r.rc))
sys.exit(status())
