#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# readme-install.sh SRCDIR BUILDDIR - what a reader of README.md finds after
# the Quick start:
#  - the binaries README.md names under build/ are in the build directory
#    and run there: tlbgen-bench, and tlbgen-trace without an install
#    (tlbgen-trace with no arguments prints its usage, exit 2);
#  - README.md's install lines, run after the Quick start configured build/
#    (prefix /usr/local), configure the prefix the reader asked for, twice
#    with two prefixes, read back from meson's introspection; build/ keeps
#    its own. Nothing is built or installed: the configure lines only, on a
#    copy of the tracked tree.
set -eu
src=$(cd "$1" && pwd)
bld=$(cd "$2" && pwd)
fail=0
for t in meson tar; do
	command -v "$t" >/dev/null 2>&1 || { echo "SKIP: $t not found"; exit 77; }
done

for prog in tlbgen-bench tlbgen-trace; do
	if ! grep -qF "build/bench/$prog" "$src/README.md"; then
		echo "FAIL: README.md does not say where $prog is (build/bench/$prog)"; fail=1
	elif [ ! -x "$bld/bench/$prog" ]; then
		echo "FAIL: README.md names build/bench/$prog; the build has none"; fail=1
	else
		echo "ok: build/bench/$prog, as README.md says"
	fi
done
if [ -x "$bld/bench/tlbgen-trace" ]; then
	rc=0
	"$bld/bench/tlbgen-trace" >/dev/null 2>"$bld/readme-install.err" || rc=$?
	if [ $rc -eq 2 ] && grep -q "tlbgen-trace record -o DIR" "$bld/readme-install.err"; then
		echo "ok: build/bench/tlbgen-trace runs (usage, exit 2)"
	else
		echo "FAIL: build/bench/tlbgen-trace: exit $rc, no usage"; fail=1
	fi
	rm -f "$bld/readme-install.err"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
clone=$tmp/clone
. "$(dirname "$0")/clone-tree.sh"
clone_tree "$src" "$clone"
# README's install block up to its first ninja line: the configure commands;
# the directory is the one that line builds in.
awk '/<!-- embed-test:begin -->/ { on = 1; next }
     /<!-- embed-test:end -->/ { exit }
     on && /^ninja / { exit }
     on && !/^```/ { print }' "$src/README.md" >"$tmp/configure.sh"
dir=$(awk '/<!-- embed-test:begin -->/ { on = 1 } on && /^ninja -C / { print $3; exit }' \
	"$src/README.md")
[ -n "$dir" ] || { echo "FAIL: README.md's install block has no 'ninja -C DIR install'"; exit 1; }

prefix_of() {
	meson introspect "$clone/$1" --buildoptions |
		python3 -c 'import json, sys; print([o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"][0])'
}
# The Quick start: run.sh configures build/ with meson's defaults.
(cd "$clone" && meson setup build >/dev/null 2>&1) || { echo "FAIL: meson setup build"; exit 1; }
quick=$(prefix_of build)
for p in "$tmp/prefix-a" "$tmp/prefix-b"; do
	if ! (cd "$clone" && P=$p sh -eu "$tmp/configure.sh") >"$tmp/log" 2>&1; then
		cat "$tmp/log"; echo "FAIL: README.md's configure lines failed"; exit 1
	fi
	got=$(prefix_of "$dir")
	if [ "$got" = "$p" ]; then
		echo "ok: README.md's install lines after the Quick start: $dir/ prefix $p"
	else
		echo "FAIL: README.md's install lines after the Quick start: $dir/ prefix '$got', want $p"
		fail=1
	fi
done
if [ "$dir" != build ] && [ "$(prefix_of build)" != "$quick" ]; then
	echo "FAIL: the install lines changed build/'s prefix"; fail=1
fi
exit $fail
