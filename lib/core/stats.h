/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/core/stats.h - the event counters (enum tlbgen_stat), per CPU and per
 * (mm, CPU), and the kernel WARN count.
 *
 * One writer per slot (the CPU that counts), so an unlocked add (a relaxed
 * load and store in C11) is enough and counting adds no locked RMW to the
 * model; each CPU's slots sit on their own cachelines so counting adds no
 * false sharing either.
 */
#ifndef TLBGEN_CORE_STATS_H
#define TLBGEN_CORE_STATS_H

#include "state.h"

/*
 * The slot of counter `s` in a CPU's stats[]. The six counters a remote
 * one-page flush_tlb_func() bumps take slots 0-5, beside the two cost
 * counters its flush_tlb_one_user() charges (6, 7): a delivered IPI dirties
 * one counter line, where at thousands of CPUs each line is a cache miss.
 * The six counters of slots 0-5 take the hot ones' slots; the two of slots
 * 6 and 7 go past TLBGEN_STAT_NR.
 */
#define TLBGEN_STAT_SLOT_INV_PAGES	6
#define TLBGEN_STAT_SLOT_INV_CYCLES	7

_Static_assert(TLBGEN_STAT_IPI_SKIP_LAZY == TLBGEN_STAT_SLOT_INV_PAGES &&
	       TLBGEN_STAT_IPI_SKIP_NOT_LOADED == TLBGEN_STAT_SLOT_INV_CYCLES,
	       "the cost counters' slots are the two counters moved past TLBGEN_STAT_NR");

static inline unsigned int tlbgen__stat_slot(unsigned int s)
{
#define TLBGEN_STAT_SWAP(a, b) case a: return b; case b: return a
	switch (s) {
	TLBGEN_STAT_SWAP(TLBGEN_STAT_FLUSH_INITIATED, TLBGEN_STAT_IPI_RECEIVED);
	TLBGEN_STAT_SWAP(TLBGEN_STAT_FLUSH_MULTI, TLBGEN_STAT_FLUSH_FUNC);
	TLBGEN_STAT_SWAP(TLBGEN_STAT_FLUSH_LOCAL_ONLY, TLBGEN_STAT_FLUSH_FUNC_REMOTE);
	TLBGEN_STAT_SWAP(TLBGEN_STAT_FLUSH_NONE, TLBGEN_STAT_TLB_GEN_READ);
	TLBGEN_STAT_SWAP(TLBGEN_STAT_CALL_QUEUED, TLBGEN_STAT_PARTIAL_FLUSH);
	TLBGEN_STAT_SWAP(TLBGEN_STAT_IPI_SENT, TLBGEN_STAT_PAGES_INVALIDATED);
	case TLBGEN_STAT_IPI_SKIP_LAZY:
		return TLBGEN_STAT_NR;
	case TLBGEN_STAT_IPI_SKIP_NOT_LOADED:
		return TLBGEN_STAT_NR + 1;
	default:
		return s;
	}
#undef TLBGEN_STAT_SWAP
}

/*
 * The slot of counter `s` in an mm's per-CPU slots: the same line layout,
 * but with no cost counters the two moved counters keep slots 6 and 7, so
 * an mm needs TLBGEN_STAT_NR slots per CPU, not TLBGEN_STAT_SLOTS.
 */
static inline unsigned int tlbgen__mm_stat_slot(unsigned int s)
{
	unsigned int slot = tlbgen__stat_slot(s);

	return slot >= TLBGEN_STAT_NR ? slot - TLBGEN_STAT_NR + TLBGEN_STAT_SLOT_INV_PAGES : slot;
}

/* Per-CPU slots of an mm's counters, padded to an odd number of whole
 * cachelines (see tlbgen__arena_odd_lines()). */
#define TLBGEN_MM_STAT_STRIDE \
	((((TLBGEN_STAT_NR * 8 + TLBGEN_CACHELINE - 1) / TLBGEN_CACHELINE) | 1) * \
	 (TLBGEN_CACHELINE / 8))

/* Cost counter `item` (enum tlbgen_cost_item) of CPU `c`. */
static inline _Atomic uint64_t *tlbgen__cost_acct(struct tlbgen_cpu *c, unsigned int item)
{
	switch (item) {
	case TLBGEN_COST_INV_PAGES:
		return &c->stats[TLBGEN_STAT_SLOT_INV_PAGES];
	case TLBGEN_COST_INV_CYCLES:
		return &c->stats[TLBGEN_STAT_SLOT_INV_CYCLES];
	default:
		return &c->cost.acct[item];
	}
}

static inline void tlbgen__stat_add(_Atomic uint64_t *c, uint64_t n)
{
#if defined(__x86_64__) && !defined(TLBGEN_TSAN)
	/*
	 * x86's this_cpu_add(): one unlocked add to memory. The slot has one
	 * writer, and an aligned 8-byte store is single-copy atomic for the
	 * relaxed loads of tlbgen__stat_read().
	 */
	__asm__ volatile("addq %1, %0" : "+m"(*(uint64_t *)c) : "er"(n));
#else
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + n,
			      memory_order_relaxed);
#endif
}

static inline uint64_t tlbgen__stat_read(const _Atomic uint64_t *c)
{
	return atomic_load_explicit((_Atomic uint64_t *)c, memory_order_relaxed);
}

/*
 * The reset rule of every counter family (tlbgen_stats, tlbgen_cost,
 * tlbgen_fault_stats, the oracle's violations): -EBUSY while a thread is
 * attached to the system, since a counter must not move while it is zeroed.
 */
static inline bool tlbgen__stats_busy(const struct tlbgen_system *sys)
{
	return atomic_load(&((struct tlbgen_system *)sys)->attached_cpus) != 0;
}

static inline void tlbgen__stat_reset(_Atomic uint64_t *c)
{
	atomic_store(c, 0);
}

/*
 * Where CPU `cpu` counts for `mm`: its stats[] and its row of the mm's
 * slots. A function that counts several events for one mm (flush_tlb_func())
 * finds the row once, as this_cpu_inc() finds the per-CPU base once per
 * access. `cpu` is NULL under TLBGEN_SYS_NO_STATS; `mm` is NULL when there
 * is no mm or it keeps no counters.
 */
struct tlbgen__stat_row {
	_Atomic uint64_t *cpu;
	_Atomic uint64_t *mm;
};

static inline struct tlbgen__stat_row tlbgen__stat_row(struct tlbgen_system *sys,
						       unsigned int cpu,
						       const struct tlbgen_mm *mm)
{
	struct tlbgen__stat_row r = { NULL, NULL };

	if (unlikely(sys->flags & TLBGEN_SYS_NO_STATS))
		return r;
	r.cpu = sys->cpus[cpu]->stats;
	if (mm && mm->priv.stats)
		r.mm = &mm->priv.stats[(size_t)cpu * TLBGEN_MM_STAT_STRIDE];
	return r;
}

static inline void tlbgen__row_count_n(struct tlbgen__stat_row r, enum tlbgen_stat s, uint64_t n)
{
	if (unlikely(!r.cpu))
		return;
	tlbgen__stat_add(&r.cpu[tlbgen__stat_slot(s)], n);
	if (r.mm)
		tlbgen__stat_add(&r.mm[tlbgen__mm_stat_slot(s)], n);
}
#define tlbgen__row_count(r, s) tlbgen__row_count_n(r, s, 1)

static inline void tlbgen__count_n(struct tlbgen_system *sys, unsigned int cpu,
				   const struct tlbgen_mm *mm, enum tlbgen_stat s, uint64_t n)
{
	tlbgen__row_count_n(tlbgen__stat_row(sys, cpu, mm), s, n);
}
#define tlbgen__count(sys, cpu, mm, s) tlbgen__count_n(sys, cpu, mm, s, 1)

/* A kernel WARN condition was hit (tlbgen_system__warns()). */
static inline void tlbgen__warn(struct tlbgen_system *sys)
{
	atomic_fetch_add_explicit(&sys->nr_warns, 1, memory_order_relaxed);
}

#endif
