/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * examples/workload.h - a small seeded stepped-mode workload shared by the
 * examples: several mms on several CPUs, context switches, lazy TLB, ranged
 * and full flushes after PTE changes, batched unmaps (new_tlb_gen == 0),
 * kernel-range flushes, accesses checked by the oracle, and IPIs delivered
 * both in queue order and out of order.
 *
 * Every iteration draws the same number of random values whatever the
 * library answers, so two runs with the same seed issue the same operation
 * sequence under any profile: an A/B compares policies, not workloads.
 * Header-only on purpose: an example is meant to be read in one sitting.
 */
#ifndef TLBGEN_EXAMPLE_WORKLOAD_H
#define TLBGEN_EXAMPLE_WORKLOAD_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tlbgen/tlbgen.h>

#define WL_MAX_CPUS 16
#define WL_MAX_MMS 4

struct wl_params {
	unsigned int nr_cpus;	/* <= WL_MAX_CPUS */
	unsigned int nr_mms;	/* <= WL_MAX_MMS */
	unsigned long nr_pages;	/* per mm */
	unsigned int ops;	/* iterations */
	uint64_t seed;
};

struct wl_result {
	uint64_t cpu_stats[WL_MAX_CPUS][TLBGEN_STAT_NR];
	uint64_t total[TLBGEN_STAT_NR];
	long violations;
	long warns;
	char first_violation[512];
};

/* splitmix64: the workload's own generator, independent of the library's. */
static inline uint64_t wl_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

/*
 * Run the workload on a fresh stepped system with `profile`. `setup`, if
 * non-NULL, is called once after creation (to install trace hooks, say).
 * Returns 0, or a negative errno if the library refused a setup step.
 */
static inline int wl_run(const char *profile, const struct wl_params *p, struct wl_result *res,
			 int (*setup)(struct tlbgen_system *sys, void *arg), void *arg)
{
	TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = p->nr_cpus, .mode = TLBGEN_MODE_STEPPED,
		    .profile = profile, .seed = p->seed);
	struct tlbgen_system *sys;
	struct tlbgen_mm *mm[WL_MAX_MMS];
	struct tlbgen_tlbbatch *batch[WL_MAX_CPUS];
	uint64_t rng = p->seed;
	const unsigned long bytes = p->nr_pages << TLBGEN_PAGE_SHIFT;
	int err;

	memset(res, 0, sizeof(*res));
	if (p->nr_cpus > WL_MAX_CPUS || p->nr_mms > WL_MAX_MMS || !p->nr_mms || p->nr_pages < 8)
		return -EINVAL;
	err = tlbgen_system__create(&o, &sys);
	if (err)
		return err;
	if (setup && (err = setup(sys, arg)))
		goto out;
	for (unsigned int i = 0; i < p->nr_mms; i++)
		if ((err = tlbgen_mm__create(sys, p->nr_pages, &mm[i])))
			goto out;
	for (unsigned int c = 0; c < p->nr_cpus; c++) {
		if ((err = tlbgen_tlbbatch__create(sys, &batch[c])))
			goto out;
		/* Start with every CPU running some user mm. */
		tlbgen_switch_mm(sys, c, mm[c % p->nr_mms]);
	}

	for (unsigned int it = 0; it < p->ops; it++) {
		/* Fixed draws per iteration (see the header comment). */
		uint64_t r0 = wl_rand(&rng), r1 = wl_rand(&rng), r2 = wl_rand(&rng);
		unsigned int cpu = (unsigned int)(r0 % p->nr_cpus);
		unsigned int kind = (unsigned int)((r0 >> 32) % 100);
		struct tlbgen_mm *m = mm[r1 % p->nr_mms];
		unsigned long page = (unsigned long)((r1 >> 16) % p->nr_pages);
		unsigned long addr = page << TLBGEN_PAGE_SHIFT;
		unsigned long npages = 1 + (unsigned long)(r2 % 4);
		unsigned long end = addr + (npages << TLBGEN_PAGE_SHIFT);

		if (end > bytes)
			end = bytes;
		if (kind < 12) {			/* context switch, sometimes to init_mm */
			tlbgen_switch_mm(sys, cpu, (r2 >> 8) % 8 ? m : NULL);
		} else if (kind < 18) {			/* the idle task borrows the mm */
			tlbgen_enter_lazy_tlb(sys, cpu);
		} else if (kind < 45) {			/* user accesses, checked by the oracle */
			for (unsigned int k = 0; k < 4; k++)
				tlbgen_access(sys, cpu, ((page + k * (r2 >> 40)) % p->nr_pages)
							<< TLBGEN_PAGE_SHIFT);
		} else if (kind < 60) {			/* zap a small range, flush it */
			for (unsigned long a = addr; a < end; a += TLBGEN_PAGE_SIZE)
				tlbgen_pte_change(sys, cpu, m, a);
			if ((r2 >> 8) % 5 == 0)		/* now and then past the ceiling */
				tlbgen_flush_tlb_mm_range(sys, cpu, m, 0, bytes, TLBGEN_PAGE_SHIFT,
							  false);
			else
				tlbgen_flush_tlb_mm_range(sys, cpu, m, addr, end, TLBGEN_PAGE_SHIFT,
							  false);
		} else if (kind < 68) {			/* reclaim: batched unmap */
			tlbgen_pte_change(sys, cpu, m, addr);
			tlbgen_arch_tlbbatch_add_pending(sys, cpu, batch[cpu], m, addr,
							 addr + TLBGEN_PAGE_SIZE);
			if ((r2 >> 8) % 2)
				tlbgen_arch_tlbbatch_flush(sys, cpu, batch[cpu]);
		} else if (kind < 70) {			/* vfree() */
			tlbgen_flush_tlb_kernel_range(sys, cpu, 0, 4 * TLBGEN_PAGE_SIZE);
		} else if (kind < 85) {			/* IRQs enabled somewhere: in order */
			tlbgen_step(sys);
		} else {				/* a later IPI overtakes an earlier one */
			unsigned int src = (unsigned int)((r2 >> 16) % p->nr_cpus);

			if (tlbgen_deliver_from(sys, cpu, src) == -ENOENT)
				tlbgen_deliver(sys, cpu);
		}
	}
	/* Drain: flush what the batches still hold, deliver everything. */
	tlbgen_run_until_idle(sys);
	for (unsigned int c = 0; c < p->nr_cpus; c++) {
		tlbgen_arch_tlbbatch_flush(sys, c, batch[c]);
		tlbgen_run_until_idle(sys);
		tlbgen_oracle__audit_cpu(sys, c);
	}

	for (unsigned int c = 0; c < p->nr_cpus; c++) {
		tlbgen_stats__cpu(sys, c, res->cpu_stats[c], TLBGEN_STAT_NR);
		for (unsigned int s = 0; s < TLBGEN_STAT_NR; s++)
			res->total[s] += res->cpu_stats[c][s];
	}
	res->violations = tlbgen_oracle__violations(sys);
	res->warns = tlbgen_system__warns(sys);
	if (res->violations > 0) {
		struct tlbgen_violation v;

		if (!tlbgen_oracle__violation(sys, 0, &v))
			tlbgen_oracle__format(&v, res->first_violation,
					      sizeof(res->first_violation));
	}
	for (unsigned int c = 0; c < p->nr_cpus; c++)
		tlbgen_tlbbatch__destroy(batch[c]);
	err = 0;
out:
	tlbgen_system__destroy(sys);
	return err;
}

#endif
