#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# tlbgen-bench's command line: output paths checked before the run, write
# errors reported in the exit status, options with no workload, any plot
# name, '-' as stdout, --version, the default results
# directory under the caller's directory and none after --help or bad args.
# usage: cli.sh TLBGEN-BENCH PLUGIN.so
abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
bench=$(abs "$1") plugin=$(abs "$2")
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail=0
no() { echo "FAIL: $*"; fail=1; }
quick="-t 1 -r 1 -d 20 -s 10 -q --no-mesi --no-acct"

# --version: one line, the version and git describe.
v=$("$bench" --version) || no "--version: exit $?"
case $v in "tlbgen-bench "[0-9]*" (git "*")") echo "ok: $v" ;; *) no "--version printed '$v'" ;; esac

# An output path that cannot be written fails before the run, exit 2,
# one line naming the option; a write that fails after the run exits 1.
for opt in --json --csv --svg; do
	"$bench" --no-out tlb_flush1 $quick "$opt" "$tmp/no/such/dir/x" >out 2>err
	rc=$?
	first=$(head -n 1 err)
	if [ $rc -ne 2 ] || [ -s out ]; then
		no "tlb_flush1 $opt into a missing directory: exit $rc (want 2), stdout $(wc -c <out) bytes"
	else
		case $first in *"$opt"*"$tmp/no/such/dir/x"*) echo "ok: $opt checked first: $first" ;;
		*) no "$opt: first stderr line does not name option and path: $first" ;; esac
	fi
done
"$bench" --no-out lazy -f 50 --json "$tmp/no/such/dir/x" >out 2>err
[ $? -eq 2 ] && [ ! -s out ] || no "lazy --json into a missing directory: want exit 2 before the run"
if [ -w /dev/full ]; then
	"$bench" --no-out lazy -f 50 --json /dev/full >out 2>err
	rc=$?
	[ $rc -eq 1 ] && echo "ok: lazy --json /dev/full -> 1" || no "lazy --json /dev/full: exit $rc, want 1"
	"$bench" --no-out tlb_flush1 $quick -p v6.0 --csv /dev/full >out 2>err
	rc=$?
	[ $rc -eq 1 ] && echo "ok: tlb_flush1 --csv /dev/full -> 1" ||
		no "tlb_flush1 --csv /dev/full: exit $rc, want 1"
fi
: >"$tmp/plainfile"
"$bench" --out "$tmp/plainfile" lazy -f 50 >/dev/null 2>err
[ $? -eq 2 ] || no "--out onto a file: want exit 2"

# A results directory is never written over: the second run into it is
# refused before it measures, and the first run's files stay as they were.
"$bench" --out "$tmp/twice" lazy -f 50 >/dev/null 2>err || no "--out twice: first run: exit $?"
before=$(cd "$tmp/twice" && ls | sort && cat results.json meta.json | md5sum)
"$bench" --out "$tmp/twice" tlb_flush1 --mode stepped --ops 100 -t 2 >/dev/null 2>err
rc=$?
after=$(cd "$tmp/twice" && ls | sort && cat results.json meta.json | md5sum)
if [ $rc -eq 2 ] && [ "$before" = "$after" ] && grep -q "not empty" err; then
	echo "ok: --out onto a directory holding a run's results: refused, exit 2, nothing touched"
else
	no "--out twice: exit $rc (want 2), directory changed: $([ "$before" = "$after" ] && echo no || echo yes)"
fi
mkdir "$tmp/empty"
"$bench" --out "$tmp/empty" lazy --help >/dev/null 2>&1
[ -d "$tmp/empty" ] || no "--out onto an empty directory of the user's, --help: the directory was removed"
"$bench" --out "$tmp/empty" lazy -f 50 >/dev/null 2>err && [ -f "$tmp/empty/results.json" ] ||
	no "--out onto an empty directory: no results.json"

# Global options, then workload options without a workload: the default;
# and --plugin after the command as well.
for order in before after; do
	if [ $order = before ]; then
		set -- --out "$tmp/plug-$order" --plugin "$plugin" -p v5.17 -p port-8f1d56f64f8d $quick --no-plot
	else
		set -- --out "$tmp/plug-$order" tlb_flush1 -p v5.17 -p port-8f1d56f64f8d --plugin "$plugin" $quick --no-plot
	fi
	"$bench" "$@" >out 2>err
	rc=$?
	if [ $rc -ne 0 ] || ! python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))["metrics"]; assert any(x["name"]=="ops_per_sec" and x["params"]["policy"]=="port-8f1d56f64f8d" for x in m)' "$tmp/plug-$order/results.json"; then
		no "--plugin PATH ($order the command) -p port-8f1d56f64f8d: exit $rc"; head -3 err
	else
		echo "ok: --plugin PATH $order the command runs its policy"
	fi
done
# A plugin loaded twice: its policy is already registered; said in words.
"$bench" --no-out --plugin "$plugin" --plugin "$plugin" versions >out 2>err
rc=$?
[ $rc -eq 2 ] && grep -q "already" err && ! grep -q -- "-17" err &&
	echo "ok: a plugin loaded twice: $(head -n 1 err)" || { no "a plugin loaded twice: exit $rc"; cat err; }

# A plot name with quotes, a backslash and spaces is written as given.
if command -v gnuplot >/dev/null 2>&1; then
	name="$tmp/it's a \"plot\" \\ name.svg"
	"$bench" --no-out tlb_flush1 $quick -p v5.17 -p v6.0 --svg "$name" >out 2>err
	rc=$?
	if [ $rc -ne 0 ] || ! grep -q "<svg" "$name" 2>/dev/null; then
		no "--svg with quotes: exit $rc, file: $(ls "$tmp")"; cat err
	else
		echo "ok: plot written under a name with quotes and a backslash"
	fi
fi

# '-' is stdout, and no file named '-' appears; --json - writes only JSON
# there (the text report goes to stderr).
"$bench" --no-out lazy -f 50 --json - >out 2>err || no "lazy --json -: exit $?"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["schema"]=="tlbgen-bench-results"' out ||
	no "lazy --json - did not print results.json on stdout"
"$bench" --no-out tlb_flush1 --mode stepped --ops 100 -t 2 --json - >out 2>err ||
	no "tlb_flush1 --json -: exit $?"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert any(m["name"]=="flushes_per_op" for m in d["metrics"])' out &&
	[ -s err ] && ! python3 -m json.tool err >/dev/null 2>&1 &&
	echo "ok: --json - prints JSON alone, the table on stderr" || no "tlb_flush1 --json -: stdout is not JSON alone"
"$bench" --no-out tlb_flush1 $quick --csv - >out 2>err || no "tlb_flush1 --csv -: exit $?"
[ "$(grep -c '^tasks,processes,processes_idle,threads,threads_idle,linear$' out)" -ge 3 ] ||
	no "tlb_flush1 --csv - did not print the CSV on stdout"
[ -e "$tmp/-" ] && no "a file named '-' was created"

# The default results directory: under the caller's directory; none after
# --help or bad arguments.
"$bench" lazy -f 50 >out 2>err || no "lazy: exit $?"
set -- "$tmp"/tlbgen-results/lazy-*/results.json
[ -f "$1" ] && echo "ok: default results directory ${1%/results.json}" ||
	no "no tlbgen-results/lazy-*/results.json under the caller's directory"
rm -rf "$tmp/tlbgen-results"
"$bench" lazy --help >/dev/null 2>&1
"$bench" lazy --flushes 1x >/dev/null 2>&1
"$bench" tlb_flush1 --rounds 0 >/dev/null 2>&1
[ -e "$tmp/tlbgen-results" ] && no "--help or bad arguments left $(ls -R "$tmp/tlbgen-results")"

# A bad value: one line naming the option, not the whole usage.
"$bench" tlb_flush1 --rounds 3x >out 2>err
[ $? -eq 2 ] && [ "$(wc -l <err)" -le 2 ] && grep -q -- "--rounds.*'3x'" err &&
	echo "ok: bad value: $(head -n 1 err)" || { no "bad value: want 2 short lines"; cat err; }
# A bad value for a known choice: that choice's values, not every choice's.
"$bench" --no-out tlb_flush1 -p v6.0:ipi_cond=bogus --mode stepped --ops 10 -t 2 >out 2>err
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <err)" -le 2 ] && grep -q "ipi_cond.*'bogus'" err &&
	grep -q "tlb_is_not_lazy|should_flush_tlb" err && ! grep -q "early_return" err &&
	echo "ok: bad choice value: $(head -c 100 err)" || { no "bad choice value: exit $rc"; cat err; }
# An unknown choice name: the valid names are every choice.
"$bench" --no-out tlb_flush1 -p v6.0:no_such_choice=1 --mode stepped --ops 10 -t 2 >out 2>err
rc=$?
[ $rc -eq 2 ] && grep -q "unknown choice 'no_such_choice'" err && grep -q "early_return" err &&
	echo "ok: unknown choice lists the choices" || { no "unknown choice: exit $rc"; cat err; }
# Threaded timings on a host with fewer CPUs than tasks, or under a
# hypervisor, are recorded as not meaningful, with why (the headline's
# note prints from this record).
over=$(( $(nproc) + 1 ))
for t in 1 $over; do
	"$bench" --out "$tmp/timings-$t" tlb_flush1 -t $t -r 1 -d 20 -s 10 -q --no-mesi --no-acct \
		--no-plot >/dev/null 2>&1 || no "tlb_flush1 -t $t: exit $?"
done
python3 - "$tmp/timings-1/meta.json" "$tmp/timings-$over/meta.json" <<'PY' || fail=1
import json, sys
one, over = (json.load(open(f)) for f in sys.argv[1:])
hv = one["host"]["hypervisor"]
t1, to = one["params"]["threaded_timings"], over["params"]["threaded_timings"]
ok = (t1["meaningful"] == (not hv) and t1["hypervisor"] == hv and
      not to["meaningful"] and to["why"] == "more tasks than CPUs")
print(("ok" if ok else "FAIL") + f": threaded timings meaningful: 1 task {t1['meaningful']} "
      f"(hypervisor {hv}), {to['tasks_max']} tasks on {to['cpus']} CPUs {to['meaningful']}")
sys.exit(0 if ok else 1)
PY
exit $fail
