#!/bin/sh
# tests/structure/run-fixture.sh - run check-lib.py on one fixture tree.
#
#   run-fixture.sh FIXTURE EXPECTED_RC [EXPECTED_SUBSTRING...]
#
# FIXTURE is a directory holding a fake lib/ tree (FIXTURE/lib). Passes when
# the checker exits with EXPECTED_RC and its output contains every
# EXPECTED_SUBSTRING; a substring written as !TEXT must NOT appear.
# $PYTHON names the interpreter (default python3); $CHECKER the checker
# (default check-lib.py beside this script).
set -u
if [ $# -lt 2 ]; then
	echo "usage: $0 FIXTURE EXPECTED_RC [EXPECTED_SUBSTRING...]" >&2
	exit 2
fi
fixture=$1
expected_rc=$2
shift 2
checker=${CHECKER:-$(dirname "$0")/check-lib.py}

out=$("${PYTHON:-python3}" "$checker" "$fixture/lib" 2>&1)
rc=$?
printf '%s\n' "$out"

status=0
if [ "$rc" -ne "$expected_rc" ]; then
	echo "FAIL: exit status $rc, expected $expected_rc"
	status=1
fi
for want in "$@"; do
	case $want in
	!*)
		if printf '%s\n' "$out" | grep -qF -- "${want#!}"; then
			echo "FAIL: output contains '${want#!}'"
			status=1
		fi
		;;
	*)
		if ! printf '%s\n' "$out" | grep -qF -- "$want"; then
			echo "FAIL: output lacks '$want'"
			status=1
		fi
		;;
	esac
done
exit $status
