// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/runtime/stepped_preempt.c - a task preempted in csd_lock_wait() and
 * the task that runs on its CPU meanwhile, in stepped mode. Since
 * 8df8a6028309 smp_call_function_many_cond() enables preemption once its
 * csds are queued and the IPIs sent; 9a560af15fd3 made the mask the wait
 * walks the task's own and ed15468787dd put flush_tlb_info on the stack,
 * because a second task on the CPU would otherwise reuse the per-CPU ones.
 * What is the task's own is saved here (struct tlbgen_preempted); what is
 * the CPU's stays in place for the next task to overwrite.
 */
#include <errno.h>

#include "../core/access.h"
#include "../core/preempted.h"
#include "../core/check.h"
#include "../kernel/smp.h"
#include "sprog.h"

static int preempt_check(const struct tlbgen_system *sys, unsigned int cpu)
{
	if (!tlbgen__sys_valid(sys) || cpu >= sys->nr_cpus)
		return -EINVAL;
	return sys->mode == TLBGEN_MODE_STEPPED ? 0 : -EINVAL;
}

/* The CPU's slot, with a spare wait mask, allocated on first use. */
static struct tlbgen_preempted *preempt_slot(struct tlbgen_system *sys, unsigned int cpu)
{
	struct tlbgen_cpu *c = tlbgen__cpu(sys, cpu);
	struct tlbgen_preempted *p = c->priv.preempted;

	if (p)
		return p;
	p = tlbgen__cpu_alloc(sys, cpu, sizeof(*p));
	if (!p)
		return NULL;
	p->spare_mask = tlbgen__cpu_alloc(sys, cpu, sys->mask_longs * sizeof(unsigned long));
	if (!p->spare_mask)
		return NULL;	/* the arena keeps it; the next try allocates anew */
	c->priv.preempted = p;
	return p;
}

TLBGEN_API int tlbgen_cpu__preempt_waiter(struct tlbgen_system *sys, unsigned int cpu)
{
	struct tlbgen_preempted *p;
	struct tlbgen_cpu *c;
	int err = preempt_check(sys, cpu);

	if (err)
		return err;
	c = tlbgen__cpu(sys, cpu);
	if (!sys->profile.smp_wait_preemptible)
		return -EOPNOTSUPP;
	if (!c->priv.waiting)
		return -ENOENT;
	if (!c->priv.wait_preemptible)
		return -EPERM;
	if ((c->priv.preempted && c->priv.preempted->active) || tlbgen__sprog_running(sys, cpu))
		return -EBUSY;
	p = preempt_slot(sys, cpu);
	if (!p)
		return -ENOMEM;

	p->run_remote = c->priv.run_remote;
	p->info_in_use = c->priv.info_in_use;
	p->done = c->priv.done;
	p->done_arg = c->priv.done_arg;
	p->cfd_mask = c->priv.cfd_mask;
	p->flush_mm = atomic_load_explicit(&c->priv.flush_mm, memory_order_relaxed);
	/* The waiter's flush as it wrote it: under a per-cpu flush_tlb_info the
	 * next task rewrites the kernel's object, and the oracle must still end
	 * the waiter's flush (its mm, its number) when its wait returns. */
	if (p->done_arg == &c->info)
		p->record = c->info;
	if (sys->profile.smp_cfd_mask == SMP_CFD_MASK_TASK_LOCAL) {
		/* 9a560af15fd3: the next task walks a mask of its own. */
		c->priv.cfd_mask = p->spare_mask;
		p->spare_mask = p->cfd_mask;
	}
	p->active = true;
	/* The waiter stays in flight (sys->waiting_cpus); the CPU runs another task. */
	c->priv.waiting = false;
	c->priv.wait_preemptible = false;
	c->priv.run_remote = false;
	c->priv.info_in_use = false;
	c->priv.done = NULL;
	c->priv.done_arg = NULL;
	atomic_store_explicit(&c->priv.flush_mm, NULL, memory_order_release);
	return 0;
}

TLBGEN_API int tlbgen_cpu__resume_waiter(struct tlbgen_system *sys, unsigned int cpu)
{
	struct tlbgen_preempted *p;
	struct tlbgen_cpu *c;
	int err = preempt_check(sys, cpu);

	if (err)
		return err;
	c = tlbgen__cpu(sys, cpu);
	p = c->priv.preempted;
	if (!p || !p->active)
		return -ENOENT;
	if (c->priv.waiting)
		return -EBUSY;

	if (sys->profile.smp_cfd_mask == SMP_CFD_MASK_TASK_LOCAL) {
		unsigned long *own = p->spare_mask;

		p->spare_mask = c->priv.cfd_mask;
		c->priv.cfd_mask = own;
	}
	c->priv.run_remote = p->run_remote;
	c->priv.info_in_use = p->info_in_use;
	c->priv.done = p->done;
	c->priv.done_arg = p->done_arg == &c->info ? (void *)&p->record : p->done_arg;
	atomic_store_explicit(&c->priv.flush_mm, p->flush_mm, memory_order_relaxed);
	c->priv.wait_preemptible = true;
	p->active = false;
	/* Back in csd_lock_wait(): the transport's wait counts it in again. */
	atomic_fetch_sub(&sys->waiting_cpus, 1);
	sys->transport->wait(sys, cpu);
	return 0;
}

TLBGEN_API int tlbgen_cpu__preempted_waiter(const struct tlbgen_system *sys, unsigned int cpu)
{
	int err = preempt_check(sys, cpu);
	const struct tlbgen_preempted *p;

	if (err)
		return err;
	p = tlbgen__cpu(sys, cpu)->priv.preempted;
	return p && p->active;
}
