#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# install-pkgconfig.sh SRCDIR BUILDDIR - `meson install` the build into a
# temporary DESTDIR, then build an external program with the compiler and
# flags from the installed tlbgen.pc (rpath to the installed library) and run
# it. Exit 77 (skip) when meson, pkg-config or cc is missing.
set -eu
src=$1
build=$2
MESON=${MESON:-meson}
PKG_CONFIG=${PKG_CONFIG:-pkg-config}
CC=${CC:-cc}
for t in "$MESON" "$PKG_CONFIG" "$CC"; do
	command -v "$t" >/dev/null 2>&1 || { echo "SKIP: $t not found"; exit 77; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/dest

"$MESON" install -C "$build" --no-rebuild --quiet --destdir "$dest" >"$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log"; echo "FAIL: meson install"; exit 1; }
pc=$(find "$dest" -name tlbgen.pc | head -n 1)
[ -n "$pc" ] || { echo "FAIL: no tlbgen.pc installed"; exit 1; }

# The .pc names the final prefix; PKG_CONFIG_SYSROOT_DIR maps it into DESTDIR.
export PKG_CONFIG_PATH="$(dirname "$pc")" PKG_CONFIG_SYSROOT_DIR="$dest"
cflags=$("$PKG_CONFIG" --cflags tlbgen)
libs=$("$PKG_CONFIG" --libs tlbgen)
libdir=$("$PKG_CONFIG" --variable=libdir tlbgen)
case $libdir in "$dest"/*) ;; *) libdir=$dest$libdir ;; esac	# pkgconf adds the sysroot, pkg-config not
echo "pkg-config: version $("$PKG_CONFIG" --modversion tlbgen), cflags '$cflags', libs '$libs'"
[ -f "$libdir/libtlbgen.so.0" ] || { echo "FAIL: no libtlbgen.so.0 in $libdir"; exit 1; }
[ -n "$(find "$dest" -path '*/include/tlbgen/tlbgen.h')" ] || { echo "FAIL: headers not installed"; exit 1; }
# tlbgen-bench's man page (built where help2man is: run.sh installs it).
if command -v help2man >/dev/null 2>&1; then
	man1=$(find "$dest" -path '*/man1/tlbgen-bench.1' | head -n 1)
	[ -n "$man1" ] && grep -q '^\.TH TLBGEN-BENCH' "$man1" && grep -q 'compare' "$man1" &&
		grep -q 'meta\.json' "$man1" || { echo "FAIL: no tlbgen-bench.1 man page installed"; exit 1; }
	echo "man page: ${man1#"$dest"}"
fi

# Built outside the source tree, from installed files only.
cp "$src/tests/embed/subproject-consumer/consumer.c" "$tmp/consumer.c"
# shellcheck disable=SC2086 # flags are word lists
"$CC" -std=gnu11 -Wall -Wextra -Werror $cflags -o "$tmp/consumer" "$tmp/consumer.c" $libs \
	-Wl,-rpath,"$libdir"
# It must load the installed copy, not the build tree's (meson test points
# LD_LIBRARY_PATH at the build tree).
unset LD_LIBRARY_PATH
if command -v ldd >/dev/null 2>&1; then
	ldd "$tmp/consumer" | grep -q "$dest" || { ldd "$tmp/consumer"; echo "FAIL: not linked to the installed library"; exit 1; }
fi
"$tmp/consumer"
