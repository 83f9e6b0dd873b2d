/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/core/access-mm.h - the shared-access layer for an mm's own words:
 * mm->tlb_flush_batched, the batch pins, mm->context.global_asid and
 * asid_transition, the simulated page table's PTEs and its page-table
 * lock, kvm_steal_time.preempted, the API's untraced looks at CPU state,
 * and the memory model's hooks every accessor goes through.
 * Included by core/access.h, which holds the per-CPU and flush lines.
 */
#ifndef TLBGEN_CORE_ACCESS_MM_H
#define TLBGEN_CORE_ACCESS_MM_H

#include <sched.h>

#include "state.h"
#include "this_cpu.h"

/* ---- the memory model's hooks (the virtual mode's store buffers) ----------------------- */

/*
 * A plain store of `size` bytes to shared kernel state by `cpu`
 * (TLBGEN_CPU_RUNNING: the running one): true when the running CPU's store
 * buffer took it (tso), false when the caller stores to memory now.
 */
static inline bool tlbgen__sb_store(struct tlbgen_system *sys, unsigned int cpu,
				    enum tlbgen_sb_field f, void *addr, unsigned int size,
				    uint64_t val)
{
	return sys && unlikely(sys->exec) && sys->exec->store &&
	       sys->exec->store(sys, cpu, f, addr, size, val);
}

/* The running CPU's own load of such a field: true and *val when its store
 * buffer forwards a newer value than memory holds. */
static inline bool tlbgen__sb_load(const struct tlbgen_system *sys, unsigned int cpu,
				   const void *addr, uint64_t *val)
{
	return sys && unlikely(sys->exec) && sys->exec->load && sys->exec->load(sys, cpu, addr, val);
}

/* An untraced locked RMW or a write kept in order: the buffer drains first. */
static inline void tlbgen__sb_fence(struct tlbgen_system *sys, unsigned int cpu,
				    enum tlbgen_fence_kind why)
{
	if (sys && unlikely(sys->exec) && sys->exec->fence)
		sys->exec->fence(sys, cpu, why);
}

/* The system whose CPU this thread runs, for accessors whose callers pass
 * none (csd, PTE): the hooks above act only on a virtual system's CPU. */
static inline struct tlbgen_system *tlbgen__running_sys(void)
{
	return tlbgen__tls.sys;
}

/* ---- mm->tlb_flush_batched (mm/rmap.c) ---------------------------------------------- */

static inline int tlbgen__mm_batched_read(struct tlbgen_mm *mm)
{
	return atomic_load(&mm->tlb_flush_batched);
}

/* atomic_inc() and atomic_try_cmpxchg(): locked RMWs, full barriers. */
static inline void tlbgen__mm_batched_inc(struct tlbgen_mm *mm)
{
	tlbgen__sb_fence(mm->priv.sys, TLBGEN_CPU_RUNNING, TLBGEN_FENCE_LOCKED);
	atomic_fetch_add(&mm->tlb_flush_batched, 1);
}

static inline bool tlbgen__mm_batched_cmpxchg(struct tlbgen_mm *mm, int *old, int new,
					      bool weak)
{
	tlbgen__sb_fence(mm->priv.sys, TLBGEN_CPU_RUNNING, TLBGEN_FENCE_LOCKED);
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
	long v;

	tlbgen__sb_fence(sys, cpu, TLBGEN_FENCE_LOCKED);
	v = atomic_fetch_add_explicit(&w->val, d, memory_order_seq_cst) + d;

	if (unlikely(sys->exec) && sys->exec->kword)
		sys->exec->kword(sys, cpu, w, TLBGEN_KWORD_RMW);
	return v;
}

/* atomic_long_read() of a kernel word, as the access issues. */
static inline long tlbgen__kword_read(struct tlbgen_system *sys, unsigned int cpu,
				      struct tlbgen_kword *w)
{
	long v = atomic_load_explicit(&w->val, memory_order_seq_cst);

	if (unlikely(sys->exec) && sys->exec->kword)
		sys->exec->kword(sys, cpu, w, TLBGEN_KWORD_READ);
	return v;
}

/* prefetchw() of a kernel word: its line fetched for ownership (threaded
 * mode issues the real instruction), the value untouched, no barrier. */
static inline void tlbgen__kword_prefetchw(struct tlbgen_system *sys, unsigned int cpu,
					   struct tlbgen_kword *w)
{
	__builtin_prefetch(&w->val, 1, 3);
	if (unlikely(sys->exec) && sys->exec->kword)
		sys->exec->kword(sys, cpu, w, TLBGEN_KWORD_PREFETCHW);
}

/* A plain store to a kernel word's line whose value the caller keeps
 * elsewhere (a spinlock's release: smp_store_release() of its locked byte). */
static inline void tlbgen__kword_store(struct tlbgen_system *sys, unsigned int cpu,
				       struct tlbgen_kword *w)
{
	if (unlikely(sys->exec) && sys->exec->kword)
		sys->exec->kword(sys, cpu, w, TLBGEN_KWORD_STORE);
}

/* ---- cpu_tlbstate.loaded_mm_asid, this CPU's side ------------------------------------ */

/* this_cpu_write(cpu_tlbstate.loaded_mm_asid): finish_asid_transition()
 * reads it remotely, so it is a relaxed atomic store. */
static inline void tlbgen__loaded_mm_asid_write(struct tlbgen_system *sys, unsigned int cpu,
						uint16_t asid)
{
	_Atomic uint16_t *p = &tlbgen__cpu(sys, cpu)->tlbstate.loaded_mm_asid;

	if (tlbgen__sb_store(sys, cpu, TLBGEN_SB_LOADED_MM_ASID, p, sizeof(*p), asid))
		return;
	atomic_store_explicit(&tlbgen__cpu(sys, cpu)->tlbstate.loaded_mm_asid, asid,
			      memory_order_relaxed);
}

static inline uint16_t tlbgen__this_loaded_mm_asid(const struct tlbgen_system *sys,
						   unsigned int cpu)
{
	uint64_t v;

	if (tlbgen__sb_load(sys, cpu, &tlbgen__cpu(sys, cpu)->tlbstate.loaded_mm_asid, &v))
		return (uint16_t)v;
	return atomic_load_explicit(&tlbgen__cpu(sys, cpu)->tlbstate.loaded_mm_asid,
				    memory_order_relaxed);
}

/* ---- mm->context.global_asid and asid_transition (d504d1247e36) -------------------- */

/* mm_global_asid(): 0 without the feature; acquire pairs with the assign.
 * Not traced: written once per mm lifetime, read-mostly. */
static inline uint16_t tlbgen__mm_global_asid(const struct tlbgen_system *sys,
					      const struct tlbgen_mm *mm)
{
	uint64_t v;

	if (!tlbgen__invlpgb_on(sys))
		return 0;
	if (tlbgen__sb_load(sys, TLBGEN_CPU_RUNNING, &mm->context.global_asid, &v))
		return (uint16_t)v;
	return atomic_load_explicit(&((struct tlbgen_mm *)mm)->context.global_asid,
				    memory_order_acquire);
}

/* mm_assign_global_asid(): a flush that sees the ASID must also see
 * asid_transition set (finish_asid_transition() relies on it); on x86 two
 * plain stores in program order (the kernel's smp_store_release()). */
static inline void tlbgen__mm_assign_global_asid(struct tlbgen_mm *mm, uint16_t asid)
{
	struct tlbgen_system *sys = mm->priv.sys;

	if (!tlbgen__sb_store(sys, TLBGEN_CPU_RUNNING, TLBGEN_SB_ASID_TRANSITION,
			      &mm->context.asid_transition, sizeof(mm->context.asid_transition), 1))
		atomic_store_explicit(&mm->context.asid_transition, true, memory_order_relaxed);
	if (!tlbgen__sb_store(sys, TLBGEN_CPU_RUNNING, TLBGEN_SB_GLOBAL_ASID,
			      &mm->context.global_asid, sizeof(mm->context.global_asid), asid))
		atomic_store_explicit(&mm->context.global_asid, asid, memory_order_release);
}

/* mm_free_global_asid()'s clear, under global_asid_lock. */
static inline uint16_t tlbgen__mm_take_global_asid(struct tlbgen_mm *mm)
{
	struct tlbgen_system *sys = mm->priv.sys;
	uint16_t asid;
	uint64_t v;

	if (tlbgen__sb_load(sys, TLBGEN_CPU_RUNNING, &mm->context.global_asid, &v))
		asid = (uint16_t)v;
	else
		asid = atomic_load_explicit(&mm->context.global_asid, memory_order_relaxed);
	if (!tlbgen__sb_store(sys, TLBGEN_CPU_RUNNING, TLBGEN_SB_GLOBAL_ASID,
			      &mm->context.global_asid, sizeof(mm->context.global_asid), 0))
		atomic_store_explicit(&mm->context.global_asid, 0, memory_order_relaxed);
	return asid;
}

/* mm_in_asid_transition(): READ_ONCE(mm->context.asid_transition). */
static inline bool tlbgen__mm_in_asid_transition(const struct tlbgen_system *sys,
						 const struct tlbgen_mm *mm)
{
	uint64_t v;

	if (!tlbgen__invlpgb_on(sys) || !mm)
		return false;
	if (tlbgen__sb_load(sys, TLBGEN_CPU_RUNNING, &mm->context.asid_transition, &v))
		return v != 0;
	return atomic_load_explicit(&((struct tlbgen_mm *)mm)->context.asid_transition,
				    memory_order_relaxed);
}

/* mm_clear_asid_transition(): WRITE_ONCE(..., false). */
static inline void tlbgen__mm_clear_asid_transition(struct tlbgen_mm *mm)
{
	if (!tlbgen__sb_store(mm->priv.sys, TLBGEN_CPU_RUNNING, TLBGEN_SB_ASID_TRANSITION,
			      &mm->context.asid_transition, sizeof(mm->context.asid_transition), 0))
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

/* ---- kvm_steal_time.preempted ------------------------------------------------------ */

/* READ_ONCE(src->preempted) of vCPU `t`. */
static inline uint8_t tlbgen__steal_time_read(struct tlbgen_system *sys, unsigned int t)
{
	return atomic_load_explicit(&sys->cpus[t]->steal_time.preempted, memory_order_relaxed);
}

/* try_cmpxchg(&src->preempted, old, new): a full barrier, as in the kernel. */
static inline bool tlbgen__steal_time_cmpxchg(struct tlbgen_system *sys, unsigned int t,
					      uint8_t *old, uint8_t new)
{
	tlbgen__sb_fence(sys, TLBGEN_CPU_RUNNING, TLBGEN_FENCE_LOCKED);
	return atomic_compare_exchange_strong(&sys->cpus[t]->steal_time.preempted, old, new);
}

/* The host: kvm_steal_time_set_preempted() (set) and record_steal_time() (xchg 0). */
static inline uint8_t tlbgen__steal_time_xchg(struct tlbgen_system *sys, unsigned int t,
					      uint8_t v)
{
	return atomic_exchange(&sys->cpus[t]->steal_time.preempted, v);
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

	tlbgen__sb_fence(tlbgen__running_sys(), TLBGEN_CPU_RUNNING, TLBGEN_FENCE_LOCKED);
	while (atomic_exchange_explicit(&p->lock, 1, memory_order_acquire))
		if (++spins % 64 == 0)
			sched_yield();
}

/* Not buffered (the oracle dates a PTE change when it is made): the
 * stores before it reach memory first, so none passes an earlier one. */
static inline void tlbgen__pte_unlock(struct tlbgen_pte *p)
{
	tlbgen__sb_fence(tlbgen__running_sys(), TLBGEN_CPU_RUNNING, TLBGEN_FENCE_PTE);
	atomic_store_explicit(&p->lock, 0, memory_order_release);
}

/* What the PTE maps, as the workload layer's fault made it: an anonymous
 * folio of its own (freed when zapped), or not (the zero page, a page
 * cache folio). Only the CPU that maps or zaps the page touches it. */
static inline void tlbgen__pte_set_anon(struct tlbgen_pte *p, bool anon)
{
	atomic_store_explicit(&p->anon_folio, anon, memory_order_relaxed);
}

static inline bool tlbgen__pte_take_anon(struct tlbgen_pte *p)
{
	return atomic_exchange_explicit(&p->anon_folio, false, memory_order_relaxed);
}

/* ptep_get(): the access/dirty/write/none bits. */
static inline unsigned int tlbgen__pte_flags(struct tlbgen_pte *p, memory_order mo)
{
	return atomic_load_explicit(&p->flags, mo);
}

/* set_pte(): under the PTL, published with release. */
static inline void tlbgen__pte_set_flags(struct tlbgen_pte *p, unsigned int flags)
{
	tlbgen__sb_fence(tlbgen__running_sys(), TLBGEN_CPU_RUNNING, TLBGEN_FENCE_PTE);
	atomic_store_explicit(&p->flags, flags, memory_order_release);
}

#endif
