#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# embedding.sh SRCDIR - docs/embedding.md's instructions, verbatim: copy the
# tracked tree to a temporary directory (a clean clone, working-tree contents),
# run the doc's `embed-test` blocks there with P a temporary prefix, then check
# that the examples were built from the install alone and load the installed
# library. Exit 77 (skip) when a tool the doc uses is missing.
set -eu
src=$(cd "$1" && pwd)
doc=$src/docs/embedding.md
for t in meson ninja pkg-config cc tar; do
	command -v "$t" >/dev/null 2>&1 || { echo "SKIP: $t not found"; exit 77; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
clone=$tmp/clone
. "$(dirname "$0")/clone-tree.sh"
clone_tree "$src" "$clone"

# The blocks between <!-- embed-test:begin --> and <!-- embed-test:end -->,
# without their ``` fences, as one script.
awk '/<!-- embed-test:begin -->/ { on = 1; next }
     /<!-- embed-test:end -->/ { on = 0; n++; next }
     on && !/^```/ { print }
     END { if (n < 1) exit 1 }' "$doc" >"$tmp/doc.sh" ||
	{ echo "FAIL: no embed-test block in $doc"; exit 1; }
grep -q 'meson setup' "$tmp/doc.sh" && grep -q 'PKG_CONFIG_PATH' "$tmp/doc.sh" ||
	{ cat "$tmp/doc.sh"; echo "FAIL: the embed-test blocks lost the install or pkg-config step"; exit 1; }

# README.md's short version, between the same markers, is the doc's
# commands abridged: each of its lines, in order, is one of them.
grep -q '<!-- embed-test:begin -->' "$src/README.md" ||
	{ echo "FAIL: README.md has no embed-test block (its install instructions)"; exit 1; }
if true; then
	extract() {
		awk '/<!-- embed-test:begin -->/ { on = 1; next }
		     /<!-- embed-test:end -->/ { on = 0; next }
		     on && !/^```/ && !/^[ \t]*(#|$)/ { print }' "$1"
	}
	extract "$src/README.md" >"$tmp/readme.cmds"
	extract "$doc" >"$tmp/doc.cmds"
	awk 'NR == FNR { want[++n] = $0; next }
	     i < n && $0 == want[i + 1] { i++ }
	     END { if (i < n) { print "FAIL: README.md line not in docs/embedding.md (in order): " want[i + 1]; exit 1 } }' \
		"$tmp/readme.cmds" "$tmp/doc.cmds" || exit 1
	echo "README.md: $(grep -c . "$tmp/readme.cmds") command lines, all from docs/embedding.md"
fi

# meson test points LD_LIBRARY_PATH at the outer build and may set PKG_CONFIG_PATH:
# the doc's commands must work without either.
unset LD_LIBRARY_PATH PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR
P=$tmp/prefix
export P
if ! (cd "$clone" && sh -eu "$tmp/doc.sh") >"$tmp/log" 2>&1; then
	tail -n 60 "$tmp/log"
	echo "FAIL: the commands of docs/embedding.md failed (above)"
	exit 1
fi
echo "docs/embedding.md: $(grep -c . "$tmp/doc.sh") command lines ran"

pc=$(find "$P" -name tlbgen.pc)
[ -n "$pc" ] || { echo "FAIL: no tlbgen.pc under the prefix"; exit 1; }
echo "tlbgen.pc: ${pc#"$P"/}"
ex=$clone/examples
for prog in simulator port_patch port_patch_plugin.so; do
	[ -f "$ex/$prog" ] || { echo "FAIL: examples/$prog not built"; exit 1; }
	# Linked to the prefix's libtlbgen, not the clone's build directory.
	if command -v ldd >/dev/null 2>&1; then
		lib=$(ldd "$ex/$prog" | awk '/libtlbgen/ { print $3 }')
		case $lib in
		"$P"/*) ;;
		*) ldd "$ex/$prog"; echo "FAIL: $prog loads libtlbgen from '$lib', not from $P"; exit 1 ;;
		esac
	fi
done
# The examples' headers are their own: none of them may come from the tree's include/.
for obj in simulator port_patch; do
	(cd "$ex" && cc -M $(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --cflags tlbgen) "$obj.c") |
		tr ' \\' '\n\n' | grep -q "^$clone/include/" &&
		{ echo "FAIL: $obj.c includes a header from the source tree's include/"; exit 1; }
done
echo "examples built against $P and ran"
