// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/runtime/stepped.c - the stepped transport: one host thread, no internal
 * threads. "Raising an IPI" marks the target pending; nothing runs until the
 * host delivers. An initiator with remote csds outstanding is left waiting;
 * its completion (put_flush_tlb_info() and the oracle's bookkeeping) runs
 * when the last target unlocks its csd.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "../base/prandom.h"
#include "../core/check.h"
#include "../kernel/smp.h"
#include "runtime.h"
#include "sprog.h"

static void stepped_send_ipi(struct tlbgen_system *sys, unsigned int from, unsigned int target)
{
	(void)from;
	tlbgen__rankmap_set(&sys->ipi_pending, target);
}

static void stepped_csd_queued(struct tlbgen_system *sys, unsigned int src)
{
	tlbgen__cpu(sys, src)->priv.outstanding++;
	sys->last_src = src;
}

static void stepped_complete(struct tlbgen_system *sys, unsigned int cpu)
{
	struct tlbgen_cpu *c = tlbgen__cpu(sys, cpu);
	tlbgen_done_fn done = c->priv.done;

	c->priv.done = NULL;
	tlbgen__smp_wait_reads(sys, cpu);
	/* A flush that called no one left the mask alone, and under a
	 * per-CPU one that mask may be a preempted waiter's. */
	if (c->priv.run_remote)
		bitmap_zero(c->priv.cfd_mask, sys->mask_longs);
	c->priv.run_remote = false;
	if (done)
		done(sys, cpu, c->priv.done_arg);
	if (done && sys->flush_done)
		sys->flush_done(sys->flush_done_ctx, cpu);
}

/*
 * csd_lock_wait() over the mask the task walks is over. While one task
 * runs per CPU, "none of this CPU's csds still locked" is the same test
 * without a scan per unlock; once a task was preempted in its wait
 * (runtime/stepped_preempt.c), the mask is walked, whatever is in it.
 */
static bool stepped_wait_over(const struct tlbgen_system *sys, unsigned int cpu)
{
	const struct tlbgen_cpu *c = tlbgen__cpu(sys, cpu);

	if (unlikely(c->priv.preempted))
		return tlbgen__smp_mask_unlocked(sys, cpu);
	return c->priv.outstanding == 0;
}

static void stepped_csd_unlocked(struct tlbgen_system *sys, unsigned int src)
{
	struct tlbgen_cpu *c = tlbgen__cpu(sys, src);

	c->priv.outstanding--;
	if (c->priv.waiting && stepped_wait_over(sys, src)) {
		c->priv.waiting = false;
		atomic_fetch_sub(&sys->waiting_cpus, 1);
		stepped_complete(sys, src);
	}
}

static void stepped_wait(struct tlbgen_system *sys, unsigned int cpu)
{
	struct tlbgen_cpu *c = tlbgen__cpu(sys, cpu);

	if (stepped_wait_over(sys, cpu)) {
		stepped_complete(sys, cpu);
		return;
	}
	c->priv.waiting = true;
	atomic_fetch_add(&sys->waiting_cpus, 1);
	/* A program (runtime/sprog.c) spins in csd_lock_wait(): others run. */
	if (tlbgen__sprog_running(sys, cpu))
		tlbgen__sprog_wait(sys, cpu);
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
	/* Half: the L2 also holds the initiator's side and everything else. */
	sys->prefetch_next = (uint64_t)sys->nr_cpus * STEPPED_DELIVERY_BYTES > (uint64_t)l2 / 2;
	return 0;
}

/*
 * csd_lock() found this CPU's csd for dst still locked by a task preempted
 * in its wait: dst takes that csd now, which the host could have let it do
 * at any earlier step. A vCPU the host preempted takes it too: the lock
 * would spin until the host ran it again.
 */
static void stepped_csd_lock_wait(struct tlbgen_system *sys, unsigned int src, unsigned int dst)
{
	tlbgen__flush_smp_call_function_queue(sys, dst, (int)src);
	if (tlbgen__call_queue_empty(&tlbgen__cpu(sys, dst)->queue))
		tlbgen__rankmap_clear(&sys->ipi_pending, dst);
}

const struct tlbgen_transport tlbgen__stepped_transport = {
	.create = stepped_create,
	.destroy = tlbgen__sprog_free,
	.send_ipi = stepped_send_ipi,
	.wait = stepped_wait,
	.csd_queued = stepped_csd_queued,
	.csd_unlocked = stepped_csd_unlocked,
	.csd_lock_wait = stepped_csd_lock_wait,
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

/*
 * Pull the lines `cpu`'s delivery will touch into the cache: its struct
 * tlbgen_cpu's, and, guessed from the last initiator, that initiator's csd
 * for cpu and cpu's counters in the mm the initiator has loaded (a
 * shootdown's initiator runs the mm it flushes). The target's lines are
 * only prefetched, never loaded: a load from a line still in flight would
 * stall the delivery before it (the initiator's lines read here are hot).
 * always_inline: GCC counts a prefetch as no side effect, finds a function
 * of prefetches pure, and deletes any call it did not inline.
 */
static inline __attribute__((always_inline)) void
stepped_prefetch_cpu(const struct tlbgen_system *sys, unsigned int cpu)
{
	const struct tlbgen_cpu *c = tlbgen__cpu(sys, cpu), *src = tlbgen__cpu(sys, sys->last_src);
	const struct tlbgen_mm *mm = atomic_load_explicit(&src->tlbstate.loaded_mm,
							  memory_order_relaxed);

	__builtin_prefetch(&c->tlbstate, 1, 3);
	__builtin_prefetch(&c->shared, 0, 3);
	__builtin_prefetch(&c->queue, 1, 3);
	__builtin_prefetch(&c->priv, 1, 3);
	__builtin_prefetch(&c->stats[tlbgen__stat_slot(TLBGEN_STAT_IPI_RECEIVED)], 1, 3);
	if (src->priv.csds)
		__builtin_prefetch(&src->priv.csds[cpu], 1, 3);
	if (mm && mm->priv.stats)
		__builtin_prefetch(&mm->priv.stats[(size_t)cpu * TLBGEN_MM_STAT_STRIDE], 1, 3);
}

/*
 * A host that delivers target after target in CPU order (a simulator
 * walking its pending CPUs) finds the next CPU's lines in the cache. A
 * guess, so made only when the targets' lines outgrow the L2 cache
 * (stepped_create()): below that it costs more than it saves.
 */
TLBGEN_API int tlbgen_deliver(struct tlbgen_system *sys, unsigned int cpu)
{
	int err = stepped_check(sys, cpu);

	if (err)
		return err;
	if (sys->prefetch_next && cpu + 1 < sys->nr_cpus)
		stepped_prefetch_cpu(sys, cpu + 1);
	return stepped_deliver(sys, cpu, -1);
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
 * map finds it in O(1) instead of a scan of every CPU.
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
 * The CPUs of two steps over the n pending, from their draws: the
 * (draw_a % n)-th pending one, then the (draw_b % (n - 1))-th of the others
 * (assuming the first's delivery clears only its own bit). *next is left alone when n < 2.
 * Out of line: run_until_idle() calls it once and on its slow path, and
 * inlined it made the loop's code slower.
 */
static __attribute__((noinline)) void
stepped_choose(struct tlbgen_rankmap *m, unsigned int n, uint64_t draw_a, uint64_t draw_b,
	       unsigned int *rank, unsigned int *cpu, unsigned int *nrank, unsigned int *next)
{
	*rank = (unsigned int)(draw_a % n);
	*cpu = tlbgen__rankmap_select(m, *rank);
	if (n > 1) {
		*nrank = (unsigned int)(draw_b % (n - 1));
		*nrank += *nrank >= *rank;
		*next = tlbgen__rankmap_select(m, *nrank);
	}
}

/*
 * tlbgen_step() until idle, with the same draws and choices, two steps
 * ahead: while `cpu` is delivered, the lines of the next step's CPU, chosen
 * a delivery earlier, are prefetched, and the CPU of the step after that is
 * chosen, assuming each delivery only clears its own bit (a flush's
 * callbacks raise no IPIs). The random order then pays no cache miss per
 * line; a prefetch issued right behind the rank/select that finds its CPU
 * came too late to hide any. That choice's draw and its 64-bit division are
 * made a delivery earlier still: the delivery waits on the chain from draw
 * to chosen CPU, and at thousands of CPUs the rank/select alone is most of
 * what it can hide. If a delivery changed the pending set otherwise, the
 * choices are made again from the same draws; when nothing is left
 * pending, the draws not used are taken back.
 */
TLBGEN_API int tlbgen_run_until_idle(struct tlbgen_system *sys)
{
	struct tlbgen_rankmap *m;
	unsigned int n, rank, cpu, nrank = 0, next = 0, mod2;
	uint64_t draw0, rng1, draw1, rng2, draw2;
	int done = 0, err = stepped_check(sys, 0);

	if (err)
		return err;
	if (unlikely(sys->nr_preempted))
		return stepped_steps(sys, 0);
	m = &sys->ipi_pending;
	n = m->weight;
	if (!n)
		return 0;
	draw0 = stepped_rand(sys);
	/* draw1 is the next step's, taken from rng1; draw2 the one after. */
	rng1 = sys->rng;
	draw1 = stepped_rand(sys);
	rng2 = sys->rng;
	draw2 = stepped_rand(sys);
	stepped_choose(m, n, draw0, draw1, &rank, &cpu, &nrank, &next);
	mod2 = n > 2 ? (unsigned int)(draw2 % (n - 2)) : 0;
	for (;;) {
		uint64_t rng3 = sys->rng, draw3 = stepped_rand(sys);
		unsigned long changes = m->changes;
		unsigned int n2rank = 0, next2 = 0, mod3;

		if (n > 1)
			stepped_prefetch_cpu(sys, next);
		if (n > 2) {
			/* The mod2-th of the others: skip cpu and next. */
			unsigned int lo = rank < nrank ? rank : nrank;
			unsigned int hi = rank < nrank ? nrank : rank;

			n2rank = mod2;
			n2rank += n2rank >= lo;
			n2rank += n2rank >= hi;
			next2 = tlbgen__rankmap_select(m, n2rank);
		}
		/* The next step's, if this delivery only clears cpu. */
		mod3 = n > 3 ? (unsigned int)(draw3 % (n - 3)) : 0;
		stepped_deliver(sys, cpu, -1);
		done++;
		if (unlikely(sys->nr_preempted)) {
			/* A callback preempted a vCPU: step as tlbgen_step() would. */
			sys->rng = rng1;
			return stepped_steps(sys, done);
		}
		if (m->changes == changes + 1 && !tlbgen__rankmap_test(m, cpu)) {
			/* Only cpu left the set: the others' ranks above it drop. */
			n--;
			nrank -= nrank > rank;
			n2rank -= n2rank > rank;
			cpu = next;
			rank = nrank;
			next = next2;
			nrank = n2rank;
			mod2 = mod3;
		} else {
			n = m->weight;
			if (n) {
				stepped_choose(m, n, draw1, draw2, &rank, &cpu, &nrank, &next);
				mod2 = n > 2 ? (unsigned int)(draw3 % (n - 2)) : 0;
			}
		}
		if (!n) {
			sys->rng = rng1;
			return done;
		}
		rng1 = rng2;
		rng2 = rng3;
		draw1 = draw2;
		draw2 = draw3;
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

/*
 * Programs (runtime/sprog.c): each step picks uniformly among the CPUs
 * with an IPI pending and the programs that can run. The candidates are
 * listed pending CPUs first, then programs, both in CPU order, so a seed
 * replays the same run.
 */
TLBGEN_API int tlbgen_stepped__run(struct tlbgen_system *sys, uint64_t steps)
{
	unsigned int *cand;
	uint64_t done = 0;
	int err;

	if (!tlbgen__sys_valid(sys) || sys->mode != TLBGEN_MODE_STEPPED)
		return -EINVAL;
	err = tlbgen__sprog_begin(sys);
	if (err)
		return err < 0 ? err : 0;
	cand = calloc(2 * (size_t)sys->nr_cpus, sizeof(*cand));
	if (!cand)
		return -ENOMEM;
	for (;;) {
		unsigned int n = 0, np, pick;
		bool busy;

		for (unsigned int c = 0; c < sys->nr_cpus; c++)
			if (tlbgen__rankmap_test(&sys->ipi_pending, c))
				cand[n++] = c;
		np = tlbgen__sprog_runnable(sys, done >= steps, cand + n, &busy);
		for (unsigned int i = n; i < n + np; i++)
			cand[i] += sys->nr_cpus;
		n += np;
		if (!n) {
			err = busy ? -EDEADLK : 0;
			break;
		}
		pick = cand[stepped_rand(sys) % n];
		done++;
		if (pick < sys->nr_cpus) {
			stepped_deliver(sys, pick, -1);
			continue;
		}
		err = tlbgen__sprog_resume(sys, pick - sys->nr_cpus);
		if (err)
			break;
	}
	free(cand);
	return err;
}
