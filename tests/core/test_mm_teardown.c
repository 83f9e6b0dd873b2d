// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Tearing an mm down as __mmdrop() does: under a lazy mm_cpumask (v6.14,
 * latest) CPUs that switched away stay in mm_cpumask, and that does not
 * keep the mm alive; a CPU that still has it loaded, even lazily (a kernel
 * thread or idle ran after it), does, until it switches away.
 */
#include "tlbgen-test.h"

/* Everyone left: the bits linger, destruction works all the same. */
static void test_destroy_with_lingering_bits(void **state)
{
	struct tlbgen_system *sys = t_sys(*state, 4, 1);
	struct tlbgen_mm *mm = t_mm(sys, 16), *other = t_mm(sys, 16);

	t_switch_all(sys, 0, 3, mm);
	t_switch_all(sys, 0, 3, other);		/* everyone left mm */
	assert_int_equal(tlbgen_mm__cpumask_weight(mm), 4);
	assert_int_equal(tlbgen_mm__destroy(mm), 0);
	/* The CPUs go on: flushes of the other mm, and a new mm on them. */
	assert_int_equal(tlbgen_flush_tlb_mm(sys, 0, other), 0);
	t_idle(sys);
	mm = t_mm(sys, 16);
	t_switch_all(sys, 0, 3, mm);
	assert_int_equal(tlbgen_mm__cpumask_weight(mm), 4);
	assert_int_equal(tlbgen_system__warns(sys), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

/* A CPU on it lazily holds it: -EBUSY until that CPU switches away. */
static void test_destroy_lazy_loaded(void **state)
{
	struct tlbgen_system *sys = t_sys(*state, 2, 1);
	struct tlbgen_mm *mm = t_mm(sys, 16), *other = t_mm(sys, 16);

	assert_int_equal(tlbgen_switch_mm(sys, 0, mm), 0);
	assert_int_equal(tlbgen_switch_mm(sys, 1, mm), 0);
	assert_int_equal(tlbgen_switch_mm(sys, 1, other), 0);
	assert_int_equal(tlbgen_enter_lazy_tlb(sys, 0), 0);	/* exit_mm() */
	assert_int_equal(tlbgen_mm__destroy(mm), -EBUSY);
	assert_int_equal(tlbgen_cpu__loaded_mm_is(sys, 0, mm), 1);
	assert_int_equal(tlbgen_switch_mm(sys, 0, other), 0);	/* the next task */
	assert_int_equal(tlbgen_mm__destroy(mm), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

/*
 * A long run: processes come and go on 4 CPUs, each mm destroyed as soon
 * as its CPU moved on. Every destroy succeeds (ASan's leak check sees the
 * rest), and the model stays consistent.
 */
static void test_many_short_lived_mms(void **state)
{
	struct tlbgen_system *sys = t_sys(*state, 4, 1);
	struct tlbgen_mm *prev[4] = { NULL };

	for (unsigned int i = 0; i < 2000; i++) {
		unsigned int cpu = i % 4;
		struct tlbgen_mm *mm = t_mm(sys, 4);

		assert_int_equal(tlbgen_switch_mm(sys, cpu, mm), 0);
		assert_int_equal(tlbgen_switch_mm(sys, (cpu + 1) % 4, mm), 0);
		assert_int_equal(tlbgen_flush_tlb_page(sys, cpu, mm, 0), 0);
		t_idle(sys);
		if (prev[cpu])	/* the last one still ran here, lazily */
			assert_int_equal(tlbgen_mm__destroy(prev[cpu]), 0);
		assert_int_equal(tlbgen_mm__destroy(mm), -EBUSY);
		assert_int_equal(tlbgen_enter_lazy_tlb(sys, cpu), 0);
		assert_int_equal(tlbgen_switch_mm(sys, (cpu + 1) % 4, NULL), 0);
		prev[cpu] = mm;
	}
	/* cpu 0 was moved on by the last round (cpu 3's); 1..3 still hold theirs. */
	for (unsigned int cpu = 0; cpu < 4; cpu++) {
		assert_int_equal(tlbgen_cpu__loaded_mm_is(sys, cpu, prev[cpu]), cpu != 0);
		assert_int_equal(tlbgen_mm__destroy(prev[cpu]), cpu ? -EBUSY : 0);
		if (!cpu)
			continue;
		assert_int_equal(tlbgen_leave_mm(sys, cpu), 0);
		assert_int_equal(tlbgen_mm__destroy(prev[cpu]), 0);
	}
	assert_int_equal(tlbgen_system__warns(sys), 0);
	assert_int_equal(tlbgen_oracle__violations(sys), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

/* Clear-on-switch profiles: leaving clears the bit. */
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
		T_PRE(test_destroy_with_lingering_bits, "v6.14"),
		T_PRE(test_destroy_with_lingering_bits, "latest"),
		T_PRE(test_destroy_lazy_loaded, "v6.0"),
		T_PRE(test_destroy_lazy_loaded, "latest"),
		T_PRE(test_many_short_lived_mms, "v5.17"),
		T_PRE(test_many_short_lived_mms, "latest"),
		T_PRE(test_destroy_clear_on_switch, "v5.17"),
		T_PRE(test_destroy_clear_on_switch, "v6.0"),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
