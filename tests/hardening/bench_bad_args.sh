#!/bin/sh
# tlbgen-bench with bad arguments must print its usage and exit with 2 exactly.
bench=$1
fail=0
check() { # description, args...
	what=$1; shift
	for last in "$@"; do :; done
	"$bench" "$@" >/dev/null 2>"${TMPDIR:-/tmp}/bba.$$"
	rc=$?
	if [ $rc -ne 2 ]; then
		echo "FAIL: tlbgen-bench $* ($what): exit $rc, want 2"; fail=1
	elif ! grep -qiF -e "usage" -e "$last" "${TMPDIR:-/tmp}/bba.$$"; then
		echo "FAIL: tlbgen-bench $* ($what): neither usage nor $last on stderr"; fail=1
	else
		echo "ok: tlbgen-bench $* -> 2: $(head -n 1 "${TMPDIR:-/tmp}/bba.$$")"
	fi
	rm -f "${TMPDIR:-/tmp}/bba.$$"
}
# A bad number: exit 2, and the first line of stderr names the option and the value.
check_number() { # workload, option, value
	"$bench" "$1" "$2" "$3" >/dev/null 2>"${TMPDIR:-/tmp}/bba.$$"
	rc=$?
	first=$(head -n 1 "${TMPDIR:-/tmp}/bba.$$")
	if [ $rc -ne 2 ]; then
		echo "FAIL: tlbgen-bench $1 $2 '$3': exit $rc, want 2"; fail=1
	else
		case $first in
		*"$2"*"'$3'"*) echo "ok: tlbgen-bench $1 $2 '$3' -> 2: $first" ;;
		*) echo "FAIL: tlbgen-bench $1 $2 '$3': first stderr line does not name" \
			"the option and value: $first"; fail=1 ;;
		esac
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

check_number tlbie --inv-cycles abc
check_number tlbie --iters 1x
check_number tlbie --shm-mb ""
check_number tlbie --ceilings 8,x
check_number transport --rounds 3x
check_number transport --iters -5
check_number transport --cpus 0,1x
check_number pagefault --pages 64abc
check_number pagefault --cpus -1
check "pagefault: unknown arch" pagefault --arch sparc
check "versions: stray argument" versions stray
check_number lazy --flushes 5k
check_number lazy --seed 99999999999999999999999
check_number explore --ops 1x
check_number explore --memory-model arm64
check_number explore --bound 9x
check_number soak --seconds 2x
check_number reclaim --pages 12q
check_number reclaim --rounds ""
check_number seed000 --mesi-ops 1e3
check_number tlb_flush1 --rounds 3x
check_number tlb_flush2 --tasks 1-x
check_number tlb_flush3 --duration 100ms
check_number page_fault3 --sample-ms 0x
check_number mesi --ops 8x
check_number tlb_flush1 --warmup 1x
check_number seed000 -w -1
check_number lazy -k 2x
check_number lazy --per-jiffy ""
check_number explore --first-seed 0x1g
check_number soak --cpus 3x
check_number sweep --tasks 1x
check "sweep without --emit" sweep
check "compare: one directory" compare .
check "merge without --out" merge .
check "--out without a directory" lazy --out
exit $fail
