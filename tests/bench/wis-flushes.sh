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
echo "ok"
