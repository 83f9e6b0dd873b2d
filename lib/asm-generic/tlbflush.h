/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/asm-generic/tlbflush.h - what every architecture's flush code shares:
 * filling and retiring the initiator's flush_tlb_info, and the choice
 * between a cross-CPU, a local-only and no flush.
 */
#ifndef TLBGEN_ASM_GENERIC_TLBFLUSH_H
#define TLBGEN_ASM_GENERIC_TLBFLUSH_H

#include "../kernel/smp.h"

/* Fill the running task's flush_tlb_info (the caller applied its ceiling).
 * Not reentrant (the kernel's flush_tlb_info_idx check): the entry points
 * refuse a new flush while one is in flight, except in a task that
 * preempted a waiter (stepped), which under flush_tlb_info=per-cpu reuses
 * the waiter's. */
struct tlbgen_flush_tlb_info *tlbgen__flush_info_init(struct tlbgen_system *sys,
						      unsigned int cpu, struct tlbgen_mm *mm,
						      unsigned long start, unsigned long end,
						      unsigned int stride_shift, bool freed_tables,
						      uint64_t new_tlb_gen);

/* The running task's flush_tlb_info: the CPU's, or on the stack its own. */
struct tlbgen_flush_tlb_info *tlbgen__task_flush_info(struct tlbgen_system *sys,
						      unsigned int cpu);

/* put_flush_tlb_info() and the oracle's end of the flush: a tlbgen_done_fn
 * run once every target answered. */
void tlbgen__finish_flush(struct tlbgen_system *sys, unsigned int cpu, void *info);

/* How an arch sends a flush to a cpumask (the local CPU included when set). */
typedef void (*tlbgen_flush_multi_fn)(struct tlbgen_system *sys, unsigned int cpu,
				      const atomic_ulong *mask,
				      struct tlbgen_flush_tlb_info *info);

/*
 * The dispatch of flush_tlb_mm_range() and its kin: other CPUs to flush
 * (`remote`) -> multi(mask); else this CPU runs the mm (`local`) -> func
 * here with IRQs off; else nothing. Counted as flush_multi / _local_only /
 * _none against `mm`.
 */
void tlbgen__flush_dispatch(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_mm *mm,
			    bool remote, bool local, tlbgen_flush_multi_fn multi,
			    const atomic_ulong *mask, tlbgen_smp_call_func_t func,
			    struct tlbgen_flush_tlb_info *info);

/* ---- the range rules' common part ---------------------------------------------------- */

static inline unsigned long tlbgen__div_round_up(unsigned long n, unsigned long d)
{
	return n / d + (n % d != 0);
}

static inline bool tlbgen__ceiling_over(unsigned long units, unsigned long ceiling,
					enum tlbgen_ceiling_cmp cmp)
{
	return cmp == TLBGEN_CEILING_GE ? units >= ceiling : units > ceiling;
}

/* TLB_FLUSH_ALL (fullmm, flush_tlb_mm, FLUSH_TLB_MAX_SIZE): always the whole
 * context, one operation. True when it decided. */
static inline bool tlbgen__range_rule_all(unsigned long end, struct tlbgen_range_flush *out)
{
	*out = (struct tlbgen_range_flush){ 0 };
	if (end != TLBGEN_TLB_FLUSH_ALL)
		return false;
	out->full = true;
	out->units = ~0UL;
	out->ops = 1;
	return true;
}

/* The ranged loops step addr += stride while addr < end. */
static inline void tlbgen__range_rule_ops(unsigned long start, unsigned long end,
					  unsigned int shift, struct tlbgen_range_flush *out)
{
	out->ops = out->full ? 1 : tlbgen__div_round_up(end - start, 1UL << shift);
}

/* The rule of x86 and powerpc: ((end - start) >> shift) pages against the
 * ceiling; ranged flushes step one stride at a time. */
static inline void tlbgen__range_rule_pages(unsigned long ceiling, enum tlbgen_ceiling_cmp cmp,
					    unsigned long start, unsigned long end,
					    unsigned int shift, struct tlbgen_range_flush *out)
{
	if (tlbgen__range_rule_all(end, out))
		return;
	out->units = (end - start) >> shift;
	out->full = tlbgen__ceiling_over(out->units, ceiling, cmp);
	tlbgen__range_rule_ops(start, end, shift, out);
}

#endif
