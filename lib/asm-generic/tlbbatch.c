// SPDX-License-Identifier: LGPL-2.1-or-later
/* lib/asm-generic/tlbbatch.c - the batch flush IPI-based architectures share. */
#include "../core/access.h"
#include "../observers/oracle.h"
#include "tlbbatch.h"

/* The batch flush returned: every mm it held is flushed up to its seq. */
static void tlbbatch_finish(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct tlbgen_tlbbatch *b = arg;
	struct tlbgen_cpu *c = tlbgen__cpu(sys, cpu);

	for (unsigned int i = 0; i < b->nr_cover; i++) {
		tlbgen__oracle_cover_full(sys, b->cover[i].mm, b->cover[i].seq,
					   tlbgen__task_flush_info(sys, cpu)->oracle.id);
		tlbgen__mm_unpin(b->cover[i].mm);
	}
	b->nr_cover = 0;
	b->inflight = false;
	c->priv.info_in_use = false;
}

/* arch_tlbbatch_flush()'s opening: one full flush whose oracle number covers every mm. */
static struct tlbgen_flush_tlb_info *tlbbatch_begin(struct tlbgen_system *sys, unsigned int cpu,
						    struct tlbgen_tlbbatch *b)
{
	struct tlbgen_flush_tlb_info *info;

	tlbgen__count(sys, cpu, NULL, TLBGEN_STAT_FLUSH_INITIATED);
	info = tlbgen__flush_info_init(sys, cpu, NULL, 0, TLBGEN_TLB_FLUSH_ALL, 0, false,
				       TLBGEN_TLB_GENERATION_INVALID);
	tlbgen__oracle_flush_number(sys, cpu, &info->oracle, TLBGEN_TLB_GENERATION_INVALID, 0,
				    TLBGEN_TLB_FLUSH_ALL, true);
	b->inflight = true;
	return info;
}

/* ...and its close: the batch is empty again once the flush is waited for. */
static void tlbbatch_end(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_tlbbatch *b)
{
	tlbgen__private_mask_clear(b->cpumask, sys->mask_longs);
	b->unmapped_pages = false;
	tlbgen__smp_wait(sys, cpu, tlbbatch_finish, b);
}

void tlbgen__tlbbatch_flush_ipi(struct tlbgen_system *sys, unsigned int cpu,
				struct tlbgen_tlbbatch *b, tlbgen_flush_multi_fn multi,
				tlbgen_smp_call_func_t func)
{
	unsigned long *snap = tlbgen__cpu(sys, cpu)->priv.cfd_mask_ipi;	/* scratch */
	struct tlbgen_flush_tlb_info *info = tlbbatch_begin(sys, cpu, b);

	tlbgen__private_mask_snapshot(snap, b->cpumask, sys->mask_longs);
	tlbgen__flush_dispatch(sys, cpu, NULL, bitmap_any_but(snap, sys->nr_cpus, cpu) < sys->nr_cpus,
			       bitmap_test(snap, cpu), multi, b->cpumask, func, info);
	/* cpumask_clear(&batch->cpumask): the engine took its own snapshot. */
	tlbbatch_end(sys, cpu, b);
}

void tlbgen__tlbbatch_flush_broadcast(struct tlbgen_system *sys, unsigned int cpu,
				      struct tlbgen_tlbbatch *b,
				      void (*broadcast)(struct tlbgen_system *sys, unsigned int cpu))
{
	tlbbatch_begin(sys, cpu, b);
	broadcast(sys, cpu);
	tlbbatch_end(sys, cpu, b);
}
