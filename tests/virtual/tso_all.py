#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""`explore --memory-model tso --exhaustive --scenario all` through the CLI,
read from results.json: latest is clean in every scenario, each one
exhausted within its bound, in at most 60 s; v6.14 fails (exit 1) in the
switch_mm scenario and the search records it; latest without 83b0177a6c48's
smp_mb() fails under tso and is clean under sc in every scenario; latest
without fea4e317f9e7 fails under sc; a --max-executions limit is "not
exhausted"; an unknown scenario is refused.

usage: tso_all.py TLBGEN-BENCH"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
from benchlib import Run, check, status  # noqa: E402

bench = os.path.abspath(sys.argv[1])
SCENARIOS = ["switch_mm", "lazy_return", "trim", "batch", "kernel_range", "csd", "invlpgb"]


def explore(*args):
    t0 = time.monotonic()
    r = Run(bench, ["explore", "--memory-model"] + list(args), timeout=600)
    return r, time.monotonic() - t0


r, secs = explore("tso", "--profile", "latest", "--exhaustive", "--scenario", "all")
if not check(r.rc == 0, "latest under tso, every scenario: exit 0 (got %d)" % r.rc):
    r.show()
check(secs <= 60, "the exhaustive run of every scenario took %.1f s (<= 60)" % secs)
for s in SCENARIOS:
    p = {"scenario": s, "profile": "latest", "memory_model": "tso", "search": "exhaustive"}
    check(r.value("failed", **p) == 0, "%s: no violation" % s)
    check(r.value("exhausted", **p) == 1, "%s: every execution within the bound ran" % s)
    check((r.value("executions", **p) or 0) > 1, "%s: %s executions" % (s, r.value("executions", **p)))
    check(r.value("bound_reached", **p) in (0, 1), "%s: bound reached recorded" % s)

# The known window of 83b0177a6c48: a store-buffer window, so tso only.
for model, want in (("tso", 1), ("sc", 0)):
    r, _ = explore(model, "--profile", "latest", "--choices", "switch_mm_barrier=off",
                   "--exhaustive", "--scenario", "all" if model == "sc" else "switch_mm")
    check(r.rc == want, "latest+switch_mm_barrier=off under %s: exit %d (got %d)" % (model, want, r.rc))
    p = {"profile": "latest", "memory_model": model, "choices": "switch_mm_barrier=off"}
    fails = {m["params"]["scenario"]: m["value"] for m in r.metrics("failed", **p)}
    if model == "tso":
        check(fails.get("switch_mm") == 1, "under tso switch_mm fails: %s" % fails)
    else:
        check(sorted(fails) == sorted(SCENARIOS) and not any(fails.values()),
              "under sc every scenario is clean: %s" % fails)

# fea4e317f9e7's window needs no store buffer: it fails under sc.
r, _ = explore("sc", "--profile", "latest", "--choices",
               "loaded_mm_switching=off,switching_write=late", "--exhaustive", "--scenario", "switch_mm")
check(r.rc == 1 and r.value("failed", scenario="switch_mm", memory_model="sc") == 1,
      "latest+loaded_mm_switching=off,switching_write=late under sc: fails (exit %d)" % r.rc)

r, _ = explore("tso", "--profile", "v6.14", "--exhaustive", "--scenario", "switch_mm")
check(r.rc == 1 and r.value("failed", profile="v6.14", scenario="switch_mm") == 1,
      "v6.14 under tso: switch_mm fails (exit %d)" % r.rc)

# A limit is never a silent default: stopped early is "not exhausted", exit 1.
r, _ = explore("tso", "--exhaustive", "--scenario", "csd", "--max-executions", "5")
p = {"scenario": "csd", "memory_model": "tso", "search": "exhaustive"}
check(r.rc == 1 and r.value("exhausted", **p) == 0 and r.value("executions", **p) == 5,
      "--max-executions 5: not exhausted after 5 executions, exit %d" % r.rc)

r, _ = explore("tso", "--scenario", "no-such")
check(r.rc == 2 and "no-such" in r.err, "an unknown scenario: exit 2 naming it (%d)" % r.rc)
sys.exit(status())
