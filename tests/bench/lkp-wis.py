#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""LKP's will-it-scale stats parser, reimplemented, against tlbgen-bench.

usage: lkp-wis.py TLBGEN-BENCH

Runs tlb_flush1 in both modes for two policies and feeds each per-policy CSV
file of the results directory to the logic of lkp-tests' stats/will-it-scale
(a port of its Ruby: rows "tasks,processes,processes_idle,threads,
threads_idle,linear"; NR.column keys; scalability = processes / linear of the
last row with more than one task; per_thread_ops = the mean over rows of
threads / tasks). per_thread_ops must be the run's own threads figure for
that policy alone, and scalability nonzero. The LKP-style lines on stdout
must split on '.' into exactly workload, policy, mode, tasks and metric.
"""
import json
import os
import subprocess
import sys
import tempfile


def lkp_will_it_scale(lines):
    """The stats/will-it-scale logic of lkp-tests, line for line."""
    import re
    stats, scalability, per_process, per_thread, names = {}, [], [], [], []
    for line in lines:
        line = line.rstrip("\n")
        if re.match(r"^[a-z_,]+$", line):
            names = line.split(",")[1:]
        elif re.match(r"^[0-9.,]+$", line):
            values = line.split(",")
            nr_task = values.pop(0)
            if nr_task == "0":
                continue
            linear = int(float(values[-1]))
            if linear != 0 and nr_task != "1":
                scalability.append(float(values[0]) / linear)
            per_process.append(float(values[0]) / int(nr_task))
            per_thread.append(float(values[2]) / int(nr_task))
            for i, name in enumerate(names):
                stats[f"{nr_task}.{name}"] = values[i]
    if scalability:
        stats["scalability"] = scalability[-1]
    if per_process:
        stats["per_process_ops"] = int(sum(per_process) / len(per_process))
    if per_thread:
        stats["per_thread_ops"] = int(sum(per_thread) / len(per_thread))
    return stats


def main():
    bench = sys.argv[1]
    fail = 0
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "run")
        p = subprocess.run([bench, "--out", out, "tlb_flush1", "-m", "both", "-t", "1,2",
                            "-r", "2", "-d", "20", "-s", "10", "-q", "-p", "v5.17", "-p",
                            "v6.0", "--no-mesi", "--no-plot"], capture_output=True, text=True)
        if p.returncode != 0:
            print(f"FAIL: tlb_flush1 exit status {p.returncode}\n{p.stderr}")
            return 1
        with open(os.path.join(out, "results.json")) as f:
            metrics = json.load(f)["metrics"]
        for pol, safe in (("v5.17", "v5_17"), ("v6.0", "v6_0")):
            with open(os.path.join(out, f"tlb_flush1-{safe}.csv")) as f:
                st = lkp_will_it_scale(f)
            want = [m["value"] / m["params"]["tasks"] for m in metrics
                    if m["name"] == "ops_per_sec" and m["params"]["policy"] == pol
                    and m["params"]["mode"] == "threads"]
            want_pt = int(sum(want) / len(want))
            if len(want) != 2 or abs(st.get("per_thread_ops", -1) - want_pt) > 1:
                print(f"FAIL: {pol}: per_thread_ops {st.get('per_thread_ops')}, want {want_pt}")
                fail = 1
            elif not st.get("scalability", 0) > 0:
                print(f"FAIL: {pol}: scalability {st.get('scalability')}, want > 0")
                fail = 1
            elif "2.threads" not in st or "1.processes" not in st:
                print(f"FAIL: {pol}: no NR.column keys: {sorted(st)}")
                fail = 1
            else:
                print(f"ok: {pol}: per_thread_ops {st['per_thread_ops']}, "
                      f"scalability {st['scalability']:.3f}")
        lkp = [ln for ln in p.stdout.splitlines() if ln.startswith("tlb_flush1.")]
        bad = [ln for ln in lkp if len(ln.split(":")[0].split(".")) != 5]
        if not lkp or bad:
            print(f"FAIL: LKP keys not of 5 dot-separated parts: {bad[:3]} ({len(lkp)} lines)")
            fail = 1
        else:
            print(f"ok: {len(lkp)} LKP keys, each workload.policy.mode.tasks.metric")
    return fail


if __name__ == "__main__":
    sys.exit(main())
