// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Tearing an mm down under a lazy mm_cpumask (v6.14, latest): CPUs that
 * switched away stay in mm_cpumask, so tlbgen_mm__destroy() says -EBUSY
 * until they are trimmed. The recipe of tlbgen/mm.h: let HZ jiffies pass,
 * flush the mm once (should_trim_cpumask() then IPIs the CPUs that left,
 * and flush_tlb_func() clears their bits), deliver, destroy.
 */
#include "tlbgen-test.h"

static void test_destroy_after_trim(void **state)
{
	struct tlbgen_system *sys = t_sys(*state, 4, 1);
	struct tlbgen_mm *mm = t_mm(sys, 16), *other = t_mm(sys, 16);

	t_switch_all(sys, 0, 3, mm);
	t_switch_all(sys, 0, 3, other);		/* everyone left mm */
	assert_int_equal(tlbgen_mm__destroy(mm), -EBUSY);
	assert_int_equal(tlbgen_mm__cpumask_weight(mm), 4);
	/* The recipe. */
	assert_int_equal(tlbgen_clock_advance(sys, 1000), 0);
	assert_int_equal(tlbgen_flush_tlb_mm(sys, 0, mm), 0);
	t_idle(sys);
	assert_int_equal(tlbgen_mm__cpumask_weight(mm), 0);
	assert_int_equal(tlbgen_mm__destroy(mm), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

/* Lazy but untrimmed (209954cbc7d0): a flush's IPIs to CPUs that run
 * another mm clear their bits (wrong_mm=remote-clear); no clock needed, but
 * a second flush from another CPU for the first initiator's bit. */
static void test_destroy_untrimmed(void **state)
{
	struct tlbgen_system *sys;
	struct tlbgen_mm *mm, *other;

	(void)state;
	assert_int_equal(tlbgen_policy_register("teardown-untrimmed", "v6.0",
		"mm_cpumask=lazy,wrong_mm=remote-clear,ipi_cond=tlb_is_not_lazy,"
		"trim_cpumask=none", NULL), 0);
	sys = t_sys("teardown-untrimmed", 4, 1);
	mm = t_mm(sys, 16);
	other = t_mm(sys, 16);
	t_switch_all(sys, 0, 3, mm);
	t_switch_all(sys, 0, 3, other);
	assert_int_equal(tlbgen_mm__destroy(mm), -EBUSY);
	assert_int_equal(tlbgen_flush_tlb_mm(sys, 0, mm), 0);
	t_idle(sys);
	/* The initiator sends itself no IPI: its bit stays, until a flush
	 * from another CPU. */
	assert_int_equal(tlbgen_mm__cpumask_weight(mm), 1);
	assert_int_equal(tlbgen_flush_tlb_mm(sys, 1, mm), 0);
	t_idle(sys);
	assert_int_equal(tlbgen_mm__cpumask_weight(mm), 0);
	assert_int_equal(tlbgen_mm__destroy(mm), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
	assert_int_equal(tlbgen_policy_unregister("teardown-untrimmed"), 0);
}

/* Clear-on-switch profiles need no recipe: leaving clears the bit. */
static void test_destroy_clear_on_switch(void **state)
{
	struct tlbgen_system *sys = t_sys(*state, 4, 1);
	struct tlbgen_mm *mm = t_mm(sys, 16), *other = t_mm(sys, 16);

	t_switch_all(sys, 0, 3, mm);
	t_switch_all(sys, 0, 3, other);
	assert_int_equal(tlbgen_mm__cpumask_weight(mm), 0);
	assert_int_equal(tlbgen_mm__destroy(mm), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		T_PRE(test_destroy_after_trim, "v6.14"),
		T_PRE(test_destroy_after_trim, "latest"),
		cmocka_unit_test(test_destroy_untrimmed),
		T_PRE(test_destroy_clear_on_switch, "v5.17"),
		T_PRE(test_destroy_clear_on_switch, "v6.0"),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
