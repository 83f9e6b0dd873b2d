#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# A small sweep through GNU parallel: `tlbgen-bench sweep --emit` prints one
# command per cell, parallel runs them, `merge` makes one directory of them,
# which conforms to the schema, holds every cell, and compares: against
# itself (0% changes, p = 1) and against one run of the same matrix.
# usage: sweep.sh TLBGEN-BENCH CHECK-RESULTS.PY
abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
bench=$(abs "$1") check=$(abs "$2")
command -v parallel >/dev/null 2>&1 || { echo "GNU parallel not installed (Debian: parallel)"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
no() { echo "FAIL: $*"; fail=1; }
cell="-r 2 -d 20 -s 10 -q --no-mesi --no-acct --no-plot"

# shellcheck disable=SC2086
"$bench" sweep --emit -w tlb_flush1 -p v5.17 -p 'v6.0:mm_tlb_gen_read=never' -t 1,2 \
	--out-base "$tmp/cells" --bench "$bench" -- $cell >"$tmp/cmds" || no "sweep --emit: exit $?"
n=$(wc -l <"$tmp/cmds")
[ "$n" -eq 4 ] && echo "ok: sweep --emit: 4 commands" || { no "sweep --emit printed $n commands"; cat "$tmp/cmds"; }
parallel --will-cite -j 2 --halt now,fail=1 <"$tmp/cmds" >"$tmp/parallel.log" 2>&1 ||
	{ no "parallel: exit $?"; tail -20 "$tmp/parallel.log"; }
"$bench" merge --out "$tmp/merged" "$tmp"/cells/* >"$tmp/merge.log" 2>&1 || { no "merge: exit $?"; cat "$tmp/merge.log"; }
python3 "$check" --workload tlb_flush1 "$tmp/merged" || fail=1
cells=$(python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))["metrics"]
print(len({(x["params"]["policy"], x["params"]["tasks"]) for x in m if x["name"] == "ops_per_sec"}))
' "$tmp/merged/results.json")
[ "$cells" = 4 ] && echo "ok: merged directory holds the 4 cells" || no "merged directory holds $cells cells, want 4"

"$bench" compare --json "$tmp/self.json" "$tmp/merged" "$tmp/merged" >/dev/null ||
	no "compare merged merged: exit $?"
python3 - "$tmp/self.json" <<'PY' && echo "ok: merged against itself: 0% changes, p = 1" || fail=1
import json, sys
ms = json.load(open(sys.argv[1]))["metrics"]
bad = [m["name"] for m in ms for c in m["changes"]
       if c is None or c["change_pct"] not in (0, None) or c["p"] not in (1, None)]
if bad or not any(m["name"] == "ops_per_sec" for m in ms):
    print("FAIL: merged against itself:", len(bad), "metrics differ", bad[:5])
    sys.exit(1)
PY

# shellcheck disable=SC2086
"$bench" --out "$tmp/one" tlb_flush1 -p v5.17 -p 'v6.0:mm_tlb_gen_read=never' -t 1,2 $cell \
	>/dev/null 2>&1 || no "one run: exit $?"
"$bench" compare --metric ops_per_sec --json "$tmp/two.json" "$tmp/one" "$tmp/merged" \
	>/dev/null || no "compare one merged: exit $?"
rows=$(python3 -c '
import json, sys
ms = json.load(open(sys.argv[1]))["metrics"]
print(sum(1 for m in ms if m["name"] == "ops_per_sec" and m["changes"][0] is not None))
' "$tmp/two.json")
[ "$rows" = 4 ] && echo "ok: one run against the merged sweep: 4 rows" ||
	no "one run against the merged sweep: $rows ops_per_sec rows compared, want 4"
exit $fail
