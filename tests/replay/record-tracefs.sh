#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# tlbgen-trace leaves tracefs as it found it: tracing_on, each CPU's
# buffer_size_kb, trace_clock, options/record-tgid and the events enabled,
# after a recording, after an interrupt and after an error; lost events
# exit 3 naming the -b to use; the usage text carries no licence header.
# Skipped (exit 77, with the reason) where tracefs is not writable here.
# usage: record-tracefs.sh TLBGEN-TRACE
set -u
trace=$1
T=/sys/kernel/tracing
skip() { echo "SKIP: $*"; exit 77; }
fail=0
no() { echo "FAIL: $*"; fail=1; }

"$trace" >/dev/null 2>"${TMPDIR:-/tmp}/tlbgen-usage.$$"
rc=$?
[ $rc -eq 2 ] || no "no arguments: exit $rc, want 2"
grep -q 'tlbgen-trace record -o DIR' "${TMPDIR:-/tmp}/tlbgen-usage.$$" || no "no usage text"
grep -qi 'SPDX\|licen[cs]e\|LGPL' "${TMPDIR:-/tmp}/tlbgen-usage.$$" && no "the usage text has a licence header"
rm -f "${TMPDIR:-/tmp}/tlbgen-usage.$$"

[ "$(id -u)" -eq 0 ] || skip "not root: tracefs needs root"
command -v trace-cmd >/dev/null || skip "no trace-cmd (Debian package trace-cmd)"
[ -e $T/events ] || skip "no tracefs at $T"
tgid=$(cat $T/options/record-tgid 2>/dev/null)
[ -w $T/tracing_on ] && echo "$tgid" 2>/dev/null > $T/options/record-tgid || skip "tracefs at $T is not writable"
[ -z "$(grep -v '^#' $T/set_event 2>/dev/null)" ] || skip "tracefs is in use by another recording"
[ "$(cat $T/tracing_on)" = 0 ] || skip "tracing is on: another recording"
tmp=$(mktemp -d)

# tracefs as this test found it, put back at its end whatever happens.
state() {
	echo "tracing_on $(cat $T/tracing_on)"
	for c in $T/per_cpu/cpu*; do echo "${c##*/} $(cat "$c/buffer_size_kb")"; done
	echo "clock $(cat $T/trace_clock)"
	echo "record-tgid $(cat $T/options/record-tgid)"
	echo "events $(grep -v '^#' $T/set_event | sort | tr '\n' ' ')"
}
orig_kb=$(sed 's/.*expanded: \([0-9]*\).*/\1/' $T/buffer_size_kb)
orig_clock=$(sed -n 's/.*\[\(.*\)\].*/\1/p' $T/trace_clock)
orig_tgid=$(cat $T/options/record-tgid)
trap 'echo 0 > $T/tracing_on; echo > $T/set_event; echo "$orig_kb" > $T/buffer_size_kb
      echo "$orig_clock" > $T/trace_clock; echo "$orig_tgid" > $T/options/record-tgid
      rm -rf "$tmp"' EXIT
# A state of our own, unlike what tlbgen-trace sets: 1234 KiB on CPU 0 and
# 1240 on the others, the local clock, no tgids, one unrelated event on.
echo 1240 > $T/buffer_size_kb
echo 1236 > $T/per_cpu/cpu0/buffer_size_kb
echo local > $T/trace_clock
echo 0 > $T/options/record-tgid
echo 1 > $T/events/irq/irq_handler_entry/enable 2>/dev/null || :
before=$(state)

"$trace" record -s -b 4096 -o "$tmp/ok" -- true 2>"$tmp/log"
rc=$?
[ $rc -eq 0 ] || no "a recording: exit $rc: $(cat "$tmp/log")"
[ -s "$tmp/ok/trace.dat" ] || no "a recording wrote no trace.dat"
[ "$(state)" = "$before" ] || no "after a recording, tracefs is $(state | tr '\n' ';') not $(echo "$before" | tr '\n' ';')"

# Interrupted while the command runs (SIGTERM to the recorder).
"$trace" record -s -b 4096 -o "$tmp/int" -- sh -c 'kill -TERM $PPID; sleep 0.2' 2>"$tmp/log"
rc=$?
[ $rc -ne 0 ] || no "an interrupted recording: exit 0"
[ "$(state)" = "$before" ] || no "after an interrupt, tracefs is $(state | tr '\n' ';')"

# An error after tracefs was changed: trace-cmd extract cannot write
# (the command made a directory where trace.dat goes).
mkdir -p "$tmp/ro"
"$trace" record -s -b 4096 -o "$tmp/ro" -- mkdir "$tmp/ro/trace.dat" 2>"$tmp/log"
rc=$?
[ $rc -eq 2 ] || no "extract into a directory named trace.dat: exit $rc, want 2 ($(tail -1 "$tmp/log"))"
[ "$(state)" = "$before" ] || no "after an error, tracefs is $(state | tr '\n' ';')"

# Lost events: 8 KiB a CPU for thousands of switches.
"$trace" record -s -b 8 -o "$tmp/lost" -- sh -c 'i=0; while [ $i -lt 3000 ]; do /bin/true; i=$((i + 1)); done' \
	2>"$tmp/log"
rc=$?
[ $rc -eq 3 ] || no "lost events: exit $rc, want 3 ($(tail -2 "$tmp/log"))"
grep -q 'lost [0-9]* events' "$tmp/log" || no "lost events: not said ($(cat "$tmp/log"))"
grep -q 'record again with -b [0-9]*' "$tmp/log" || no "lost events: no -b named"
b=$(sed -n 's/.*record again with -b \([0-9]*\).*/\1/p' "$tmp/log")
[ "${b:-0}" -gt 8 ] || no "lost events: -b ${b:-none} is not bigger than 8"
[ "$(state)" = "$before" ] || no "after lost events, tracefs is $(state | tr '\n' ';')"
[ $fail -eq 0 ] && echo "tlbgen-trace leaves tracefs as it found it: ok"
exit $fail
