// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/hardening/test_misuse.c - system.h, profile.h, mm.h, tlb.h,
 * tlbbatch.h and rmap.h against NULL, ids out of range, objects of another
 * system and calls in the wrong state (a CPU waiting for acknowledgements,
 * freeing an mm that is loaded or still in a cpumask). Each must return a
 * negative errno (or the documented NULL/0 for functions that return a
 * pointer or a value) and leave the state unchanged: a snapshot of
 * everything observable is taken before and compared after every call
 * (misuse-fx.h). The other headers: test_misuse_runtime.c.
 */
#include "misuse-fx.h"

/* system.h, version.h, trace.h, profile.h */
static void test_system(void **state)
{
	TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = 2);
	struct tlbgen_system_opts bad;
	struct tlbgen_system *s = (struct tlbgen_system *)&F;	/* poison */
	TLBGEN_OPTS(tlbgen_trace_ops, tr);
	uint64_t j;
	const char *names[4];
	char buf[64];

	(void)state;
	ERR(EINVAL, tlbgen_system__create(NULL, &s));
	ERR(EINVAL, tlbgen_system__create(&o, NULL));
	bad = o, bad.sz = 1;
	ERR(EINVAL, tlbgen_system__create(&bad, &s));
	bad = o, bad.nr_cpus = TLBGEN_MAX_CPUS + 1;
	ERR(EINVAL, tlbgen_system__create(&bad, &s));
	bad = o, bad.mode = (enum tlbgen_mode)7;
	ERR(EINVAL, tlbgen_system__create(&bad, &s));
	bad = o, bad.profile = "no-such-profile";
	ERR(ENOENT, tlbgen_system__create(&bad, &s));
	assert_ptr_equal(s, (struct tlbgen_system *)&F);	/* *out untouched */

	ERR(EINVAL, tlbgen_system__destroy(NULL));
	ERR(EBUSY, tlbgen_system__destroy(F.a));	/* cpu 2 waits */
	ERR(EINVAL, tlbgen_system__nr_cpus(NULL));
	ERR(EINVAL, tlbgen_system__mode(NULL));
	ERR(EINVAL, tlbgen_system__jiffies(NULL, &j));
	ERR(EINVAL, tlbgen_system__jiffies(F.a, NULL));
	ERR(EINVAL, tlbgen_system__hz(NULL));
	ERR(EINVAL, tlbgen_system__warns(NULL));
	ERR(EINVAL, tlbgen_clock_advance(NULL, 1));

	ERR(EINVAL, tlbgen_system__set_trace(NULL, &tr));
	tr.sz = 1;
	ERR(EINVAL, tlbgen_system__set_trace(F.b, &tr));
	tr.sz = sizeof(tr);
	ERR(EBUSY, tlbgen_system__set_trace(F.a, &tr));	/* flush in flight */

	/* profile.h */
	ERR(EINVAL, tlbgen_policy_register(NULL, "latest", NULL, NULL));
	ERR(EINVAL, tlbgen_policy_register("", "latest", NULL, NULL));
	ERR(EEXIST, tlbgen_policy_register("latest", "latest", NULL, NULL));
	ERR(ENOENT, tlbgen_policy_register("misuse-x", "no-such-base", NULL, NULL));
	ERR(ENOENT, tlbgen_policy_register("misuse-x", "latest", "no_such_choice=1", NULL));
	ERR(ENOENT, tlbgen_policy_register("misuse-x", "latest", "early_return=maybe", NULL));
	{
		struct tlbgen_policy_ops ops = { .sz = 1 };

		ERR(EINVAL, tlbgen_policy_register("misuse-x", "latest", NULL, &ops));
	}
	NEG(tlbgen_policy_unregister(NULL));
	ERR(ENOENT, tlbgen_policy_unregister("no-such-profile"));
	ERR(EPERM, tlbgen_policy_unregister("latest"));
	NEG(tlbgen_profile_names(NULL, 4));
	assert_true(tlbgen_profile_names(names, 0) >= 5);	/* n = 0: count only */
	NEG(tlbgen_choice_names(NULL, 4));
	ERR(ENOENT, tlbgen_choice_values("no_such_choice", names, 4));
	NEG(tlbgen_choice_values(NULL, names, 4));
	ERR(EINVAL, tlbgen_system__set_profile(NULL, "latest"));
	NEG(tlbgen_system__set_profile(F.b, NULL));
	ERR(ENOENT, tlbgen_system__set_profile(F.b, "no-such-profile"));
	ERR(EBUSY, tlbgen_system__set_profile(F.a, "v6.0"));
	ERR(EINVAL, tlbgen_system__set_choice(NULL, "early_return", "guarded"));
	NEG(tlbgen_system__set_choice(F.b, NULL, "guarded"));
	NEG(tlbgen_system__set_choice(F.b, "early_return", NULL));
	ERR(ENOENT, tlbgen_system__set_choice(F.b, "no_such_choice", "x"));
	ERR(ENOENT, tlbgen_system__set_choice(F.b, "early_return", "maybe"));
	ERR(EBUSY, tlbgen_system__set_choice(F.a, "early_return", "none"));
	ERR(EINVAL, tlbgen_system__set_choices(NULL, "early_return=none"));
	NEG(tlbgen_system__set_choices(F.b, NULL));
	/* all or nothing: the first pair is valid, the second not */
	{
		char pb[1024], pa[1024];

		tlbgen_system__describe_policy(F.b, pb, sizeof(pb));
		NEG(tlbgen_system__set_choices(F.b, "early_return=none,no_such=1"));
		tlbgen_system__describe_policy(F.b, pa, sizeof(pa));
		assert_string_equal(pa, pb);
	}
	ERR(EBUSY, tlbgen_system__set_choices(F.a, "early_return=none"));
	ZERO(tlbgen_system__get_choice(NULL, "early_return"));
	ZERO(tlbgen_system__get_choice(F.a, NULL));
	ZERO(tlbgen_system__get_choice(F.a, "no_such_choice"));
	ZERO(tlbgen_system__profile(NULL));
	ERR(EINVAL, tlbgen_system__describe_policy(NULL, buf, sizeof(buf)));
	ZERO(tlbgen_read_mm_tlb_gen(NULL));
	ZERO(tlbgen_ipi_target__is_lazy(NULL));
	ZERO(tlbgen_ipi_target__loaded_mm_is_target(NULL));
	ZERO(tlbgen_ipi_target__loaded_mm_is_switching(NULL));
	ZERO(tlbgen_ipi_target__flush_has_mm(NULL));
	ZERO(tlbgen_ipi_target__trim_cpumask(NULL));
	tlbgen_ipi_target__smp_rmb(NULL);	/* must not crash */
}

/* mm.h, tlb.h */
static void test_mm_tlb(void **state)
{
	struct tlbgen_mm *m = (struct tlbgen_mm *)&F;
	struct tlbgen_cpu_tlbstate ts;
	uint64_t v;

	(void)state;
	ERR(EINVAL, tlbgen_mm__create(NULL, PAGES, &m));
	ERR(EINVAL, tlbgen_mm__create(F.a, 0, &m));
	ERR(EINVAL, tlbgen_mm__create(F.a, (1UL << 25) + 1, &m));
	ERR(EINVAL, tlbgen_mm__create(F.a, PAGES, NULL));
	assert_ptr_equal(m, (struct tlbgen_mm *)&F);
	ERR(EINVAL, tlbgen_mm__destroy(NULL));
	ERR(EBUSY, tlbgen_mm__destroy(F.mm1));	/* loaded on cpus 0, 1, flush in flight */
	ERR(EBUSY, tlbgen_mm__destroy(F.mm2));	/* cpu 3 still has it loaded, lazily */
	ZERO(tlbgen_mm__ctx_id(NULL));
	ERR(EINVAL, tlbgen_mm__tlb_gen(NULL, &v));
	ERR(EINVAL, tlbgen_mm__tlb_gen(F.mm1, NULL));
	ERR(EINVAL, tlbgen_mm__next_trim_cpumask(NULL, &v));
	ERR(EINVAL, tlbgen_mm__next_trim_cpumask(F.mm1, NULL));
	ERR(EINVAL, tlbgen_mm__cpumask_test(NULL, 0));
	ERR(EINVAL, tlbgen_mm__cpumask_test(F.mm1, BAD_CPU));
	ERR(EINVAL, tlbgen_mm__cpumask_test(F.mm1, HUGE_CPU));
	ERR(EINVAL, tlbgen_mm__cpumask_weight(NULL));
	ZERO(tlbgen_mm__nr_pages(NULL));
	ERR(EINVAL, tlbgen_pte_change(NULL, 0, F.mm1, 0));
	ERR(EINVAL, tlbgen_pte_change(F.a, BAD_CPU, F.mm1, 0));
	ERR(EINVAL, tlbgen_pte_change(F.a, 0, NULL, 0));
	ERR(EINVAL, tlbgen_pte_change(F.a, 0, F.mmb, 0));
	ERR(EINVAL, tlbgen_pte_change(F.a, 0, F.mm1, PAGES << TLBGEN_PAGE_SHIFT));

	/* tlb.h: NULL, ids out of range, foreign mm, waiting CPU (2) */
	ERR(EINVAL, tlbgen_switch_mm(NULL, 0, F.mm1));
	ERR(EINVAL, tlbgen_switch_mm(F.a, BAD_CPU, F.mm1));
	ERR(EINVAL, tlbgen_switch_mm(F.a, HUGE_CPU, F.mm1));
	ERR(EINVAL, tlbgen_switch_mm(F.a, 3, F.mmb));
	ERR(EBUSY, tlbgen_switch_mm(F.a, 2, F.mm2));
	ERR(EINVAL, tlbgen_enter_lazy_tlb(NULL, 0));
	ERR(EINVAL, tlbgen_enter_lazy_tlb(F.a, BAD_CPU));
	ERR(EBUSY, tlbgen_enter_lazy_tlb(F.a, 2));
	ERR(EINVAL, tlbgen_leave_mm(NULL, 0));
	ERR(EINVAL, tlbgen_leave_mm(F.a, BAD_CPU));
	ERR(EBUSY, tlbgen_leave_mm(F.a, 2));
	ERR(EINVAL, tlbgen_flush_tlb_mm_range(NULL, 0, F.mm1, 0, 4096, 12, false));
	ERR(EINVAL, tlbgen_flush_tlb_mm_range(F.a, BAD_CPU, F.mm1, 0, 4096, 12, false));
	ERR(EINVAL, tlbgen_flush_tlb_mm_range(F.a, 0, NULL, 0, 4096, 12, false));
	ERR(EINVAL, tlbgen_flush_tlb_mm_range(F.a, 0, F.mmb, 0, 4096, 12, false));
	ERR(EINVAL, tlbgen_flush_tlb_mm_range(F.a, 0, F.mm1, 8192, 4096, 12, false));
	ERR(EINVAL, tlbgen_flush_tlb_mm_range(F.a, 0, F.mm1, 0, (PAGES + 1) << 12, 12, false));
	ERR(EINVAL, tlbgen_flush_tlb_mm_range(F.a, 0, F.mm1, 0, 4096, 11, false));
	ERR(EINVAL, tlbgen_flush_tlb_mm_range(F.a, 0, F.mm1, 0, 4096, 31, false));
	ERR(EINVAL, tlbgen_flush_tlb_mm_range(F.a, 0, F.mm1, 4096, TLBGEN_TLB_FLUSH_ALL, 12, false));
	ERR(EBUSY, tlbgen_flush_tlb_mm_range(F.a, 2, F.mm1, 0, 4096, 12, false));
	ERR(EINVAL, tlbgen_flush_tlb_mm(NULL, 0, F.mm1));
	ERR(EINVAL, tlbgen_flush_tlb_mm(F.a, BAD_CPU, F.mm1));
	ERR(EINVAL, tlbgen_flush_tlb_mm(F.a, 0, F.mmb));
	ERR(EBUSY, tlbgen_flush_tlb_mm(F.a, 2, F.mm1));
	ERR(EINVAL, tlbgen_flush_tlb_page(NULL, 0, F.mm1, 0));
	ERR(EINVAL, tlbgen_flush_tlb_page(F.a, BAD_CPU, F.mm1, 0));
	ERR(EINVAL, tlbgen_flush_tlb_page(F.a, 0, F.mmb, 0));
	ERR(EINVAL, tlbgen_flush_tlb_page(F.a, 0, F.mm1, PAGES << TLBGEN_PAGE_SHIFT));
	ERR(EINVAL, tlbgen_flush_tlb_page(F.a, 0, F.mm1, ~0UL));
	ERR(EBUSY, tlbgen_flush_tlb_page(F.a, 2, F.mm1, 0));
	ERR(EINVAL, tlbgen_flush_tlb_kernel_range(NULL, 0, 0, 4096));
	ERR(EINVAL, tlbgen_flush_tlb_kernel_range(F.a, BAD_CPU, 0, 4096));
	ERR(EINVAL, tlbgen_flush_tlb_kernel_range(F.a, 0, 8192, 4096));
	ERR(EBUSY, tlbgen_flush_tlb_kernel_range(F.a, 2, 0, 4096));
	ERR(EINVAL, tlbgen_set_tlb_single_page_flush_ceiling(NULL, 33));
	ERR(EINVAL, tlbgen_set_tlb_single_page_flush_ceiling(F.b, -1));
	ERR(EBUSY, tlbgen_set_tlb_single_page_flush_ceiling(F.a, 10));
	ERR(EINVAL, tlbgen_get_tlb_single_page_flush_ceiling(NULL));
	ERR(EINVAL, tlbgen_cpu__tlbstate(NULL, 0, &ts));
	ERR(EINVAL, tlbgen_cpu__tlbstate(F.a, BAD_CPU, &ts));
	ERR(EINVAL, tlbgen_cpu__tlbstate(F.a, 0, NULL));
	ERR(EINVAL, tlbgen_cpu__loaded_mm_is(NULL, 0, F.mm1));
	ERR(EINVAL, tlbgen_cpu__loaded_mm_is(F.a, BAD_CPU, F.mm1));
	ERR(EINVAL, tlbgen_cpu__loaded_mm_is(F.a, 0, F.mmb));
	ERR(EINVAL, tlbgen_cpu__local_tlb_gen(NULL, 0, &v));
	ERR(EINVAL, tlbgen_cpu__local_tlb_gen(F.a, BAD_CPU, &v));
	ERR(EINVAL, tlbgen_cpu__local_tlb_gen(F.a, 0, NULL));
}

/* tlbbatch.h, rmap.h */
static void test_batch_rmap(void **state)
{
	struct tlbgen_tlbbatch *b = (struct tlbgen_tlbbatch *)&F;
	struct tlbgen_unmap_batch *u = (struct tlbgen_unmap_batch *)&F;
	TLBGEN_OPTS(tlbgen_batched_pending_opts, bpo);
	struct tlbgen_batched_pending_opts bad_bpo = { .sz = 1 };

	(void)state;
	ERR(EINVAL, tlbgen_tlbbatch__create(NULL, &b));
	ERR(EINVAL, tlbgen_tlbbatch__create(F.a, NULL));
	assert_ptr_equal(b, (struct tlbgen_tlbbatch *)&F);
	ERR(EINVAL, tlbgen_tlbbatch__destroy(NULL));
	ERR(EINVAL, tlbgen_arch_tlbbatch_add_pending(NULL, 0, F.batch, F.mm1, 0, 4096));
	ERR(EINVAL, tlbgen_arch_tlbbatch_add_pending(F.a, BAD_CPU, F.batch, F.mm1, 0, 4096));
	ERR(EINVAL, tlbgen_arch_tlbbatch_add_pending(F.a, 0, NULL, F.mm1, 0, 4096));
	ERR(EINVAL, tlbgen_arch_tlbbatch_add_pending(F.a, 0, F.batchb, F.mm1, 0, 4096));
	ERR(EINVAL, tlbgen_arch_tlbbatch_add_pending(F.a, 0, F.batch, NULL, 0, 4096));
	ERR(EINVAL, tlbgen_arch_tlbbatch_add_pending(F.a, 0, F.batch, F.mmb, 0, 4096));
	ERR(EBUSY, tlbgen_arch_tlbbatch_add_pending(F.a, 2, F.batch, F.mm1, 0, 4096));
	ERR(EINVAL, tlbgen_arch_tlbbatch_flush(NULL, 0, F.batch));
	ERR(EINVAL, tlbgen_arch_tlbbatch_flush(F.a, BAD_CPU, F.batch));
	ERR(EINVAL, tlbgen_arch_tlbbatch_flush(F.a, 0, NULL));
	ERR(EINVAL, tlbgen_arch_tlbbatch_flush(F.a, 0, F.batchb));
	ERR(EBUSY, tlbgen_arch_tlbbatch_flush(F.a, 2, F.batch));
	ERR(EINVAL, tlbgen_tlbbatch__cpumask_weight(NULL));
	NEG(tlbgen_tlbbatch__pending_tlbi(NULL));

	ERR(EINVAL, tlbgen_unmap_batch__create(NULL, &u));
	ERR(EINVAL, tlbgen_unmap_batch__create(F.a, NULL));
	assert_ptr_equal(u, (struct tlbgen_unmap_batch *)&F);
	ERR(EINVAL, tlbgen_unmap_batch__destroy(NULL));
	ERR(EINVAL, tlbgen_unmap_batch__flush_required(NULL));
	ERR(EINVAL, tlbgen_unmap_batch__writable(NULL));
	ZERO(tlbgen_unmap_batch__arch(NULL));
	ERR(EINVAL, tlbgen_should_defer_flush(NULL, 0, F.mm1, TLBGEN_TTU_BATCH_FLUSH));
	ERR(EINVAL, tlbgen_should_defer_flush(F.a, BAD_CPU, F.mm1, TLBGEN_TTU_BATCH_FLUSH));
	ERR(EINVAL, tlbgen_should_defer_flush(F.a, 0, F.mmb, TLBGEN_TTU_BATCH_FLUSH));
	ERR(EINVAL, tlbgen_should_defer_flush(F.a, 0, F.mm1, 1U << 30));
	ERR(EBUSY, tlbgen_should_defer_flush(F.a, 2, F.mm1, TLBGEN_TTU_BATCH_FLUSH));
	ERR(EINVAL, tlbgen_set_tlb_ubc_flush_pending(NULL, 0, F.ubc, F.mm1, 0, 4096, TLBGEN_PTE_ACCESSIBLE));
	ERR(EINVAL, tlbgen_set_tlb_ubc_flush_pending(F.a, BAD_CPU, F.ubc, F.mm1, 0, 4096, TLBGEN_PTE_ACCESSIBLE));
	ERR(EINVAL, tlbgen_set_tlb_ubc_flush_pending(F.a, 0, NULL, F.mm1, 0, 4096, TLBGEN_PTE_ACCESSIBLE));
	ERR(EINVAL, tlbgen_set_tlb_ubc_flush_pending(F.a, 0, F.ubcb, F.mm1, 0, 4096, TLBGEN_PTE_ACCESSIBLE));
	ERR(EINVAL, tlbgen_set_tlb_ubc_flush_pending(F.a, 0, F.ubc, F.mmb, 0, 4096, TLBGEN_PTE_ACCESSIBLE));
	ERR(EINVAL, tlbgen_set_tlb_ubc_flush_pending(F.a, 0, F.ubc, F.mm1, 8192, 4096, TLBGEN_PTE_ACCESSIBLE));
	ERR(EINVAL, tlbgen_set_tlb_ubc_flush_pending(F.a, 0, F.ubc, F.mm1, 0, 4096, 1U << 30));
	ERR(EBUSY, tlbgen_set_tlb_ubc_flush_pending(F.a, 2, F.ubc, F.mm1, 0, 4096, TLBGEN_PTE_ACCESSIBLE));
	ERR(EINVAL, tlbgen_try_to_unmap_one(NULL, 0, F.ubc, F.mm1, 0, 0, TLBGEN_PTE_ACCESSIBLE));
	ERR(EINVAL, tlbgen_try_to_unmap_one(F.a, BAD_CPU, F.ubc, F.mm1, 0, 0, TLBGEN_PTE_ACCESSIBLE));
	ERR(EINVAL, tlbgen_try_to_unmap_one(F.a, 0, F.ubcb, F.mm1, 0, TLBGEN_TTU_BATCH_FLUSH, TLBGEN_PTE_ACCESSIBLE));
	ERR(EINVAL, tlbgen_try_to_unmap_one(F.a, 0, F.ubc, F.mmb, 0, 0, TLBGEN_PTE_ACCESSIBLE));
	ERR(EINVAL, tlbgen_try_to_unmap_one(F.a, 0, F.ubc, F.mm1, PAGES << TLBGEN_PAGE_SHIFT, 0, TLBGEN_PTE_ACCESSIBLE));
	ERR(EBUSY, tlbgen_try_to_unmap_one(F.a, 2, F.ubc, F.mm1, 0, 0, TLBGEN_PTE_ACCESSIBLE));
	ERR(EINVAL, tlbgen_try_to_unmap_flush(NULL, 0, F.ubc));
	ERR(EINVAL, tlbgen_try_to_unmap_flush(F.a, BAD_CPU, F.ubc));
	ERR(EINVAL, tlbgen_try_to_unmap_flush(F.a, 0, NULL));
	ERR(EINVAL, tlbgen_try_to_unmap_flush(F.a, 0, F.ubcb));
	ERR(EBUSY, tlbgen_try_to_unmap_flush(F.a, 2, F.ubc));
	ERR(EINVAL, tlbgen_try_to_unmap_flush_dirty(NULL, 0, F.ubc));
	ERR(EINVAL, tlbgen_try_to_unmap_flush_dirty(F.a, BAD_CPU, F.ubc));
	ERR(EINVAL, tlbgen_try_to_unmap_flush_dirty(F.a, 0, F.ubcb));
	ERR(EBUSY, tlbgen_try_to_unmap_flush_dirty(F.a, 2, F.ubc));
	ERR(EINVAL, tlbgen_flush_tlb_batched_pending(NULL, 0, F.mm1, NULL));
	ERR(EINVAL, tlbgen_flush_tlb_batched_pending(F.a, BAD_CPU, F.mm1, NULL));
	ERR(EINVAL, tlbgen_flush_tlb_batched_pending(F.a, 0, NULL, NULL));
	ERR(EINVAL, tlbgen_flush_tlb_batched_pending(F.a, 0, F.mmb, NULL));
	ERR(EINVAL, tlbgen_flush_tlb_batched_pending(F.a, 0, F.mm1, &bad_bpo));
	ERR(EBUSY, tlbgen_flush_tlb_batched_pending(F.a, 2, F.mm1, &bpo));
	ERR(EINVAL, tlbgen_mm__tlb_flush_batched(NULL));
}

int main(void)
{
	const struct CMUnitTest t[] = {
		cmocka_unit_test(test_system),
		cmocka_unit_test(test_mm_tlb),
		cmocka_unit_test(test_batch_rmap),
		cmocka_unit_test(test_state_as_set_up),
	};

	return cmocka_run_group_tests_name("misuse (stepped, wrong state)", t, setup, teardown);
}
