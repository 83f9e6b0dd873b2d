#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The op-based workloads through the one driver, read from results.json:
tlb_flush1's flushes per op in stepped mode, AMD INVLPGB in the threads
mode, the kernel work a machine model burns, every workload in every mode
it has meaning in (and a refusal in the others), a plugin's policy in
virtual time, and the policies and machines a command cannot run.

usage: workloads.py TLBGEN-BENCH PLUGIN.so"""
import sys

sys.path.insert(0, sys.path[0])
from benchlib import Run, check, fail, status  # noqa: E402

bench, plugin = sys.argv[1], sys.argv[2]

# will-it-scale's tlb_flush1 reads each page back after madvise(); the read's
# do_fault_around() maps the rest of its 16-page block read-only, so on 15
# pages in 16 the next write is a COW whose wp_page_copy() flushes. 1600 ops
# of one task: 100 blocks, 1600 + 1500 flushes. Alone a task never meets
# another's mmu_gather; among 8 interleaved tasks whose flushes stay open
# until they return, most madvise()s do (mm_tlb_flush_nested(), 7a30df49f63a).
r = Run(bench, ["tlb_flush1", "--mode", "stepped", "-t", "1,8", "--ops", "1600",
                "-p", "v5.17", "-p", "v6.0"])
if r.rc:
    r.show()
for pol in ("v5.17", "v6.0"):
    f1, f8 = r.value("flush_initiated", threads=1, policy=pol), r.value("flush_initiated", threads=8, policy=pol)
    check(r.value("ops", threads=8, policy=pol) == 1600, "%s: 1600 ops at 8 tasks" % pol)
    check(f1 == 3100, "%s: 1 task, %s flushes for 1600 ops (want 3100)" % (pol, f1))
    # each task's partial block: up to 15 fewer COWs in all
    check(3085 <= f8 <= 3100, "%s: 8 tasks, %s flushes for 1600 ops (want 3085..3100)" % (pol, f8))
    n1, n8 = r.value("nested_full_flush_pct", threads=1, policy=pol), r.value("nested_full_flush_pct", threads=8, policy=pol)
    check(n1 == 0 and n8 >= 50, "%s: madvise flushes made full: 1 task %.1f%%, 8 tasks %.1f%%" % (pol, n1, n8))
check(r.value("tlb_gen_reads_per_remote_flush_func", threads=8, policy="v6.0") <
      r.value("tlb_gen_reads_per_remote_flush_func", threads=8, policy="v5.17"),
      "v6.0 reads tlb_gen in fewer remote flush_tlb_func()s than v5.17")

# AMD INVLPGB (4afeb0ed1753): latest at 4 tasks flushes the threads' mm by
# one INVLPGB and one TLBSYNC per flush on a global ASID; an IPI and a
# flush_tlb_func() only from finish_asid_transition(), which flushes the
# mm_cpumask by IPI while a CPU still runs the mm on its dynamic ASID (how
# many such flushes there are depends on when the CPUs switch over, so they
# are bounded, not counted); v6.14 on the same machine, and latest without
# it, send IPIs.
q = ["tlb_flush1", "-t", "4", "-m", "threads", "-r", "1", "-d", "200", "-q", "--no-mesi", "--no-plot"]
r = Run(bench, q + ["-p", "latest", "-p", "v6.14", "--invlpgb"])
if r.rc:
    r.show()


def per_flush(run, stat, pol):
    fl = run.value("flush_initiated", tasks=4, policy=pol, mode="threads")
    v = run.value(stat, tasks=4, policy=pol, mode="threads")
    return v / fl if fl else None


tr = {k: r.value(k, tasks=4, policy="latest", mode="threads") or 0
      for k in ("flush_initiated", "invlpgb", "tlbsync", "flush_multi", "flush_tlb_func", "ipi_sent")}
fl = tr["flush_initiated"]
# A flush before the mm's ASID went global, or one finishing its
# transition, is a flush_multi(): only those may IPI or run flush_tlb_func.
# The counters of a round are read while the tasks run, so each of the 4
# initiators may have one flush in flight across the round's start or end.
inflight = 4
check(fl > 0 and abs(tr["invlpgb"] - tr["tlbsync"]) <= inflight
      and fl - tr["flush_multi"] - inflight <= tr["invlpgb"] <= fl + inflight
      and tr["flush_multi"] <= 0.01 * fl
      and tr["flush_tlb_func"] <= 4 * (tr["flush_multi"] + inflight)
      and tr["ipi_sent"] <= 3 * (tr["flush_multi"] + inflight),
      "latest --invlpgb: an INVLPGB and a TLBSYNC per flush; IPIs and flush_tlb_func only "
      "in flush_multi(): %s" % tr)
check((r.value("global_asid", tasks=4, policy="latest") or 0) >= 6, "latest --invlpgb: a global ASID")
# v6.14 has no INVLPGB: a flush runs flush_tlb_func() on each of the 4
# CPUs, except on one whose task sleeps on mmap_lock while another
# munmap()s its file at the end of a pass (lazy, or out of mm_cpumask after
# a C6 leave_mm()): a few flushes of the round, never more than 4 calls.
fl14 = r.value("flush_initiated", tasks=4, policy="v6.14", mode="threads") or 0
ftf14 = r.value("flush_tlb_func", tasks=4, policy="v6.14", mode="threads") or 0
check(fl14 > 0 and (r.value("invlpgb", tasks=4, policy="v6.14", mode="threads") or 0) == 0
      and per_flush(r, "ipi_sent", "v6.14") > 0
      and 0.98 * 4 * fl14 <= ftf14 <= 4 * fl14,
      "v6.14 --invlpgb: IPIs, 4 flush_tlb_func per flush (%s for %s flushes)" % (ftf14, fl14))
r = Run(bench, q + ["-p", "latest"])
check(r.rc == 0 and per_flush(r, "ipi_sent", "latest") > 0 and not r.metrics("global_asid"),
      "latest without --invlpgb: IPIs")

# The kernel work of the threaded rounds: a model whose fault costs 1 ms caps
# a task near 1000 ops/s whatever the load (a busy-wait never ends early);
# off leaves the emulated flush path alone, thousands of times faster.
k = ["tlb_flush1", "-p", "v6.0", "-t", "1", "-r", "1", "-d", "300", "--no-mesi", "--no-acct", "-q", "--no-plot"]
slow = Run(bench, k + ["--machine", "skylake-56:mhz=2500,page_fault=2500000"])
off = Run(bench, k + ["--machine", "off"])
s, o = slow.value("ops_per_sec", tasks=1, policy="v6.0"), off.value("ops_per_sec", tasks=1, policy="v6.0")
check(s is not None and 0 < s <= 1014, "1 ms faults: %s ops/s (want <= 1014)" % s)
check(o is not None and o > 10000, "--machine off: %s ops/s (want > 10000)" % o)
check("page_fault=2500000" in slow.meta["params"].get("kernel_work_machine", ""), "meta.json names the model")
b = Run(bench, ["tlb_flush1", "--machine", "nosuch", "-t", "1"], keep=False)
check(b.rc == 2 and "--machine" in b.err, "--machine nosuch: exit %d, the error names --machine" % b.rc)

# will-it-scale's page_fault tests: a write fault per page flushes nothing;
# the only flush of a pass is its munmap() of 128 MiB (past the ceiling: one
# full flush). 40000 ops of one task are one pass and a quarter: one flush.
# Under zap_delay_rmap=pmd (5df397dec7c4, the v6.8 profile) only
# page_fault3's pages, dirty pages of its shared file, are flushed before
# each PTE table's rmap removal: 32752 unseen pages from the window's end,
# 64 tables' worth, and the final flush.
r = Run(bench, ["page_fault1", "--mode", "stepped", "-t", "1", "--ops", "40000", "-p", "v6.0", "-p", "v6.8"])
r2 = Run(bench, ["page_fault2", "--mode", "stepped", "-t", "1", "--ops", "40000", "-p", "v6.0", "-p", "v6.8"])
r3 = Run(bench, ["page_fault3", "--mode", "stepped", "-t", "1", "--ops", "40000", "-p", "v6.0", "-p", "v6.8"])
short = Run(bench, ["page_fault1", "--mode", "stepped", "-t", "1", "--ops", "30000", "-p", "v6.0"])
for x in (r, r2, r3, short):
    if x.rc:
        x.show()
fl = {(n, pol): x.value("flush_initiated", threads=1, policy=pol)
      for n, x in (("pf1", r), ("pf2", r2), ("pf3", r3)) for pol in ("v6.0", "v6.8")}
check(fl == {("pf1", "v6.0"): 1, ("pf1", "v6.8"): 1, ("pf2", "v6.0"): 1, ("pf2", "v6.8"): 1,
             ("pf3", "v6.0"): 1, ("pf3", "v6.8"): 65},
      "page_fault1/2/3: one flush per pass, page_fault3's 64 PTE tables more under v6.8: %s" % fl)
check(short.value("flush_initiated", threads=1, policy="v6.0") == 0 and
      short.value("tlb_access", threads=1, policy="v6.0") == 30000,
      "page_fault1: 30000 write faults, no flush before the pass's munmap()")

# mprotect: N written pages read-only, read-write, written. From v6.0
# (64fe24a3e05e) the second mprotect() makes them writable, a second flush
# per op; before, each write faults instead. 16 pages are flushed by range,
# 64 (past x86's ceiling of 33) whole; the oracle sees no stale write.
m = {n: Run(bench, ["mprotect", "--mode", "stepped", "-t", "1", "--ops", "400", "--pages", str(n),
                    "-p", "v5.17", "-p", "v6.0"]) for n in (16, 64)}
for x in m.values():
    if x.rc:
        x.show()
got = {(n, pol, k): m[n].value(k, threads=1, policy=pol) for n in (16, 64) for pol in ("v5.17", "v6.0")
       for k in ("flush_initiated", "full_flush", "partial_flush", "violations")}
check(all(got[(n, "v5.17", "flush_initiated")] == 400 and got[(n, "v6.0", "flush_initiated")] == 800
          for n in (16, 64)), "mprotect: one flush per op before v6.0, two from v6.0: %s" % got)
check(got[(16, "v6.0", "full_flush")] == 0 and got[(16, "v6.0", "partial_flush")] == 800 and
      got[(64, "v6.0", "full_flush")] == 800 and got[(64, "v6.0", "partial_flush")] == 0,
      "mprotect: 16 pages by range, 64 whole")
check(all(got[(n, pol, "violations")] == 0 for n in (16, 64) for pol in ("v5.17", "v6.0")),
      "mprotect: no stale write")
b = Run(bench, ["mprotect", "--pages", "513", "-t", "1"], keep=False)
check(b.rc == 2 and "--pages" in b.err, "mprotect --pages 513: exit %d, the error names --pages" % b.rc)

# mmap1: the 128 MiB is never touched, so munmap()'s gather clears no PTE
# and frees no table: no flush at all, one task or four.
r = Run(bench, ["mmap1", "--mode", "stepped", "-t", "1,4", "--ops", "400", "-p", "v6.0"])
if r.rc:
    r.show()
check([r.value("flush_initiated", threads=t, policy="v6.0") for t in (1, 4)] == [0, 0] and
      r.value("ops", threads=4, policy="v6.0") == 400, "mmap1: 400 ops, no flush")

# Every workload in every mode it has meaning in.
tiny = {"stepped": ["--ops", "200", "-t", "2"], "virtual": ["--ms", "1", "--warmup", "0", "--runs", "1", "-t", "2"],
        "threads": ["-t", "1", "-r", "1", "-d", "20", "-s", "10", "-q", "--no-mesi", "--no-acct", "--no-plot"]}
tiny["processes"] = tiny["threads"]
for w in ("tlb_flush1", "tlb_flush2", "tlb_flush3", "page_fault1", "page_fault2", "page_fault3",
          "mmap1", "mprotect"):
    for mode, a in tiny.items():
        r = Run(bench, [w, "--mode", mode, "-p", "v6.0"] + a)
        ok_ = r.rc == 0 and any(m["params"].get("mode") == mode for m in r.results["metrics"])
        if not ok_:
            r.show()
        check(ok_, "%s --mode %s" % (w, mode))
    r = Run(bench, [w, "--mode", "virtual", "--shape", "processes", "-p", "v6.0"] + tiny["virtual"])
    check(r.rc == 0 and r.metrics("ops_per_sec", shape="processes"), "%s --mode virtual --shape processes" % w)
for cmd, mode in (("seed001", "threads"), ("seed001", "stepped"), ("mesi", "virtual")):
    r = Run(bench, [cmd, "--mode", mode], keep=False)
    check(r.rc == 2 and "no meaning" in r.err, "%s --mode %s: refused (%d)" % (cmd, mode, r.rc))

# A plugin's policy in virtual time, beside the built-ins: the port of
# 8f1d56f64f8d onto v5.17 is v6.0, figure for figure.
v = ["--mode", "virtual", "-t", "8", "--runs", "2"]
r = Run(bench, ["--plugin", plugin, "tlb_flush1"] + v + ["-p", "v5.17", "-p", "v6.0", "-p", "port-8f1d56f64f8d"])
s0 = Run(bench, ["seed000"] + v)
if r.rc or s0.rc:
    r.show()
    s0.show()
check(r.value("ops_per_sec", threads=8, policy="port-8f1d56f64f8d") ==
      r.value("ops_per_sec", threads=8, policy="v6.0") is not None, "the plugin's policy is v6.0's")
check(r.value("change_pct", threads=8, policy="v6.0") == s0.value("change_pct", threads=8, policy="+patch"),
      "tlb_flush1 v5.17 -> v6.0 is seed000's change")

# The seed's second table's columns through tlb_flush1: the same figures.
c = ["--mode", "virtual", "-t", "10", "--runs", "2", "--machine", "skylake-56-pti"]
r = Run(bench, ["tlb_flush1"] + c + ["-p", "v5.17", "-p", "v6.0", "-p", "v6.0:mm_tlb_gen_read=always"])
s4 = Run(bench, ["seed000", "--columns", "4"] + c)
for mine, theirs in (("v5.17", "base"), ("v6.0", "+patch"), ("v6.0:mm_tlb_gen_read=always", "touch tlb_gen")):
    check(r.value("ops_per_sec", threads=10, policy=mine) == s4.value("ops_per_sec", threads=10, policy=theirs),
          "tlb_flush1 %s = seed000 --columns 4 %s" % (mine, theirs))

# What a command cannot run: exit 2 and the reason.
for args, want in ((["tlb_flush1", "-p", "nosuch"], "v6.0"),
                   (["tlb_flush1", "-p", "v6.0:mm_tlb_gen_read=bogus"], "mm_tlb_gen_read"),
                   (["tlb_flush1", "--mode", "virtual", "--machine", "nosuch"], "nosuch"),
                   (["tlb_flush1", "--mode", "virtual", "-t", "57"], "56 CPUs"),
                   (["tlb_flush1", "--mode", "warp"], "virtual"),
                   (["--plugin", "/no/such.so", "tlb_flush1"], "/no/such.so"),
                   (["mesi", "--machine", "skylake-56"], "--machine")):
    b = Run(bench, args, keep=False)
    check(b.rc == 2 and want in b.err, "%s: exit %d, the message names %s" % (" ".join(args), b.rc, want))
    if b.rc != 2 or want not in b.err:
        print(b.err)
sys.exit(status())
