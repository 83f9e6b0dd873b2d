// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Lazy TLB (enter_lazy_tlb, the IPI
 * condition, catching up in switch_mm) and the mm_cpumask lifecycle
 * (clear-on-switch up to 6.13; lazy clearing with once-per-HZ trimming since
 * 209954cbc7d0/6db2526c1d69, the initiator clearing itself per 953753db887f).
 */
#include "tlbgen-test.h"

static bool lazy_mask(const struct tlbgen_system *sys)
{
	return !strcmp(tlbgen_system__get_choice(sys, "mm_cpumask"), "lazy");
}

/* B lazy on mm1; ten 1-page flushes skip it; it catches up when it returns. */
static void test_lazy_cpu_skipped_then_catches_up(void **state)
{
	struct tlbgen_system *sys = t_sys(*state, 2, 1);
	struct tlbgen_mm *mm = t_mm(sys, 64);
	struct tlbgen_cpu_tlbstate st;

	t_switch_all(sys, 0, 1, mm);
	assert_int_equal(tlbgen_access(sys, 1, PG(3)), 0);
	assert_int_equal(tlbgen_enter_lazy_tlb(sys, 1), 0);
	st = t_state(sys, 1);
	assert_true(st.is_lazy);
	assert_int_equal(tlbgen_cpu__loaded_mm_is(sys, 1, mm), 1);	/* CR3 unchanged */
	assert_int_equal(tlbgen_mm__cpumask_test(mm, 1), 1);		/* still in the mask */
	assert_int_equal(t_cpu_stat(sys, 1, TLBGEN_STAT_LAZY_ENTER), 1);

	assert_int_equal(tlbgen_stats__reset(sys), 0);
	for (int i = 0; i < 10; i++) {
		assert_int_equal(tlbgen_pte_change(sys, 0, mm, PG(3)), 0);
		assert_int_equal(tlbgen_flush_tlb_mm_range(sys, 0, mm, PG(3), PG(4),
							   TLBGEN_PAGE_SHIFT, false), 0);
		assert_int_equal(tlbgen_cpu__is_waiting(sys, 0), 0);
		assert_int_equal(tlbgen_cpu__pending_calls(sys, 1), 0);
	}
	assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_IPI_SKIP_LAZY), 10);
	assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_IPI_SENT), 0);
	assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_FLUSH_MULTI), 10);
	assert_int_equal(t_cpu_stat(sys, 1, TLBGEN_STAT_IPI_RECEIVED), 0);
	assert_int_equal(t_cpu_stat(sys, 1, TLBGEN_STAT_FLUSH_FUNC), 0);
	assert_int_equal(t_local_gen(sys, 1), 0);
	assert_int_equal(t_mm_gen(mm), 10);

	/* Back from lazy: compare ctxs[prev_asid].tlb_gen with mm's, flush once. */
	assert_int_equal(tlbgen_switch_mm(sys, 1, mm), 0);
	assert_int_equal(t_cpu_stat(sys, 1, TLBGEN_STAT_SWITCH_MM_FLUSH), 1);
	assert_int_equal(t_cpu_stat(sys, 1, TLBGEN_STAT_TLB_GEN_READ), 1);
	assert_int_equal(t_local_gen(sys, 1), 10);
	st = t_state(sys, 1);
	assert_false(st.is_lazy);
	assert_int_equal(tlbgen_access(sys, 1, PG(3)), 0);	/* stale entry gone */

	/* Lazy again with nothing missed: the return reads tlb_gen but does not flush. */
	assert_int_equal(tlbgen_enter_lazy_tlb(sys, 1), 0);
	assert_int_equal(tlbgen_switch_mm(sys, 1, mm), 0);
	assert_int_equal(t_cpu_stat(sys, 1, TLBGEN_STAT_SWITCH_MM_FLUSH), 1);
	assert_int_equal(t_cpu_stat(sys, 1, TLBGEN_STAT_TLB_GEN_READ), 2);
	assert_int_equal(tlbgen_oracle__violations(sys), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

/* freed_tables flushes go to lazy CPUs too; the lazy CPU leaves for init_mm. */
static void test_freed_tables_reaches_lazy_cpu(void **state)
{
	struct tlbgen_system *sys = t_sys(*state, 2, 1);
	struct tlbgen_mm *mm = t_mm(sys, 64);
	struct tlbgen_cpu_tlbstate st;

	t_switch_all(sys, 0, 1, mm);
	assert_int_equal(tlbgen_enter_lazy_tlb(sys, 1), 0);
	assert_int_equal(tlbgen_stats__reset(sys), 0);
	assert_int_equal(tlbgen_flush_tlb_mm_range(sys, 0, mm, PG(3), PG(4), TLBGEN_PAGE_SHIFT,
						   true), 0);
	assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_IPI_SENT), 1);
	assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_IPI_SKIP_LAZY), 0);
	assert_int_equal(tlbgen_cpu__is_waiting(sys, 0), 1);
	assert_int_equal(tlbgen_deliver(sys, 1), 1);
	assert_int_equal(tlbgen_cpu__is_waiting(sys, 0), 0);
	assert_int_equal(t_cpu_stat(sys, 1, TLBGEN_STAT_FLUSH_FUNC_LAZY), 1);
	assert_int_equal(t_cpu_stat(sys, 1, TLBGEN_STAT_FULL_FLUSH), 0);
	assert_int_equal(tlbgen_cpu__loaded_mm_is(sys, 1, NULL), 1);
	st = t_state(sys, 1);
	assert_false(st.is_lazy);
	assert_int_equal(st.loaded_mm_ctx_id, 1);
	assert_int_equal(tlbgen_mm__cpumask_test(mm, 1), lazy_mask(sys) ? 1 : 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

/* a batch flush (mm NULL) still tests is_lazy first and skips the lazy CPU. */
static void test_batch_flush_skips_lazy(void **state)
{
	struct tlbgen_system *sys = t_sys(*state, 3, 1);
	struct tlbgen_mm *mm = t_mm(sys, 64);
	struct tlbgen_tlbbatch *b;

	t_switch_all(sys, 0, 2, mm);
	assert_int_equal(tlbgen_enter_lazy_tlb(sys, 1), 0);
	assert_int_equal(tlbgen_tlbbatch__create(sys, &b), 0);
	assert_int_equal(tlbgen_arch_tlbbatch_add_pending(sys, 0, b, mm, PG(1), PG(2)), 0);
	assert_int_equal(tlbgen_tlbbatch__cpumask_weight(b), 3);
	assert_int_equal(tlbgen_stats__reset(sys), 0);
	assert_int_equal(tlbgen_arch_tlbbatch_flush(sys, 0, b), 0);
	assert_int_equal(tlbgen_tlbbatch__cpumask_weight(b), 0);
	assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_IPI_SKIP_LAZY), 1);
	assert_int_equal(tlbgen_cpu__pending_calls(sys, 1), 0);
	assert_int_equal(tlbgen_cpu__pending_calls(sys, 2), 1);
	t_idle(sys);
	assert_int_equal(t_cpu_stat(sys, 2, TLBGEN_STAT_FULL_FLUSH), 1);
	assert_int_equal(t_cpu_stat(sys, 1, TLBGEN_STAT_FLUSH_FUNC), 0);
	assert_int_equal(tlbgen_tlbbatch__destroy(b), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

/*
 * enter_lazy_tlb on init_mm changes nothing; leave_mm of a lazy CPU loads
 * init_mm; of a CPU that is not lazy WARNs and loads init_mm all the same.
 */
static void test_enter_lazy_on_init_mm_and_leave_mm(void **state)
{
	struct tlbgen_system *sys = t_sys(*state, 2, 1);
	struct tlbgen_mm *mm = t_mm(sys, 64);

	assert_int_equal(tlbgen_enter_lazy_tlb(sys, 0), 0);
	assert_false(t_state(sys, 0).is_lazy);
	assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_LAZY_ENTER), 0);
	assert_int_equal(tlbgen_leave_mm(sys, 0), 0);	/* no-op on init_mm */

	assert_int_equal(tlbgen_switch_mm(sys, 1, mm), 0);
	assert_int_equal(tlbgen_system__warns(sys), 0);
	assert_int_equal(tlbgen_leave_mm(sys, 1), 0);
	assert_int_equal(tlbgen_system__warns(sys), 1);
	assert_int_equal(tlbgen_cpu__loaded_mm_is(sys, 1, NULL), 1);
	assert_int_equal(tlbgen_switch_mm(sys, 1, mm), 0);
	assert_int_equal(tlbgen_enter_lazy_tlb(sys, 1), 0);
	assert_int_equal(tlbgen_leave_mm(sys, 1), 0);
	assert_int_equal(tlbgen_cpu__loaded_mm_is(sys, 1, NULL), 1);
	assert_false(t_state(sys, 1).is_lazy);
	assert_int_equal(tlbgen_mm__cpumask_test(mm, 1), lazy_mask(sys) ? 1 : 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

/* ---- -------------------------------------------------------------------- */

struct fake_clock {
	uint64_t now;
};

static uint64_t fake_jiffies(void *ctx)
{
	return ((struct fake_clock *)ctx)->now;
}

#define FAKE_HZ 250

static struct tlbgen_system *clocked_sys(const char *profile, unsigned int nr_cpus,
					 struct fake_clock *fc)
{
	static struct tlbgen_clock clk;
	TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = nr_cpus, .profile = profile, .seed = 1,
		    .clock = &clk);
	struct tlbgen_system *sys;
	uint64_t j;

	clk = (struct tlbgen_clock){ .jiffies = fake_jiffies, .ctx = fc, .hz = FAKE_HZ };
	sys = t_sys_opts(&o);
	assert_int_equal(tlbgen_system__hz(sys), FAKE_HZ);
	assert_int_equal(tlbgen_system__jiffies(sys, &j), 0);
	assert_int_equal(j, fc->now);
	/* The virtual clock is not used: advancing it is refused. */
	assert_int_equal(tlbgen_clock_advance(sys, 1), -EOPNOTSUPP);
	return sys;
}

static void flush_one(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_mm *mm)
{
	assert_int_equal(tlbgen_flush_tlb_page(sys, cpu, mm, PG(2)), 0);
}

/*
 * with an injected clock: B switches mm1 -> mm2; 100 flushes of mm1
 * within one second send B nothing and B stays in mm1's mask (6.14+). Past
 * next_trim_cpumask (time_after: strictly after) the next flush sends one
 * IPI, B clears itself and next_trim = now + HZ. Up to 6.13 B's bit is
 * cleared at the switch and no flush ever targets it.
 */
static void test_trim_once_per_hz(void **state)
{
	struct fake_clock fc = { .now = 1000 };
	struct tlbgen_system *sys = clocked_sys(*state, 3, &fc);
	struct tlbgen_mm *mm1 = t_mm(sys, 64), *mm2 = t_mm(sys, 64);
	uint64_t next;
	bool lazy = lazy_mask(sys);

	assert_int_equal(tlbgen_mm__next_trim_cpumask(mm1, &next), 0);
	assert_int_equal(next, 1000 + FAKE_HZ);
	t_switch_all(sys, 0, 1, mm1);
	assert_int_equal(tlbgen_switch_mm(sys, 1, mm2), 0);
	assert_int_equal(tlbgen_mm__cpumask_test(mm1, 1), lazy ? 1 : 0);
	assert_int_equal(tlbgen_mm__cpumask_test(mm2, 1), 1);
	assert_int_equal(tlbgen_stats__reset(sys), 0);

	for (int i = 0; i < 100; i++) {
		fc.now += 2;		/* 1002 .. 1200: within HZ */
		flush_one(sys, 0, mm1);
		assert_int_equal(tlbgen_cpu__is_waiting(sys, 0), 0);
	}
	fc.now = 1000 + FAKE_HZ;	/* == next_trim: not yet after it */
	flush_one(sys, 0, mm1);
	assert_int_equal(tlbgen_cpu__pending_calls(sys, 1), 0);
	assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_IPI_SENT), 0);
	assert_int_equal(t_cpu_stat(sys, 1, TLBGEN_STAT_IPI_RECEIVED), 0);
	assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_TRIM_CPUMASK), 0);
	assert_int_equal(tlbgen_mm__cpumask_test(mm1, 1), lazy ? 1 : 0);
	if (lazy) {
		assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_FLUSH_MULTI), 101);
		assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_IPI_SKIP_NOT_TRIMMED), 101);
	} else {
		assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_FLUSH_LOCAL_ONLY), 101);
	}

	fc.now = 1000 + FAKE_HZ + 1;
	flush_one(sys, 0, mm1);
	assert_int_equal(tlbgen_mm__next_trim_cpumask(mm1, &next), 0);
	if (!lazy) {
		assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_IPI_SENT), 0);
		assert_int_equal(next, 1000 + FAKE_HZ);	/* never evaluated */
		goto out;
	}
	assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_TRIM_CPUMASK), 1);
	assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_IPI_SENT), 1);
	assert_int_equal(next, fc.now + FAKE_HZ);
	assert_int_equal(tlbgen_cpu__pending_calls(sys, 1), 1);
	assert_int_equal(tlbgen_deliver(sys, 1), 1);
	assert_int_equal(t_cpu_stat(sys, 1, TLBGEN_STAT_FLUSH_FUNC_WRONG_MM), 1);
	assert_int_equal(t_cpu_stat(sys, 1, TLBGEN_STAT_CPUMASK_CLEAR), 1);
	assert_int_equal(t_cpu_stat(sys, 1, TLBGEN_STAT_FULL_FLUSH) +
			 t_cpu_stat(sys, 1, TLBGEN_STAT_PARTIAL_FLUSH), 0);
	assert_int_equal(tlbgen_mm__cpumask_test(mm1, 1), 0);
	assert_int_equal(tlbgen_cpu__loaded_mm_is(sys, 1, mm2), 1);

	/* Alone in the mask: local path, trimming is not even evaluated. */
	fc.now += 10 * FAKE_HZ;
	flush_one(sys, 0, mm1);
	assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_FLUSH_LOCAL_ONLY), 1);
	assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_TRIM_CPUMASK), 1);
	assert_int_equal(tlbgen_mm__next_trim_cpumask(mm1, &next), 0);
	assert_int_equal(next, 1000 + FAKE_HZ + 1 + FAKE_HZ);
out:
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

/* lazy CPUs are never trimmed (the lazy test comes first). */
static void test_lazy_cpu_not_trimmed(void **state)
{
	struct fake_clock fc = { .now = 5 };
	struct tlbgen_system *sys = clocked_sys(*state, 4, &fc);
	struct tlbgen_mm *mm1 = t_mm(sys, 64), *mm2 = t_mm(sys, 64);

	t_switch_all(sys, 0, 2, mm1);
	assert_int_equal(tlbgen_switch_mm(sys, 1, mm2), 0);	/* B left */
	assert_int_equal(tlbgen_enter_lazy_tlb(sys, 2), 0);	/* C lazy on mm1 */
	fc.now += 2 * FAKE_HZ;
	assert_int_equal(tlbgen_stats__reset(sys), 0);
	flush_one(sys, 0, mm1);
	assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_IPI_SKIP_LAZY), 1);
	assert_int_equal(tlbgen_cpu__pending_calls(sys, 2), 0);
	t_idle(sys);
	assert_int_equal(tlbgen_mm__cpumask_test(mm1, 2), 1);
	assert_int_equal(tlbgen_cpu__loaded_mm_is(sys, 2, mm1), 1);
	assert_int_equal(tlbgen_mm__cpumask_test(mm1, 1), 0);
	assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_TRIM_CPUMASK), 1);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

/*
 * 953753db887f: the initiator, in mm1's mask but running mm2, clears itself
 * when its own trimming flush runs locally (wrong_mm=all-clear). With
 * 209954cbc7d0 alone (wrong_mm=remote-clear) only remote CPUs clear.
 * Uses the built-in virtual clock (tlbgen_clock_advance).
 */
static void test_initiator_clears_itself(void **state)
{
	const char *wrong_mm = *state;
	struct tlbgen_system *sys = t_sys("v6.14", 3, 1);
	struct tlbgen_mm *mm1 = t_mm(sys, 64), *mm2 = t_mm(sys, 64);
	uint64_t j0, j1;

	assert_int_equal(tlbgen_system__set_choice(sys, "wrong_mm", wrong_mm), 0);
	t_switch_all(sys, 0, 1, mm1);
	assert_int_equal(tlbgen_switch_mm(sys, 0, mm2), 0);
	assert_int_equal(tlbgen_mm__cpumask_test(mm1, 0), 1);
	assert_int_equal(tlbgen_system__jiffies(sys, &j0), 0);
	assert_int_equal(tlbgen_clock_advance(sys, (uint64_t)tlbgen_system__hz(sys) + 1), 0);
	assert_int_equal(tlbgen_system__jiffies(sys, &j1), 0);
	assert_int_equal(j1 - j0, (uint64_t)tlbgen_system__hz(sys) + 1);
	assert_int_equal(tlbgen_stats__reset(sys), 0);
	flush_one(sys, 0, mm1);
	assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_TRIM_CPUMASK), 1);
	assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_FLUSH_FUNC), 1);
	t_idle(sys);
	assert_int_equal(tlbgen_mm__cpumask_test(mm1, 0), !strcmp(wrong_mm, "all-clear") ? 0 : 1);
	assert_int_equal(tlbgen_mm__cpumask_test(mm1, 1), 1);	/* runs it */
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

/* flush_tlb_mm (freed_tables) reaches CPUs that left the mm and clears them (exit_mmap). */
static void test_flush_tlb_mm_clears_leavers(void **state)
{
	struct tlbgen_system *sys = t_sys(*state, 3, 1);
	struct tlbgen_mm *mm1 = t_mm(sys, 64);

	t_switch_all(sys, 0, 2, mm1);
	t_switch_all(sys, 0, 2, NULL);
	if (!lazy_mask(sys)) {
		assert_int_equal(tlbgen_mm__cpumask_weight(mm1), 0);
		assert_int_equal(tlbgen_mm__destroy(mm1), 0);
		goto out;
	}
	assert_int_equal(tlbgen_mm__cpumask_weight(mm1), 3);
	assert_int_equal(tlbgen_flush_tlb_mm(sys, 0, mm1), 0);
	t_idle(sys);
	assert_int_equal(tlbgen_mm__cpumask_weight(mm1), 0);	/* initiator too (953753db887f) */
	assert_int_equal(tlbgen_mm__destroy(mm1), 0);
out:
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		T_EACH(test_lazy_cpu_skipped_then_catches_up),
		T_EACH(test_freed_tables_reaches_lazy_cpu),
		T_EACH(test_batch_flush_skips_lazy),
		T_EACH(test_enter_lazy_on_init_mm_and_leave_mm),
		T_EACH(test_trim_once_per_hz),
		T_PRE(test_lazy_cpu_not_trimmed, "v6.14"),
		T_PRE(test_lazy_cpu_not_trimmed, "latest"),
		T_PRE(test_initiator_clears_itself, "all-clear"),
		T_PRE(test_initiator_clears_itself, "remote-clear"),
		T_EACH(test_flush_tlb_mm_clears_leavers),
	};

	return cmocka_run_group_tests_name("lazy_cpumask", tests, NULL, NULL);
}
