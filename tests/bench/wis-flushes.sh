#!/bin/sh
# will-it-scale's tlb_flush1 maps a file MAP_PRIVATE and reads each page back
# after madvise(); the read's do_fault_around() maps the rest of the 16-page
# block read-only, so on 15 pages in 16 the next write is a COW whose
# wp_page_copy() flushes (ptep_clear_flush()) before madvise flushes again.
# The stepped MESI account of 1600 ops on 8 CPUs: 1600 * (1 + 15/16) = 3100
# flushes for the ops done, give or take the 8 CPUs' partial blocks (3093 at
# least), plus up to 2 per CPU for ops whose flushes ran but which had not
# yet been counted when the account stopped (3116 at most).
bench=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
"$bench" mesi --mesi-ops 1600 --no-out >"$tmp/out" 2>"$tmp/err" ||
	{ echo "FAIL: mesi exit $?"; cat "$tmp/err"; exit 1; }
awk '
/^policy/ { table = 1; next }
table && ($1 !~ /^v/) { table = 0 }
table && ($1 == "v5.17" || $1 == "v6.0") {
	n++
	if ($2 < 3093 || $2 > 3116) { print "FAIL: " $1 ": " $2 " flushes for 1600 ops, want 3093..3116"; bad = 1 }
}
END {
	if (n != 2) { print "FAIL: " n " policy rows, want 2"; bad = 1 }
	exit bad
}' "$tmp/out" || { cat "$tmp/out"; exit 1; }
# madvise zaps under an mmu_gather: tlb_finish_mmu() flushes the whole mm
# when another CPU's gather on it is in flight (mm_tlb_flush_nested(),
# 7a30df49f63a). Alone a CPU never meets one; among 8 interleaved CPUs whose
# flushes stay open until they return, most madvise flushes do (800 of the
# 1600 ops, 1600 madvise flushes at most).
nested() { # cpus -> mesi_nested_full_flushes of v6.0
	"$bench" mesi --mesi-ops 1600 --mesi-cpus "$1" --out "$tmp/n$1" >/dev/null 2>"$tmp/err" ||
		{ echo "FAIL: mesi --mesi-cpus $1 exit $?" >&2; cat "$tmp/err" >&2; return 1; }
	python3 - "$tmp/n$1/results.json" <<'PY'
import json, sys
for m in json.load(open(sys.argv[1]))["metrics"]:
    if m["name"] == "mesi_nested_full_flushes" and m["params"]["policy"] == "v6.0":
        print(int(m["value"]))
PY
}
one=$(nested 1) && eight=$(nested 8) || exit 1
echo "nested full flushes: 1 CPU $one, 8 CPUs $eight"
[ "$one" = 0 ] || { echo "FAIL: one CPU met another's gather $one times"; exit 1; }
[ -n "$eight" ] && [ "$eight" -ge 800 ] && [ "$eight" -le 1600 ] ||
	{ echo "FAIL: 8 CPUs: $eight nested full flushes, want 800..1600"; exit 1; }
echo "ok"
