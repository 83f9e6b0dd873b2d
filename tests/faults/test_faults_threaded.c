// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/faults/test_faults_threaded.c - the spurious-fault rule on the
 * threaded runtime: two
 * threads share one mm (page_fault3_threads); CPU 0 faults with a
 * VM_FAULT_RETRY on every first attempt, CPU 1 only takes IPIs. The verdict
 * is deterministic: CPU 0 waits for every flush it starts.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <tlbgen/tlbgen.h>

#include "tlbgen-test.h"

#define N 64
#define WR (TLBGEN_FAULT_FLAG_WRITE | TLBGEN_FAULT_FLAG_ALLOW_RETRY | TLBGEN_FAULT_FLAG_USER | \
	    TLBGEN_FAULT_MODEL_THROTTLE)

struct ctx {
	struct tlbgen_system *sys;
	struct tlbgen_mm *mm;
	atomic_int ready, done, err;
};

static void *cpu1(void *arg)
{
	struct ctx *c = arg;

	if (tlbgen_cpu__attach(c->sys, 1) || tlbgen_switch_mm(c->sys, 1, c->mm))
		atomic_store(&c->err, 1);
	atomic_fetch_add(&c->ready, 1);
	while (!atomic_load(&c->done))
		tlbgen_poll(c->sys, 1);
	tlbgen_cpu__detach(c->sys, 1);
	return NULL;
}

static void run(const char *skip, bool spend, uint64_t *spurious, uint64_t *remote,
		uint64_t *cpu1_flush_ops, int *dirty_ok)
{
	TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = 2, .mode = TLBGEN_MODE_THREADED,
		    .profile = "latest");
	struct ctx c = { 0 };
	struct tlbgen_cost_account a, a0;
	uint64_t st[TLBGEN_STAT_NR], fst[TLBGEN_FAULT_STAT_NR];
	pthread_t th;

	assert_int_equal(tlbgen_system__create(&o, &c.sys), 0);
	assert_int_equal(tlbgen_system__set_choice(c.sys, "flush_tlb_fix_spurious_fault", "generic"), 0);
	assert_int_equal(tlbgen_system__set_choice(c.sys, "spurious_skip_tried", skip), 0);
	if (spend) {
		struct tlbgen_cost_model m;

		tlbgen_cost_model_default(&m);
		m.spend = true;
		assert_int_equal(tlbgen_system__set_cost_model(c.sys, &m), 0);
	}
	assert_int_equal(tlbgen_mm__create(c.sys, N, &c.mm), 0);
	for (unsigned long p = 0; p < N; p++)
		assert_int_equal(tlbgen_pte_set(c.sys, 0, c.mm, p * TLBGEN_PAGE_SIZE,
						TLBGEN_PTEF_NONE), 0);
	assert_int_equal(pthread_create(&th, NULL, cpu1, &c), 0);
	assert_int_equal(tlbgen_cpu__attach(c.sys, 0), 0);
	assert_int_equal(tlbgen_switch_mm(c.sys, 0, c.mm), 0);
	while (!atomic_load(&c.ready))
		tlbgen_poll(c.sys, 0);
	/* CPU 1's switch_mm() into the new mm was a full flush: count from here. */
	assert_int_equal(tlbgen_cost__cpu(c.sys, 1, &a0), 0);
	*dirty_ok = 1;
	for (unsigned long p = 0; p < N; p++) {
		unsigned long addr = p * TLBGEN_PAGE_SIZE;

		if (tlbgen_handle_mm_fault(c.sys, 0, c.mm, addr, WR) != (int)TLBGEN_VM_FAULT_RETRY ||
		    tlbgen_handle_mm_fault(c.sys, 0, c.mm, addr, WR | TLBGEN_FAULT_FLAG_TRIED) != 0)
			*dirty_ok = 0;
		if (!(tlbgen_pte__flags(c.mm, addr) & TLBGEN_PTEF_DIRTY))
			*dirty_ok = 0;
		tlbgen_poll(c.sys, 0);
	}
	atomic_store(&c.done, 1);
	tlbgen_cpu__detach(c.sys, 0);
	pthread_join(th, NULL);
	assert_int_equal(atomic_load(&c.err), 0);
	assert_int_equal(tlbgen_fault_stats__system(c.sys, fst, TLBGEN_FAULT_STAT_NR),
			 TLBGEN_FAULT_STAT_NR);
	assert_int_equal(tlbgen_stats__cpu(c.sys, 1, st, TLBGEN_STAT_NR), TLBGEN_STAT_NR);
	assert_int_equal(tlbgen_cost__cpu(c.sys, 1, &a), 0);
	*spurious = fst[TLBGEN_FAULT_STAT_SPURIOUS];
	*remote = st[TLBGEN_STAT_FLUSH_FUNC_REMOTE];
	*cpu1_flush_ops = a.inv_pages + a.full_flushes - a0.inv_pages - a0.full_flushes;
	assert_int_equal(tlbgen_oracle__violations(c.sys), 0);
	assert_int_equal(tlbgen_system__destroy(c.sys), 0);
}

static void test_threads_after_fix(void **state)
{
	uint64_t spurious, remote, ops;
	int dirty_ok;

	(void)state;
	run("on", false, &spurious, &remote, &ops, &dirty_ok);
	assert_true(dirty_ok);
	assert_int_equal(spurious, 0);
	assert_int_equal(remote, 0);
}

static void test_threads_before_fix(void **state)
{
	uint64_t spurious, remote, ops;
	int dirty_ok;

	(void)state;
	/* Busy-waits on: the verdict must not depend on timing. */
	run("off", true, &spurious, &remote, &ops, &dirty_ok);
	assert_true(dirty_ok);
	assert_int_equal(spurious, N);
	assert_int_equal(remote, N);	/* one cross-CPU flush_tlb_page per retried fault */
	assert_int_equal(ops, N);	/* each flushed CPU 1's TLB (partial or full) */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_threads_after_fix),
		cmocka_unit_test(test_threads_before_fix),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
