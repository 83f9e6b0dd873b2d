// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/runtime/cpu.c - threads as emulated CPUs: attach and detach, spawn
 * (pinned, then the idle loop) and join, and the runtime's queries.
 */
#include <errno.h>
#include <sched.h>
#include <string.h>

#include "../core/check.h"
#include "../core/irqflags.h"
#include "../core/this_cpu.h"
#include "runtime.h"
#include "sprog.h"
#include "virtual.h"

static bool virtual_valid(const struct tlbgen_system *sys, unsigned int cpu)
{
	return tlbgen__sys_valid(sys) && cpu < sys->nr_cpus && sys->mode == TLBGEN_MODE_VIRTUAL &&
	       sys->rt;
}

static bool stepped_valid(const struct tlbgen_system *sys, unsigned int cpu)
{
	return tlbgen__sys_valid(sys) && cpu < sys->nr_cpus && sys->mode == TLBGEN_MODE_STEPPED;
}

static bool threaded_valid(const struct tlbgen_system *sys, unsigned int cpu)
{
	return tlbgen__sys_valid(sys) && cpu < sys->nr_cpus && sys->mode == TLBGEN_MODE_THREADED &&
	       sys->rt;
}

TLBGEN_API int tlbgen_cpu__attach(struct tlbgen_system *sys, unsigned int cpu)
{
	struct tlbgen_rt_cpu *r;
	int expected = 0;

	if (!threaded_valid(sys, cpu))
		return -EINVAL;
	if (tlbgen__tls.sys)
		return -EBUSY;
	if (!atomic_compare_exchange_strong(&tlbgen__cpu(sys, cpu)->priv.attached, &expected, 1))
		return -EBUSY;
	atomic_fetch_add(&sys->attached_cpus, 1);
	r = rtc(sys, cpu);
	r->thread = pthread_self();
	tlbgen__tls.cpu = (int)cpu;
	atomic_signal_fence(memory_order_seq_cst);
	tlbgen__tls.sys = sys;
	atomic_store(&r->thread_valid, true);
	/* IPIs queued while nobody was attached. */
	tlbgen__irq_enable_point(sys, cpu);
	return 0;
}

TLBGEN_API int tlbgen_cpu__detach(struct tlbgen_system *sys, unsigned int cpu)
{
	struct tlbgen_rt_cpu *r;

	if (!threaded_valid(sys, cpu))
		return -EINVAL;
	if (!tlbgen__this_thread_is(sys, cpu))
		return -EPERM;
	r = rtc(sys, cpu);
	atomic_store(&r->thread_valid, false);
	/* A sender that saw the thread valid finishes its pthread_kill first. */
	while (atomic_load(&r->kick_refs))
		sched_yield();
	tlbgen__irq_enable_point(sys, cpu);
	tlbgen__tls.sys = NULL;
	atomic_signal_fence(memory_order_seq_cst);
	tlbgen__tls.cpu = -1;
	atomic_store(&tlbgen__cpu(sys, cpu)->priv.attached, 0);
	atomic_fetch_sub(&sys->attached_cpus, 1);
	return 0;
}

TLBGEN_API int tlbgen_poll(struct tlbgen_system *sys, unsigned int cpu)
{
	if (!tlbgen__sys_valid(sys) || cpu >= sys->nr_cpus)
		return -EINVAL;
	if (sys->mode != TLBGEN_MODE_THREADED || !tlbgen__this_thread_is(sys, cpu))
		return -EPERM;
	if (tlbgen__irqs_disabled(sys, cpu))
		return 0;
	return tlbgen__rt_take_ipis(sys, cpu);
}

/* ---- spawned CPUs ---------------------------------------------------------------- */

static bool idle_wake_cond(struct tlbgen_system *sys, unsigned int cpu)
{
	return tlbgen__rt_queue_nonempty(tlbgen__cpu(sys, cpu)) ||
	       atomic_load_explicit(&rtc(sys, cpu)->stop, memory_order_relaxed);
}

/* do_idle(): IRQs on, take IPIs; sleep when there are none. */
void tlbgen__rt_idle_loop(struct tlbgen_system *sys, unsigned int cpu)
{
	struct tlbgen_rt_cpu *r = rtc(sys, cpu);
	struct tlbgen_rt *rt = rt_of(sys);
	unsigned int spins = 0;

	while (!atomic_load_explicit(&r->stop, memory_order_acquire)) {
		if (tlbgen__rt_take_ipis(sys, cpu)) {
			spins = 0;
			continue;
		}
		if (spins < rt->spins) {
			spins++;
			cpu_relax();
			continue;
		}
		tlbgen__rt_sleep(sys, cpu, idle_wake_cond, TLBGEN_IDLE_SLEEP_MS);
		spins = 0;
	}
}

static int pin_to(int hcpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(hcpu, &set);
	return -pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *rt_thread(void *arg)
{
	struct tlbgen_rt_cpu *r = arg;
	struct tlbgen_system *sys = r->sys;
	unsigned int cpu = r->cpu;
	int err;

	(void)pin_to(rt_of(sys)->host[cpu]);	/* best effort: placement may be outside our mask */
	err = tlbgen_cpu__attach(sys, cpu);
	if (err) {
		r->ret = err;
		return NULL;
	}
	r->ret = r->fn ? r->fn(sys, cpu, r->arg) : 0;
	tlbgen__rt_idle_loop(sys, cpu);
	tlbgen_cpu__detach(sys, cpu);
	return NULL;
}

TLBGEN_API int tlbgen_cpu__spawn(struct tlbgen_system *sys, unsigned int cpu, tlbgen_cpu_fn fn,
				 void *arg)
{
	struct tlbgen_rt_cpu *r;
	bool expected = false;
	int err;

	if (virtual_valid(sys, cpu))
		return tlbgen__vt_spawn(sys, cpu, fn, arg);
	if (stepped_valid(sys, cpu))
		return tlbgen__sprog_spawn(sys, cpu, fn, arg);
	if (!threaded_valid(sys, cpu))
		return -EINVAL;
	r = rtc(sys, cpu);
	if (atomic_load(&tlbgen__cpu(sys, cpu)->priv.attached))
		return -EBUSY;
	if (!atomic_compare_exchange_strong(&r->spawned, &expected, true))
		return -EBUSY;
	r->fn = fn;
	r->arg = arg;
	r->ret = 0;
	atomic_store(&r->stop, false);
	err = pthread_create(&r->spawn_thread, NULL, rt_thread, r);
	if (err) {
		atomic_store(&r->spawned, false);
		return -EAGAIN;
	}
	return 0;
}

TLBGEN_API int tlbgen_cpu__should_stop(const struct tlbgen_system *sys, unsigned int cpu)
{
	if (virtual_valid(sys, cpu))
		return tlbgen__vt_should_stop(sys, cpu);
	if (stepped_valid(sys, cpu))
		return tlbgen__sprog_should_stop((struct tlbgen_system *)sys, cpu);
	if (!threaded_valid(sys, cpu))
		return -EINVAL;
	return atomic_load_explicit(&rtc(sys, cpu)->stop, memory_order_acquire);
}

TLBGEN_API int tlbgen_cpu__join(struct tlbgen_system *sys, unsigned int cpu, int *ret)
{
	struct tlbgen_rt_cpu *r;

	if (virtual_valid(sys, cpu))
		return tlbgen__vt_join(sys, cpu, ret);
	if (stepped_valid(sys, cpu))
		return tlbgen__sprog_join(sys, cpu, ret);
	if (!threaded_valid(sys, cpu))
		return -EINVAL;
	r = rtc(sys, cpu);
	if (!atomic_load(&r->spawned))
		return -ESRCH;
	if (pthread_equal(r->spawn_thread, pthread_self()))
		return -EDEADLK;
	atomic_store_explicit(&r->stop, true, memory_order_release);
	tlbgen__rt_wake(r);
	pthread_join(r->spawn_thread, NULL);
	if (ret)
		*ret = r->ret;
	atomic_store(&r->spawned, false);
	return 0;
}

TLBGEN_API int tlbgen_cpu__pin(struct tlbgen_system *sys, unsigned int cpu)
{
	if (!threaded_valid(sys, cpu))
		return -EINVAL;
	return pin_to(rt_of(sys)->host[cpu]);
}

TLBGEN_API int tlbgen_runtime__host_cpu(const struct tlbgen_system *sys, unsigned int cpu)
{
	if (!threaded_valid(sys, cpu))
		return -EINVAL;
	return rt_of(sys)->host[cpu];
}

TLBGEN_API int tlbgen_runtime__oversubscribed(const struct tlbgen_system *sys)
{
	if (!threaded_valid(sys, 0))
		return -EINVAL;
	return rt_of(sys)->oversubscribed;
}

TLBGEN_API int tlbgen_runtime__stats(const struct tlbgen_system *sys,
				     struct tlbgen_runtime_stats *out)
{
	struct tlbgen_runtime_stats s = { .sz = sizeof(s) };
	const struct tlbgen_rt *rt;

	if (!threaded_valid(sys, 0) || !out || out->sz < sizeof(size_t))
		return -EINVAL;
	rt = rt_of(sys);
	s.watchdog_reports = atomic_load(&((struct tlbgen_rt *)rt)->watchdog_reports);
	s.signals_sent = atomic_load(&((struct tlbgen_rt *)rt)->signals_sent);
	s.signals_handled = atomic_load(&((struct tlbgen_rt *)rt)->signals_handled);
	s.signals_deferred = atomic_load(&((struct tlbgen_rt *)rt)->signals_deferred);
	s.yields = atomic_load(&((struct tlbgen_rt *)rt)->yields_done);
	s.futex_sleeps = atomic_load(&((struct tlbgen_rt *)rt)->futex_sleeps);
	s.ipis_resent = atomic_load(&((struct tlbgen_rt *)rt)->ipis_resent);
	/* sz says how much was filled: a caller built against a newer header
	 * sees that this library's struct ends earlier. */
	s.sz = out->sz < sizeof(s) ? out->sz : sizeof(s);
	memcpy(out, &s, s.sz);
	return 0;
}
