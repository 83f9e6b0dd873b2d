// SPDX-License-Identifier: LGPL-2.1-or-later
/* lib/asm-generic/tlbflush.c - flush bookkeeping every architecture shares. */
#include "../core/access.h"
#include "../core/preempted.h"
#include "../core/irqflags.h"
#include "../observers/oracle.h"
#include "tlbflush.h"

struct tlbgen_flush_tlb_info *tlbgen__flush_info_init(struct tlbgen_system *sys,
						      unsigned int cpu, struct tlbgen_mm *mm,
						      unsigned long start, unsigned long end,
						      unsigned int stride_shift, bool freed_tables,
						      uint64_t new_tlb_gen)
{
	struct tlbgen_cpu *c = tlbgen__cpu(sys, cpu);
	struct tlbgen_flush_tlb_info *info = tlbgen__task_flush_info(sys, cpu);

	c->priv.info_in_use = true;
	tlbgen__flush_mm_publish(sys, cpu, mm);
	tlbgen__flush_info_access(sys, cpu, info, TLBGEN_OP_WRITE);
	info->mm = mm;
	info->start = start;
	info->end = end;
	info->new_tlb_gen = new_tlb_gen;
	info->initiating_cpu = cpu;
	info->stride_shift = (uint8_t)stride_shift;
	info->freed_tables = freed_tables;
	info->trim_cpumask = 0;
	info->oracle = (struct tlbgen_oracle_flush){ 0 };
	return info;
}

/*
 * The flush_tlb_info get_flush_tlb_info() hands the running task: the
 * CPU's (3db6d5a5ecaf), also for a task that preempted a waiter; or, on
 * the stack (ed15468787dd), a preempting task's own.
 */
struct tlbgen_flush_tlb_info *tlbgen__task_flush_info(struct tlbgen_system *sys,
						      unsigned int cpu)
{
	struct tlbgen_cpu *c = tlbgen__cpu(sys, cpu);
	struct tlbgen_preempted *p = c->priv.preempted;

	if (unlikely(p) && p->active && sys->profile.flush_info_place == FLUSH_INFO_STACK)
		return &p->info;
	return &c->info;
}

void tlbgen__finish_flush(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct tlbgen_flush_tlb_info *info = arg;

	tlbgen__oracle_flush_end(sys, info->mm, &info->oracle);
	tlbgen__cpu(sys, cpu)->priv.info_in_use = false;
	tlbgen__flush_mm_publish(sys, cpu, NULL);
}

void tlbgen__flush_dispatch(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_mm *mm,
			    bool remote, bool local, tlbgen_flush_multi_fn multi,
			    const atomic_ulong *mask, tlbgen_smp_call_func_t func,
			    struct tlbgen_flush_tlb_info *info)
{
	if (remote) {
		tlbgen__count(sys, cpu, mm, TLBGEN_STAT_FLUSH_MULTI);
		multi(sys, cpu, mask, info);
	} else if (local) {
		tlbgen__count(sys, cpu, mm, TLBGEN_STAT_FLUSH_LOCAL_ONLY);
		tlbgen__local_irq_disable(sys, cpu);
		func(sys, cpu, info);
		tlbgen__local_irq_enable(sys, cpu);
	} else {
		/* Nobody runs it: a bumped generation makes the next
		 * switch_mm() into it flush. */
		tlbgen__count(sys, cpu, mm, TLBGEN_STAT_FLUSH_NONE);
	}
}
