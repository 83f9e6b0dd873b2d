/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench/tools/compare.h - the comparison of results directories, as a JSON
 * document (bench/tools/compare-build.c; schema in docs/results.md): every
 * metric of any directory, each directory's mean of its independent
 * samples, and each other directory's change against the first with
 * Welch's 95% interval and p.
 */
#ifndef TLBGEN_BENCH_COMPARE_H
#define TLBGEN_BENCH_COMPARE_H

#include <stddef.h>

#include "archive.h"

#define BENCH_COMPARE_SCHEMA "tlbgen-bench-compare"
#define BENCH_COMPARE_SCHEMA_VERSION 1

/*
 * Compare the loaded directories ar[0..n) (n >= 2, ar[0] the baseline).
 * names[0..nnames): only metrics of these names, which are then the
 * headline; nnames 0: every metric, the headline being the figures a
 * workload is run for (ops_per_sec, ...). Returns a new document, or NULL
 * when out of memory. Not thread-safe (jansson documents are not shared).
 */
json_t *compare_build(const struct archive *ar, size_t n, const char *const *names,
		      size_t nnames);

/* The independent samples of one metric: each round's mean when it has
 * round_sizes, else each sample (a round or a repetition), else its value.
 * malloc'ed into *out (free it); returns how many; *kind is "round_mean",
 * "sample" or "value". */
size_t compare_units(json_t *metric, double **out, const char **kind);

#endif
