// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * AMD INVLPGB (4afeb0ed1753, v6.15): an mm active on more than 3 CPUs gets
 * a global ASID and its flushes become INVLPGB + TLBSYNC with no IPI; CPUs
 * still on their dynamic ASID get IPIs until they moved (the transition);
 * without free global ASIDs the mm keeps its IPIs; the oracle takes a
 * broadcast flush as complete only at TLBSYNC. Stepped mode; jiffies stay
 * at 0 unless advanced, so consider_global_asid() runs for flushes from
 * CPU 0 (the model's task on CPU n has pid n).
 */
#include "tlbgen-test.h"

#define NCPU 8

static struct tlbgen_system *inv_sys(const char *profile, bool invlpgb, unsigned int asids,
				     unsigned int count_max)
{
	TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = NCPU, .profile = profile, .seed = 7,
		    .mode = TLBGEN_MODE_STEPPED, .invlpgb = invlpgb, .global_asids = asids,
		    .invlpgb_count_max = count_max);

	return t_sys_opts(&o);
}

static int gasid(const struct tlbgen_mm *mm, bool *tr)
{
	int a = tlbgen_mm__global_asid(mm, tr);

	assert_true(a >= 0);
	return a;
}

static void flush_page(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_mm *mm,
		       unsigned long pg)
{
	assert_int_equal(tlbgen_flush_tlb_page(sys, cpu, mm, PG(pg)), 0);
	t_idle(sys);
}

/* mm on CPUs 0..3, a flush from CPU 0 (assigns), one more (moves every CPU over). */
static int global_mm(struct tlbgen_system *sys, struct tlbgen_mm *mm)
{
	bool tr;
	int a;

	t_switch_all(sys, 0, 3, mm);
	flush_page(sys, 0, mm, 1);
	a = gasid(mm, &tr);
	assert_true(a >= TLBGEN_TLB_NR_DYN_ASIDS);
	assert_true(tr);
	flush_page(sys, 0, mm, 1);
	for (unsigned int c = 0; c < 4; c++)
		assert_int_equal(t_state(sys, c).loaded_mm_asid, a);
	/* Nobody is left on a dynamic ASID: the next broadcast clears it. */
	flush_page(sys, 0, mm, 1);
	gasid(mm, &tr);
	assert_false(tr);
	return a;
}

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

/* mm alone on CPUs 0..3, one flush from CPU 0 (pid 0, jiffies 0): its global ASID. */
static int assign_one(struct tlbgen_system *sys, struct tlbgen_mm *mm)
{
	t_switch_all(sys, 0, 3, mm);
	flush_page(sys, 0, mm, 1);
	return gasid(mm, NULL);
}

/* Off every CPU, then destroyed: mm_free_global_asid() marks its ASID freed. */
static void exit_mm(struct tlbgen_system *sys, struct tlbgen_mm *mm)
{
	for (unsigned int cpu = 0; cpu < 4; cpu++)
		assert_int_equal(tlbgen_switch_mm(sys, cpu, NULL), 0);
	assert_int_equal(tlbgen_mm__destroy(mm), 0);
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

/* Completion at TLBSYNC: without it, a CPU keeps a translation after the flush returned. */
static long stale_after_flush(const char *invlpgb_choice)
{
	struct tlbgen_system *sys = inv_sys("latest", true, 0, 0);
	struct tlbgen_mm *mm = t_mm(sys, 64);
	long v;

	assert_int_equal(tlbgen_system__set_choice(sys, "invlpgb", invlpgb_choice), 0);
	global_mm(sys, mm);
	assert_int_equal(tlbgen_access(sys, 1, PG(9)), 0);
	assert_int_equal(tlbgen_pte_change(sys, 0, mm, PG(9)), 0);
	flush_page(sys, 0, mm, 9);
	assert_true(tlbgen_access(sys, 1, PG(9)) >= 0);
	v = tlbgen_oracle__violations(sys);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
	return v;
}

static void test_oracle_tlbsync(void **state)
{
	(void)state;
	assert_int_equal(stale_after_flush("on-when-available"), 0);
	assert_int_equal(stale_after_flush("no-tlbsync"), 1);
}

/* The wrap of the first allocation: one INVLPGB, and TLBSYNC only if the kernel has it. */
static void reset_counts(const char *invlpgb_choice, uint64_t *invlpgb, uint64_t *tlbsync)
{
	struct tlbgen_system *sys = inv_sys("latest", true, 0, 0);
	struct tlbgen_mm *mm = t_mm(sys, 64);

	assert_int_equal(tlbgen_system__set_choice(sys, "invlpgb", invlpgb_choice), 0);
	assert_int_equal(assign_one(sys, mm), TLBGEN_TLB_NR_DYN_ASIDS);
	*invlpgb = t_cpu_stat(sys, 0, TLBGEN_STAT_INVLPGB);
	*tlbsync = t_cpu_stat(sys, 0, TLBGEN_STAT_TLBSYNC);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

static void test_reset_tlbsync(void **state)
{
	uint64_t inv, sync;

	(void)state;
	reset_counts("on-when-available", &inv, &sync);
	assert_int_equal(inv, 1);
	assert_int_equal(sync, 1);
	reset_counts("no-tlbsync", &inv, &sync);
	assert_int_equal(inv, 1);
	assert_int_equal(sync, 0);
}

/* invlpgb_count_max pages per INVLPGB; TLB_FLUSH_ALL one per PCID. */
static void test_ranges(void **state)
{
	struct tlbgen_system *sys = inv_sys("latest", true, 0, 8);
	struct tlbgen_mm *mm = t_mm(sys, 64);

	(void)state;
	global_mm(sys, mm);
	assert_int_equal(tlbgen_stats__reset(sys), 0);
	assert_int_equal(tlbgen_flush_tlb_mm_range(sys, 0, mm, PG(0), PG(20), TLBGEN_PAGE_SHIFT,
						   false), 0);
	t_idle(sys);
	assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_INVLPGB), 3);	/* 8 + 8 + 4 */
	assert_int_equal(tlbgen_flush_tlb_mm(sys, 0, mm), 0);
	t_idle(sys);
	assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_INVLPGB), 4);
	assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_TLBSYNC), 2);
	assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_IPI_SENT), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

/* arch_tlbbatch_flush(): INVLPGB of all non-globals when pages were unmapped. */
static void batch_flush(bool invlpgb, uint64_t *ipis, uint64_t *bcasts, long *viol)
{
	struct tlbgen_system *sys = inv_sys("latest", invlpgb, 0, 0);
	struct tlbgen_mm *mm = t_mm(sys, 64);
	struct tlbgen_tlbbatch *b;

	t_switch_all(sys, 0, 3, mm);
	assert_int_equal(tlbgen_tlbbatch__create(sys, &b), 0);
	for (unsigned int c = 1; c < 4; c++)
		assert_int_equal(tlbgen_access(sys, c, PG(3)), 0);
	assert_int_equal(tlbgen_stats__reset(sys), 0);
	assert_int_equal(tlbgen_pte_change(sys, 0, mm, PG(3)), 0);
	assert_int_equal(tlbgen_arch_tlbbatch_add_pending(sys, 0, b, mm, PG(3), PG(4)), 0);
	assert_int_equal(tlbgen_arch_tlbbatch_flush(sys, 0, b), 0);
	t_idle(sys);
	for (unsigned int c = 1; c < 4; c++)
		assert_int_equal(tlbgen_access(sys, c, PG(3)), 0);
	*ipis = t_sys_stat(sys, TLBGEN_STAT_IPI_SENT);
	*bcasts = t_sys_stat(sys, TLBGEN_STAT_INVLPGB);
	*viol = tlbgen_oracle__violations(sys);
	assert_int_equal(tlbgen_tlbbatch__destroy(b), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

static void test_batch(void **state)
{
	uint64_t ipi, bc;
	long v;

	(void)state;
	batch_flush(true, &ipi, &bc, &v);
	assert_int_equal(bc, 1);
	assert_int_equal(ipi, 0);
	assert_int_equal(v, 0);
	batch_flush(false, &ipi, &bc, &v);
	assert_int_equal(bc, 0);
	assert_int_equal(ipi, 3);
	assert_int_equal(v, 0);
}

/*
 * flush_tlb_kernel_range() (82378c6c2f43, v6.15): with INVLPGB, runs of
 * invlpgb_count_max pages (globals included) and one TLBSYNC, no IPI; past
 * the ceiling one INVLPGB of everything. Without it, or before v6.15, an
 * IPI to every other online CPU and do_kernel_range_flush() on each.
 */
struct kflush { uint64_t ipis, bcasts, syncs, runs, avoided; };

static void kernel_flush(const char *profile, bool invlpgb, unsigned long end,
			 struct kflush *k)
{
	struct tlbgen_system *sys = inv_sys(profile, invlpgb, 0, invlpgb ? 8 : 0);

	assert_int_equal(tlbgen_flush_tlb_kernel_range(sys, 0, PG(0), end), 0);
	t_idle(sys);
	k->ipis = t_sys_stat(sys, TLBGEN_STAT_IPI_SENT);
	k->bcasts = t_sys_stat(sys, TLBGEN_STAT_INVLPGB);
	k->syncs = t_sys_stat(sys, TLBGEN_STAT_TLBSYNC);
	k->runs = t_sys_stat(sys, TLBGEN_STAT_KERNEL_FLUSH);
	k->avoided = t_sys_stat(sys, TLBGEN_STAT_IPI_AVOIDED);
	assert_int_equal(tlbgen_cpu__is_waiting(sys, 0), 0);
	assert_int_equal(tlbgen_system__warns(sys), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

static void test_kernel_range(void **state)
{
	struct kflush k;

	(void)state;
	kernel_flush("latest", true, PG(20), &k);		/* 8 + 8 + 4 pages */
	assert_int_equal(k.ipis, 0);
	assert_int_equal(k.bcasts, 3);
	assert_int_equal(k.syncs, 1);
	assert_int_equal(k.runs, 0);
	assert_int_equal(k.avoided, NCPU - 1);
	kernel_flush("latest", true, PG(40), &k);		/* past the ceiling (33) */
	assert_int_equal(k.ipis, 0);
	assert_int_equal(k.bcasts, 1);
	assert_int_equal(k.syncs, 1);
	assert_int_equal(k.runs, 0);
	kernel_flush("latest", false, PG(20), &k);
	assert_int_equal(k.ipis, NCPU - 1);
	assert_int_equal(k.bcasts, 0);
	assert_int_equal(k.runs, NCPU);
	assert_int_equal(k.avoided, 0);
	kernel_flush("v6.14", true, PG(20), &k);
	assert_int_equal(k.ipis, NCPU - 1);
	assert_int_equal(k.bcasts, 0);
	assert_int_equal(k.runs, NCPU);
}

static void test_bad_input(void **state)
{
	struct tlbgen_system *sys = NULL;
	const char *msg;

	(void)state;
	{
		TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = 4, .invlpgb = true,
			    .global_asids = TLBGEN_GLOBAL_ASIDS_MAX + 1);
		t_capture_start();
		assert_int_equal(tlbgen_system__create(&o, &sys), -EINVAL);
		msg = t_capture_stop();
		assert_non_null(strstr(msg, "global_asids"));
		assert_null(sys);
	}
	{
		TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = 4, .global_asids = 3);
		t_capture_start();
		assert_int_equal(tlbgen_system__create(&o, &sys), -EINVAL);
		assert_non_null(strstr(t_capture_stop(), "global_asids"));
		assert_null(sys);
	}
	{
		TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = 4, .invlpgb = true,
			    .invlpgb_count_max = 65537);
		t_capture_start();
		assert_int_equal(tlbgen_system__create(&o, &sys), -EINVAL);
		msg = t_capture_stop();
		assert_non_null(strstr(msg, "invlpgb_count_max"));
		assert_null(sys);
	}
	assert_int_equal(tlbgen_mm__global_asid(NULL, NULL), -EINVAL);
	{
		TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = 4, .invlpgb = true,
			    .global_asids = TLBGEN_GLOBAL_ASIDS_MAX);
		assert_int_equal(tlbgen_system__create(&o, &sys), 0);
		t_capture_start();
		assert_int_equal(tlbgen_system__set_choice(sys, "invlpgb", "sometimes"), -ENOENT);
		t_capture_stop();
		assert_string_equal(tlbgen_system__get_choice(sys, "invlpgb"), "on-when-available");
		assert_int_equal(tlbgen_system__destroy(sys), 0);
	}
}

/*
 * 44126343d58c (v7.1): X86_FEATURE_INVLPGB depends on PCID. A machine with
 * INVLPGB booted with nopcid: before it, an mm on 4 CPUs gets a global ASID
 * and its flushes are INVLPGBs with that PCID (a #GP on hardware: a WARN
 * here); with it, the same flushes are IPIs.
 */
static void no_pcid_flush(const char *profile, bool no_pcid, uint64_t *invlpgb, uint64_t *ipis,
			  int *asid, long *warns)
{
	TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = NCPU, .profile = profile, .seed = 7,
		    .mode = TLBGEN_MODE_STEPPED, .invlpgb = true, .no_pcid = no_pcid);
	struct tlbgen_system *sys = t_sys_opts(&o);
	struct tlbgen_mm *mm = t_mm(sys, 64);

	t_switch_all(sys, 0, 3, mm);
	for (int i = 0; i < 3; i++)
		flush_page(sys, 0, mm, 1);
	for (unsigned int c = 1; c < 4; c++)
		assert_int_equal(tlbgen_access(sys, c, PG(2)), 0);
	assert_int_equal(tlbgen_stats__reset(sys), 0);
	flush_page(sys, 0, mm, 2);
	for (unsigned int c = 1; c < 4; c++)
		assert_int_equal(tlbgen_access(sys, c, PG(2)), 0);
	*invlpgb = t_sys_stat(sys, TLBGEN_STAT_INVLPGB);
	*ipis = t_sys_stat(sys, TLBGEN_STAT_IPI_SENT);
	*asid = gasid(mm, NULL);
	*warns = tlbgen_system__warns(sys);
	/* No CPU used a stale page 2, whichever way it was flushed. */
	assert_int_equal(tlbgen_oracle__violations(sys), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

static void test_no_pcid(void **state)
{
	static const struct {
		const char *profile;
		bool no_pcid, broadcast;
	} cases[] = {
		{ "v6.19", true, true },	/* before 44126343d58c */
		{ "v7.0", true, true },
		{ "v7.1", true, false },
		{ "v7.3-rc", true, false },
		{ "latest", true, false },
		{ "v7.1", false, true },	/* PCID on: INVLPGB as before */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t invlpgb, ipis;
		long warns;
		int asid;

		no_pcid_flush(cases[i].profile, cases[i].no_pcid, &invlpgb, &ipis, &asid, &warns);
		if (cases[i].broadcast) {
			assert_true(asid >= TLBGEN_TLB_NR_DYN_ASIDS);
			assert_int_equal(invlpgb, 1);
		} else {
			assert_int_equal(asid, 0);
			assert_int_equal(invlpgb, 0);
			/* CPUs 1..3 each get an IPI. */
			assert_int_equal(ipis, 3);
		}
		/* Only INVLPGB without PCID is the #GP. */
		assert_int_equal(warns > 0, cases[i].broadcast && cases[i].no_pcid);
	}
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
		cmocka_unit_test(test_oracle_tlbsync),
		cmocka_unit_test(test_reset_tlbsync),
		cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_batch),
		cmocka_unit_test(test_kernel_range),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_no_pcid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
