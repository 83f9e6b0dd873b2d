#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""tlbgen-bench seed001 (virtual time), read from results.json: deterministic
through the CLI, no oracle violation (exit 0); the mechanism: nearly every
madvise() gather finds another in flight, so tlb_finish_mmu() flushes the
whole mm with freed_tables (mm_tlb_flush_nested(), 7a30df49f63a), an IPI to
every CPU in mm_cpumask whatever should_flush_tlb() would say; the seed's
figure on the row of the machine's CPU count; bad options exit 2.

Before munmap() zapped under a downgraded mmap_lock (dd2283f2605e, choice
munmap_lock), this test also found more stale IPIs (to CPUs on init_mm)
under lazy than under clear-on-switch at 40 threads in this run (0.0442
against 0.0365 in seed001's default run). With the downgrade the two are
level here (0.0351 and 0.0361): fewer readers sleep through a zap, and the
difference was the model's, not a rule of the kernel's, so it is not
asserted.

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
    n = a.values("nested_full_flush_pct", "policy", threads=t)
    check(len(n) == 3 and min(n.values()) > 90,
          "%d threads: gathers made full by mm_tlb_flush_nested(), %%: %s" % (t, n))
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
