#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Seeds 002-004's commands (reclaim, pagefault, tlbie) on the one driver,
read from results.json: the kernel's counts per op where they are exact
(stepped), the medians and ratios of the timed rows against their own
samples, and the modes each refuses.

usage: seeds234.py TLBGEN-BENCH"""
import os
import statistics
import sys

sys.path.insert(0, sys.path[0])
from benchlib import Run, check, status  # noqa: E402

bench = os.path.abspath(sys.argv[1])


def close(a, b, rel=1e-9):
    return a is not None and b is not None and abs(a - b) <= rel * max(1.0, abs(a), abs(b))


# tlbie: a shmdt chunk is 32 pages. Mainline (33 '>') flushes it by range:
# CPU 1's working set survives, nothing to refill; the RFC (32 '>=')
# flushes the PID: every chunk costs CPU 1 a refill of its working set.
r = Run(bench, ["tlbie", "--iters", "1", "--ceilings", "32,33"])
check(r.rc == 0, "tlbie: exit 0") or r.show()
main = dict(comparison=">", ceiling=33, policy="latest")
rfc = dict(comparison=">=", ceiling=32, policy="latest")
n = r.value("flushes", **main)
check(n == 128 and r.value("ranged_flushes", **main) == n and r.value("full_flushes", **rfc) == n,
      "tlbie: 128 flushes, ranged at >33, full at >=32 (%s)" % n)
check(r.value("refill_cycles", **main) == 0 and r.value("refill_cycles", **rfc) > 0,
      "tlbie: refills only after the RFC's full flushes")
for p in (main, rfc):
    check(r.value("sum_cycles", **p) == r.value("flush_cycles", **p) + r.value("refill_cycles", **p)
          and r.value("violations", **p) == 0, "tlbie %s%d: sum = flush + refill, no violation"
          % (p["comparison"], p["ceiling"]))
pa = r.meta["params"] if r.meta else {}
check(r.value("break_even_cycles_per_flush") ==
      pa.get("full_flush_cycles", -1) + pa.get("ws_pages", 0) * pa.get("refill_cycles", 0),
      "tlbie: break-even = full flush + refills of the working set (meta.json's figures)")
r = Run(bench, ["tlbie", "--mode", "virtual"])
check(r.rc == 2 and "has no meaning" in r.err and r.results is None,
      "tlbie --mode virtual: refused, exit 2, no results")

# pagefault, stepped: every write fault is retried once (--retry-pct 100);
# before b7333b58f358 the retried fault is spurious and the generic hook's
# flush_tlb_page() IPIs every other task of a shared mm; after it, none.
# munmap adds one flush per task per loop.
pages = 64
r = Run(bench, ["pagefault", "--mode", "stepped", "--shape", "both", "-t", "2,4", "--loops", "1",
                "--pages", str(pages)])
check(r.rc == 0, "pagefault stepped: exit 0") or r.show()
for tasks in (2, 4):
    for shape in ("threads", "processes"):
        for hook in ("generic", "local", "noop"):
            for when in ("before", "after"):
                p = dict(mode="stepped", shape=shape, tasks=tasks, hook=hook, b7333b58f358=when)
                others = tasks - 1 if shape == "threads" else 0
                spur = 1 if when == "before" else 0
                ipis = others * (spur if hook == "generic" else 0) + others / pages
                check(r.value("retries_per_op", **p) == 1 and
                      r.value("spurious_faults_per_op", **p) == spur and
                      r.value("spurious_flushes_per_op", **p) == (spur if hook != "noop" else 0) and
                      close(r.value("ipis_per_op", **p), ipis) and r.value("violations", **p) == 0,
                      "pagefault stepped %s %d %s %s: %s IPIs/op (want %.4f)"
                      % (shape, tasks, hook, when, r.value("ipis_per_op", **p), ipis))
check(not r.metrics("ops_per_sec"), "pagefault stepped: no ops/s (nothing timed)")
r = Run(bench, ["pagefault", "--mode", "threads", "-t", "2", "--loops", "1", "--pages", "64",
                "--rounds", "3"])
check(r.rc == 0, "pagefault threads: exit 0") or r.show()
base = dict(mode="threads", tasks=2, hook="noop", b7333b58f358="after")
for m in r.metrics("ops_per_sec", mode="threads"):
    p = m["params"]
    check(len(m["samples"]) == 3 and
          close(r.value("median_ops_per_sec", **p), statistics.median(m["samples"])) and
          close(r.value("ops_per_sec_ratio", **p),
                statistics.median(m["samples"]) / r.value("median_ops_per_sec", **base)),
          "pagefault threads %s %s: median and ratio of its 3 rounds" % (p["hook"], p["b7333b58f358"]))
check(r.value("ops_per_sec_ratio", **base) == 1, "pagefault threads: the baseline's ratio is 1")

# pagefault in virtual time: each fault's outcome as stepped (the same
# kernel), and the generic hook's IPIs before b7333b58f358 cost the shared
# mm's tasks time that noop after does not; separate mms pay nothing.
r = Run(bench, ["pagefault", "--mode", "stepped,virtual", "--shape", "both", "-t", "4", "--loops",
                "1", "--pages", "64"])
check(r.rc == 0, "pagefault stepped,virtual: exit 0") or r.show()
for shape in ("threads", "processes"):
    for hook in ("generic", "local", "noop"):
        for when in ("before", "after"):
            p = dict(shape=shape, tasks=4, hook=hook, b7333b58f358=when)
            got = [(r.value(n, mode="virtual", **p), r.value(n, mode="stepped", **p))
                   for n in ("faults_per_op", "retries_per_op", "spurious_faults_per_op",
                             "spurious_flushes_per_op", "flushes_per_op", "violations")]
            check(all(a is not None and a == b for a, b in got),
                  "pagefault virtual %s %s %s: stepped's counts (%s)" % (shape, hook, when, got))
    v = lambda hook, when: r.value("median_ops_per_sec", mode="virtual", shape=shape, tasks=4,  # noqa: E731
                                   hook=hook, b7333b58f358=when)
    slow = v("generic", "before") / v("noop", "after")
    check((slow < 0.9) if shape == "threads" else (abs(slow - 1) < 0.05),
          "pagefault virtual %s: generic/before at %.2f of noop/after" % (shape, slow))

# reclaim, stepped: unbatched, one flush per page; batched, one per
# reclaim_pages() batch (256 pages: one). Busy threads of the mm take an
# IPI per flush each; asleep (lazy) they take none on x86.
r = Run(bench, ["reclaim", "--mode", "stepped", "--rounds", "1", "-t", "3", "--arch", "x86"])
check(r.rc == 0, "reclaim stepped: exit 0") or r.show()
for state, ipis in (("sleep", 0), ("busy", 3)):
    none = dict(state=state, threads=3, arch="x86", variant="none", policy="latest")
    bat = dict(none, variant="batched")
    check(r.value("flushes_per_page", **none) == 1 and r.value("ipis_per_page", **none) == ipis and
          close(r.value("flushes_per_page", **bat), 1 / 256) and
          close(r.value("ipis_per_page", **bat), ipis / 256),
          "reclaim stepped %s: 1 flush and %d IPIs per page unbatched, 1/256 batched" % (state, ipis))
r = Run(bench, ["reclaim", "--mode", "threads", "--rounds", "1", "--reps", "3", "-t", "1",
                "--arch", "x86", "--state", "sleep"])
check(r.rc == 0, "reclaim threads: exit 0") or r.show()
none = dict(state="sleep", threads=1, arch="x86", variant="none", policy="latest")
bat = dict(none, variant="batched")
m = r.metrics("ns_per_page", **none) + r.metrics("ns_per_page", **bat)
meds = [statistics.median(x["samples"]) for x in m]
check(len(m) == 2 and close(r.value("median_ns_per_page", **none), meds[0]) and
      close(r.value("median_ns_per_page", **bat), meds[1]) and
      close(r.value("saved_pct", **bat), 100 * (1 - meds[1] / meds[0])) and
      not r.metrics("saved_pct", **none),
      "reclaim threads: medians of the reps, saved against the same arch's none")
check(not r.metrics("flushes_per_page"), "reclaim threads: no stepped counts")
r = Run(bench, ["reclaim", "--mode", "processes"])
check(r.rc == 2 and "has no meaning" in r.err, "reclaim --mode processes: refused, exit 2")

# reclaim in virtual time: the same kernel, so the same counts as stepped;
# its time per page from one run, and batching saves the busy threads' IPIs.
r = Run(bench, ["reclaim", "--mode", "stepped,virtual", "--rounds", "1", "-t", "2", "--arch",
                "x86,riscv"])
check(r.rc == 0, "reclaim stepped,virtual: exit 0") or r.show()
for state in ("sleep", "busy"):
    for arch in ("x86", "riscv"):
        for variant in ("none", "batched"):
            p = dict(state=state, threads=2, arch=arch, variant=variant)
            got = [(r.value(n, mode="virtual", **p), r.value(n, mode="stepped", **p))
                   for n in ("flushes_per_page", "ipis_per_page", "remote_flushes_per_page",
                             "violations")]
            check(all(a is not None and a == b for a, b in got),
                  "reclaim virtual %s %s %s: the stepped counts (%s)" % (state, arch, variant, got))
        none = r.value("median_ns_per_page", mode="virtual", state=state, threads=2, arch=arch,
                       variant="none")
        bat = r.value("median_ns_per_page", mode="virtual", state=state, threads=2, arch=arch,
                      variant="batched")
        saved = r.value("saved_pct", mode="virtual", state=state, threads=2, arch=arch,
                        variant="batched")
        check(none and bat and close(saved, 100 * (1 - bat / none)),
              "reclaim virtual %s %s: saved_pct from the two rows" % (state, arch))
check((r.value("saved_pct", mode="virtual", state="busy", threads=2, arch="x86", variant="batched")
       or 0) > 0, "reclaim virtual busy x86: batching saves time (fewer IPIs)")
sys.exit(status())
