#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# docs/check-versions.sh TLBGEN_BENCH DOC: fail unless DOC is exactly what
# `tlbgen-bench versions` prints (regenerate: tlbgen-bench versions > DOC).
set -eu
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$1" versions > "$out"
if ! diff -u "$2" "$out" >&2; then
	echo "docs/versions.md is stale: run tlbgen-bench versions > docs/versions.md" >&2
	exit 1
fi
