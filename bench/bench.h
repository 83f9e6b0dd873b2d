/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench/bench.h - tlbgen-bench: one CLI, one subcommand per workload.
 *
 * Each workload lives in its own file and exports
 *     int bench_<name>_main(int argc, char **argv);
 * argv[0] is the workload name. Return 0 on success, 1 on a failed run
 * (e.g. oracle violations), 2 after printing usage for bad arguments.
 * Register it in the table of tlbgen-bench.c (one line).
 */
#ifndef TLBGEN_BENCH_H
#define TLBGEN_BENCH_H

#include <stdint.h>
#include <stdio.h>
#include <tlbgen/tlbgen.h>

struct bench_cmd {
	const char *name;
	const char *summary;
	int (*main)(int argc, char **argv);
};

/* Monotonic time in ns. */
uint64_t bench_now_ns(void);
/* Sort a copy and return min/median/max of n samples. */
void bench_min_med_max(const double *v, size_t n, double *min, double *med, double *max);
/* Print non-zero counters of `st` as "name=value" on one line to f. */
void bench_print_stats(FILE *f, const char *prefix, const uint64_t *st);

#endif
