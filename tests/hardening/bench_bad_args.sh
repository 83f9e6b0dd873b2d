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
# A refusal: exit 2, and stderr says what was refused (a fixed string).
check_msg() { # description, string, args...
	what=$1 want=$2; shift 2
	"$bench" "$@" >/dev/null 2>"${TMPDIR:-/tmp}/bba.$$"
	rc=$?
	if [ $rc -ne 2 ]; then
		echo "FAIL: tlbgen-bench $* ($what): exit $rc, want 2"; fail=1
	elif ! grep -qF -e "$want" "${TMPDIR:-/tmp}/bba.$$"; then
		echo "FAIL: tlbgen-bench $* ($what): no '$want' on stderr:"; cat "${TMPDIR:-/tmp}/bba.$$"; fail=1
	else
		echo "ok: tlbgen-bench $* -> 2: $(head -n 1 "${TMPDIR:-/tmp}/bba.$$")"
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
check_msg "tlbie: stepped only" "--mode virtual has no meaning" tlbie --mode virtual
check_msg "tlbie: one policy" "one policy only" tlbie -p v6.0 -p latest
check_number transport --rounds 3x
check_number transport --iters -5
check_number transport --cpus 0,1x
check_number vtime --rounds 3x
check_number vtime --points 1e6
check_number pagefault --pages 64abc
check_number pagefault --tasks -1
check_msg "pagefault: a model only in virtual time" "--machine is a model for --mode virtual" pagefault --machine skylake-56
check_msg "pagefault: more tasks than the model's CPUs" "has 8 CPUs" pagefault --mode virtual --machine skylake-56:sockets=1,cores_per_socket=4 -t 9
check_msg "pagefault: one policy" "one policy only" pagefault -p v6.0 -p latest
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
check_msg "reclaim: no processes" "--mode processes has no meaning" reclaim --mode processes
check_msg "reclaim: no shape" "--shape: the K threads" reclaim --shape processes
check_msg "tlbie: no shape" "--shape: its 2 CPUs share one mm" tlbie --shape processes
check_msg "reclaim: a model only in virtual time" "--machine is a model for --mode virtual" reclaim --machine skylake-56
check_msg "reclaim: K past the model's CPUs" "on this machine model" reclaim --mode virtual --machine skylake-56:sockets=1,cores_per_socket=4 -t 8
check_msg "reclaim: a bad arch" "is not a list of x86, arm64, riscv" reclaim --arch x86,sparc
check_msg "reclaim: K too large" "at most 64 threads" reclaim -t 65
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
check "merge without a source" merge --out "${TMPDIR:-/tmp}/bba-merge.$$"
[ -e "${TMPDIR:-/tmp}/bba-merge.$$" ] && { echo "FAIL: merge without a source created its --out"; fail=1; }

# The tools on the one parser: their own numbers, the shared options they
# take, and the modes and policies they cannot run.
check_number transport --rounds 1001
check_number scale --reps 65
check_number scale --targets 2k
check_number scale --max-cpus 32
check_number scale --seed 0
check_number soak --seed -3
check_number soak --round 0
check_number soak --watchdog-ms 1.5
check_number soak --hang-seconds ""
check_number sweep -t 0
check_msg "transport: no stepped mode" "--mode stepped has no meaning" transport --mode stepped
check_msg "transport: no policies" "takes no --policy" transport -p v6.0
check_msg "scale: stepped only" "--mode threads has no meaning" scale --mode threads
check_msg "scale: one policy" "-p latest: one policy only" scale -p v6.0 -p latest
check_msg "scale: unknown policy" "unknown profile 'nosuch'" scale -p nosuch
check_msg "scale: one mm" "--shape processes" scale --shape processes
check_msg "soak: threads only" "--mode virtual has no meaning" soak --mode virtual
check_msg "soak: a bad choice" "mm_tlb_gen_read" soak -p v6.0:mm_tlb_gen_read=sometimes
check_msg "versions: no options" "takes no --seed" versions --seed 1
check_msg "sweep: not a workload" "'lazy' is not a workload" sweep --emit -w lazy
check_msg "sweep: a bad mode" "'sometimes' is not one of" sweep --emit --mode sometimes
check_msg "sweep: no warm-up of its own" "takes no --warmup" sweep --emit --warmup 1
check_msg "merge: unknown option" "--no-such: is not an option" merge --no-such --out x y
check "--out without a directory" lazy --out
# Each names what was wrong: an empty policy, a negative number, a
# directory that is not there (not jansson's "(line -1)").
check_msg "an empty policy" "-p '': empty" lazy -p ''
check_msg "a policy without its profile" "no profile before ':'" lazy -p ':mm_tlb_gen_read=always'
check_msg "a negative number" "'-5' is negative" tlb_flush1 --ms -5
check_msg "compare: a missing directory" "/nonexistent-a: no such directory" \
	compare /nonexistent-a /nonexistent-b
if "$bench" compare /nonexistent-a /nonexistent-b 2>&1 | grep -qF "line -1"; then
	echo "FAIL: compare of a missing directory says 'line -1'"; fail=1
fi
exit $fail
