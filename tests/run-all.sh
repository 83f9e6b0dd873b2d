#!/usr/bin/env bash
# tests/run-all.sh - the whole test suite, as CI runs it (.ci/run -> ./run.sh test).
#
#   1. normal build (build):        every suite, explorer at >= 10^5 seeds x 200 ops;
#   2. ASan + UBSan (build-asan):   every suite, explorer at fewer seeds;
#   3. TSan (build-tsan):           the threaded suite;
#   4. libFuzzer (build-fuzz):      clang, the explorer's op language, FUZZ_RUNS executions;
#                                   the replay's trace.dat reader, REPLAY_FUZZ_RUNS executions.
# Any failing test or any sanitizer report fails the run. Prints the wall time.
# Environment: BUILD_PREFIX (default "build"), FUZZ_RUNS (default 1000000),
#              REPLAY_FUZZ_RUNS (default 120000),
#              SKIP="asan tsan fuzz" to leave stages out (local use only).
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$(date +%s)
P=${BUILD_PREFIX:-build}
FUZZ_RUNS=${FUZZ_RUNS:-1000000}
REPLAY_FUZZ_RUNS=${REPLAY_FUZZ_RUNS:-120000}
SKIP=${SKIP:-}
JOBS=2
status=0

stage_time() { echo "--- $1: $(( $(date +%s) - $2 )) s"; }

# Quiet when it works; on a failure, everything the command said.
quiet() {
	local log
	log=$(mktemp)
	if ! "$@" >"$log" 2>&1; then
		cat "$log" >&2
		rm -f "$log"
		echo "*** failed: $*" >&2
		return 1
	fi
	rm -f "$log"
}

# Sanitizer reports that must fail CI even if a test's exit status hid them
# (a should_fail test, a script that ignores its child's status).
SAN_PATTERN='ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:|WARNING: ThreadSanitizer|ThreadSanitizer: reported'

suite() { # name dir "meson test args" meson-setup-args...
	local name=$1 dir=$2 targs=$3 t=$(date +%s); shift 3
	echo "=== $name build ($dir)"
	[ -f "$dir/build.ninja" ] || quiet meson setup "$dir" "$@"
	quiet ninja -C "$dir"
	# shellcheck disable=SC2086
	if ! meson test -C "$dir" --print-errorlogs --num-processes $JOBS $targs; then
		echo "*** $name: test failures" >&2
		status=1
	fi
	if grep -Eq "$SAN_PATTERN" "$dir/meson-logs/testlog.txt"; then
		echo "*** $name: sanitizer report(s):" >&2
		grep -En "$SAN_PATTERN" "$dir/meson-logs/testlog.txt" | head -20 >&2
		status=1
	fi
	stage_time "$name" "$t"
}

skipped() { case " $SKIP " in *" $1 "*) return 0 ;; esac; return 1; }

suite normal "$P" ""

if ! skipped asan; then
	export ASAN_OPTIONS=halt_on_error=1:abort_on_error=1:detect_leaks=1:print_summary=1
	export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:print_summary=1
	TLBGEN_EXPLORE_SEEDS=10000 suite asan+ubsan "$P-asan" "--timeout-multiplier 4" \
		-Db_sanitize=address,undefined -Db_lundef=false
fi

if ! skipped tsan; then
	# The threaded tests carry their own TSAN_OPTIONS (suppressions file);
	# this default covers everything else.
	export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
	suite tsan "$P-tsan" "--suite threaded --timeout-multiplier 4" -Db_sanitize=thread -Db_lundef=false
fi

# fuzz NAME TARGET RUNS ARGS...: two libFuzzer processes (2 cores), RUNS
# executions in total on $d/corpus-NAME; crashes to $d/artifacts-NAME/.
fuzz() {
	local name=$1 target=$2 runs=$3 pids=() fz=0 a w; shift 3
	for w in 0 1; do
		ASAN_OPTIONS=halt_on_error=1:abort_on_error=1:detect_leaks=1 \
		UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		"$d/$target" -runs=$(( runs / 2 )) -seed=$(( w + 1 )) "$@" \
			-artifact_prefix="$d/artifacts-$name/" -print_final_stats=1 \
			"$d/corpus-$name" >"$d/fuzz-$name-$w.log" 2>&1 &
		pids+=($!)
	done
	for w in 0 1; do
		if wait "${pids[$w]}"; then
			grep -E "^stat::number_of_executed_units|^stat::average_exec_per_sec" \
				"$d/fuzz-$name-$w.log" | sed "s/^/$name worker $w: /" || true
		else
			fz=1
			echo "*** $name fuzzer worker $w failed; last lines of $d/fuzz-$name-$w.log:" >&2
			tail -40 "$d/fuzz-$name-$w.log" >&2
		fi
	done
	if [ $fz -ne 0 ] || [ -n "$(ls -A "$d/artifacts-$name")" ]; then
		for a in "$d/artifacts-$name"/*; do
			[ -e "$a" ] && echo "*** fuzzer reproducer: $a (replay: $d/$target $a)" >&2
		done
		status=1
	fi
}

if ! skipped fuzz; then
	t=$(date +%s)
	d="$P-fuzz"
	echo "=== libFuzzer ($d, clang, $FUZZ_RUNS + $REPLAY_FUZZ_RUNS executions)"
	if [ ! -f "$d/build.ninja" ]; then
		CC=clang quiet meson setup "$d" -Dfuzzing=true -Db_sanitize=address,undefined \
			-Db_lundef=false -Dc_args=-fsanitize=fuzzer-no-link
	fi
	quiet ninja -C "$d" tests/hardening/fuzz_explore tests/replay/fuzz_replay
	rm -rf "$d"/corpus-* "$d"/artifacts-*
	mkdir -p "$d/corpus-explore" "$d/artifacts-explore" "$d/corpus-replay" "$d/artifacts-replay"
	cp tests/hardening/corpus/* "$d/corpus-explore/"
	# The explorer's op language; new inputs go to the corpus.
	fuzz explore tests/hardening/fuzz_explore "$FUZZ_RUNS" -max_len=128
	stage_time "fuzz explore" "$t"
	# The replay's reader on the committed recordings' trace.dat files.
	t=$(date +%s)
	for f in tests/replay/*/trace.dat; do
		n=$(basename "$(dirname "$f")")
		cp "$f" "$d/corpus-replay/$n.dat"
		# Their pages uncompressed (trace-cmd file version 6, flyrecord's
		# per-CPU offset and size), 16 pages a seed.
		quiet trace-cmd convert -i "$f" -o "$d/v6-$n.dat" --file-version 6 --compression none
		python3 - "$d/v6-$n.dat" "$d/corpus-replay/pages-$n" <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
cpus = struct.unpack_from("<I", b, b.index(b"options  \0") - 4)[0]
p = b.index(b"flyrecord\0") + 10
for c in range(cpus):
    off, size = struct.unpack_from("<QQ", b, p + 16 * c)
    for k in range(0, size, 65536):
        open(f"{sys.argv[2]}-{c}-{k // 65536}", "wb").write(b[off + k:off + min(size, k + 65536)])
PY
		rm -f "$d/v6-$n.dat"
	done
	fuzz replay tests/replay/fuzz_replay "$REPLAY_FUZZ_RUNS" -max_len=262144
	stage_time "fuzz replay" "$t"
fi

echo "=== total wall time: $(( $(date +%s) - t0 )) s"
[ $status -eq 0 ] && echo "=== all green" || echo "=== FAILED" >&2
exit $status
