/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench/driver/threaded-opts.h - the options of the threads and processes modes
 * (bench/driver/threaded-opts.c) as bench/run/threaded.c reads them.
 */
#ifndef TLBGEN_BENCH_THREADED_OPTS_H
#define TLBGEN_BENCH_THREADED_OPTS_H

#include "bench.h"

#define BENCH_MAX_ROUNDS 1000

struct bench_threaded_cfg {
	unsigned int rounds, duration_ms, sample_ms, mesi_cpus;
	uint64_t mesi_ops;
	const char *csv, *svg, *cpus;
	bool no_plot, no_mesi, no_acct;
};
extern struct bench_threaded_cfg bench_threaded_cfg;
/* Their rows: every op-based workload takes them (bench/driver/opt.c adds them). */
extern const struct bench_opt bench_threaded_opts[];

/* A preset's policies for the MESI account (NULL-terminated; NULL: the
 * run's own), e.g. seed 000's four columns. */
extern const char *const *bench_threaded_mesi_cols;

#endif
