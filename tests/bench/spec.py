#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""`tlbgen-bench run FILE`, a microbenchmark as a file, from results.json:
examples/tlb_flush2.spec spells will-it-scale's tlb_flush2 and gives the
built-in's counts in stepped mode and its rates in virtual time, threads
and processes alike; a file's mistakes exit 2 naming the file, the line
and what was wrong; a range step past a task's region fails the run
saying so.

usage: spec.py TLBGEN-BENCH SOURCE-ROOT"""
import os
import sys
import tempfile

sys.path.insert(0, sys.path[0])
from benchlib import Run, check, status  # noqa: E402

bench, root = sys.argv[1], sys.argv[2]
example = os.path.join(root, "examples", "tlb_flush2.spec")

STEPPED = ("flush_initiated", "ipi_sent", "call_queued", "flush_tlb_func", "full_flush",
           "partial_flush", "tlb_access", "tlb_miss", "violations")
VIRTUAL = ("ops_per_sec", "flushes_per_op", "ipis_per_flush", "cpu_us_per_op_line", "sched_points", "violations")
for mode, extra, names in (("stepped", ["--ops", "3000"], STEPPED),
                           ("virtual", ["--ms", "2", "--runs", "2"], VIRTUAL)):
    for shape in ("threads", "processes"):
        a = ["--mode", mode, "--shape", shape, "-t", "1,4", "-p", "v5.17", "-p", "v6.0"] + extra
        b, s = Run(bench, ["tlb_flush2"] + a), Run(bench, ["run", example] + a)
        for r in (b, s):
            if r.rc:
                r.show()
        diff = [(n, t, p, b.value(n, threads=t, policy=p), s.value(n, threads=t, policy=p))
                for n in names for t in (1, 4) for p in ("v5.17", "v6.0")
                if b.value(n, threads=t, policy=p) != s.value(n, threads=t, policy=p)
                or b.value(n, threads=t, policy=p) is None]
        check(b.rc == 0 and s.rc == 0 and not diff,
              "%s %s: the spec file's figures are tlb_flush2's (differing: %s)" % (mode, shape, diff))
        check(s.metrics("ops_per_sec" if mode == "virtual" else "flush_initiated",
                        workload="tlb_flush2_spec"), "%s %s: results.json names the spec's workload" % (mode, shape))

tmp = tempfile.mkdtemp()


def spec(name, text):
    p = os.path.join(tmp, name)
    with open(p, "w") as f:
        f.write(text)
    return p


# `lazy`: a kernel thread's turn on the task's CPU, one enter_lazy_tlb() and
# one switch_mm() back per op (plus each task's first switch_mm()); on two
# CPUs some returns find the mm flushed meanwhile and flush.
r = Run(bench, ["run", spec("lazy.spec", "region 1\nstep write\nstep madvise 1\nstep lazy\n"),
                "--mode", "stepped", "-t", "1,2", "--ops", "100", "-p", "v6.14"])
if r.rc:
    r.show()
got = {(k, t): r.value(k, threads=t, policy="v6.14") for k in ("lazy_enter", "switch_mm", "switch_mm_flush")
       for t in (1, 2)}
check(got[("lazy_enter", 1)] == 100 and got[("switch_mm", 1)] == 101 and got[("lazy_enter", 2)] == 100 and
      got[("switch_mm", 2)] == 102 and got[("switch_mm_flush", 2)] > got[("switch_mm_flush", 1)],
      "lazy: an enter_lazy_tlb() and a switch_mm() per op: %s" % got)

bad = (("kw.spec", "region 4\nfrob 1\n", "kw.spec:2: unknown keyword"),
       ("step.spec", "region 4\nstep frob\n", "step.spec:2: unknown step"),
       ("region.spec", "region 0\nstep write\n", "region.spec:1: '0': need a number in 1..65536"),
       ("noregion.spec", "step write\n", "noregion.spec: no 'region N'"),
       ("nostep.spec", "region 4\n", "nostep.spec: no 'step'"),
       ("map.spec", "region 4\nmap huge\nstep write\n", "map.spec:2: map: anon, file or file-shared"),
       ("prot.spec", "region 4\nstep mprotect rx\n", "prot.spec:2: mprotect: ro or rw"),
       ("wrap.spec", "region 4\nstep next\nwrap next\n", "wrap.spec: a wrap step cannot be 'next'"),
       ("range.spec", "region 4\nstep madvise 2\nstep next\n", "range.spec: a step of more than 1 page"),
       ("args.spec", "region 4\nstep write now\n", "args.spec:2: too many arguments"))
for name, text, want in bad:
    r = Run(bench, ["run", spec(name, text), "--mode", "stepped", "-t", "1", "--ops", "10"], keep=False)
    check(r.rc == 2 and want in r.err, "%s: exit %d, says %r" % (name, r.rc, want))
r = Run(bench, ["run", os.path.join(tmp, "missing.spec"), "--mode", "stepped"], keep=False)
check(r.rc == 2 and "missing.spec: No such file" in r.err, "a missing file: exit %d, named" % r.rc)
r = Run(bench, ["run", "--mode", "stepped"], keep=False)
check(r.rc == 2 and "which spec file" in r.err, "no file: exit %d" % r.rc)
r = Run(bench, ["run", spec("past.spec", "region 4\nstart spread\nstep madvise 2\n"),
                "--mode", "stepped", "-t", "4", "--ops", "10"], keep=False)
check(r.rc == 1 and "madvise 2 at page 3 of task 3 passes its region's end" in r.err,
      "a range past a task's region: exit %d, said" % r.rc)
sys.exit(status())
