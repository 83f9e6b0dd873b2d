/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/core/access.h - the shared-access layer: every read, write, RMW and
 * fence on kernel state that more than one CPU touches goes through one of
 * these accessors, which name the line kind (enum tlbgen_line) they touch.
 *
 * They count and trace (tlbgen_system__set_trace()); they are the one place
 * where an execution mode may also charge costs, schedule or buffer
 * stores. The policy code (kernel/, asm-generic/, arch/, mm/) uses no bare
 * atomic of its own (tests/structure/check-lib.py checks this).
 *
 * Memory orders follow what the kernel gets from x86: a locked RMW is a full
 * barrier (seq_cst); a plain store is a release store under TSO; a read the
 * kernel orders after a full barrier is seq_cst here so that C11 orders it
 * too (it is still a plain load on x86, so dropping the barrier on the other
 * side still opens the hardware window).
 */
#ifndef TLBGEN_CORE_ACCESS_H
#define TLBGEN_CORE_ACCESS_H

#include "access-mm.h"
#include "stats.h"

static inline void tlbgen__trace_line(struct tlbgen_system *sys, unsigned int cpu,
				      enum tlbgen_line line, const void *addr,
				      enum tlbgen_access_op op)
{
	uintptr_t id = (uintptr_t)addr & ~(uintptr_t)(TLBGEN_CACHELINE - 1);

	if (unlikely(sys->tracing) && sys->trace.line_access)
		sys->trace.line_access(sys->trace.ctx, cpu, line,
				       tlbgen__line_id(&sys->line_ids, id), op);
	if (unlikely(sys->exec))
		sys->exec->access(sys, cpu, line, id, op);
}

static inline void tlbgen__trace_flush(struct tlbgen_system *sys, unsigned int cpu,
				       enum tlbgen_flush_kind kind, unsigned long pages)
{
	if (unlikely(sys->tracing) && sys->trace.flush)
		sys->trace.flush(sys->trace.ctx, cpu, kind, pages);
}

/* ---- fences ---------------------------------------------------------------- */

/* smp_mb(): a full barrier (mfence or a locked RMW on x86): the CPU's
 * store buffer drains before its next load. */
static inline void tlbgen__smp_mb(struct tlbgen_system *sys, unsigned int cpu)
{
	if (unlikely(sys->exec) && sys->exec->fence)
		sys->exec->fence(sys, cpu, TLBGEN_FENCE_SMP_MB);
	atomic_thread_fence(memory_order_seq_cst);
}

/* The MOV to CR3 of load_new_mm_cr3(): serialising, so the store buffer
 * drains there; nothing to order in C11 (no CR3 exists in threaded mode). */
static inline void tlbgen__cr3_write(struct tlbgen_system *sys, unsigned int cpu)
{
	if (unlikely(sys->exec) && sys->exec->fence)
		sys->exec->fence(sys, cpu, TLBGEN_FENCE_CR3);
}

/* smp_rmb(): a compiler barrier on x86 (loads are not reordered with
 * loads); an acquire fence in C11 terms. */
static inline void tlbgen__smp_rmb(struct tlbgen_system *sys, unsigned int cpu)
{
	(void)sys;
	(void)cpu;
	atomic_thread_fence(memory_order_acquire);
}

/* smp_wmb(): a compiler barrier on x86 (stores are not reordered with
 * stores); a release fence in C11 terms. */
static inline void tlbgen__smp_wmb(struct tlbgen_system *sys, unsigned int cpu)
{
	(void)sys;
	(void)cpu;
	atomic_thread_fence(memory_order_release);
}

/* ---- mm->context.tlb_gen ---------------------------------------------------- */

/* inc_mm_tlb_gen(): a locked RMW, hence also a full barrier. */
static inline uint64_t tlbgen__mm_tlb_gen_inc(struct tlbgen_system *sys, unsigned int cpu,
					      struct tlbgen_mm *mm)
{
	tlbgen__count(sys, cpu, mm, TLBGEN_STAT_TLB_GEN_RMW);
	tlbgen__trace_line(sys, cpu, TLBGEN_LINE_MM_TLB_GEN, &mm->context, TLBGEN_OP_RMW);
	return atomic_fetch_add_explicit(&mm->context.tlb_gen, 1, memory_order_seq_cst) + 1;
}

/* atomic64_read(&mm->context.tlb_gen), counted as a tlb_gen read. */
static inline uint64_t tlbgen__mm_tlb_gen_read(struct tlbgen_system *sys, unsigned int cpu,
					       struct tlbgen_mm *mm, memory_order mo)
{
	tlbgen__count(sys, cpu, mm, TLBGEN_STAT_TLB_GEN_READ);
	tlbgen__trace_line(sys, cpu, TLBGEN_LINE_MM_TLB_GEN, &mm->context, TLBGEN_OP_READ);
	return atomic_load_explicit(&mm->context.tlb_gen, mo);
}

/* ---- mm->context.next_trim_cpumask (6db2526c1d69) ------------------------------ */

static inline uint64_t tlbgen__mm_next_trim_read(struct tlbgen_system *sys, unsigned int cpu,
						 struct tlbgen_mm *mm)
{
	tlbgen__trace_line(sys, cpu, TLBGEN_LINE_MM_TRIM, &mm->context, TLBGEN_OP_READ);
	return atomic_load_explicit(&mm->context.next_trim_cpumask, memory_order_relaxed);
}

static inline void tlbgen__mm_next_trim_write(struct tlbgen_system *sys, unsigned int cpu,
					      struct tlbgen_mm *mm, uint64_t v)
{
	tlbgen__trace_line(sys, cpu, TLBGEN_LINE_MM_TRIM, &mm->context, TLBGEN_OP_WRITE);
	atomic_store_explicit(&mm->context.next_trim_cpumask, v, memory_order_relaxed);
}

/* ---- mm_cpumask ------------------------------------------------------------------ */

/* cpumask_set_cpu(): a locked OR, the full barrier switch_mm_irqs_off()
 * relies on before its tlb_gen read. */
static inline void tlbgen__mm_cpumask_set(struct tlbgen_system *sys, unsigned int cpu,
					  struct tlbgen_mm *mm)
{
	tlbgen__count(sys, cpu, mm, TLBGEN_STAT_CPUMASK_SET);
	tlbgen__trace_line(sys, cpu, TLBGEN_LINE_MM_CPUMASK,
			   &mm->cpu_bitmap[TLBGEN_BIT_WORD(cpu)], TLBGEN_OP_RMW);
	cpumask_set_cpu(cpu, mm->cpu_bitmap);
}

static inline void tlbgen__mm_cpumask_clear(struct tlbgen_system *sys, unsigned int cpu,
					    struct tlbgen_mm *mm)
{
	tlbgen__count(sys, cpu, mm, TLBGEN_STAT_CPUMASK_CLEAR);
	tlbgen__trace_line(sys, cpu, TLBGEN_LINE_MM_CPUMASK,
			   &mm->cpu_bitmap[TLBGEN_BIT_WORD(cpu)], TLBGEN_OP_RMW);
	cpumask_clear_cpu(cpu, mm->cpu_bitmap);
}

static inline bool tlbgen__mm_cpumask_test(struct tlbgen_system *sys, unsigned int cpu,
					   struct tlbgen_mm *mm)
{
	tlbgen__trace_line(sys, cpu, TLBGEN_LINE_MM_CPUMASK,
			   &mm->cpu_bitmap[TLBGEN_BIT_WORD(cpu)], TLBGEN_OP_READ);
	return cpumask_test_cpu(cpu, mm->cpu_bitmap);
}

/* cpumask_any_but(mm_cpumask(mm), cpu) < nr_cpu_ids: anyone else in it? */
static inline bool tlbgen__mm_cpumask_others(struct tlbgen_system *sys, unsigned int cpu,
					     struct tlbgen_mm *mm)
{
	tlbgen__trace_line(sys, cpu, TLBGEN_LINE_MM_CPUMASK, &mm->cpu_bitmap[0], TLBGEN_OP_READ);
	return cpumask_any_but(mm->cpu_bitmap, sys->nr_cpus, cpu) < sys->nr_cpus;
}

/* cpumask_weight(mm_cpumask(mm)), word by word. */
static inline unsigned int tlbgen__mm_cpumask_weight(struct tlbgen_system *sys, unsigned int cpu,
						     struct tlbgen_mm *mm)
{
	unsigned int n = 0;

	for (unsigned long i = 0; i < sys->mask_longs; i++) {
		tlbgen__trace_line(sys, cpu, TLBGEN_LINE_MM_CPUMASK, &mm->cpu_bitmap[i],
				   TLBGEN_OP_READ);
		n += (unsigned int)__builtin_popcountl(
			atomic_load_explicit(&mm->cpu_bitmap[i], memory_order_relaxed));
	}
	return n;
}

/* cpumask_or(dst, dst, mm_cpumask(mm)) into a task-private mask. */
static inline void tlbgen__mm_cpumask_or_into(struct tlbgen_system *sys, unsigned int cpu,
					      struct tlbgen_mm *mm, atomic_ulong *dst)
{
	for (unsigned long i = 0; i < sys->mask_longs; i++) {
		unsigned long w = atomic_load_explicit(&mm->cpu_bitmap[i], memory_order_relaxed);

		tlbgen__trace_line(sys, cpu, TLBGEN_LINE_MM_CPUMASK, &mm->cpu_bitmap[i],
				   TLBGEN_OP_READ);
		atomic_fetch_or_explicit(&dst[i], w, memory_order_relaxed);
	}
}

/* A copy of mm_cpumask, word by word (not traced: the callers that take
 * one go on to the call engine, which reads the mask again). */
static inline void tlbgen__mm_cpumask_snapshot(struct tlbgen_system *sys, struct tlbgen_mm *mm,
					       unsigned long *dst)
{
	cpumask_snapshot(dst, mm->cpu_bitmap, sys->mask_longs);
}

/* A task-private cpumask (a batch's): snapshot and clear; no other CPU. */
static inline void tlbgen__private_mask_snapshot(unsigned long *dst, const atomic_ulong *src,
						 unsigned long nlongs)
{
	cpumask_snapshot(dst, src, nlongs);
}

static inline void tlbgen__private_mask_clear(atomic_ulong *m, unsigned long nlongs)
{
	for (unsigned long i = 0; i < nlongs; i++)
		atomic_store_explicit(&m[i], 0, memory_order_relaxed);
}

/* ---- cpu_tlbstate.loaded_mm and cpu_tlbstate_shared.is_lazy ------------------------ */

/* this_cpu_read(cpu_tlbstate.loaded_mm): the CPU's own read, which x86
 * forwards from its store buffer. */
static inline struct tlbgen_mm *tlbgen__this_loaded_mm(const struct tlbgen_system *sys,
						       unsigned int cpu)
{
	uintptr_t v;

	if (unlikely(sys->exec) && sys->exec->load &&
	    sys->exec->load(sys, cpu, TLBGEN_SB_LOADED_MM, &v))
		return (struct tlbgen_mm *)v;
	return atomic_load_explicit(&tlbgen__cpu(sys, cpu)->tlbstate.loaded_mm,
				    memory_order_relaxed);
}

/* this_cpu_write(cpu_tlbstate.loaded_mm, mm): a plain mov, a release
 * store under TSO, which may sit in the store buffer. */
static inline void tlbgen__loaded_mm_write(struct tlbgen_system *sys, unsigned int cpu,
					   struct tlbgen_mm *mm)
{
	struct tlbgen_cpu *c = tlbgen__cpu(sys, cpu);

	tlbgen__trace_line(sys, cpu, TLBGEN_LINE_TLBSTATE, &c->tlbstate, TLBGEN_OP_WRITE);
	if (unlikely(sys->exec) && sys->exec->store &&
	    sys->exec->store(sys, cpu, TLBGEN_SB_LOADED_MM, (uintptr_t)mm))
		return;
	atomic_store_explicit(&c->tlbstate.loaded_mm, mm, memory_order_release);
}

/* per_cpu(cpu_tlbstate.loaded_mm, cpu) read by `reader`, ordered after its
 * inc_mm_tlb_gen() as the kernel's full barrier orders it. */
static inline struct tlbgen_mm *tlbgen__remote_loaded_mm(struct tlbgen_system *sys,
							 unsigned int reader, unsigned int cpu)
{
	struct tlbgen_cpu *c = tlbgen__cpu(sys, cpu);

	tlbgen__trace_line(sys, reader, TLBGEN_LINE_TLBSTATE, &c->tlbstate, TLBGEN_OP_READ);
	return atomic_load_explicit(&c->tlbstate.loaded_mm, memory_order_seq_cst);
}

static inline bool tlbgen__this_is_lazy(const struct tlbgen_system *sys, unsigned int cpu)
{
	uintptr_t v;

	if (unlikely(sys->exec) && sys->exec->load &&
	    sys->exec->load(sys, cpu, TLBGEN_SB_IS_LAZY, &v))
		return v != 0;
	return atomic_load_explicit(&tlbgen__cpu(sys, cpu)->shared.is_lazy,
				    memory_order_relaxed);
}

static inline void tlbgen__is_lazy_write(struct tlbgen_system *sys, unsigned int cpu, bool lazy)
{
	struct tlbgen_cpu *c = tlbgen__cpu(sys, cpu);

	tlbgen__trace_line(sys, cpu, TLBGEN_LINE_TLBSTATE_SHARED, &c->shared, TLBGEN_OP_WRITE);
	if (unlikely(sys->exec) && sys->exec->store &&
	    sys->exec->store(sys, cpu, TLBGEN_SB_IS_LAZY, lazy))
		return;
	atomic_store_explicit(&c->shared.is_lazy, lazy, memory_order_relaxed);
}

static inline bool tlbgen__remote_is_lazy(struct tlbgen_system *sys, unsigned int reader,
					  unsigned int cpu)
{
	struct tlbgen_cpu *c = tlbgen__cpu(sys, cpu);

	tlbgen__trace_line(sys, reader, TLBGEN_LINE_TLBSTATE_SHARED, &c->shared, TLBGEN_OP_READ);
	return atomic_load_explicit(&c->shared.is_lazy, memory_order_seq_cst);
}

/* should_flush_tlb() on `cpu` sends `target` no IPI (for an explorer's trace). */
static inline void tlbgen__note_ipi_skipped(struct tlbgen_system *sys, unsigned int cpu,
					    unsigned int target)
{
	if (unlikely(sys->exec) && sys->exec->ipi_skipped)
		sys->exec->ipi_skipped(sys, cpu, target);
}

/* READ_ONCE(per_cpu(cpu_tlbstate.loaded_mm_asid, cpu)) by `reader`. */
static inline uint16_t tlbgen__remote_loaded_mm_asid(struct tlbgen_system *sys,
						     unsigned int reader, unsigned int cpu)
{
	struct tlbgen_cpu *c = tlbgen__cpu(sys, cpu);

	tlbgen__trace_line(sys, reader, TLBGEN_LINE_TLBSTATE, &c->tlbstate, TLBGEN_OP_READ);
	return atomic_load_explicit(&c->tlbstate.loaded_mm_asid, memory_order_relaxed);
}

/* ---- flush_tlb_info ------------------------------------------------------------------ */

/* The initiator writes its flush_tlb_info, or a target reads it. Its fields
 * are then plain accesses: nobody writes them while a target reads. */
static inline void tlbgen__flush_info_access(struct tlbgen_system *sys, unsigned int cpu,
					     const struct tlbgen_flush_tlb_info *info,
					     enum tlbgen_access_op op)
{
	tlbgen__trace_line(sys, cpu, TLBGEN_LINE_FLUSH_TLB_INFO, info, op);
}

/* The mm of the flush `cpu` has in flight (tlbgen_mm__destroy() looks). */
static inline void tlbgen__flush_mm_publish(struct tlbgen_system *sys, unsigned int cpu,
					    struct tlbgen_mm *mm)
{
	atomic_store_explicit(&tlbgen__cpu(sys, cpu)->priv.flush_mm, mm,
			      mm ? memory_order_relaxed : memory_order_release);
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
	return atomic_compare_exchange_strong(&sys->cpus[t]->steal_time.preempted, old, new);
}

/* The host: kvm_steal_time_set_preempted() (set) and record_steal_time() (xchg 0). */
static inline uint8_t tlbgen__steal_time_xchg(struct tlbgen_system *sys, unsigned int t,
					      uint8_t v)
{
	return atomic_exchange(&sys->cpus[t]->steal_time.preempted, v);
}

/* ---- csd ------------------------------------------------------------------------------ */

static inline bool tlbgen__csd_locked(const struct tlbgen_csd *csd)
{
	return atomic_load_explicit(&csd->u_flags, memory_order_acquire) & CSD_FLAG_LOCK;
}

/* csd_lock_wait()'s read, by the initiator, of its csd at the target. */
static inline bool tlbgen__csd_wait_read(struct tlbgen_system *sys, unsigned int cpu,
					 const struct tlbgen_csd *csd)
{
	tlbgen__trace_line(sys, cpu, TLBGEN_LINE_CSD, csd, TLBGEN_OP_READ);
	return tlbgen__csd_locked(csd);
}

static inline unsigned int tlbgen__csd_flags(const struct tlbgen_csd *csd)
{
	return atomic_load_explicit(&csd->u_flags, memory_order_relaxed);
}

/* Only the owner writes u_flags while it is locked: a plain store, no
 * locked RMW draining the store buffer on the hot path. The smp_wmb()
 * orders the flags before the csd's other fields. */
static inline void tlbgen__csd_set_flags(struct tlbgen_csd *csd, unsigned int flags)
{
	atomic_store_explicit(&csd->u_flags, flags, memory_order_relaxed);
}

/* csd_unlock(): release, so the initiator sees everything func did. */
static inline void tlbgen__csd_unlock(struct tlbgen_system *sys, unsigned int cpu,
				      struct tlbgen_csd *csd)
{
	tlbgen__trace_line(sys, cpu, TLBGEN_LINE_CSD, csd, TLBGEN_OP_WRITE);
	atomic_store_explicit(&csd->u_flags, 0, memory_order_release);
}

/* ---- call_single_queue --------------------------------------------------------------- */

/*
 * liburcu 0.13's inline _cds_lfs_push() takes &head->node of its NULL first
 * guess, which UBSan stops on inside the header. liburcu-cds exports the
 * same function out of line, built without our sanitizers: use that one.
 */
#undef cds_lfs_push
extern bool cds_lfs_push(cds_lfs_stack_ptr_t s, struct cds_lfs_node *node);

static inline bool tlbgen__call_queue_empty(struct tlbgen_call_queue *q)
{
	return cds_lfs_empty(&q->llist);
}

/* llist_add(): true when the queue was empty, the only case that IPIs. */
/*
 * A stepped system is driven by one host thread (tlbgen/stepped.h), so
 * there the queue is changed with plain accesses: the same list, the same
 * llist_add() and llist_del_all() results and the same traced RMWs, but
 * not two lock-prefixed instructions per call delivered. Threaded systems
 * use liburcu's atomics. Returns false when the stack was empty, as
 * cds_lfs_push() does.
 */
static inline bool tlbgen__lfs_push(const struct tlbgen_system *sys, struct tlbgen_call_queue *q,
				    struct tlbgen_csd *csd)
{
	struct cds_lfs_head *head;

	if (sys->mode != TLBGEN_MODE_STEPPED)
		return cds_lfs_push(&q->llist, &csd->node);
	head = q->llist.head;
	csd->node.next = head ? &head->node : NULL;
	q->llist.head = (struct cds_lfs_head *)&csd->node;	/* node is head's first field */
	return head != NULL;
}

static inline struct cds_lfs_head *tlbgen__lfs_pop_all(const struct tlbgen_system *sys,
						       struct tlbgen_call_queue *q)
{
	struct cds_lfs_head *head;

	if (sys->mode != TLBGEN_MODE_STEPPED)
		return __cds_lfs_pop_all(&q->llist);
	head = q->llist.head;
	q->llist.head = NULL;
	return head;
}

static inline bool tlbgen__call_queue_push(struct tlbgen_system *sys, unsigned int cpu,
					   struct tlbgen_call_queue *q, struct tlbgen_csd *csd)
{
	tlbgen__trace_line(sys, cpu, TLBGEN_LINE_CALL_QUEUE, q, TLBGEN_OP_RMW);
	tlbgen_tsan_release(q);
	return !tlbgen__lfs_push(sys, q, csd);
}

/* Put back a csd taken by tlbgen__call_queue_take(), untraced: the
 * stepped mode's out-of-order delivery, not a kernel access. */
static inline void tlbgen__call_queue_requeue(const struct tlbgen_system *sys,
					      struct tlbgen_call_queue *q, struct tlbgen_csd *csd)
{
	tlbgen__lfs_push(sys, q, csd);
}

/*
 * llist_del_all() and llist_reverse_order(): take every queued csd, oldest
 * first, as a private list linked through the csds' own nodes, as the
 * kernel walks it; NULL when empty. Only the queue's CPU takes. No scratch
 * array: one of nr_cpus pointers per CPU would be 64 KiB a CPU at 8192.
 */
static inline struct tlbgen_csd *tlbgen__call_queue_take(struct tlbgen_system *sys,
							 unsigned int cpu,
							 struct tlbgen_call_queue *q)
{
	struct cds_lfs_head *head;
	struct cds_lfs_node *node, *next, *prev = NULL;

	tlbgen__trace_line(sys, cpu, TLBGEN_LINE_CALL_QUEUE, q, TLBGEN_OP_RMW);
	head = tlbgen__lfs_pop_all(sys, q);
	tlbgen_tsan_acquire(q);
	for (node = head ? &head->node : NULL; node; node = next) {
		next = node->next;
		/* It will be written (csd_unlock): fetch it exclusive at once
		 * rather than shared and then upgraded. */
		__builtin_prefetch(node, 1, 3);
		node->next = prev;
		prev = node;
	}
	return prev ? caa_container_of(prev, struct tlbgen_csd, node) : NULL;
}

/* The csd after `csd` on a list from tlbgen__call_queue_take(), or NULL. */
static inline struct tlbgen_csd *tlbgen__csd_next(const struct tlbgen_csd *csd)
{
	return csd->node.next ? caa_container_of(csd->node.next, struct tlbgen_csd, node) : NULL;
}

/* Unlink the csd after `prev` on such a list: make `next` follow it. */
static inline void tlbgen__csd_set_next(struct tlbgen_csd *prev, struct tlbgen_csd *next)
{
	prev->node.next = next ? &next->node : NULL;
}

/* Entries queued now (a racy count, for tlbgen_cpu__pending_calls()). */
static inline unsigned int tlbgen__call_queue_len(struct tlbgen_call_queue *q)
{
	struct cds_lfs_head *head = CMM_LOAD_SHARED(q->llist.head);
	struct cds_lfs_node *node;
	unsigned int n = 0;

	if (head)
		cds_lfs_for_each(head, node)
			n++;
	return n;
}

static inline void tlbgen__call_queue_init(struct tlbgen_call_queue *q)
{
	__cds_lfs_init(&q->llist);
}

#endif
