// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/batch/test_rmap_threaded.c - seed 000's bug in a reclaim run, in
 * threaded mode: the reclaimer (main thread, CPU 0) batches the unmap of
 * pages that a victim thread (CPU 1) has cached, then flushes the batch.
 * Under v6.0-aa44284960 the victim's flush_tlb_func early-returns on the
 * generation-0 request and its stale entries survive; under v6.0 they go.
 *
 * Deterministic verdict: the victim fills its TLB before barrier A, services
 * IPIs (tlbgen_poll) until the reclaimer says the flush returned, then after
 * barrier B audits its own TLB and touches every page. No sleeps.
 */
#include <pthread.h>
#include <stdatomic.h>

#include "tlbgen-test.h"

#define NPAGES 16

struct run {
	struct tlbgen_system *sys;
	struct tlbgen_mm *mm;
	pthread_barrier_t a, b;
	atomic_int flushed;
	int audit, hits, err;
};

static void *victim(void *arg)
{
	struct run *r = arg;

	if (tlbgen_cpu__attach(r->sys, 1) || tlbgen_switch_mm(r->sys, 1, r->mm))
		r->err = 1;
	for (unsigned int p = 0; p < NPAGES; p++)
		if (tlbgen_access(r->sys, 1, PG(p)) != 0)
			r->err = 1;
	pthread_barrier_wait(&r->a);
	while (!atomic_load(&r->flushed))
		tlbgen_poll(r->sys, 1);
	pthread_barrier_wait(&r->b);
	r->audit = tlbgen_oracle__audit_cpu(r->sys, 1);
	for (unsigned int p = 0; p < NPAGES; p++)
		r->hits += tlbgen_access(r->sys, 1, PG(p)) == 1;
	tlbgen_switch_mm(r->sys, 1, NULL);
	tlbgen_cpu__detach(r->sys, 1);
	return NULL;
}

static void reclaim(const char *profile, const char *choices, int *audit, int *hits, long *viol)
{
	struct run r = { 0 };
	struct tlbgen_unmap_batch *u;
	pthread_t t;

	r.sys = t_sys_mode(2, TLBGEN_MODE_THREADED, profile, choices);
	assert_int_equal(tlbgen_mm__create(r.sys, NPAGES, &r.mm), 0);
	assert_int_equal(tlbgen_unmap_batch__create(r.sys, &u), 0);
	pthread_barrier_init(&r.a, NULL, 2);
	pthread_barrier_init(&r.b, NULL, 2);
	assert_int_equal(tlbgen_cpu__attach(r.sys, 0), 0);
	assert_int_equal(tlbgen_switch_mm(r.sys, 0, r.mm), 0);
	assert_int_equal(pthread_create(&t, NULL, victim, &r), 0);
	pthread_barrier_wait(&r.a);

	/* MADV_PAGEOUT: unmap every page, deferring the flush, then flush once. */
	for (unsigned int p = 0; p < NPAGES; p++)
		assert_int_equal(tlbgen_try_to_unmap_one(r.sys, 0, u, r.mm, PG(p),
							 TLBGEN_TTU_BATCH_FLUSH,
							 TLBGEN_PTE_ACCESSIBLE), 1);
	assert_int_equal(tlbgen_try_to_unmap_flush(r.sys, 0, u), 1);
	atomic_store(&r.flushed, 1);
	pthread_barrier_wait(&r.b);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(r.err, 0);
	assert_true(t_cpu_stat(r.sys, 1, TLBGEN_STAT_IPI_RECEIVED) >= 1);

	*audit = r.audit;
	*hits = r.hits;
	*viol = tlbgen_oracle__violations(r.sys);
	assert_int_equal(tlbgen_switch_mm(r.sys, 0, NULL), 0);
	assert_int_equal(tlbgen_cpu__detach(r.sys, 0), 0);
	assert_int_equal(tlbgen_unmap_batch__destroy(u), 0);
	pthread_barrier_destroy(&r.a);
	pthread_barrier_destroy(&r.b);
	assert_int_equal(tlbgen_system__destroy(r.sys), 0);
}

static void test_seed000_threaded(void **state)
{
	int audit, hits;
	long viol;

	(void)state;
	tlbgen_set_print(t_quiet_print);
	reclaim("v6.0-aa44284960", "batch_arch=x86", &audit, &hits, &viol);
	assert_int_equal(audit, NPAGES);
	assert_int_equal(hits, NPAGES);
	assert_int_equal(viol, 2 * NPAGES);

	reclaim("v6.0", "batch_arch=x86", &audit, &hits, &viol);
	assert_int_equal(audit, 0);
	assert_int_equal(hits, 0);
	assert_int_equal(viol, 0);
}

/* The riscv batch (seed 002) in threaded mode: one full flush, nothing stale. */
static void test_riscv_threaded(void **state)
{
	int audit, hits;
	long viol;

	(void)state;
	reclaim("latest", "batch_arch=riscv", &audit, &hits, &viol);
	assert_int_equal(audit, 0);
	assert_int_equal(hits, 0);
	assert_int_equal(viol, 0);
}

/* arm64's DSB edits other CPUs' simulated TLBs: refused with the oracle on. */
static void test_arm64_threaded_refused(void **state)
{
	struct tlbgen_system *sys = t_sys_mode(2, TLBGEN_MODE_THREADED, "latest", "batch_arch=arm64");
	struct tlbgen_mm *mm;
	struct tlbgen_unmap_batch *u;

	(void)state;
	assert_int_equal(tlbgen_mm__create(sys, 4, &mm), 0);
	assert_int_equal(tlbgen_unmap_batch__create(sys, &u), 0);
	assert_int_equal(tlbgen_cpu__attach(sys, 0), 0);
	assert_int_equal(tlbgen_try_to_unmap_one(sys, 0, u, mm, 0, TLBGEN_TTU_BATCH_FLUSH,
						 TLBGEN_PTE_ACCESSIBLE), -EOPNOTSUPP);
	assert_int_equal(tlbgen_mm__tlb_flush_batched(mm), 0);
	assert_int_equal(tlbgen_cpu__detach(sys, 0), 0);
	assert_int_equal(tlbgen_unmap_batch__destroy(u), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seed000_threaded),
		cmocka_unit_test(test_riscv_threaded),
		cmocka_unit_test(test_arm64_threaded_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
