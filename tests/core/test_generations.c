// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Generation catch-up, partial-flush
 * eligibility, the aa44284960 early skip and TLB_GENERATION_INVALID.
 */
#include "tlbgen-test.h"

struct gen_fix {
	struct tlbgen_system *sys;
	struct tlbgen_mm *mm;
};

/* Three CPUs run mm and have caught up to generation 1. */
static struct gen_fix gen_setup(const char *profile, const char *choices)
{
	struct gen_fix f;

	f.sys = t_sys(profile, 3, 1);
	if (choices)
		assert_int_equal(tlbgen_system__set_choices(f.sys, choices), 0);
	f.mm = t_mm(f.sys, 64);
	t_switch_all(f.sys, 0, 2, f.mm);
	assert_int_equal(tlbgen_flush_tlb_page(f.sys, 0, f.mm, PG(0)), 0);
	t_idle(f.sys);
	for (unsigned int c = 0; c < 3; c++)
		assert_int_equal(t_local_gen(f.sys, c), 1);
	assert_int_equal(t_mm_gen(f.mm), 1);
	assert_int_equal(tlbgen_stats__reset(f.sys), 0);
	return f;
}

static void gen_teardown(struct gen_fix *f)
{
	assert_int_equal(tlbgen_oracle__violations(f->sys), 0);
	assert_int_equal(tlbgen_system__destroy(f->sys), 0);
}

static bool defers_read(const struct tlbgen_system *sys)
{
	return strcmp(tlbgen_system__get_choice(sys, "early_return"), "none") != 0;
}

/*
 * local=1; a full flush (gen 2) and a 1-page flush (gen 3) from two
 * initiators; the gen-3 IPI overtakes the gen-2 one on CPU 2. Doing the
 * partial flush there would skip the full flush gen 2 needs: the CPU must
 * flush fully and jump to 3; the late gen-2 IPI then flushes nothing.
 * on the second delivery: v6.0+ returns before reading mm->tlb_gen,
 * v5.17 reads it and finds local == mm.
 */
static void test_out_of_order_catch_up(void **state)
{
	struct gen_fix f = gen_setup(*state, NULL);
	uint64_t full, part, pages, reads, skip, utd;

	assert_int_equal(tlbgen_access(f.sys, 2, PG(5)), 0);	/* fill */
	assert_int_equal(tlbgen_flush_tlb_mm_range(f.sys, 0, f.mm, 0, TLBGEN_TLB_FLUSH_ALL,
						   TLBGEN_PAGE_SHIFT, false), 0);
	assert_int_equal(tlbgen_pte_change(f.sys, 1, f.mm, PG(5)), 0);
	assert_int_equal(tlbgen_flush_tlb_page(f.sys, 1, f.mm, PG(5)), 0);
	assert_int_equal(t_mm_gen(f.mm), 3);
	assert_int_equal(tlbgen_cpu__is_waiting(f.sys, 0), 1);
	assert_int_equal(tlbgen_cpu__is_waiting(f.sys, 1), 1);
	assert_int_equal(tlbgen_cpu__pending_calls(f.sys, 2), 2);

	full = t_cpu_stat(f.sys, 2, TLBGEN_STAT_FULL_FLUSH);
	part = t_cpu_stat(f.sys, 2, TLBGEN_STAT_PARTIAL_FLUSH);
	pages = t_cpu_stat(f.sys, 2, TLBGEN_STAT_PAGES_INVALIDATED);
	assert_int_equal(tlbgen_deliver_from(f.sys, 2, 1), 1);
	assert_int_equal(t_cpu_stat(f.sys, 2, TLBGEN_STAT_FULL_FLUSH) - full, 1);
	assert_int_equal(t_cpu_stat(f.sys, 2, TLBGEN_STAT_PARTIAL_FLUSH) - part, 0);
	assert_int_equal(t_cpu_stat(f.sys, 2, TLBGEN_STAT_PAGES_INVALIDATED) - pages, 0);
	assert_int_equal(t_local_gen(f.sys, 2), 3);
	assert_int_equal(tlbgen_cpu__pending_calls(f.sys, 2), 1);

	full = t_cpu_stat(f.sys, 2, TLBGEN_STAT_FULL_FLUSH);
	reads = t_cpu_stat(f.sys, 2, TLBGEN_STAT_TLB_GEN_READ);
	skip = t_cpu_stat(f.sys, 2, TLBGEN_STAT_EARLY_SKIP);
	utd = t_cpu_stat(f.sys, 2, TLBGEN_STAT_UP_TO_DATE);
	assert_int_equal(tlbgen_deliver_from(f.sys, 2, 0), 1);
	assert_int_equal(t_cpu_stat(f.sys, 2, TLBGEN_STAT_FULL_FLUSH) - full, 0);
	assert_int_equal(t_cpu_stat(f.sys, 2, TLBGEN_STAT_PARTIAL_FLUSH) - part, 0);
	assert_int_equal(t_local_gen(f.sys, 2), 3);
	if (defers_read(f.sys)) {
		assert_int_equal(t_cpu_stat(f.sys, 2, TLBGEN_STAT_TLB_GEN_READ) - reads, 0);
		assert_int_equal(t_cpu_stat(f.sys, 2, TLBGEN_STAT_EARLY_SKIP) - skip, 1);
		assert_int_equal(t_cpu_stat(f.sys, 2, TLBGEN_STAT_UP_TO_DATE) - utd, 0);
	} else {
		assert_int_equal(t_cpu_stat(f.sys, 2, TLBGEN_STAT_TLB_GEN_READ) - reads, 1);
		assert_int_equal(t_cpu_stat(f.sys, 2, TLBGEN_STAT_EARLY_SKIP) - skip, 0);
		assert_int_equal(t_cpu_stat(f.sys, 2, TLBGEN_STAT_UP_TO_DATE) - utd, 1);
	}
	assert_int_equal(tlbgen_deliver(f.sys, 2), 0);

	/* CPUs 0 and 1 still owe each other an acknowledgement. */
	assert_int_equal(tlbgen_cpu__is_waiting(f.sys, 0), 1);
	assert_int_equal(tlbgen_cpu__is_waiting(f.sys, 1), 1);
	t_idle(f.sys);
	for (unsigned int c = 0; c < 3; c++) {
		assert_int_equal(tlbgen_cpu__is_waiting(f.sys, c), 0);
		assert_int_equal(t_local_gen(f.sys, c), 3);
	}
	/* The zapped page was flushed from CPU 2: a miss, not a stale hit. */
	assert_int_equal(tlbgen_access(f.sys, 2, PG(5)), 0);
	gen_teardown(&f);
}

/* The same two flushes delivered in queue order: full (local := mm = 3), then skip. */
static void test_in_order_catch_up(void **state)
{
	struct gen_fix f = gen_setup(*state, NULL);

	assert_int_equal(tlbgen_flush_tlb_mm_range(f.sys, 0, f.mm, 0, TLBGEN_TLB_FLUSH_ALL,
						   TLBGEN_PAGE_SHIFT, false), 0);
	assert_int_equal(tlbgen_flush_tlb_page(f.sys, 1, f.mm, PG(5)), 0);
	assert_int_equal(tlbgen_stats__reset(f.sys), 0);
	assert_int_equal(tlbgen_deliver(f.sys, 2), 2);
	assert_int_equal(t_cpu_stat(f.sys, 2, TLBGEN_STAT_FULL_FLUSH), 1);
	assert_int_equal(t_cpu_stat(f.sys, 2, TLBGEN_STAT_PARTIAL_FLUSH), 0);
	assert_int_equal(t_cpu_stat(f.sys, 2, TLBGEN_STAT_FLUSH_FUNC), 2);
	assert_int_equal(t_cpu_stat(f.sys, 2, TLBGEN_STAT_EARLY_SKIP) +
			 t_cpu_stat(f.sys, 2, TLBGEN_STAT_UP_TO_DATE), 1);
	assert_int_equal(t_local_gen(f.sys, 2), 3);
	t_idle(f.sys);
	gen_teardown(&f);
}

/* Partial only if new == local + 1 and new == mm: a lone 1-page flush is partial. */
static void test_partial_when_eligible(void **state)
{
	struct gen_fix f = gen_setup(*state, NULL);

	assert_int_equal(tlbgen_flush_tlb_page(f.sys, 0, f.mm, PG(7)), 0);
	t_idle(f.sys);
	for (unsigned int c = 0; c < 3; c++) {
		assert_int_equal(t_cpu_stat(f.sys, c, TLBGEN_STAT_PARTIAL_FLUSH), 1);
		assert_int_equal(t_cpu_stat(f.sys, c, TLBGEN_STAT_PAGES_INVALIDATED), 1);
		assert_int_equal(t_cpu_stat(f.sys, c, TLBGEN_STAT_FULL_FLUSH), 0);
		assert_int_equal(t_local_gen(f.sys, c), 2);
	}
	gen_teardown(&f);
}

/*
 * new == local + 1 but another flush is in flight (new < mm): "purely an
 * optimisation", flush fully and jump to mm. Luto's variant (never read
 * mm_tlb_gen) cannot see the other flush and stays partial, one step at a time.
 */
static void test_partial_needs_new_equal_mm(void **state)
{
	const char *choices = state && *state ? *state : NULL;
	struct gen_fix f = gen_setup("v6.0", choices);
	bool never = choices != NULL;

	assert_int_equal(tlbgen_flush_tlb_page(f.sys, 0, f.mm, PG(1)), 0);	/* gen 2 */
	assert_int_equal(tlbgen_flush_tlb_page(f.sys, 1, f.mm, PG(2)), 0);	/* gen 3 */
	assert_int_equal(tlbgen_stats__reset(f.sys), 0);
	assert_int_equal(tlbgen_deliver_from(f.sys, 2, 0), 1);
	if (never) {
		assert_int_equal(t_cpu_stat(f.sys, 2, TLBGEN_STAT_PARTIAL_FLUSH), 1);
		assert_int_equal(t_cpu_stat(f.sys, 2, TLBGEN_STAT_TLB_GEN_READ), 0);
		assert_int_equal(t_local_gen(f.sys, 2), 2);
	} else {
		assert_int_equal(t_cpu_stat(f.sys, 2, TLBGEN_STAT_FULL_FLUSH), 1);
		assert_int_equal(t_cpu_stat(f.sys, 2, TLBGEN_STAT_TLB_GEN_READ), 1);
		assert_int_equal(t_local_gen(f.sys, 2), 3);
	}
	assert_int_equal(tlbgen_deliver_from(f.sys, 2, 1), 1);
	assert_int_equal(t_local_gen(f.sys, 2), 3);
	if (never)
		assert_int_equal(t_cpu_stat(f.sys, 2, TLBGEN_STAT_PARTIAL_FLUSH), 2);
	else
		assert_int_equal(t_cpu_stat(f.sys, 2, TLBGEN_STAT_EARLY_SKIP), 1);
	t_idle(f.sys);
	gen_teardown(&f);
}

/*
 * a batch flush (new_tlb_gen 0) reaching a CPU at local 5
 * while mm is at 6 must not early-return: 1 full flush, 1 read, local := 6.
 */
static void test_gen0_never_skips(void **state)
{
	struct tlbgen_system *sys = t_sys(*state, 2, 1);
	struct tlbgen_mm *mm = t_mm(sys, 16);
	struct tlbgen_tlbbatch *b;

	t_switch_all(sys, 0, 1, mm);
	for (int i = 0; i < 5; i++) {
		assert_int_equal(tlbgen_flush_tlb_page(sys, 0, mm, PG(i)), 0);
		t_idle(sys);
	}
	assert_int_equal(t_local_gen(sys, 1), 5);
	assert_int_equal(tlbgen_tlbbatch__create(sys, &b), 0);
	assert_int_equal(tlbgen_arch_tlbbatch_add_pending(sys, 0, b, mm, PG(3), PG(4)), 0);
	assert_int_equal(t_mm_gen(mm), 6);
	assert_int_equal(t_local_gen(sys, 1), 5);
	assert_int_equal(tlbgen_stats__reset(sys), 0);
	assert_int_equal(tlbgen_arch_tlbbatch_flush(sys, 0, b), 0);
	assert_int_equal(tlbgen_deliver(sys, 1), 1);
	assert_int_equal(t_cpu_stat(sys, 1, TLBGEN_STAT_EARLY_SKIP), 0);
	assert_int_equal(t_cpu_stat(sys, 1, TLBGEN_STAT_FULL_FLUSH), 1);
	assert_int_equal(t_cpu_stat(sys, 1, TLBGEN_STAT_TLB_GEN_READ), 1);
	assert_int_equal(t_local_gen(sys, 1), 6);
	assert_int_equal(t_local_gen(sys, 0), 6);
	assert_int_equal(tlbgen_cpu__is_waiting(sys, 0), 0);
	assert_int_equal(tlbgen_tlbbatch__destroy(b), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}


int main(void)
{
	const struct CMUnitTest tests[] = {
		T_EACH(test_out_of_order_catch_up),
		T_EACH(test_in_order_catch_up),
		T_EACH(test_partial_when_eligible),
		T_PRE(test_partial_needs_new_equal_mm, NULL),
		T_PRE(test_partial_needs_new_equal_mm, "mm_tlb_gen_read=never"),
		T_EACH(test_gen0_never_skips),
	};

	return cmocka_run_group_tests_name("generations", tests, NULL, NULL);
}
