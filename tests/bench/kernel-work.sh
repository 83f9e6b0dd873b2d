#!/bin/sh
# --kernel-work: the timed rounds burn the machine model's per-op kernel work.
# A model whose fault alone costs 1 ms caps a task at 1000 ops/s whatever
# the host's load (a busy-wait never ends early; one op already under way
# when a 75 ms sample opens lets 76 count: 1013/s); off leaves the emulated
# flush path alone, thousands of times faster. The header names the choice,
# and a bad model is a usage error naming the option.
bench=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
slow='skylake-56:mhz=2500,page_fault=2500000'
run() { # out-file kernel-work
	"$bench" --no-out tlb_flush1 -p v6.0 -t 1 -r 1 -d 300 --no-mesi --no-acct -q \
		--kernel-work "$2" >"$tmp/$1" 2>"$tmp/$1.err" ||
		{ echo "FAIL: --kernel-work $2: exit $?"; cat "$tmp/$1.err"; fail=1; }
}
mean() { awk '$1 == "threads" && $2 == 1 && $3 == "v6.0" { print $5; exit }' "$tmp/$1"; }
run slow "$slow"
run off off
s=$(mean slow); o=$(mean off)
echo "ops/s: 1 ms refault $s, off $o"
[ -n "$s" ] && [ -n "$o" ] || { echo "FAIL: no ops/s row"; cat "$tmp/slow" "$tmp/off"; exit 1; }
[ "$s" -gt 0 ] && [ "$s" -le 1014 ] || { echo "FAIL: 1 ms of kernel work per op, yet $s ops/s"; fail=1; }
[ "$o" -gt 10000 ] || { echo "FAIL: --kernel-work off: only $o ops/s"; fail=1; }
grep -q '^#   fault 1000000 ns, ' "$tmp/slow" || { echo "FAIL: header lacks the fault cost"; grep '^#' "$tmp/slow"; fail=1; }
grep -q '^# kernel work per op: off' "$tmp/off" || { echo "FAIL: header does not say off"; fail=1; }
"$bench" --no-out tlb_flush1 --kernel-work nosuch -t 1 >/dev/null 2>"$tmp/bad"
rc=$?
[ $rc -eq 2 ] || { echo "FAIL: --kernel-work nosuch: exit $rc, want 2"; fail=1; }
grep -q -- '--kernel-work' "$tmp/bad" || { echo "FAIL: the error does not name --kernel-work"; cat "$tmp/bad"; fail=1; }
[ $fail -eq 0 ] && echo "ok"
exit $fail
