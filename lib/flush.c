// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/flush.c - the initiator side: get_flush_tlb_info(),
 * flush_tlb_mm_range(), native_flush_tlb_multi(), flush_tlb_kernel_range(),
 * and the tlb_single_page_flush_ceiling debugfs knob.
 */
#include "internal.h"

/* The range ceiling: (end - start) >> stride_shift > ceiling (strict, in stride
 * units). The x86 case of the per-arch rule in ceiling.c. */
static bool tlbgen__over_ceiling(const struct tlbgen_system *sys, unsigned long start,
				 unsigned long end, unsigned int stride_shift)
{
	return tlbgen__x86_over_ceiling(sys, start, end, stride_shift);
}

/*
 * get_flush_tlb_info(): fill this CPU's statically allocated, cacheline
 * aligned flush_tlb_info. Not reentrant (the kernel's flush_tlb_info_idx
 * BUG_ON); the API refuses a new flush while one is in flight instead.
 * Since 4a02ed8e1cc3 the ceiling is applied here.
 */
struct tlbgen_flush_tlb_info *tlbgen_get_flush_tlb_info(struct tlbgen_system *sys,
							unsigned int cpu,
							struct tlbgen_mm *mm,
							unsigned long start,
							unsigned long end,
							unsigned int stride_shift,
							bool freed_tables,
							uint64_t new_tlb_gen)
{
	struct tlbgen_cpu *c = tlbgen_cpu(sys, cpu);
	struct tlbgen_flush_tlb_info *info = &c->info;

	if (sys->policy.ceiling_place == CEILING_IN_GET_FLUSH_TLB_INFO &&
	    tlbgen__over_ceiling(sys, start, end, stride_shift)) {
		start = 0;
		end = TLBGEN_TLB_FLUSH_ALL;
	}
	c->priv.info_in_use = true;
	atomic_store_explicit(&c->priv.flush_mm, mm, memory_order_relaxed);
	tlbgen__trace_line(sys, cpu, TLBGEN_LINE_FLUSH_TLB_INFO, info, TLBGEN_OP_WRITE);
	info->mm = mm;
	info->start = start;
	info->end = end;
	info->new_tlb_gen = new_tlb_gen;
	info->initiating_cpu = cpu;
	info->stride_shift = (uint8_t)stride_shift;
	info->freed_tables = freed_tables;
	info->trim_cpumask = 0;
	info->flush_id = 0;
	return info;
}

/* put_flush_tlb_info() plus the model's completion: runs once every target acked. */
void tlbgen__finish_flush(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct tlbgen_flush_tlb_info *info = arg;
	struct tlbgen_cpu *c = tlbgen_cpu(sys, cpu);

	tlbgen__oracle_flush_end(sys, info);
	c->priv.info_in_use = false;
	atomic_store_explicit(&c->priv.flush_mm, NULL, memory_order_release);
}

/* Hand the initiator to the transport: wait now (threaded) or later (stepped). */
void tlbgen__begin_wait(struct tlbgen_system *sys, unsigned int cpu, tlbgen_done_fn done,
			void *arg)
{
	struct tlbgen_cpu *c = tlbgen_cpu(sys, cpu);

	c->priv.done = done;
	c->priv.done_arg = arg;
	sys->transport->wait(sys, cpu);
}

/*
 * native_flush_tlb_multi(): freeing page tables needs every CPU in the mask,
 * lazy ones too (speculative walks may cache the freed tables); otherwise
 * the per-target condition is evaluated at enqueue time (d39268ad24c0).
 */
void tlbgen_flush_tlb_multi(struct tlbgen_system *sys, unsigned int cpu,
			    const atomic_ulong *cpumask, struct tlbgen_flush_tlb_info *info)
{
	if (info->freed_tables)
		tlbgen_smp_call_function_many_cond(sys, cpu, cpumask, tlbgen_flush_tlb_func, info,
						   SCF_WAIT | SCF_RUN_LOCAL, NULL);
	else
		tlbgen_smp_call_function_many_cond(sys, cpu, cpumask, tlbgen_flush_tlb_func, info,
						   SCF_WAIT | SCF_RUN_LOCAL,
						   tlbgen__should_flush_tlb);
}

/* The local-only path: flush_tlb_func() with IRQs off. */
void tlbgen__flush_local(struct tlbgen_system *sys, unsigned int cpu,
			 struct tlbgen_flush_tlb_info *info)
{
	tlbgen__local_irq_disable(sys, cpu);
	tlbgen_flush_tlb_func(sys, cpu, info);
	tlbgen__local_irq_enable(sys, cpu);
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
	struct tlbgen_mm *loaded;
	unsigned long req_start = start, req_end = end;
	uint64_t new_tlb_gen, seq = 0;
	int err = tlbgen__check_initiator(sys, cpu);

	if (err)
		return err;
	if (!tlbgen_mm_valid(sys, mm) || mm == sys->init_mm)
		return -EINVAL;
	err = tlbgen__check_range(mm, start, end, stride_shift);
	if (err)
		return err;

	tlbgen__count(sys, cpu, mm, TLBGEN_STAT_FLUSH_INITIATED);
	/* Before 4a02ed8e1cc3: "Should we flush just the requested range?" here. */
	if (sys->policy.ceiling_place == CEILING_IN_FLUSH_TLB_MM_RANGE &&
	    tlbgen__over_ceiling(sys, start, end, stride_shift)) {
		start = 0;
		end = TLBGEN_TLB_FLUSH_ALL;
	}
	if (tlbgen_oracle_on(sys))
		seq = atomic_load_explicit(&mm->oracle.seq, memory_order_seq_cst);

	/* This is also a barrier that synchronizes with switch_mm(). */
	new_tlb_gen = tlbgen_inc_mm_tlb_gen(sys, cpu, mm);
	info = tlbgen_get_flush_tlb_info(sys, cpu, mm, start, end, stride_shift, freed_tables,
					 new_tlb_gen);
	if (tlbgen_oracle_on(sys))
		info->flush_id = tlbgen__oracle_new_flush(sys, cpu, new_tlb_gen, req_start,
							  req_end, req_end == TLBGEN_TLB_FLUSH_ALL,
							  seq);
	info->oracle_seq = seq;

	tlbgen__trace_line(sys, cpu, TLBGEN_LINE_MM_CPUMASK, &mm->cpu_bitmap[0], TLBGEN_OP_READ);
	loaded = atomic_load_explicit(&tlbgen_cpu(sys, cpu)->tlbstate.loaded_mm,
				      memory_order_relaxed);
	if (cpumask_any_but(mm->cpu_bitmap, sys->nr_cpus, cpu) < sys->nr_cpus) {
		/* 6db2526c1d69: decided once per flush, on the multi path only. */
		info->trim_cpumask = tlbgen__should_trim_cpumask(sys, cpu, mm);
		tlbgen__count(sys, cpu, mm, TLBGEN_STAT_FLUSH_MULTI);
		tlbgen_flush_tlb_multi(sys, cpu, mm->cpu_bitmap, info);
	} else if (loaded == mm) {
		tlbgen__count(sys, cpu, mm, TLBGEN_STAT_FLUSH_LOCAL_ONLY);
		tlbgen__flush_local(sys, cpu, info);
	} else {
		/* Nobody runs it: the bumped generation makes the next
		 * switch_mm() into it flush. */
		tlbgen__count(sys, cpu, mm, TLBGEN_STAT_FLUSH_NONE);
	}
	tlbgen__begin_wait(sys, cpu, tlbgen__finish_flush, info);
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

	tlbgen__trace_line(sys, cpu, TLBGEN_LINE_FLUSH_TLB_INFO, f, TLBGEN_OP_READ);
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
	if (sys->policy.ceiling_place == CEILING_IN_FLUSH_TLB_MM_RANGE &&
	    (end == TLBGEN_TLB_FLUSH_ALL ||
	     (end - start) > ((unsigned long)sys->policy.tlb_single_page_flush_ceiling
			      << TLBGEN_PAGE_SHIFT))) {
		start = 0;
		end = TLBGEN_TLB_FLUSH_ALL;
	}
	info = tlbgen_get_flush_tlb_info(sys, cpu, NULL, start, end, TLBGEN_PAGE_SHIFT, false,
					 TLBGEN_TLB_GENERATION_INVALID);
	tlbgen__count(sys, cpu, NULL, TLBGEN_STAT_FLUSH_MULTI);
	tlbgen_smp_call_function_many_cond(sys, cpu, sys->all_cpus_mask,
					   tlbgen__do_kernel_range_flush, info,
					   SCF_WAIT | SCF_RUN_LOCAL, NULL);
	tlbgen__begin_wait(sys, cpu, tlbgen__finish_flush, info);
	return 0;
}

TLBGEN_API int tlbgen_set_tlb_single_page_flush_ceiling(struct tlbgen_system *sys, long pages)
{
	if (!tlbgen_sys_valid(sys) || pages < 0)
		return -EINVAL;
	if (atomic_load(&sys->waiting_cpus) || atomic_load(&sys->attached_cpus))
		return -EBUSY;
	sys->policy.tlb_single_page_flush_ceiling = pages;
	return 0;
}

TLBGEN_API long tlbgen_get_tlb_single_page_flush_ceiling(const struct tlbgen_system *sys)
{
	if (!tlbgen_sys_valid(sys))
		return -EINVAL;
	return sys->policy.tlb_single_page_flush_ceiling;
}
