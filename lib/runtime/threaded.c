// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/runtime/threaded.c - the threaded transport: emulated CPUs are
 * pthreads, attached by the user or spawned (and pinned) by the library.
 *
 * kernel/smp.c's semantics stay in kernel/smp.c; this file decides how an
 * "IPI" reaches its target and how an initiator waits:
 *  - an IPI is a non-empty call queue plus, if the target sleeps, a futex
 *    wake, and with the signal backend a pthread_kill(); the target runs
 *    the queue at its next IRQ-enable point (or in the signal handler);
 *  - waits spin (servicing the waiter's own queue, so two CPUs flushing
 *    each other never deadlock), then sched_yield(), then sleep on a futex
 *    woken by the csd unlock; a watchdog reports a csd that stays locked
 *    too long, as csd_lock_wait_toolong() does.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "../base/kallsyms.h"
#include "../base/printk.h"
#include "../core/irqflags.h"
#include "../core/this_cpu.h"
#include "../kernel/smp.h"
#include "runtime.h"

static void threaded_send_ipi(struct tlbgen_system *sys, unsigned int from, unsigned int target)
{
	(void)from;
	/* The non-empty queue is the IPI (no pending flag: one line less per
	 * round trip); a signal interrupts, a futex wake ends a sleep. */
	if (sys->rt_opts.backend == TLBGEN_IPI_SIGNAL)
		tlbgen__rt_kick(sys, target);
	tlbgen__rt_wake(rtc(sys, target));
}

/* A csd of `src` was unlocked: wake it if it went to sleep waiting. */
static void threaded_csd_unlocked(struct tlbgen_system *sys, unsigned int src)
{
	tlbgen__rt_wake(rtc(sys, src));
}

static bool wait_done_or_ipi(struct tlbgen_system *sys, unsigned int cpu)
{
	return tlbgen__rt_queue_nonempty(tlbgen__cpu(sys, cpu)) || tlbgen__smp_all_acked(sys, cpu);
}

/* csd_lock_wait_toolong(): say who does not answer, with what, since when. */
static void rt_watchdog_report(struct tlbgen_system *sys, unsigned int cpu, uint64_t since,
			       uint64_t now)
{
	struct tlbgen_cpu *c = tlbgen__cpu(sys, cpu);
	unsigned int t;
	char buf[48];

	rt_inc(&rt_of(sys)->watchdog_reports);
	for_each_bit(t, c->priv.cfd_mask, sys->nr_cpus) {
		struct tlbgen_csd *csd = &c->priv.csds[t];
		struct tlbgen_cpu *target = tlbgen__cpu(sys, t);
		bool attached;

		if (!tlbgen__csd_locked(csd))
			continue;
		attached = atomic_load_explicit(&target->priv.attached, memory_order_relaxed);
		tlbgen__pr(TLBGEN_WARN,
			   "tlbgen: csd: cpu %u: IPI to cpu %u not acknowledged for %llu ms: "
			   "%s(info %p) queued at %llu.%06llu s (CLOCK_MONOTONIC)%s\n",
			   cpu, t, (unsigned long long)((now - since) / 1000000u),
			   tlbgen__kallsyms_lookup((void (*)(void))csd->func, buf, sizeof(buf)), csd->info,
			   (unsigned long long)(since / 1000000000u),
			   (unsigned long long)(since % 1000000000u / 1000u),
			   attached ? "" : " (cpu not attached)");
		/* csd_lock_wait_toolong() re-sends the IPI when the target runs
		 * no csd callback (!cpu_cur_csd, 35feb60474bf), so that a lost IPI
		 * does not wedge the waiter; here: when its queue still holds work. */
		if (attached && tlbgen__rt_queue_nonempty(target)) {
			tlbgen__pr(TLBGEN_WARN, "tlbgen: csd: re-sending IPI from cpu %u to cpu %u\n",
				   cpu, t);
			rt_inc(&rt_of(sys)->ipis_resent);
			threaded_send_ipi(sys, cpu, t);
		}
	}
}

static void threaded_wait(struct tlbgen_system *sys, unsigned int cpu)
{
	struct tlbgen_rt *rt = rt_of(sys);
	unsigned int spins = 0, yields = 0;
	uint64_t since = 0, next_report = 0;

	while (!tlbgen__smp_all_acked(sys, cpu)) {
		/* An irq-enable point: two CPUs flushing each other make progress. */
		tlbgen__rt_irq_enable(sys, cpu);
		if (spins < rt->spins) {
			spins++;
			cpu_relax();
			continue;
		}
		if (!since) {
			since = now_ns();
			next_report = since + (uint64_t)rt->watchdog_ms * 1000000u;
		}
		if (yields < rt->yields) {
			yields++;
			rt_inc(&rt->yields_done);
			sched_yield();
		} else {
			tlbgen__rt_sleep(sys, cpu, wait_done_or_ipi,
				 rt->watchdog_ms < 10 ? rt->watchdog_ms : 10);
		}
		if ((yields & 63) == 0 || yields >= rt->yields) {
			uint64_t now = now_ns();

			if (now >= next_report) {
				rt_watchdog_report(sys, cpu, since, now);
				next_report = now + (uint64_t)rt->watchdog_ms * 1000000u;
			}
		}
	}
	tlbgen__smp_wait_done(sys, cpu);
}

static int threaded_check_cpu(const struct tlbgen_system *sys, unsigned int cpu)
{
	return tlbgen__this_thread_is(sys, cpu) ? 0 : -EPERM;
}

/* The NUMA node for `cpu`'s per-CPU state, or -1 (stepped, no libnuma). */
static int threaded_cpu_node(struct tlbgen_system *sys, unsigned int cpu)
{
	if (tlbgen__rt_placement(sys))
		return -1;
	return rt_of(sys)->numa ? rt_of(sys)->node[cpu] : -1;
}


static int threaded_create(struct tlbgen_system *sys)
{
	static atomic_bool said_oversubscribed;
	struct tlbgen_rt *rt;
	int err;

	if (sys->rt_opts.backend != TLBGEN_IPI_POLL && sys->rt_opts.backend != TLBGEN_IPI_SIGNAL)
		return -EINVAL;
	err = tlbgen__rt_placement(sys);
	if (err)
		return err;
	rt = rt_of(sys);
	rt->watchdog_ms = sys->rt_opts.watchdog_ms ? sys->rt_opts.watchdog_ms
						   : TLBGEN_DEFAULT_WATCHDOG_MS;
	rt->spins = sys->rt_opts.spin_before_yield ? sys->rt_opts.spin_before_yield
		    : rt->oversubscribed ? TLBGEN_OVERSUB_SPINS : TLBGEN_DEFAULT_SPINS;
	rt->yields = sys->rt_opts.yields_before_sleep ? sys->rt_opts.yields_before_sleep
						       : TLBGEN_DEFAULT_YIELDS;
	for (unsigned int i = 0; i < sys->nr_cpus; i++) {
		struct tlbgen_rt_cpu *r = tlbgen__cpu_alloc(sys, i, sizeof(*r));

		if (!r)
			return -ENOMEM;
		r->sys = sys;
		r->cpu = i;
		tlbgen__cpu(sys, i)->priv.rt = r;
	}
	if (sys->rt_opts.backend == TLBGEN_IPI_SIGNAL) {
		err = tlbgen__rt_install_handler();
		if (err)
			return err;
	}
	if (rt->oversubscribed && !atomic_exchange(&said_oversubscribed, true))
		tlbgen__pr(TLBGEN_INFO,
			   "tlbgen: oversubscribed: %u emulated CPUs on %u real CPUs; "
			   "wait loops yield and sleep instead of spinning\n",
			   sys->nr_cpus, rt->nr_host);
	return 0;
}

static void threaded_destroy(struct tlbgen_system *sys)
{
	struct tlbgen_rt *rt = rt_of(sys);

	if (!rt)
		return;
	for (unsigned int i = 0; i < sys->nr_cpus && sys->cpus; i++) {
		/* The blocks themselves go with the system's arena. */
		if (sys->cpus[i])
			sys->cpus[i]->priv.rt = NULL;
	}
	free(rt->host);
	free(rt->node);
	free(rt);
	sys->rt = NULL;
}


const struct tlbgen_transport tlbgen__threaded_transport = {
	.create = threaded_create,
	.destroy = threaded_destroy,
	.cpu_node = threaded_cpu_node,
	.send_ipi = threaded_send_ipi,
	.wait = threaded_wait,
	.csd_unlocked = threaded_csd_unlocked,
	.irq_enable = tlbgen__rt_irq_enable,
	.check_cpu = threaded_check_cpu,
};
