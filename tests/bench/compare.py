#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""tlbgen-bench compare, read through its JSON (--json -), on committed
results directories: no timing at test time.

fixtures/compare/run1 and run2 are one command run twice, at the same time
so that both saw the same machine (a 2-core VM under load: run one after
the other, two such runs differed by 50-85% in throughput, a change of the
machine, not noise):
  tlbgen-bench tlb_flush1 --mode threads -t 1,2 -p v6.0 -p v6.4 -r 5 -d 400 \\
      -s 50 --no-plot --no-mesi --no-acct -q --out tests/bench/fixtures/compare/runN

Checks: a directory against itself shows no change; the two runs show no
metric at p < 0.01 although their per-interval samples, taken as if
independent, would (the fixtures can tell the two statistics apart); each
round counts once; a metric in one directory only is listed; bad arguments
exit 2 with a message; merge keeps each run's rounds; virtual-time rows
count their seeds, and two machine models are named as why nothing pairs.
usage: compare.py TLBGEN-BENCH FIXTURES-DIR
"""
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import check, fail, ok, status  # noqa: E402

# Student's t quantile 0.995 at 60 degrees of freedom: above it, a
# two-sided p is below 0.01 for any df >= 60 (published t tables).
T_995_DF60 = 2.660


def compare(bench, *args):
    p = subprocess.run([bench, "compare", *args], capture_output=True, text=True, timeout=120)
    doc = None
    if p.returncode in (0, 3) and "--json" in args:
        try:
            doc = json.loads(p.stdout)
        except ValueError as e:
            fail(f"compare {' '.join(args)}: stdout is not JSON ({e}): {p.stdout[:200]!r}")
    return p, doc


def key(m):
    return (m["name"], json.dumps(m["params"], sort_keys=True))


def by_key(doc):
    return {key(m): m for m in doc["metrics"]}


def load(d):
    with open(os.path.join(d, "results.json")) as f:
        return json.load(f)


def welch_t(a, b):
    va, vb = statistics.variance(a) / len(a), statistics.variance(b) / len(b)
    if va + vb == 0:
        return 0.0, math.inf
    t = (statistics.mean(b) - statistics.mean(a)) / math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va * va / (len(a) - 1) + vb * vb / (len(b) - 1))
    return t, df


def self_compare(bench, a):
    p, doc = compare(bench, "--json", "-", a, a)
    if not check(p.returncode == 0 and doc, f"compare A A: exit {p.returncode}"):
        return
    ms = doc["metrics"]
    moved = [key(m) for m in ms for c in m["changes"]
             if c is None or c["change_pct"] not in (0, 0.0, None)]
    pvals = [c["p"] for m in ms for c in m["changes"] if c and c["p"] is not None]
    check(len(ms) == len(load(a)["metrics"]) and not moved,
          f"compare A A: {len(ms)} metrics, {len(moved)} with a change (want 0)")
    check(len(pvals) >= 10 and all(x == 1 for x in pvals),
          f"compare A A: {len(pvals)} tested, all p = 1: {sorted(set(pvals))}")
    check(doc["counts"]["not_in_all"] == 0, "compare A A: every metric in both")


def two_runs(bench, a, b):
    p, doc = compare(bench, "--json", "-", a, b)
    if not check(p.returncode == 0 and doc, f"compare run1 run2: exit {p.returncode}"):
        return
    ms = by_key(doc)
    low = [(k, c["p"]) for k, m in ms.items() for c in m["changes"]
           if c and c["p"] is not None and c["p"] < 0.01]
    tested = sum(1 for m in ms.values() for c in m["changes"] if c and c["p"] is not None)
    check(tested >= 20 and not low,
          f"run1 against run2: {tested} metrics tested, {len(low)} at p < 0.01 {low[:3]}")
    # The fixtures can fail that check: the per-interval samples taken one
    # by one (the statistic compare must not use) call some metric
    # significant.
    ra, rb = by_key(load(a)), by_key(load(b))
    naive = []
    rounds_ok = True
    for k, m in ra.items():
        if "round_sizes" not in m or k not in rb:
            continue
        t, df = welch_t(m["samples"], rb[k]["samples"])
        if abs(t) > T_995_DF60 and df >= 60:
            naive.append((k[0], round(t, 2)))
        # Each round counts once: compare's n and mean are the rounds'.
        sizes, s, at, means = m["round_sizes"], m["samples"], 0, []
        for n in sizes:
            means.append(statistics.mean(s[at:at + n]))
            at += n
        side = ms[k]["dirs"][0]
        if side["n"] != len(sizes) or side["sample"] != "round_mean" or \
           abs(side["mean"] - statistics.mean(means)) > 1e-9 * abs(side["mean"]):
            rounds_ok = False
            fail(f"{k}: compare took n {side['n']} mean {side['mean']}, "
                 f"want {len(sizes)} rounds of mean {statistics.mean(means)}")
    check(naive, f"per-interval samples as if independent: {len(naive)} metrics at p < 0.01 "
          f"{naive[:2]}")
    if rounds_ok:
        ok("every per-interval metric compared as its rounds' means")


def one_side(bench, a, b, tmp):
    """A metric only in A and one only in B are listed, not dropped."""
    d = os.path.join(tmp, "edited")
    shutil.copytree(b, d)
    doc = load(d)
    gone = doc["metrics"].pop(0)
    extra = dict(doc["metrics"][0], name="only_in_b")
    doc["metrics"].append(extra)
    with open(os.path.join(d, "results.json"), "w") as f:
        json.dump(doc, f)
    p, out = compare(bench, "--json", "-", a, d)
    if not check(p.returncode == 0 and out, f"compare with metrics on one side: exit {p.returncode}"):
        return
    ms = by_key(out)
    check(ms.get(key(gone), {}).get("in") == ["A"] and ms[key(gone)]["changes"] == [None],
          f"{gone['name']} only in A: listed with in = {ms.get(key(gone), {}).get('in')}")
    check(ms.get(key(extra), {}).get("in") == ["B"] and ms[key(extra)]["dirs"][0] is None,
          f"only_in_b only in B: listed with in = {ms.get(key(extra), {}).get('in')}")
    check(out["counts"]["not_in_all"] == 2, f"not_in_all = {out['counts']['not_in_all']}, want 2")


def bad_args(bench, a, tmp):
    cases = [
        ((), 2, "two results directories"),
        ((a,), 2, "two results directories"),
        (("--bogus", a, a), 2, "--bogus"),
        ((a, a, "--json"), 2, "--json"),
        (("--metric", "", a, a), 2, "--metric"),
        (("--json", "", a, a), 2, "--json"),
        ((a, tmp), 1, tmp),
        (("--metric", "no_such_metric", "--json", "-", a, a), 3, "no metric"),
    ]
    for args, rc, word in cases:
        p = subprocess.run([bench, "compare", *args], capture_output=True, text=True, timeout=60)
        check(p.returncode == rc and word in p.stderr,
              f"compare {' '.join(args) or '(nothing)'}: exit {p.returncode} (want {rc}), "
              f"stderr names {word!r}: {p.stderr.strip()[:120]!r}")


def virtual_seeds(bench, tmp):
    """Virtual-time rows are means over seeds: compare counts the seeds each
    side recorded (its "seeds" metric) and tests ops_per_sec seed against
    seed; two machine models pair nothing, and the document says which
    param differs."""
    short = ["tlb_flush1", "--mode", "virtual", "-t", "2,4", "--ms", "1", "--warmup", "0",
             "--runs", "4", "-p", "v6.8", "-p", "v6.14"]
    dirs = {}
    for tag, extra in (("a", []), ("b", ["--seed", "11"]), ("c", ["--machine", "skx-2s-80"])):
        dirs[tag] = os.path.join(tmp, "virtual-" + tag)
        p = subprocess.run([bench, "--out", dirs[tag]] + short + extra, capture_output=True,
                           text=True, timeout=120)
        if not check(p.returncode == 0, f"virtual run {tag}: exit {p.returncode} {p.stderr[:200]}"):
            return
    seeds = {json.dumps(m["params"], sort_keys=True): m["value"]
             for m in load(dirs["a"])["metrics"] if m["name"] == "seeds"}
    _, doc = compare(bench, "--all", "--json", "-", dirs["a"], dirs["b"])
    ops = [m for m in doc["metrics"] if m["name"] == "ops_per_sec"] if doc else []
    n_ok = [m["changes"][0]["n_a"] == m["changes"][0]["n_b"] ==
            seeds[json.dumps(m["params"], sort_keys=True)] == 4 for m in ops]
    check(len(ops) == 4 and all(n_ok), f"virtual ops_per_sec: n a side = its seeds, 4 ({n_ok})")
    check(any(isinstance(m["changes"][0]["p"], float) and m["dirs"][0]["sd"] for m in ops),
          "virtual ops_per_sec: a p where the seeds spread")
    xf = [m["changes"][0] for m in (doc or {"metrics": []})["metrics"]
          if m["name"] == "tlb_gen_transfers_per_flush"]
    check(xf and all(c["n_a"] == c["n_b"] == 4 and c["p"] is None and "seeds" in c["no_test"]
                     for c in xf),
          f"a seeds' mean kept as one value: n 4/4, no p, says why ({xf[:1]})")
    p, doc = compare(bench, "--json", "-", dirs["a"], dirs["c"])
    diff = doc["directories"][1].get("params_differ") if doc else None
    check(diff == [{"param": "machine", "a": ["skylake-56"], "b": ["skx-2s-80"]}],
          f"two machine models: params_differ names the machine ({diff})")


def json_file(bench, a, b, tmp):
    """--json FILE: the same document as --json -, the text on stdout."""
    f = os.path.join(tmp, "cmp.json")
    p = subprocess.run([bench, "compare", "--all", "--json", f, a, b], capture_output=True,
                       text=True, timeout=60)
    _, doc = compare(bench, "--json", "-", a, b)
    with open(f) as fp:
        got = json.load(fp)
    check(p.returncode == 0 and got == doc and p.stdout.strip() and "{" not in p.stdout[:1],
          "--json FILE writes the document --json - writes")
    check(got["schema"] == "tlbgen-bench-compare" and got["schema_version"] == 1 and
          [d["tag"] for d in got["directories"]] == ["A", "B"], "schema and directories")


def merged_rounds(bench, a, b, tmp):
    """merge of the two runs: each metric's rounds are both runs' rounds."""
    out = os.path.join(tmp, "merged")
    p = subprocess.run([bench, "merge", "--out", out, a, b], capture_output=True, text=True,
                       timeout=60)
    if not check(p.returncode == 0, f"merge run1 run2: exit {p.returncode} {p.stderr[:200]}"):
        return
    ra, rb, rm = by_key(load(a)), by_key(load(b)), by_key(load(out))
    want = {k: m["round_sizes"] + rb[k]["round_sizes"] for k, m in ra.items()
            if "round_sizes" in m}
    got = {k: rm[k].get("round_sizes") for k in want}
    check(want and got == want, f"merged: {len(want)} per-interval metrics keep both runs' "
          "rounds")
    _, doc = compare(bench, "--json", "-", a, out)
    ns = {c["n_b"] for k, m in by_key(doc).items() if k in want for c in m["changes"]}
    check(ns == {10}, f"compare run1 merged: the merged side has {ns} rounds, want 10")


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    bench, fx = argv[1], argv[2]
    a, b = os.path.join(fx, "compare", "run1"), os.path.join(fx, "compare", "run2")
    tmp = tempfile.mkdtemp(prefix="tlbgen-compare-")
    try:
        self_compare(bench, a)
        two_runs(bench, a, b)
        one_side(bench, a, b, tmp)
        bad_args(bench, a, tmp)
        json_file(bench, a, b, tmp)
        virtual_seeds(bench, tmp)
        merged_rounds(bench, a, b, tmp)
    finally:
        shutil.rmtree(tmp)
    return status()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
