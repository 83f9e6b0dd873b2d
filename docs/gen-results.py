#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""docs/gen-results.py - the measured tables of docs/seeds.md and
docs/performance.md, docs/replay.md and the README, generated from the committed reference runs under
docs/reference/ (each a tlbgen-bench results directory: results.json and
meta.json). The prose around the tables is written by hand; each table sits
between markers naming its run and how to draw it:

    <!-- BEGIN reference NAME KIND [key=value ...] -->
    ... generated ...
    <!-- END reference -->

    python3 docs/gen-results.py            # rewrite the tables
    python3 docs/gen-results.py --check    # exit 1 if a table is stale
    python3 docs/gen-results.py --rerun NAME... --bench build/bench/tlbgen-bench
                                           # measure NAME again with the command
                                           # in its meta.json, then rewrite

KIND is one of:
  vtable   a virtual-time table: a row per task count, per policy ops/s and
           the change against the first policy with its standard error;
           the seed's figures and the model's error where the run has them;
           the interval an estimate's range puts on a figure where it has one
  counts   a row per task count and policy: the per-op/per-flush counters
           named by cols=a,b,c (the MESI account, flush_tlb_func's calls);
           threads=a,b keeps those task counts only
  replay   per profile: agreement overall and per tlb_flush reason
  metrics  one row per metric named by cols=, with params as columns
  rows     a row per distinct set of params among the metrics named by
           cols=a,b,c, a column per param and per metric (where=k:v keeps
           the rows whose param k is v)
  corpus   the validation corpus's rows as data (bench/presets/corpus.json): machine,
           kernels, workload, the measured figures and the source; the
           reference run names the file nowhere, it only dates the block
  pivot    metric=NAME rows=PARAM by=PARAM: a row per value of one param, a
           column per value of the other (fmt= a Python format, default .4g;
           sort=V: rows by their value in column V, largest first; where=k:v)
Every number comes from results.json; nothing here measures or computes a
figure the run did not record, except the formatting.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REF = os.path.join(ROOT, "docs", "reference")
DOCS = [os.path.join(ROOT, "docs", d) for d in ("seeds.md", "performance.md", "replay.md",
                                                "validation.md")] + \
    [os.path.join(ROOT, "README.md")]
BLOCK = re.compile(r"(<!-- BEGIN reference (\S+) (\S+)((?: \S+=\S+)*) -->\n)(.*?)(<!-- END reference -->)",
                   re.S)


def load(name):
    d = os.path.join(REF, name)
    with open(os.path.join(d, "results.json")) as f:
        res = json.load(f)
    with open(os.path.join(d, "meta.json")) as f:
        meta = json.load(f)
    return res["metrics"], meta


def find(metrics, name, **params):
    """The value of the metric `name` whose params include these."""
    for m in metrics:
        if m["name"] == name and all(m["params"].get(k) == v for k, v in params.items()):
            return m.get("value")
    return None


def policies(meta, metrics=()):
    """The run's policies in its order: meta.json's labels, or where a preset
    names its columns itself (seed 000's base/+patch), the order in which
    results.json first names them."""
    labels = [p["label"] for p in meta.get("policies", [])]
    named = []
    for m in metrics:
        p = m["params"].get("policy")
        if p is not None and p not in named:
            named.append(p)
    if not named or all(l in named for l in labels):
        return labels
    return named


def num(v, fmt="{:.0f}"):
    return "-" if v is None else fmt.format(v)


def plain(v):
    """A figure as a reader wants it: whole numbers whole, others to four
    significant digits, never in exponent form."""
    if v is None:
        return "-"
    if float(v).is_integer():
        return str(int(v))
    if abs(v) >= 1000:
        return f"{v:.0f}"
    return f"{v:.4g}" if abs(v) >= 1e-3 else f"{v:.6f}".rstrip("0")


def command(meta):
    argv = list(meta.get("command_line", []))
    out, skip = [], False
    for a in argv:
        if skip:
            skip = False
            continue
        if a == "--out":
            skip = True
            continue
        if a.startswith("--out="):
            continue
        out.append(os.path.basename(a) if not out else a)
    return " ".join(out)


def footer(meta):
    host = meta.get("host", {})
    return (f"\n`{command(meta)}` ({meta['tool']['version']}, git {meta['tool']['git_describe']}, "
            f"{meta['date'][:10]}, {host.get('cpus_online', '?')} CPUs"
            f"{', under a hypervisor' if host.get('hypervisor') else ''})\n")


def rows_of(metrics, key):
    return sorted({m["params"][key] for m in metrics if key in m["params"]})


def vtable(metrics, meta, opts):
    pols = policies(meta, metrics)
    wl = opts.get("workload")
    sel = {"mode": "virtual"}
    if wl:
        sel["workload"] = wl
    have_seed = any(m["name"] == "seed_ops_per_sec" for m in metrics)
    have_iv = any(m["name"] == "ops_per_sec_interval_low" for m in metrics)
    head = ["tasks"] + [f"{p} ops/s" for p in pols]
    for p in pols[1:]:
        head.append(f"{p} change")
    if have_seed:
        head += [f"seed {p}" for p in pols] + ["seed change"] + [f"err {p}" for p in pols]
    if have_iv:
        head += [f"{p} interval" for p in pols]
        head += [f"{p} change interval" for p in pols[1:]]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for t in rows_of([m for m in metrics if m["name"] == "ops_per_sec"], "threads"):
        row = [str(t)]
        for p in pols:
            row.append(num(find(metrics, "ops_per_sec", threads=t, policy=p, **sel)))
        for p in pols[1:]:
            c = find(metrics, "change_pct", threads=t, policy=p, **sel)
            se = find(metrics, "change_se_pct", threads=t, policy=p, **sel)
            row.append(num(c, "{:+.1f}%") + ("" if se is None else f" ± {se:.2f}"))
        if have_seed:
            for p in pols:
                row.append(num(find(metrics, "seed_ops_per_sec", threads=t, policy=p, **sel)))
            row.append(num(find(metrics, "seed_change_pct", threads=t, policy=pols[1], **sel)
                           if len(pols) > 1 else None, "{:+.1f}%"))
            for p in pols:
                row.append(num(find(metrics, "model_error_pct", threads=t, policy=p, **sel),
                               "{:+.0f}%"))
        if have_iv:
            for p in pols:
                lo = find(metrics, "ops_per_sec_interval_low", threads=t, policy=p, **sel)
                hi = find(metrics, "ops_per_sec_interval_high", threads=t, policy=p, **sel)
                row.append("-" if lo is None else f"{lo:.0f}..{hi:.0f}")
            for p in pols[1:]:
                lo = find(metrics, "change_interval_low_pct", threads=t, policy=p, **sel)
                hi = find(metrics, "change_interval_high_pct", threads=t, policy=p, **sel)
                row.append("-" if lo is None else f"{lo:+.1f}..{hi:+.1f}%")
        out.append("| " + " | ".join(row) + " |")
    return "\n".join(out) + "\n"


def counts(metrics, meta, opts):
    cols = opts["cols"].split(",")
    pols = policies(meta, metrics)
    head = ["tasks", "policy"] + cols
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    only = opts.get("threads")
    for t in rows_of([m for m in metrics if m["name"] == cols[0]], "threads"):
        if only and str(t) not in only.split(","):
            continue
        for p in pols:
            row = [str(t), p] + [num(find(metrics, c, threads=t, policy=p), "{:.3f}") for c in cols]
            out.append("| " + " | ".join(row) + " |")
    return "\n".join(out) + "\n"


REASONS = ["0 switch", "1 remote", "2 local", "3 local mm", "4 multi", "5 wrong mm"]


def replay(metrics, meta, opts):
    head = ["profile", "machine", "agreement"] + [f"reason {r}" for r in REASONS] + ["differ"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for m in metrics:
        if m["name"] != "agreement":
            continue
        pa = m["params"]
        row = [pa["profile"], pa["machine"], f"{m['value']:.4f}"]
        for k in range(len(REASONS)):
            rec = find(metrics, "recorded", cpu="all", reason=k, **pa)
            v = find(metrics, "reason_agreement", reason=k, **pa)
            row.append("-" if not rec else f"{v:.4f} of {rec:.0f}")
        row.append(num(find(metrics, "mismatch_steps", **pa)))
        out.append("| " + " | ".join(row) + " |")
    return "\n".join(out) + "\n"


def metrics_table(metrics, meta, opts):
    cols = opts["cols"].split(",")
    keys = []
    for m in metrics:
        if m["name"] in cols:
            for k in m["params"]:
                if k not in keys:
                    keys.append(k)
    head = ["metric"] + keys + ["value", "unit"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for c in cols:
        for m in metrics:
            if m["name"] == c:
                v = m.get("value")
                row = [c] + [str(m["params"].get(k, "")) for k in keys] + \
                      [num(v, "{:.4g}"), m.get("unit", "")]
                out.append("| " + " | ".join(row) + " |")
    return "\n".join(out) + "\n"


def rows_table(metrics, meta, opts):
    cols = opts["cols"].split(",")
    where = dict(kv.split(":", 1) for kv in opts["where"].split(";")) if "where" in opts else {}
    keys, rows = [], []
    for m in metrics:
        if m["name"] not in cols:
            continue
        pa = m["params"]
        if any(str(pa.get(k)) != v for k, v in where.items()):
            continue
        for k in pa:
            if k not in keys and k not in where:
                keys.append(k)
        if pa not in rows:
            rows.append(pa)
    # A param with one value over every row says nothing a row needs.
    keys = [k for k in keys if len({str(pa.get(k)) for pa in rows}) > 1] or keys[:1]
    head = keys + cols
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for pa in rows:
        row = [str(pa.get(k, "")) for k in keys]
        for c in cols:
            v = next((m.get("value") for m in metrics if m["name"] == c and m["params"] == pa), None)
            row.append(plain(v))
        out.append("| " + " | ".join(row) + " |")
    return "\n".join(out) + "\n"


def pivot(metrics, meta, opts):
    name, rk, ck = opts["metric"], opts["rows"], opts["by"]
    fmt = "{:" + opts.get("fmt", ".4g") + "}"
    where = dict(kv.split(":", 1) for kv in opts["where"].split(";")) if "where" in opts else {}
    ms = [m for m in metrics if m["name"] == name and
          all(str(m["params"].get(k)) == v for k, v in where.items())]
    rows = sorted({m["params"][rk] for m in ms if rk in m["params"]}, key=lambda v: (str(type(v)), v))
    if "sort" in opts:  # by the value in the column named, largest first
        def at(r):
            v = next((m.get("value") for m in ms if m["params"].get(rk) == r and
                      str(m["params"].get(ck)) == opts["sort"]), None)
            return -(v if v is not None else float("-inf"))
        rows.sort(key=at)
    cols = []
    for m in ms:
        v = m["params"].get(ck)
        if v is not None and v not in cols:
            cols.append(v)
    unit = ms[0].get("unit", "") if ms else ""
    head = [f"{rk} \\ {ck}"] + [str(c) for c in cols]
    out = [f"{name} ({unit})", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        row = [str(r)]
        for c in cols:
            v = next((m.get("value") for m in ms if m["params"].get(rk) == r and m["params"].get(ck) == c), None)
            row.append(num(v, fmt))
        out.append("| " + " | ".join(row) + " |")
    return "\n".join(out) + "\n"


def corpus_table(metrics, meta, opts):
    with open(os.path.join(ROOT, "bench", "presets", "corpus.json")) as f:
        rows = json.load(f)["rows"]
    head = ["row", "arch", "machine (as the source states it)", "model", "workload", "tasks",
            "kernel before → after", "measured rate", "measured change", "source"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        m, k, ms = r["machine"], r["kernel"], r["measured"]
        out.append("| " + " | ".join([
            r["id"], r["arch"], m["part"], f"`{m['model']}`",
            f"{r['workload']} ({r['shape']})", str(r["tasks"]),
            f"`{k['base']}` → `{k['patch']}` ({k['commit']})",
            f"{plain(ms['base_rate'])} {ms['unit']}", f"{ms['change_pct']:+.1f}%",
            r["source"]]).replace("\n", " ") + " |")
    return "\n".join(out) + "\n"


KINDS = {"corpus": corpus_table, "rows": rows_table, "pivot": pivot, "vtable": vtable, "counts": counts, "replay": replay, "metrics": metrics_table}


def render(text):
    def one(mo):
        name, kind = mo.group(2), mo.group(3)
        opts = dict(kv.split("=", 1) for kv in mo.group(4).split())
        if kind not in KINDS:
            raise SystemExit(f"gen-results: unknown kind {kind} for {name}")
        metrics, meta = load(name)
        return mo.group(1) + KINDS[kind](metrics, meta, opts) + footer(meta) + mo.group(6)
    return BLOCK.sub(one, text)


def names_in(text):
    return [mo.group(2) for mo in BLOCK.finditer(text)]


def rerun(names, bench):
    for name in names:
        _, meta = load(name)
        argv = meta["command_line"][1:]
        clean, skip = [], False
        for a in argv:
            if skip:
                skip = False
                continue
            if a in ("--out", "--no-out"):
                skip = a == "--out"
                continue
            clean.append(a)
        tmp = tempfile.mkdtemp(prefix="tlbgen-ref-")
        os.rmdir(tmp)
        print("rerun:", bench, "--out", tmp, *clean, file=sys.stderr)
        r = subprocess.run([bench, "--out", tmp] + clean, stdout=subprocess.DEVNULL)
        if r.returncode:
            raise SystemExit(f"gen-results: {name}: exit {r.returncode}")
        dst = os.path.join(REF, name)
        for f in ("results.json", "meta.json"):
            os.replace(os.path.join(tmp, f), os.path.join(dst, f))
        subprocess.run(["rm", "-rf", tmp])


def main(argv):
    check = "--check" in argv
    if "--rerun" in argv:
        i = argv.index("--rerun")
        bench = argv[argv.index("--bench") + 1] if "--bench" in argv else \
            os.path.join(ROOT, "build", "bench", "tlbgen-bench")
        names = [a for a in argv[i + 1:] if not a.startswith("--") and a != bench]
        rerun(names, bench)
    stale = []
    for doc in DOCS:
        with open(doc) as f:
            text = f.read()
        new = render(text)
        if new != text:
            if check:
                stale.append(doc)
            else:
                with open(doc, "w") as f:
                    f.write(new)
    used = set()
    for doc in DOCS:
        with open(doc) as f:
            used.update(names_in(f.read()))
    unused = sorted(set(os.listdir(REF)) - used - {"README"})
    if unused:
        print(f"gen-results: reference runs no doc shows: {', '.join(unused)}", file=sys.stderr)
        return 1
    if stale:
        print("gen-results: stale: " + ", ".join(os.path.relpath(d, ROOT) for d in stale) +
              " (python3 docs/gen-results.py)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
