// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/arch/x86/mm/flush.c - the initiator side: get_flush_tlb_info(),
 * flush_tlb_mm_range(), native_flush_tlb_multi(), broadcast_tlb_flush()
 * and finish_asid_transition() (4afeb0ed1753), flush_tlb_kernel_range()
 * (by INVLPGB since 82378c6c2f43), and the range ceiling
 * (tlb_single_page_flush_ceiling).
 */
#include <errno.h>
#include <sched.h>

#include "../../../core/access.h"
#include "../../../core/check.h"
#include "../../../core/decision.h"
#include "../../../observers/oracle.h"
#include "../../../observers/simtlb.h"
#include "tlb.h"

/*
 * "Should we flush just the requested range?": a full flush when
 * ((end - start) >> stride_shift) > tlb_single_page_flush_ceiling, strictly,
 * in stride units; always for TLB_FLUSH_ALL.
 */
void tlbgen__x86_range_rule(unsigned long ceiling, enum tlbgen_ceiling_cmp cmp,
			    unsigned long start, unsigned long end, unsigned int shift,
			    struct tlbgen_range_flush *out)
{
	tlbgen__range_rule_pages(ceiling, cmp, start, end, shift, out);
}

bool tlbgen__x86_over_ceiling(const struct tlbgen_system *sys, unsigned long start,
			      unsigned long end, unsigned int stride_shift)
{
	struct tlbgen_range_flush d;

	tlbgen__x86_range_rule((unsigned long)sys->profile.tlb_single_page_flush_ceiling,
			       TLBGEN_CEILING_GT, start, end, stride_shift, &d);
	return d.full;
}

/*
 * get_flush_tlb_info(): this CPU's statically allocated, cacheline aligned
 * flush_tlb_info. Since 4a02ed8e1cc3 the ceiling is applied here.
 */
struct tlbgen_flush_tlb_info *tlbgen__get_flush_tlb_info(struct tlbgen_system *sys,
							 unsigned int cpu, struct tlbgen_mm *mm,
							 unsigned long start, unsigned long end,
							 unsigned int stride_shift,
							 bool freed_tables, uint64_t new_tlb_gen)
{
	if (sys->profile.ceiling_place == CEILING_IN_GET_FLUSH_TLB_INFO &&
	    tlbgen__x86_over_ceiling(sys, start, end, stride_shift)) {
		start = 0;
		end = TLBGEN_TLB_FLUSH_ALL;
	}
	return tlbgen__flush_info_init(sys, cpu, mm, start, end, stride_shift, freed_tables,
				       new_tlb_gen);
}

/*
 * native_flush_tlb_multi(): freeing page tables needs every CPU in the mask,
 * lazy ones too (speculative walks may cache the freed tables); otherwise
 * the per-target condition is evaluated at enqueue time (d39268ad24c0), or,
 * from 6035152d8eeb until that revert, for every target first into
 * flush_tlb_mask, which on_each_cpu_mask() then calls unconditionally: a
 * CPU can go lazy between the two, and a skipped one is not waited on.
 */
/*
 * kvm_flush_tlb_multi(): copy the mask; a target whose steal_time says
 * KVM_VCPU_PREEMPTED gets KVM_VCPU_FLUSH_TLB (cmpxchg) and leaves the mask:
 * no IPI and no wait for it; the host flushes its TLB before it runs it
 * again. This vCPU is running, so it is never cleared. The rest go to
 * native_flush_tlb_multi().
 */
static const atomic_ulong *kvm_flush_tlb_multi_mask(struct tlbgen_system *sys, unsigned int cpu,
						    const atomic_ulong *cpumask,
						    struct tlbgen_mm *mm)
{
	atomic_ulong *flushmask = tlbgen__cpu(sys, cpu)->priv.pv_mask;
	unsigned int t;

	cpumask_copy_atomic(flushmask, cpumask, sys->mask_longs);
	for (t = 0; t < sys->nr_cpus; t++) {
		uint8_t state;

		if (!cpumask_test_cpu(t, flushmask))
			continue;
		state = tlbgen__steal_time_read(sys, t);
		if ((state & TLBGEN_KVM_VCPU_PREEMPTED) &&
		    tlbgen__steal_time_cmpxchg(sys, t, &state, state | TLBGEN_KVM_VCPU_FLUSH_TLB)) {
			cpumask_clear_cpu(t, flushmask);
			tlbgen__count(sys, cpu, mm, TLBGEN_STAT_PV_FLUSH_DEFERRED);
		}
	}
	return flushmask;
}

void tlbgen__flush_tlb_multi(struct tlbgen_system *sys, unsigned int cpu,
			     const atomic_ulong *cpumask, struct tlbgen_flush_tlb_info *info)
{
	/* native_flush_tlb_multi()'s trace_tlb_flush(TLB_REMOTE_SEND_IPI, ...). */
	tlbgen__decision(sys, cpu, TLBGEN_TLB_REMOTE_SEND_IPI,
			 info->end == TLBGEN_TLB_FLUSH_ALL ? TLBGEN_DECISION_ALL :
			 (info->end - info->start) >> TLBGEN_PAGE_SHIFT, info->mm, cpu);
	if (sys->profile.pv_flush >= PV_FLUSH_HYPERV) {
		tlbgen__hv_flush_tlb_multi(sys, cpu, cpumask, info);
		return;
	}
	if (sys->profile.pv_flush == PV_FLUSH_KVM)
		cpumask = kvm_flush_tlb_multi_mask(sys, cpu, cpumask, info->mm);
	/* be88a1dd6112: while CPUs may be on the old ASID, everyone in the mask. */
	if (info->freed_tables || tlbgen__mm_in_asid_transition(sys, info->mm)) {
		tlbgen__smp_call_function_many_cond(sys, cpu, cpumask, tlbgen__flush_tlb_func, info,
						    SCF_WAIT | SCF_RUN_LOCAL, NULL);
		return;
	}
	if (sys->profile.ipi_cond_eval == IPI_COND_PRE_PASS) {
		atomic_ulong *cond_cpumask = tlbgen__cpu(sys, cpu)->priv.cond_mask;

		cpumask_clear_all(cond_cpumask, sys->mask_longs);
		for (unsigned int t = 0; t < sys->nr_cpus; t++)
			if (cpumask_test_cpu(t, cpumask) && tlbgen__should_flush_tlb(sys, t, info))
				cpumask_set_cpu(t, cond_cpumask);
		tlbgen__smp_call_function_many_cond(sys, cpu, cond_cpumask, tlbgen__flush_tlb_func,
						    info, SCF_WAIT | SCF_RUN_LOCAL, NULL);
		return;
	}
	tlbgen__smp_call_function_many_cond(sys, cpu, cpumask, tlbgen__flush_tlb_func, info,
					    SCF_WAIT | SCF_RUN_LOCAL, tlbgen__should_flush_tlb);
}

#define PMD_SHIFT	21

/*
 * finish_asid_transition(): while a CPU running the mm is still on its
 * dynamic ASID, which INVLPGB of the global one does not reach, flush the
 * whole mm_cpumask by IPI (the IPI also moves it over); once none is left,
 * clear asid_transition.
 */
static void finish_asid_transition(struct tlbgen_system *sys, unsigned int cpu,
				   struct tlbgen_flush_tlb_info *info)
{
	struct tlbgen_mm *mm = info->mm;
	uint16_t bc_asid = tlbgen__mm_global_asid(sys, mm);

	if (!tlbgen__mm_in_asid_transition(sys, mm))
		return;
	for (unsigned int t = 0; t < sys->nr_cpus; t++) {
		struct tlbgen_mm *loaded;
		unsigned int spins = 0;

		if (!tlbgen__mm_cpumask_test(sys, t, mm))
			continue;
		/* Mid-switch: it might be switching to mm with an old ASID. */
		while ((loaded = tlbgen__remote_loaded_mm(sys, cpu, t)) == LOADED_MM_SWITCHING)
			if (++spins % 64 == 0)
				sched_yield();
		if (loaded != mm)
			continue;
		if (tlbgen__remote_loaded_mm_asid(sys, cpu, t) != bc_asid) {
			tlbgen__count(sys, cpu, mm, TLBGEN_STAT_FLUSH_MULTI);
			tlbgen__flush_tlb_multi(sys, cpu, mm->cpu_bitmap, info);
			return;
		}
	}
	tlbgen__mm_clear_asid_transition(mm);
}

/*
 * broadcast_tlb_flush(): INVLPGB of the global ASID, page runs of at most
 * invlpgb_count_max (a PMD stride and larger one at a time), the whole PCID
 * for TLB_FLUSH_ALL; then the stragglers; then TLBSYNC. No flush_tlb_func()
 * runs anywhere: every CPU's global-ASID entries go, loaded or not.
 */
static void broadcast_tlb_flush(struct tlbgen_system *sys, unsigned int cpu,
				struct tlbgen_flush_tlb_info *info)
{
	struct tlbgen_mm *mm = info->mm;
	uint16_t asid = tlbgen__mm_global_asid(sys, mm);
	unsigned long addr = info->start;

	tlbgen__count_n(sys, cpu, mm, TLBGEN_STAT_IPI_AVOIDED,
			tlbgen__peek_cpumask_others(sys, mm, cpu));
	/* INVLPGB with a non-zero PCID while CR4.PCIDE is clear: a #GP on
	 * hardware (the oops in 44126343d58c). Counted as a kernel WARN. */
	if (sys->no_pcid)
		tlbgen__warn(sys);
	if (info->end == TLBGEN_TLB_FLUSH_ALL) {
		tlbgen__invlpgb_post(sys, cpu, mm, asid, 0, 0, true);
	} else {
		do {
			unsigned long nr = 1;

			if (info->stride_shift <= PMD_SHIFT) {
				nr = (info->end - addr) >> info->stride_shift;
				nr = nr < 1 ? 1 : nr > sys->gasid.count_max ? sys->gasid.count_max : nr;
			}
			tlbgen__invlpgb_post(sys, cpu, mm, asid, addr >> TLBGEN_PAGE_SHIFT,
				     ((addr + (nr << info->stride_shift)) >> TLBGEN_PAGE_SHIFT) - 1,
				     false);
			addr += nr << info->stride_shift;
		} while (addr < info->end);
	}
	finish_asid_transition(sys, cpu, info);
	tlbgen__tlbsync(sys, cpu, mm);
}

static int tlbgen__check_range(const struct tlbgen_mm *mm, unsigned long start,
			       unsigned long end, unsigned int stride_shift)
{
	unsigned long limit = mm->priv.nr_pages << TLBGEN_PAGE_SHIFT;

	if (stride_shift < TLBGEN_PAGE_SHIFT || stride_shift > 30)
		return -EINVAL;
	if (end == TLBGEN_TLB_FLUSH_ALL)
		return start == 0 ? 0 : -EINVAL;
	if (start > end || end > limit)
		return -EINVAL;
	return 0;
}

/*
 * flush_tlb_mm_range(). The page-table changes must already be visible;
 * the tlb_gen bump publishes them to switch_mm() (full barrier), and only
 * then is mm_cpumask read.
 */
TLBGEN_API int tlbgen_flush_tlb_mm_range(struct tlbgen_system *sys, unsigned int cpu,
					 struct tlbgen_mm *mm, unsigned long start,
					 unsigned long end, unsigned int stride_shift,
					 bool freed_tables)
{
	struct tlbgen_flush_tlb_info *info;
	struct tlbgen_oracle_flush of;
	unsigned long req_start = start, req_end = end;
	uint64_t new_tlb_gen;
	bool remote;
	int err = tlbgen__check_initiator(sys, cpu);

	if (err)
		return err;
	if (!tlbgen__mm_valid(sys, mm) || mm == sys->init_mm)
		return -EINVAL;
	err = tlbgen__check_range(mm, start, end, stride_shift);
	if (err)
		return err;

	tlbgen__count(sys, cpu, mm, TLBGEN_STAT_FLUSH_INITIATED);
	/* Before 4a02ed8e1cc3: "Should we flush just the requested range?" here. */
	if (sys->profile.ceiling_place == CEILING_IN_FLUSH_TLB_MM_RANGE &&
	    tlbgen__x86_over_ceiling(sys, start, end, stride_shift)) {
		start = 0;
		end = TLBGEN_TLB_FLUSH_ALL;
	}
	tlbgen__oracle_flush_begin(sys, mm, &of);

	/* This is also a barrier that synchronizes with switch_mm(). */
	new_tlb_gen = tlbgen__mm_tlb_gen_inc(sys, cpu, mm);
	info = tlbgen__get_flush_tlb_info(sys, cpu, mm, start, end, stride_shift, freed_tables,
					  new_tlb_gen);
	tlbgen__oracle_flush_number(sys, cpu, &of, new_tlb_gen, req_start, req_end,
				    req_end == TLBGEN_TLB_FLUSH_ALL);
	info->oracle = of;

	if (tlbgen__mm_global_asid(sys, mm)) {
		/* 4afeb0ed1753: INVLPGB + TLBSYNC; no flush_tlb_func() anywhere. */
		broadcast_tlb_flush(sys, cpu, info);
	} else {
		remote = tlbgen__mm_cpumask_others(sys, cpu, mm);
		/* 6db2526c1d69: decided once per flush, on the multi path only. */
		if (remote)
			info->trim_cpumask = tlbgen__should_trim_cpumask(sys, cpu, mm);
		tlbgen__flush_dispatch(sys, cpu, mm, remote,
				       tlbgen__this_loaded_mm(sys, cpu) == mm,
				       tlbgen__flush_tlb_multi, mm->cpu_bitmap,
				       tlbgen__flush_tlb_func, info);
		if (remote)
			tlbgen__consider_global_asid(sys, cpu, mm);
	}
	/*
	 * Until a5a162fe1ae1 get_cpu() holds preemption off across
	 * flush_tlb_multi(), so the csd wait is not preemptible even where
	 * smp_call_function_many_cond() enables it (8df8a6028309).
	 */
	tlbgen__smp_wait_preemptible(sys, cpu, tlbgen__finish_flush, info,
				     sys->profile.smp_wait_preemptible &&
				     sys->profile.flush_multi_preemptible);
	return 0;
}

TLBGEN_API int tlbgen_flush_tlb_mm(struct tlbgen_system *sys, unsigned int cpu,
				   struct tlbgen_mm *mm)
{
	return tlbgen_flush_tlb_mm_range(sys, cpu, mm, 0, TLBGEN_TLB_FLUSH_ALL,
					 TLBGEN_PAGE_SHIFT, true);
}

TLBGEN_API int tlbgen_flush_tlb_page(struct tlbgen_system *sys, unsigned int cpu,
				     struct tlbgen_mm *mm, unsigned long addr)
{
	if (addr > TLBGEN_TLB_FLUSH_ALL - TLBGEN_PAGE_SIZE)
		return -EINVAL;
	return tlbgen_flush_tlb_mm_range(sys, cpu, mm, addr & ~(TLBGEN_PAGE_SIZE - 1),
					 (addr & ~(TLBGEN_PAGE_SIZE - 1)) + TLBGEN_PAGE_SIZE,
					 TLBGEN_PAGE_SHIFT, false);
}

/* do_flush_tlb_all() / do_kernel_range_flush(): global entries too. */
static void tlbgen__do_kernel_range_flush(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	const struct tlbgen_flush_tlb_info *f = arg;
	unsigned long pages = 0;

	tlbgen__flush_info_access(sys, cpu, f, TLBGEN_OP_READ);
	tlbgen__count(sys, cpu, NULL, TLBGEN_STAT_KERNEL_FLUSH);
	if (f->end == TLBGEN_TLB_FLUSH_ALL) {
		tlbgen__tlb_flush_kernel(sys, cpu, 0, TLBGEN_TLB_FLUSH_ALL);
	} else {
		pages = (f->end - f->start + TLBGEN_PAGE_SIZE - 1) >> TLBGEN_PAGE_SHIFT;
		tlbgen__tlb_flush_kernel(sys, cpu, f->start, f->end);
		tlbgen__count_n(sys, cpu, NULL, TLBGEN_STAT_PAGES_INVALIDATED, pages);
	}
	tlbgen__trace_flush(sys, cpu, TLBGEN_FLUSH_KIND_KERNEL, pages);
}

/*
 * invlpgb_kernel_range_flush() and invlpgb_flush_all() (82378c6c2f43,
 * v6.15): INVLPGB of every PCID, globals included, in runs of at most
 * invlpgb_count_max pages (or one of everything), then one TLBSYNC. No CPU
 * runs do_kernel_range_flush(), so no IPI is sent.
 */
static void invlpgb_kernel_flush(struct tlbgen_system *sys, unsigned int cpu,
				 const struct tlbgen_flush_tlb_info *info)
{
	unsigned long addr, nr;

	tlbgen__count_n(sys, cpu, NULL, TLBGEN_STAT_IPI_AVOIDED, sys->nr_cpus - 1);
	if (info->end == TLBGEN_TLB_FLUSH_ALL) {
		tlbgen__invlpgb_post(sys, cpu, NULL, TLBGEN_ASID_ALL, 0, 0, true);
	} else {
		for (addr = info->start; addr < info->end; addr += nr << TLBGEN_PAGE_SHIFT) {
			nr = (info->end - addr) >> TLBGEN_PAGE_SHIFT;
			nr = nr < 1 ? 1 : nr > sys->gasid.count_max ? sys->gasid.count_max : nr;
			tlbgen__invlpgb_post(sys, cpu, NULL, TLBGEN_ASID_KERNEL,
					     addr >> TLBGEN_PAGE_SHIFT,
					     (addr >> TLBGEN_PAGE_SHIFT) + nr - 1, false);
			if (addr + (nr << TLBGEN_PAGE_SHIFT) < addr)
				break;
		}
	}
	tlbgen__tlbsync(sys, cpu, NULL);
}

/*
 * flush_tlb_kernel_range(): every online CPU, no generations. Before
 * 4a02ed8e1cc3 the ceiling test was in bytes ((end - start) > ceiling <<
 * PAGE_SHIFT); after it, in pages. They differ for unaligned lengths.
 */
TLBGEN_API int tlbgen_flush_tlb_kernel_range(struct tlbgen_system *sys, unsigned int cpu,
					     unsigned long start, unsigned long end)
{
	struct tlbgen_flush_tlb_info *info;
	int err = tlbgen__check_initiator(sys, cpu);

	if (err)
		return err;
	if (end != TLBGEN_TLB_FLUSH_ALL && start > end)
		return -EINVAL;
	tlbgen__count(sys, cpu, NULL, TLBGEN_STAT_FLUSH_INITIATED);
	if (sys->profile.ceiling_place == CEILING_IN_FLUSH_TLB_MM_RANGE &&
	    (end == TLBGEN_TLB_FLUSH_ALL ||
	     (end - start) > ((unsigned long)sys->profile.tlb_single_page_flush_ceiling
			      << TLBGEN_PAGE_SHIFT))) {
		start = 0;
		end = TLBGEN_TLB_FLUSH_ALL;
	}
	info = tlbgen__get_flush_tlb_info(sys, cpu, NULL, start, end, TLBGEN_PAGE_SHIFT, false,
					  TLBGEN_TLB_GENERATION_INVALID);
	if (tlbgen__invlpgb_on(sys)) {
		invlpgb_kernel_flush(sys, cpu, info);
	} else {
		tlbgen__count(sys, cpu, NULL, TLBGEN_STAT_FLUSH_MULTI);
		tlbgen__smp_call_function_many_cond(sys, cpu, sys->all_cpus_mask,
						    tlbgen__do_kernel_range_flush, info,
						    SCF_WAIT | SCF_RUN_LOCAL, NULL);
	}
	tlbgen__smp_wait(sys, cpu, tlbgen__finish_flush, info);
	return 0;
}
