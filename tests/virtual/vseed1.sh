#!/bin/sh
# tlbgen-bench seed001 --mode virtual: deterministic through the CLI (same
# seed, same table), no oracle violation (exit 0), and the direction of the
# mechanism: more IPIs per flush to CPUs that run another mm (stale) under
# the lazy untrimmed cpumask than under clear-on-switch and the per-HZ trim;
# bad options exit 2.
bench=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
for i in 1 2; do
	"$bench" seed001 --mode virtual --threads 40,80 --ms 2 --runs 1 --seed 2 --no-out \
		>"$tmp/out$i" 2>"$tmp/err$i" ||
		{ echo "FAIL: run $i exit $?"; cat "$tmp/err$i"; exit 1; }
	grep -v '^# speed' "$tmp/out$i" >"$tmp/det$i"
done
cmp -s "$tmp/det1" "$tmp/det2" || { echo "FAIL: two runs differ"; diff "$tmp/det1" "$tmp/det2"; fail=1; }
# The mechanism is a steady-state one: in 2 ms a thread has done about 25
# of its 256 pages and few have remapped, so the start-up (every thread
# faulting at once) still outweighs it. 10 ms, past the first remaps.
"$bench" seed001 --mode virtual --threads 40,80 --ms 10 --runs 1 --seed 2 --no-out \
	>"$tmp/out1" 2>"$tmp/err1" ||
	{ echo "FAIL: 10 ms run exit $?"; cat "$tmp/err1"; exit 1; }
cat "$tmp/out1"
# Row: threads clear lazy trim lchg seed err tchg t/l seed stale(c/l/t) asleep range
awk '
/^[0-9]/ {
	rows++
	n = split($11, s, "/")
	if (n != 3) { print "FAIL: stale column " $11; bad = 1; next }
	if (!(s[2] + 0 > s[1] + 0 && s[2] + 0 > s[3] + 0)) {
		print "FAIL: " $1 " threads: stale IPIs/flush clear/lazy/trim " $11; bad = 1
	}
	if ($1 == 80 && $6 != "-13.2%") { print "FAIL: no seed figure on the 80-thread row"; bad = 1 }
}
END {
	if (rows != 2) { print "FAIL: " rows " rows, want 2"; bad = 1 }
	exit bad
}' "$tmp/out1" || fail=1
for args in "--machine nosuch" "--ms 0" "--threads 0" "--threads 81" "--runs 0" "--mode threaded"; do
	# shellcheck disable=SC2086
	"$bench" seed001 --mode virtual $args >/dev/null 2>&1
	rc=$?
	[ $rc -eq 2 ] || { echo "FAIL: seed001 --mode virtual $args: exit $rc, want 2"; fail=1; }
done
[ $fail -eq 0 ] && echo "ok"
exit $fail
