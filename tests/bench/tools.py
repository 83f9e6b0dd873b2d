#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The tools on the one driver, read from results.json: transport's medians
and ratios against its own per-round samples; scale's rows, a
flush_tlb_func per CPU per shootdown and the ratios against the 64-CPU row;
soak's rotation of policies and IPI backends and its totals; the commands
sweep --emit prints, run by the driver in every mode they name, a plugin's
policy among them.

usage: tools.py TLBGEN-BENCH PLUGIN.so"""
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, sys.path[0])
from benchlib import Run, check, status  # noqa: E402

bench, plugin = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])


def close(a, b, rel=1e-9):
    return a is not None and b is not None and abs(a - b) <= rel * max(1.0, abs(a), abs(b))


# transport: each measurement's medians and median ratios are those of its
# recorded per-round samples (an odd count: the median is one of them).
r = Run(bench, ["transport", "--rounds", "5", "--iters", "40"])
if not check(r.rc == 0, "transport: exit 0"):
    r.show()
targets = {"ipi round trip": 1.5, "1-target flush v6.0": 2.5, "1-target flush latest": 2.5,
           "oversubscribed ipi rt": 3.0}
check(set(r.values("ratio_to_baseline", "measurement")) == set(targets),
      "transport: the four measurements")
for what, target in targets.items():
    def samples(name):
        m = r.metrics(name, measurement=what)
        return m[0]["samples"] if len(m) == 1 else []
    op, base, flo = samples("ns_per_round_trip"), samples("baseline_ns_per_round_trip"), \
        samples("floor_ns_per_round_trip")
    if not check(len(op) == len(base) == len(flo) == 5, "transport %s: 5 samples each" % what):
        continue
    v = lambda name: r.value(name, measurement=what)  # noqa: E731
    check(close(v("median_ns_per_round_trip"), statistics.median(op)) and
          close(v("median_baseline_ns_per_round_trip"), statistics.median(base)) and
          close(v("median_floor_ns_per_round_trip"), statistics.median(flo)),
          "transport %s: the medians are its samples' medians" % what)
    check(close(v("ratio_to_baseline"), statistics.median([a / b for a, b in zip(op, base)])) and
          close(v("floor_ratio_to_baseline"), statistics.median([a / b for a, b in zip(flo, base)])) and
          close(v("ratio_to_floor"), statistics.median([a / b for a, b in zip(op, flo)])),
          "transport %s: the ratios are medians of the rounds' ratios" % what)
    check(v("target_ratio_to_baseline") == target, "transport %s: target %.1f" % (what, target))
check(r.meta and r.meta["params"].get("rounds") == 5 and len(r.meta["params"].get("cpus", [])) == 2,
      "transport: meta.json keeps the rounds and the two CPUs")

# scale: every shootdown from CPU 0 runs flush_tlb_func once on each CPU
# (the local flush and every target), whichever way it is delivered; the
# ratios are against the 64-CPU row, within their repetitions' range.
r = Run(bench, ["scale", "--max-cpus", "256", "--reps", "3", "--targets", "6000", "-p", "latest",
                "--seed", "7"])
if not check(r.rc == 0, "scale: exit 0"):
    r.show()
rows = sorted(r.values("create_ms", "cpus"))
check(rows == [64, 128, 256], "scale --max-cpus 256: rows %s" % rows)
for cpus in rows:
    for d in ("run_until_idle", "deliver", "deliver_shuffled"):
        sd, tgt = r.value("ns_per_shootdown", cpus=cpus, delivery=d), r.value("ns_per_target", cpus=cpus, delivery=d)
        check(sd and tgt and close(sd / tgt, cpus, 1e-6),
              "scale %u %s: %s flush_tlb_func per shootdown" % (cpus, d, sd / tgt if sd and tgt else None))
        if d != "deliver_shuffled":
            fps = r.value("flush_func_per_sec", cpus=cpus, delivery=d)
            check(fps and close(fps * sd / 1e9, cpus, 1e-6), "scale %u %s: calls/s agree" % (cpus, d))
        q = r.metrics("shootdown_ratio", cpus=cpus, delivery=d)
        if cpus == 64:
            check(not q, "scale 64 %s: no ratio against itself" % d)
            continue
        lo = r.value("shootdown_ratio_lowest_rep", cpus=cpus, delivery=d, reference_cpus=64)
        hi = r.value("shootdown_ratio_highest_rep", cpus=cpus, delivery=d, reference_cpus=64)
        check(len(q) == 1 and q[0]["params"]["reference_cpus"] == 64 and lo <= q[0]["value"] <= hi,
              "scale %u %s: ratio to the 64-CPU row within its range" % (cpus, d))
    check(all((r.value(n, cpus=cpus) or 0) > 0 for n in ("create_ms", "create_ms_with_tlb",
                                                          "resident_bytes_per_cpu",
                                                          "resident_bytes_per_cpu_with_tlb")),
          "scale %u: creation's time and memory, with and without the oracle" % cpus)
check(r.meta and r.meta["seed"] == 7 and [p["label"] for p in r.meta["policies"]] == ["latest"],
      "scale: meta.json has --seed 7 and -p latest")

# soak: rounds rotate the policies given, each meeting both IPI backends;
# the totals are the rounds' sums.
r = Run(bench, ["soak", "--seconds", "4", "--round", "1", "-p", "v6.0", "-p", "latest", "--seed", "3",
                "--cpus", "4", "--watchdog-ms", "10000"])
if not check(r.rc == 0, "soak: exit 0"):
    r.show()
got = sorted((m["params"]["round"], m["params"]["policy"], m["params"]["backend"])
             for m in r.metrics("ops") if m["params"]["round"] != "total")
check(got == [(0, "v6.0", "poll"), (1, "latest", "poll"), (2, "v6.0", "signal"), (3, "latest", "signal")],
      "soak -p v6.0 -p latest: rounds %s" % got)
check(r.value("rounds", round="total") == 4, "soak: 4 rounds in the total")
check(r.value("ops", round="total") == sum(m["value"] for m in r.metrics("ops") if m["params"]["round"] != "total")
      and r.value("ops", round="total") > 0, "soak: total ops is the rounds' sum")
check(r.value("violations", round="total") == 0 and r.value("errors", round="total") == 0 and
      r.value("watchdog_reports", round="total") == 0, "soak: no violation, error or watchdog report")
check(r.meta and r.meta["seed"] == 3 and r.meta["params"].get("cpus") == 4, "soak: meta.json has the seed and CPUs")

# sweep --emit: every command it prints runs under the driver, in each mode
# named (stepped and virtual here), with a plugin's policy loaded from the
# cells' own --plugin (after '--').
tmp = tempfile.mkdtemp(prefix="tlbgen-test-")
p = subprocess.run([bench, "sweep", "--emit", "-w", "tlb_flush1", "-p", "v6.0", "-p", "port-8f1d56f64f8d",
                    "--mode", "stepped,virtual", "-t", "2", "--out-base", tmp + "/cells", "--bench", bench,
                    "--", "--ops", "200", "--ms", "1", "--warmup", "0", "--runs", "1", "--plugin", plugin],
                   capture_output=True, text=True)
lines = p.stdout.splitlines()
check(p.returncode == 0 and len(lines) == 4, "sweep --emit: 4 commands (exit %d)" % p.returncode)
for line in lines:
    words = shlex.split(line)
    c = subprocess.run(words, capture_output=True, text=True, timeout=300)
    out = words[words.index("--out") + 1]
    mode, pol = words[words.index("--mode") + 1], words[words.index("-p") + 1]
    rr = Run.of_dir(out)
    if not check(c.returncode == 0 and rr.metrics("flushes_per_op", policy=pol, mode=mode),
                 "sweep cell %s %s: exit %d, flushes_per_op recorded" % (mode, pol, c.returncode)):
        print("  $ " + line + "\n" + c.stderr[-1500:])
p = subprocess.run([bench, "sweep", "--emit", "-p", "port-8f1d56f64f8d"], capture_output=True, text=True)
check(p.returncode == 2 and "port-8f1d56f64f8d" in p.stderr,
      "sweep: a plugin's policy without its plugin is refused, exit 2")
shutil.rmtree(tmp, ignore_errors=True)
sys.exit(status())
