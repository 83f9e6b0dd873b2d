/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/core/access-mm.h - the shared-access layer for an mm's own words:
 * mm->tlb_flush_batched, the batch pins, mm->context.global_asid and
 * asid_transition, the simulated page table's PTEs and its page-table
 * lock, and the API's untraced looks at CPU state.
 * Included by core/access.h, which holds the per-CPU and flush lines.
 */
#ifndef TLBGEN_CORE_ACCESS_MM_H
#define TLBGEN_CORE_ACCESS_MM_H

#include <sched.h>

#include "state.h"

/* ---- mm->tlb_flush_batched (mm/rmap.c) ---------------------------------------------- */

static inline int tlbgen__mm_batched_read(struct tlbgen_mm *mm)
{
	return atomic_load(&mm->tlb_flush_batched);
}

static inline void tlbgen__mm_batched_inc(struct tlbgen_mm *mm)
{
	atomic_fetch_add(&mm->tlb_flush_batched, 1);
}

static inline bool tlbgen__mm_batched_cmpxchg(struct tlbgen_mm *mm, int *old, int new,
					      bool weak)
{
	return weak ? atomic_compare_exchange_weak(&mm->tlb_flush_batched, old, new)
		    : atomic_compare_exchange_strong(&mm->tlb_flush_batched, old, new);
}

/* Unflushed batches that hold `mm` (it cannot be destroyed meanwhile). */
static inline void tlbgen__mm_pin(struct tlbgen_mm *mm)
{
	atomic_fetch_add(&mm->inflight, 1);
}

static inline void tlbgen__mm_unpin(struct tlbgen_mm *mm)
{
	atomic_fetch_sub_explicit(&mm->inflight, 1, memory_order_release);
}

/* ---- kernel words of the workload layer (core/kword.h) --------------------------- */

/* atomic_long_add_return() on a kernel word: a locked RMW, a full barrier.
 * The value is taken when the access issues; its cost (virtual time)
 * follows. */
static inline long tlbgen__kword_add(struct tlbgen_system *sys, unsigned int cpu,
				     struct tlbgen_kword *w, long d)
{
	long v = atomic_fetch_add_explicit(&w->val, d, memory_order_seq_cst) + d;

	if (unlikely(sys->exec) && sys->exec->kword)
		sys->exec->kword(sys, cpu, w, true);
	return v;
}

/* atomic_long_read() of a kernel word, as the access issues. */
static inline long tlbgen__kword_read(struct tlbgen_system *sys, unsigned int cpu,
				      struct tlbgen_kword *w)
{
	long v = atomic_load_explicit(&w->val, memory_order_seq_cst);

	if (unlikely(sys->exec) && sys->exec->kword)
		sys->exec->kword(sys, cpu, w, false);
	return v;
}

/* ---- cpu_tlbstate.loaded_mm_asid, this CPU's side ------------------------------------ */

/* this_cpu_write(cpu_tlbstate.loaded_mm_asid): finish_asid_transition()
 * reads it remotely, so it is a relaxed atomic store. */
static inline void tlbgen__loaded_mm_asid_write(struct tlbgen_system *sys, unsigned int cpu,
						uint16_t asid)
{
	atomic_store_explicit(&tlbgen__cpu(sys, cpu)->tlbstate.loaded_mm_asid, asid,
			      memory_order_relaxed);
}

static inline uint16_t tlbgen__this_loaded_mm_asid(const struct tlbgen_system *sys,
						   unsigned int cpu)
{
	return atomic_load_explicit(&tlbgen__cpu(sys, cpu)->tlbstate.loaded_mm_asid,
				    memory_order_relaxed);
}

/* ---- mm->context.global_asid and asid_transition (d504d1247e36) -------------------- */

/* mm_global_asid(): 0 without the feature; acquire pairs with the assign.
 * Not traced: written once per mm lifetime, read-mostly. */
static inline uint16_t tlbgen__mm_global_asid(const struct tlbgen_system *sys,
					      const struct tlbgen_mm *mm)
{
	if (!tlbgen__invlpgb_on(sys))
		return 0;
	return atomic_load_explicit(&((struct tlbgen_mm *)mm)->context.global_asid,
				    memory_order_acquire);
}

/* mm_assign_global_asid(): a flush that sees the ASID must also see
 * asid_transition set (finish_asid_transition() relies on it). */
static inline void tlbgen__mm_assign_global_asid(struct tlbgen_mm *mm, uint16_t asid)
{
	atomic_store_explicit(&mm->context.asid_transition, true, memory_order_relaxed);
	atomic_store_explicit(&mm->context.global_asid, asid, memory_order_release);
}

/* mm_free_global_asid()'s clear, under global_asid_lock. */
static inline uint16_t tlbgen__mm_take_global_asid(struct tlbgen_mm *mm)
{
	uint16_t asid = atomic_load_explicit(&mm->context.global_asid, memory_order_relaxed);

	atomic_store_explicit(&mm->context.global_asid, 0, memory_order_relaxed);
	return asid;
}

/* mm_in_asid_transition(): READ_ONCE(mm->context.asid_transition). */
static inline bool tlbgen__mm_in_asid_transition(const struct tlbgen_system *sys,
						 const struct tlbgen_mm *mm)
{
	if (!tlbgen__invlpgb_on(sys) || !mm)
		return false;
	return atomic_load_explicit(&((struct tlbgen_mm *)mm)->context.asid_transition,
				    memory_order_relaxed);
}

/* mm_clear_asid_transition(): WRITE_ONCE(..., false). */
static inline void tlbgen__mm_clear_asid_transition(struct tlbgen_mm *mm)
{
	atomic_store_explicit(&mm->context.asid_transition, false, memory_order_relaxed);
}

/* A count for the broadcast's "IPIs avoided": a look, not a kernel access. */
static inline unsigned int tlbgen__peek_cpumask_others(const struct tlbgen_system *sys,
							const struct tlbgen_mm *mm, unsigned int cpu)
{
	unsigned int n = 0;

	for (unsigned long i = 0; i < sys->mask_longs; i++)
		n += (unsigned int)__builtin_popcountl(
			atomic_load_explicit(&mm->cpu_bitmap[i], memory_order_relaxed));
	return n - (cpumask_test_cpu(cpu, mm->cpu_bitmap) ? 1 : 0);
}

/* ---- looks from outside the model ------------------------------------------------------ */

/* The API's getters and teardown checks look at this state between kernel
 * operations: not a kernel access, so neither counted nor traced. */
static inline struct tlbgen_mm *tlbgen__peek_loaded_mm(const struct tlbgen_system *sys,
						       unsigned int cpu)
{
	return atomic_load_explicit(&tlbgen__cpu(sys, cpu)->tlbstate.loaded_mm,
				    memory_order_acquire);
}

static inline struct tlbgen_mm *tlbgen__peek_flush_mm(const struct tlbgen_system *sys,
						      unsigned int cpu)
{
	return atomic_load_explicit(&tlbgen__cpu(sys, cpu)->priv.flush_mm, memory_order_acquire);
}

static inline int tlbgen__peek_mm_pins(const struct tlbgen_mm *mm)
{
	return atomic_load(&((struct tlbgen_mm *)mm)->inflight);
}

static inline int tlbgen__private_mask_weight(const atomic_ulong *m, unsigned long nlongs)
{
	int w = 0;

	for (unsigned long i = 0; i < nlongs; i++)
		w += __builtin_popcountl(atomic_load_explicit(&m[i], memory_order_relaxed));
	return w;
}

/* ---- PTEs of the simulated page table ------------------------------------------------ */

/* The page-table lock (spin_lock(ptl)); one per PTE here, as a split PTL
 * would be with one PTE per table. Yields now and then so an oversubscribed
 * host lets the holder run. */
static inline void tlbgen__pte_lock(struct tlbgen_pte *p)
{
	unsigned int spins = 0;

	while (atomic_exchange_explicit(&p->lock, 1, memory_order_acquire))
		if (++spins % 64 == 0)
			sched_yield();
}

static inline void tlbgen__pte_unlock(struct tlbgen_pte *p)
{
	atomic_store_explicit(&p->lock, 0, memory_order_release);
}

/* ptep_get(): the access/dirty/write/none bits. */
static inline unsigned int tlbgen__pte_flags(struct tlbgen_pte *p, memory_order mo)
{
	return atomic_load_explicit(&p->flags, mo);
}

/* set_pte(): under the PTL, published with release. */
static inline void tlbgen__pte_set_flags(struct tlbgen_pte *p, unsigned int flags)
{
	atomic_store_explicit(&p->flags, flags, memory_order_release);
}

#endif
