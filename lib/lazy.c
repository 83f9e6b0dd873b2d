// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/lazy.c - lazy TLB and mm_cpumask policy: switch_mm_irqs_off(),
 * choose_new_asid(), enter_lazy_tlb(), leave_mm(), and the per-target IPI
 * condition (tlb_is_not_lazy() / should_flush_tlb() / should_trim_cpumask()).
 *
 * The ordering that matters here is a store-buffering (SB) pattern:
 *
 *   switch_mm_irqs_off() on B           flush_tlb_mm_range() on A
 *     W loaded_mm = SWITCHING             RMW tlb_gen++   (full barrier)
 *     smp_mb() or cpumask RMW             R B's loaded_mm (and is_lazy)
 *     R tlb_gen
 *
 * At least one side must see the other's write: either B reads the new
 * tlb_gen (and flushes in switch_mm) or A sees SWITCHING/the new mm and
 * sends B the IPI. With neither barrier on B's side (the 83b0177a6c48 bug,
 * CVE-2025-40174), x86's store buffer lets both read old values and B keeps
 * a stale TLB.
 */
#include "internal.h"

void tlbgen__cpumask_set_cpu(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_mm *mm)
{
	tlbgen__count(sys, cpu, mm, TLBGEN_STAT_CPUMASK_SET);
	tlbgen__trace_line(sys, cpu, TLBGEN_LINE_MM_CPUMASK,
			   &mm->cpu_bitmap[TLBGEN_BIT_WORD(cpu)], TLBGEN_OP_RMW);
	cpumask_set_cpu(cpu, mm->cpu_bitmap);
}

void tlbgen__cpumask_clear_cpu(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_mm *mm)
{
	tlbgen__count(sys, cpu, mm, TLBGEN_STAT_CPUMASK_CLEAR);
	tlbgen__trace_line(sys, cpu, TLBGEN_LINE_MM_CPUMASK,
			   &mm->cpu_bitmap[TLBGEN_BIT_WORD(cpu)], TLBGEN_OP_RMW);
	cpumask_clear_cpu(cpu, mm->cpu_bitmap);
}

static bool tlbgen__cpumask_test(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_mm *mm)
{
	tlbgen__trace_line(sys, cpu, TLBGEN_LINE_MM_CPUMASK,
			   &mm->cpu_bitmap[TLBGEN_BIT_WORD(cpu)], TLBGEN_OP_READ);
	return cpumask_test_cpu(cpu, mm->cpu_bitmap);
}

/*
 * choose_new_asid(): reuse the slot that already holds next's ctx_id (flush
 * only if it is behind next_tlb_gen), else take the round-robin victim
 * next_asid and flush it.
 */
static void choose_new_asid(struct tlbgen_cpu *c, struct tlbgen_mm *next, uint64_t next_tlb_gen,
			    uint16_t *new_asid, bool *need_flush)
{
	struct tlbgen_tlb_state *ts = &c->tlbstate;

	for (uint16_t asid = 0; asid < TLBGEN_TLB_NR_DYN_ASIDS; asid++) {
		if (ts->ctxs[asid].ctx_id != next->context.ctx_id)
			continue;
		*new_asid = asid;
		*need_flush = ts->ctxs[asid].tlb_gen < next_tlb_gen;
		return;
	}
	*new_asid = ts->next_asid++;
	if (*new_asid >= TLBGEN_TLB_NR_DYN_ASIDS) {
		*new_asid = 0;
		ts->next_asid = 1;
	}
	*need_flush = true;
}

static void tlbgen__store_loaded_mm(struct tlbgen_system *sys, unsigned int cpu,
				    struct tlbgen_mm *mm)
{
	struct tlbgen_cpu *c = tlbgen_cpu(sys, cpu);

	tlbgen__trace_line(sys, cpu, TLBGEN_LINE_TLBSTATE, &c->tlbstate, TLBGEN_OP_WRITE);
	/* this_cpu_write(): a plain store, i.e. a release store under TSO. */
	atomic_store_explicit(&c->tlbstate.loaded_mm, mm, memory_order_release);
}

static void tlbgen__set_lazy(struct tlbgen_system *sys, unsigned int cpu, bool lazy)
{
	struct tlbgen_cpu *c = tlbgen_cpu(sys, cpu);

	tlbgen__trace_line(sys, cpu, TLBGEN_LINE_TLBSTATE_SHARED, &c->shared, TLBGEN_OP_WRITE);
	atomic_store_explicit(&c->shared.is_lazy, lazy, memory_order_relaxed);
}

/*
 * The tlb_gen read of switch_mm_irqs_off(): seq_cst so that C11 orders it
 * after a preceding seq_cst RMW or fence (the kernel's full barrier); a plain
 * load on x86, so dropping the barrier still opens the hardware SB window.
 */
static uint64_t read_next_tlb_gen(struct tlbgen_system *sys, unsigned int cpu,
				  struct tlbgen_mm *next)
{
	tlbgen__count(sys, cpu, next, TLBGEN_STAT_TLB_GEN_READ);
	tlbgen__trace_line(sys, cpu, TLBGEN_LINE_MM_TLB_GEN, &next->context, TLBGEN_OP_READ);
	return atomic_load_explicit(&next->context.tlb_gen, memory_order_seq_cst);
}

/*
 * switch_mm_irqs_off(). Caller has "IRQs off" (tlbgen__local_irq_disable
 * or runs inside a flush callback).
 */
void tlbgen_switch_mm_irqs_off(struct tlbgen_system *sys, unsigned int cpu,
			       struct tlbgen_mm *next)
{
	struct tlbgen_cpu *c = tlbgen_cpu(sys, cpu);
	struct tlbgen_tlb_state *ts = &c->tlbstate;
	const struct tlbgen_policy *p = &sys->policy;
	struct tlbgen_mm *real_prev = atomic_load_explicit(&ts->loaded_mm, memory_order_relaxed);
	uint16_t prev_asid = ts->loaded_mm_asid;
	bool was_lazy = atomic_load_explicit(&c->shared.is_lazy, memory_order_relaxed);
	uint64_t next_tlb_gen;
	uint16_t new_asid;
	bool need_flush;

	tlbgen__count(sys, cpu, next, TLBGEN_STAT_SWITCH_MM);
	/* 09c5272e4861: do not dirty is_lazy's line for no reason. */
	if (was_lazy)
		tlbgen__set_lazy(sys, cpu, false);

	if (real_prev == next) {
		/* Even in lazy TLB mode the CPU stays in mm_cpumask; since
		 * 7e33001b8b9a only a CONFIG_DEBUG_VM kernel reads the
		 * contended mask to check it. */
		if (p->same_mm_cpumask_check && real_prev != sys->init_mm &&
		    !tlbgen__cpumask_test(sys, cpu, next)) {
			atomic_fetch_add_explicit(&sys->nr_warns, 1, memory_order_relaxed);
			tlbgen__cpumask_set_cpu(sys, cpu, next);
		}
		/* Same mm, not lazy: thread to thread of one process. */
		if (!was_lazy)
			return;
		/*
		 * Back from lazy mode: flushes may have been skipped for us.
		 * The barrier pairs with inc_mm_tlb_gen() in the flusher.
		 */
		smp_mb();
		next_tlb_gen = read_next_tlb_gen(sys, cpu, next);
		if (ts->ctxs[prev_asid].tlb_gen == next_tlb_gen)
			return;
		new_asid = prev_asid;
		need_flush = true;
	} else {
		/* Announce the switch before reading tlb_gen, so that a
		 * should_flush_tlb() that checks for it cannot skip us. */
		if (p->switching_early)
			tlbgen__store_loaded_mm(sys, cpu, LOADED_MM_SWITCHING);

		if (p->cpumask_mode == CPUMASK_CLEAR_ON_SWITCH) {
			/* <= v6.13: stop remote flushes for prev, start them for
			 * next; the locked set is the full barrier before the
			 * tlb_gen read. */
			if (real_prev != sys->init_mm)
				tlbgen__cpumask_clear_cpu(sys, cpu, real_prev);
			if (next != sys->init_mm)
				tlbgen__cpumask_set_cpu(sys, cpu, next);
		} else {
			/*
			 * 209954cbc7d0: leave this CPU in prev's mask; it is
			 * removed lazily at flush time. If the bit is already
			 * set there is no RMW, hence no barrier, unless
			 * 83b0177a6c48's explicit smp_mb() is there.
			 */
			if (next != sys->init_mm && !tlbgen__cpumask_test(sys, cpu, next))
				tlbgen__cpumask_set_cpu(sys, cpu, next);
			else if (p->switch_mm_barrier)
				smp_mb();
		}
		next_tlb_gen = read_next_tlb_gen(sys, cpu, next);
		choose_new_asid(c, next, next_tlb_gen, &new_asid, &need_flush);

		if (!p->switching_early) {
			/* Let nmi_uaccess_okay() know that we are changing CR3. */
			tlbgen__store_loaded_mm(sys, cpu, LOADED_MM_SWITCHING);
			barrier();
		}
	}

	if (need_flush) {
		ts->ctxs[new_asid].ctx_id = next->context.ctx_id;
		ts->ctxs[new_asid].tlb_gen = next_tlb_gen;
		/* load_new_mm_cr3(..., true): a flushing CR3 write of new_asid. */
		tlbgen__tlb_flush_asid(sys, cpu, new_asid);
		tlbgen__count(sys, cpu, next, TLBGEN_STAT_SWITCH_MM_FLUSH);
		tlbgen__trace_flush(sys, cpu, TLBGEN_FLUSH_KIND_SWITCH, 0);
	}

	/* Make sure we write CR3 before loaded_mm. */
	barrier();
	tlbgen__store_loaded_mm(sys, cpu, next);
	ts->loaded_mm_asid = new_asid;
	if (next != sys->init_mm)
		ts->last_user_mm = next;
}

/* enter_lazy_tlb(): only is_lazy changes: no CR3, no cpumask, no generation. */
static int enter_lazy_tlb(struct tlbgen_system *sys, unsigned int cpu)
{
	struct tlbgen_cpu *c = tlbgen_cpu(sys, cpu);

	if (atomic_load_explicit(&c->tlbstate.loaded_mm, memory_order_relaxed) == sys->init_mm)
		return 0;
	tlbgen__count(sys, cpu, NULL, TLBGEN_STAT_LAZY_ENTER);
	tlbgen__set_lazy(sys, cpu, true);
	return 0;
}

/* ---- the per-target IPI condition ------------------------------------------ */

struct tlbgen_ipi_target {
	struct tlbgen_system *sys;
	unsigned int initiator;
	unsigned int cpu;
	const struct tlbgen_flush_tlb_info *info;
	bool have_loaded;
	struct tlbgen_mm *loaded;
};

static struct tlbgen_mm *ipi_target_loaded(struct tlbgen_ipi_target *t)
{
	if (!t->have_loaded) {
		struct tlbgen_cpu *c = tlbgen_cpu(t->sys, t->cpu);

		tlbgen__trace_line(t->sys, t->initiator, TLBGEN_LINE_TLBSTATE, &c->tlbstate,
				   TLBGEN_OP_READ);
		/* seq_cst: ordered after the initiator's inc_mm_tlb_gen() RMW, as
		 * the kernel's full barrier orders it (a plain load on x86). */
		t->loaded = atomic_load_explicit(&c->tlbstate.loaded_mm, memory_order_seq_cst);
		t->have_loaded = true;
	}
	return t->loaded;
}

TLBGEN_API bool tlbgen_ipi_target__is_lazy(struct tlbgen_ipi_target *t)
{
	struct tlbgen_cpu *c;

	if (!t)
		return false;
	c = tlbgen_cpu(t->sys, t->cpu);
	tlbgen__trace_line(t->sys, t->initiator, TLBGEN_LINE_TLBSTATE_SHARED, &c->shared,
			   TLBGEN_OP_READ);
	return atomic_load_explicit(&c->shared.is_lazy, memory_order_seq_cst);
}

TLBGEN_API bool tlbgen_ipi_target__loaded_mm_is_target(struct tlbgen_ipi_target *t)
{
	return t && t->info->mm && ipi_target_loaded(t) == t->info->mm;
}

TLBGEN_API bool tlbgen_ipi_target__loaded_mm_is_switching(struct tlbgen_ipi_target *t)
{
	return t && ipi_target_loaded(t) == LOADED_MM_SWITCHING;
}

TLBGEN_API bool tlbgen_ipi_target__flush_has_mm(struct tlbgen_ipi_target *t)
{
	return t && t->info->mm != NULL;
}

TLBGEN_API bool tlbgen_ipi_target__trim_cpumask(struct tlbgen_ipi_target *t)
{
	return t && t->info->trim_cpumask;
}

TLBGEN_API void tlbgen_ipi_target__smp_rmb(struct tlbgen_ipi_target *t)
{
	(void)t;
	smp_rmb();
}

/*
 * The built-in condition. tlb_is_not_lazy() (d39268ad24c0 .. v6.13), or
 * should_flush_tlb() (6db2526c1d69) with fea4e317f9e7's SWITCHING check:
 * read loaded_mm, smp_rmb(), then is_lazy, so is_lazy is at least as new as
 * loaded_mm (pairs with the store order in switch_mm_irqs_off()).
 */
enum tlbgen_ipi_verdict tlbgen__builtin_ipi_cond(struct tlbgen_ipi_target *t, void *priv)
{
	const struct tlbgen_policy *p = &t->sys->policy;

	(void)priv;
	if (p->ipi_cond == IPI_COND_TLB_IS_NOT_LAZY)
		return tlbgen_ipi_target__is_lazy(t) ? TLBGEN_IPI_SKIP_LAZY : TLBGEN_IPI_SEND;

	if (p->switching) {
		(void)ipi_target_loaded(t);
		tlbgen_ipi_target__smp_rmb(t);
	}
	/* Lazy TLB will get flushed at the next context switch. */
	if (tlbgen_ipi_target__is_lazy(t))
		return TLBGEN_IPI_SKIP_LAZY;
	/* No mm means kernel memory or a batch flush. */
	if (!tlbgen_ipi_target__flush_has_mm(t))
		return TLBGEN_IPI_SEND;
	/* While switching the CPU could hold state of either mm. */
	if (p->switching && tlbgen_ipi_target__loaded_mm_is_switching(t))
		return TLBGEN_IPI_SEND;
	if (tlbgen_ipi_target__loaded_mm_is_target(t))
		return TLBGEN_IPI_SEND;
	/* In mm_cpumask but running something else: trim now and then. */
	if (tlbgen_ipi_target__trim_cpumask(t))
		return TLBGEN_IPI_SEND;
	return p->trim == TRIM_NONE ? TLBGEN_IPI_SKIP_NOT_LOADED : TLBGEN_IPI_SKIP_NOT_TRIMMED;
}

/* The smp_cond_func_t handed to the call engine; counts skips by reason. */
int tlbgen__should_flush_tlb(struct tlbgen_system *sys, unsigned int cpu, void *info)
{
	const struct tlbgen_flush_tlb_info *f = info;
	struct tlbgen_ipi_target t = {
		.sys = sys, .initiator = f->initiating_cpu, .cpu = cpu, .info = f,
	};
	const struct tlbgen_policy *p = &sys->policy;
	enum tlbgen_ipi_verdict v = p->ipi_cond_fn ? p->ipi_cond_fn(&t, p->priv)
						   : tlbgen__builtin_ipi_cond(&t, p->priv);
	static const enum tlbgen_stat reason[] = {
		[TLBGEN_IPI_SKIP_LAZY] = TLBGEN_STAT_IPI_SKIP_LAZY,
		[TLBGEN_IPI_SKIP_NOT_LOADED] = TLBGEN_STAT_IPI_SKIP_NOT_LOADED,
		[TLBGEN_IPI_SKIP_NOT_TRIMMED] = TLBGEN_STAT_IPI_SKIP_NOT_TRIMMED,
	};

	if (v == TLBGEN_IPI_SEND)
		return 1;
	if ((unsigned int)v < ARRAY_SIZE(reason))
		tlbgen__count(sys, f->initiating_cpu, f->mm, reason[v]);
	return 0;
}

/*
 * should_trim_cpumask() (6db2526c1d69): decided once per flush by the
 * initiator; racy by design (two initiators may both trim).
 */
bool tlbgen__should_trim_cpumask(struct tlbgen_system *sys, unsigned int cpu,
				 struct tlbgen_mm *mm)
{
	uint64_t now, next;

	if (sys->policy.trim == TRIM_NONE)
		return false;
	now = tlbgen__jiffies(sys);
	tlbgen__trace_line(sys, cpu, TLBGEN_LINE_MM_TRIM, &mm->context, TLBGEN_OP_READ);
	next = atomic_load_explicit(&mm->context.next_trim_cpumask, memory_order_relaxed);
	/* time_after(jiffies, next): wrap-safe. */
	if ((int64_t)(next - now) < 0) {
		tlbgen__trace_line(sys, cpu, TLBGEN_LINE_MM_TRIM, &mm->context, TLBGEN_OP_WRITE);
		atomic_store_explicit(&mm->context.next_trim_cpumask, now + tlbgen__hz(sys),
				      memory_order_relaxed);
		tlbgen__count(sys, cpu, mm, TLBGEN_STAT_TRIM_CPUMASK);
		return true;
	}
	return false;
}

/* ---- public entry points ------------------------------------------------------ */

TLBGEN_API int tlbgen_switch_mm(struct tlbgen_system *sys, unsigned int cpu,
				struct tlbgen_mm *next)
{
	int err = tlbgen__check_op(sys, cpu);

	if (err)
		return err;
	if (!next)
		next = sys->init_mm;
	else if (!tlbgen_mm_valid(sys, next))
		return -EINVAL;
	tlbgen__local_irq_disable(sys, cpu);
	tlbgen_switch_mm_irqs_off(sys, cpu, next);
	tlbgen__local_irq_enable(sys, cpu);
	return 0;
}

TLBGEN_API int tlbgen_enter_lazy_tlb(struct tlbgen_system *sys, unsigned int cpu)
{
	int err = tlbgen__check_op(sys, cpu);

	return err ? err : enter_lazy_tlb(sys, cpu);
}

TLBGEN_API int tlbgen_leave_mm(struct tlbgen_system *sys, unsigned int cpu)
{
	struct tlbgen_cpu *c;
	int err = tlbgen__check_op(sys, cpu);

	if (err)
		return err;
	c = tlbgen_cpu(sys, cpu);
	if (atomic_load_explicit(&c->tlbstate.loaded_mm, memory_order_relaxed) == sys->init_mm)
		return 0;
	/* The kernel WARNs: leave_mm() is only for lazy CPUs. */
	if (!atomic_load_explicit(&c->shared.is_lazy, memory_order_relaxed))
		return -EINVAL;
	tlbgen__local_irq_disable(sys, cpu);
	tlbgen_switch_mm_irqs_off(sys, cpu, sys->init_mm);
	tlbgen__local_irq_enable(sys, cpu);
	return 0;
}
