#!/bin/sh
# tlbgen-bench with bad arguments must print its usage and exit with 2 exactly.
bench=$1
fail=0
check() { # description, args...
	what=$1; shift
	"$bench" "$@" >/dev/null 2>"${TMPDIR:-/tmp}/bba.$$"
	rc=$?
	if [ $rc -ne 2 ]; then
		echo "FAIL: tlbgen-bench $* ($what): exit $rc, want 2"; fail=1
	elif ! grep -qi "usage" "${TMPDIR:-/tmp}/bba.$$"; then
		echo "FAIL: tlbgen-bench $* ($what): no usage on stderr"; fail=1
	else
		echo "ok: tlbgen-bench $* -> 2 with usage"
	fi
	rm -f "${TMPDIR:-/tmp}/bba.$$"
}
check "unknown option" --no-such-option
check "unknown workload" no-such-workload
check "explore: unknown option" explore --no-such-option
check "explore: bad number" explore --seeds abc
check "explore: stray argument" explore stray
check "soak: unknown option" soak --no-such-option
check "soak: bad number" soak --minutes -1
check "soak: too many cpus" soak --cpus 100000
exit $fail
