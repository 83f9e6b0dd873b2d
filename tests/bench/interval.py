#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""seed000 --mode virtual --interval, read from results.json: each figure of
skylake-56 with a stated range rerun at both ends, the row's interval the
point plus the summed effects, and the arithmetic of one thread (no other
CPU in its way: an op's cycles are its figures' sum) as the oracle.

usage: interval.py TLBGEN-BENCH"""
import sys

sys.path.insert(0, sys.path[0])
from benchlib import Run, check, status  # noqa: E402

bench = sys.argv[1]
# skylake-56's ranged figures (docs/machines.md; tests/core/machines-doc.py
# holds the file to the library), less invlpgb/tlbsync: no --invlpgb here.
FIGS = ["hit", "same_socket", "cross_socket", "memory", "rmw", "inval_sharer", "ipi_send",
        "ipi_latency", "cr3_write", "refill", "page_fault", "zap", "ptl", "user_work",
        "fill_hold", "irq_entry", "irq_exit", "invlpg", "syscall", "zap_batched", "lru_folio"]
COLS = ("base", "+patch")

r = Run(bench, ["seed000", "--mode", "virtual", "--interval", "--interval-runs", "1",
                "-t", "1,4", "--runs", "1", "--ms", "3", "--warmup", "1", "-j", "2"])
check(r.rc == 0, "seed000 --interval exits 0 (rc %d)" % r.rc)
for t in (1, 4):
    for k, p in enumerate(COLS):
        x = r.value("ops_per_sec", threads=t, policy=p)
        lo = r.value("ops_per_sec_interval_low", threads=t, policy=p)
        hi = r.value("ops_per_sec_interval_high", threads=t, policy=p)
        pt = r.value("interval_point_ops_per_sec", threads=t, policy=p)
        check(None not in (x, lo, hi, pt) and lo <= x <= hi,
              "%d threads %s: interval %s..%s holds the point %s" % (t, p, lo, hi, x))
        figs = r.values("figure_swing_ops_pct", "figure", threads=t, policy=p)
        check(sorted(figs) == sorted(FIGS), "%d threads %s: a swing for each ranged figure "
              "and no other (%s)" % (t, p, sorted(figs)))
        # The interval is the point plus every figure's effect below and above.
        dl = sum(min(0, r.value("figure_low_ops_per_sec", threads=t, policy=p, figure=f) - pt,
                     r.value("figure_high_ops_per_sec", threads=t, policy=p, figure=f) - pt)
                 for f in FIGS)
        dh = sum(max(0, r.value("figure_low_ops_per_sec", threads=t, policy=p, figure=f) - pt,
                     r.value("figure_high_ops_per_sec", threads=t, policy=p, figure=f) - pt)
                 for f in FIGS)
        check(abs(x + dl - lo) < 1 and abs(x + dh - hi) < 1,
              "%d threads %s: low %.0f = point %.0f %+.0f, high %.0f = %+.0f" % (t, p, lo, x, dl, hi, dh))
        if k:
            c = r.value("change_pct", threads=t, policy=p)
            cl = r.value("change_interval_low_pct", threads=t, policy=p)
            ch = r.value("change_interval_high_pct", threads=t, policy=p)
            check(cl <= c <= ch, "%d threads: change %.1f%% within %.1f..%.1f%%" % (t, c, cl, ch))

# One thread: nothing contends, so a cheaper figure never slows it, and
# zap at its low end (374 for 5000 cycles) takes 4626 cycles off each op's
# one zap at 2.5 GHz: 2.5e9 / (2.5e9 / ops - 4626) ops/s.
for p in COLS:
    pt = r.value("interval_point_ops_per_sec", threads=1, policy=p)
    for f in FIGS:
        lo = r.value("figure_low_ops_per_sec", threads=1, policy=p, figure=f)
        hi = r.value("figure_high_ops_per_sec", threads=1, policy=p, figure=f)
        check(lo >= hi * 0.999, "1 thread %s: %s cheaper is not slower (%.0f vs %.0f)" % (p, f, lo, hi))
    want = 2.5e9 / (2.5e9 / pt - 4626)
    got = r.value("figure_low_ops_per_sec", threads=1, policy=p, figure="zap")
    check(abs(got / want - 1) < 0.02, "1 thread %s: zap at 374 gives %.0f ops/s (want %.0f)" % (p, got, want))

# Without --interval, no interval is recorded; a model without ranges is refused.
r2 = Run(bench, ["seed000", "--mode", "virtual", "-t", "1", "--runs", "1", "--ms", "2", "--warmup", "1"])
check(r2.rc == 0 and not r2.metrics("ops_per_sec_interval_low"), "no interval without --interval")
r3 = Run(bench, ["seed000", "--mode", "virtual", "--interval", "--machine", "host", "-t", "1"],
         keep=False)
check(r3.rc == 2 and "no stated ranges" in r3.err, "--interval on host: exit 2 (rc %d)" % r3.rc)
r4 = Run(bench, ["seed000", "--interval"], keep=False)
check(r4.rc == 2, "--interval without --mode virtual: exit 2 (rc %d)" % r4.rc)
sys.exit(status())
