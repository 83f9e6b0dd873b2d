// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/arch/x86/hyperv/mmu.c - flush_tlb_multi() done by the hypervisor:
 * Hyper-V's hyperv_flush_tlb_multi() (2ffd9e33ce4a, v4.14;
 * arch/x86/hyperv/mmu.c) and the PVM guest's pvm_flush_tlb_multi(), the
 * one this project's recording machine runs ("pvm-pv: remote TLB flushes
 * via PVM_HC_FLUSH_TLB_MULTI" at boot; its source is not public, so its
 * behaviour is taken from what its trace shows, docs/replay.md).
 *
 * In both, one hypercall has the host flush the targets' TLBs: no IPI, no
 * csd, no flush_tlb_func() on a target. So a target's local_tlb_gen stays
 * where it was (its next flush of the mm is a full one, or its next switch
 * back into the mm reloads with a flush) and no target leaves mm_cpumask:
 * only a CPU's own flush_tlb_func() ever clears its bit there.
 *  hyperv: every CPU of the mask, the initiator too, lazy ones skipped
 *          unless page tables were freed (do_lazy), all of them when the
 *          mask is every CPU (HV_FLUSH_ALL_PROCESSORS); the initiator runs
 *          no flush_tlb_func() either.
 *  pvm:    the initiator traces and runs its own flush_tlb_func() as
 *          native_flush_tlb_multi() would (the IPI condition decides,
 *          freed_tables overrides it); the other CPUs the condition would
 *          have IPI'd are flushed by the host.
 */
#include "../../../core/access.h"
#include "../../../core/irqflags.h"
#include "../../../observers/simtlb.h"
#include "../mm/tlb.h"

/*
 * The host flushes `t`'s TLB of info->mm (every user PCID for a flush
 * without an mm): its whole address space or the range, whichever ASID
 * slot holds the mm. Threaded: another thread owns t's cpu_tlbstate, so
 * every slot of the range goes (more than needed; never less).
 */
static void host_flush(struct tlbgen_system *sys, struct tlbgen_flush_tlb_info *info,
		       unsigned int t)
{
	bool all = info->end == TLBGEN_TLB_FLUSH_ALL;
	unsigned long first = all ? 0 : info->start >> TLBGEN_PAGE_SHIFT;
	unsigned long last = all ? 0 : ((info->end - 1) >> TLBGEN_PAGE_SHIFT);

	if (!tlbgen__oracle_on(sys))
		return;
	if (info->mm && sys->mode != TLBGEN_MODE_THREADED) {
		tlbgen__tlb_invalidate_mm(sys, t, info->mm, first, last, all);
		return;
	}
	for (uint16_t asid = 0; asid < TLBGEN_TLB_NR_DYN_ASIDS; asid++)
		tlbgen__tlb_invalidate_nocost(sys, t, asid, first, last, all || !info->mm);
}

/*
 * What the initiator waits for in virtual time: the hypercall's exit and
 * return, and the host reaching the targets and acknowledging, priced as
 * an IPI sent and answered (an estimate: no measured figure for either
 * hypervisor was found), plus the targets' own invalidations.
 */
static void hypercall_cost(struct tlbgen_system *sys, unsigned int cpu,
			   const struct tlbgen_flush_tlb_info *info, unsigned int targets)
{
	const struct tlbgen_machine *m = &sys->machine;
	uint64_t per_target;

	if (!sys->exec || !targets)
		return;
	per_target = info->end == TLBGEN_TLB_FLUSH_ALL ? m->cr3_write :
		     (uint64_t)m->invlpg * ((info->end - info->start) >> info->stride_shift);
	sys->exec->spend(sys, cpu, m->ipi_send + 2ULL * m->ipi_latency + targets * per_target);
}

/* Threaded: a TLB's lock is taken with IRQs off (simtlb.c). */
static bool host_flush_begin(struct tlbgen_system *sys, unsigned int cpu)
{
	bool irqs = sys->mode == TLBGEN_MODE_THREADED && !tlbgen__irqs_disabled(sys, cpu);

	if (irqs)
		tlbgen__local_irq_disable(sys, cpu);
	return irqs;
}

static void host_flush_end(struct tlbgen_system *sys, unsigned int cpu, bool irqs)
{
	if (irqs)
		tlbgen__local_irq_enable(sys, cpu);
}

static void hyperv_flush_tlb_multi(struct tlbgen_system *sys, unsigned int cpu,
				   const atomic_ulong *cpumask, struct tlbgen_flush_tlb_info *info)
{
	bool do_lazy = !info->freed_tables;
	unsigned int t, n = 0, others = 0, weight = 0;
	bool irqs;

	for (t = 0; t < sys->nr_cpus; t++)
		weight += cpumask_test_cpu(t, cpumask);
	/* cpumask_equal(cpus, cpu_present_mask): HV_FLUSH_ALL_PROCESSORS. */
	if (weight == sys->nr_cpus)
		do_lazy = false;
	irqs = host_flush_begin(sys, cpu);
	for (t = 0; t < sys->nr_cpus; t++) {
		if (!cpumask_test_cpu(t, cpumask))
			continue;
		if (do_lazy && tlbgen__remote_is_lazy(sys, cpu, t))
			continue;
		host_flush(sys, info, t);
		n++;
		others += t != cpu;
	}
	host_flush_end(sys, cpu, irqs);
	tlbgen__count_n(sys, cpu, info->mm, TLBGEN_STAT_IPI_AVOIDED, others);
	hypercall_cost(sys, cpu, info, n);
}

static void pvm_flush_tlb_multi(struct tlbgen_system *sys, unsigned int cpu,
				const atomic_ulong *cpumask, struct tlbgen_flush_tlb_info *info)
{
	unsigned int n = 0;
	bool irqs = host_flush_begin(sys, cpu);

	for (unsigned int t = 0; t < sys->nr_cpus; t++) {
		if (t == cpu || !cpumask_test_cpu(t, cpumask))
			continue;
		if (!info->freed_tables && !tlbgen__should_flush_tlb(sys, t, info))
			continue;
		host_flush(sys, info, t);
		n++;
	}
	host_flush_end(sys, cpu, irqs);
	tlbgen__count_n(sys, cpu, info->mm, TLBGEN_STAT_IPI_AVOIDED, n);
	hypercall_cost(sys, cpu, info, n);
	/* smp_call_function_many_cond()'s local part, as native's. */
	if (cpumask_test_cpu(cpu, cpumask) &&
	    (info->freed_tables || tlbgen__should_flush_tlb(sys, cpu, info))) {
		tlbgen__local_irq_disable(sys, cpu);
		tlbgen__flush_tlb_func(sys, cpu, info);
		tlbgen__local_irq_enable(sys, cpu);
	}
}

void tlbgen__hv_flush_tlb_multi(struct tlbgen_system *sys, unsigned int cpu,
				const atomic_ulong *cpumask, struct tlbgen_flush_tlb_info *info)
{
	if (sys->profile.pv_flush == PV_FLUSH_HYPERV)
		hyperv_flush_tlb_multi(sys, cpu, cpumask, info);
	else
		pvm_flush_tlb_multi(sys, cpu, cpumask, info);
}
