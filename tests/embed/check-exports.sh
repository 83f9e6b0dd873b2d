#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# check-exports.sh LIB INCLUDEDIR - the shared library exports exactly the
# documented public API: every dynamic symbol it defines is a function
# declared TLBGEN_API in INCLUDEDIR/tlbgen/*.h whose doc comment (the comment
# block right above the declaration or its group) names it, and every such
# declaration is exported. Exit 77 (skip) when nm is missing.
set -u
lib=$1
incdir=$2/tlbgen
NM=${NM:-nm}
command -v "$NM" >/dev/null 2>&1 || { echo "SKIP: no $NM"; exit 77; }
[ -f "$lib" ] || { echo "FAIL: no library $lib"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# Defined dynamic symbols, version suffix stripped. The version node itself
# (an absolute symbol named after the map's node, e.g. TLBGEN_0.1) is not API.
"$NM" -D --defined-only "$lib" | awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }' |
	sort -u >"$tmp/exported"
[ -s "$tmp/exported" ] || { echo "FAIL: $NM found no dynamic symbols in $lib"; exit 1; }

# Declared (and documented) API, one "name<TAB>header<TAB>documented" a line.
for h in "$incdir"/*.h; do
	awk -v hdr="$(basename "$h")" '
	function flush_decl(   s, name) {
		s = decl
		sub(/\(.*/, "", s)              # up to the parameter list
		gsub(/[^A-Za-z0-9_]+/, " ", s)
		n = split(s, w, " ")
		name = w[n]
		print name "\t" hdr "\t" (index(doc, name) ? "yes" : "no")
		decl = ""; indecl = 0
	}
	{
		line = $0
		if (incomment) {
			doc = doc " " line
			if (line ~ /\*\//) incomment = 0
			next
		}
		if (indecl) {
			decl = decl " " line
			if (line ~ /;/) flush_decl()
			next
		}
		if (line ~ /^[ \t]*\/\*/) {     # a comment block starts: new doc text
			doc = line
			if (line !~ /\*\//) incomment = 1
			next
		}
		if (line ~ /TLBGEN_API/ && line !~ /^#/) {
			decl = line; indecl = 1
			if (line ~ /;/) flush_decl()
			next
		}
		if (line ~ /^[ \t]*$/) next
		doc = ""                        # other code ends a doc block
	}' "$h"
done | sort -u >"$tmp/declared"

cut -f1 "$tmp/declared" | sort -u >"$tmp/declared_names"
status=0
bad=$(grep -v '^tlbgen_' "$tmp/exported")
if [ -n "$bad" ]; then
	echo "FAIL: exported symbols outside the tlbgen_ namespace:"; echo "$bad" | sed 's/^/  /'
	status=1
fi
undeclared=$(comm -23 "$tmp/exported" "$tmp/declared_names")
if [ -n "$undeclared" ]; then
	echo "FAIL: exported but not declared TLBGEN_API in a public header:"
	echo "$undeclared" | sed 's/^/  /'
	status=1
fi
missing=$(comm -13 "$tmp/exported" "$tmp/declared_names")
if [ -n "$missing" ]; then
	echo "FAIL: declared TLBGEN_API but not exported by $lib:"; echo "$missing" | sed 's/^/  /'
	status=1
fi
undoc=$(awk -F'\t' '$3 == "no" { print $1 " (" $2 ")" }' "$tmp/declared")
if [ -n "$undoc" ]; then
	echo "FAIL: public functions whose doc comment does not name them:"
	echo "$undoc" | sed 's/^/  /'
	status=1
fi
# soname and version: libtlbgen.so.MAJOR -> libtlbgen.so.MAJOR.MINOR.PATCH of version.h.
ver=$(awk '/#define TLBGEN_VERSION_(MAJOR|MINOR|PATCH) / { v = v (v == "" ? "" : ".") $3 } END { print v }' \
	"$incdir/version.h")
major=${ver%%.*}
if command -v readelf >/dev/null 2>&1; then
	soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
	if [ "$soname" != "libtlbgen.so.$major" ]; then
		echo "FAIL: SONAME '$soname', expected libtlbgen.so.$major"; status=1
	fi
fi
real=$(basename "$(readlink -f "$lib")")
if [ "$real" != "libtlbgen.so.$ver" ]; then
	echo "FAIL: library file $real, expected libtlbgen.so.$ver (version.h)"; status=1
fi
# The version script names every symbol (no wildcard in a global: list).
map=$(dirname "$0")/../../lib/libtlbgen.map
grep -Eo '^[[:space:]]*tlbgen_[A-Za-z0-9_]+;' "$map" |
	tr -d ' \t;' | sort -u >"$tmp/mapped"
# The only wildcard is the one of "local: *;".
if [ "$(grep -c '^[[:space:]]*\*;' "$map")" != "$(grep -c 'local:' "$map")" ]; then
	echo "FAIL: $map has a wildcard among its global symbols"; status=1
fi
if ! cmp -s "$tmp/mapped" "$tmp/exported"; then
	echo "FAIL: $map and the exported symbols differ:"
	diff "$tmp/mapped" "$tmp/exported" | sed 's/^/  /'
	status=1
fi
echo "soname: ${soname:-?}, file: $real, version.h: $ver"
echo "exported: $(wc -l <"$tmp/exported") symbols, declared: $(wc -l <"$tmp/declared_names")"
[ $status -eq 0 ] && echo "OK: nm -D shows only the documented API"
exit $status
