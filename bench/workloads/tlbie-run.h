/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench/workloads/tlbie-run.h - seed 004's shmat/fill/shmdt loop at one point of the
 * powerpc radix global ceiling sweep (bench/workloads/tlbie-run.c), stepped.
 */
#ifndef TLBGEN_BENCH_TLBIE_RUN_H
#define TLBGEN_BENCH_TLBIE_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <tlbgen/tlbgen.h>

#define MAX_CEILINGS	64

struct tlbie_cfg {
	unsigned long shm_pages, chunk_pages, ws_pages;
	unsigned int page_kb, iters, sets, ways;
	bool chase_per_iter;
	unsigned long mixed;		/* also munmap 1..mixed pages, one of each size */
	struct tlbgen_cost_model cost;
	const char *costs;
	const char *profile;		/* the policy's profile name, and its label */
	const char *label;
	long ceilings[MAX_CEILINGS];
	unsigned int nr_ceilings;
};

struct tlbie_point {
	int cmp;
	long ceiling;
	uint64_t flushes, ranged, full, ops;
	uint64_t flush_cycles, refill_cycles, refills;
	long violations;
};

/* One point: `iters` iterations under the ceiling and its comparison
 * (enum tlbgen_ceiling_cmp), the cost model's cycles and the flush counts
 * into *pt. 0 or -errno. */
int tlbie_run_point(const struct tlbie_cfg *c, int cmp, long ceiling, struct tlbie_point *pt);

#endif
