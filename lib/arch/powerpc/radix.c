// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/arch/powerpc/radix.c - the powerpc radix range flush
 * (arch/powerpc/mm/book3s64/radix_tlb.c): tlbiel when only this CPU has
 * the mm, tlbie (a hardware broadcast, no IPI) when others may, a full PID
 * flush past the ceiling. Stepped mode: the issuer edits every simulated TLB.
 */
#include <errno.h>
#include <string.h>

#include "../../core/access.h"
#include "../../core/check.h"
#include "../../observers/cost.h"
#include "../../observers/oracle.h"
#include "../../observers/simtlb.h"
#include "radix.h"

#define TLBGEN_PMD_SIZE (1UL << 21)	/* radix PMD_SIZE: the flush_pwc threshold */

/* nr_pages = (end - start) >> page_shift; flush_pid = nr_pages > ceiling. */
void tlbgen__ppc_radix_range_rule(unsigned long ceiling, enum tlbgen_ceiling_cmp cmp,
				  unsigned long start, unsigned long end, unsigned int shift,
				  struct tlbgen_range_flush *out)
{
	tlbgen__range_rule_pages(ceiling, cmp, start, end, shift, out);
	/* A ranged flush of a PMD or more also flushes the page-walk cache. */
	if (end != TLBGEN_TLB_FLUSH_ALL)
		out->pwc = !out->full && end - start >= TLBGEN_PMD_SIZE;
}

TLBGEN_API int tlbgen_ppc_radix_flush_type(const struct tlbgen_system *sys, unsigned int cpu,
					   const struct tlbgen_mm *mm)
{
	if (!tlbgen__sys_valid(sys) || cpu >= sys->nr_cpus || !tlbgen__mm_valid(sys, mm))
		return -EINVAL;
	if (cpumask_any_but(mm->cpu_bitmap, sys->nr_cpus, cpu) < sys->nr_cpus)
		return TLBGEN_PPC_FLUSH_GLOBAL;	/* other CPUs (or coprocessors): tlbie */
	if (cpumask_test_cpu(cpu, mm->cpu_bitmap))
		return TLBGEN_PPC_FLUSH_LOCAL;
	return TLBGEN_PPC_FLUSH_NONE;
}

static int radix_args_valid(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_mm *mm,
			    unsigned long start, unsigned long end, unsigned int page_shift)
{
	unsigned long limit;
	int err = tlbgen__check_op(sys, cpu);

	if (err)
		return err;
	/* tlbie reaches every CPU's TLB at once: only where one host thread
	 * runs them all (stepped, virtual) can the initiator touch them. */
	if (sys->mode == TLBGEN_MODE_THREADED)
		return -EOPNOTSUPP;
	if (!tlbgen__mm_valid(sys, mm) || mm == sys->init_mm || page_shift < TLBGEN_PAGE_SHIFT ||
	    page_shift > 30)
		return -EINVAL;
	limit = mm->priv.nr_pages << TLBGEN_PAGE_SHIFT;
	if (end == TLBGEN_TLB_FLUSH_ALL ? start != 0 : (start > end || end > limit))
		return -EINVAL;
	return 0;
}

TLBGEN_API int tlbgen_ppc_radix_flush_tlb_range(struct tlbgen_system *sys, unsigned int cpu,
						struct tlbgen_mm *mm, unsigned long start,
						unsigned long end, unsigned int page_shift,
						struct tlbgen_range_flush *out)
{
	const struct tlbgen_profile *p;
	struct tlbgen_range_flush d = { 0 };
	struct tlbgen_oracle_flush of;
	int type, err = radix_args_valid(sys, cpu, mm, start, end, page_shift);

	if (err)
		return err;
	p = &sys->profile;
	type = tlbgen_ppc_radix_flush_type(sys, cpu, mm);
	if (type == TLBGEN_PPC_FLUSH_NONE) {
		if (out)
			*out = d;
		return type;
	}
	if (type == TLBGEN_PPC_FLUSH_LOCAL)
		tlbgen__ppc_radix_range_rule((unsigned long)p->ppc_tlb_local_single_page_flush_ceiling,
					     TLBGEN_CEILING_GT, start, end, page_shift, &d);
	else
		tlbgen__ppc_radix_range_rule((unsigned long)p->ppc_tlb_single_page_flush_ceiling,
					     p->ppc_ceiling_cmp, start, end, page_shift, &d);
	tlbgen__count(sys, cpu, mm, TLBGEN_STAT_FLUSH_INITIATED);
	tlbgen__oracle_flush_begin(sys, mm, &of);
	tlbgen__oracle_flush_number(sys, cpu, &of, TLBGEN_TLB_GENERATION_INVALID, start, end,
				    end == TLBGEN_TLB_FLUSH_ALL);
	/* tlbiel reaches this CPU only; tlbie every CPU, with no IPI. */
	for (unsigned int c = 0; c < sys->nr_cpus; c++) {
		if (type == TLBGEN_PPC_FLUSH_LOCAL && c != cpu)
			continue;
		if (d.full)
			tlbgen__tlb_invalidate_mm(sys, c, mm, 0, 0, true);
		else if (end > start)
			tlbgen__tlb_invalidate_mm(sys, c, mm, start >> TLBGEN_PAGE_SHIFT,
						  (end - 1) >> TLBGEN_PAGE_SHIFT, false);
	}
	/* The issuing CPU stalls for the tlbie/tlbiel sequence. */
	if (d.full) {
		tlbgen__cost_charge(sys, cpu, TLBGEN_COST_FULL_FLUSHES, 1);
		tlbgen__count(sys, cpu, mm, TLBGEN_STAT_FULL_FLUSH);
	} else {
		tlbgen__cost_charge(sys, cpu, TLBGEN_COST_INV_PAGES, d.ops);
		tlbgen__count(sys, cpu, mm, TLBGEN_STAT_PARTIAL_FLUSH);
		tlbgen__count_n(sys, cpu, mm, TLBGEN_STAT_PAGES_INVALIDATED, d.ops);
	}
	tlbgen__oracle_flush_end(sys, mm, &of);
	if (out)
		*out = d;
	return type;
}
