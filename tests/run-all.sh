#!/usr/bin/env bash
# tests/run-all.sh - the whole test suite, as CI runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$(date +%s)

suite() { # name dir meson-args...
	local name=$1 dir=$2; shift 2
	echo "=== $name build ($dir)"
	[ -f "$dir/build.ninja" ] || meson setup "$dir" "$@" >/dev/null
	ninja -C "$dir" >/dev/null
	meson test -C "$dir" --print-errorlogs --num-processes 2
}

suite normal build

echo "=== total wall time: $(( $(date +%s) - t0 )) s"
