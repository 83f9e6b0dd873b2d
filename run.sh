#!/usr/bin/env bash
# run.sh - the README's Quick start: install what is missing (Debian 12, as
# root), build with Meson, and run either the headline benchmark or the tests.
#   ./run.sh bench [tlbgen-bench args]   build, then run the headline benchmark
#   ./run.sh test                        build, then run the whole test suite
set -euo pipefail
cd "$(dirname "$0")"

# libclang-rt-14-dev is only a Recommends of clang on Debian 12, and we install
# without recommends: it carries libFuzzer and clang's sanitizer runtimes.
PKGS=(build-essential meson ninja-build pkg-config liburcu-dev libnuma-dev libcmocka-dev
      clang libclang-rt-14-dev gnuplot-nox)

ensure_packages() {
	local missing=()
	for p in "${PKGS[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "$(id -u)" -ne 0 ]; then
		echo "run.sh: missing packages: ${missing[*]} (run as root to install them)" >&2
		exit 1
	fi
	echo "run.sh: installing ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

build() { # build DIR [meson args...]
	local dir=$1; shift
	if [ ! -f "$dir/build.ninja" ]; then
		meson setup "$dir" "$@" >/dev/null
	fi
	ninja -C "$dir" >/dev/null
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
bench)
	ensure_packages
	build build
	exec ./build/bench/tlbgen-bench "$@"
	;;
test)
	ensure_packages
	exec ./tests/run-all.sh "$@"
	;;
*)
	echo "usage: $0 bench [args] | test" >&2
	exit 2
	;;
esac
