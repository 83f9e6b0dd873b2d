// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/arch/riscv/tlbflush.c - riscv's flushes (arch/riscv/mm/tlbflush.c):
 * __flush_tlb_range() through on_each_cpu_mask() or, where the IPIs may not
 * carry fences, one SBI remote fence (riscv_rfence=sbi), and the batched unmap of
 * 54d7431af73e: add ORs mm_cpumask into the batch; flush sends one full
 * flush without ASID to every CPU of the mask (no lazy filter), then clears
 * it. Unbatched: one ranged flush per page.
 *
 * With the ASID allocator, riscv's switch_mm() keeps a CPU in the previous
 * mm's mask ("riscv: asid: Fixup stale TLB entry cause application crash",
 * Guo Ren, 2022); without ASIDs it clears it. The emulated CPUs keep x86's
 * per-CPU ASID slots and, under the clear-on-switch profiles, leave the
 * mask. So the riscv hooks also bump
 * the mm's tlb_gen: such a CPU then flushes in switch_mm() when it comes
 * back (never fewer flushes than riscv). flush_tlb_mm() is modelled by the
 * generic flush_tlb_mm_range() path.
 */
#include "../../core/access.h"
#include "../../core/access-mm.h"
#include "../../core/irqflags.h"
#include "../../observers/cost.h"
#include "../../observers/oracle.h"
#include "../../observers/simtlb.h"
#include "tlbflush.h"

/*
 * __ipi_flush_tlb_range_asid() / local_flush_tlb_all(): f->mm == NULL is
 * FLUSH_TLB_NO_ASID over FLUSH_TLB_MAX_SIZE, a bare sfence.vma (every ASID,
 * global entries too); otherwise the pages of f->mm's ASID. riscv has no lazy
 * TLB state to look at: the CPU flushes whatever it runs.
 */
static void riscv_ipi_flush_tlb_range_asid(struct tlbgen_system *sys, unsigned int cpu,
					   void *info)
{
	const struct tlbgen_flush_tlb_info *f = info;
	struct tlbgen_cpu *c = tlbgen__cpu(sys, cpu);
	unsigned long nr = 0;

	tlbgen__flush_info_access(sys, cpu, f, TLBGEN_OP_READ);
	tlbgen__count(sys, cpu, f->mm, TLBGEN_STAT_FLUSH_FUNC);
	if (cpu != f->initiating_cpu)
		tlbgen__count(sys, cpu, f->mm, TLBGEN_STAT_FLUSH_FUNC_REMOTE);
	if (!f->mm) {
		for (uint16_t asid = 0; asid < TLBGEN_TLB_NR_DYN_ASIDS; asid++)
			tlbgen__tlb_flush_asid(sys, cpu, asid);
		tlbgen__tlb_flush_kernel(sys, cpu, 0, TLBGEN_TLB_FLUSH_ALL);
		tlbgen__count(sys, cpu, NULL, TLBGEN_STAT_FULL_FLUSH);
		tlbgen__trace_flush(sys, cpu, TLBGEN_FLUSH_KIND_FULL, 0);
		return;
	}
	for (unsigned long addr = f->start; addr < f->end; addr += TLBGEN_PAGE_SIZE) {
		for (uint16_t asid = 0; asid < TLBGEN_TLB_NR_DYN_ASIDS; asid++)
			if (c->tlbstate.ctxs[asid].ctx_id == f->mm->context.ctx_id)
				tlbgen__tlb_flush_one(sys, cpu, asid, addr, TLBGEN_PAGE_SHIFT);
		nr++;
	}
	tlbgen__count(sys, cpu, f->mm, TLBGEN_STAT_PARTIAL_FLUSH);
	tlbgen__count_n(sys, cpu, f->mm, TLBGEN_STAT_PAGES_INVALIDATED, nr);
	tlbgen__trace_flush(sys, cpu, TLBGEN_FLUSH_KIND_PARTIAL, nr);
}

/*
 * The firmware fences hart `t` (OpenSBI's M-mode handler of the remote
 * fence): f->mm's pages, or every entry for a flush without an ASID. No
 * Linux code runs there, so nothing is counted as a flush callback.
 */
static void riscv_sbi_fence_hart(struct tlbgen_system *sys, const struct tlbgen_flush_tlb_info *f,
				 unsigned int t)
{
	bool all = !f->mm || f->end == TLBGEN_TLB_FLUSH_ALL;
	unsigned long first = all ? 0 : f->start >> TLBGEN_PAGE_SHIFT;
	unsigned long last = all ? 0 : (f->end - 1) >> TLBGEN_PAGE_SHIFT;

	if (!tlbgen__oracle_on(sys))
		return;
	if (f->mm && sys->mode != TLBGEN_MODE_THREADED) {
		tlbgen__tlb_invalidate_mm(sys, t, f->mm, first, last, all);
		return;
	}
	for (uint16_t asid = 0; asid < TLBGEN_TLB_NR_DYN_ASIDS; asid++)
		tlbgen__tlb_invalidate_nocost(sys, t, asid, first, last, all);
}

/*
 * What the initiator waits for in virtual time: its own ecall (a trap into
 * M-mode and back, priced as a target's trap), then per target, one after
 * the other as OpenSBI's sbi_tlb_request() did before it learned to send
 * to every hart first and wait once: the request queued and MSIP raised,
 * the target's trap, fence and return, and the completion it polls for (a
 * line transfer). The targets' stolen M-mode time is not charged to them
 * (an idle hart loses nothing).
 */
static void riscv_sbi_cost(struct tlbgen_system *sys, unsigned int cpu,
			   const struct tlbgen_flush_tlb_info *f, unsigned int targets)
{
	const struct tlbgen_machine *m = &sys->machine;
	uint64_t fence;

	if (!sys->exec || !targets)
		return;
	fence = !f->mm || f->end == TLBGEN_TLB_FLUSH_ALL ? m->cr3_write :
		(uint64_t)m->invlpg * ((f->end - f->start) >> f->stride_shift);
	sys->exec->spend(sys, cpu, m->irq_entry + m->irq_exit +
			 targets * (m->ipi_send + m->ipi_latency + m->irq_entry + fence +
				    m->irq_exit + m->same_socket));
}

/*
 * sbi_remote_sfence_vma_asid(cmask, ...) when !riscv_use_ipi_for_rfence():
 * on v6.7/v6.8 the S-mode IPIs of a CLINT board come from the SBI IPI
 * extension, which sbi_ipi_init() registers with use_for_rfence = false,
 * so every remote fence is this one SBI call. The calling hart, if in
 * the mask, fences too (in the call, as the IPI path's local run).
 */
static void riscv_sbi_rfence(struct tlbgen_system *sys, unsigned int cpu,
			     const atomic_ulong *cmask, struct tlbgen_flush_tlb_info *info)
{
	bool irqs = sys->mode == TLBGEN_MODE_THREADED && !tlbgen__irqs_disabled(sys, cpu);
	unsigned int n = 0;

	if (irqs)	/* threaded: a TLB's lock is taken with IRQs off */
		tlbgen__local_irq_disable(sys, cpu);
	for (unsigned int t = 0; t < sys->nr_cpus; t++) {
		if (t == cpu || !cpumask_test_cpu(t, cmask))
			continue;
		riscv_sbi_fence_hart(sys, info, t);
		n++;
	}
	if (irqs)
		tlbgen__local_irq_enable(sys, cpu);
	tlbgen__count_n(sys, cpu, info->mm, TLBGEN_STAT_IPI_AVOIDED, n);
	riscv_sbi_cost(sys, cpu, info, n);
	if (cpumask_test_cpu(cpu, cmask)) {
		tlbgen__local_irq_disable(sys, cpu);
		riscv_ipi_flush_tlb_range_asid(sys, cpu, info);
		tlbgen__local_irq_enable(sys, cpu);
	}
}

/* on_each_cpu_mask(cmask, __ipi_flush_tlb_range_asid, ..., 1), or the SBI call. */
static void riscv_on_each_cpu_mask(struct tlbgen_system *sys, unsigned int cpu,
				   const atomic_ulong *cmask, struct tlbgen_flush_tlb_info *info)
{
	/* The board's IPI driver decides (machine feature), or the choice kernel specs name. */
	if (sys->riscv_sbi_rfence || sys->profile.riscv_sbi_rfence) {
		riscv_sbi_rfence(sys, cpu, cmask, info);
		return;
	}
	tlbgen__smp_call_function_many_cond(sys, cpu, cmask, riscv_ipi_flush_tlb_range_asid, info,
					    SCF_WAIT | SCF_RUN_LOCAL, NULL);
}

static bool riscv_tlbbatch_should_defer(struct tlbgen_system *sys, unsigned int cpu,
					struct tlbgen_mm *mm)
{
	(void)sys;
	(void)cpu;
	(void)mm;
	return true;
}

static int riscv_tlbbatch_add_pending(struct tlbgen_system *sys, unsigned int cpu,
				      struct tlbgen_tlbbatch *b, struct tlbgen_mm *mm,
				      unsigned long start, unsigned long end, uint64_t seq)
{
	(void)start;
	(void)end;
	(void)seq;
	tlbgen__mm_tlb_gen_inc(sys, cpu, mm);	/* the model note above */
	tlbgen__mm_cpumask_or_into(sys, cpu, mm, b->cpumask);
	return 0;
}

/* __flush_tlb_range(&batch->cpumask, FLUSH_TLB_NO_ASID, 0, FLUSH_TLB_MAX_SIZE) */
static void riscv_tlbbatch_flush(struct tlbgen_system *sys, unsigned int cpu,
				 struct tlbgen_tlbbatch *b)
{
	tlbgen__tlbbatch_flush_ipi(sys, cpu, b, riscv_on_each_cpu_mask,
				   riscv_ipi_flush_tlb_range_asid);
}

/* flush_tlb_page(): a one-page __flush_tlb_range() to mm_cpumask. */
static int riscv_flush_tlb_page(struct tlbgen_system *sys, unsigned int cpu,
				struct tlbgen_mm *mm, unsigned long addr)
{
	unsigned long start = addr & ~(TLBGEN_PAGE_SIZE - 1);
	unsigned long *snap = tlbgen__cpu(sys, cpu)->priv.cfd_mask_ipi;	/* scratch */
	struct tlbgen_flush_tlb_info *info;
	struct tlbgen_oracle_flush of;

	tlbgen__count(sys, cpu, mm, TLBGEN_STAT_FLUSH_INITIATED);
	tlbgen__oracle_flush_begin(sys, mm, &of);
	tlbgen__mm_tlb_gen_inc(sys, cpu, mm);	/* the model note above */
	info = tlbgen__flush_info_init(sys, cpu, mm, start, start + TLBGEN_PAGE_SIZE,
				       TLBGEN_PAGE_SHIFT, false, TLBGEN_TLB_GENERATION_INVALID);
	tlbgen__oracle_flush_number(sys, cpu, &of, TLBGEN_TLB_GENERATION_INVALID, start,
				    start + TLBGEN_PAGE_SIZE, false);
	info->oracle = of;
	/* Nothing for an empty mask, a local flush when only this CPU is in it. */
	tlbgen__mm_cpumask_snapshot(sys, mm, snap);
	tlbgen__flush_dispatch(sys, cpu, mm, bitmap_any_but(snap, sys->nr_cpus, cpu) < sys->nr_cpus,
			       bitmap_test(snap, cpu), riscv_on_each_cpu_mask, mm->cpu_bitmap,
			       riscv_ipi_flush_tlb_range_asid, info);
	tlbgen__smp_wait(sys, cpu, tlbgen__finish_flush, info);
	return 0;
}

/* local_flush_tlb_range_asid(): one page if size <= stride, whatever the
 * threshold; else DIV_ROUND_UP(size, stride) against it. */
void tlbgen__riscv_range_rule(unsigned long ceiling, enum tlbgen_ceiling_cmp cmp,
			      unsigned long start, unsigned long end, unsigned int shift,
			      struct tlbgen_range_flush *out)
{
	unsigned long size;

	if (tlbgen__range_rule_all(end, out))
		return;
	size = end - start;
	out->units = tlbgen__div_round_up(size, 1UL << shift);
	if (size <= 1UL << shift) {
		out->ops = 1;
		return;
	}
	out->full = tlbgen__ceiling_over(out->units, ceiling, cmp);
	tlbgen__range_rule_ops(start, end, shift, out);
}

/*
 * update_mmu_cache_range() of one page, run by the faulting task after it
 * set a PTE: riscv may cache an invalid entry, so the new PTE's page is
 * fenced locally at once rather than taking a second fault. Before
 * af842aea58d8 that is local_flush_tlb_page(), sfence.vma of the address
 * in every ASID; since, of the mm's ASID only. With 905be00304bd, on a
 * hart with Svinval: sfence.w.inval, sinval.vma, sfence.inval.ir. The
 * model charges one page invalidation either way (no figure for sinval).
 */
bool tlbgen__riscv_update_mmu_cache(struct tlbgen_system *sys, unsigned int cpu,
				    struct tlbgen_mm *mm, unsigned long addr)
{
	unsigned long vpn = addr >> TLBGEN_PAGE_SHIFT;
	bool svinval = sys->riscv_svinval && sys->profile.riscv_umc_svinval;

	if (tlbgen__this_loaded_mm(sys, cpu) != mm)
		return svinval;
	tlbgen__local_irq_disable(sys, cpu);
	tlbgen__cost_charge(sys, cpu, TLBGEN_COST_INV_PAGES, 1);
	if (sys->profile.riscv_umc_asid) {
		tlbgen__tlb_invalidate_nocost(sys, cpu, tlbgen__this_loaded_mm_asid(sys, cpu),
					      vpn, vpn, false);
	} else {
		for (uint16_t asid = 0; asid < TLBGEN_TLB_NR_DYN_ASIDS; asid++)
			tlbgen__tlb_invalidate_nocost(sys, cpu, asid, vpn, vpn, false);
	}
	tlbgen__count(sys, cpu, mm, TLBGEN_STAT_PAGES_INVALIDATED);
	tlbgen__local_irq_enable(sys, cpu);
	return svinval;
}

/* 54d7431af73e selects ARCH_WANT_BATCHED_UNMAP_TLB_FLUSH (v6.8). */
static bool riscv_batching(const struct tlbgen_system *sys)
{
	return sys->profile.riscv_batched_unmap;
}

const struct tlbgen_arch_ops tlbgen__riscv_arch_ops = {
	.name = "riscv",
	.batching = riscv_batching,
	.tlbbatch_should_defer = riscv_tlbbatch_should_defer,
	.tlbbatch_add_pending = riscv_tlbbatch_add_pending,
	.tlbbatch_flush = riscv_tlbbatch_flush,
	.flush_tlb_batched_pending = tlbgen_flush_tlb_mm,
	.flush_tlb_page = riscv_flush_tlb_page,
};
