/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench/compare.h - private to the comparison driver: compare.c runs the
 * rounds, compare-cli.c turns argv into a struct cmp, compare-report.c
 * prints and writes what the rounds measured.
 */
#ifndef TLBGEN_BENCH_COMPARE_H
#define TLBGEN_BENCH_COMPARE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "bench.h"

#define MAX_POLICIES 16
#define MAX_TASKS 256
#define MAX_ROUNDS 1000

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
	const struct bench_wis_workload *wl;
	const char *prog;	/* the subcommand, for usage and the header */
	bool mesi_only;
	struct bench_policy pol[MAX_POLICIES];
	unsigned int npol;
	unsigned int tasks[MAX_TASKS];
	unsigned int ntasks;
	bool modes[2];		/* [0] threads, [1] processes */
	unsigned int rounds, duration_ms, sample_ms, warmup;
	const char *json, *csv, *svg;
	bool no_plot, quiet, no_mesi, no_acct, seed000, invlpgb;
	const char *kwork_spec;	/* --kernel-work (host when not given) */
	bool kwork_on;
	struct tlbgen_machine kwork;
	uint64_t kw_fault_ns, kw_syscall_ns, kw_zap_ns, kw_user_ns;
	unsigned int mesi_cpus;
	uint64_t mesi_ops, seed;
	int cpus[1024];
	int nr_cpus;
	struct cell *cells;	/* [mode][tasks][policy] */
	struct bench_policy mesi_pol[MAX_POLICIES];
	unsigned int nmesi;
	struct bench_mesi_result mesi[MAX_POLICIES];
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

/* compare-cli.c */
void cmp_usage(FILE *f, const char *prog);
/* Defaults of `wl_name` run as `prog`, then argv: 0 to run, 1 after --help
 * (printed), -EINVAL after a bad argument (the usage is printed). */
int cmp_parse_args(struct cmp *c, const char *wl_name, bool seed000, bool mesi_only,
		   int argc, char **argv);

/* compare-report.c: stdout sections in the order of the usage text. */
void cmp_print_wis(struct cmp *c);
void cmp_print_table(struct cmp *c);
void cmp_print_counters(struct cmp *c);
/* --invlpgb: INVLPGB, TLBSYNC, IPIs and IPIs avoided per flush. */
void cmp_print_invlpgb(struct cmp *c);
/* will-it-scale CSV of policy p, as runtest.py writes it for one test case. */
void cmp_print_csv(struct cmp *c, unsigned int p, FILE *f);
/* The --csv file of policy p: FILE itself with one policy (or '-'), else
 * FILE-POLICY.csv. */
void cmp_csv_path(struct cmp *c, unsigned int p, char *path, size_t len);
/* The CSV files: --csv and one per policy in the results directory; 0 or 1. */
int cmp_write_csv(struct cmp *c);
void cmp_print_lkp(struct cmp *c);
void cmp_print_mesi(struct cmp *c);
/* Every figure into results.json (bench/results.h); then --json FILE. 0 or 1. */
void cmp_record(struct cmp *c);
int cmp_write_json(struct cmp *c);
/* The SVG plot; 0, or 1 when gnuplot was there and failed. */
int cmp_plot(struct cmp *c);

#endif
