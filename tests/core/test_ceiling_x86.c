// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * X86 tlb_single_page_flush_ceiling (33), strict
 * `>`, counted in stride units; the debugfs knob accepts 0 and rejects < 0.
 * Run under a profile with the ceiling in flush_tlb_mm_range (v6.0) and one
 * with it in get_flush_tlb_info (latest, 4a02ed8e1cc3).
 */
#include "tlbgen-test.h"

#define HUGE_SHIFT 21
#define PAGES_PER_HUGE (1UL << (HUGE_SHIFT - TLBGEN_PAGE_SHIFT))
#define MM_PAGES (36 * PAGES_PER_HUGE)

struct res {
	uint64_t full, partial, pages;
};

/* CPU 1 runs the mm alone with CPU 0 (the initiator): one remote target. */
static struct tlbgen_system *two_cpu(const char *profile, struct tlbgen_mm **mm)
{
	struct tlbgen_system *sys = t_sys(profile, 2, 1);

	*mm = t_mm(sys, MM_PAGES);
	t_switch_all(sys, 0, 1, *mm);
	return sys;
}

/* Flush [start, end) with stride from CPU 0, deliver, return CPU 1's work. */
static struct res flush_on_1(struct tlbgen_system *sys, struct tlbgen_mm *mm,
			     unsigned long start, unsigned long end, unsigned int stride)
{
	struct res r;

	assert_int_equal(tlbgen_stats__reset(sys), 0);
	assert_int_equal(tlbgen_flush_tlb_mm_range(sys, 0, mm, start, end, stride, false), 0);
	assert_int_equal(tlbgen_cpu__is_waiting(sys, 0), 1);
	assert_int_equal(tlbgen_deliver(sys, 1), 1);
	assert_int_equal(tlbgen_cpu__is_waiting(sys, 0), 0);
	r.full = t_cpu_stat(sys, 1, TLBGEN_STAT_FULL_FLUSH);
	r.partial = t_cpu_stat(sys, 1, TLBGEN_STAT_PARTIAL_FLUSH);
	r.pages = t_cpu_stat(sys, 1, TLBGEN_STAT_PAGES_INVALIDATED);
	/* The initiator ran the same decision locally. */
	assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_FULL_FLUSH), r.full);
	assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_PAGES_INVALIDATED), r.pages);
	return r;
}

static void test_33_pages_ranged_34_full(void **state)
{
	struct tlbgen_mm *mm;
	struct tlbgen_system *sys = two_cpu(*state, &mm);
	struct res r;

	assert_int_equal(tlbgen_get_tlb_single_page_flush_ceiling(sys), 33);
	/* CPU 1 caches pages 0..39; pages 0..32 change. */
	for (unsigned int p = 0; p < 40; p++)
		assert_int_equal(tlbgen_access(sys, 1, PG(p)), 0);
	for (unsigned int p = 0; p < 33; p++)
		assert_int_equal(tlbgen_pte_change(sys, 0, mm, PG(p)), 0);

	r = flush_on_1(sys, mm, 0, PG(33), TLBGEN_PAGE_SHIFT);
	assert_int_equal(r.partial, 1);
	assert_int_equal(r.full, 0);
	assert_int_equal(r.pages, 33);
	/* Exactly the range went away: 0..32 miss, 33..39 still hit. */
	for (unsigned int p = 0; p < 40; p++)
		assert_int_equal(tlbgen_access(sys, 1, PG(p)), p < 33 ? 0 : 1);

	r = flush_on_1(sys, mm, PG(1), PG(35), TLBGEN_PAGE_SHIFT);	/* 34 pages */
	assert_int_equal(r.partial, 0);
	assert_int_equal(r.full, 1);
	assert_int_equal(r.pages, 0);
	/* A full flush drops the page outside the range too. */
	assert_int_equal(tlbgen_access(sys, 1, PG(39)), 0);
	assert_int_equal(tlbgen_oracle__violations(sys), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

/* Stride units, not pages: 33 x 2 MiB with stride_shift 21 is still ranged. */
static void test_33_huge_pages_ranged(void **state)
{
	struct tlbgen_mm *mm;
	struct tlbgen_system *sys = two_cpu(*state, &mm);
	unsigned long in = 5 * PAGES_PER_HUGE + 3, out = 34 * PAGES_PER_HUGE + 1;
	struct res r;

	assert_int_equal(tlbgen_access(sys, 1, PG(in)), 0);
	assert_int_equal(tlbgen_access(sys, 1, PG(out)), 0);
	r = flush_on_1(sys, mm, 0, 33UL << HUGE_SHIFT, HUGE_SHIFT);
	assert_int_equal(r.partial, 1);
	assert_int_equal(r.pages, 33);
	assert_int_equal(tlbgen_access(sys, 1, PG(in)), 0);	/* inside a flushed stride */
	assert_int_equal(tlbgen_access(sys, 1, PG(out)), 1);	/* beyond the range */

	r = flush_on_1(sys, mm, 0, 34UL << HUGE_SHIFT, HUGE_SHIFT);
	assert_int_equal(r.full, 1);
	assert_int_equal(r.pages, 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

/* The local-only path applies the same ceiling (single-threaded mm). */
static void test_local_only_path(void **state)
{
	struct tlbgen_system *sys = t_sys(*state, 2, 1);
	struct tlbgen_mm *mm = t_mm(sys, 64);

	assert_int_equal(tlbgen_switch_mm(sys, 0, mm), 0);
	assert_int_equal(tlbgen_flush_tlb_mm_range(sys, 0, mm, 0, PG(33), TLBGEN_PAGE_SHIFT,
						   false), 0);
	assert_int_equal(tlbgen_flush_tlb_mm_range(sys, 0, mm, 0, PG(34), TLBGEN_PAGE_SHIFT,
						   false), 0);
	assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_FLUSH_LOCAL_ONLY), 2);
	assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_PARTIAL_FLUSH), 1);
	assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_PAGES_INVALIDATED), 33);
	assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_FULL_FLUSH), 1);
	assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_IPI_SENT), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

/* debugfs: 0 makes a 1-page flush full; an empty range stays "ranged" (0 > 0 is false). */
static void test_ceiling_zero(void **state)
{
	struct tlbgen_mm *mm;
	struct tlbgen_system *sys = two_cpu(*state, &mm);
	struct res r;

	assert_int_equal(tlbgen_set_tlb_single_page_flush_ceiling(sys, 0), 0);
	assert_int_equal(tlbgen_get_tlb_single_page_flush_ceiling(sys), 0);
	assert_string_equal(tlbgen_system__get_choice(sys, "tlb_single_page_flush_ceiling"), "0");
	r = flush_on_1(sys, mm, PG(3), PG(4), TLBGEN_PAGE_SHIFT);
	assert_int_equal(r.full, 1);
	assert_int_equal(r.partial, 0);
	r = flush_on_1(sys, mm, PG(3), PG(3), TLBGEN_PAGE_SHIFT);
	assert_int_equal(r.full, 0);
	assert_int_equal(r.partial, 1);
	assert_int_equal(r.pages, 0);

	/* Back to 33 with the knob; a profile switch also restores the default. */
	assert_int_equal(tlbgen_set_tlb_single_page_flush_ceiling(sys, 1), 0);
	r = flush_on_1(sys, mm, PG(3), PG(4), TLBGEN_PAGE_SHIFT);
	assert_int_equal(r.partial, 1);
	assert_int_equal(tlbgen_set_tlb_single_page_flush_ceiling(sys, 0), 0);
	assert_int_equal(tlbgen_system__set_profile(sys, *state), 0);
	assert_int_equal(tlbgen_get_tlb_single_page_flush_ceiling(sys), 33);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

static void test_ceiling_negative_rejected(void **state)
{
	struct tlbgen_mm *mm;
	struct tlbgen_system *sys = two_cpu(*state, &mm);
	struct res r;

	assert_int_equal(tlbgen_set_tlb_single_page_flush_ceiling(sys, -1), -EINVAL);
	assert_int_equal(tlbgen_set_tlb_single_page_flush_ceiling(sys, -33), -EINVAL);
	assert_int_equal(tlbgen_get_tlb_single_page_flush_ceiling(sys), 33);
	t_capture_start();
	assert_int_equal(tlbgen_system__set_choice(sys, "tlb_single_page_flush_ceiling", "-1"),
			 -EINVAL);
	assert_non_null(strstr(t_capture_stop(), "integer >= 0"));
	assert_int_equal(tlbgen_get_tlb_single_page_flush_ceiling(sys), 33);
	/* The knob is policy state: refused while a flush is in flight. */
	assert_int_equal(tlbgen_flush_tlb_page(sys, 0, mm, 0), 0);
	assert_int_equal(tlbgen_set_tlb_single_page_flush_ceiling(sys, 5), -EBUSY);
	assert_int_equal(tlbgen_get_tlb_single_page_flush_ceiling(sys), 33);
	t_idle(sys);
	/* A larger ceiling through the choice: 40 pages become ranged. */
	assert_int_equal(tlbgen_system__set_choice(sys, "tlb_single_page_flush_ceiling", "40"), 0);
	r = flush_on_1(sys, mm, 0, PG(40), TLBGEN_PAGE_SHIFT);
	assert_int_equal(r.partial, 1);
	assert_int_equal(r.pages, 40);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

/*
 * flush_tlb_kernel_range: before 4a02ed8e1cc3 the ceiling compared bytes
 * (33 pages + 1 byte is full), after it pages (ranged: 34 INVLPGs per CPU).
 */
static void test_kernel_range_bytes_vs_pages(void **state)
{
	struct tlbgen_system *sys = t_sys(*state, 2, 1);
	bool pages_rule = !strcmp(tlbgen_system__get_choice(sys, "ceiling_place"),
				  "get_flush_tlb_info");

	assert_int_equal(tlbgen_flush_tlb_kernel_range(sys, 0, 0, PG(33) + 1), 0);
	assert_int_equal(tlbgen_cpu__is_waiting(sys, 0), 1);
	t_idle(sys);
	for (unsigned int c = 0; c < 2; c++) {
		assert_int_equal(t_cpu_stat(sys, c, TLBGEN_STAT_KERNEL_FLUSH), 1);
		assert_int_equal(t_cpu_stat(sys, c, TLBGEN_STAT_PAGES_INVALIDATED),
				 pages_rule ? 34 : 0);
	}
	assert_int_equal(tlbgen_stats__reset(sys), 0);
	assert_int_equal(tlbgen_flush_tlb_kernel_range(sys, 1, 0, PG(33)), 0);
	t_idle(sys);
	assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_PAGES_INVALIDATED), 33);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

#define BOTH(fn) T_PRE(fn, "v6.0"), T_PRE(fn, "latest")

int main(void)
{
	const struct CMUnitTest tests[] = {
		BOTH(test_33_pages_ranged_34_full),
		BOTH(test_33_huge_pages_ranged),
		BOTH(test_local_only_path),
		BOTH(test_ceiling_zero),
		BOTH(test_ceiling_negative_rejected),
		BOTH(test_kernel_range_bytes_vs_pages),
	};

	return cmocka_run_group_tests_name("ceiling_x86", tests, NULL, NULL);
}
