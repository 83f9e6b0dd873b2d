// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/mm/seed.c - state set from outside at the start of a replay
 * (tlbgen/seed.h): an mm's context and mm_cpumask; a CPU's cpu_tlbstate as
 * initialize_tlbstate_and_flush() leaves it when a CPU comes up (the loaded
 * mm on ASID 0 with its generation, the other slots empty, the TLB flushed).
 */
#include <errno.h>

#include "../arch/x86/mm/tlb.h"
#include "../base/printk.h"
#include "../core/access.h"
#include "../core/check.h"
#include "../observers/simtlb.h"

TLBGEN_API int tlbgen_mm__seed(struct tlbgen_mm *mm, const struct tlbgen_mm_seed_opts *opts)
{
	struct tlbgen_system *sys;
	uint64_t highest = 0;

	if (!tlbgen__mm_ok(mm) || !opts || TLBGEN_OPTS_VALID(opts, tlbgen_mm_seed_opts, nr_bits))
		return -EINVAL;
	sys = mm->priv.sys;
	if (mm == sys->init_mm || (opts->cpumask && opts->nr_bits != sys->nr_cpus) ||
	    (!opts->cpumask && opts->nr_bits))
		return -EINVAL;
	for (unsigned int cpu = 0; cpu < sys->nr_cpus; cpu++) {
		const struct tlbgen_tlb_state *ts = &tlbgen__cpu(sys, cpu)->tlbstate;

		for (int asid = 0; asid < TLBGEN_TLB_NR_DYN_ASIDS; asid++)
			if (ts->ctxs[asid].ctx_id == mm->context.ctx_id &&
			    ts->ctxs[asid].tlb_gen > highest)
				highest = ts->ctxs[asid].tlb_gen;
	}
	if (opts->tlb_gen < highest) {
		tlbgen__pr(TLBGEN_WARN, "tlbgen: mm seed: tlb_gen %llu is below a CPU's %llu\n",
			   (unsigned long long)opts->tlb_gen, (unsigned long long)highest);
		return -EINVAL;
	}
	if (tlbgen__check_quiescent(sys))
		return -EBUSY;
	atomic_store(&mm->context.tlb_gen, opts->tlb_gen);
	if (opts->next_trim_cpumask)
		atomic_store(&mm->context.next_trim_cpumask, opts->next_trim_cpumask);
	if (!opts->cpumask)
		return 0;
	for (unsigned int cpu = 0; cpu < sys->nr_cpus; cpu++) {
		if ((opts->cpumask[cpu / 64] >> (cpu % 64) & 1) ||
		    tlbgen__peek_loaded_mm(sys, cpu) == mm)
			cpumask_set_cpu(cpu, mm->cpu_bitmap);
		else
			cpumask_clear_cpu(cpu, mm->cpu_bitmap);
	}
	return 0;
}

TLBGEN_API int tlbgen_cpu__seed(struct tlbgen_system *sys, unsigned int cpu,
				const struct tlbgen_cpu_seed_opts *opts)
{
	struct tlbgen_tlb_state *ts;
	struct tlbgen_mm *mm;
	uint64_t gen;

	if (!tlbgen__sys_valid(sys) || cpu >= sys->nr_cpus || !opts ||
	    TLBGEN_OPTS_VALID(opts, tlbgen_cpu_seed_opts, tlb_gen))
		return -EINVAL;
	mm = opts->loaded_mm ? opts->loaded_mm : sys->init_mm;
	if (opts->loaded_mm && !tlbgen__mm_valid(sys, opts->loaded_mm))
		return -EINVAL;
	gen = atomic_load(&mm->context.tlb_gen);
	if (opts->tlb_gen > gen) {
		tlbgen__pr(TLBGEN_WARN, "tlbgen: cpu seed: tlb_gen %llu is past the mm's %llu\n",
			   (unsigned long long)opts->tlb_gen, (unsigned long long)gen);
		return -EINVAL;
	}
	if (tlbgen__check_quiescent(sys))
		return -EBUSY;
	if (tlbgen__mm_global_asid(sys, mm))
		return -EOPNOTSUPP;

	ts = &tlbgen__cpu(sys, cpu)->tlbstate;
	for (uint16_t asid = 0; asid < TLBGEN_TLB_NR_DYN_ASIDS; asid++) {
		ts->ctxs[asid].ctx_id = 0;
		ts->ctxs[asid].tlb_gen = 0;
		tlbgen__tlb_invalidate_nocost(sys, cpu, asid, 0, 0, true);
	}
	ts->ctxs[0].ctx_id = mm->context.ctx_id;
	ts->ctxs[0].tlb_gen = opts->tlb_gen;
	ts->next_asid = 1;
	atomic_store(&ts->loaded_mm, mm);
	atomic_store(&ts->loaded_mm_asid, 0);
	if (mm != sys->init_mm)
		ts->last_user_mm = mm;
	atomic_store(&tlbgen__cpu(sys, cpu)->shared.is_lazy, mm != sys->init_mm && opts->is_lazy);
	if (mm != sys->init_mm)
		cpumask_set_cpu(cpu, mm->cpu_bitmap);
	return 0;
}
