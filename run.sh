#!/usr/bin/env bash
# run.sh - the README's Quick start: install what is missing (Debian 12, as
# root), build with Meson, and run either the headline benchmark or the tests.
#   ./run.sh bench [tlbgen-bench args]   build, then run the headline benchmark
#   ./run.sh test                        build, then run the whole test suite
# The benchmark runs in the caller's directory, so that relative output
# paths (and the default tlbgen-results/) land where the caller is.
# Environment: TLBGEN_BUILD_DIR (default: build/ beside this script).
set -euo pipefail
root=$(cd "$(dirname "$0")" && pwd)
build_dir=${TLBGEN_BUILD_DIR:-$root/build}

# libclang-rt-14-dev is only a Recommends of clang on Debian 12, and we install
# without recommends: it carries libFuzzer and clang's sanitizer runtimes.
# libjansson-dev: tlbgen-bench's results.json/meta.json; parallel: the sweep
# test; help2man: the tlbgen-bench man page. libtracecmd-dev, libtraceevent-dev
# and libtracefs-dev (which libtracecmd's pkg-config file requires): replay
# reads trace.dat; trace-cmd: tlbgen-trace records; stress-ng: a workload to
# record (docs/replay.md).
PKGS=(build-essential meson ninja-build pkg-config liburcu-dev libnuma-dev libcmocka-dev
      clang libclang-rt-14-dev gnuplot-nox libjansson-dev parallel help2man
      libtracecmd-dev libtraceevent-dev libtracefs-dev libzstd-dev trace-cmd stress-ng)

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

# Quiet when it works; on a failure, everything meson or ninja said.
quiet() { # description command...
	local what=$1 log; shift
	log=$(mktemp)
	if ! "$@" >"$log" 2>&1; then
		cat "$log" >&2
		rm -f "$log"
		echo "run.sh: $what failed: $*" >&2
		exit 1
	fi
	rm -f "$log"
}

build() { # build DIR [meson args...]
	local dir=$1; shift
	if [ ! -f "$dir/build.ninja" ]; then
		quiet "configuring" meson setup "$dir" "$root" "$@"
	fi
	quiet "building" ninja -C "$dir"
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
bench)
	ensure_packages
	build "$build_dir"
	# Results go under the caller's directory, unless that is inside the
	# source tree: then under the build directory, which git ignores.
	case "$PWD/" in
	"$root"/*) export TLBGEN_RESULTS_DIR=${TLBGEN_RESULTS_DIR:-$build_dir/tlbgen-results} ;;
	esac
	exec "$build_dir/bench/tlbgen-bench" "$@"
	;;
test)
	ensure_packages
	exec "$root/tests/run-all.sh" "$@"
	;;
*)
	echo "usage: $0 bench [args] | test" >&2
	exit 2
	;;
esac
