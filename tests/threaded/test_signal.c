// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/threaded/test_signal.c - the signal backend (TLBGEN_IPI_SIGNAL):
 * the handler runs the queue on a CPU that never polls, defers it while
 * IRQs are off, and the csd-lock watchdog sends a lost IPI again, as
 * csd_lock_wait_toolong() does (35feb60474bf).
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "tlbgen-test.h"

/* Under TSan a signal now and then never reaches its handler: there the
 * watchdog re-sends it long before the CPUs' deadlines; elsewhere it stays
 * out of the way, so that these tests see the first signal do the work. */
#define WATCHDOG_MS (THR_UNDER_TSAN ? 200 : 20000)

/* Signal backend: CPU 1 spins without polling until CPU 0's flush is done. */
static int busy(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct t_two *t = arg;
	uint64_t end = thr_ms_now() + 10000;

	if (tlbgen_switch_mm(sys, cpu, t->mm) || tlbgen_access(sys, cpu, 0) < 0)
		return 1;
	atomic_store(&t->ready, true);
	while (!atomic_load(&t->flushed) && thr_ms_now() < end) {
		if (THR_UNDER_TSAN) {
			/* TSan delivers async signals at its interceptors. */
			struct timespec ts = { 0, 1000 };

			nanosleep(&ts, NULL);
		}
	}
	if (!atomic_load(&t->flushed))
		return 2;
	/* The flush ran here, from the handler: page 0 is gone. */
	return tlbgen_access(sys, cpu, 0) == 0 ? 0 : 3;
}

static void test_signal_backend(void **state)
{
	TLBGEN_OPTS(tlbgen_runtime_opts, rt, .backend = TLBGEN_IPI_SIGNAL, .watchdog_ms = WATCHDOG_MS);
	struct t_two t = { 0 };
	struct tlbgen_runtime_stats st = { .sz = sizeof(st) };
	int ret = -1;

	(void)state;
	t_two_start(&t, &rt, busy);
	assert_int_equal(tlbgen_pte_change(t.sys, 0, t.mm, 0), 0);
	assert_int_equal(tlbgen_flush_tlb_page(t.sys, 0, t.mm, 0), 0);
	atomic_store(&t.flushed, true);
	assert_int_equal(tlbgen_cpu__join(t.sys, 1, &ret), 0);
	assert_int_equal(ret, 0);
	assert_int_equal(tlbgen_runtime__stats(t.sys, &st), 0);
	assert_true(st.signals_sent >= 1);
	assert_true(st.signals_handled >= 1);
	if (!THR_UNDER_TSAN)
		assert_int_equal(st.ipis_resent, 0);	/* the first signal did it */
	assert_int_equal(tlbgen_oracle__violations(t.sys), 0);
	t_two_stop(&t);
}

/* Signal backend, IRQs off: the handler defers; the irq-enable point takes it. */
struct irqoff {
	struct tlbgen_system *sys;
	struct tlbgen_mm *a, *b;
	atomic_bool armed, in_switch;
	bool held;
};

static void irqoff_hook(void *ctx, unsigned int cpu, enum tlbgen_line line, uintptr_t id,
			enum tlbgen_access_op op)
{
	struct irqoff *x = ctx;
	struct tlbgen_runtime_stats st = { .sz = sizeof(st) };
	uint64_t end;

	(void)id;
	if (cpu != 1 || line != TLBGEN_LINE_TLBSTATE || op != TLBGEN_OP_WRITE || x->held ||
	    !atomic_load(&x->armed))
		return;
	/* Inside switch_mm_irqs_off(), about to store LOADED_MM_SWITCHING. */
	x->held = true;
	atomic_store(&x->in_switch, true);
	end = thr_ms_now() + 5000;
	while (thr_ms_now() < end && tlbgen_runtime__stats(x->sys, &st) == 0 &&
	       st.signals_deferred == 0) {
		struct timespec ts = { 0, 1000 };

		nanosleep(&ts, NULL);	/* an interceptor under TSan, too */
	}
}

static int switcher_irqoff(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct irqoff *x = arg;

	if (tlbgen_switch_mm(sys, cpu, x->a) || tlbgen_access(sys, cpu, 0) != 0 ||
	    tlbgen_switch_mm(sys, cpu, x->b))
		return 1;
	atomic_store(&x->armed, true);
	if (tlbgen_switch_mm(sys, cpu, x->a))	/* held inside, IRQs off */
		return 2;
	atomic_store(&x->armed, false);
	/* The deferred IPI ran at local_irq_enable(): the stale entry is gone. */
	return tlbgen_access(sys, cpu, 0) == 0 ? 0 : 3;
}

static void test_signal_deferred_with_irqs_off(void **state)
{
	TLBGEN_OPTS(tlbgen_runtime_opts, rt, .backend = TLBGEN_IPI_SIGNAL, .watchdog_ms = WATCHDOG_MS);
	struct irqoff x = { 0 };
	TLBGEN_OPTS(tlbgen_trace_ops, tr, .ctx = &x, .line_access = irqoff_hook);
	struct tlbgen_runtime_stats st = { .sz = sizeof(st) };
	int ret = -1;

	(void)state;
	x.sys = t_sys_threaded(2, &rt, "latest");
	assert_int_equal(tlbgen_mm__create(x.sys, 4, &x.a), 0);
	assert_int_equal(tlbgen_mm__create(x.sys, 4, &x.b), 0);
	assert_int_equal(tlbgen_system__set_trace(x.sys, &tr), 0);
	assert_int_equal(tlbgen_cpu__spawn(x.sys, 1, switcher_irqoff, &x), 0);
	assert_int_equal(tlbgen_cpu__attach(x.sys, 0), 0);
	while (!atomic_load(&x.in_switch))
		sched_yield();
	/* CPU 1 is held just before its LOADED_MM_SWITCHING store, IRQs off,
	 * still in a's mask (lazily): the full flush of a (freed_tables, no
	 * condition) IPIs it, and the signal arrives with IRQs off. */
	assert_int_equal(tlbgen_pte_change(x.sys, 0, x.a, 0), 0);
	assert_int_equal(tlbgen_flush_tlb_mm(x.sys, 0, x.a), 0);
	assert_int_equal(tlbgen_cpu__join(x.sys, 1, &ret), 0);
	assert_int_equal(ret, 0);
	assert_int_equal(tlbgen_runtime__stats(x.sys, &st), 0);
	assert_true(st.signals_deferred >= 1);
	if (!THR_UNDER_TSAN)
		assert_int_equal(st.ipis_resent, 0);
	assert_int_equal(tlbgen_oracle__violations(x.sys), 0);
	assert_int_equal(tlbgen_cpu__detach(x.sys, 0), 0);
	assert_int_equal(tlbgen_system__destroy(x.sys), 0);
}

/* CPU 1 takes the first IPI signal off its queue unhandled (a lost IPI),
 * then waits, never polling, for a handler run: only a re-send brings one. */
static int loses_first(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct t_two *t = arg;
	struct tlbgen_runtime_stats st = { .sz = sizeof(st) };
	struct timespec wait = { 5, 0 };
	uint64_t end = thr_ms_now() + 10000;
	bool handled = false;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN + 5);
	if (pthread_sigmask(SIG_BLOCK, &set, NULL) || tlbgen_switch_mm(sys, cpu, t->mm) ||
	    tlbgen_access(sys, cpu, 0) < 0)
		return 1;
	atomic_store(&t->ready, true);
	if (sigtimedwait(&set, NULL, &wait) != SIGRTMIN + 5)
		return 2;
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	while (!handled && thr_ms_now() < end) {
		struct timespec ts = { 0, 1000 };

		handled = tlbgen_runtime__stats(sys, &st) == 0 && st.signals_handled > 0;
		nanosleep(&ts, NULL);	/* an interceptor under TSan, too */
	}
	return handled ? 0 : 3;
}

static void test_watchdog_resends_ipi(void **state)
{
	TLBGEN_OPTS(tlbgen_runtime_opts, rt, .backend = TLBGEN_IPI_SIGNAL, .watchdog_ms = 50);
	struct t_two t = { 0 };
	struct tlbgen_runtime_stats st = { .sz = sizeof(st) };
	int ret = -1;

	(void)state;
	t_two_start(&t, &rt, loses_first);
	tlbgen_set_print(t_quiet_print);	/* the report itself is not what we test */
	assert_int_equal(tlbgen_pte_change(t.sys, 0, t.mm, 0), 0);
	assert_int_equal(tlbgen_flush_tlb_page(t.sys, 0, t.mm, 0), 0);
	tlbgen_set_print(t_warn_print);
	assert_int_equal(tlbgen_cpu__join(t.sys, 1, &ret), 0);
	assert_int_equal(ret, 0);
	assert_int_equal(tlbgen_runtime__stats(t.sys, &st), 0);
	assert_true(st.watchdog_reports >= 1);
	assert_true(st.ipis_resent >= 1);
	assert_true(st.signals_sent >= 2);	/* the IPI, then the report's */
	assert_true(st.signals_handled >= 1);	/* a re-sent one: the first was taken */
	assert_int_equal(tlbgen_oracle__violations(t.sys), 0);
	t_two_stop(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_signal_backend),
		cmocka_unit_test(test_signal_deferred_with_irqs_off),
		cmocka_unit_test(test_watchdog_resends_ipi),
	};

	tlbgen_set_print(t_warn_print);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
