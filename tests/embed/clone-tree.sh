# SPDX-License-Identifier: LGPL-2.1-or-later
# clone_tree SRC DST - the tree at SRC copied into DST as a clean clone
# would have it: git's tracked files with their working-tree contents (a
# file the tree needs but git does not know is missing there), or, outside
# a git checkout, everything but the build directories. Sourced by the
# tests that run the docs' commands on a copy.
clone_tree() {
	mkdir -p "$2"
	if git -C "$1" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		(cd "$1" && git ls-files -z | tar --null -T - -cf -) | tar -xf - -C "$2"
	else
		(cd "$1" && tar --exclude='./build*' -cf - .) | tar -xf - -C "$2"
	fi
}
