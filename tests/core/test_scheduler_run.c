// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/core/test_scheduler_run.c - tlbgen_run_until_idle() against
 * tlbgen_step(): it delivers in the same order and leaves the generator
 * where the steps would, when callbacks raise new IPIs while it runs, and
 * a callback that preempts a vCPU does not leave it picking that CPU
 * forever.
 */
#include "scheduler-fx.h"

/* The CPUs of the deliveries recorded in r, one entry per delivery. */
static unsigned int rec_deliveries(const struct t_rec *r, int *seq, unsigned int max)
{
	unsigned int n = 0;

	for (size_t i = 0; i < r->nr; i++) {
		if (r->ev[i].kind != EV_IPI_RECV || (n && seq[n - 1] == r->ev[i].a))
			continue;
		assert_true(n < max);
		seq[n++] = r->ev[i].a;
	}
	return n;
}

/*
 * tlbgen_run_until_idle() delivers in the order tlbgen_step() would, and
 * leaves the generator where the steps would: the next shootdown's
 * sequence is the same too.
 */
static void test_run_until_idle_is_steps(void **state)
{
	static int by_step[4 * NR], by_run[4 * NR];
	struct tlbgen_mm *mm_a, *mm_b;
	struct tlbgen_system *a = sched_sys(0xabc, &mm_a), *b = sched_sys(0xabc, &mm_b);
	struct t_rec rec = { 0 };

	(void)state;
	t_rec_install(b, &rec, false);
	for (unsigned int round = 0; round < 3; round++) {
		unsigned int n_step, n_run;

		assert_int_equal(tlbgen_flush_tlb_page(a, 5, mm_a, 0), 0);
		assert_int_equal(tlbgen_flush_tlb_page(a, 6, mm_a, PG(1)), 0);
		assert_int_equal(tlbgen_flush_tlb_page(b, 5, mm_b, 0), 0);
		assert_int_equal(tlbgen_flush_tlb_page(b, 6, mm_b, PG(1)), 0);
		n_step = record_steps(a, by_step, 4 * NR);
		t_rec_clear(&rec);
		assert_int_equal(tlbgen_run_until_idle(b), (int)n_step);
		n_run = rec_deliveries(&rec, by_run, 4 * NR);
		assert_int_equal(n_run, n_step);
		assert_memory_equal(by_step, by_run, n_step * sizeof(by_step[0]));
		assert_int_equal(tlbgen_run_until_idle(b), 0);
	}
	assert_int_equal(tlbgen_system__set_trace(b, NULL), 0);
	t_rec_free(&rec);
	assert_int_equal(tlbgen_system__destroy(a), 0);
	assert_int_equal(tlbgen_system__destroy(b), 0);
}

/* ---- a callback that preempts a vCPU mid-run --------------------------------- */

struct preempt_run {
	unsigned int order[4], n;
};

static void preempt_cpu2(struct tlbgen_system *sys, unsigned int cpu, void *info)
{
	struct preempt_run *r = info;

	r->order[r->n++] = cpu;
	/* CPU 2 may have taken its call already: then it has nothing left. */
	assert_int_equal(tlbgen_vcpu__preempt(sys, 2), 0);
}

static void note_cpu(struct tlbgen_system *sys, unsigned int cpu, void *info)
{
	struct preempt_run *r = info;

	(void)sys;
	r->order[r->n++] = cpu;
}

/*
 * CPU 1's callback preempts CPU 2 while CPU 2's call is still pending:
 * tlbgen_run_until_idle() must then step as tlbgen_step() does, leaving
 * CPU 2's IPI pending, rather than pick CPU 2 forever.
 */
static void test_run_until_idle_preempted_by_callback(void **state)
{
	unsigned int first_one = 0;

	(void)state;
	for (uint64_t seed = 1; seed <= 16; seed++) {
		TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = 4, .mode = TLBGEN_MODE_STEPPED,
			    .profile = "v6.0", .seed = seed, .flags = TLBGEN_SYS_NO_ORACLE);
		struct tlbgen_system *sys = t_sys_opts(&o);
		struct preempt_run r = { .n = 0 };

		assert_int_equal(tlbgen_smp_call_function_single(sys, 0, 1, preempt_cpu2, &r), 0);
		assert_int_equal(tlbgen_smp_call_function_single(sys, 3, 2, note_cpu, &r), 0);
		if (tlbgen_run_until_idle(sys) == 1) {
			/* CPU 1 went first: CPU 2 is preempted with its IPI pending. */
			assert_int_equal(r.n, 1);
			assert_int_equal(r.order[0], 1);
			assert_int_equal(tlbgen_cpu__ipi_pending(sys, 2), 1);
			assert_int_equal(tlbgen_vcpu__resume(sys, 2), 0);
			assert_int_equal(tlbgen_run_until_idle(sys), 1);
			first_one++;
		} else {
			assert_int_equal(r.n, 2);
			assert_int_equal(r.order[0], 2);
		}
		assert_int_equal(tlbgen_cpu__ipi_pending(sys, 2), 0);
		assert_int_equal(tlbgen_system__destroy(sys), 0);
	}
	/* Both orders came up among the seeds. */
	assert_true(first_one > 0 && first_one < 16);
}

/* ---- callbacks that raise IPIs mid-run ---------------------------------------- */

/*
 * A relay: each call, run on its target, records the target and, while
 * relays are left, sends a call of its own from the next idle initiator
 * (CPUs 12-15) to another target, so the pending set gains a CPU between
 * two deliveries of a run.
 */
struct relay_run {
	struct tlbgen_system *sys;
	unsigned int order[64], n, relays;
};

static void relay(struct tlbgen_system *sys, unsigned int cpu, void *info)
{
	struct relay_run *r = info;

	assert_true(r->n < 64);
	r->order[r->n++] = cpu;
	if (r->relays < 4) {
		unsigned int from = 12 + r->relays++;

		assert_int_equal(tlbgen_smp_call_function_single(sys, from, (cpu * 5 + 3) % 12,
								 relay, r), 0);
	}
}

static unsigned int relay_scenario(uint64_t seed, bool run, struct relay_run *r)
{
	TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = 16, .mode = TLBGEN_MODE_STEPPED,
		    .profile = "v6.0", .seed = seed, .flags = TLBGEN_SYS_NO_ORACLE);
	struct tlbgen_system *sys = t_sys_opts(&o);
	unsigned int steps = 0;

	/* Four calls from CPUs 8-11 to targets 1-4 start it. */
	for (unsigned int i = 0; i < 4; i++)
		assert_int_equal(tlbgen_smp_call_function_single(sys, 8 + i, 1 + i, relay, r), 0);
	if (run) {
		int done = tlbgen_run_until_idle(sys);

		assert_true(done > 0);
		steps = (unsigned int)done;
	} else {
		while (tlbgen_step(sys) >= 0)
			steps++;
	}
	/* The generator is left where the steps leave it too. */
	assert_int_equal(tlbgen_smp_call_function_single(sys, 8, 9, relay, r), 0);
	assert_int_equal(tlbgen_smp_call_function_single(sys, 10, 11, relay, r), 0);
	assert_int_equal(tlbgen_step(sys) >= 0, 1);
	assert_int_equal(tlbgen_step(sys) >= 0, 1);
	assert_int_equal(tlbgen_step(sys), -ENOENT);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
	return steps;
}

static void test_run_until_idle_new_ipis(void **state)
{
	unsigned int differ = 0;

	(void)state;
	for (uint64_t seed = 1; seed <= 24; seed++) {
		struct relay_run a = { .n = 0 }, b = { .n = 0 };
		unsigned int na = relay_scenario(seed, false, &a);
		unsigned int nb = relay_scenario(seed, true, &b);

		/* Four calls and four relays (a delivery may take two), then
		 * the two calls after. */
		assert_true(na >= 4 && na <= 8);
		assert_int_equal(nb, na);
		assert_int_equal(a.n, 10);
		assert_int_equal(b.n, 10);
		assert_memory_equal(a.order, b.order, a.n * sizeof(a.order[0]));
		differ += memcmp(a.order, (unsigned int[]){ 1, 2, 3, 4 }, 4 * sizeof(a.order[0])) != 0;
	}
	/* The seeds gave orders other than the queueing one. */
	assert_true(differ > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_until_idle_is_steps),
		cmocka_unit_test(test_run_until_idle_new_ipis),
		cmocka_unit_test(test_run_until_idle_preempted_by_callback),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
