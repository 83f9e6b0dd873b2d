#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# subproject.sh SRCDIR - configure, build and test the tiny project in
# tests/embed/subproject-consumer with libtlbgen as a Meson subproject
# (subprojects/tlbgen -> SRCDIR), in a temporary directory.
# Exit 77 (skip) when meson or ninja is missing.
set -eu
src=$(cd "$1" && pwd)
MESON=${MESON:-meson}
NINJA=${NINJA:-ninja}
for t in "$MESON" "$NINJA"; do
	command -v "$t" >/dev/null 2>&1 || { echo "SKIP: $t not found"; exit 77; }
done
# meson test points LD_LIBRARY_PATH at the outer build; the consumer must
# load the subproject's own build of the library.
unset LD_LIBRARY_PATH
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
proj=$tmp/consumer
mkdir -p "$proj/subprojects"
cp "$src/tests/embed/subproject-consumer/meson.build" "$src/tests/embed/subproject-consumer/consumer.c" "$proj/"
ln -s "$src" "$proj/subprojects/tlbgen"

run() { # quiet unless it fails
	"$@" >"$tmp/log" 2>&1 || { cat "$tmp/log"; echo "FAIL: $*"; exit 1; }
}
# --force-fallback-for: use the subproject even if a tlbgen is installed.
run "$MESON" setup --force-fallback-for=tlbgen "$proj/build" "$proj"
grep -q "Subproject tlbgen finished" "$tmp/log" ||
	{ cat "$tmp/log"; echo "FAIL: tlbgen was not configured as a subproject"; exit 1; }
run "$NINJA" -C "$proj/build" consumer
run "$MESON" test -C "$proj/build" --no-rebuild consumer
"$proj/build/consumer"
