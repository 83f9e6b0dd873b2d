#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The plots of tlbgen-bench (bench/report/plot.c): a one-policy run's script has
no change panel, a two-policy run's has one, with the markers of one task
count offset apart; threaded, virtual and stepped runs each draw their
plot; gnuplot's messages never reach the run's stderr. The scripts are
checked whether or not gnuplot is installed; without it the test is then
skipped (exit 77), as the SVGs cannot be drawn.

usage: plots.py TLBGEN-BENCH"""
import os
import re
import shutil
import sys

sys.path.insert(0, sys.path[0])
from benchlib import Run, check, status  # noqa: E402

bench = os.path.abspath(sys.argv[1])
gnuplot = shutil.which("gnuplot") is not None
short = ["-t", "1,2", "-r", "2", "-d", "20", "-s", "10", "-q", "--no-mesi"]


def panels(gp):
    """[(title, [[x, ...] per series])] of a script's panels."""
    out, cur, data = [], None, None
    for line in gp.splitlines():
        if line.startswith("set title "):
            cur = [line[len("set title "):], []]
            out.append(cur)
        elif line.startswith("plot "):
            data = []
            cur[1].append(data)
        elif line == "e":
            data = []
            cur[1].append(data)
        elif data is not None and re.match(r"^-?[0-9.]", line):
            data.append(float(line.split()[0]))
    for p in out:
        p[1] = [s for s in p[1] if s]
    return out


def script(r, name):
    path = os.path.join(r.dir, name)
    return open(path).read() if os.path.exists(path) else ""


def quiet(r, what):
    """No gnuplot message on stderr, no plot.log left (or an empty one)."""
    log = os.path.join(r.dir, "plot.log")
    check(not re.search(r"warning|gnuplot|line \d+:", r.err, re.I) and
          (not os.path.exists(log) or os.path.getsize(log) == 0),
          "%s: no gnuplot message on stderr or in plot.log" % what)


def drawn(r, name, what):
    if gnuplot:
        path = os.path.join(r.dir, name)
        ok = os.path.exists(path) and "<svg" in open(path).read(4096)
        check(ok, "%s: %s drawn" % (what, name))


# threaded, one policy: one panel, ops/s; no change against itself.
r = Run(bench, ["tlb_flush1"] + short + ["-p", "v6.0"])
check(r.rc == 0, "threaded -p v6.0: exit 0") or r.show()
p = panels(script(r, "throughput.gp"))
check(len(p) == 1 and "ops/s" in p[0][0] and not any("change" in t for t, _ in p),
      "threaded, one policy: one panel, no change panel (%s)" % [t for t, _ in p])
quiet(r, "threaded, one policy")
drawn(r, "throughput.svg", "threaded, one policy")

# threaded, two policies: the change panel; the two series' markers at one
# task count apart, on either side of it.
r = Run(bench, ["tlb_flush1"] + short + ["-p", "v5.17", "-p", "v6.0"])
check(r.rc == 0, "threaded two policies: exit 0") or r.show()
p = panels(script(r, "throughput.gp"))
check(len(p) == 2 and "change" in p[1][0] and len(p[1][1]) == 1,
      "threaded, two policies: ops/s and one change series (%s)" % [t for t, _ in p])
if p:
    xs = p[0][1]
    check(len(xs) == 2 and all(len(s) == 2 for s in xs) and
          all(xs[0][i] < i + 1 < xs[1][i] for i in range(2)),
          "threaded, two policies: markers of one task count offset apart (%s)" % xs)
quiet(r, "threaded, two policies")
drawn(r, "throughput.svg", "threaded, two policies")

# virtual time draws its plot.
r = Run(bench, ["tlb_flush1", "--mode", "virtual", "-t", "2,4", "--ms", "1", "--warmup", "0",
                "--runs", "1", "-p", "v5.17", "-p", "v6.0"])
check(r.rc == 0, "virtual: exit 0") or r.show()
p = panels(script(r, "virtual-threads.gp"))
check(len(p) == 2 and len(p[0][1]) == 2 and len(p[1][1]) == 1,
      "virtual: ops/s of both policies and the change (%s)" % [t for t, _ in p])
quiet(r, "virtual")
drawn(r, "virtual-threads.svg", "virtual")

# changes under 1% (virtual time, tlb_flush3's file faults under mmap_lock
# against under the VMA's lock alone, at 1 and 2 tasks: an uncontended lock's
# RMWs, +0.65% and +0.47%): tics every 1, 2 or 5 times a power of ten, 5 to 10
# of them over the change axis (its zero line included), each read differently.
r = Run(bench, ["tlb_flush3", "--mode", "virtual", "-t", "1,2", "--ms", "1", "--warmup", "0",
                "--runs", "1", "-p", "v6.7:vma_lock_fault=anon", "-p", "v6.7"])
gp = script(r, "virtual-threads.gp")
fmt = re.findall(r"^set format y '(%\+\.\d+f)%%'$", gp, re.M)
ys = [float(ln.split()[1]) for ln in gp.split("set title")[-1].splitlines()
      if re.match(r"^-?[0-9.]+ ", ln)]
if check(r.rc == 0 and len(fmt) == 1 and ys and 0 < max(map(abs, ys)) < 1,
         "virtual, file faults under the VMA lock: one change axis, changes under 1%% (%s, %s)" % (fmt, ys)):
    span = max(ys + [0]) - min(ys + [0])
    step = min(m * 10 ** e for e in range(-4, 3) for m in (1, 2, 5) if span / (m * 10 ** e) <= 10)
    labels = [fmt[0] % (k * step) for k in range(int(min(ys + [0]) / step) - 1,
                                                   int(max(ys + [0]) / step) + 2)]
    check(len(set(labels)) == len(labels),
          "change axis labels at tics %g apart are distinct: %s" % (step, labels))

# stepped (the MESI account) draws its plot; a single task count is no
# empty axis for gnuplot to warn about.
r = Run(bench, ["mesi", "--ops", "300", "-t", "4"])
check(r.rc == 0, "mesi: exit 0") or r.show()
p = panels(script(r, "stepped-threads.gp"))
check(len(p) == 3 and all(len(s) == 4 for _, s in p),
      "mesi: three panels of the four columns (%s)" % [t for t, _ in p])
quiet(r, "mesi")
drawn(r, "stepped-threads.svg", "mesi")

# tlbie's sweep: the sum per comparison and its parts against the ceiling.
r = Run(bench, ["tlbie", "--iters", "1", "--ceilings", "16,32,33,64"])
check(r.rc == 0, "tlbie: exit 0") or r.show()
p = panels(script(r, "ceilings.gp"))
check(len(p) == 2 and [len(x) for _, x in p] == [2, 4] and all(len(x) == 4 for _, s in p for x in s),
      "tlbie: the sum of both comparisons and their four parts at 4 ceilings (%s)" % [t for t, _ in p])
quiet(r, "tlbie")
drawn(r, "ceilings.svg", "tlbie")

# pagefault and reclaim: a panel per mode and shape (state), a series per variant.
r = Run(bench, ["pagefault", "--mode", "stepped,virtual", "-t", "2,4", "--loops", "1", "--pages", "32"])
check(r.rc == 0, "pagefault: exit 0") or r.show()
p = panels(script(r, "variants.gp"))
check(len(p) == 2 and all(len(x) == 6 and all(len(y) == 2 for y in x) for _, x in p),
      "pagefault: stepped and virtual panels, 6 variants at 2 task counts (%s)" % [t for t, _ in p])
quiet(r, "pagefault")
drawn(r, "variants.svg", "pagefault")
r = Run(bench, ["reclaim", "--mode", "stepped", "--rounds", "1", "-t", "1,2", "--arch", "x86"])
check(r.rc == 0, "reclaim: exit 0") or r.show()
p = panels(script(r, "pageout.gp"))
check(len(p) == 2 and all(len(x) == 2 for _, x in p),
      "reclaim: a panel per state, none and batched (%s)" % [t for t, _ in p])
quiet(r, "reclaim")
drawn(r, "pageout.svg", "reclaim")

# --no-plot: no script, no plot, in stepped mode too.
r = Run(bench, ["tlb_flush1", "--mode", "stepped", "--ops", "300", "-t", "4", "--no-plot"])
check(r.rc == 0 and r.results and not any(f.startswith("stepped-") for f in os.listdir(r.dir)),
      "tlb_flush1 --mode stepped --no-plot: exit 0, no script, no plot")

if status() == 0 and not gnuplot:
    print("SKIP: gnuplot not found: the scripts are right, no SVG could be drawn")
    sys.exit(77)
sys.exit(status())
