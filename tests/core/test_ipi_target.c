// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A user IPI condition learns which CPU it is asked about
 * (tlbgen_ipi_target__cpu), as the kernel's cond_func(cpu, info) does, and
 * can decide per CPU: the CPU it skips runs no flush_tlb_func.
 */
#include "tlbgen-test.h"

struct asked {
	unsigned int mask;	/* CPUs asked about */
	int bad;		/* a CPU number out of range */
};

static enum tlbgen_ipi_verdict skip_cpu2(struct tlbgen_ipi_target *t, void *priv)
{
	struct asked *a = priv;
	int cpu = tlbgen_ipi_target__cpu(t);

	if (cpu < 0 || cpu >= 4)
		a->bad = 1;
	else
		a->mask |= 1u << cpu;
	return cpu == 2 ? TLBGEN_IPI_SKIP_NOT_LOADED : TLBGEN_IPI_SEND;
}

static void test_cond_sees_its_cpu(void **state)
{
	struct asked a = { 0 };
	TLBGEN_OPTS(tlbgen_policy_ops, ops, .ipi_cond = skip_cpu2, .priv = &a);
	struct tlbgen_system *sys;
	struct tlbgen_mm *mm;

	(void)state;
	assert_int_equal(tlbgen_policy_register("ipi-target-skip-2", "latest", NULL, &ops), 0);
	sys = t_sys("ipi-target-skip-2", 4, 1);
	mm = t_mm(sys, 16);
	t_switch_all(sys, 0, 3, mm);
	assert_int_equal(tlbgen_stats__reset(sys), 0);
	assert_int_equal(tlbgen_flush_tlb_page(sys, 0, mm, PG(3)), 0);
	t_idle(sys);
	assert_int_equal(a.bad, 0);
	/* CPUs 1..3 are the remote targets the condition decides for. */
	assert_int_equal(a.mask & 0xe, 0xe);
	assert_int_equal(t_cpu_stat(sys, 1, TLBGEN_STAT_FLUSH_FUNC), 1);
	assert_int_equal(t_cpu_stat(sys, 2, TLBGEN_STAT_FLUSH_FUNC), 0);
	assert_int_equal(t_cpu_stat(sys, 3, TLBGEN_STAT_FLUSH_FUNC), 1);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
	assert_int_equal(tlbgen_policy_unregister("ipi-target-skip-2"), 0);
}

static enum tlbgen_ipi_verdict skip_cpu0(struct tlbgen_ipi_target *t, void *priv)
{
	struct asked *a = priv;
	int cpu = tlbgen_ipi_target__cpu(t);

	a->mask |= cpu >= 0 && cpu < 4 ? 1u << cpu : 0;
	return cpu == 0 ? TLBGEN_IPI_SKIP_NOT_LOADED : TLBGEN_IPI_SEND;
}

/*
 * The initiator in the mask is asked about too: smp_call_function_many_cond()
 * evaluates cond_func for the local CPU before running func there
 * (SCF_RUN_LOCAL), so a condition that skips it skips the initiator's own
 * flush, and the oracle sees the stale entry it keeps.
 */
static void test_cond_asked_about_initiator(void **state)
{
	struct asked a = { 0 };
	TLBGEN_OPTS(tlbgen_policy_ops, ops, .ipi_cond = skip_cpu0, .priv = &a);
	struct tlbgen_system *sys;
	struct tlbgen_mm *mm;

	(void)state;
	assert_int_equal(tlbgen_policy_register("ipi-target-skip-0", "latest", NULL, &ops), 0);
	sys = t_sys("ipi-target-skip-0", 4, 1);
	mm = t_mm(sys, 16);
	t_switch_all(sys, 0, 3, mm);
	assert_true(tlbgen_access(sys, 0, PG(3)) >= 0);	/* CPU 0 caches it */
	assert_int_equal(tlbgen_stats__reset(sys), 0);
	tlbgen_pte_change(sys, 0, mm, PG(3));
	assert_int_equal(tlbgen_flush_tlb_page(sys, 0, mm, PG(3)), 0);
	t_idle(sys);
	assert_int_equal(a.mask, 0xf);
	assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_FLUSH_FUNC), 0);
	assert_int_equal(t_cpu_stat(sys, 1, TLBGEN_STAT_FLUSH_FUNC), 1);
	assert_int_equal(tlbgen_oracle__violations(sys), 0);
	assert_int_equal(tlbgen_access(sys, 0, PG(3)), 1);	/* a stale hit */
	assert_true(tlbgen_oracle__violations(sys) > 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
	assert_int_equal(tlbgen_policy_unregister("ipi-target-skip-0"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cond_sees_its_cpu),
		cmocka_unit_test(test_cond_asked_about_initiator),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
