/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench/run/threaded.h - an op-based workload on real threads (the threads and
 * processes modes): threaded.c runs timed rounds of every policy and task
 * count interleaved, round.c one round, report-threaded*.c print and write
 * what the rounds measured.
 */
#ifndef TLBGEN_BENCH_THREADED_H
#define TLBGEN_BENCH_THREADED_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "driver/cell.h"
#include "driver/threaded-opts.h"

#define MAX_POLICIES BENCH_MAX_POLICIES
#define MAX_TASKS BENCH_MAX_THREADS
#define MAX_ROUNDS BENCH_MAX_ROUNDS

/* One timed threaded round of a workload. */
struct bench_round_opts {
	const struct bench_ops *ops;
	const char *profile;		/* tlbgen profile name */
	unsigned int tasks;
	bool processes;			/* one mm per task instead of one shared */
	unsigned int duration_ms;
	unsigned int sample_ms;		/* will-it-scale per-"second" samples */
	unsigned int warmup_samples;	/* run this many samples first, not counted */
	const int *cpus;		/* real CPUs to pin task i to: cpus[i % nr_cpus] */
	int nr_cpus;
	bool trace_reads;		/* accounting pass: classify tlb_gen reads */
	bool invlpgb, no_pcid;		/* machine features (system opts) */
	const struct tlbgen_machine *kwork;	/* kernel work burnt per event (NULL: none) */
	struct bench_hw_probe *hw;	/* non-NULL: open perf counters */
};
struct bench_round_result {
	double seconds;
	uint64_t ops;
	double ops_per_sec;
	/* per sample: ops/s of the slowest, fastest task and the total */
	unsigned int nr_samples;
	uint64_t *smin, *smax, *stotal;	/* malloc'ed, nr_samples each */
	uint64_t stats[TLBGEN_STAT_NR];
	uint64_t remote_reads, local_reads;	/* trace_reads only */
	int global_asid;		/* invlpgb: the shared mm's at the end (0: none) */
	long violations;
	double idle_pct;
	struct bench_hw hw;
};

struct cell {			/* one (mode, tasks, policy) */
	double *ops;		/* per round ops/s */
	unsigned int nr;
	struct bench_round_result wis;	/* samples of every round concatenated */
	unsigned int *round_samples;	/* how many of them each round gave */
	uint64_t stats[TLBGEN_STAT_NR];	/* summed over the timed rounds */
	double idle_sum;
	uint64_t hw[BENCH_HW_NR];
	bool hw_ok;
	long violations;
	int global_asid;	/* --invlpgb: the shared mm's, last round */
	/* accounting pass */
	uint64_t acct_stats[TLBGEN_STAT_NR];
	uint64_t remote_reads, local_reads;
	bool acct_done;
	double min, med, max, mean, sd, change, p;
	double ci_lo, ci_hi;	/* 95% CI of `change`, in % (NAN: fewer than 2 rounds) */
};

struct cmp {
	const char *name;	/* the workload (will-it-scale's test) */
	const struct bench_ops *ops;
	const char *prog;	/* the command, for the header */
	struct bench_env *e;
	struct bench_policy *pol;	/* e->pol */
	unsigned int npol;
	unsigned int *tasks;	/* e->threads */
	unsigned int ntasks;
	bool modes[2];		/* [0] threads, [1] processes */
	unsigned int rounds, duration_ms, sample_ms, warmup;
	const char *csv, *svg;
	bool no_plot, quiet, verbose, no_mesi, no_acct, invlpgb, no_pcid;
	const char *kwork_spec;	/* --machine (host when not given) */
	bool kwork_on;
	struct tlbgen_machine kwork;
	unsigned int mesi_cpus;
	uint64_t mesi_ops, seed;
	int cpus[1024];
	int nr_cpus;
	struct cell *cells;	/* [mode][tasks][policy] */
	struct bench_policy mesi_pol[MAX_POLICIES];
	unsigned int nmesi;
	struct bench_scell mesi[MAX_POLICIES];
	char svg_default[4096];
	char svg_written[4096];
	struct bench_progress pg;
	struct bench_hw_probe hw_probe;
};

static inline struct cell *cell(struct cmp *c, int mode, unsigned int t, unsigned int p)
{
	return &c->cells[((size_t)mode * c->ntasks + t) * c->npol + p];
}

static inline const char *mode_name(int m)
{
	return m ? "processes" : "threads";
}

static inline double per(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0;
}



#endif
