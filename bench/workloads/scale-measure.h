/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench/workloads/scale-measure.h - the measurements of tlbgen-bench scale
 * (bench/workloads/scale-measure.c): the rows of stepped mode as the emulated machine
 * grows, shootdowns per delivery style and creation. bench/workloads/scale.c is the
 * command (options, results, table).
 */
#ifndef TLBGEN_BENCH_SCALE_MEASURE_H
#define TLBGEN_BENCH_SCALE_MEASURE_H

#include "bench.h"

#define SCALE_MAX_REPS	64

struct scale_cfg {
	bool wall;			/* wall time, not thread CPU time */
	unsigned int reps;
	uint64_t targets;		/* flush_tlb_func calls per style per repetition */
	unsigned int max_cpus;
	uint64_t seed;
	const char *profile;		/* the profile's name, as tlbgen takes it */
};

/* The delivery styles, in the order a repetition runs them. */
enum scale_style { BY_SCHEDULER, BY_HOST, BY_HOST_SHUFFLED, SCALE_STYLES };

struct scale_row {
	unsigned int cpus;
	unsigned long shootdowns;	/* per style per repetition */
	struct tlbgen_system *sys;	/* alive from setup to the last repetition */
	struct tlbgen_mm *mm;
	unsigned int *order;		/* the shuffled targets */
	double rep_ns[SCALE_STYLES][SCALE_MAX_REPS];	/* per repetition, per shootdown */
	double ns[SCALE_STYLES];	/* median per shootdown */
	double func[SCALE_STYLES];	/* flush_tlb_func per shootdown */
	double ratio[SCALE_STYLES];	/* median over repetitions of this row against
					 * the reference row (64; 128 for 8192) */
	double ratio_lo[SCALE_STYLES], ratio_hi[SCALE_STYLES];	/* ... lowest and highest
								 * repetition */
	unsigned int ref_cpus;		/* the reference row's CPUs; 0 for a reference */
	double create_ms[2];		/* [0] no oracle/TLB, [1] with */
	double rss_per_cpu[2];		/* bytes */
};

/* Creation of r->cpus CPUs, each repetition in a forked child: 0 or -errno. */
int scale_create(const struct scale_cfg *c, struct scale_row *r);
/* A row's system, its mm on every CPU, the shuffled order, warmed up. */
int scale_setup_row(const struct scale_cfg *c, struct scale_row *r);
void scale_teardown_row(struct scale_row *r);
/* Repetition `rep` of a row: the three styles in turn. */
int scale_rep_row(const struct scale_cfg *c, struct scale_row *r, unsigned int rep);
/* Medians per row, and the ratios against the reference rows. */
void scale_summarise(const struct scale_cfg *c, struct scale_row *rows, unsigned int n);
const struct scale_row *scale_find_row(const struct scale_row *rows, unsigned int n,
				       unsigned int cpus);

#endif
