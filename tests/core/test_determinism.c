// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Stepped mode is deterministic: the same seed gives the same event order
 * (IPIs, callbacks, flushes, every shared-line access) and the same counters;
 * the seed really drives the scheduler (other seeds give other orders).
 */
#include <stdlib.h>

#include "tlbgen-test.h"

static bool same_events(const struct t_rec *x, const struct t_rec *y)
{
	if (x->nr != y->nr)
		return false;
	for (size_t i = 0; i < x->nr; i++) {
		const struct t_event *a = &x->ev[i], *b = &y->ev[i];

		if (a->kind != b->kind || a->sub != b->sub || a->op != b->op || a->a != b->a ||
		    a->b != b->b || a->n != b->n)
			return false;
	}
	return true;
}

static struct t_wl_params params(const char *profile, uint64_t sys_seed)
{
	return (struct t_wl_params){ .profile = profile, .nr_cpus = 6, .rounds = 120,
				     .sys_seed = sys_seed, .wl_seed = 42,
				     .record_lines = true };
}

static void test_same_seed_same_run(void **state)
{
	struct t_wl_params p = params(*state, 7);
	struct t_wl_result *r1 = calloc(2, sizeof(*r1)), *r2 = r1 + 1;

	assert_non_null(r1);
	t_workload(&p, r1);
	t_workload(&p, r2);
	assert_true(r1->rec.nr > 1000);
	assert_true(same_events(&r1->rec, &r2->rec));
	assert_memory_equal(r1->stats, r2->stats, sizeof(r1->stats));
	assert_memory_equal(r1->cpu_stats, r2->cpu_stats, sizeof(r1->cpu_stats));
	assert_int_equal(r1->remote_reads, r2->remote_reads);
	assert_int_equal(r1->local_reads, r2->local_reads);
	assert_int_equal(r1->violations, 0);
	t_rec_free(&r1->rec);
	t_rec_free(&r2->rec);
	free(r1);
}

static void test_other_seed_other_order(void **state)
{
	struct t_wl_params p = params(*state, 7);
	struct t_wl_result *r = calloc(2, sizeof(*r)), *o = r + 1;
	int differ = 0;

	assert_non_null(r);
	t_workload(&p, r);
	for (uint64_t seed = 8; seed < 12; seed++) {
		p.sys_seed = seed;
		t_workload(&p, o);
		differ += !same_events(&r->rec, &o->rec);
		assert_int_equal(o->violations, 0);
		t_rec_free(&o->rec);
	}
	assert_true(differ > 0);
	t_rec_free(&r->rec);
	free(r);
}

/* tlbgen_step's choice sequence alone: same seed, same picks. */
static int picks(uint64_t seed, int *out, int n)
{
	struct tlbgen_system *sys = t_sys("latest", 16, seed);
	struct tlbgen_mm *mm = t_mm(sys, 64);
	int k = 0;

	/* CPU 0 (not running mm) flushes CPUs 1..15: 15 pending targets. */
	t_switch_all(sys, 1, 15, mm);
	assert_int_equal(tlbgen_flush_tlb_page(sys, 0, mm, PG(1)), 0);
	while (k < n) {
		int cpu = tlbgen_step(sys);

		if (cpu < 0)
			break;
		assert_true(cpu >= 1 && cpu <= 15);
		out[k++] = cpu;
	}
	assert_int_equal(tlbgen_cpu__is_waiting(sys, 0), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
	return k;
}

static void test_scheduler_picks(void **state)
{
	int a[16], b[16], c[16];
	bool differ = false;

	(void)state;
	assert_int_equal(picks(3, a, 16), 15);
	assert_int_equal(picks(3, b, 16), 15);
	assert_memory_equal(a, b, sizeof(int) * 15);
	for (uint64_t seed = 4; seed < 8 && !differ; seed++) {
		assert_int_equal(picks(seed, c, 16), 15);
		differ = memcmp(a, c, sizeof(int) * 15) != 0;
	}
	assert_true(differ);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		T_PRE(test_same_seed_same_run, "v5.17"),
		T_PRE(test_same_seed_same_run, "latest"),
		T_PRE(test_other_seed_other_order, "v6.0"),
		T_PRE(test_scheduler_picks, NULL),
	};

	return cmocka_run_group_tests_name("determinism", tests, NULL, NULL);
}
