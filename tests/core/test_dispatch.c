// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Initiator dispatch in flush_tlb_mm_range():
 * bump tlb_gen (full barrier) before reading mm_cpumask; another CPU in the
 * mask -> flush_tlb_multi (self included, run after the remote dispatch);
 * else mm loaded here -> local flush with IRQs off; else no flush at all.
 */
#include "tlbgen-test.h"

/* A single-threaded mm: 1000 flushes are 1000 local flushes and no IPI. */
static void test_single_threaded_mm(void **state)
{
	struct tlbgen_system *sys = t_sys(*state, 4, 1);
	struct tlbgen_mm *mm = t_mm(sys, 64);

	assert_int_equal(tlbgen_switch_mm(sys, 2, mm), 0);
	assert_int_equal(tlbgen_mm__cpumask_weight(mm), 1);
	assert_int_equal(tlbgen_stats__reset(sys), 0);
	for (int i = 0; i < 1000; i++) {
		assert_int_equal(tlbgen_flush_tlb_page(sys, 2, mm, PG(i % 64)), 0);
		assert_int_equal(tlbgen_cpu__is_waiting(sys, 2), 0);
	}
	assert_int_equal(t_mm_gen(mm), 1000);
	assert_int_equal(t_local_gen(sys, 2), 1000);
	assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_IPI_SENT), 0);
	assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_CALL_QUEUED), 0);
	assert_int_equal(t_cpu_stat(sys, 2, TLBGEN_STAT_FLUSH_INITIATED), 1000);
	assert_int_equal(t_cpu_stat(sys, 2, TLBGEN_STAT_FLUSH_LOCAL_ONLY), 1000);
	assert_int_equal(t_cpu_stat(sys, 2, TLBGEN_STAT_FLUSH_MULTI), 0);
	assert_int_equal(t_cpu_stat(sys, 2, TLBGEN_STAT_FLUSH_FUNC), 1000);
	assert_int_equal(t_cpu_stat(sys, 2, TLBGEN_STAT_FLUSH_FUNC_REMOTE), 0);
	/* Each one is new == local + 1 == mm: partial, one page. */
	assert_int_equal(t_cpu_stat(sys, 2, TLBGEN_STAT_PARTIAL_FLUSH), 1000);
	assert_int_equal(t_cpu_stat(sys, 2, TLBGEN_STAT_PAGES_INVALIDATED), 1000);
	assert_int_equal(t_cpu_stat(sys, 2, TLBGEN_STAT_TLB_GEN_RMW), 1000);
	/* Per-mm counters agree. */
	assert_int_equal(t_mm_stat(mm, TLBGEN_STAT_FLUSH_LOCAL_ONLY), 1000);
	for (unsigned int c = 0; c < 4; c++)
		if (c != 2)
			assert_int_equal(t_cpu_stat(sys, c, TLBGEN_STAT_FLUSH_FUNC), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

/*
 * Nobody runs the mm: the generation still advances and no CPU flushes; the
 * next switch_mm into it finds its ASID slot behind and flushes fully.
 */
static void test_mm_not_loaded_anywhere(void **state)
{
	struct tlbgen_system *sys = t_sys(*state, 4, 1);
	struct tlbgen_mm *mm = t_mm(sys, 64);
	struct tlbgen_cpu_tlbstate st;

	/* CPU 1 ran it once (its ASID slot keeps mm's ctx_id at gen 0). */
	assert_int_equal(tlbgen_switch_mm(sys, 1, mm), 0);
	assert_int_equal(tlbgen_access(sys, 1, PG(4)), 0);
	assert_int_equal(tlbgen_switch_mm(sys, 1, NULL), 0);
	if (!strcmp(tlbgen_system__get_choice(sys, "mm_cpumask"), "lazy")) {
		/* 209954cbc7d0: CPU 1 stays in the mask after switching away. */
		assert_int_equal(tlbgen_mm__cpumask_test(mm, 1), 1);
	} else {
		assert_int_equal(tlbgen_mm__cpumask_weight(mm), 0);
	}
	assert_int_equal(tlbgen_stats__reset(sys), 0);
	for (int i = 0; i < 10; i++) {
		assert_int_equal(tlbgen_pte_change(sys, 0, mm, PG(4)), 0);
		assert_int_equal(tlbgen_flush_tlb_page(sys, 0, mm, PG(4)), 0);
		t_idle(sys);
	}
	assert_int_equal(t_mm_gen(mm), 10);
	assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_FULL_FLUSH), 0);
	assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_PARTIAL_FLUSH), 0);
	if (!strcmp(tlbgen_system__get_choice(sys, "mm_cpumask"), "lazy")) {
		/* Multi path (CPU 1 is in the mask), CPU 1 skipped: trim not due. */
		assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_FLUSH_MULTI), 10);
		assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_IPI_SKIP_NOT_TRIMMED), 10);
		assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_IPI_SENT), 0);
	} else
		assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_FLUSH_NONE), 10);

	assert_int_equal(tlbgen_stats__reset(sys), 0);
	assert_int_equal(tlbgen_switch_mm(sys, 1, mm), 0);
	assert_int_equal(t_cpu_stat(sys, 1, TLBGEN_STAT_SWITCH_MM_FLUSH), 1);
	assert_int_equal(t_local_gen(sys, 1), 10);
	st = t_state(sys, 1);
	assert_int_equal(st.loaded_mm_ctx_id, tlbgen_mm__ctx_id(mm));
	assert_int_equal(st.ctxs[st.loaded_mm_asid].ctx_id, tlbgen_mm__ctx_id(mm));
	assert_int_equal(st.ctxs[st.loaded_mm_asid].tlb_gen, 10);
	/* The stale entry was dropped by the switch's flush. */
	assert_int_equal(tlbgen_access(sys, 1, PG(4)), 0);
	assert_int_equal(tlbgen_oracle__violations(sys), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

/* Event index helper: first event of `kind` by cpu `a` at or after `from`. */
static long find(const struct t_rec *r, size_t from, uint8_t kind, int sub, int op, int a)
{
	return t_rec_find(r, from, kind, sub, op, a, -1);
}

/*
 * Order on the initiator: tlb_gen RMW, then the mm_cpumask read, then the
 * remote enqueue/IPI, then its own flush_tlb_func (a32a4d8a815c: local work
 * after the remote dispatch, overlapping it).
 */
static void test_multi_path_order(void **state)
{
	struct tlbgen_system *sys = t_sys(*state, 3, 1);
	struct tlbgen_mm *mm = t_mm(sys, 64);
	struct t_rec rec = { 0 };
	long rmw, mask, send, flush;

	t_switch_all(sys, 0, 2, mm);
	t_rec_install(sys, &rec, true);
	assert_int_equal(tlbgen_stats__reset(sys), 0);
	assert_int_equal(tlbgen_flush_tlb_page(sys, 0, mm, PG(1)), 0);

	rmw = find(&rec, 0, EV_LINE, TLBGEN_LINE_MM_TLB_GEN, TLBGEN_OP_RMW, 0);
	mask = find(&rec, 0, EV_LINE, TLBGEN_LINE_MM_CPUMASK, TLBGEN_OP_READ, 0);
	send = find(&rec, 0, EV_IPI_SEND, -1, -1, 0);
	flush = find(&rec, 0, EV_FLUSH, -1, -1, 0);
	assert_true(rmw >= 0 && mask >= 0 && send >= 0 && flush >= 0);
	assert_true(rmw < mask);
	assert_true(mask < send);
	assert_true(send < flush);
	/* Both remote IPIs were raised before the local flush. */
	assert_true(t_rec_find(&rec, 0, EV_IPI_SEND, -1, -1, 0, 1) < flush);
	assert_true(t_rec_find(&rec, 0, EV_IPI_SEND, -1, -1, 0, 2) < flush);
	/* Targets have not run anything yet; the initiator has. */
	assert_int_equal(find(&rec, 0, EV_FLUSH, -1, -1, 1), -1);
	assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_FLUSH_MULTI), 1);
	assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_FLUSH_FUNC), 1);
	assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_FLUSH_FUNC_REMOTE), 0);
	assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_IPI_SENT), 2);
	assert_int_equal(t_local_gen(sys, 0), 1);
	assert_int_equal(tlbgen_cpu__is_waiting(sys, 0), 1);
	t_idle(sys);
	for (unsigned int c = 1; c < 3; c++) {
		assert_int_equal(t_cpu_stat(sys, c, TLBGEN_STAT_FLUSH_FUNC_REMOTE), 1);
		assert_int_equal(t_cpu_stat(sys, c, TLBGEN_STAT_IPI_RECEIVED), 1);
		assert_int_equal(t_local_gen(sys, c), 1);
	}
	assert_int_equal(tlbgen_system__set_trace(sys, NULL), 0);
	t_rec_free(&rec);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

/* An initiator outside the mask (e.g. a kthread): only remote flushes. */
static void test_initiator_outside_mask(void **state)
{
	struct tlbgen_system *sys = t_sys(*state, 3, 1);
	struct tlbgen_mm *mm = t_mm(sys, 64);

	t_switch_all(sys, 1, 2, mm);
	assert_int_equal(tlbgen_stats__reset(sys), 0);
	assert_int_equal(tlbgen_flush_tlb_page(sys, 0, mm, PG(1)), 0);
	assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_FLUSH_MULTI), 1);
	assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_FLUSH_FUNC), 0);
	assert_int_equal(tlbgen_cpu__pending_calls(sys, 1), 1);
	assert_int_equal(tlbgen_cpu__pending_calls(sys, 2), 1);
	t_idle(sys);
	assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_PARTIAL_FLUSH), 2);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		T_EACH(test_single_threaded_mm),
		T_EACH(test_mm_not_loaded_anywhere),
		T_EACH(test_multi_path_order),
		T_EACH(test_initiator_outside_mask),
	};

	return cmocka_run_group_tests_name("dispatch", tests, NULL, NULL);
}
