// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A machine without PCID (system opts no_pcid): choose_new_asid() has one
 * ASID and flushes on every switch to another mm, where a machine with
 * PCID finds the mm's context still in one of its six dynamic ASIDs.
 */
#include "tlbgen-test.h"

static struct tlbgen_system *pcid_sys(const char *profile, bool no_pcid)
{
	TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = 2, .mode = TLBGEN_MODE_STEPPED,
		    .profile = profile, .seed = 1, .no_pcid = no_pcid);

	return t_sys_opts(&o);
}

/* CPU 0: a -> b -> a -> b, nothing flushed meanwhile. */
static uint64_t switch_flushes(const char *profile, bool no_pcid, uint16_t *last_asid)
{
	struct tlbgen_system *sys = pcid_sys(profile, no_pcid);
	struct tlbgen_mm *a = t_mm(sys, 8), *b = t_mm(sys, 8);
	uint64_t n;

	assert_int_equal(tlbgen_switch_mm(sys, 0, a), 0);
	assert_int_equal(tlbgen_switch_mm(sys, 0, b), 0);
	assert_int_equal(tlbgen_stats__reset(sys), 0);
	assert_int_equal(tlbgen_switch_mm(sys, 0, a), 0);
	assert_int_equal(tlbgen_switch_mm(sys, 0, b), 0);
	n = t_cpu_stat(sys, 0, TLBGEN_STAT_SWITCH_MM_FLUSH);
	*last_asid = t_state(sys, 0).loaded_mm_asid;
	assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_SWITCH_MM), 2);
	assert_int_equal(tlbgen_oracle__violations(sys), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
	return n;
}

static void test_no_pcid_flushes_every_switch(void **state)
{
	uint16_t asid;

	assert_int_equal(switch_flushes(*state, false, &asid), 0);
	assert_int_equal(asid, 2);	/* init_mm holds 0, a 1, b 2 */
	assert_int_equal(switch_flushes(*state, true, &asid), 2);
	assert_int_equal(asid, 0);
}

/* Without PCID a stale translation of a mm switched away from must still
 * go: the oracle checks the flush on the way back. */
static void test_no_pcid_back_to_changed_mm(void **state)
{
	struct tlbgen_system *sys = pcid_sys(*state, true);
	struct tlbgen_mm *a = t_mm(sys, 8), *b = t_mm(sys, 8);

	assert_int_equal(tlbgen_switch_mm(sys, 0, a), 0);
	assert_true(tlbgen_access(sys, 0, PG(1)) >= 0);
	assert_int_equal(tlbgen_switch_mm(sys, 0, b), 0);
	assert_int_equal(tlbgen_switch_mm(sys, 1, a), 0);
	assert_int_equal(tlbgen_pte_change(sys, 1, a, PG(1)), 0);
	assert_int_equal(tlbgen_flush_tlb_page(sys, 1, a, PG(1)), 0);
	t_idle(sys);
	assert_int_equal(tlbgen_switch_mm(sys, 0, a), 0);
	assert_true(tlbgen_access(sys, 0, PG(1)) >= 0);
	assert_int_equal(tlbgen_oracle__violations(sys), 0);
	assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_SWITCH_MM_FLUSH), 3);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		T_EACH(test_no_pcid_flushes_every_switch),
		T_EACH(test_no_pcid_back_to_changed_mm),
	};

	return cmocka_run_group_tests_name("pcid", tests, NULL, NULL);
}
