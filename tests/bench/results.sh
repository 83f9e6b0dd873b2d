#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Every workload keeps a results directory whose meta.json and results.json
# conform to their schema (check-results.py); compare of a directory against
# itself shows 0% changes with p = 1; the checker rejects a broken document.
# usage: results.sh TLBGEN-BENCH CHECK-RESULTS.PY
bench=$1 check=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
short="-t 1,2 -r 2 -d 20 -s 10 -q"
run() { # workload args...
	w=$1; shift
	if ! "$bench" --out "$tmp/$w" "$w" "$@" >"$tmp/$w.out" 2>&1; then
		echo "FAIL: tlbgen-bench $w $*: exit status $?"; tail -5 "$tmp/$w.out"; fail=1
	elif ! python3 "$check" --workload "$w" "$tmp/$w"; then
		fail=1
	fi
}
run transport --rounds 3 --iters 50
run vtime --rounds 2 --cpus 4 --us 100 --points 5000
run seed000 $short --mesi-ops 500
mkdir -p "$tmp/virtual"
if "$bench" --out "$tmp/virtual/seed000" seed000 --mode virtual --threads 1,2 --ms 1 \
	>"$tmp/virtual.out" 2>&1; then
	python3 "$check" --workload seed000 "$tmp/virtual/seed000" || fail=1
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert any(m["params"].get("mode")=="virtual" for m in d["metrics"])' \
		"$tmp/virtual/seed000/results.json" ||
		{ echo "FAIL: seed000 --mode virtual: no virtual metrics"; fail=1; }
	# Each flush_tlb_func ends in one outcome (one mm, never lazy), and
	# v5.17 ("base") has no aa44284960 early return.
	python3 - "$tmp/virtual/seed000/results.json" <<'PY' || fail=1
import json, sys
m = json.load(open(sys.argv[1]))["metrics"]
v = {}
for x in m:
    if x["name"].startswith("flush_tlb_func_per_op_"):
        key = (x["params"]["threads"], x["params"]["policy"])
        v.setdefault(key, {})[x["name"][len("flush_tlb_func_per_op_"):]] = x["value"]
bad = [k for k, o in v.items()
       if o["calls"] <= 0 or abs(o["calls"] - o["early"] - o["up_to_date"] - o["full"] - o["partial"]) > 1e-6 * o["calls"]
       or (k[1] == "base" and o["early"] != 0)]
if len(v) != 4 or bad:
    print("FAIL: seed000 --mode virtual: flush_tlb_func outcomes", len(v), bad)
    sys.exit(1)
PY
else
	echo "FAIL: seed000 --mode virtual: exit status $?"; tail -5 "$tmp/virtual.out"; fail=1
fi
run tlb_flush1 $short -m both -p v5.17 -p v6.0 --no-mesi --no-plot
run tlb_flush2 $short --no-mesi --no-plot
run tlb_flush3 $short --no-mesi --no-plot
run page_fault3 $short --no-mesi --no-plot
run mesi --ops 500
run lazy -f 200
run tlbie --iters 2
run pagefault --rounds 1 --loops 1 --pages 128 -t 2 --mode stepped,threads
run explore --seeds 20
run soak --seconds 1 --round 1 -p v6.0 --watchdog-ms 10000
run scale --max-cpus 128 --reps 1 --targets 2000
run reclaim --mode stepped --rounds 1
# A command that records no figure keeps no directory.
"$bench" --out "$tmp/versions" versions >/dev/null 2>&1 || { echo "FAIL: versions: exit $?"; fail=1; }
[ -e "$tmp/versions" ] && { echo "FAIL: versions kept a results directory"; fail=1; }

# The default run's plot and per-policy CSV files are in its directory.
for f in throughput.svg tlb_flush1-v5_17.csv tlb_flush1-v6_0.csv; do
	[ -s "$tmp/seed000/$f" ] || { echo "FAIL: seed000 left no $f"; fail=1; }
done

# mesi runs no timed rounds: no ops/s, no rounds in its files.
python3 - "$tmp/mesi/results.json" "$tmp/mesi/meta.json" <<'PY' || fail=1
import json, sys
res, meta = (json.load(open(f)) for f in sys.argv[1:3])
names = {m["name"] for m in res["metrics"]}
if {"ops_per_sec", "rounds"} & names or "rounds" in meta.get("params", {}):
    sys.exit("FAIL: mesi records timed rounds it never ran")
if "transfers_per_flush" not in names:
    sys.exit("FAIL: mesi recorded no transfers per flush")
PY

# A directory against itself: every change 0, every p 1 (compare's JSON).
if ! "$bench" compare --json "$tmp/self.json" "$tmp/tlb_flush1" "$tmp/tlb_flush1" >/dev/null; then
	echo "FAIL: compare of a directory against itself: exit status $?"; fail=1
fi
python3 - "$tmp/self.json" "$tmp/tlb_flush1" <<'PY' || fail=1
import json, sys
doc = json.load(open(sys.argv[1]))
ch = [c for m in doc["metrics"] for c in m["changes"]]
moved = [c for c in ch if c is None or c["change_pct"] not in (0, None)]
ps = [c["p"] for c in ch if c and c["p"] is not None]
dirs = [d["path"] for d in doc["directories"]]
if len(ch) < 10 or moved or any(p != 1 for p in ps) or dirs != [sys.argv[2]] * 2:
    print(f"FAIL: compare self: {len(ch)} metrics, {len(moved)} changed, p {sorted(set(ps))}, dirs {dirs}")
    sys.exit(1)
print(f"ok: compare self: {len(ch)} metrics, all 0% change, {len(ps)} tested with p = 1")
PY
# Documented exit statuses: 1 not a results directory, 2 bad arguments, 3 nothing in common.
"$bench" compare "$tmp/tlb_flush1" "$tmp" >/dev/null 2>&1
[ $? -eq 1 ] || { echo "FAIL: compare with a non-results directory: want exit 1"; fail=1; }
"$bench" compare "$tmp/tlb_flush1" >/dev/null 2>&1
[ $? -eq 2 ] || { echo "FAIL: compare with one directory: want exit 2"; fail=1; }
"$bench" compare "$tmp/tlbie" "$tmp/lazy" >/dev/null 2>&1
[ $? -eq 3 ] || { echo "FAIL: compare with nothing in common: want exit 3"; fail=1; }

# The checker must catch a metric without a unit.
mkdir "$tmp/broken"
cp "$tmp/lazy/meta.json" "$tmp/broken/"
sed 's/"unit": "IPIs\/flush"/"unit": ""/' "$tmp/lazy/results.json" >"$tmp/broken/results.json"
if python3 "$check" "$tmp/broken" >/dev/null; then
	echo "FAIL: check-results.py accepted a metric without a unit"; fail=1
fi
exit $fail
