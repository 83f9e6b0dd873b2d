// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/arch/x86/mm/tlbbatch.c - the x86 batched-unmap hooks
 * (arch/x86/include/asm/tlbbatch.h, arch_tlbbatch_*() in arch/x86/mm/tlb.c).
 *
 * add: inc_mm_tlb_gen() and OR mm_cpumask into the batch; flush: one full
 * flush with mm == NULL and TLB_GENERATION_INVALID to the batch mask through
 * flush_tlb_multi() (lazy CPUs skipped), then clear the mask.
 *
 * Why mm == NULL and a full flush suffice: add_pending bumped every
 * affected mm's tlb_gen, so each target that runs one of them sees
 * local_tlb_gen < mm_tlb_gen and flushes fully (a generation-0 request
 * never early-returns, since 8f1d56f64f8d), and a CPU that only caches
 * one in another ASID slot catches up in choose_new_asid().
 *
 * With INVLPGB (72a920eacd8a, 0b7eb55cb706) the flush is one INVLPGB of
 * every non-global entry on every CPU and a TLBSYNC, when any page was
 * unmapped: a global ASID must stay current on CPUs outside the mask too.
 * add_pending itself issues no INVLPGB in mainline (an earlier version of
 * the series did).
 */
#include "../../../core/access.h"
#include "../../../asm-generic/arch-ops.h"
#include "tlb.h"

/* "If remote CPUs need to be flushed then defer batch the flush." */
static bool x86_tlbbatch_should_defer(struct tlbgen_system *sys, unsigned int cpu,
				      struct tlbgen_mm *mm)
{
	return tlbgen__mm_cpumask_others(sys, cpu, mm);
}

static int x86_tlbbatch_add_pending(struct tlbgen_system *sys, unsigned int cpu,
				    struct tlbgen_tlbbatch *b, struct tlbgen_mm *mm,
				    unsigned long start, unsigned long end, uint64_t seq)
{
	(void)start;
	(void)end;
	(void)seq;
	tlbgen__mm_tlb_gen_inc(sys, cpu, mm);
	tlbgen__mm_cpumask_or_into(sys, cpu, mm, b->cpumask);
	return 0;
}

static void x86_tlbbatch_flush(struct tlbgen_system *sys, unsigned int cpu,
			       struct tlbgen_tlbbatch *b)
{
	if (tlbgen__invlpgb_on(sys) && b->unmapped_pages)
		tlbgen__tlbbatch_flush_broadcast(sys, cpu, b, tlbgen__invlpgb_flush_all_nonglobals);
	else
		tlbgen__tlbbatch_flush_ipi(sys, cpu, b, tlbgen__flush_tlb_multi,
					   tlbgen__flush_tlb_func);
}

/* arch_flush_tlb_batched_pending(): flush_tlb_mm(). */
static int x86_flush_tlb_batched_pending(struct tlbgen_system *sys, unsigned int cpu,
					 struct tlbgen_mm *mm)
{
	return tlbgen_flush_tlb_mm(sys, cpu, mm);
}

const struct tlbgen_arch_ops tlbgen__x86_arch_ops = {
	.name = "x86",
	.tlbbatch_should_defer = x86_tlbbatch_should_defer,
	.tlbbatch_add_pending = x86_tlbbatch_add_pending,
	.tlbbatch_flush = x86_tlbbatch_flush,
	.flush_tlb_batched_pending = x86_flush_tlb_batched_pending,
	.flush_tlb_page = tlbgen_flush_tlb_page,
};
