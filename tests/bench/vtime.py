#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""tlbgen-bench vtime, read from results.json: the floor's and the engine's
ns per scheduling point are recorded per round, positive and finite; the
medians are those of the samples, the ratio the median of the rounds'
ratios; switches per point lie in [0, 1]; a bad --cpus is refused. Not the
speed itself: that is the host's.

usage: vtime.py TLBGEN-BENCH"""
import math
import os
import statistics
import sys

sys.path.insert(0, sys.path[0])
from benchlib import Run, check, status  # noqa: E402

bench = os.path.abspath(sys.argv[1])
ROUNDS, CPUS = 3, 8


def close(a, b, rel=1e-9):
    return a is not None and b is not None and abs(a - b) <= rel * max(1.0, abs(a), abs(b))


r = Run(bench, ["vtime", "--rounds", str(ROUNDS), "--cpus", str(CPUS), "--us", "200",
                "--points", "20000"])
if not check(r.rc == 0, "vtime: exit 0"):
    r.show()
pa = {"workload": "tlb_flush1", "cpus": CPUS}


def samples(name):
    m = r.metrics(name, **pa)
    return m[0].get("samples") if len(m) == 1 else None


fl, en = samples("floor_ns_per_point"), samples("engine_ns_per_point")
if check(fl is not None and en is not None and len(fl) == len(en) == ROUNDS,
         "vtime: %d rounds of floor and engine samples" % ROUNDS):
    check(all(math.isfinite(x) and x > 0 for x in fl + en), "vtime: every sample positive")
    # A point is at least a few instructions and far below a millisecond.
    check(all(0.1 < x < 1e6 for x in fl + en), "vtime: samples between 0.1 ns and 1 ms")
    check(close(r.value("median_floor_ns_per_point", **pa), statistics.median(fl)) and
          close(r.value("median_engine_ns_per_point", **pa), statistics.median(en)),
          "vtime: the medians are the samples' medians")
    check(close(r.value("ratio_to_floor", **pa),
                statistics.median([e / f for e, f in zip(en, fl)])),
          "vtime: the ratio is the median of the rounds' ratios")
for name in ("floor_switches_per_point", "engine_switches_per_point"):
    v = r.value(name, **pa)
    check(v is not None and 0 <= v <= 1, "vtime: %s in [0, 1] (%s)" % (name, v))
pts = r.value("engine_points_per_round", **pa)
check(pts is not None and pts >= 1000, "vtime: the engine's round passed points (%s)" % pts)
lines = r.value("lines", **pa)
check(lines is not None and lines >= CPUS, "vtime: the floor's lines, the engine's, at least one a CPU (%s)" % lines)
check(r.meta is not None and r.meta.get("params", {}).get("rounds") == ROUNDS,
      "vtime: meta.json keeps the rounds")

bad = Run(bench, ["vtime", "--cpus", "57"], keep=False)
check(bad.rc == 2 and "56 CPUs" in bad.err, "vtime --cpus 57 on skylake-56: exit 2, named")
bad = Run(bench, ["vtime", "--machine", "off"], keep=False)
check(bad.rc == 2, "vtime --machine off: exit 2")
sys.exit(status())
