// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/kernel/smp.c - the cross-CPU call engine of kernel/smp.c:
 * smp_call_function_many_cond() on the initiator and
 * __flush_smp_call_function_queue() on the target.
 *
 * Per target a call_single_queue (a liburcu lfstack, the kernel's llist:
 * lock-free push, the owner takes all); per (initiator, target) a csd
 * locked by the initiator and unlocked by the target. An IPI is raised
 * only when the push finds the queue empty. How an IPI is raised and how
 * the initiator waits is the transport's business (struct tlbgen_transport).
 */
#include <errno.h>

#include "../core/access.h"
#include "../core/check.h"
#include "../core/irqflags.h"
#include "smp.h"

/* Bytes of a cpu's cfd, pv and cond masks, and of its csd array. */
static size_t smp_scratch_size(const struct tlbgen_system *sys)
{
	return 4 * sys->mask_longs * sizeof(unsigned long);
}

static size_t smp_csds_size(const struct tlbgen_system *sys)
{
	return sys->nr_cpus * sizeof(struct tlbgen_csd);
}

/*
 * The cfd masks live in one block of the CPU's own,
 * cacheline-aligned and on its node: as small heap blocks they would be
 * neighbours of other CPUs' hot words.
 */
int tlbgen__smp_init_cpu(struct tlbgen_system *sys, unsigned int cpu)
{
	struct tlbgen_cpu *c = tlbgen__cpu(sys, cpu);
	unsigned long *block = tlbgen__cpu_alloc(sys, cpu, smp_scratch_size(sys));

	tlbgen__call_queue_init(&c->queue);
	if (!block)
		return -ENOMEM;
	c->priv.cfd_mask = block;
	c->priv.cfd_mask_ipi = block + sys->mask_longs;
	_Static_assert(sizeof(atomic_ulong) == sizeof(unsigned long), "same layout");
	c->priv.pv_mask = (atomic_ulong *)(block + 2 * sys->mask_longs);
	c->priv.cond_mask = (atomic_ulong *)(block + 3 * sys->mask_longs);
	return 0;
}

void tlbgen__smp_free_cpu(struct tlbgen_system *sys, unsigned int cpu)
{
	struct tlbgen_cpu *c = tlbgen__cpu(sys, cpu);

	/* The blocks themselves go with the system's arena. */
	c->priv.cfd_mask = c->priv.cfd_mask_ipi = NULL;
	c->priv.pv_mask = c->priv.cond_mask = NULL;
	c->priv.csds = NULL;
}

/*
 * cfd->csd: one csd per target, allocated on a CPU's first initiating
 * operation (N^2 csds up front would be 2 GiB at 8192 CPUs), on the
 * initiator's node. Called from the public entry points before any state
 * changes, so a failure is an -ENOMEM with nothing done rather than an
 * abort inside a flush.
 */
int tlbgen__smp_prepare(struct tlbgen_system *sys, unsigned int src)
{
	struct tlbgen_cpu *c = tlbgen__cpu(sys, src);
	struct tlbgen_csd *csds;

	if (likely(c->priv.csds))
		return 0;
	csds = tlbgen__cpu_alloc(sys, src, smp_csds_size(sys));
	if (!csds)
		return -ENOMEM;
	/* Zeroed: unlocked, no func (cds_lfs_node_init() is a NULL next). */
	for (unsigned int i = 0; i < sys->nr_cpus; i++) {
		csds[i].src = (uint16_t)src;
		csds[i].dst = (uint16_t)i;
	}
	c->priv.csds = csds;
	return 0;
}

int tlbgen__check_initiator(struct tlbgen_system *sys, unsigned int cpu)
{
	int err = tlbgen__check_op(sys, cpu);

	return err ? err : tlbgen__smp_prepare(sys, cpu);
}

static struct tlbgen_csd *tlbgen__csd(struct tlbgen_system *sys, unsigned int src,
				      unsigned int dst)
{
	return &tlbgen__cpu(sys, src)->priv.csds[dst];
}

/*
 * csd_lock(): wait for our previous use of this csd, then take it. Since
 * 8df8a6028309 that use can be another task's on this CPU, preempted in
 * csd_lock_wait(): this one blocks until that callback ran.
 */
static void csd_lock(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_csd *csd)
{
	while (tlbgen__csd_locked(csd)) {
		if (sys->transport->csd_lock_wait)
			sys->transport->csd_lock_wait(sys, cpu, csd->dst);
		tlbgen__irq_enable_point(sys, cpu);
	}
	tlbgen__csd_set_flags(csd, CSD_FLAG_LOCK);
	tlbgen__smp_wmb(sys, cpu);	/* flags before the other csd fields */
}

/* Run func on this CPU with IRQs off, as the kernel's local call does. */
static void smp_call_local(struct tlbgen_system *sys, unsigned int cpu,
			   tlbgen_smp_call_func_t func, void *info)
{
	tlbgen__local_irq_disable(sys, cpu);
	func(sys, cpu, info);
	tlbgen__local_irq_enable(sys, cpu);
}

/*
 * Lock this_cpu's csd for `cpu`, fill it and queue it on cpu's
 * call_single_queue. Returns true when the queue was empty: llist_add()'s
 * "first entry", the only case that raises an IPI.
 */
static bool smp_queue_csd(struct tlbgen_system *sys, unsigned int this_cpu, unsigned int cpu,
			  tlbgen_smp_call_func_t func, void *info, bool wait)
{
	struct tlbgen_cpu *t = tlbgen__cpu(sys, cpu);
	struct tlbgen_csd *csd = tlbgen__csd(sys, this_cpu, cpu);

	csd_lock(sys, this_cpu, csd);
	if (wait)
		tlbgen__csd_set_flags(csd, CSD_FLAG_LOCK | CSD_TYPE_SYNC);
	csd->func = func;
	csd->info = info;
	tlbgen__trace_line(sys, this_cpu, TLBGEN_LINE_CSD, csd, TLBGEN_OP_WRITE);
	if (sys->transport->csd_queued)
		sys->transport->csd_queued(sys, this_cpu);
	tlbgen__count(sys, this_cpu, NULL, TLBGEN_STAT_CALL_QUEUED);
	return tlbgen__call_queue_push(sys, this_cpu, &t->queue, csd);
}

/* send_call_function_single_ipi(): the transport decides what an IPI is. */
static void smp_send_ipi(struct tlbgen_system *sys, unsigned int this_cpu, unsigned int cpu)
{
	tlbgen__count(sys, this_cpu, NULL, TLBGEN_STAT_IPI_SENT);
	if (unlikely(sys->tracing) && sys->trace.ipi_send)
		sys->trace.ipi_send(sys->trace.ctx, this_cpu, cpu);
	sys->transport->send_ipi(sys, this_cpu, cpu);
}

/*
 * smp_call_function_many_cond() (a32a4d8a815c order): evaluate cond per
 * remote target at enqueue time, lock and enqueue its csd, raise IPIs for
 * queues that were empty, then run func locally with IRQs off. Waiting is
 * left to the caller (tlbgen__smp_wait), which scans cfd->cpumask as
 * csd_lock_wait() does.
 *
 * Whom it waits on is the profile's smp_wait_mask. Before 5c3124975e15
 * (v6.4) a target skipped by cond stays in cfd->cpumask and run_remote is
 * set by any remote CPU in the mask, so the initiator reads the csds of
 * CPUs it never called. Since then skipped targets are cleared. run_remote
 * is then set only when a csd was queued, as 946a72819825 (v6.17) does;
 * with skipped targets cleared, the older "any remote CPU" rule left an
 * empty scan, which reads nothing, so no choice tells the two apart.
 */
void tlbgen__smp_call_function_many_cond(struct tlbgen_system *sys, unsigned int this_cpu,
					 const atomic_ulong *mask, tlbgen_smp_call_func_t func,
					 void *info, unsigned int scf_flags,
					 tlbgen_smp_cond_func_t cond_func)
{
	struct tlbgen_cpu *c = tlbgen__cpu(sys, this_cpu);
	unsigned long *cfd = c->priv.cfd_mask, *cfd_ipi = c->priv.cfd_mask_ipi;
	bool wait = scf_flags & SCF_WAIT;
	bool run_local = false;
	unsigned int cpu, nr_cpus = 0;

	c->priv.run_remote = false;
	cpumask_snapshot(cfd, mask, sys->mask_longs);
	if ((scf_flags & SCF_RUN_LOCAL) && bitmap_test(cfd, this_cpu))
		run_local = true;
	bitmap_clear_bit(cfd, this_cpu);

	if (bitmap_next(cfd, sys->nr_cpus, 0) < sys->nr_cpus) {
		bool keep_skipped = sys->profile.smp_wait_mask == SMP_WAIT_ALL_TARGETS;

		if (keep_skipped)
			c->priv.run_remote = true;
		bitmap_zero(cfd_ipi, sys->mask_longs);
		for_each_bit(cpu, cfd, sys->nr_cpus) {
			if (cond_func && !cond_func(sys, cpu, info)) {
				if (!keep_skipped)
					bitmap_clear_bit(cfd, cpu);
				continue;
			}
			if (smp_queue_csd(sys, this_cpu, cpu, func, info, wait)) {
				bitmap_set(cfd_ipi, cpu);
				nr_cpus++;
			}
			c->priv.run_remote = true;
		}
		if (nr_cpus) {
			for_each_bit(cpu, cfd_ipi, sys->nr_cpus)
				smp_send_ipi(sys, this_cpu, cpu);
		}
	}
	if (!c->priv.run_remote || !wait)
		bitmap_zero(cfd, sys->mask_longs);

	if (run_local && (!cond_func || cond_func(sys, this_cpu, info)))
		smp_call_local(sys, this_cpu, func, info);
}

/* generic_exec_single() with wait=1; see tlbgen/smp.h. */
TLBGEN_API int tlbgen_smp_call_function_single(struct tlbgen_system *sys, unsigned int cpu,
					       unsigned int target, tlbgen_smp_call_func_t func,
					       void *info)
{
	struct tlbgen_cpu *c;
	int err = tlbgen__check_op(sys, cpu);

	if (err)
		return err;
	if (!func || target >= sys->nr_cpus)
		return -EINVAL;
	c = tlbgen__cpu(sys, cpu);
	err = tlbgen__smp_prepare(sys, cpu);
	if (err)
		return err;
	if (target == cpu) {
		smp_call_local(sys, cpu, func, info);
		return 0;
	}
	bitmap_zero(c->priv.cfd_mask, sys->mask_longs);
	bitmap_set(c->priv.cfd_mask, target);
	c->priv.run_remote = true;
	if (smp_queue_csd(sys, cpu, target, func, info, true))
		smp_send_ipi(sys, cpu, target);
	tlbgen__smp_wait(sys, cpu, NULL, NULL);
	return 0;
}

void tlbgen__smp_wait(struct tlbgen_system *sys, unsigned int cpu, tlbgen_done_fn done,
		      void *arg)
{
	tlbgen__smp_wait_preemptible(sys, cpu, done, arg, false);
}

void tlbgen__smp_wait_preemptible(struct tlbgen_system *sys, unsigned int cpu,
				  tlbgen_done_fn done, void *arg, bool preemptible)
{
	struct tlbgen_cpu *c = tlbgen__cpu(sys, cpu);

	c->priv.done = done;
	c->priv.done_arg = arg;
	c->priv.wait_preemptible = preemptible;
	sys->transport->wait(sys, cpu);
}

void tlbgen__smp_wait_done(struct tlbgen_system *sys, unsigned int cpu)
{
	struct tlbgen_cpu *c = tlbgen__cpu(sys, cpu);
	tlbgen_done_fn done = c->priv.done;

	c->priv.done = NULL;
	if (done)
		done(sys, cpu, c->priv.done_arg);
	/* Only a flush has a completion (a call_function_single has none). */
	if (done && sys->flush_done)
		sys->flush_done(sys->flush_done_ctx, cpu);
}

/*
 * The last csd_lock_wait() read of each csd in cfd->cpumask, the one that
 * finds it unlocked: for a transport that learns of completion otherwise
 * (stepped), so that the line account still sees the initiator's reads.
 */
void tlbgen__smp_wait_reads(struct tlbgen_system *sys, unsigned int cpu)
{
	struct tlbgen_cpu *c = tlbgen__cpu(sys, cpu);
	unsigned int t;

	if (!c->priv.run_remote)
		return;
	for_each_bit(t, c->priv.cfd_mask, sys->nr_cpus)
		tlbgen__csd_wait_read(sys, cpu, &c->priv.csds[t]);
}

/*
 * csd_lock_wait() over the mask the running task walks, the last reads
 * not traced (tlbgen__smp_wait_reads() makes them once it is over): for a
 * transport that must know when the wait ends on that mask, whatever
 * another task on this CPU left in it meanwhile.
 */
bool tlbgen__smp_mask_unlocked(const struct tlbgen_system *sys, unsigned int cpu)
{
	const struct tlbgen_cpu *c = tlbgen__cpu(sys, cpu);
	unsigned int t;

	if (!c->priv.run_remote)
		return true;
	for_each_bit(t, c->priv.cfd_mask, sys->nr_cpus)
		if (tlbgen__csd_locked(&c->priv.csds[t]))
			return false;
	return true;
}

/* csd_lock_wait() over cfd->cpumask, without blocking: all unlocked? */
bool tlbgen__smp_all_acked(struct tlbgen_system *sys, unsigned int cpu)
{
	struct tlbgen_cpu *c = tlbgen__cpu(sys, cpu);
	unsigned int t;

	if (!c->priv.run_remote)
		return true;
	for_each_bit(t, c->priv.cfd_mask, sys->nr_cpus) {
		if (tlbgen__csd_wait_read(sys, cpu, &c->priv.csds[t]))
			return false;
		bitmap_clear_bit(c->priv.cfd_mask, t);
	}
	c->priv.run_remote = false;
	return true;
}

static void tlbgen__run_csd(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_csd *csd)
{
	tlbgen_smp_call_func_t func = csd->func;
	void *info = csd->info;
	unsigned int src = csd->src;
	bool sync = tlbgen__csd_flags(csd) & CSD_TYPE_SYNC;

	tlbgen__trace_line(sys, cpu, TLBGEN_LINE_CSD, csd, TLBGEN_OP_READ);
	tlbgen__count(sys, cpu, NULL, TLBGEN_STAT_IPI_RECEIVED);
	if (unlikely(sys->tracing) && sys->trace.ipi_receive)
		sys->trace.ipi_receive(sys->trace.ctx, cpu, src);
	if (sync) {
		/* Someone waits: unlock only after func is done. */
		func(sys, cpu, info);
		tlbgen__csd_unlock(sys, cpu, csd);
	} else {
		/* Nobody waits: the csd may be reused while func runs. */
		tlbgen__csd_unlock(sys, cpu, csd);
		func(sys, cpu, info);
	}
	/* csd must not be touched from here on: its owner may reuse it. */
	if (sys->transport->csd_unlocked)
		sys->transport->csd_unlocked(sys, src);
}

/*
 * __flush_smp_call_function_queue(): take the whole queue (llist_del_all),
 * run SYNC callbacks first, then the others, in FIFO order. With only_src
 * >= 0, run just that initiator's csd and put the rest back in order (the
 * stepped mode's out-of-order arrival). IRQs are off throughout.
 * Returns the number of callbacks run.
 */
int tlbgen__flush_smp_call_function_queue(struct tlbgen_system *sys, unsigned int cpu,
					  int only_src)
{
	struct tlbgen_cpu *c = tlbgen__cpu(sys, cpu);
	struct tlbgen_csd *entry, *csd, *next, *prev = NULL;
	unsigned int ran = 0;
	bool was_disabled;

	if (tlbgen__call_queue_empty(&c->queue))
		return 0;
	was_disabled = tlbgen__irqs_disabled(sys, cpu);
	tlbgen__irqs_set(sys, cpu, true);

	/* Nothing if a signal-delivered IPI took it all between the check
	 * above and IRQs going off. */
	entry = tlbgen__call_queue_take(sys, cpu, &c->queue);

	if (only_src >= 0) {
		struct tlbgen_csd *hit = NULL;

		/* Put the others back, oldest first, so they keep their order. */
		for (csd = entry; csd; csd = next) {
			next = tlbgen__csd_next(csd);
			if (!hit && csd->src == (unsigned int)only_src)
				hit = csd;
			else
				tlbgen__call_queue_requeue(sys, &c->queue, csd);
		}
		if (hit) {
			tlbgen__run_csd(sys, cpu, hit);
			ran = 1;
		}
	} else {
		/*
		 * First the SYNC csds, unlinked as they run; then the rest. The
		 * next pointer is read before a csd runs: once unlocked, its
		 * owner may queue it again.
		 */
		for (csd = entry; csd; csd = next) {
			next = tlbgen__csd_next(csd);
			if (!(tlbgen__csd_flags(csd) & CSD_TYPE_SYNC)) {
				prev = csd;
				continue;
			}
			if (prev)
				tlbgen__csd_set_next(prev, next);
			else
				entry = next;
			tlbgen__run_csd(sys, cpu, csd);
			ran++;
		}
		for (csd = entry; csd; csd = next) {
			next = tlbgen__csd_next(csd);
			tlbgen__run_csd(sys, cpu, csd);
			ran++;
		}
	}

	tlbgen__irqs_set(sys, cpu, was_disabled);
	return (int)ran;
}

int tlbgen__smp_queue_len(const struct tlbgen_system *sys, unsigned int cpu)
{
	return (int)tlbgen__call_queue_len(&tlbgen__cpu(sys, cpu)->queue);
}
