#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""tlbgen-bench seed000 --mode virtual, read from results.json: deterministic
(and the same whatever -j), no oracle violation, the tlb_gen line moves less
under v6.0 than v5.17, no change at 1 thread, tlb_flush1's 1.9375 flushes
per op (madvise, and wp_page_copy() over the read-only PTE fault-around
left, on 15 pages in 16), the MESI account by line kind, the seeds rule of
each row, the host check, the machines of the two tables, bad options.

usage: vseed.py TLBGEN-BENCH"""
import math
import sys

sys.path.insert(0, sys.path[0] + "/../bench")
from benchlib import Run, check, fail, ok, status  # noqa: E402

bench = sys.argv[1]
V = ["seed000", "--mode", "virtual"]

# Determinism through the CLI, whatever -j: the same figures.
runs = [Run(bench, V + ["--threads", "1,5,55", "--seed", "2", "--runs", "1", "-j", j])
        for j in ("1", "2", "1")]
for r in runs:
    if r.rc:
        r.show()
        sys.exit(1)
check(runs[0].figures() == runs[2].figures(), "two runs at -j 1: the same results.json")
check(runs[0].figures() == runs[1].figures(), "-j 1 and -j 2: the same results.json")
r = runs[0]
viol = sum(m["value"] for m in r.metrics("violations", mode="virtual"))
check(viol == 0, "no oracle violation (%d)" % viol)
chg1 = r.value("change_pct", threads=1, policy="+patch")
check(chg1 == 0, "no change at 1 thread (%s)" % chg1)
tg = r.values("tlb_gen_transfers_per_flush", "policy", threads=55)
check(tg.get("base", 0) > tg.get("+patch", 1e9), "tlb_gen transfers per flush fall: %s" % tg)
# Every target of a flush reads its initiator's flush_tlb_info, whose next
# write takes it back: at 55 threads (every other CPU a target) 55 per flush.
fti = r.values("transfers_per_flush_flush_tlb_info", "policy", threads=55)
check(len(fti) == 2 and all(54 <= v <= 56 for v in fti.values()),
      "flush_tlb_info transfers per flush at 55 threads: %s (want 55 +-1)" % fti)
fpo = r.values("flushes_per_op", "policy", threads=55)
check(len(fpo) == 2 and all(1.92 <= v <= 1.95 for v in fpo.values()),
      "flushes per op %s (want 1.9375)" % fpo)
rows = sorted({m["params"]["threads"] for m in r.metrics("ops_per_sec")})
check(rows == [1, 5, 55], "rows %s" % rows)
# Each flush_tlb_func ends in one outcome (one mm, never lazy); v5.17 has
# no early return.
for t in rows:
    for pol in ("base", "+patch"):
        o = {k: r.value("flush_tlb_func_per_op_" + k, threads=t, policy=pol)
             for k in ("calls", "early", "up_to_date", "full", "partial")}
        # (a call may be under way at either read of the counters)
        if t > 1 and abs(o["calls"] - o["early"] - o["up_to_date"] - o["full"] - o["partial"]) > 1e-3 * o["calls"]:
            fail("%d threads %s: outcomes %s do not add up" % (t, pol, o))
        if pol == "base" and o["early"]:
            fail("v5.17 returned early: %s" % o)

# The default rule: each row a mean over seeds until the change's standard
# error is at most 0.5 points, from 120 CPU-runs (24 seeds at 5 threads).
m = Run(bench, V + ["--threads", "1,5"])
if m.rc:
    m.show()
    sys.exit(1)
s1, s5 = m.value("seeds", threads=1, policy="+patch"), m.value("seeds", threads=5, policy="+patch")
se1, se5 = m.value("change_se_pct", threads=1, policy="+patch"), m.value("change_se_pct", threads=5, policy="+patch")
check(s1 == 120 and se1 == 0, "1 thread: %s seeds, se %s (want 120 seeds, 0)" % (s1, se1))
check(24 <= s5 <= 128 and (se5 <= 0.5 or s5 == 128), "5 threads: %s seeds, se %s" % (s5, se5))
chg5 = m.value("change_pct", threads=5, policy="+patch")
check(-3 <= chg5 <= 3, "5 threads: mean change %+.1f%% within +-3%%" % chg5)
lo, hi = m.value("change_lo_pct", threads=5, policy="+patch"), m.value("change_hi_pct", threads=5, policy="+patch")
R = hi - lo
check(R > 0 and R / math.sqrt(2 * s5 * (s5 - 1)) - 0.005 <= se5 <= R / 2 / math.sqrt(s5 - 1) + 0.005,
      "5 threads: se %.3f against the seeds' range %.1f..%.1f" % (se5, lo, hi))

# --check-host runs the threaded mode too: every program must stay an
# IRQ-enabled CPU until all stopped. Its verdict depends on the host's load:
# only completion and its four rows.
h = Run(bench, V + ["--check-host"], timeout=300)
cells = {(x["params"]["policy"], x["params"]["threads"]) for x in h.metrics("threaded_median_ops_per_sec")}
check(h.rc == 0 and len(cells) == 4, "--check-host: exit %d, %d rows" % (h.rc, len(cells)))

# --runs 2: the mean of two seeds; one thread contends with nothing.
r2 = Run(bench, V + ["--threads", "1", "--ms", "1", "--runs", "2"])
check(r2.rc == 0 and r2.value("seeds", threads=1, policy="+patch") == 2 and
      r2.value("change_pct", threads=1, policy="+patch") == 0 and
      r2.value("change_lo_pct", threads=1, policy="+patch") == 0 and
      r2.value("change_hi_pct", threads=1, policy="+patch") == 0, "--runs 2: two seeds, no change")

# The seed's first table ran with PTI off, its second (--columns 4) with PTI
# on: each defaults to its machine, and --machine still wins.
for cols, want, extra in (("2", "skylake-56", []), ("4", "skylake-56-pti", []),
                          ("4", "skx-2s-80", ["--machine", "skx-2s-80"])):
    c = Run(bench, V + ["--columns", cols, "--threads", "1", "--ms", "1", "--runs", "1"] + extra)
    got = (c.meta or {}).get("params", {}).get("machine", "")
    check(c.rc == 0 and got.startswith(want + ":"), "--columns %s %s: machine %s" % (cols, extra, got.split(":")[0]))

for args in (["--machine", "nosuch"], ["--machine", "skylake-56:mhz=0"], ["--columns", "3"],
             ["--ms", "0"], ["--threads", "0"], ["--threads", "57"], ["--runs", "0"],
             ["--runs", "129"], ["--runs", "autox"], ["--warmup", "1001"], ["--warmup", "-1"],
             ["--check-host", "--ms", "20"], ["--check-host", "--runs", "2"], ["--mode", "nosuch"]):
    b = Run(bench, V + args, keep=False)
    check(b.rc == 2, "seed000 --mode virtual %s: exit %d (want 2)" % (" ".join(args), b.rc))

# A cell shorter than one op has nothing to measure: said, and exit 1.
s = Run(bench, V + ["--machine", "skylake-56:mhz=100,page_fault=100000", "--threads", "1",
                    "--ms", "1", "--warmup", "1", "--runs", "1"], keep=False)
check(s.rc == 1 and "no op ended inside the 1 ms window" in s.err, "a window shorter than an op: exit %d" % s.rc)
sys.exit(status())
