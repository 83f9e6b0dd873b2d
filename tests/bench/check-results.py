#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Validate tlbgen-bench results directories against their schema.

usage: check-results.py [--workload W] DIR...

Each DIR must hold meta.json and results.json as bench/driver/results.h describes
them (schema version 1): every metric has a name, a unit, parameters and a
value (or samples with their mean), and no two metrics share name and
parameters. Exit 0 when every directory conforms, 1 otherwise, with one line
per problem.
"""
import json
import math
import re
import sys

NAME = re.compile(r"^[a-z0-9_]+$")
errors = []


def err(where, msg):
    errors.append(f"{where}: {msg}")


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def check_meta(path, meta, workload):
    if meta.get("schema") != "tlbgen-bench-meta" or meta.get("schema_version") != 1:
        err(path, "schema/schema_version is not tlbgen-bench-meta/1")
    tool = meta.get("tool", {})
    for k in ("name", "version", "git_describe"):
        if not isinstance(tool.get(k), str) or not tool.get(k):
            err(path, f"tool.{k} missing")
    if workload and meta.get("workload") != workload:
        err(path, f"workload {meta.get('workload')!r}, want {workload!r}")
    cl = meta.get("command_line")
    if not isinstance(cl, list) or not cl or not all(isinstance(a, str) for a in cl):
        err(path, "command_line is not a non-empty list of strings")
    if not re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$", str(meta.get("date"))):
        err(path, f"date {meta.get('date')!r} is not ISO 8601 UTC")
    if "seed" not in meta or not (meta["seed"] is None or isinstance(meta["seed"], int)):
        err(path, "seed missing")
    host = meta.get("host", {})
    for k in ("hostname", "kernel"):
        if not isinstance(host.get(k), str):
            err(path, f"host.{k} missing")
    u = host.get("uname", {})
    for k in ("sysname", "release", "version", "machine"):
        if not isinstance(u.get(k), str):
            err(path, f"host.uname.{k} missing")
    for k in ("cpus_online", "cpus_allowed", "numa_nodes"):
        if not isinstance(host.get(k), int) or host[k] < 1:
            err(path, f"host.{k} is not a positive integer")
    if not isinstance(host.get("hypervisor"), bool):
        err(path, "host.hypervisor is not a boolean")
    if "cpu_model" not in host:
        err(path, "host.cpu_model missing")
    pols = meta.get("policies")
    if not isinstance(pols, list) or not pols:
        err(path, "policies is not a non-empty list")
    else:
        for p in pols:
            ch = p.get("choices")
            if not isinstance(ch, str) or "mm_tlb_gen_read=" not in ch:
                err(path, f"policy {p.get('label')!r}: choices is not the full description")


def check_results(path, res, workload):
    if res.get("schema") != "tlbgen-bench-results" or res.get("schema_version") != 1:
        err(path, "schema/schema_version is not tlbgen-bench-results/1")
    if workload and res.get("workload") != workload:
        err(path, f"workload {res.get('workload')!r}, want {workload!r}")
    metrics = res.get("metrics")
    if not isinstance(metrics, list) or not metrics:
        err(path, "metrics is not a non-empty list")
        return
    seen = set()
    for i, m in enumerate(metrics):
        w = f"{path}: metrics[{i}]"
        name = m.get("name")
        if not isinstance(name, str) or not NAME.match(name):
            err(w, f"name {name!r} is not [a-z0-9_]+")
        if not isinstance(m.get("unit"), str) or not m["unit"]:
            err(w, f"{name}: no unit")
        params = m.get("params")
        if not isinstance(params, dict) or not all(
                isinstance(v, (str, int)) and not isinstance(v, bool) for v in params.values()):
            err(w, f"{name}: params is not an object of strings and integers")
            params = {}
        if m.get("better") not in (None, "higher", "lower"):
            err(w, f"{name}: better {m.get('better')!r}")
        key = (name, json.dumps(params, sort_keys=True))
        if key in seen:
            err(w, f"{name} {params}: duplicate metric")
        seen.add(key)
        st = m.get("statistic")
        v = m.get("value")
        if st == "value":
            if not (v is None or is_num(v)) or "samples" in m:
                err(w, f"{name}: a value metric needs a number (or null) and no samples")
        elif st == "mean":
            s = m.get("samples")
            if not isinstance(s, list) or not all(x is None or is_num(x) for x in s):
                err(w, f"{name}: a mean metric needs a list of samples")
            else:
                xs = [x for x in s if x is not None]
                if xs and (not is_num(v) or abs(v - sum(xs) / len(xs)) > 1e-6 * max(1, abs(v))):
                    err(w, f"{name}: value {v} is not the mean of its samples")
                r = m.get("round_sizes")
                if r is not None and (not isinstance(r, list) or
                                      not all(isinstance(k, int) and k >= 0 for k in r) or
                                      sum(r) != len(s)):
                    err(w, f"{name}: round_sizes {r} do not add up to its {len(s)} samples")
        else:
            err(w, f"{name}: statistic {st!r} is not value or mean")


def main(argv):
    workload = None
    if len(argv) > 2 and argv[1] == "--workload":
        workload = argv[2]
        argv = argv[2:]
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    for d in argv[1:]:
        for name, fn in (("meta.json", check_meta), ("results.json", check_results)):
            try:
                with open(f"{d}/{name}") as f:
                    doc = json.load(f)
            except (OSError, ValueError) as e:
                err(f"{d}/{name}", str(e))
                continue
            fn(f"{d}/{name}", doc, workload)
    for e in errors:
        print("FAIL:", e)
    if not errors:
        print("ok:", " ".join(argv[1:]))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
