// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/runtime/signal.c - the signal backend (TLBGEN_IPI_SIGNAL): an IPI is
 * a pthread_kill() that interrupts the target wherever it runs, taken at
 * once with IRQs on, else at the next IRQ-enable point.
 */
#include <errno.h>
#include <signal.h>

#include "../core/irqflags.h"
#include "../core/this_cpu.h"
#include "runtime.h"

/*
 * The IPI handler (signal backend). Async-signal-safe enough: no malloc, no
 * locks; it reads only initial-exec TLS and the CPU's own state. With IRQs
 * off it only notes the IPI; the irq-enable point takes it.
 */
static void rt_ipi_handler(int sig)
{
	struct tlbgen_system *sys = tlbgen__tls.sys;
	int saved_errno = errno;

	(void)sig;
	if (!sys || tlbgen__tls.cpu < 0)
		return;
	if (tlbgen__irqs_disabled(sys, (unsigned int)tlbgen__tls.cpu)) {
		rt_inc(&rt_of(sys)->signals_deferred);
	} else {
		rt_inc(&rt_of(sys)->signals_handled);
		tlbgen__rt_take_ipis(sys, (unsigned int)tlbgen__tls.cpu);
	}
	errno = saved_errno;
}

static pthread_mutex_t sig_lock = PTHREAD_MUTEX_INITIALIZER;
static bool sig_installed;

int tlbgen__rt_install_handler(void)
{
	struct sigaction sa = { 0 };
	int err = 0;

	pthread_mutex_lock(&sig_lock);
	if (!sig_installed) {
		sa.sa_handler = rt_ipi_handler;
		sa.sa_flags = SA_RESTART;
		sigemptyset(&sa.sa_mask);
		if (sigaction(SIGRTMIN + TLBGEN_IPI_SIGNAL_OFFSET, &sa, NULL))
			err = -errno;
		else
			sig_installed = true;
	}
	pthread_mutex_unlock(&sig_lock);
	return err;
}

/* pthread_kill() only while the thread is known to be attached (alive). */
void tlbgen__rt_kick(struct tlbgen_system *sys, unsigned int target)
{
	struct tlbgen_rt_cpu *r = rtc(sys, target);

	atomic_fetch_add_explicit(&r->kick_refs, 1, memory_order_seq_cst);
	if (atomic_load_explicit(&r->thread_valid, memory_order_seq_cst)) {
		rt_inc(&rt_of(sys)->signals_sent);
		pthread_kill(r->thread, SIGRTMIN + TLBGEN_IPI_SIGNAL_OFFSET);
	}
	atomic_fetch_sub_explicit(&r->kick_refs, 1, memory_order_release);
}

