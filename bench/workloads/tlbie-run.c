// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/workloads/tlbie-run.c - one point of seed 004's sweep: 2 emulated CPUs share
 * one mm (every flush is a global tlbie); CPU 0 attaches, fills and
 * detaches the range (zap_pte_range() forcing a flush per page table,
 * 1cf35d47712d), CPU 1 chases its working set after each flush; the cost
 * model gives the flush cycles and the refill cycles.
 */
#include <string.h>

#include "tlbie-run.h"

int tlbie_run_point(const struct tlbie_cfg *c, int cmp, long ceiling, struct tlbie_point *pt)
{
	TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = 2, .mode = TLBGEN_MODE_STEPPED,
		    .profile = c->profile, .tlb_sets = c->sets, .tlb_ways = c->ways, .seed = 4);
	unsigned long ws0 = c->shm_pages, mx0 = c->shm_pages + c->ws_pages;
	unsigned long npages = mx0 + c->mixed;
	struct tlbgen_system *sys;
	struct tlbgen_cost_account a0, a1;
	struct tlbgen_range_flush d;
	struct tlbgen_mm *mm;
	int err;

	memset(pt, 0, sizeof(*pt));
	pt->cmp = cmp;
	pt->ceiling = ceiling;
	err = tlbgen_system__create(&o, &sys);
	if (err)
		return err;
	if ((err = tlbgen_system__set_cost_model(sys, &c->cost)) ||
	    (err = tlbgen_ceiling__set(sys, TLBGEN_ARCH_PPC_RADIX_GLOBAL, ceiling)) ||
	    (err = tlbgen_ceiling__set_cmp(sys, TLBGEN_ARCH_PPC_RADIX_GLOBAL,
					   (enum tlbgen_ceiling_cmp)cmp)) ||
	    (err = tlbgen_mm__create(sys, npages, &mm)) ||
	    (err = tlbgen_switch_mm(sys, 0, mm)) || (err = tlbgen_switch_mm(sys, 1, mm)))
		goto out;
	for (unsigned long p = 0; p < c->shm_pages; p++)
		tlbgen_pte_set(sys, 0, mm, p * TLBGEN_PAGE_SIZE, TLBGEN_PTEF_NONE);
	for (unsigned long p = ws0; p < mx0; p++)	/* warm CPU 1's working set */
		tlbgen_access(sys, 1, p * TLBGEN_PAGE_SIZE);
	tlbgen_cost__reset(sys);

	for (unsigned int it = 0; it < c->iters; it++) {
		/* shmat + fillshm */
		for (unsigned long p = 0; p < c->shm_pages; p++) {
			tlbgen_pte_set(sys, 0, mm, p * TLBGEN_PAGE_SIZE,
				       TLBGEN_PTEF_WRITE | TLBGEN_PTEF_DIRTY | TLBGEN_PTEF_YOUNG);
			tlbgen_access(sys, 0, p * TLBGEN_PAGE_SIZE);
		}
		/* shmdt: one forced flush per page table */
		for (unsigned long s = 0; s < c->shm_pages; s += c->chunk_pages) {
			unsigned long e = s + c->chunk_pages < c->shm_pages ? s + c->chunk_pages
									     : c->shm_pages;

			for (unsigned long p = s; p < e; p++)
				tlbgen_pte_set(sys, 0, mm, p * TLBGEN_PAGE_SIZE, TLBGEN_PTEF_NONE);
			err = tlbgen_ppc_radix_flush_tlb_range(sys, 0, mm, s * TLBGEN_PAGE_SIZE,
							       e * TLBGEN_PAGE_SIZE,
							       TLBGEN_PAGE_SHIFT, &d);
			if (err < 0)
				goto out;
			pt->flushes++;
			if (d.full)
				pt->full++;
			else
				pt->ranged++;
			pt->ops += d.ops;
			if (!c->chase_per_iter)
				for (unsigned long p = ws0; p < mx0; p++)
					tlbgen_access(sys, 1, p * TLBGEN_PAGE_SIZE);
		}
		/* --mixed: munmap()s of every size 1..N, each its own flush. */
		for (unsigned long n = 1; n <= c->mixed; n++) {
			for (unsigned long p = mx0; p < mx0 + n; p++) {
				tlbgen_pte_set(sys, 0, mm, p * TLBGEN_PAGE_SIZE,
					       TLBGEN_PTEF_WRITE | TLBGEN_PTEF_DIRTY | TLBGEN_PTEF_YOUNG);
				tlbgen_access(sys, 0, p * TLBGEN_PAGE_SIZE);
			}
			for (unsigned long p = mx0; p < mx0 + n; p++)
				tlbgen_pte_set(sys, 0, mm, p * TLBGEN_PAGE_SIZE, TLBGEN_PTEF_NONE);
			err = tlbgen_ppc_radix_flush_tlb_range(sys, 0, mm, mx0 * TLBGEN_PAGE_SIZE,
							       (mx0 + n) * TLBGEN_PAGE_SIZE,
							       TLBGEN_PAGE_SHIFT, &d);
			if (err < 0)
				goto out;
			pt->flushes++;
			pt->full += d.full;
			pt->ranged += !d.full;
			pt->ops += d.ops;
			if (!c->chase_per_iter)
				for (unsigned long p = ws0; p < mx0; p++)
					tlbgen_access(sys, 1, p * TLBGEN_PAGE_SIZE);
		}
		if (c->chase_per_iter)
			for (unsigned long p = ws0; p < mx0; p++)
				tlbgen_access(sys, 1, p * TLBGEN_PAGE_SIZE);
	}
	tlbgen_cost__cpu(sys, 0, &a0);
	tlbgen_cost__cpu(sys, 1, &a1);
	pt->flush_cycles = a0.inv_cycles + a0.full_cycles + a1.inv_cycles + a1.full_cycles;
	pt->refill_cycles = a1.refill_cycles;
	pt->refills = a1.refills;
	pt->violations = tlbgen_oracle__violations(sys);
	err = 0;
out:
	tlbgen_system__destroy(sys);
	return err;
}
