// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * AMD INVLPGB (4afeb0ed1753, v6.15), global ASID assignment: an mm active
 * on more than 3 CPUs gets a global ASID and its flushes become INVLPGB +
 * TLBSYNC with no IPI; CPUs still on their dynamic ASID get IPIs until they
 * moved (the transition); without free global ASIDs the mm keeps its IPIs;
 * allocate_global_asid() across wraps; the feature is locked while a global
 * ASID is held. Stepped mode; jiffies stay at 0 unless advanced, so
 * consider_global_asid() runs for flushes from CPU 0 (the model's task on
 * CPU n has pid n).
 */
#include "invlpgb-fx.h"

static void test_threshold(void **state)
{
	struct tlbgen_system *sys = inv_sys("latest", true, 0, 0);
	struct tlbgen_mm *mm = t_mm(sys, 64);

	(void)state;
	/* Active on 3 CPUs: mm_active_cpus_exceeds(mm, 3) is false. */
	t_switch_all(sys, 0, 2, mm);
	flush_page(sys, 0, mm, 1);
	assert_int_equal(gasid(mm, NULL), 0);
	/* A fourth, but lazy: not active. */
	assert_int_equal(tlbgen_switch_mm(sys, 3, mm), 0);
	assert_int_equal(tlbgen_enter_lazy_tlb(sys, 3), 0);
	flush_page(sys, 0, mm, 1);
	assert_int_equal(gasid(mm, NULL), 0);
	/* Active on 4, but CPU 1's pid (1) does not match jiffies (0). */
	assert_int_equal(tlbgen_switch_mm(sys, 3, mm), 0);
	flush_page(sys, 1, mm, 1);
	assert_int_equal(gasid(mm, NULL), 0);
	assert_int_equal(tlbgen_clock_advance(sys, 1), 0);
	flush_page(sys, 1, mm, 1);
	assert_int_equal(gasid(mm, NULL), TLBGEN_TLB_NR_DYN_ASIDS);
	assert_int_equal(t_mm_stat(mm, TLBGEN_STAT_GLOBAL_ASID_ASSIGNED), 1);
	assert_int_equal(tlbgen_system__warns(sys), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

/* Latest at 4 CPUs: broadcasts and no IPI with the feature; today's IPIs without. */
static void run_flushes(const char *profile, bool invlpgb, uint64_t *ipis, uint64_t *bcasts,
			uint64_t *funcs, long *viol)
{
	struct tlbgen_system *sys = inv_sys(profile, invlpgb, 0, 0);
	struct tlbgen_mm *mm = t_mm(sys, 64);

	t_switch_all(sys, 0, 3, mm);
	/* Two flushes to settle (assignment, transition), then count ten. */
	flush_page(sys, 0, mm, 1);
	flush_page(sys, 0, mm, 1);
	flush_page(sys, 0, mm, 1);
	assert_int_equal(tlbgen_stats__reset(sys), 0);
	for (unsigned int i = 0; i < 10; i++) {
		for (unsigned int c = 0; c < 4; c++)
			assert_true(tlbgen_access(sys, c, PG(2 + i)) >= 0);
		assert_int_equal(tlbgen_pte_change(sys, 0, mm, PG(2 + i)), 0);
		flush_page(sys, 0, mm, 2 + i);
		for (unsigned int c = 0; c < 4; c++)
			assert_int_equal(tlbgen_access(sys, c, PG(2 + i)), 0);	/* a miss */
	}
	*ipis = t_sys_stat(sys, TLBGEN_STAT_IPI_SENT);
	*bcasts = t_sys_stat(sys, TLBGEN_STAT_INVLPGB);
	*funcs = t_sys_stat(sys, TLBGEN_STAT_FLUSH_FUNC);
	*viol = tlbgen_oracle__violations(sys);
	if (invlpgb && strcmp(profile, "v6.14")) {
		assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_TLBSYNC), 10);
		assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_IPI_AVOIDED), 30);
	}
	assert_int_equal(tlbgen_system__warns(sys), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

static void test_before_after(void **state)
{
	uint64_t ipi_on, bc_on, fn_on, ipi_off, bc_off, fn_off, ipi_old, bc_old, fn_old;
	long v_on, v_off, v_old;

	(void)state;
	run_flushes("latest", true, &ipi_on, &bc_on, &fn_on, &v_on);
	run_flushes("latest", false, &ipi_off, &bc_off, &fn_off, &v_off);
	run_flushes("v6.14", true, &ipi_old, &bc_old, &fn_old, &v_old);
	/* On: one INVLPGB per flush, no IPI, flush_tlb_func nowhere. */
	assert_int_equal(bc_on, 10);
	assert_int_equal(ipi_on, 0);
	assert_int_equal(fn_on, 0);
	/* Off: three IPIs per flush and four flush_tlb_func, as before. */
	assert_int_equal(bc_off, 0);
	assert_int_equal(ipi_off, 30);
	assert_int_equal(fn_off, 40);
	/* v6.14 predates it: the machine's INVLPGB goes unused. */
	assert_int_equal(bc_old, 0);
	assert_int_equal(ipi_old, 30);
	assert_int_equal(fn_old, 40);
	assert_int_equal(v_on, 0);
	assert_int_equal(v_off, 0);
	assert_int_equal(v_old, 0);
}

/*
 * A CPU still on its dynamic ASID after the mm got its global one: CPU 4
 * was lazy, so the assigning flush skipped it; INVLPGB of the global ASID
 * does not reach its dynamic one, so the broadcast IPIs the whole mask,
 * lazy CPUs too. flush_tlb_func() tests for a global ASID before is_lazy
 * (be88a1dd6112): lazy CPU 4 is moved onto it by switch_mm_irqs_off(),
 * which ends lazy mode, and lazy CPU 3, already on it, just returns.
 */
static void test_transition(void **state)
{
	struct tlbgen_system *sys = inv_sys("latest", true, 0, 0);
	struct tlbgen_mm *mm = t_mm(sys, 64);
	bool tr;
	int a;

	(void)state;
	t_switch_all(sys, 0, 4, mm);
	assert_int_equal(tlbgen_access(sys, 4, PG(5)), 0);
	assert_int_equal(tlbgen_enter_lazy_tlb(sys, 4), 0);
	flush_page(sys, 0, mm, 1);		/* assigns; CPUs 1..3 move over */
	a = gasid(mm, &tr);
	assert_true(tr);
	for (unsigned int c = 1; c < 4; c++)
		assert_int_equal(t_state(sys, c).loaded_mm_asid, a);
	assert_true(t_state(sys, 4).loaded_mm_asid < TLBGEN_TLB_NR_DYN_ASIDS);
	assert_int_equal(tlbgen_enter_lazy_tlb(sys, 3), 0);
	assert_int_equal(tlbgen_stats__reset(sys), 0);
	assert_int_equal(tlbgen_pte_change(sys, 0, mm, PG(5)), 0);
	assert_int_equal(tlbgen_flush_tlb_page(sys, 0, mm, PG(5)), 0);
	assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_INVLPGB), 1);
	assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_IPI_SENT), 4);	/* lazy 3, 4 too */
	t_idle(sys);
	/* Neither lazy CPU takes the lazy exit to init_mm. */
	assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_FLUSH_FUNC_LAZY), 0);
	assert_int_equal(t_cpu_stat(sys, 3, TLBGEN_STAT_FLUSH_FUNC), 1);
	assert_int_equal(t_cpu_stat(sys, 4, TLBGEN_STAT_FLUSH_FUNC), 1);
	assert_int_equal(tlbgen_cpu__loaded_mm_is(sys, 4, mm), 1);
	assert_int_equal(t_state(sys, 4).loaded_mm_asid, a);
	assert_false(t_state(sys, 4).is_lazy);
	assert_int_equal(tlbgen_cpu__loaded_mm_is(sys, 3, mm), 1);
	assert_int_equal(t_state(sys, 3).loaded_mm_asid, a);
	assert_true(t_state(sys, 3).is_lazy);
	/* CPUs on the global ASID return from flush_tlb_func without flushing. */
	for (unsigned int c = 1; c <= 4; c++)
		assert_int_equal(t_cpu_stat(sys, c, TLBGEN_STAT_FULL_FLUSH) +
				 t_cpu_stat(sys, c, TLBGEN_STAT_PARTIAL_FLUSH) +
				 t_cpu_stat(sys, c, TLBGEN_STAT_SWITCH_MM_FLUSH), 0);
	/* CPU 4's dynamic-ASID copy of PG(5) is not what it uses now. */
	assert_int_equal(tlbgen_access(sys, 4, PG(5)), 0);
	assert_int_equal(tlbgen_switch_mm(sys, 3, mm), 0);
	assert_int_equal(t_state(sys, 3).loaded_mm_asid, a);
	assert_int_equal(t_cpu_stat(sys, 3, TLBGEN_STAT_SWITCH_MM_FLUSH), 0);
	assert_int_equal(tlbgen_oracle__violations(sys), 0);
	/* Everyone moved: the next broadcast ends the transition, no IPI. */
	flush_page(sys, 0, mm, 1);
	gasid(mm, &tr);
	assert_false(tr);
	assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_IPI_SENT), 4);
	assert_int_equal(tlbgen_system__warns(sys), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

/* One global ASID: the second busy mm keeps its IPIs; a freed one is reused after the wrap. */
static void test_depletion(void **state)
{
	struct tlbgen_system *sys = inv_sys("latest", true, 1, 0);
	struct tlbgen_mm *a = t_mm(sys, 64), *b = t_mm(sys, 64), *c;

	(void)state;
	/* Cleared at switch-out, so that an mm can be destroyed. */
	assert_int_equal(tlbgen_system__set_choice(sys, "mm_cpumask", "clear-on-switch"), 0);
	assert_int_equal(global_mm(sys, a), TLBGEN_TLB_NR_DYN_ASIDS);
	/* b on CPUs 4..7, flushed from CPU 4 at jiffies 4: none left. */
	t_switch_all(sys, 4, 7, b);
	assert_int_equal(tlbgen_clock_advance(sys, 4), 0);
	assert_int_equal(tlbgen_stats__reset(sys), 0);
	flush_page(sys, 4, b, 1);
	assert_int_equal(gasid(b, NULL), 0);
	assert_int_equal(t_cpu_stat(sys, 4, TLBGEN_STAT_IPI_SENT), 3);
	assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_INVLPGB), 0);
	/* The feature cannot be switched off under a global ASID. */
	t_capture_start();
	assert_int_equal(tlbgen_system__set_choice(sys, "invlpgb", "off"), -EBUSY);
	assert_non_null(strstr(t_capture_stop(), "invlpgb"));
	assert_string_equal(tlbgen_system__get_choice(sys, "invlpgb"), "on-when-available");
	/* a exits: its ASID is freed, reusable only after the next wrap. */
	for (unsigned int cpu = 0; cpu < 4; cpu++)
		assert_int_equal(tlbgen_switch_mm(sys, cpu, NULL), 0);
	assert_int_equal(tlbgen_mm__destroy(a), 0);
	flush_page(sys, 4, b, 1);
	assert_int_equal(gasid(b, NULL), TLBGEN_TLB_NR_DYN_ASIDS + 1);
	/* b exits too; the next mm wraps: one INVLPGB of everything, then 6 again. */
	for (unsigned int cpu = 4; cpu < 8; cpu++)
		assert_int_equal(tlbgen_switch_mm(sys, cpu, NULL), 0);
	assert_int_equal(tlbgen_mm__destroy(b), 0);
	c = t_mm(sys, 64);
	t_switch_all(sys, 4, 7, c);
	assert_int_equal(tlbgen_stats__reset(sys), 0);
	flush_page(sys, 4, c, 1);
	assert_int_equal(gasid(c, NULL), TLBGEN_TLB_NR_DYN_ASIDS);
	assert_int_equal(t_cpu_stat(sys, 4, TLBGEN_STAT_INVLPGB), 1);
	assert_int_equal(t_cpu_stat(sys, 4, TLBGEN_STAT_TLBSYNC), 1);
	assert_int_equal(tlbgen_oracle__violations(sys), 0);
	assert_int_equal(tlbgen_system__warns(sys), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

/*
 * allocate_global_asid() across wraps, with 2 global ASIDs (slots 6, 7, 8 of
 * a MAX_ASID_AVAILABLE of 9). The scan runs from last_global_asid up; only a
 * wrap (last >= MAX - 1) reclaims freed ones. When nothing is free from
 * `last` up (6, 7 freed but unreclaimed, 8 held), the kernel's check of
 * !global_asid_available cannot fire and it hands out MAX_ASID_AVAILABLE
 * itself; the next allocation wraps. Allocation never stops.
 */
static void test_allocator_wrap(void **state)
{
	const int b = TLBGEN_TLB_NR_DYN_ASIDS;
	struct tlbgen_system *sys = inv_sys("latest", true, 2, 0);
	struct tlbgen_mm *a, *bb, *c, *d, *e, *f, *g, *h;

	(void)state;
	assert_int_equal(tlbgen_system__set_choice(sys, "mm_cpumask", "clear-on-switch"), 0);
	a = t_mm(sys, 64);
	assert_int_equal(assign_one(sys, a), b);		/* the first one wraps */
	bb = t_mm(sys, 64);
	assert_int_equal(assign_one(sys, bb), b + 1);
	exit_mm(sys, a);
	c = t_mm(sys, 64);
	assert_int_equal(assign_one(sys, c), b + 2);		/* 6 waits for the wrap */
	exit_mm(sys, bb);
	d = t_mm(sys, 64);
	assert_int_equal(assign_one(sys, d), b);		/* wrapped: 6, 7 back */
	exit_mm(sys, d);
	e = t_mm(sys, 64);
	assert_int_equal(assign_one(sys, e), b + 1);
	exit_mm(sys, e);
	/* From 7 up: 7 freed but not reclaimed, 8 held by c. */
	f = t_mm(sys, 64);
	assert_int_equal(assign_one(sys, f), b + 3);		/* MAX_ASID_AVAILABLE */
	exit_mm(sys, f);
	g = t_mm(sys, 64);
	assert_int_equal(assign_one(sys, g), b);		/* wrapped again */
	exit_mm(sys, g);
	h = t_mm(sys, 64);
	assert_int_equal(assign_one(sys, h), b + 1);
	/* One INVLPGB + TLBSYNC per wrap, no flush here broadcast. */
	assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_INVLPGB), 3);
	assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_TLBSYNC), 3);
	assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_GLOBAL_ASID_ASSIGNED), 8);
	assert_int_equal(tlbgen_oracle__violations(sys), 0);
	assert_int_equal(tlbgen_system__warns(sys), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

/*
 * X86_FEATURE_INVLPGB cannot change under an mm holding a global ASID; once
 * it is freed (mm_free_global_asid()) nothing depends on INVLPGB any more,
 * even before a wrap reclaims the ASID.
 */
static void test_switch_off_after_free(void **state)
{
	struct tlbgen_system *sys = inv_sys("latest", true, 0, 0);
	struct tlbgen_mm *mm = t_mm(sys, 64);

	(void)state;
	assert_int_equal(tlbgen_system__set_choice(sys, "mm_cpumask", "clear-on-switch"), 0);
	assert_int_equal(assign_one(sys, mm), TLBGEN_TLB_NR_DYN_ASIDS);
	t_capture_start();
	assert_int_equal(tlbgen_system__set_choice(sys, "invlpgb", "off"), -EBUSY);
	assert_non_null(strstr(t_capture_stop(), "global ASIDs in use"));
	exit_mm(sys, mm);
	assert_int_equal(tlbgen_system__set_choice(sys, "invlpgb", "off"), 0);
	assert_string_equal(tlbgen_system__get_choice(sys, "invlpgb"), "off");
	assert_int_equal(tlbgen_system__set_profile(sys, "latest"), 0);
	assert_string_equal(tlbgen_system__get_choice(sys, "invlpgb"), "on-when-available");
	assert_int_equal(tlbgen_system__warns(sys), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_threshold),
		cmocka_unit_test(test_before_after),
		cmocka_unit_test(test_transition),
		cmocka_unit_test(test_depletion),
		cmocka_unit_test(test_allocator_wrap),
		cmocka_unit_test(test_switch_off_after_free),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
