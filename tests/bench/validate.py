#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""tlbgen-bench validate: the validation corpus, read from results.json.

What must hold:
- the built-in corpus: at least 12 rows, 3 architectures, 4 workloads, each
  with a source and the model's prediction at entry (bench/presets/corpus.json);
- a row's verdict follows the rule (rate within 25%, change within
  max(3 points, a third of the measured change)), recomputed here from the
  figures the run recorded, and the calibrated bounds follow the formulas
  of bench/presets/validate-cal.c, recomputed here the same way;
- bad corpora exit 2 naming the row and the field, and keep no results.

usage: validate.py TLBGEN-BENCH SOURCE-ROOT"""
import copy
import json
import os
import sys
import tempfile

sys.path.insert(0, sys.path[0])
from benchlib import Run, check, status  # noqa: E402

bench, root = sys.argv[1], sys.argv[2]
with open(os.path.join(root, "bench", "presets", "corpus.json")) as f:
    corpus = json.load(f)
rows = corpus["rows"]

# The corpus as data.
check(len(rows) >= 12, "the corpus has %d rows (at least 12)" % len(rows))
check(len({r["arch"] for r in rows}) >= 3, "rows on %s" % sorted({r["arch"] for r in rows}))
check(len({r["workload"] for r in rows}) >= 4, "workloads %s" % sorted({r["workload"] for r in rows}))
check(all(r.get("source") for r in rows), "every row names its source")
check(all("entry" in r for r in rows), "every row carries its prediction at entry")

# Two small rows through the command: the judge and calibration recomputed.
small = sorted((r for r in rows if r["workload"] != "swap_bench"), key=lambda r: r["tasks"])[0]
swap = next((r for r in rows if r["workload"] == "swap_bench"), None)
for row in [small] + ([swap] if swap else []):
    run = Run(bench, ["validate", "--row", row["id"], "--runs", "2"])
    check(run.rc == 0, "validate --row %s exits 0 (rc %d)" % (row["id"], run.rc))

    def v(name, rid=row["id"]):
        return run.value(name, workload="validate", row=rid)

    mb, mp, meas = v("model_base_rate"), v("model_patch_rate"), v("measured_base_rate")
    if not check(None not in (mb, mp, meas), "%s: rates recorded" % row["id"]):
        continue
    check(meas == row["measured"]["base_rate"], "%s: the measured rate is the corpus's" % row["id"])
    chg = 100 * (mp / mb - 1)
    check(abs(v("model_change_pct") - chg) < 1e-6, "%s: change is of the rate" % row["id"])
    tol = max(3.0, abs(row["measured"]["change_pct"]) / 3)
    holds = abs(100 * (mb / meas - 1)) <= 25 and abs(chg - row["measured"]["change_pct"]) <= tol
    check(v("holds") == (1 if holds else 0), "%s: verdict %s by the rule" % (row["id"], holds))
    check(v("entry_base_rate") == row["entry"]["rate"] and
          v("entry_change_pct") == row["entry"]["change_pct"],
          "%s: the prediction at entry recorded beside today's" % row["id"])
    # Calibration: w fixes the base rate; parallel adds w to every op.
    n = row["tasks"] if row["workload"] != "swap_bench" else 1
    w = 1 / meas - 1 / mb
    par = 100 * ((1 / (1 / mp + w)) / meas - 1)
    check(abs(v("calibrated_work_ns") - w * 1e9) < 1e-6 * max(1, abs(w * 1e9)),
          "%s: calibrated per-op work %.1f ns" % (row["id"], w * 1e9))
    check(abs(v("calibrated_change_parallel_pct") - par) < 1e-6,
          "%s: parallel bound %+.2f%%" % (row["id"], par))
    ser = par
    if w > 0:
        w1 = 1 / (n * meas)
        ws = w1 if n / (1 / mb + w1) >= n * meas else w
        ser = 100 * (min(n / (1 / mp + ws), 1 / ws) / (n * meas) - 1)
    check(abs(v("calibrated_change_serial_pct") - ser) < 1e-6,
          "%s: serial bound %+.2f%%" % (row["id"], ser))
    check(run.value("rows", workload="validate") == 1,
          "%s: the summary counts the one row run" % row["id"])

# Bad corpora: exit 2, the row and the field named, no results kept.
base = copy.deepcopy(small)
base.pop("entry", None)


def bad(mutate, words, what):
    r = copy.deepcopy(base)
    mutate(r)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"rows": [r]}, f)
    run = Run(bench, ["validate", "--corpus", f.name])
    os.unlink(f.name)
    check(run.rc == 2 and all(w in run.err for w in words) and run.results is None,
          "%s: exit 2 naming %s (rc %d, %r)" % (what, words, run.rc, run.err.strip()[-160:]))


bad(lambda r: r["measured"].pop("base_rate"), [base["id"], "measured.base_rate", "missing"],
    "a missing field")
bad(lambda r: r["machine"].update(model="no-such-box"), [base["id"], "machine.model"],
    "a machine the model cannot build")
bad(lambda r: r["kernel"].update(patch="v6.8:no_such_choice=1"), [base["id"], "kernel.patch"],
    "a profile choice that does not exist")
bad(lambda r: r["machine"].update(sockets=r["machine"]["sockets"] + 1),
    [base["id"], "machine.model", "the source's machine"], "a model of another topology")
bad(lambda r: r["measured"].update(change_pct="big"), [base["id"], "measured.change_pct"],
    "a change that is not a number")
bad(lambda r: r.update(workload="kernbench"), [base["id"], "workload"], "an unknown workload")
bad(lambda r: r.update(tasks=100000), [base["id"], "tasks"], "too many tasks")
bad(lambda r: r.update(window={"warmup_ms": 10, "ms": 0, "why": "x"}), [base["id"], "window.ms"],
    "a window of no time")
bad(lambda r: r.update(window={"warmup_ms": 60001, "ms": 10, "why": "x"}),
    [base["id"], "window.warmup_ms"], "a warm-up past a minute")
bad(lambda r: r.update(window={"warmup_ms": 10, "ms": 10}), [base["id"], "window.why"],
    "a window without its reason")
# A row's own window lengthens the run's, never shortens it.
for ms, want in ((1, 3), (9, 9)):
    r = copy.deepcopy(base)
    r["window"] = {"warmup_ms": 1, "ms": 3, "why": "a test's"}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"rows": [r]}, f)
    run = Run(bench, ["validate", "--corpus", f.name, "--runs", "1", "--ms", str(ms), "-w", "2"])
    os.unlink(f.name)
    check(run.rc == 0 and run.value("window_ms", workload="validate", row=r["id"]) == want and
          run.value("window_warmup_ms", workload="validate", row=r["id"]) == 2,
          "--ms %d against a 3-ms window: %d ms measured, 2 warmed (rc %d)" % (ms, want, run.rc))
# Rows that share their kernels register each spec once: 40 rows of two
# profile:choice specs each stay within the 64 user profiles a run has.
two = next(r for r in rows if ":" in r["kernel"]["base"] and ":" in r["kernel"]["patch"])
many = []
for i in range(40):
    r = copy.deepcopy(two)
    r.pop("entry", None)
    r["id"], r["tasks"] = "%s-copy%d" % (two["id"], i), 2
    many.append(r)
with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
    json.dump({"rows": many}, f)
run = Run(bench, ["validate", "--corpus", f.name, "--row", many[39]["id"], "--runs", "1"])
os.unlink(f.name)
check(run.rc == 0 and run.value("rows", workload="validate") == 1,
      "40 rows of the same two specs load and run (rc %d, %r)" % (run.rc, run.err.strip()[-200:]))
run = Run(bench, ["validate", "--corpus", "/nonexistent/corpus.json"])
check(run.rc == 2 and "/nonexistent/corpus.json" in run.err and "line -1" not in run.err,
      "a missing corpus file is named, without a line number")
with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
    f.write('{"rows": [\n')
run = Run(bench, ["validate", "--corpus", f.name])
os.unlink(f.name)
check(run.rc == 2 and "not JSON" in run.err and "line 2" in run.err, "a corpus that is not JSON: its line")
run = Run(bench, ["validate", "--row", "no-such-row"])
check(run.rc == 2 and "no-such-row" in run.err, "an unknown --row is named")
# --interval on a row of its own: the model's prediction lies inside the
# interval, the interval is the sum of the figures' effects, one swing a
# ranged figure of unmatched, and "inside" says what the numbers say.
VF2 = "vf2-swap_bench-threads-54d7431af73e"
ri = Run(bench, ["validate", "--interval", "--row", VF2])
check(ri.rc == 0, "validate --interval --row: exit 0 (rc %d)" % ri.rc)


def iv(name):
    return ri.value(name, workload="validate", row=VF2)


rate, chg = iv("model_base_rate"), iv("model_change_pct")
rlo, rhi = iv("model_rate_interval_low"), iv("model_rate_interval_high")
clo, chi = iv("model_change_interval_low_pct"), iv("model_change_interval_high_pct")
check(None not in (rlo, rhi, clo, chi) and rlo <= rate <= rhi and clo <= chg <= chi,
      "the prediction inside its interval (rate %s in %s..%s, change %s in %s..%s)"
      % (rate, rlo, rhi, chg, clo, chi))
swings = ri.values("figure_swing_change_pct", "figure", workload="validate", row=VF2)
check(len(swings) == iv("interval_figures") and "ipi_latency" in swings and
      "page_fault" in swings, "a swing per ranged figure of unmatched (%d)" % len(swings))
check(chi - clo <= sum(swings.values()) + 1e-6 and chi - clo > 0,
      "the change interval is at most the figures' swings summed")
m_rate, m_chg = iv("measured_base_rate"), iv("measured_change_pct")
check(iv("measured_in_rate_interval") == (1 if rlo <= m_rate <= rhi else 0) and
      iv("measured_in_change_interval") == (1 if clo <= m_chg <= chi else 0),
      "inside/outside as the numbers say")
check(Run(bench, ["validate", "--row", VF2], keep=True).value(
      "model_change_interval_low_pct", workload="validate", row=VF2) is None,
      "without --interval, no interval")
sys.exit(status())
