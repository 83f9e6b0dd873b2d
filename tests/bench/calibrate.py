#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""--calibrate on a will-it-scale command in virtual time, read from
results.json: the per-op term w is the one that makes the model's base rate
the measured one, and each other policy's change under w's two bounds is
N/(T+w) (parallel) and min(N/(T+w), 1/w) (serial) against the measured
rate, recomputed here from the recorded ops/s. Every field of a calibration
that does not match the run exits 2 naming the field.

usage: calibrate.py TLBGEN-BENCH"""
import json
import math
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import Run, check, status  # noqa: E402

bench = sys.argv[1]
tmp = tempfile.mkdtemp(prefix="tlbgen-cal-")
A, B = "v6.8", "v6.14"
RUN = ["tlb_flush2", "--mode", "virtual", "-p", A, "-p", B, "-t", "2,4", "--runs", "1",
       "--ms", "1", "--warmup", "1"]


def cal_file(name, **over):
    doc = dict(workload="tlb_flush2", machine="skylake-56", shape="threads", tasks=4,
               per_task_ops=100000.0)
    doc.update(over)
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(over.pop("_raw", None) or json.dumps(doc))
    return path


def calibrated(measured, slow):
    r = Run(bench, RUN + ["--calibrate", cal_file("c%d.json" % measured, per_task_ops=measured)])
    check(r.rc == 0, "a matching calibration runs (rc %d: %s)" % (r.rc, r.err.strip()[-200:]))
    q = dict(workload="tlb_flush2", mode="virtual", shape="threads", threads=4)
    n = 4.0
    tb = n / r.value("ops_per_sec", policy=A, **q)
    tp = n / r.value("ops_per_sec", policy=B, **q)
    w = r.value("calibrated_work_ns", policy=B, **q) / 1e9
    check(abs(w - (1 / measured - tb)) < 1e-12,
          "w is what makes N/(T+w) the measured rate (%.1f ns)" % (w * 1e9))
    check(slow == (w > 0), "the model %s than the box: w %s 0"
          % ("faster" if slow else "slower", ">" if slow else "<"))
    xm = n * measured
    par = 100 * ((n / (tp + w)) / xm - 1)
    check(abs(r.value("calibrated_change_parallel_pct", policy=B, **q) - par) < 1e-6,
          "parallel bound: N/(T+w) against the measured rate (%+.2f%%)" % par)
    ws = r.value("calibrated_serial_work_ns", policy=B, **q) / 1e9
    ser = 100 * (min(n / (tp + ws), 1 / ws if ws > 0 else math.inf) / xm - 1)
    check(abs(r.value("calibrated_change_serial_pct", policy=B, **q) - ser) < 1e-6,
          "serial bound: min(N/(T+w), 1/w) against the measured rate (%+.2f%%)" % ser)
    check(r.value("calibrated_work_ns", policy=B, workload="tlb_flush2", threads=2) is None,
          "only the calibrated task count's row is calibrated")
    check(r.value("calibrated_work_ns", policy=A, **q) is None, "the base policy has no change")
    return r


calibrated(1000.0, True)     # the box far slower than the model: w > 0
calibrated(200000.0, False)  # faster: w < 0, parallel only

bad = [("workload", cal_file("w.json", workload="tlb_flush1")),
       ("machine", cal_file("m.json", machine="skx-2s-80")),
       ("tasks", cal_file("t.json", tasks=8)),
       ("shape", cal_file("s.json", shape="processes")),
       ("per_task_ops", cal_file("r.json", per_task_ops=0)),
       ("per_task_ops", cal_file("n.json", per_task_ops="fast")),
       ("(top level)", cal_file("a.json", _raw="[1, 2]")),
       ("--calibrate", cal_file("j.json", _raw="{ not json")),
       ("--calibrate", os.path.join(tmp, "missing.json"))]
for field, path in bad:
    r = Run(bench, RUN + ["--calibrate", path], keep=False)
    check(r.rc == 2 and field in r.err and path in r.err,
          "%s: exit 2 naming %s (rc %d: %s)" % (os.path.basename(path), field, r.rc,
                                                r.err.strip()[-160:]))
r = Run(bench, ["tlb_flush2", "--mode", "stepped", "--calibrate", cal_file("ok.json")], keep=False)
check(r.rc == 2 and "--mode virtual" in r.err, "--calibrate without virtual mode: exit 2")
sys.exit(status())
