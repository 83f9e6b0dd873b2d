// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/runtime.c - the threaded transport: emulated CPUs are pthreads that
 * attach themselves; an IPI sets the target's pending flag; waits spin on
 * the csd locks while servicing the waiter's own queue (so two CPUs that
 * flush each other never deadlock), then yield.
 */
#include <sched.h>

#include "internal.h"

struct tlbgen_tls {
	struct tlbgen_system *sys;
	int cpu;
};

static _Thread_local struct tlbgen_tls tls = { NULL, -1 };

#define TLBGEN_DEFAULT_SPINS 256

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#endif
}

/* An IRQ-enable point: take pending IPIs unless IRQs are off. */
void tlbgen__rt_irq_enabled(struct tlbgen_system *sys, unsigned int cpu)
{
	struct tlbgen_cpu *c;

	if (sys->mode != TLBGEN_MODE_THREADED)
		return;
	c = tlbgen_cpu(sys, cpu);
	if (atomic_load_explicit(&c->priv.irqs_disabled, memory_order_relaxed))
		return;
	if (!atomic_load_explicit(&c->priv.ipi_pending, memory_order_acquire))
		return;
	atomic_store_explicit(&c->priv.ipi_pending, 0, memory_order_relaxed);
	/* Pairs with the enqueuer's xchg: see every node enqueued before the flag. */
	atomic_thread_fence(memory_order_seq_cst);
	tlbgen_flush_smp_call_function_queue(sys, cpu, -1);
}

static void threaded_send_ipi(struct tlbgen_system *sys, unsigned int from, unsigned int target)
{
	(void)from;
	atomic_store_explicit(&tlbgen_cpu(sys, target)->priv.ipi_pending, 1, memory_order_release);
}

static void threaded_wait(struct tlbgen_system *sys, unsigned int cpu)
{
	struct tlbgen_cpu *c = tlbgen_cpu(sys, cpu);
	unsigned int spins = 0, limit = sys->rt_opts.spin_before_yield ?
					sys->rt_opts.spin_before_yield : TLBGEN_DEFAULT_SPINS;
	tlbgen_done_fn done;

	while (!tlbgen__smp_all_acked(sys, cpu)) {
		tlbgen__rt_irq_enabled(sys, cpu);
		if (++spins >= limit) {
			sched_yield();
			spins = 0;
		} else {
			cpu_relax();
		}
	}
	done = c->priv.done;
	c->priv.done = NULL;
	if (done)
		done(sys, cpu, c->priv.done_arg);
}

static int threaded_check_cpu(const struct tlbgen_system *sys, unsigned int cpu)
{
	if (tls.sys != sys || tls.cpu != (int)cpu)
		return -EPERM;
	return 0;
}

const struct tlbgen_transport tlbgen_threaded_transport = {
	.send_ipi = threaded_send_ipi,
	.wait = threaded_wait,
	.check_cpu = threaded_check_cpu,
};

int tlbgen__rt_create(struct tlbgen_system *sys)
{
	(void)sys;
	return 0;
}

void tlbgen__rt_destroy(struct tlbgen_system *sys)
{
	(void)sys;
}

TLBGEN_API int tlbgen_cpu__attach(struct tlbgen_system *sys, unsigned int cpu)
{
	int expected = 0;

	if (!tlbgen_sys_valid(sys) || cpu >= sys->nr_cpus || sys->mode != TLBGEN_MODE_THREADED)
		return -EINVAL;
	if (tls.sys)
		return -EBUSY;
	if (!atomic_compare_exchange_strong(&tlbgen_cpu(sys, cpu)->priv.attached, &expected, 1))
		return -EBUSY;
	atomic_fetch_add(&sys->attached_cpus, 1);
	tls.sys = sys;
	tls.cpu = (int)cpu;
	return 0;
}

TLBGEN_API int tlbgen_cpu__detach(struct tlbgen_system *sys, unsigned int cpu)
{
	if (!tlbgen_sys_valid(sys) || cpu >= sys->nr_cpus)
		return -EINVAL;
	if (tls.sys != sys || tls.cpu != (int)cpu)
		return -EPERM;
	tlbgen__rt_irq_enabled(sys, cpu);
	tls.sys = NULL;
	tls.cpu = -1;
	atomic_store(&tlbgen_cpu(sys, cpu)->priv.attached, 0);
	atomic_fetch_sub(&sys->attached_cpus, 1);
	return 0;
}

TLBGEN_API int tlbgen_poll(struct tlbgen_system *sys, unsigned int cpu)
{
	if (!tlbgen_sys_valid(sys) || cpu >= sys->nr_cpus)
		return -EINVAL;
	if (sys->mode != TLBGEN_MODE_THREADED || tls.sys != sys || tls.cpu != (int)cpu)
		return -EPERM;
	if (atomic_load_explicit(&tlbgen_cpu(sys, cpu)->priv.irqs_disabled, memory_order_relaxed))
		return 0;
	atomic_store_explicit(&tlbgen_cpu(sys, cpu)->priv.ipi_pending, 0, memory_order_relaxed);
	atomic_thread_fence(memory_order_seq_cst);
	return tlbgen_flush_smp_call_function_queue(sys, cpu, -1);
}

TLBGEN_API int tlbgen_this_cpu(const struct tlbgen_system *sys)
{
	if (!sys || tls.sys != sys)
		return -ENOENT;
	return tls.cpu;
}
