#!/bin/sh
# Runs that share a working directory: one that keeps nothing removes the
# tlbgen-results/ it made (bench/driver/results.c), and may do so between another
# run's mkdir of that root and of its own directory inside it. Each kept run
# must still get its directory: 40 rounds, each in a new empty directory,
# of 6 runs refused after the root was made (validate --row of no row) and
# 2 kept ones (seed004), all started at once.
bench=$(realpath "$1") || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0 kept=0
for round in $(seq 1 40); do
	mkdir "$tmp/$round" && cd "$tmp/$round" || exit 1
	for i in 1 2 3 4 5 6; do
		"$bench" validate --row no-such-row >/dev/null 2>&1 &
	done
	"$bench" seed004 >/dev/null 2>err.1 &
	"$bench" seed004 >/dev/null 2>err.2 &
	wait
	for i in 1 2; do
		if grep -q "cannot create" "err.$i"; then
			echo "FAIL: round $round: $(head -n 1 "err.$i")"
			fail=1
		fi
	done
	kept=$((kept + $(ls -d tlbgen-results/seed004-* 2>/dev/null | wc -l)))
done
# Two kept runs in the same second may share a stamp: the second gets -2.
[ "$kept" -eq 80 ] || { echo "FAIL: $kept of 80 kept runs left a results directory"; fail=1; }
[ $fail -eq 0 ] && echo "ok: 80 kept runs beside 240 refused ones, every directory made"
exit $fail
