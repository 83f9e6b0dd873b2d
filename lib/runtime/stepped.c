// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/runtime/stepped.c - the stepped transport: one host thread, no internal
 * threads. "Raising an IPI" marks the target pending; nothing runs until the
 * host delivers. An initiator with remote csds outstanding is left waiting;
 * its completion (put_flush_tlb_info() and the oracle's bookkeeping) runs
 * when the last target unlocks its csd.
 */
#include <errno.h>
#include <unistd.h>

#include "../base/prandom.h"
#include "../core/check.h"
#include "../kernel/smp.h"
#include "runtime.h"

static void stepped_send_ipi(struct tlbgen_system *sys, unsigned int from, unsigned int target)
{
	(void)from;
	tlbgen__rankmap_set(&sys->ipi_pending, target);
}

static void stepped_csd_queued(struct tlbgen_system *sys, unsigned int src)
{
	tlbgen__cpu(sys, src)->priv.outstanding++;
}

static void stepped_complete(struct tlbgen_system *sys, unsigned int cpu)
{
	struct tlbgen_cpu *c = tlbgen__cpu(sys, cpu);
	tlbgen_done_fn done = c->priv.done;

	c->priv.done = NULL;
	tlbgen__smp_wait_reads(sys, cpu);
	c->priv.run_remote = false;
	bitmap_zero(c->priv.cfd_mask, sys->mask_longs);
	if (done)
		done(sys, cpu, c->priv.done_arg);
}

static void stepped_csd_unlocked(struct tlbgen_system *sys, unsigned int src)
{
	struct tlbgen_cpu *c = tlbgen__cpu(sys, src);

	if (--c->priv.outstanding == 0 && c->priv.waiting) {
		c->priv.waiting = false;
		atomic_fetch_sub(&sys->waiting_cpus, 1);
		stepped_complete(sys, src);
	}
}

static void stepped_wait(struct tlbgen_system *sys, unsigned int cpu)
{
	struct tlbgen_cpu *c = tlbgen__cpu(sys, cpu);

	if (c->priv.outstanding == 0) {
		stepped_complete(sys, cpu);
		return;
	}
	c->priv.waiting = true;
	atomic_fetch_add(&sys->waiting_cpus, 1);
}

/*
 * A vCPU the host preempted (tlbgen_vcpu__preempt()) runs nothing either.
 * nr_preempted first: steal_time is a line of its own per CPU, not worth a
 * miss on every delivery while no vCPU is preempted.
 */
static bool stepped_preempted(const struct tlbgen_system *sys, unsigned int cpu)
{
	return unlikely(sys->nr_preempted) &&
	       (tlbgen__steal_time_read((struct tlbgen_system *)sys, cpu) &
		TLBGEN_KVM_VCPU_PREEMPTED);
}

static int stepped_check_cpu(const struct tlbgen_system *sys, unsigned int cpu)
{
	return tlbgen__cpu(sys, cpu)->priv.waiting || stepped_preempted(sys, cpu) ? -EBUSY : 0;
}

/*
 * Bytes of lines one delivery touches: the target's cpu_tlbstate,
 * cpu_tlbstate_shared, call queue, bookkeeping and counter lines, its
 * counters in the mm, and half a line of the initiator's csds.
 */
#define STEPPED_DELIVERY_BYTES	(6 * TLBGEN_CACHELINE + TLBGEN_CACHELINE / 2)

static int stepped_create(struct tlbgen_system *sys)
{
	long l2 = 0;

#ifdef _SC_LEVEL2_CACHE_SIZE
	l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif

	if (l2 <= 0)
		l2 = 1L << 20;	/* unknown: assume 1 MiB */
	sys->prefetch_targets = (uint64_t)sys->nr_cpus * STEPPED_DELIVERY_BYTES > (uint64_t)l2;
	return 0;
}

const struct tlbgen_transport tlbgen__stepped_transport = {
	.create = stepped_create,
	.send_ipi = stepped_send_ipi,
	.wait = stepped_wait,
	.csd_queued = stepped_csd_queued,
	.csd_unlocked = stepped_csd_unlocked,
	.check_cpu = stepped_check_cpu,
};

static int stepped_check(const struct tlbgen_system *sys, unsigned int cpu)
{
	if (!tlbgen__sys_valid(sys) || cpu >= sys->nr_cpus)
		return -EINVAL;
	if (sys->mode != TLBGEN_MODE_STEPPED)
		return -EOPNOTSUPP;
	return 0;
}

static int stepped_deliver(struct tlbgen_system *sys, unsigned int cpu, int only_src)
{
	int n;

	if (stepped_preempted(sys, cpu))
		return 0;	/* the host holds the interrupt until it runs the vCPU */
	n = tlbgen__flush_smp_call_function_queue(sys, cpu, only_src);

	if (tlbgen__call_queue_empty(&tlbgen__cpu(sys, cpu)->queue))
		tlbgen__rankmap_clear(&sys->ipi_pending, cpu);
	return n;
}

TLBGEN_API int tlbgen_deliver(struct tlbgen_system *sys, unsigned int cpu)
{
	int err = stepped_check(sys, cpu);

	return err ? err : stepped_deliver(sys, cpu, -1);
}

TLBGEN_API int tlbgen_deliver_from(struct tlbgen_system *sys, unsigned int cpu, unsigned int src)
{
	int err = stepped_check(sys, cpu);

	if (err)
		return err;
	if (src >= sys->nr_cpus)
		return -EINVAL;
	return stepped_deliver(sys, cpu, (int)src) == 1 ? 1 : -ENOENT;
}

static uint64_t stepped_rand(struct tlbgen_system *sys)
{
	return tlbgen__prandom(&sys->rng);
}

/*
 * One step: a uniformly random CPU among those with an IPI pending. The
 * draw is rand % (number pending) and the CPU the draw-th pending one in
 * ascending order, so a seed replays the same deliveries; the rank/select
 * map finds it in O(log N) instead of a scan of every CPU.
 */
static int stepped_step(struct tlbgen_system *sys)
{
	unsigned int n = sys->ipi_pending.weight, cpu;

	if (!n)
		return -ENOENT;
	if (unlikely(sys->nr_preempted)) {
		/* Preempted vCPUs hold their interrupts: draw among the others,
		 * counted the slow way while any vCPU is preempted. */
		unsigned int pick;

		n = 0;
		for (unsigned int c = 0; c < sys->nr_cpus; c++)
			n += tlbgen__rankmap_test(&sys->ipi_pending, c) && !stepped_preempted(sys, c);
		if (!n)
			return -ENOENT;
		pick = (unsigned int)(stepped_rand(sys) % n);
		for (cpu = 0; cpu < sys->nr_cpus; cpu++)
			if (tlbgen__rankmap_test(&sys->ipi_pending, cpu) &&
			    !stepped_preempted(sys, cpu) && pick-- == 0)
				break;
	} else {
		cpu = tlbgen__rankmap_select(&sys->ipi_pending,
					     (unsigned int)(stepped_rand(sys) % n));
	}
	stepped_deliver(sys, cpu, -1);
	return (int)cpu;
}

TLBGEN_API int tlbgen_step(struct tlbgen_system *sys)
{
	int err = stepped_check(sys, 0);

	return err ? err : stepped_step(sys);
}

/* tlbgen_step() until idle, `done` deliveries already made: the slow path
 * while a vCPU is preempted and holds its interrupts. */
static int stepped_steps(struct tlbgen_system *sys, int done)
{
	while (stepped_step(sys) >= 0)
		done++;
	return done;
}

/*
 * Pull `cpu`'s struct tlbgen_cpu, which its delivery will touch, into the
 * cache. always_inline: GCC counts a prefetch as no side effect, finds a
 * function of prefetches pure, and deletes any call it did not inline.
 */
static inline __attribute__((always_inline)) void
stepped_prefetch_cpu(const struct tlbgen_system *sys, unsigned int cpu)
{
	const struct tlbgen_cpu *c = tlbgen__cpu(sys, cpu);

	__builtin_prefetch(&c->tlbstate, 1, 3);
	__builtin_prefetch(&c->shared, 0, 3);
	__builtin_prefetch(&c->queue, 1, 3);
	__builtin_prefetch(&c->priv, 1, 3);
	__builtin_prefetch(&c->stats[tlbgen__stat_slot(TLBGEN_STAT_IPI_RECEIVED)], 1, 3);
}

/*
 * tlbgen_step() until idle, with the same draws and choices, one step
 * ahead: while `cpu` is delivered, the next step's CPU is chosen assuming
 * the delivery only clears cpu's bit (a flush's callbacks raise no IPIs)
 * and, once the targets' lines outgrow the L2 cache, its struct is
 * prefetched, so that the random order does not pay a cache miss per line
 * (below that the prefetches cost more than they save). If the delivery
 * changed the pending set otherwise, the choice is made again from the same
 * draw; if nothing is left pending, the draw is taken back.
 */
TLBGEN_API int tlbgen_run_until_idle(struct tlbgen_system *sys)
{
	struct tlbgen_rankmap *m;
	unsigned int n, rank, cpu;
	int done = 0, err = stepped_check(sys, 0);

	if (err)
		return err;
	if (unlikely(sys->nr_preempted))
		return stepped_steps(sys, 0);
	m = &sys->ipi_pending;
	n = m->weight;
	if (!n)
		return 0;
	rank = (unsigned int)(stepped_rand(sys) % n);
	cpu = tlbgen__rankmap_select(m, rank);
	for (;;) {
		uint64_t rng = sys->rng, draw = stepped_rand(sys);
		unsigned long changes = m->changes;
		unsigned int next = 0, next_rank = 0;

		if (n > 1) {
			/* The next_rank-th of the others: skip cpu itself. */
			next_rank = (unsigned int)(draw % (n - 1));
			next = tlbgen__rankmap_select(m, next_rank + (next_rank >= rank));
			if (sys->prefetch_targets)
				stepped_prefetch_cpu(sys, next);
		}
		stepped_deliver(sys, cpu, -1);
		done++;
		if (unlikely(sys->nr_preempted)) {
			/* A callback preempted a vCPU: step as tlbgen_step() would. */
			sys->rng = rng;
			return stepped_steps(sys, done);
		}
		if (m->changes == changes + 1 && !tlbgen__rankmap_test(m, cpu)) {
			n--;
			cpu = next;
			rank = next_rank;
		} else {
			n = m->weight;
			if (n) {
				rank = (unsigned int)(draw % n);
				cpu = tlbgen__rankmap_select(m, rank);
			}
		}
		if (!n) {
			sys->rng = rng;
			return done;
		}
	}
}

TLBGEN_API int tlbgen_cpu__is_waiting(const struct tlbgen_system *sys, unsigned int cpu)
{
	int err = stepped_check(sys, cpu);

	return err ? err : tlbgen__cpu(sys, cpu)->priv.waiting;
}

TLBGEN_API int tlbgen_cpu__pending_calls(const struct tlbgen_system *sys, unsigned int cpu)
{
	int err = stepped_check(sys, cpu);

	return err ? err : tlbgen__smp_queue_len(sys, cpu);
}

TLBGEN_API int tlbgen_cpu__ipi_pending(const struct tlbgen_system *sys, unsigned int cpu)
{
	int err = stepped_check(sys, cpu);

	return err ? err : tlbgen__rankmap_test(&sys->ipi_pending, cpu);
}
