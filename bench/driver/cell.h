/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench/driver/cell.h - the cells of the generic runners: one (policy, task count,
 * shape, seed) run on its own system, what goes in and what comes out;
 * and a virtual-time row, the mean of cells over seeds.
 */
#ifndef TLBGEN_BENCH_CELL_H
#define TLBGEN_BENCH_CELL_H

#include "bench.h"

/* What flush_tlb_func() did, per op: the outcomes aa44284960 was argued over. */
enum bench_func { BENCH_FUNC_CALLS, BENCH_FUNC_EARLY, BENCH_FUNC_UP_TO_DATE, BENCH_FUNC_FULL,
		  BENCH_FUNC_PARTIAL, BENCH_FUNC_NR };
struct bench_func_stat {
	enum tlbgen_stat stat;
	const char *name;
};

/* One virtual-time cell's measured window, or a mean of such cells. */
struct bench_vcell {
	double ops_per_s;
	double flushes_per_op;			/* flush_tlb_mm_range() calls */
	double nested_pct;			/* gathers mm_tlb_flush_nested() made full, per
						 * 100 ops */
	double us_per_op[TLBGEN_VT_TIME_NR];	/* CPU time of all CPUs per op, by kind */
	double xfers_per_flush[TLBGEN_LINE_NR];	/* the MESI account by line kind */
	double line_us_per_op[TLBGEN_LINE_NR];	/* CPU time per op on each kind's lines */
	double func_per_op[BENCH_FUNC_NR];	/* flush_tlb_func() calls and outcomes */
	double irqs_per_op;			/* interrupts taken */
	double csds_per_op;			/* csds run from the call queues */
	double ipis_per_flush;			/* IPIs raised */
	double queued_per_flush;		/* csds queued */
	double stale_ipis_per_flush;		/* IPIs raised to a CPU that had another mm
						 * loaded than its task's (lazy, idle) */
	double asleep_pct;			/* the tasks' time asleep on locks */
	double c6_per_op;			/* sleeps in an idle state that lost the TLB */
	long violations;
	uint64_t points;
	uint64_t switches;		/* coroutine switches among the points */
	uint64_t lines;			/* cachelines the MESI directory holds at the end */
};

/* One virtual cell's inputs. */
struct bench_vspec {
	const struct bench_ops *ops;
	const struct tlbgen_machine *m;
	const char *profile;
	unsigned int threads;
	bool processes;
	bool invlpgb, no_pcid;
	double warm_ms, ms;
	uint64_t seed;
};


/*
 * A row: a task count under every policy, the mean over seeds. With
 * runs == 0 it adds seeds until the standard error of the change of the
 * second policy against the first (the headline pair) is at most 0.5
 * points, from at least 4 seeds or as many as make 120 CPU-runs, to 128.
 */
#define BENCH_ROW_MIN_SEEDS	4
#define BENCH_ROW_MIN_CPUS	120
#define BENCH_ROW_MAX_SEEDS	128
#define BENCH_ROW_SE_PCT	0.5

struct bench_vrow {
	unsigned int threads;
	bool processes;
	unsigned int seeds;
	struct bench_vcell c[BENCH_MAX_POLICIES];	/* means over the seeds */
	double lo[BENCH_MAX_POLICIES], hi[BENCH_MAX_POLICIES];	/* per-seed changes, % */
	double se[BENCH_MAX_POLICIES];	/* standard error of the mean change, points */
	double seed_ops[BENCH_MAX_POLICIES][BENCH_ROW_MAX_SEEDS];	/* each seed's ops_per_s */
};



/* A stepped cell: counts per op of `ops` operations of every task. */
struct bench_scell {
	uint64_t ops;
	uint64_t stats[TLBGEN_STAT_NR];
	uint64_t wl[TLBGEN_WL_STAT_NR];
	uint64_t transfers[TLBGEN_LINE_NR];	/* the MESI account, per line kind */
	uint64_t tlb_gen_remote_reads;		/* reads of tlb_gen by remote flush_tlb_func */
	struct tlbgen_coherence_counts tlb_gen;	/* the mm's tlb_gen line */
	long violations;
	long warns;
};
struct bench_sspec {
	const struct bench_ops *ops;
	const char *profile;
	unsigned int threads;
	bool processes;
	bool invlpgb, no_pcid;
	uint64_t ops_total;
	uint64_t seed;
};


#endif
