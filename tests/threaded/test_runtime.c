// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/threaded/test_runtime.c - the runtime itself: argument checks,
 * placement and oversubscription, spawned idle CPUs answering IPIs, the
 * csd-lock watchdog, a broken IPI condition caught by the oracle (the
 * threaded tests can fail), and user calls crossing between all CPUs.
 * The signal backend has its own file (test_signal.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "tlbgen-test.h"

static int nop(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	(void)sys;
	(void)cpu;
	(void)arg;
	return 7;
}

static void test_api(void **state)
{
	TLBGEN_OPTS(tlbgen_system_opts, so, .nr_cpus = 2, .mode = TLBGEN_MODE_STEPPED);
	TLBGEN_OPTS(tlbgen_runtime_opts, bad_backend, .backend = (enum tlbgen_ipi_backend)7);
	int neg[] = { -1 };
	TLBGEN_OPTS(tlbgen_runtime_opts, bad_list, .cpu_list = neg, .nr_cpu_list = 1);
	TLBGEN_OPTS(tlbgen_system_opts, to, .nr_cpus = 2, .mode = TLBGEN_MODE_THREADED);
	struct tlbgen_runtime_stats st = { .sz = sizeof(st) };
	struct tlbgen_system *stepped, *sys, *tmp = NULL;
	int ret = 0;

	(void)state;
	assert_int_equal(tlbgen_system__create(&so, &stepped), 0);
	assert_int_equal(tlbgen_cpu__spawn(stepped, 0, NULL, NULL), -EINVAL);
	assert_int_equal(tlbgen_runtime__oversubscribed(stepped), -EINVAL);
	assert_int_equal(tlbgen_runtime__stats(stepped, &st), -EINVAL);
	assert_int_equal(tlbgen_cpu__attach(stepped, 0), -EINVAL);
	assert_int_equal(tlbgen_system__destroy(stepped), 0);

	to.runtime = &bad_backend;
	assert_int_equal(tlbgen_system__create(&to, &tmp), -EINVAL);
	to.runtime = &bad_list;
	assert_int_equal(tlbgen_system__create(&to, &tmp), -EINVAL);
	assert_null(tmp);

	sys = t_sys_threaded(2, NULL, "latest");
	assert_int_equal(tlbgen_cpu__spawn(NULL, 0, NULL, NULL), -EINVAL);
	assert_int_equal(tlbgen_cpu__spawn(sys, 2, NULL, NULL), -EINVAL);
	assert_int_equal(tlbgen_cpu__join(sys, 1, NULL), -ESRCH);
	assert_int_equal(tlbgen_cpu__should_stop(sys, 9), -EINVAL);
	assert_int_equal(tlbgen_runtime__host_cpu(sys, 2), -EINVAL);
	assert_int_equal(tlbgen_runtime__stats(sys, NULL), -EINVAL);
	assert_int_equal(tlbgen_runtime__stats(sys, &st), 0);
	assert_int_equal(st.watchdog_reports, 0);
	assert_int_equal(st.sz, sizeof(st));
	/* An older caller's shorter struct: filled to its end, no further. */
	memset(&st, 0xaa, sizeof(st));
	st.sz = offsetof(struct tlbgen_runtime_stats, ipis_resent);
	assert_int_equal(tlbgen_runtime__stats(sys, &st), 0);
	assert_int_equal(st.sz, offsetof(struct tlbgen_runtime_stats, ipis_resent));
	assert_int_equal(st.futex_sleeps, 0);
	assert_int_equal(st.ipis_resent, 0xaaaaaaaaaaaaaaaaull);
	/* A newer caller's longer struct: sz says where this library's ends. */
	{
		struct { struct tlbgen_runtime_stats s; uint64_t next; } big;

		memset(&big, 0xaa, sizeof(big));
		big.s.sz = sizeof(big);
		assert_int_equal(tlbgen_runtime__stats(sys, &big.s), 0);
		assert_int_equal(big.s.sz, sizeof(big.s));
		assert_int_equal(big.next, 0xaaaaaaaaaaaaaaaaull);
	}
	st.sz = sizeof(st);

	/* The calling thread as CPU 0, a spawned thread as CPU 1. */
	assert_int_equal(tlbgen_cpu__attach(sys, 0), 0);
	assert_int_equal(tlbgen_this_cpu(sys), 0);
	assert_int_equal(tlbgen_cpu__spawn(sys, 0, NULL, NULL), -EBUSY);
	assert_int_equal(tlbgen_cpu__attach(sys, 1), -EBUSY);	/* this thread is CPU 0 */
	assert_int_equal(tlbgen_poll(sys, 1), -EPERM);
	assert_int_equal(tlbgen_cpu__spawn(sys, 1, nop, NULL), 0);
	assert_int_equal(tlbgen_cpu__spawn(sys, 1, nop, NULL), -EBUSY);
	assert_int_equal(tlbgen_system__destroy(sys), -EBUSY);
	assert_int_equal(tlbgen_cpu__join(sys, 1, &ret), 0);
	assert_int_equal(ret, 7);
	assert_int_equal(tlbgen_cpu__detach(sys, 1), -EPERM);
	assert_int_equal(tlbgen_cpu__detach(sys, 0), 0);
	assert_int_equal(tlbgen_this_cpu(sys), -ENOENT);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

static void test_placement(void **state)
{
	int list[] = { 1, 0 }, same[] = { 0, 0 };
	TLBGEN_OPTS(tlbgen_runtime_opts, rl, .cpu_list = list, .nr_cpu_list = 2);
	TLBGEN_OPTS(tlbgen_runtime_opts, rs, .cpu_list = same, .nr_cpu_list = 2);
	struct tlbgen_system *sys;
	unsigned int hosts = thr_host_cpus();

	(void)state;
	sys = t_sys_threaded(3, &rl, "latest");
	assert_int_equal(tlbgen_runtime__host_cpu(sys, 0), 1);
	assert_int_equal(tlbgen_runtime__host_cpu(sys, 1), 0);
	assert_int_equal(tlbgen_runtime__host_cpu(sys, 2), 1);
	assert_int_equal(tlbgen_runtime__oversubscribed(sys), 1);	/* 3 on 2 */
	assert_int_equal(tlbgen_system__destroy(sys), 0);

	sys = t_sys_threaded(2, &rs, "latest");
	assert_int_equal(tlbgen_runtime__oversubscribed(sys), 1);	/* both on CPU 0 */
	assert_int_equal(tlbgen_system__destroy(sys), 0);

	sys = t_sys_threaded(1, NULL, "latest");
	assert_int_equal(tlbgen_runtime__oversubscribed(sys), 0);
	assert_true(tlbgen_runtime__host_cpu(sys, 0) >= 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);

	sys = t_sys_threaded(hosts * 4, NULL, "latest");
	assert_int_equal(tlbgen_runtime__oversubscribed(sys), 1);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

/* Idle CPUs (in no mm, running nothing) answer a kernel-range flush. */
static void test_idle_cpus_answer(void **state)
{
	struct tlbgen_system *sys = t_sys_threaded(4, NULL, "latest");
	uint64_t st[TLBGEN_STAT_NR];

	(void)state;
	for (unsigned int c = 1; c < 4; c++)
		assert_int_equal(tlbgen_cpu__spawn(sys, c, NULL, NULL), 0);
	assert_int_equal(tlbgen_cpu__attach(sys, 0), 0);
	for (int i = 0; i < 200; i++)
		assert_int_equal(tlbgen_flush_tlb_kernel_range(sys, 0, 0, TLBGEN_PAGE_SIZE), 0);
	assert_int_equal(tlbgen_cpu__detach(sys, 0), 0);
	for (unsigned int c = 1; c < 4; c++) {
		int ret = -1;

		assert_int_equal(tlbgen_cpu__join(sys, c, &ret), 0);
		assert_int_equal(ret, 0);
		assert_int_equal(tlbgen_stats__cpu(sys, c, st, TLBGEN_STAT_NR), TLBGEN_STAT_NR);
		/* Every flush ran on every idle CPU. */
		assert_int_equal(st[TLBGEN_STAT_KERNEL_FLUSH], 200);
	}
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

/* CPU 1 runs mm and then never reaches an IRQ-enable point for a while. */
static int deaf(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct t_two *t = arg;
	struct tlbgen_runtime_stats st = { .sz = sizeof(st) };
	uint64_t end = thr_ms_now() + 10000;

	if (tlbgen_switch_mm(sys, cpu, t->mm) || tlbgen_access(sys, cpu, 0) < 0)
		return 1;
	atomic_store(&t->ready, true);
	/* No tlbgen call that polls: only the watchdog can say CPU 0 waits. */
	while (thr_ms_now() < end) {
		if (tlbgen_runtime__stats(sys, &st) == 0 && st.watchdog_reports > 0) {
			t->saw_report = true;
			break;
		}
		sched_yield();
	}
	return 0;	/* then the idle loop answers */
}

static void test_watchdog(void **state)
{
	TLBGEN_OPTS(tlbgen_runtime_opts, rt, .watchdog_ms = 50);
	struct t_two t = { 0 };
	struct tlbgen_runtime_stats st = { .sz = sizeof(st) };
	int ret = -1;

	(void)state;
	t_two_start(&t, &rt, deaf);
	tlbgen_set_print(t_quiet_print);	/* the report itself is not what we test */
	assert_int_equal(tlbgen_flush_tlb_mm(t.sys, 0, t.mm), 0);
	tlbgen_set_print(t_warn_print);
	assert_int_equal(tlbgen_runtime__stats(t.sys, &st), 0);
	assert_true(st.watchdog_reports >= 1);
	assert_int_equal(tlbgen_cpu__join(t.sys, 1, &ret), 0);
	assert_int_equal(ret, 0);
	assert_true(t.saw_report);	/* it fired while CPU 1 was deaf */
	t_two_stop(&t);
}

static enum tlbgen_ipi_verdict never_send(struct tlbgen_ipi_target *t, void *priv)
{
	(void)t;
	(void)priv;
	return TLBGEN_IPI_SKIP_NOT_LOADED;
}

struct lockstep {
	struct tlbgen_mm *mm;
	struct thr_barrier bar;
	long found;
};

static int victim(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct lockstep *l = arg;
	int n;

	if (tlbgen_switch_mm(sys, cpu, l->mm) || tlbgen_access(sys, cpu, 0) != 0)
		return 1;
	thr_barrier_wait(&l->bar, sys, cpu);	/* CPU 0 changes and flushes */
	thr_barrier_wait(&l->bar, sys, cpu);
	n = tlbgen_access(sys, cpu, 0);		/* 1: a hit, on the stale entry */
	l->found = tlbgen_oracle__violations(sys);
	tlbgen_switch_mm(sys, cpu, NULL);
	return n == 1 ? 0 : 2;
}

/* A condition that never IPIs: the oracle must catch the stale hit. */
static void test_broken_cond_caught(void **state)
{
	TLBGEN_OPTS(tlbgen_policy_ops, ops, .ipi_cond = never_send);
	struct lockstep l = { 0 };
	struct tlbgen_system *sys;
	int ret = -1;

	(void)state;
	assert_int_equal(tlbgen_policy_register("thr-rt-never-ipi", "latest", NULL, &ops), 0);
	sys = t_sys_threaded(2, NULL, "thr-rt-never-ipi");
	assert_int_equal(tlbgen_mm__create(sys, 4, &l.mm), 0);
	thr_barrier_init(&l.bar, 2, 64);
	assert_int_equal(tlbgen_cpu__spawn(sys, 1, victim, &l), 0);
	assert_int_equal(tlbgen_cpu__attach(sys, 0), 0);
	thr_barrier_wait(&l.bar, sys, 0);
	assert_int_equal(tlbgen_pte_change(sys, 0, l.mm, 0), 0);
	assert_int_equal(tlbgen_flush_tlb_page(sys, 0, l.mm, 0), 0);
	thr_barrier_wait(&l.bar, sys, 0);
	assert_int_equal(tlbgen_cpu__join(sys, 1, &ret), 0);
	assert_int_equal(ret, 0);
	assert_int_equal(l.found, 1);
	assert_int_equal(tlbgen_cpu__detach(sys, 0), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
	assert_int_equal(tlbgen_policy_unregister("thr-rt-never-ipi"), 0);
}

/* ---- tlbgen_smp_call_function_single() between live CPUs ------------------- */

#define UC_CPUS 4

struct ucall {
	struct tlbgen_system *sys;
	struct thr_barrier bar;
	unsigned int rounds;
	int hits[UC_CPUS][UC_CPUS];	/* [target][src]: written by target only */
	atomic_int wrong_thread, not_waited, errors, nested_ok;
};

struct ucall_arg {
	struct ucall *u;
	unsigned int src;
};

static void ucall_fn(struct tlbgen_system *sys, unsigned int cpu, void *info)
{
	struct ucall_arg *a = info;

	if (tlbgen_this_cpu(sys) != (int)cpu)
		atomic_fetch_add(&a->u->wrong_thread, 1);
	/* IRQs off here: no flush or call may start (and none is queued). */
	if (tlbgen_smp_call_function_single(sys, cpu, a->src, ucall_fn, info) != -EDEADLK ||
	    tlbgen_flush_tlb_kernel_range(sys, cpu, 0, TLBGEN_PAGE_SIZE) != -EDEADLK)
		atomic_fetch_add(&a->u->nested_ok, 1);
	a->u->hits[cpu][a->src]++;
}

/* Every CPU calls every other CPU, all at once: calls cross in both directions. */
static int ucall_cpu(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct ucall *u = arg;
	struct ucall_arg a = { .u = u, .src = cpu };

	thr_barrier_wait(&u->bar, sys, cpu);
	for (unsigned int r = 0; r < u->rounds; r++) {
		for (unsigned int t = 0; t < UC_CPUS; t++) {
			if (t == cpu)
				continue;
			if (tlbgen_smp_call_function_single(sys, cpu, t, ucall_fn, &a)) {
				atomic_fetch_add(&u->errors, 1);
				continue;
			}
			/* wait=1: the target has run it, and its write is visible. */
			if (u->hits[t][cpu] != (int)r + 1)
				atomic_fetch_add(&u->not_waited, 1);
		}
	}
	thr_barrier_wait(&u->bar, sys, cpu);
	return 0;
}

static void test_user_calls_cross(void **state)
{
	TLBGEN_OPTS(tlbgen_runtime_opts, rt, .backend = (enum tlbgen_ipi_backend)(uintptr_t)*state);
	struct tlbgen_system *sys = t_sys_threaded(UC_CPUS, &rt, "latest");
	struct ucall *u = calloc(1, sizeof(*u));
	struct ucall_arg a = { .u = u, .src = 0 };

	assert_non_null(u);
	/* Not attached as CPU 0: refused, nothing queued. */
	assert_int_equal(tlbgen_smp_call_function_single(sys, 0, 1, ucall_fn, &a), -EPERM);
	assert_int_equal(u->hits[1][0], 0);
	u->sys = sys;
	u->rounds = THR_UNDER_TSAN ? 100 : 2000;
	thr_barrier_init(&u->bar, UC_CPUS, 64);
	for (unsigned int c = 0; c < UC_CPUS; c++)
		assert_int_equal(tlbgen_cpu__spawn(sys, c, ucall_cpu, u), 0);
	for (unsigned int c = 0; c < UC_CPUS; c++) {
		int ret = -1;

		assert_int_equal(tlbgen_cpu__join(sys, c, &ret), 0);
		assert_int_equal(ret, 0);
	}
	assert_int_equal(atomic_load(&u->errors), 0);
	assert_int_equal(atomic_load(&u->wrong_thread), 0);
	assert_int_equal(atomic_load(&u->not_waited), 0);
	assert_int_equal(atomic_load(&u->nested_ok), 0);
	for (unsigned int t = 0; t < UC_CPUS; t++)
		for (unsigned int c = 0; c < UC_CPUS; c++)
			assert_int_equal(u->hits[t][c], t == c ? 0 : (int)u->rounds);
	free(u);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_api),
		cmocka_unit_test(test_placement),
		cmocka_unit_test(test_idle_cpus_answer),
		cmocka_unit_test(test_watchdog),
		cmocka_unit_test(test_broken_cond_caught),
		{ "test_user_calls_cross[poll]", test_user_calls_cross, NULL, NULL,
		  (void *)(uintptr_t)TLBGEN_IPI_POLL },
		{ "test_user_calls_cross[signal]", test_user_calls_cross, NULL, NULL,
		  (void *)(uintptr_t)TLBGEN_IPI_SIGNAL },
	};

	tlbgen_set_print(t_warn_print);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
