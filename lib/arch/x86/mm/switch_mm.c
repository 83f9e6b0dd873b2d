// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/arch/x86/mm/switch_mm.c - lazy TLB and mm_cpumask at context switch:
 * switch_mm_irqs_off(), choose_new_asid(), enter_lazy_tlb(), leave_mm().
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
#include <errno.h>

#include "../../../core/access.h"
#include "../../../core/check.h"
#include "../../../core/decision.h"
#include "../../../core/irqflags.h"
#include "../../../observers/simtlb.h"
#include "tlb.h"

/*
 * choose_new_asid(): reuse the slot that already holds next's ctx_id (flush
 * only if it is behind next_tlb_gen), else take the round-robin victim
 * next_asid and flush it.
 */
static void choose_new_asid(struct tlbgen_system *sys, struct tlbgen_cpu *c,
			    struct tlbgen_mm *next, uint64_t next_tlb_gen, uint16_t *new_asid,
			    bool *need_flush)
{
	struct tlbgen_tlb_state *ts = &c->tlbstate;
	uint16_t global_asid;

	/* Without PCID there is one address space: ASID 0, flushed on every
	 * switch (10af6235e0d3, which introduced choose_new_asid()). */
	if (sys->no_pcid) {
		*new_asid = 0;
		*need_flush = true;
		return;
	}
	global_asid = tlbgen__mm_global_asid(sys, next);
	/* be88a1dd6112: INVLPGB keeps a global ASID up to date everywhere. */
	if (global_asid) {
		*new_asid = global_asid;
		*need_flush = false;
		return;
	}
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

/*
 * The tlb_gen read of switch_mm_irqs_off(): seq_cst so that C11 orders it
 * after a preceding seq_cst RMW or fence (the kernel's full barrier); a plain
 * load on x86, so dropping the barrier still opens the hardware SB window.
 */
static uint64_t read_next_tlb_gen(struct tlbgen_system *sys, unsigned int cpu,
				  struct tlbgen_mm *next)
{
	return tlbgen__mm_tlb_gen_read(sys, cpu, next, memory_order_seq_cst);
}

/*
 * switch_mm_irqs_off(). Caller has "IRQs off" (tlbgen__local_irq_disable
 * or runs inside a flush callback).
 */
void tlbgen__switch_mm_irqs_off(struct tlbgen_system *sys, unsigned int cpu,
				struct tlbgen_mm *next)
{
	struct tlbgen_cpu *c = tlbgen__cpu(sys, cpu);
	struct tlbgen_tlb_state *ts = &c->tlbstate;
	const struct tlbgen_profile *p = &sys->profile;
	struct tlbgen_mm *real_prev = tlbgen__this_loaded_mm(sys, cpu);
	uint16_t prev_asid = tlbgen__this_loaded_mm_asid(sys, cpu);
	bool was_lazy = tlbgen__this_is_lazy(sys, cpu);
	uint64_t next_tlb_gen;
	uint16_t new_asid;
	bool need_flush;

	tlbgen__count(sys, cpu, next, TLBGEN_STAT_SWITCH_MM);
	/* 09c5272e4861: do not dirty is_lazy's line for no reason. */
	if (was_lazy)
		tlbgen__is_lazy_write(sys, cpu, false);

	if (real_prev == next) {
		/* Even in lazy TLB mode the CPU stays in mm_cpumask; since
		 * 7e33001b8b9a only a CONFIG_DEBUG_VM kernel reads the
		 * contended mask to check it. */
		if (p->same_mm_cpumask_check && real_prev != sys->init_mm &&
		    !tlbgen__mm_cpumask_test(sys, cpu, next)) {
			tlbgen__warn(sys);
			tlbgen__mm_cpumask_set(sys, cpu, next);
		}
		/* be88a1dd6112: move to the mm's new global ASID (no flush). */
		if (tlbgen__mm_needs_global_asid(sys, next, prev_asid)) {
			next_tlb_gen = read_next_tlb_gen(sys, cpu, next);
			choose_new_asid(sys, c, next, next_tlb_gen, &new_asid, &need_flush);
			goto reload_tlb;
		}
		/* Broadcast invalidation keeps it up to date all the time. */
		if (tlbgen__is_global_asid(prev_asid))
			return;
		/* Same mm, not lazy: thread to thread of one process. */
		if (!was_lazy)
			return;
		/*
		 * Back from lazy mode: flushes may have been skipped for us.
		 * The barrier pairs with inc_mm_tlb_gen() in the flusher.
		 */
		tlbgen__smp_mb(sys, cpu);
		next_tlb_gen = read_next_tlb_gen(sys, cpu, next);
		if (ts->ctxs[prev_asid].tlb_gen == next_tlb_gen)
			return;
		new_asid = prev_asid;
		need_flush = true;
	} else {
		/* Announce the switch before reading tlb_gen, so that a
		 * should_flush_tlb() that checks for it cannot skip us. */
		if (p->switching_write == SWITCHING_WRITE_EARLY)
			tlbgen__loaded_mm_write(sys, cpu, LOADED_MM_SWITCHING);

		if (p->cpumask_mode == CPUMASK_CLEAR_ON_SWITCH) {
			/* <= v6.13: stop remote flushes for prev, start them for
			 * next; the locked set is the full barrier before the
			 * tlb_gen read. */
			if (real_prev != sys->init_mm)
				tlbgen__mm_cpumask_clear(sys, cpu, real_prev);
			if (next != sys->init_mm)
				tlbgen__mm_cpumask_set(sys, cpu, next);
		} else {
			/*
			 * 209954cbc7d0: leave this CPU in prev's mask; it is
			 * removed lazily at flush time. If the bit is already
			 * set there is no RMW, hence no barrier, unless
			 * 83b0177a6c48's explicit smp_mb() is there.
			 */
			if (next != sys->init_mm && !tlbgen__mm_cpumask_test(sys, cpu, next))
				tlbgen__mm_cpumask_set(sys, cpu, next);
			else if (p->switch_mm_barrier)
				tlbgen__smp_mb(sys, cpu);
		}
		next_tlb_gen = read_next_tlb_gen(sys, cpu, next);
		choose_new_asid(sys, c, next, next_tlb_gen, &new_asid, &need_flush);

		if (p->switching_write == SWITCHING_WRITE_LATE) {
			/* Let nmi_uaccess_okay() know that we are changing CR3. */
			tlbgen__loaded_mm_write(sys, cpu, LOADED_MM_SWITCHING);
			barrier();
		}
	}

reload_tlb:
	/* load_new_mm_cr3(), flushing or not: serialising, the store buffer
	 * drains (the LOADED_MM_SWITCHING store included). */
	tlbgen__cr3_write(sys, cpu);
	if (need_flush) {
		/* Only a dynamic ASID is ever flushed here (VM_WARN_ON_ONCE). */
		if (tlbgen__is_global_asid(new_asid)) {
			tlbgen__warn(sys);
		} else {
			ts->ctxs[new_asid].ctx_id = next->context.ctx_id;
			ts->ctxs[new_asid].tlb_gen = next_tlb_gen;
		}
		/* load_new_mm_cr3(..., true): a flushing CR3 write of new_asid. */
		tlbgen__tlb_flush_asid(sys, cpu, new_asid);
		tlbgen__count(sys, cpu, next, TLBGEN_STAT_SWITCH_MM_FLUSH);
		tlbgen__trace_flush(sys, cpu, TLBGEN_FLUSH_KIND_SWITCH, 0);
	}
	/* trace_tlb_flush(TLB_FLUSH_ON_TASK_SWITCH, need_flush ? TLB_FLUSH_ALL : 0). */
	tlbgen__decision(sys, cpu, TLBGEN_TLB_FLUSH_ON_TASK_SWITCH,
			 need_flush ? TLBGEN_DECISION_ALL : 0, next, cpu);

	/* Make sure we write CR3 before loaded_mm. */
	barrier();
	tlbgen__loaded_mm_write(sys, cpu, next);
	tlbgen__loaded_mm_asid_write(sys, cpu, new_asid);
	if (next != sys->init_mm)
		ts->last_user_mm = next;
}

/* enter_lazy_tlb(): only is_lazy changes: no CR3, no cpumask, no generation. */
static int enter_lazy_tlb(struct tlbgen_system *sys, unsigned int cpu)
{
	if (tlbgen__this_loaded_mm(sys, cpu) == sys->init_mm)
		return 0;
	tlbgen__count(sys, cpu, NULL, TLBGEN_STAT_LAZY_ENTER);
	tlbgen__is_lazy_write(sys, cpu, true);
	return 0;
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
	else if (!tlbgen__mm_valid(sys, next))
		return -EINVAL;
	tlbgen__local_irq_disable(sys, cpu);
	tlbgen__switch_mm_irqs_off(sys, cpu, next);
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
	int err = tlbgen__check_op(sys, cpu);

	if (err)
		return err;
	if (tlbgen__this_loaded_mm(sys, cpu) == sys->init_mm)
		return 0;
	/*
	 * leave_mm() is for lazy CPUs: WARN_ON(!is_lazy) (the shared copy
	 * since 2f4305b19fe6), and switch to init_mm all the same.
	 */
	if (!tlbgen__this_is_lazy(sys, cpu))
		tlbgen__warn(sys);
	tlbgen__local_irq_disable(sys, cpu);
	tlbgen__switch_mm_irqs_off(sys, cpu, sys->init_mm);
	tlbgen__local_irq_enable(sys, cpu);
	return 0;
}
