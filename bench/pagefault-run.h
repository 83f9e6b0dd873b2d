/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench/pagefault-run.h - seed 003's page_fault3 loop with retried write
 * faults, run once (bench/pagefault-run.c): on real threads (threads or
 * processes mode, timed) or stepped (counts, IPIs delivered after each
 * fault).
 */
#ifndef TLBGEN_BENCH_PAGEFAULT_RUN_H
#define TLBGEN_BENCH_PAGEFAULT_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <tlbgen/tlbgen.h>

#define PF_MAX_ROUNDS	16

struct pf_cfg {
	unsigned int cpus, loops, retry_pct, rounds;
	unsigned long pages;
	const char *profile;	/* the profile's name for tlbgen */
	const char *arch;	/* fault_arch */
	bool spend;
};

/* One run's figures: ops/s of each round (threaded), the last run's counters. */
struct pf_result {
	double ops_per_sec[PF_MAX_ROUNDS];
	uint64_t ops;
	uint64_t st[TLBGEN_STAT_NR], fst[TLBGEN_FAULT_STAT_NR];
	long violations;
};

/*
 * One run of every task's loops: `shared_mm` one mm for all tasks (threads)
 * or one each (processes); `hook` the flush_tlb_fix_spurious_fault choice
 * (NULL: the profile's), `after` spurious_skip_tried on (b7333b58f358).
 * `stepped`: one host thread steps the tasks page by page and delivers the
 * IPIs; else each task is a pthread and ops_per_sec[round] is set.
 * Returns 0 or -errno (results untouched but for the counters).
 */
int pf_run_once(const struct pf_cfg *c, bool stepped, bool shared_mm, const char *hook,
		bool after, unsigned int round, struct pf_result *res);

#endif
