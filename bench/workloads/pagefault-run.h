/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench/workloads/pagefault-run.h - seed 003's page_fault3 loop with retried write
 * faults, run once (bench/workloads/pagefault-run.c): on real threads (threads or
 * processes mode, timed), stepped (counts, IPIs delivered after each
 * fault), or in virtual time on a machine model.
 */
#ifndef TLBGEN_BENCH_PAGEFAULT_RUN_H
#define TLBGEN_BENCH_PAGEFAULT_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <tlbgen/tlbgen.h>

#define PF_MAX_ROUNDS	16

enum pf_mode { PF_THREADED, PF_STEPPED, PF_VIRTUAL };

struct pf_cfg {
	unsigned int cpus, loops, retry_pct, rounds;
	unsigned long pages;
	const char *profile;	/* the profile's name for tlbgen */
	const char *arch;	/* fault_arch */
	bool spend;
	bool invlpgb, no_pcid;	/* the machine's features (--invlpgb, --no-pcid) */
	const struct tlbgen_machine *machine;	/* PF_VIRTUAL's model */
};

/* One run's figures: ops/s of each round (threaded; virtual: of virtual
 * time, round 0), the last run's counters. */
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
 * PF_STEPPED: one host thread steps the tasks page by page and delivers
 * the IPIs; PF_THREADED: each task is a pthread; PF_VIRTUAL: each task a
 * program of a virtual system on c->machine, each fault attempt costing the
 * model's page fault, the munmap its syscall and zaps. ops_per_sec[round]
 * is set but stepped. Returns 0 or -errno.
 */
int pf_run_once(const struct pf_cfg *c, enum pf_mode mode, bool shared_mm, const char *hook,
		bool after, unsigned int round, struct pf_result *res);

#endif
