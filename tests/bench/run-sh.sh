#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# run.sh shows why a build failed, not only its exit status, and runs the bench in the caller's directory, so that relative output paths
# land there and not in the source tree. run.sh is copied into small Meson
# projects of our own: one that fails to configure, one whose code does not
# compile, one whose "tlbgen-bench" creates the file it is given.
# usage: run-sh.sh SOURCE-ROOT
src=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
# Every package counts as installed: this test is about building and running.
mkdir "$tmp/bin"
printf '#!/bin/sh\necho "install ok installed"\n' >"$tmp/bin/dpkg-query"
chmod +x "$tmp/bin/dpkg-query"
PATH="$tmp/bin:$PATH"
export PATH
unset TLBGEN_BUILD_DIR

tree() { # name: a project directory with run.sh
	mkdir -p "$tmp/$1/bench"
	cp "$src/run.sh" "$tmp/$1/"
}

tree broken-setup
printf "project('broken', 'c')\nerror('deliberately broken configuration')\n" \
	>"$tmp/broken-setup/meson.build"
(cd "$tmp" && ./broken-setup/run.sh bench >"$tmp/out1" 2>&1)
rc=$?
if [ $rc -eq 0 ] || ! grep -q "deliberately broken configuration" "$tmp/out1"; then
	echo "FAIL: a configuration error: exit $rc, output:"; cat "$tmp/out1"; fail=1
else
	echo "ok: configuration error shown (exit $rc)"
fi

tree broken-code
printf "project('broken', 'c')\nsubdir('bench')\n" >"$tmp/broken-code/meson.build"
printf "executable('tlbgen-bench', 'b.c')\n" >"$tmp/broken-code/bench/meson.build"
printf "int main(void) { return undeclared_on_purpose; }\n" >"$tmp/broken-code/bench/b.c"
(cd "$tmp" && ./broken-code/run.sh bench >"$tmp/out2" 2>&1)
rc=$?
if [ $rc -eq 0 ] || ! grep -q "undeclared_on_purpose" "$tmp/out2"; then
	echo "FAIL: a compile error: exit $rc, output:"; cat "$tmp/out2"; fail=1
else
	echo "ok: compile error shown (exit $rc)"
fi

tree works
printf "project('works', 'c')\nsubdir('bench')\n" >"$tmp/works/meson.build"
printf "executable('tlbgen-bench', 'b.c')\n" >"$tmp/works/bench/meson.build"
cat >"$tmp/works/bench/b.c" <<'C'
#include <stdio.h>
int main(int argc, char **argv)
{
	FILE *f = argc > 1 ? fopen(argv[1], "w") : NULL;

	return f && fclose(f) == 0 ? 0 : 1;
}
C
mkdir "$tmp/caller"
(cd "$tmp/caller" && ../works/run.sh bench relative-output.json >"$tmp/out3" 2>&1)
rc=$?
if [ $rc -ne 0 ] || [ ! -f "$tmp/caller/relative-output.json" ] ||
   [ -e "$tmp/works/relative-output.json" ]; then
	echo "FAIL: a relative output path: exit $rc; in the caller's directory:" \
		"$(ls "$tmp/caller")"; cat "$tmp/out3"; fail=1
else
	echo "ok: relative output path resolved against the caller's directory"
fi
if [ -s "$tmp/out3" ]; then
	echo "FAIL: a build that works is not quiet:"; cat "$tmp/out3"; fail=1
fi

# From inside the source tree, default results go under the build directory.
cat >"$tmp/works/bench/b.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
int main(void)
{
	const char *d = getenv("TLBGEN_RESULTS_DIR");

	puts(d ? d : "(unset)");
	return 0;
}
C
d=$(cd "$tmp/works" && ./run.sh bench 2>&1)
case $d in
"$tmp/works/build/tlbgen-results") echo "ok: from the source tree, results under build/" ;;
*) echo "FAIL: from the source tree, TLBGEN_RESULTS_DIR is '$d'"; fail=1 ;;
esac
d=$(cd "$tmp/caller" && ../works/run.sh bench 2>&1)
[ "$d" = "(unset)" ] || { echo "FAIL: from elsewhere, TLBGEN_RESULTS_DIR is '$d'"; fail=1; }
exit $fail
