// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * examples/unit_test_policy.c - unit testing a user-defined policy with
 * CMocka and the stale-translation oracle.
 *
 * The policy under test is a flush_tlb_func() decision in the style of
 * aa44284960 + 8f1d56f64f8d. Next to it are deliberately broken variants a
 * reviewer would want caught:
 *  - no_guard: forgets 8f1d56f64f8d, so a batched flush (new_tlb_gen == 0)
 *    takes the early return everywhere (Hugh Dickins' swap segfaults);
 *  - skip_partial: treats every ranged request as already done;
 *  - ipi_lazy_only: an IPI condition that skips every target.
 * Each test builds a tiny stepped system, sets up exactly the state of the
 * bug (a TLB entry for a page that is then unmapped and flushed), lets the
 * flush complete, and touches the page again: the oracle must stay quiet
 * for the correct policy and report the stale hit for each broken one.
 * The oracle does not look at generations, so it judges the outcome, not
 * the implementation.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "workload.h"

/* ---- the policy under test and its broken variants ------------------------ */

static enum tlbgen_flush_verdict decide_common(const struct tlbgen_flush_req *req,
					       struct tlbgen_gen_reader *r, uint64_t *new_local,
					       bool guard)
{
	uint64_t mm_tlb_gen;

	if ((!guard || req->new_tlb_gen != TLBGEN_TLB_GENERATION_INVALID) &&
	    req->new_tlb_gen <= req->local_tlb_gen)
		return TLBGEN_VERDICT_SKIP;
	mm_tlb_gen = tlbgen_read_mm_tlb_gen(r);
	if (req->local_tlb_gen == mm_tlb_gen)
		return TLBGEN_VERDICT_UP_TO_DATE;
	*new_local = mm_tlb_gen;
	if (req->end != TLBGEN_TLB_FLUSH_ALL && req->new_tlb_gen == req->local_tlb_gen + 1 &&
	    req->new_tlb_gen == mm_tlb_gen)
		return TLBGEN_VERDICT_PARTIAL;
	return TLBGEN_VERDICT_FULL;
}

static enum tlbgen_flush_verdict decide_good(const struct tlbgen_flush_req *req,
					     struct tlbgen_gen_reader *r, uint64_t *new_local,
					     void *priv)
{
	(void)priv;
	return decide_common(req, r, new_local, true);
}

static enum tlbgen_flush_verdict decide_no_guard(const struct tlbgen_flush_req *req,
						 struct tlbgen_gen_reader *r, uint64_t *new_local,
						 void *priv)
{
	(void)priv;
	return decide_common(req, r, new_local, false);
}

static enum tlbgen_flush_verdict decide_skip_partial(const struct tlbgen_flush_req *req,
						     struct tlbgen_gen_reader *r,
						     uint64_t *new_local, void *priv)
{
	(void)priv;
	if (req->end != TLBGEN_TLB_FLUSH_ALL)
		return TLBGEN_VERDICT_UP_TO_DATE;	/* "nothing to do": wrong */
	return decide_common(req, r, new_local, true);
}

static enum tlbgen_ipi_verdict ipi_lazy_only(struct tlbgen_ipi_target *t, void *priv)
{
	(void)t;
	(void)priv;
	return TLBGEN_IPI_SKIP_LAZY;	/* believes every target is lazy */
}

static int register_policies(void **state)
{
	static const struct tlbgen_policy_ops good = { .sz = sizeof(good),
						       .flush_decide = decide_good };
	static const struct tlbgen_policy_ops no_guard = { .sz = sizeof(no_guard),
							   .flush_decide = decide_no_guard };
	static const struct tlbgen_policy_ops skip_partial = {
		.sz = sizeof(skip_partial), .flush_decide = decide_skip_partial };
	static const struct tlbgen_policy_ops bad_ipi = { .sz = sizeof(bad_ipi),
							  .ipi_cond = ipi_lazy_only };

	(void)state;
	/* Unchanged parts fall back to the base profile: here v5.17. */
	if (tlbgen_policy_register("ut-good", "v5.17", NULL, &good) ||
	    tlbgen_policy_register("ut-no-guard", "v5.17", NULL, &no_guard) ||
	    tlbgen_policy_register("ut-skip-partial", "v5.17", NULL, &skip_partial) ||
	    tlbgen_policy_register("ut-bad-ipi", "v6.0", NULL, &bad_ipi))
		return -1;
	return 0;
}

static int unregister_policies(void **state)
{
	(void)state;
	tlbgen_policy_unregister("ut-good");
	tlbgen_policy_unregister("ut-no-guard");
	tlbgen_policy_unregister("ut-skip-partial");
	tlbgen_policy_unregister("ut-bad-ipi");
	return 0;
}

/* ---- scenarios -------------------------------------------------------------- */

struct scenario {
	struct tlbgen_system *sys;
	struct tlbgen_mm *mm;
};

/* Two CPUs run `mm`; CPU 1 has page 0 cached in its TLB. */
static void scenario_start(struct scenario *s, const char *profile)
{
	TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = 2, .mode = TLBGEN_MODE_STEPPED,
		    .profile = profile, .seed = 1);

	assert_int_equal(tlbgen_system__create(&o, &s->sys), 0);
	assert_int_equal(tlbgen_mm__create(s->sys, 16, &s->mm), 0);
	assert_int_equal(tlbgen_switch_mm(s->sys, 0, s->mm), 0);
	assert_int_equal(tlbgen_switch_mm(s->sys, 1, s->mm), 0);
	assert_int_equal(tlbgen_access(s->sys, 1, 0), 0);	/* miss: fills */
	assert_int_equal(tlbgen_access(s->sys, 1, 0), 1);	/* hit */
}

/* CPU 1 touches page 0 again; returns the oracle's violation count. */
static long scenario_finish(struct scenario *s)
{
	long v;

	assert_int_equal(tlbgen_run_until_idle(s->sys) >= 0, 1);
	assert_int_equal(tlbgen_cpu__is_waiting(s->sys, 0), 0);	/* flush returned */
	assert_true(tlbgen_access(s->sys, 1, 0) >= 0);
	v = tlbgen_oracle__violations(s->sys);
	assert_true(v >= 0);
	assert_int_equal(tlbgen_system__destroy(s->sys), 0);
	return v;
}

/* Reclaim: unmap page 0 through a batch (new_tlb_gen == 0), flush the batch. */
static long batched_unmap(const char *profile)
{
	struct scenario s;
	struct tlbgen_tlbbatch *b;

	scenario_start(&s, profile);
	/* Make CPU 1's local generation non-zero, as on any busy system. */
	assert_int_equal(tlbgen_flush_tlb_mm(s.sys, 0, s.mm), 0);
	assert_true(tlbgen_run_until_idle(s.sys) >= 0);
	assert_int_equal(tlbgen_access(s.sys, 1, 0), 0);	/* refill after the flush */

	assert_int_equal(tlbgen_tlbbatch__create(s.sys, &b), 0);
	assert_int_equal(tlbgen_pte_change(s.sys, 0, s.mm, 0), 0);
	assert_int_equal(tlbgen_arch_tlbbatch_add_pending(s.sys, 0, b, s.mm, 0,
							  TLBGEN_PAGE_SIZE), 0);
	assert_int_equal(tlbgen_arch_tlbbatch_flush(s.sys, 0, b), 0);
	assert_true(tlbgen_run_until_idle(s.sys) >= 0);
	assert_int_equal(tlbgen_tlbbatch__destroy(b), 0);
	return scenario_finish(&s);
}

/* munmap of one page: flush_tlb_page() after the PTE change. */
static long page_unmap(const char *profile)
{
	struct scenario s;

	scenario_start(&s, profile);
	assert_int_equal(tlbgen_pte_change(s.sys, 0, s.mm, 0), 0);
	assert_int_equal(tlbgen_flush_tlb_page(s.sys, 0, s.mm, 0), 0);
	return scenario_finish(&s);
}

/* ---- tests ------------------------------------------------------------------ */

static void test_good_policy_batched_unmap(void **state)
{
	(void)state;
	assert_int_equal(batched_unmap("ut-good"), 0);
}

static void test_good_policy_page_unmap(void **state)
{
	(void)state;
	assert_int_equal(page_unmap("ut-good"), 0);
}

static void test_oracle_catches_missing_gen0_guard(void **state)
{
	(void)state;
	assert_true(batched_unmap("ut-no-guard") > 0);
	/* ...and only there: a ranged flush carries a generation. */
	assert_int_equal(page_unmap("ut-no-guard"), 0);
}

static void test_oracle_catches_skipped_partial_flush(void **state)
{
	(void)state;
	assert_true(page_unmap("ut-skip-partial") > 0);
}

static void test_oracle_catches_skipped_ipi(void **state)
{
	(void)state;
	assert_true(page_unmap("ut-bad-ipi") > 0);
}

/* A seeded random workload: the correct policy never loses a flush and
 * behaves exactly as the built-in profile it re-implements (v6.0). */
static void test_good_policy_random_workload(void **state)
{
	const struct wl_params p = { .nr_cpus = 6, .nr_mms = 3, .nr_pages = 32, .ops = 8000,
				     .seed = 7 };
	static struct wl_result good, v60;

	(void)state;
	assert_int_equal(wl_run("ut-good", &p, &good, NULL, NULL), 0);
	assert_int_equal(wl_run("v6.0", &p, &v60, NULL, NULL), 0);
	assert_int_equal(good.violations, 0);
	assert_int_equal(good.warns, 0);
	assert_memory_equal(good.cpu_stats, v60.cpu_stats, sizeof(good.cpu_stats));
}

static void test_register_errors(void **state)
{
	const struct tlbgen_policy_ops ops = { .sz = sizeof(ops), .flush_decide = decide_good };
	const struct tlbgen_policy_ops bad_sz = { .sz = 1, .flush_decide = decide_good };
	tlbgen_print_fn_t old = tlbgen_set_print(NULL);	/* the library lists valid names */

	(void)state;
	assert_int_equal(tlbgen_policy_register("ut-good", "v5.17", NULL, &ops), -EEXIST);
	assert_int_equal(tlbgen_policy_register("v6.0", "v5.17", NULL, &ops), -EEXIST);
	assert_int_equal(tlbgen_policy_register("ut-x", "no-such-base", NULL, &ops), -ENOENT);
	assert_int_equal(tlbgen_policy_register("ut-x", "v5.17", "no_such_choice=1", &ops),
			 -ENOENT);
	assert_int_equal(tlbgen_policy_register("ut-x", "v5.17", NULL, &bad_sz), -EINVAL);
	assert_int_equal(tlbgen_policy_register(NULL, "v5.17", NULL, &ops), -EINVAL);
	assert_int_equal(tlbgen_policy_unregister("v6.0"), -EPERM);
	assert_int_equal(tlbgen_policy_unregister("ut-x"), -ENOENT);
	tlbgen_set_print(old);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_policy_batched_unmap),
		cmocka_unit_test(test_good_policy_page_unmap),
		cmocka_unit_test(test_oracle_catches_missing_gen0_guard),
		cmocka_unit_test(test_oracle_catches_skipped_partial_flush),
		cmocka_unit_test(test_oracle_catches_skipped_ipi),
		cmocka_unit_test(test_good_policy_random_workload),
		cmocka_unit_test(test_register_errors),
	};

	return cmocka_run_group_tests(tests, register_policies, unregister_policies);
}
