/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench/threaded.h - an op-based workload on real threads (the threads and
 * processes modes): threaded.c runs timed rounds of every policy and task
 * count interleaved, round.c one round, report-threaded*.c print and write
 * what the rounds measured.
 */
#ifndef TLBGEN_BENCH_THREADED_H
#define TLBGEN_BENCH_THREADED_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "run.h"

#define MAX_POLICIES BENCH_MAX_POLICIES
#define MAX_TASKS BENCH_MAX_THREADS
#define MAX_ROUNDS 1000

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
int bench_round_run(const struct bench_round_opts *o, struct bench_round_result *r);
void bench_round_result_free(struct bench_round_result *r);

struct cell {			/* one (mode, tasks, policy) */
	double *ops;		/* per round ops/s */
	unsigned int nr;
	struct bench_round_result wis;	/* samples of every round concatenated */
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
	bool no_plot, quiet, no_mesi, no_acct, invlpgb, no_pcid;
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

/* The options of the threads and processes modes, in every op-based
 * workload's option table (bench/opt.c adds them). */
extern const struct bench_opt bench_threaded_opts[];

/* threaded.c: the sweep over e's policies and task counts in `modes`
 * (BENCH_M_THREADS and/or BENCH_M_PROCESSES); 0 ok, 1 failed run.
 * `mesi_cols`, if not NULL, names the policies of the MESI account
 * (NULL-terminated; default: the run's). */
int bench_threaded_run(struct bench_env *e, const char *workload, const struct bench_ops *ops,
		       unsigned int modes);
extern const char *const *bench_threaded_mesi_cols;

/* report-threaded.c: stdout sections in this order. */
void cmp_print_wis(struct cmp *c);
void cmp_print_table(struct cmp *c);
void cmp_print_counters(struct cmp *c);
/* --invlpgb: INVLPGB, TLBSYNC, IPIs and IPIs avoided per flush. */
void cmp_print_invlpgb(struct cmp *c);
/* report-threaded-out.c */
/* will-it-scale CSV of policy p, as runtest.py writes it for one test case. */
void cmp_print_csv(struct cmp *c, unsigned int p, FILE *f);
/* The --csv file of policy p: FILE itself with one policy (or '-'), else
 * FILE-POLICY.csv. */
void cmp_csv_path(struct cmp *c, unsigned int p, char *path, size_t len);
/* The CSV files: --csv and one per policy in the results directory; 0 or 1. */
int cmp_write_csv(struct cmp *c);
void cmp_print_lkp(struct cmp *c);
void cmp_print_mesi(struct cmp *c);
/* Every figure into results.json (bench/results.h). */
void cmp_record(struct cmp *c);
/* The SVG plot; 0, or 1 when gnuplot was there and failed. */
int cmp_plot(struct cmp *c);

#endif
