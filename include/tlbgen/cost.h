/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tlbgen/cost.h - a cost model for the simulated TLB, so that both sides of
 * the range-ceiling trade-off are counted: invalidating page by page
 * against flushing everything and paying for the refills.
 *
 * The simulated TLB has tlb_sets x tlb_ways entries per CPU (system opts).
 * Every single-page invalidation, every full flush of an ASID and every
 * refill after a miss (tlbgen_access() returning 0) is charged to the CPU
 * that executes it, in cycles:
 *  - stepped mode: the charges accumulate in per-CPU virtual time;
 *  - threaded mode: the same accounting, and optionally (spend = true) the
 *    cycles are also burnt as calibrated busy-waits on the calling thread,
 *    so that contention measurements include them. Off by default.
 * Defaults (tlbgen_cost_model_default()), in cycles:
 *  - inv_page 260 and full_flush 96: INVLPG about 260 cycles and a CR3
 *    write about 96 (Ingo Molnar's 2015 measurements on x86). Dave Hansen's
 *    2014 flush_tlb_mm_range() timings (1276 cycles for 1 page, 8534 for 33)
 *    give about 227 cycles per extra page, the same order;
 *  - mhz 2600: arch/x86/mm/tlb.c's ceiling comment says "each single flush
 *    is about 100 ns", and 260 cycles at 2.6 GHz is that;
 *  - refill 26: a ~10 ns TLB-miss penalty at 2.6 GHz, a page walk whose
 *    paging-structure lines hit in cache. A workload that misses the caches
 *    pays far more: set it per run;
 *  - invlpgb 260 and tlbsync 2600 (estimates: no public measurement): the
 *    issue of one INVLPGB as an INVLPG, and TLBSYNC as a 1 us round trip
 *    to every core. The initiator pays both; the CPUs the broadcast reaches
 *    pay nothing. They are part of inv_cycles in struct tlbgen_cost_account.
 */
#ifndef TLBGEN_COST_H
#define TLBGEN_COST_H

#include <tlbgen/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tlbgen_cost_model {
	size_t sz;			/* sizeof(struct tlbgen_cost_model) */
	uint64_t inv_page_cycles;	/* one single-page invalidation (INVLPG, tlbie va) */
	uint64_t full_flush_cycles;	/* flush of a whole ASID/PID (CR3 write, tlbie pid) */
	uint64_t refill_cycles;		/* a TLB miss: page walk and fill */
	unsigned int mhz;		/* cycles -> time for busy-waits and printing; > 0 */
	bool spend;			/* threaded mode: busy-wait the charged cycles */
	uint64_t invlpgb_cycles;	/* issuing one INVLPGB (a caller's shorter struct: 260) */
	uint64_t tlbsync_cycles;	/* one TLBSYNC (a caller's shorter struct: 2600) */
};

/* What the per-CPU account holds. */
enum tlbgen_cost_item {
	TLBGEN_COST_INV_PAGES = 0,	/* single-page invalidations executed */
	TLBGEN_COST_FULL_FLUSHES,	/* full flushes executed */
	TLBGEN_COST_REFILLS,		/* refills (TLB misses) */
	TLBGEN_COST_INV_CYCLES,		/* cycles charged for invalidations */
	TLBGEN_COST_FULL_CYCLES,	/* ... for full flushes */
	TLBGEN_COST_REFILL_CYCLES,	/* ... for refills */
	TLBGEN_COST_INVLPGBS,		/* INVLPGBs issued (their cycles: INV_CYCLES) */
	TLBGEN_COST_TLBSYNCS,		/* TLBSYNCs waited (their cycles: INV_CYCLES) */
	TLBGEN_COST_NR
};

/* inv_cycles includes the INVLPGB and TLBSYNC cycles of the initiator. */
struct tlbgen_cost_account {
	uint64_t inv_pages, full_flushes, refills;
	uint64_t inv_cycles, full_cycles, refill_cycles;
	uint64_t cycles;		/* virtual time: the sum of the three */
};

/* tlbgen_cost_model_default - fill *m with the defaults (m->sz set). -EINVAL for NULL. */
TLBGEN_API int tlbgen_cost_model_default(struct tlbgen_cost_model *m);

/*
 * tlbgen_system__set_cost_model - use `m` (NULL: back to the defaults).
 * Accounts are kept. Errors: -EINVAL (NULL sys, bad sz, mhz == 0, spend on a
 * stepped system), -EBUSY while a flush is in flight or CPUs are attached.
 */
TLBGEN_API int tlbgen_system__set_cost_model(struct tlbgen_system *sys,
					     const struct tlbgen_cost_model *m);

/* tlbgen_system__cost_model - copy the model in use into *out. -EINVAL. Thread-safe. */
TLBGEN_API int tlbgen_system__cost_model(const struct tlbgen_system *sys,
					 struct tlbgen_cost_model *out);

/*
 * tlbgen_system__tlb_geometry - the simulated TLB's sets and ways (either
 * pointer may be NULL). Returns sets * ways, or -EINVAL. Thread-safe.
 */
TLBGEN_API int tlbgen_system__tlb_geometry(const struct tlbgen_system *sys, unsigned int *sets,
					   unsigned int *ways);

/*
 * tlbgen_cost__cpu - the account (virtual time) of `cpu`. tlbgen_cost__system
 * sums every CPU. Errors: -EINVAL. Exact in stepped mode; a racy but
 * tear-free snapshot in threaded mode.
 */
TLBGEN_API int tlbgen_cost__cpu(const struct tlbgen_system *sys, unsigned int cpu,
				struct tlbgen_cost_account *out);
TLBGEN_API int tlbgen_cost__system(const struct tlbgen_system *sys,
				   struct tlbgen_cost_account *out);

/* tlbgen_cost__reset - zero every CPU's account. -EINVAL; -EBUSY while CPUs are attached. */
TLBGEN_API int tlbgen_cost__reset(struct tlbgen_system *sys);

#ifdef __cplusplus
}
#endif
#endif
