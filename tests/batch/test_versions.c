// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/batch/test_versions.c - each kernel commit that changed the
 * batched unmap or the call engine, tested as a pair: the built-in profile
 * before it and the one after it, same workload, different verdicts.
 */
#include "tlbgen-test.h"

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

/*
 * One reclaim unmap of an accessible page under `profile` with batch_arch
 * = `arch`. Returns try_to_unmap_one()'s result (1 deferred, 0 flushed) and
 * checks what each answer must come with.
 */
static int unmap_once(const char *profile, const char *arch, uint64_t *tlbi, uint64_t *dsb,
		      uint64_t *ipis)
{
	char ch[64];
	struct tlbgen_system *sys;
	struct tlbgen_mm *mm;
	struct tlbgen_unmap_batch *u;
	int defer, ret;

	snprintf(ch, sizeof(ch), "batch_arch=%s", arch);
	sys = t_sys_mode(3, TLBGEN_MODE_STEPPED, profile, ch);
	assert_int_equal(tlbgen_mm__create(sys, 16, &mm), 0);
	assert_int_equal(tlbgen_unmap_batch__create(sys, &u), 0);
	run_and_fill(sys, mm, 3, 4);
	assert_int_equal(tlbgen_stats__reset(sys), 0);

	defer = tlbgen_should_defer_flush(sys, 0, mm, TLBGEN_TTU_BATCH_FLUSH);
	ret = tlbgen_try_to_unmap_one(sys, 0, u, mm, PG(2), TLBGEN_TTU_BATCH_FLUSH,
				      TLBGEN_PTE_ACCESSIBLE);
	assert_int_equal(ret, defer);
	tlbgen_run_until_idle(sys);
	*tlbi = t_sys_stat(sys, TLBGEN_STAT_TLBI);
	*dsb = t_sys_stat(sys, TLBGEN_STAT_DSB);
	*ipis = t_sys_stat(sys, TLBGEN_STAT_IPI_SENT);
	if (!defer) {
		/* Flushed at once: no batch state, and no CPU keeps the page. */
		assert_int_equal(tlbgen_mm__tlb_flush_batched(mm), 0);
		assert_int_equal(tlbgen_unmap_batch__flush_required(u), 0);
		assert_int_equal(tlbgen_access(sys, 1, PG(2)), 0);
		/* The arch has no arch_tlbbatch_*() in that kernel. */
		assert_int_equal(tlbgen_arch_tlbbatch_add_pending(sys, 0, tlbgen_unmap_batch__arch(u),
								  mm, 0, PG(1)), -EOPNOTSUPP);
		assert_int_equal(tlbgen_arch_tlbbatch_flush(sys, 0, tlbgen_unmap_batch__arch(u)),
				 -EOPNOTSUPP);
	} else {
		assert_int_equal(tlbgen_mm__tlb_flush_batched(mm), 1);
		assert_int_equal(tlbgen_try_to_unmap_flush(sys, 0, u), 1);
		tlbgen_run_until_idle(sys);
	}
	assert_int_equal(tlbgen_oracle__violations(sys), 0);
	assert_int_equal(tlbgen_unmap_batch__destroy(u), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
	return ret;
}

/* 43b3dfdd0455 (v6.6): arm64 batches; before it, TLBI+DSB per page at once. */
static void test_arm64_batching_v6_4_v6_6(void **state)
{
	uint64_t tlbi, dsb, ipis;

	(void)state;
	assert_int_equal(unmap_once("v6.4", "arm64", &tlbi, &dsb, &ipis), 0);
	assert_int_equal(tlbi, 1);
	assert_int_equal(dsb, 1);
	assert_int_equal(ipis, 0);
	assert_int_equal(unmap_once("v6.6", "arm64", &tlbi, &dsb, &ipis), 1);
	assert_int_equal(tlbi, 1);	/* posted at add time, no DSB yet */
	assert_int_equal(dsb, 0);
	assert_int_equal(ipis, 0);
	/* The oldest profile too: no arm64 batching before v6.6. */
	assert_int_equal(unmap_once("v5.17", "arm64", &tlbi, &dsb, &ipis), 0);
}

/*
 * a8f78680ee6b (v7.0): on a CPU with ARM64_WORKAROUND_REPEAT_TLBI every
 * TLBI was "tlbi; dsb ish; tlbi" and arm64 never deferred; since, one
 * TLBI + DSB follows each DSB that completes broadcast TLBIs, and the
 * batch defers again: one page costs 2 TLBIs and 2 DSBs either way, a
 * reclaim of 3 pages 6 TLBIs + 6 DSBs before and 4 + 2 after.
 */
static void repeat_tlbi_by(const char *profile, const char *erratum, unsigned int pages,
			   int *deferred, uint64_t *tlbi, uint64_t *dsb)
{
	/* The erratum: the machine feature, the choice kernel specs name, or none. */
	TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = 3, .mode = TLBGEN_MODE_STEPPED,
		    .profile = profile, .seed = 42, .arm64_repeat_tlbi = !strcmp(erratum, "machine"));
	struct tlbgen_system *sys = t_sys_opts(&o);
	struct tlbgen_mm *mm;
	struct tlbgen_unmap_batch *u;

	assert_int_equal(tlbgen_system__set_choices(sys, "batch_arch=arm64"), 0);
	if (!strcmp(erratum, "choice"))
		assert_int_equal(tlbgen_system__set_choice(sys, "arm64_repeat_tlbi", "on"), 0);
	assert_int_equal(tlbgen_mm__create(sys, 16, &mm), 0);
	assert_int_equal(tlbgen_unmap_batch__create(sys, &u), 0);
	run_and_fill(sys, mm, 3, pages);
	assert_int_equal(tlbgen_stats__reset(sys), 0);
	*deferred = 0;
	for (unsigned int p = 0; p < pages; p++)
		*deferred += tlbgen_try_to_unmap_one(sys, 0, u, mm, PG(p), TLBGEN_TTU_BATCH_FLUSH,
						     TLBGEN_PTE_ACCESSIBLE);
	tlbgen_try_to_unmap_flush(sys, 0, u);
	tlbgen_run_until_idle(sys);
	*tlbi = t_sys_stat(sys, TLBGEN_STAT_TLBI);
	*dsb = t_sys_stat(sys, TLBGEN_STAT_DSB);
	for (unsigned int c = 1; c < 3; c++)
		for (unsigned int p = 0; p < pages; p++)
			tlbgen_access(sys, c, PG(p));
	assert_int_equal(tlbgen_oracle__violations(sys), 0);
	assert_int_equal(tlbgen_unmap_batch__destroy(u), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

static void repeat_tlbi(const char *profile, unsigned int pages, int *deferred, uint64_t *tlbi,
			uint64_t *dsb)
{
	repeat_tlbi_by(profile, "choice", pages, deferred, tlbi, dsb);
}

/*
 * Which CPUs have the erratum is the machine's (system opts
 * arm64_repeat_tlbi): the same counts as the choice, from either profile;
 * without the erratum one TLBI per page and one DSB for the batch.
 */
static void test_arm64_repeat_tlbi_machine(void **state)
{
	static const char *const profiles[] = { "v6.19", "v7.0", "latest" };
	uint64_t tlbi, dsb, tlbi_c, dsb_c;
	int deferred, deferred_c;

	(void)state;
	for (int i = 0; i < 3; i++) {
		repeat_tlbi_by(profiles[i], "machine", 3, &deferred, &tlbi, &dsb);
		repeat_tlbi_by(profiles[i], "choice", 3, &deferred_c, &tlbi_c, &dsb_c);
		assert_int_equal(deferred, deferred_c);
		assert_int_equal(tlbi, tlbi_c);
		assert_int_equal(dsb, dsb_c);
		assert_int_equal(tlbi, i ? 4 : 6);
		repeat_tlbi_by(profiles[i], "none", 3, &deferred, &tlbi, &dsb);
		assert_int_equal(deferred, 3);
		assert_int_equal(tlbi, 3);
		assert_int_equal(dsb, 1);
	}
}

static void test_arm64_repeat_tlbi_v6_19_v7_0(void **state)
{
	uint64_t tlbi, dsb;
	int deferred;

	(void)state;
	repeat_tlbi("v6.19", 1, &deferred, &tlbi, &dsb);
	assert_int_equal(deferred, 0);
	assert_int_equal(tlbi, 2);
	assert_int_equal(dsb, 2);
	repeat_tlbi("v7.0", 1, &deferred, &tlbi, &dsb);
	assert_int_equal(deferred, 1);
	assert_int_equal(tlbi, 2);
	assert_int_equal(dsb, 2);
	repeat_tlbi("v6.19", 3, &deferred, &tlbi, &dsb);
	assert_int_equal(deferred, 0);
	assert_int_equal(tlbi, 6);
	assert_int_equal(dsb, 6);
	repeat_tlbi("v7.0", 3, &deferred, &tlbi, &dsb);
	assert_int_equal(deferred, 3);
	assert_int_equal(tlbi, 4);
	assert_int_equal(dsb, 2);
}

/* 54d7431af73e (v6.8): riscv batches; before it, a shootdown per page at once. */
static void test_riscv_batching_v6_6_v6_8(void **state)
{
	uint64_t tlbi, dsb, ipis;

	(void)state;
	assert_int_equal(unmap_once("v6.6", "riscv", &tlbi, &dsb, &ipis), 0);
	assert_int_equal(ipis, 2);	/* flush_tlb_page() to CPUs 1 and 2 */
	assert_int_equal(unmap_once("v6.8", "riscv", &tlbi, &dsb, &ipis), 1);
	assert_int_equal(ipis, 0);	/* deferred */
	/* x86 batches under every profile (72b252aed506, v4.3). */
	assert_int_equal(unmap_once("v5.17", "x86", &tlbi, &dsb, &ipis), 1);
}

/*
 * 4b634918384c (v6.16): arm64's arch_flush_tlb_batched_pending() was a
 * dsb(ish), which completes only the TLBIs its own CPU issued. A deferred
 * unmap on CPU 0, then CPU 1 (mprotect/fault under the PTL) drains the
 * pending flush and installs a new page: under v6.14 CPUs 1 and 2 still
 * use the old translation.
 */
static long batched_pending_race(const char *profile)
{
	struct tlbgen_system *sys = t_sys_mode(3, TLBGEN_MODE_STEPPED, profile, "batch_arch=arm64");
	struct tlbgen_mm *mm;
	struct tlbgen_unmap_batch *u;
	long viol;

	assert_int_equal(tlbgen_mm__create(sys, 16, &mm), 0);
	assert_int_equal(tlbgen_unmap_batch__create(sys, &u), 0);
	run_and_fill(sys, mm, 3, 8);
	assert_int_equal(tlbgen_try_to_unmap_one(sys, 0, u, mm, PG(5), TLBGEN_TTU_BATCH_FLUSH,
						 TLBGEN_PTE_ACCESSIBLE), 1);
	assert_int_equal(tlbgen_flush_tlb_batched_pending(sys, 1, mm, NULL), 1);
	tlbgen_run_until_idle(sys);
	assert_int_equal(tlbgen_pte_change(sys, 1, mm, PG(5)), 0);
	tlbgen_access(sys, 1, PG(5));
	tlbgen_access(sys, 2, PG(5));
	viol = tlbgen_oracle__violations(sys);
	assert_int_equal(tlbgen_try_to_unmap_flush(sys, 0, u), 1);
	tlbgen_run_until_idle(sys);
	assert_int_equal(tlbgen_unmap_batch__destroy(u), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
	return viol;
}

static void test_arm64_batched_pending_v6_14_v6_16(void **state)
{
	(void)state;
	assert_int_equal(batched_pending_race("v6.6"), 2);
	assert_int_equal(batched_pending_race("v6.14"), 2);
	assert_int_equal(batched_pending_race("v6.16"), 0);
	assert_int_equal(batched_pending_race("latest"), 0);
}

/*
 * 4d4b6d66db63 (v6.4): set_tlb_ubc_flush_pending() ignores a PTE that no
 * TLB can hold. Before it the x86 add bumps tlb_gen, ORs the cpumask and
 * counts a pending flush for it all the same.
 */
static void test_pte_accessible_filter_v6_0_v6_4(void **state)
{
	static const char *const profiles[] = { "v6.0", "v6.4" };

	(void)state;
	for (int i = 0; i < 2; i++) {
		struct tlbgen_system *sys = t_sys_mode(3, TLBGEN_MODE_STEPPED, profiles[i], NULL);
		struct tlbgen_mm *mm;
		struct tlbgen_unmap_batch *u;
		uint64_t gen;
		bool old = i == 0;

		assert_int_equal(tlbgen_mm__create(sys, 16, &mm), 0);
		assert_int_equal(tlbgen_unmap_batch__create(sys, &u), 0);
		run_and_fill(sys, mm, 3, 4);
		gen = t_mm_gen(mm);
		assert_int_equal(tlbgen_try_to_unmap_one(sys, 0, u, mm, PG(9),
							 TLBGEN_TTU_BATCH_FLUSH, 0), 1);
		assert_int_equal(tlbgen_set_tlb_ubc_flush_pending(sys, 0, u, mm, PG(10), PG(11), 0),
				 old ? 1 : 0);
		assert_int_equal(tlbgen_mm__tlb_flush_batched(mm), old ? 2 : 0);
		assert_int_equal(t_mm_gen(mm), gen + (old ? 2 : 0));
		assert_int_equal(tlbgen_unmap_batch__flush_required(u), old);
		assert_int_equal(tlbgen_tlbbatch__cpumask_weight(tlbgen_unmap_batch__arch(u)),
				 old ? 3 : 0);
		assert_int_equal(tlbgen_try_to_unmap_flush(sys, 0, u), old);
		tlbgen_run_until_idle(sys);
		assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_IPI_SENT), old ? 2 : 0);
		assert_int_equal(tlbgen_oracle__violations(sys), 0);
		assert_int_equal(tlbgen_unmap_batch__destroy(u), 0);
		assert_int_equal(tlbgen_system__destroy(sys), 0);
	}
}

/* CPU 0's csd reads: csd_lock_wait() while it waits. */
struct csd_reads {
	uint64_t reads;
};

static void note_line(void *ctx, unsigned int cpu, enum tlbgen_line line, uintptr_t id,
		      enum tlbgen_access_op op)
{
	struct csd_reads *r = ctx;

	if (cpu != 0 || line != TLBGEN_LINE_CSD || op != TLBGEN_OP_READ)
		return;
	(void)id;
	r->reads++;
}

/*
 * 5c3124975e15 (v6.4): a CPU the IPI condition skips leaves cfd->cpumask.
 * Before it, CPU 0 flushing for CPUs 1-3 with CPU 3 lazy sends 2 IPIs and
 * still reads CPU 3's csd in csd_lock_wait().
 */
static void test_wait_mask_v6_0_v6_4(void **state)
{
	static const char *const profiles[] = { "v6.0", "v6.4" };

	(void)state;
	for (int i = 0; i < 2; i++) {
		struct tlbgen_system *sys = t_sys_mode(4, TLBGEN_MODE_STEPPED, profiles[i], NULL);
		struct tlbgen_mm *mm;
		struct csd_reads r = { 0 };
		TLBGEN_OPTS(tlbgen_trace_ops, tr, .line_access = note_line);

		assert_int_equal(tlbgen_mm__create(sys, 16, &mm), 0);
		run_and_fill(sys, mm, 4, 2);
		assert_int_equal(tlbgen_enter_lazy_tlb(sys, 3), 0);
		assert_int_equal(tlbgen_stats__reset(sys), 0);
		tr.ctx = &r;
		assert_int_equal(tlbgen_system__set_trace(sys, &tr), 0);
		assert_int_equal(tlbgen_flush_tlb_mm_range(sys, 0, mm, 0, PG(1), TLBGEN_PAGE_SHIFT,
							   false), 0);
		tlbgen_run_until_idle(sys);
		assert_int_equal(tlbgen_cpu__is_waiting(sys, 0), 0);
		assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_IPI_SENT), 2);
		assert_int_equal(t_cpu_stat(sys, 3, TLBGEN_STAT_IPI_RECEIVED), 0);
		/* One final read per csd waited on (csds share lines: count reads). */
		assert_int_equal(r.reads, i == 0 ? 3 : 2);
		assert_int_equal(tlbgen_system__set_trace(sys, NULL), 0);
		assert_int_equal(tlbgen_oracle__violations(sys), 0);
		assert_int_equal(tlbgen_system__destroy(sys), 0);
	}
}

/* CPU 0's accesses in order: is_lazy reads and csd writes. */
struct order {
	int last_lazy_read, first_csd_write, n, csd_reads;
};

static void note_order(void *ctx, unsigned int cpu, enum tlbgen_line line, uintptr_t id,
		       enum tlbgen_access_op op)
{
	struct order *o = ctx;

	(void)id;
	if (cpu != 0)
		return;
	o->n++;
	if (line == TLBGEN_LINE_TLBSTATE_SHARED && op == TLBGEN_OP_READ)
		o->last_lazy_read = o->n;
	if (line == TLBGEN_LINE_CSD && op == TLBGEN_OP_WRITE && !o->first_csd_write)
		o->first_csd_write = o->n;
	if (line == TLBGEN_LINE_CSD && op == TLBGEN_OP_READ)
		o->csd_reads++;
}

/*
 * 6035152d8eeb (v5.13) evaluated tlb_is_not_lazy() for every target into a
 * mask before queueing anything; d39268ad24c0 (v5.18) went back to
 * evaluating it per target as it queues. v5.17 is the revert (seed 000);
 * ipi_cond_eval=pre-pass is the v5.17 release. With CPU 3 lazy: the same
 * 2 IPIs, but all is_lazy reads come before the first csd is written, and
 * CPU 3, never in the mask, is not waited on.
 */
static void test_ipi_cond_pre_pass_v5_17(void **state)
{
	static const char *const choices[] = { NULL, "ipi_cond_eval=pre-pass" };

	(void)state;
	for (int i = 0; i < 2; i++) {
		struct tlbgen_system *sys = t_sys_mode(4, TLBGEN_MODE_STEPPED, "v5.17", choices[i]);
		struct tlbgen_mm *mm;
		struct order o = { 0 };
		TLBGEN_OPTS(tlbgen_trace_ops, tr, .line_access = note_order);
		bool pre = i == 1;

		assert_int_equal(tlbgen_mm__create(sys, 16, &mm), 0);
		run_and_fill(sys, mm, 4, 2);
		assert_int_equal(tlbgen_enter_lazy_tlb(sys, 3), 0);
		assert_int_equal(tlbgen_stats__reset(sys), 0);
		tr.ctx = &o;
		assert_int_equal(tlbgen_system__set_trace(sys, &tr), 0);
		assert_int_equal(tlbgen_flush_tlb_mm_range(sys, 0, mm, 0, PG(1), TLBGEN_PAGE_SHIFT,
							   false), 0);
		tlbgen_run_until_idle(sys);
		assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_IPI_SENT), 2);
		assert_true(o.first_csd_write > 0 && o.last_lazy_read > 0);
		if (pre)
			assert_true(o.last_lazy_read < o.first_csd_write);
		else
			assert_true(o.first_csd_write < o.last_lazy_read);
		assert_int_equal(o.csd_reads, pre ? 2 : 3);
		assert_int_equal(tlbgen_system__set_trace(sys, NULL), 0);
		assert_int_equal(tlbgen_oracle__violations(sys), 0);
		assert_int_equal(tlbgen_system__destroy(sys), 0);
	}
}

/*
 * 9d4e8d5fa7db (v6.7): riscv flushes a range page by page up to 64 PTEs.
 * Before it, a range of more than one stride was always a full flush.
 */
static void test_riscv_range_v6_6_v6_7(void **state)
{
	static const char *const profiles[] = { "v6.6", "v6.7" };

	(void)state;
	for (int i = 0; i < 2; i++) {
		struct tlbgen_system *sys = t_sys_mode(2, TLBGEN_MODE_STEPPED, profiles[i], NULL);
		struct tlbgen_range_flush r;

		assert_int_equal(tlbgen_range_flush_decide(sys, TLBGEN_ARCH_RISCV, 0, PG(1), 12, &r), 0);
		assert_false(r.full);	/* one stride: one page, both versions */
		assert_int_equal(r.ops, 1);
		assert_int_equal(tlbgen_range_flush_decide(sys, TLBGEN_ARCH_RISCV, 0, PG(2), 12, &r), 0);
		assert_int_equal(r.full, i == 0);
		assert_int_equal(r.ops, i == 0 ? 1 : 2);
		assert_int_equal(tlbgen_range_flush_decide(sys, TLBGEN_ARCH_RISCV, 0, PG(65), 12, &r), 0);
		assert_true(r.full);	/* 65 > 64 */
		assert_int_equal(tlbgen_system__destroy(sys), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arm64_batching_v6_4_v6_6),
		cmocka_unit_test(test_arm64_repeat_tlbi_v6_19_v7_0),
		cmocka_unit_test(test_arm64_repeat_tlbi_machine),
		cmocka_unit_test(test_riscv_batching_v6_6_v6_8),
		cmocka_unit_test(test_riscv_range_v6_6_v6_7),
		cmocka_unit_test(test_arm64_batched_pending_v6_14_v6_16),
		cmocka_unit_test(test_pte_accessible_filter_v6_0_v6_4),
		cmocka_unit_test(test_wait_mask_v6_0_v6_4),
		cmocka_unit_test(test_ipi_cond_pre_pass_v5_17),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
