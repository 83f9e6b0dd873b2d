// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A task preempted in csd_lock_wait() (8df8a6028309) while a second task
 * flushes from the same CPU, stepped. Task A on CPU 0 flushes mm1's page
 * 5, which CPU 1 has cached, and waits for CPU 1; it is preempted; task B
 * flushes mm2's page 7 on CPU 2 and returns; A runs again. With the wait
 * mask per CPU (before 9a560af15fd3) B left its own targets in the mask A
 * walks, so A's wait returns while CPU 1 never ran A's callback; with
 * flush_tlb_info per CPU (before ed15468787dd) CPU 1 runs A's callback on
 * B's flush_tlb_info and flushes nothing. Either way CPU 1 then uses the
 * stale translation after A's flush returned: the oracle's violation. With
 * both task-local and on the stack (v7.3) it does not.
 */
#include "tlbgen-test.h"

#define NCPU 3

struct two_mms {
	struct tlbgen_system *sys;
	struct tlbgen_mm *mm1, *mm2;
};

/* mm1 on CPUs 0 and 1, mm2 on CPU 2; CPU 1 has mm1's page 5 cached, and
 * the page changed. */
static struct two_mms setup_two(const char *profile, const char *choices)
{
	struct two_mms t;

	t.sys = t_sys_mode(NCPU, TLBGEN_MODE_STEPPED, profile, choices);
	t.mm1 = t_mm(t.sys, 64);
	t.mm2 = t_mm(t.sys, 64);
	t_switch_all(t.sys, 0, 1, t.mm1);
	t_switch_all(t.sys, 2, 2, t.mm2);
	assert_true(tlbgen_access(t.sys, 1, PG(5)) >= 0);
	assert_true(tlbgen_access(t.sys, 1, PG(5)) == 1);	/* a TLB hit: cached */
	assert_int_equal(tlbgen_pte_change(t.sys, 0, t.mm1, PG(5)), 0);
	return t;
}

/* A flushes and waits on CPU 0; it is preempted; B's flush of mm2 completes. */
static void a_preempted_by_b(struct two_mms *t)
{
	assert_int_equal(tlbgen_flush_tlb_page(t->sys, 0, t->mm1, PG(5)), 0);
	assert_int_equal(tlbgen_cpu__is_waiting(t->sys, 0), 1);
	assert_int_equal(tlbgen_cpu__preempt_waiter(t->sys, 0), 0);
	assert_int_equal(tlbgen_cpu__preempted_waiter(t->sys, 0), 1);
	assert_int_equal(tlbgen_cpu__is_waiting(t->sys, 0), 0);
	/* B, on the same CPU. */
	assert_int_equal(tlbgen_flush_tlb_page(t->sys, 0, t->mm2, PG(7)), 0);
	assert_int_equal(tlbgen_cpu__is_waiting(t->sys, 0), 1);
	/* A cannot run while B waits; nor can a second waiter be put aside. */
	assert_int_equal(tlbgen_cpu__resume_waiter(t->sys, 0), -EBUSY);
	assert_int_equal(tlbgen_cpu__preempt_waiter(t->sys, 0), -EBUSY);
	assert_int_equal(tlbgen_deliver(t->sys, 2), 1);
	assert_int_equal(tlbgen_cpu__is_waiting(t->sys, 0), 0);
	/* A's callback has not run on CPU 1 yet. */
	assert_int_equal(tlbgen_cpu__pending_calls(t->sys, 1), 1);
	assert_int_equal(tlbgen_cpu__resume_waiter(t->sys, 0), 0);
	assert_int_equal(tlbgen_cpu__preempted_waiter(t->sys, 0), 0);
}

static void test_task_local_stack_clean(void **state)
{
	struct two_mms t = setup_two("latest", NULL);

	(void)state;
	a_preempted_by_b(&t);
	/* A walks its own mask: CPU 1 has not answered, so it still waits. */
	assert_int_equal(tlbgen_cpu__is_waiting(t.sys, 0), 1);
	assert_int_equal(tlbgen_deliver(t.sys, 1), 1);
	assert_int_equal(tlbgen_cpu__is_waiting(t.sys, 0), 0);
	/* CPU 1 flushed page 5 from A's own flush_tlb_info: a miss now. */
	assert_int_equal(tlbgen_access(t.sys, 1, PG(5)), 0);
	assert_int_equal(tlbgen_oracle__violations(t.sys), 0);
	assert_int_equal(t_idle(t.sys), 0);
	tlbgen_system__destroy(t.sys);
}

/* smp_cfd_mask=per-cpu: B's targets in the mask A walks; A returns at once. */
static void test_per_cpu_mask_races(void **state)
{
	struct two_mms t = setup_two("latest", "smp_cfd_mask=per-cpu");

	(void)state;
	a_preempted_by_b(&t);
	assert_int_equal(tlbgen_cpu__is_waiting(t.sys, 0), 0);	/* A's flush returned */
	assert_int_equal(tlbgen_cpu__pending_calls(t.sys, 1), 1);	/* not run on CPU 1 */
	assert_int_equal(tlbgen_access(t.sys, 1, PG(5)), 1);	/* the stale entry */
	assert_true(tlbgen_oracle__violations(t.sys) > 0);
	tlbgen_system__destroy(t.sys);
}

/* flush_tlb_info=per-cpu: A waits for CPU 1, which runs A's csd on B's info. */
static void test_per_cpu_info_races(void **state)
{
	struct two_mms t = setup_two("latest", "flush_tlb_info=per-cpu");

	(void)state;
	a_preempted_by_b(&t);
	assert_int_equal(tlbgen_cpu__is_waiting(t.sys, 0), 1);
	assert_int_equal(tlbgen_deliver(t.sys, 1), 1);
	assert_int_equal(tlbgen_cpu__is_waiting(t.sys, 0), 0);
	assert_int_equal(tlbgen_oracle__violations(t.sys), 0);
	assert_int_equal(tlbgen_access(t.sys, 1, PG(5)), 1);	/* B's mm2 flushed, not page 5 */
	assert_true(tlbgen_oracle__violations(t.sys) > 0);
	tlbgen_system__destroy(t.sys);
}

/* The wrong mix of the series' commit messages: both per CPU. */
static void test_both_per_cpu_race(void **state)
{
	struct two_mms t = setup_two("latest", "smp_cfd_mask=per-cpu,flush_tlb_info=per-cpu");

	(void)state;
	a_preempted_by_b(&t);
	assert_int_equal(tlbgen_cpu__is_waiting(t.sys, 0), 0);
	assert_int_equal(tlbgen_access(t.sys, 1, PG(5)), 1);
	assert_true(tlbgen_oracle__violations(t.sys) > 0);
	tlbgen_system__destroy(t.sys);
}

/*
 * B flushes mm1 too: A still holds CPU 0's csd for CPU 1, so B's
 * csd_lock() blocks until CPU 1 ran A's callback (the series' "task A /
 * task B" diagram), then queues B's. Task-local and stack: no violation.
 */
static void test_csd_lock_blocks_for_waiter(void **state)
{
	struct two_mms t = setup_two("latest", NULL);

	(void)state;
	assert_int_equal(tlbgen_flush_tlb_page(t.sys, 0, t.mm1, PG(5)), 0);
	assert_int_equal(tlbgen_cpu__preempt_waiter(t.sys, 0), 0);
	assert_int_equal(t_cpu_stat(t.sys, 1, TLBGEN_STAT_IPI_RECEIVED), 0);
	assert_int_equal(tlbgen_flush_tlb_page(t.sys, 0, t.mm1, PG(6)), 0);
	assert_int_equal(t_cpu_stat(t.sys, 1, TLBGEN_STAT_IPI_RECEIVED), 1);	/* A's */
	assert_int_equal(tlbgen_cpu__pending_calls(t.sys, 1), 1);	/* B's */
	assert_int_equal(tlbgen_access(t.sys, 1, PG(5)), 0);	/* A's flush ran */
	assert_int_equal(tlbgen_deliver(t.sys, 1), 1);
	/* Nobody waits now, but the waiter put aside is still in flight. */
	assert_int_equal(tlbgen_system__set_choices(t.sys, "smp_cfd_mask=per-cpu"), -EBUSY);
	assert_int_equal(tlbgen_system__destroy(t.sys), -EBUSY);
	assert_int_equal(tlbgen_cpu__resume_waiter(t.sys, 0), 0);
	assert_int_equal(tlbgen_cpu__is_waiting(t.sys, 0), 0);	/* all answered */
	assert_int_equal(tlbgen_oracle__violations(t.sys), 0);
	tlbgen_system__destroy(t.sys);
}

/* Where preemption stays off in the wait, nothing is preempted, nothing changes. */
static void test_refused(void **state)
{
	const char *const cases[][2] = {
		{ "v6.19", NULL },				/* -EOPNOTSUPP */
		{ "latest", "flush_multi_preempt=off" },	/* -EPERM */
	};

	(void)state;
	for (unsigned int i = 0; i < 2; i++) {
		struct two_mms t = setup_two(cases[i][0], cases[i][1]);

		assert_int_equal(tlbgen_cpu__preempt_waiter(t.sys, 0), i ? -ENOENT : -EOPNOTSUPP);
		assert_int_equal(tlbgen_cpu__resume_waiter(t.sys, 0), -ENOENT);
		assert_int_equal(tlbgen_flush_tlb_page(t.sys, 0, t.mm1, PG(5)), 0);
		assert_int_equal(tlbgen_cpu__preempt_waiter(t.sys, 0), i ? -EPERM : -EOPNOTSUPP);
		assert_int_equal(tlbgen_cpu__preempted_waiter(t.sys, 0), 0);
		assert_int_equal(tlbgen_cpu__is_waiting(t.sys, 0), 1);
		/* The CPU's task still waits: another flush is refused. */
		assert_int_equal(tlbgen_flush_tlb_page(t.sys, 0, t.mm2, PG(7)), -EBUSY);
		assert_int_equal(tlbgen_deliver(t.sys, 1), 1);
		assert_int_equal(tlbgen_cpu__is_waiting(t.sys, 0), 0);
		assert_int_equal(tlbgen_access(t.sys, 1, PG(5)), 0);
		assert_int_equal(tlbgen_oracle__violations(t.sys), 0);
		tlbgen_system__destroy(t.sys);
	}
	assert_int_equal(tlbgen_cpu__preempt_waiter(NULL, 0), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_task_local_stack_clean),
		cmocka_unit_test(test_per_cpu_mask_races),
		cmocka_unit_test(test_per_cpu_info_races),
		cmocka_unit_test(test_both_per_cpu_race),
		cmocka_unit_test(test_csd_lock_blocks_for_waiter),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
