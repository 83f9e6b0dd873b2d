// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/batch/test_rmap.c - the batched-unmap state machine (mm/rmap.c) and
 * the x86 / arm64 / riscv hooks, stepped mode, judged by the oracle and
 * the counters.
 */
#include "tlbgen-test.h"

static const char *const arches[] = { "x86", "arm64", "riscv" };

/* CPUs 0..n-1 run mm; CPUs 1..n-1 fill their TLBs with pages [0, pages). */
static void run_and_fill(struct tlbgen_system *sys, struct tlbgen_mm *mm, unsigned int n,
			 unsigned int pages)
{
	for (unsigned int c = 0; c < n; c++)
		assert_int_equal(tlbgen_switch_mm(sys, c, mm), 0);
	for (unsigned int c = 1; c < n; c++)
		for (unsigned int p = 0; p < pages; p++)
			assert_int_equal(tlbgen_access(sys, c, PG(p)), 0);
}

/* No stale translation survives try_to_unmap_flush(), for every arch. */
static void test_no_stale_after_flush(void **state)
{
	(void)state;
	for (size_t a = 0; a < 3; a++) {
		char ch[64];
		struct tlbgen_system *sys;
		struct tlbgen_mm *mm;
		struct tlbgen_unmap_batch *u;

		snprintf(ch, sizeof(ch), "batch_arch=%s", arches[a]);
		sys = t_sys_mode(4, TLBGEN_MODE_STEPPED, "latest", ch);
		assert_int_equal(tlbgen_mm__create(sys, 16, &mm), 0);
		assert_int_equal(tlbgen_unmap_batch__create(sys, &u), 0);
		run_and_fill(sys, mm, 4, 8);
		/* CPU 3 sleeps in the mm: idle borrows it lazily. */
		assert_int_equal(tlbgen_enter_lazy_tlb(sys, 3), 0);
		assert_int_equal(tlbgen_stats__reset(sys), 0);

		for (unsigned int p = 0; p < 8; p++)
			assert_int_equal(tlbgen_try_to_unmap_one(sys, 0, u, mm, PG(p),
								 TLBGEN_TTU_BATCH_FLUSH,
								 TLBGEN_PTE_ACCESSIBLE), 1);
		assert_int_equal(tlbgen_unmap_batch__flush_required(u), 1);
		assert_int_equal(tlbgen_unmap_batch__writable(u), 0);
		assert_int_equal(tlbgen_mm__tlb_flush_batched(mm), 8);
		/* Deferred: nobody was interrupted yet. */
		assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_IPI_SENT), 0);
		if (a == 1) {
			/* arm64: 8 TLBIs posted, none complete: the remote entry is
			 * still usable, and legal, before the DSB. */
			assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_TLBI), 8);
			assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_DSB), 0);
			assert_int_equal(tlbgen_tlbbatch__pending_tlbi(tlbgen_unmap_batch__arch(u)), 8);
			assert_int_equal(tlbgen_access(sys, 1, PG(0)), 1);
			assert_int_equal(tlbgen_oracle__violations(sys), 0);
		} else {
			assert_int_equal(tlbgen_tlbbatch__cpumask_weight(tlbgen_unmap_batch__arch(u)), 4);
		}

		assert_int_equal(tlbgen_try_to_unmap_flush(sys, 0, u), 1);
		tlbgen_run_until_idle(sys);
		assert_int_equal(tlbgen_cpu__is_waiting(sys, 0), 0);
		assert_int_equal(tlbgen_unmap_batch__flush_required(u), 0);
		assert_int_equal(tlbgen_try_to_unmap_flush(sys, 0, u), 0);

		/* One shootdown for the batch: one IPI per remote CPU at most. */
		switch (a) {
		case 0:	/* x86: lazy CPU 3 skipped */
			assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_IPI_SENT), 2);
			assert_int_equal(t_cpu_stat(sys, 3, TLBGEN_STAT_IPI_RECEIVED), 0);
			break;
		case 1:	/* arm64: no IPI, one DSB */
			assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_IPI_SENT), 0);
			assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_DSB), 1);
			assert_int_equal(tlbgen_tlbbatch__pending_tlbi(tlbgen_unmap_batch__arch(u)), 0);
			break;
		default: /* riscv: no lazy filter */
			assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_IPI_SENT), 3);
			assert_int_equal(t_cpu_stat(sys, 3, TLBGEN_STAT_IPI_RECEIVED), 1);
			assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_FULL_FLUSH), 4);
			break;
		}
		assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_FLUSH_INITIATED), 1);

		/* Every CPU now walks the page table for the unmapped pages. */
		assert_int_equal(tlbgen_switch_mm(sys, 3, mm), 0);
		for (unsigned int c = 1; c < 4; c++) {
			assert_int_equal(tlbgen_oracle__audit_cpu(sys, c), 0);
			for (unsigned int p = 0; p < 8; p++)
				assert_int_equal(tlbgen_access(sys, c, PG(p)), 0);
		}
		assert_int_equal(tlbgen_oracle__violations(sys), 0);

		assert_int_equal(tlbgen_unmap_batch__destroy(u), 0);
		for (unsigned int c = 0; c < 4; c++)
			assert_int_equal(tlbgen_switch_mm(sys, c, NULL), 0);
		assert_int_equal(tlbgen_flush_tlb_mm(sys, 0, mm), 0);
		tlbgen_run_until_idle(sys);
		assert_int_equal(tlbgen_mm__destroy(mm), 0);
		assert_int_equal(tlbgen_system__destroy(sys), 0);
	}
}

/* batched_unmap=off: every unmap flushes at once (the baseline), no batch state. */
static void test_unbatched_baseline(void **state)
{
	(void)state;
	for (size_t a = 0; a < 3; a++) {
		char ch[80];
		struct tlbgen_system *sys;
		struct tlbgen_mm *mm;
		struct tlbgen_unmap_batch *u;

		snprintf(ch, sizeof(ch), "batch_arch=%s,batched_unmap=off", arches[a]);
		sys = t_sys_mode(3, TLBGEN_MODE_STEPPED, "v6.0", ch);
		assert_int_equal(tlbgen_mm__create(sys, 16, &mm), 0);
		assert_int_equal(tlbgen_unmap_batch__create(sys, &u), 0);
		run_and_fill(sys, mm, 3, 8);
		assert_int_equal(tlbgen_stats__reset(sys), 0);
		for (unsigned int p = 0; p < 8; p++) {
			assert_int_equal(tlbgen_should_defer_flush(sys, 0, mm, TLBGEN_TTU_BATCH_FLUSH), 0);
			assert_int_equal(tlbgen_try_to_unmap_one(sys, 0, u, mm, PG(p),
								 TLBGEN_TTU_BATCH_FLUSH,
								 TLBGEN_PTE_ACCESSIBLE), 0);
			tlbgen_run_until_idle(sys);
			/* Flushed before the next unmap: the old translation is gone. */
			assert_int_equal(tlbgen_access(sys, 1, PG(p)), 0);
		}
		assert_int_equal(tlbgen_mm__tlb_flush_batched(mm), 0);
		assert_int_equal(tlbgen_unmap_batch__flush_required(u), 0);
		assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_FLUSH_INITIATED), 8);
		if (a == 1) {
			assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_TLBI), 8);
			assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_DSB), 8);
			assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_IPI_SENT), 0);
		} else {
			/* one shootdown per page: 2 remote CPUs x 8 pages */
			assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_IPI_SENT), 16);
		}
		assert_int_equal(tlbgen_oracle__violations(sys), 0);
		assert_int_equal(tlbgen_unmap_batch__destroy(u), 0);
		assert_int_equal(tlbgen_system__destroy(sys), 0);
	}
}

/*
 * A deferred unmap, then a write fault on the page in another thread before
 * the reclaimer flushed: the faulting CPU runs flush_tlb_batched_pending()
 * under the PTL, so no CPU keeps the old translation once it maps the new
 * page. arm64 with a DSB only (before 4b634918384c) leaves it on CPU 2.
 */
static void run_fault_race(const char *choices, bool expect_stale)
{
	struct tlbgen_system *sys = t_sys_mode(3, TLBGEN_MODE_STEPPED, "latest", choices);
	struct tlbgen_mm *mm;
	struct tlbgen_unmap_batch *u;

	assert_int_equal(tlbgen_mm__create(sys, 16, &mm), 0);
	assert_int_equal(tlbgen_unmap_batch__create(sys, &u), 0);
	run_and_fill(sys, mm, 3, 8);

	assert_int_equal(tlbgen_try_to_unmap_one(sys, 0, u, mm, PG(5), TLBGEN_TTU_BATCH_FLUSH,
						 TLBGEN_PTE_ACCESSIBLE | TLBGEN_PTE_DIRTY), 1);
	assert_int_equal(tlbgen_unmap_batch__writable(u), 1);
	assert_int_equal(tlbgen_mm__tlb_flush_batched(mm), 1);

	/* CPU 1: the write fault, under the PTE lock. */
	assert_int_equal(tlbgen_flush_tlb_batched_pending(sys, 1, mm, NULL), 1);
	tlbgen_run_until_idle(sys);
	assert_int_equal(tlbgen_mm__tlb_flush_batched(mm), 0x10001);
	assert_int_equal(tlbgen_flush_tlb_batched_pending(sys, 1, mm, NULL), 0);
	assert_int_equal(tlbgen_pte_change(sys, 1, mm, PG(5)), 0);	/* the new page */

	if (expect_stale) {
		/* A DSB here completes none of CPU 0's TLBIs: both keep the page. */
		assert_int_equal(tlbgen_access(sys, 1, PG(5)), 1);
		assert_int_equal(tlbgen_access(sys, 2, PG(5)), 1);
		assert_int_equal(tlbgen_oracle__violations(sys), 2);
	} else {
		assert_int_equal(tlbgen_access(sys, 1, PG(5)), 0);
		assert_int_equal(tlbgen_access(sys, 2, PG(5)), 0);
		assert_int_equal(tlbgen_oracle__violations(sys), 0);
	}
	/* The reclaimer's own flush later is still correct (and now redundant). */
	assert_int_equal(tlbgen_try_to_unmap_flush_dirty(sys, 0, u), 1);
	tlbgen_run_until_idle(sys);
	assert_int_equal(tlbgen_unmap_batch__writable(u), 0);
	assert_int_equal(tlbgen_unmap_batch__destroy(u), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

static void test_fault_race_batched_pending(void **state)
{
	(void)state;
	run_fault_race("batch_arch=x86", false);
	run_fault_race("batch_arch=riscv", false);
	run_fault_race("batch_arch=arm64", false);
	run_fault_race("batch_arch=arm64,batched_pending=dsb", true);
}

/* the pending/flushed word. */
struct inject {
	struct tlbgen_unmap_batch *u;
	unsigned long addr;
	int calls;
};

static void inject_add(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_mm *mm,
		       void *ctx)
{
	struct inject *in = ctx;

	(void)cpu;
	in->calls++;
	/* Reclaim on CPU 0 defers one more unmap while CPU 1 is flushing. */
	assert_int_equal(tlbgen_try_to_unmap_one(sys, 0, in->u, mm, in->addr,
						 TLBGEN_TTU_BATCH_FLUSH, TLBGEN_PTE_ACCESSIBLE), 1);
}

/* 3 deferred unmaps on CPU 0 of a fresh 2-CPU system (both CPUs run the mm). */
static struct tlbgen_system *three_adds(struct tlbgen_mm **mm, struct tlbgen_unmap_batch **u)
{
	struct tlbgen_system *sys = t_sys_mode(2, TLBGEN_MODE_STEPPED, "v6.0", NULL);

	assert_int_equal(tlbgen_mm__create(sys, 64, mm), 0);
	assert_int_equal(tlbgen_unmap_batch__create(sys, u), 0);
	run_and_fill(sys, *mm, 2, 8);
	for (unsigned int p = 0; p < 3; p++)
		assert_int_equal(tlbgen_try_to_unmap_one(sys, 0, *u, *mm, PG(p),
							 TLBGEN_TTU_BATCH_FLUSH,
							 TLBGEN_PTE_ACCESSIBLE), 1);
	assert_int_equal(tlbgen_mm__tlb_flush_batched(*mm), 3);
	return sys;
}

static void finish_sys(struct tlbgen_system *sys, struct tlbgen_unmap_batch *u)
{
	assert_int_equal(tlbgen_try_to_unmap_flush(sys, 0, u), 1);
	tlbgen_run_until_idle(sys);
	assert_int_equal(tlbgen_oracle__violations(sys), 0);
	assert_int_equal(tlbgen_unmap_batch__destroy(u), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

static void test_pending_flushed_word(void **state)
{
	struct tlbgen_system *sys;
	struct tlbgen_mm *mm;
	struct tlbgen_unmap_batch *u;
	struct inject in = { 0 };
	TLBGEN_OPTS(tlbgen_batched_pending_opts, o, .before_cmpxchg = inject_add, .ctx = &in);
	uint64_t f0;

	(void)state;
	/* 3 adds -> word 3; flush_tlb_batched_pending -> 1 full mm flush, 0x30003. */
	sys = three_adds(&mm, &u);
	f0 = t_mm_stat(mm, TLBGEN_STAT_FLUSH_INITIATED);
	assert_int_equal(tlbgen_flush_tlb_batched_pending(sys, 1, mm, NULL), 1);
	tlbgen_run_until_idle(sys);
	assert_int_equal(t_mm_stat(mm, TLBGEN_STAT_FLUSH_INITIATED) - f0, 1);
	assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_FULL_FLUSH) +
			 t_cpu_stat(sys, 1, TLBGEN_STAT_FULL_FLUSH), 2);	/* both CPUs, fully */
	assert_int_equal(tlbgen_mm__tlb_flush_batched(mm), 0x30003);
	assert_int_equal(tlbgen_flush_tlb_batched_pending(sys, 1, mm, NULL), 0);
	assert_int_equal(t_mm_stat(mm, TLBGEN_STAT_FLUSH_INITIATED) - f0, 1);
	finish_sys(sys, u);

	/* A 4th add between the flush and the cmpxchg: the cmpxchg fails ... */
	sys = three_adds(&mm, &u);
	in.u = u;
	in.addr = PG(3);
	f0 = t_mm_stat(mm, TLBGEN_STAT_FLUSH_INITIATED);
	assert_int_equal(tlbgen_flush_tlb_batched_pending(sys, 1, mm, &o), 1);
	tlbgen_run_until_idle(sys);
	assert_int_equal(in.calls, 1);
	assert_int_equal(tlbgen_mm__tlb_flush_batched(mm), 4);
	assert_int_equal(t_mm_stat(mm, TLBGEN_STAT_FLUSH_INITIATED) - f0, 1);
	/* ... so the next caller flushes again. */
	assert_int_equal(tlbgen_flush_tlb_batched_pending(sys, 1, mm, NULL), 1);
	tlbgen_run_until_idle(sys);
	assert_int_equal(t_mm_stat(mm, TLBGEN_STAT_FLUSH_INITIATED) - f0, 2);
	assert_int_equal(tlbgen_mm__tlb_flush_batched(mm), 0x40004);
	assert_int_equal(tlbgen_flush_tlb_batched_pending(sys, 1, mm, NULL), 0);
	finish_sys(sys, u);
}

/* v6.4: with 4d4b6d66db63's pte_accessible() filter (tests/batch/test_versions.c has v6.0). */
static void test_pending_overflow_reset(void **state)
{
	struct tlbgen_system *sys = t_sys_mode(2, TLBGEN_MODE_STEPPED, "v6.4", NULL);
	struct tlbgen_mm *mm;
	struct tlbgen_unmap_batch *u;

	(void)state;
	assert_int_equal(tlbgen_mm__create(sys, 64, &mm), 0);
	assert_int_equal(tlbgen_unmap_batch__create(sys, &u), 0);
	run_and_fill(sys, mm, 2, 1);
	for (unsigned int i = 0; i < 16384; i++)
		assert_int_equal(tlbgen_set_tlb_ubc_flush_pending(sys, 0, u, mm, PG(i % 64),
								  PG(i % 64 + 1),
								  TLBGEN_PTE_ACCESSIBLE), 1);
	assert_int_equal(tlbgen_mm__tlb_flush_batched(mm), 16384);
	assert_int_equal(tlbgen_set_tlb_ubc_flush_pending(sys, 0, u, mm, 0, PG(1),
							  TLBGEN_PTE_ACCESSIBLE), 1);
	assert_int_equal(tlbgen_mm__tlb_flush_batched(mm), 1);
	/* Not accessible: never cached, nothing to add. */
	assert_int_equal(tlbgen_set_tlb_ubc_flush_pending(sys, 0, u, mm, 0, PG(1), 0), 0);
	assert_int_equal(tlbgen_mm__tlb_flush_batched(mm), 1);
	assert_int_equal(tlbgen_flush_tlb_batched_pending(sys, 1, mm, NULL), 1);
	tlbgen_run_until_idle(sys);
	assert_int_equal(tlbgen_mm__tlb_flush_batched(mm), 0x10001);
	assert_int_equal(tlbgen_try_to_unmap_flush(sys, 0, u), 1);
	tlbgen_run_until_idle(sys);
	assert_int_equal(tlbgen_unmap_batch__destroy(u), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

/*
 * Seed 000 in a reclaim run: aa44284960 as first merged early-returns on
 * the generation-0 batch flush, so CPUs running the mm keep the unmapped
 * pages; 8f1d56f64f8d (v6.0) flushes them.
 */
static long reclaim_run(const char *profile, uint64_t *early_skips)
{
	struct tlbgen_system *sys = t_sys_mode(3, TLBGEN_MODE_STEPPED, profile, "batch_arch=x86");
	struct tlbgen_mm *mm;
	struct tlbgen_unmap_batch *u;
	long v;

	assert_int_equal(tlbgen_mm__create(sys, 32, &mm), 0);
	assert_int_equal(tlbgen_unmap_batch__create(sys, &u), 0);
	run_and_fill(sys, mm, 3, 16);
	/* The victims have caught up past generation 0. */
	assert_int_equal(tlbgen_flush_tlb_page(sys, 0, mm, PG(31)), 0);
	tlbgen_run_until_idle(sys);
	for (unsigned int c = 1; c < 3; c++) {
		uint64_t g;

		assert_int_equal(tlbgen_cpu__local_tlb_gen(sys, c, &g), 0);
		assert_int_equal(g, 1);
	}
	assert_int_equal(tlbgen_stats__reset(sys), 0);
	for (unsigned int round = 0; round < 2; round++) {
		for (unsigned int p = 0; p < 16; p++)
			assert_int_equal(tlbgen_try_to_unmap_one(sys, 0, u, mm, PG(p),
								 TLBGEN_TTU_BATCH_FLUSH,
								 TLBGEN_PTE_ACCESSIBLE), 1);
		assert_int_equal(tlbgen_try_to_unmap_flush(sys, 0, u), 1);
		tlbgen_run_until_idle(sys);
		/* The victims touch the pages again (refault or stale hit). */
		for (unsigned int c = 1; c < 3; c++)
			for (unsigned int p = 0; p < 16; p++)
				assert_true(tlbgen_access(sys, c, PG(p)) >= 0);
	}
	*early_skips = t_sys_stat(sys, TLBGEN_STAT_EARLY_SKIP);
	v = tlbgen_oracle__violations(sys);
	if (v) {
		struct tlbgen_violation vi;

		assert_int_equal(tlbgen_oracle__violation(sys, 0, &vi), 0);
		assert_int_equal(vi.flush_new_tlb_gen, 0);	/* the batch flush */
		assert_true(vi.flush_full);
	}
	assert_int_equal(tlbgen_unmap_batch__destroy(u), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
	return v;
}

static void test_seed000_reclaim_stepped(void **state)
{
	uint64_t skips;

	(void)state;
	tlbgen_set_print(t_quiet_print);
	/* 2 victims x 16 stale pages, in both rounds (round 2 re-fills then skips again) */
	assert_int_equal(reclaim_run("v6.0-aa44284960", &skips), 64);
	/* the two victims and the reclaimer itself, in each round */
	assert_int_equal(skips, 6);
	assert_int_equal(reclaim_run("v6.0", &skips), 0);
	assert_int_equal(skips, 0);
}

static void test_args(void **state)
{
	struct tlbgen_system *sys = t_sys_mode(2, TLBGEN_MODE_STEPPED, "latest", NULL);
	struct tlbgen_system *other = t_sys_mode(2, TLBGEN_MODE_STEPPED, "latest", NULL);
	struct tlbgen_mm *mm;
	struct tlbgen_unmap_batch *u, *uo;
	TLBGEN_OPTS(tlbgen_batched_pending_opts, o);
	char big[sizeof(o) + 8] = { 0 };

	(void)state;
	assert_int_equal(tlbgen_mm__create(sys, 4, &mm), 0);
	assert_int_equal(tlbgen_unmap_batch__create(sys, &u), 0);
	assert_int_equal(tlbgen_unmap_batch__create(other, &uo), 0);
	assert_int_equal(tlbgen_unmap_batch__create(NULL, &u), -EINVAL);
	assert_int_equal(tlbgen_unmap_batch__create(sys, NULL), -EINVAL);
	assert_int_equal(tlbgen_unmap_batch__destroy(NULL), -EINVAL);
	assert_int_equal(tlbgen_unmap_batch__flush_required(NULL), -EINVAL);
	assert_null(tlbgen_unmap_batch__arch(NULL));
	assert_int_equal(tlbgen_try_to_unmap_one(sys, 0, uo, mm, 0, 0, 1), -EINVAL);
	assert_int_equal(tlbgen_try_to_unmap_one(sys, 2, u, mm, 0, 0, 1), -EINVAL);
	assert_int_equal(tlbgen_try_to_unmap_one(sys, 0, u, mm, PG(4), 0, 1), -EINVAL);
	assert_int_equal(tlbgen_try_to_unmap_one(sys, 0, u, mm, 0, 0x80, 1), -EINVAL);
	assert_int_equal(tlbgen_try_to_unmap_one(sys, 0, u, mm, 0, 0, 0x80), -EINVAL);
	assert_int_equal(tlbgen_should_defer_flush(sys, 0, mm, 0x80), -EINVAL);
	assert_int_equal(tlbgen_set_tlb_ubc_flush_pending(sys, 0, u, mm, PG(1), PG(1), 1), -EINVAL);
	assert_int_equal(tlbgen_flush_tlb_batched_pending(sys, 0, NULL, NULL), -EINVAL);
	memcpy(big, &o, sizeof(o));
	((struct tlbgen_batched_pending_opts *)big)->sz = sizeof(big);
	big[sizeof(o) + 1] = 1;
	assert_int_equal(tlbgen_flush_tlb_batched_pending(sys, 0, mm,
		(struct tlbgen_batched_pending_opts *)big), -EINVAL);
	assert_int_equal(tlbgen_mm__tlb_flush_batched(NULL), -EINVAL);
	/* no side effect */
	assert_int_equal(tlbgen_mm__tlb_flush_batched(mm), 0);
	assert_int_equal(tlbgen_unmap_batch__flush_required(u), 0);
	assert_int_equal(tlbgen_unmap_batch__destroy(u), 0);
	assert_int_equal(tlbgen_unmap_batch__destroy(uo), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
	assert_int_equal(tlbgen_system__destroy(other), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_stale_after_flush),
		cmocka_unit_test(test_unbatched_baseline),
		cmocka_unit_test(test_fault_race_batched_pending),
		cmocka_unit_test(test_pending_flushed_word),
		cmocka_unit_test(test_pending_overflow_reset),
		cmocka_unit_test(test_seed000_reclaim_stepped),
		cmocka_unit_test(test_args),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
