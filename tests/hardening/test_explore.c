// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/hardening/test_explore.c - the schedule explorer in CI.
 *
 *   test_explore PROFILE   N seeds x 200 ops under a correct profile: no
 *                          oracle violation, no kernel WARN, local <= mm,
 *                          partial flushes only at local + 1 == mm.
 *   test_explore --broken  the known-broken choices must be found within a
 *                          bounded number of seeds, and minimised.
 * TLBGEN_EXPLORE_SEEDS overrides N (the sanitizer builds run fewer).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tlbgen/tlbgen.h>

#include "explore_engine.h"
#include "tlbgen-test.h"

#define OPS_PER_SEED	200
/* 3 correct profiles x 34000 seeds x 200 ops > 10^5 seeds x 200 ops. */
#define DEFAULT_SEEDS	34000
#define BROKEN_BOUND	500	/* seeds within which a broken choice must fail */

static const char *g_profile;

static unsigned long nr_seeds(void)
{
	const char *e = getenv("TLBGEN_EXPLORE_SEEDS");

	return e && *e ? strtoul(e, NULL, 0) : DEFAULT_SEEDS;
}

static void test_correct_profile(void **state)
{
	struct xop ops[OPS_PER_SEED];
	struct xstats st = { 0 };
	unsigned long n = nr_seeds(), bad = 0;

	(void)state;
	for (uint64_t s = 1; s <= n; s++) {
		struct xcfg cfg;
		struct xfail f;

		xpl_cfg_from_seed(&cfg, g_profile, NULL, s);
		if (xpl_gen_run(&cfg, s, ops, OPS_PER_SEED, &f, &st) == XF_NONE)
			continue;
		bad++;
		size_t m = xpl_minimise(&cfg, ops, OPS_PER_SEED, f.kind);

		print_error("profile %s seed %llu: %s at op %zu: %s\nminimised (%zu ops):\n",
			    g_profile, (unsigned long long)s, xpl_kind_name(f.kind), f.op, f.msg, m);
		xpl_print_trace(stderr, &cfg, ops, m);
		if (bad >= 3)
			break;
	}
	print_message("explore %s: %llu seeds x %d ops = %llu ops, %llu -EBUSY checks, "
		      "%llu partial-flush checks, %lu failing seeds\n", g_profile,
		      (unsigned long long)st.runs, OPS_PER_SEED, (unsigned long long)st.ops,
		      (unsigned long long)st.ebusy, (unsigned long long)st.partial_checks, bad);
	assert_int_equal(bad, 0);
	assert_int_equal(st.runs, n);
	/* The explorer must actually reach the paths it claims to check. */
	assert_true(st.ebusy > 0);
	assert_true(st.partial_checks > 0);
}

/* Generating and replaying the same seed gives the same verdict: a failing
 * seed can be replayed and minimised. */
static void test_replay_deterministic(void **state)
{
	struct xop ops[OPS_PER_SEED];

	(void)state;
	for (uint64_t s = 1; s <= 50; s++) {
		struct xcfg cfg;
		struct xfail f1, f2;
		struct xstats a = { 0 }, b = { 0 };

		xpl_cfg_from_seed(&cfg, "v6.0-aa44284960", NULL, s);
		enum xfail_kind k1 = xpl_gen_run(&cfg, s, ops, OPS_PER_SEED, &f1, &a);
		enum xfail_kind k2 = xpl_run(&cfg, ops, OPS_PER_SEED, &f2, &b);

		assert_int_equal(k1, k2);
		assert_int_equal(f1.op, f2.op);
		assert_string_equal(f1.msg, f2.msg);
		assert_int_equal(a.ebusy, b.ebusy);
		assert_int_equal(a.partial_checks, b.partial_checks);
	}
}

/*
 * aa44284960 as first merged: "if (f->new_tlb_gen <= local_tlb_gen) return"
 * also returns for batched flushes (new_tlb_gen == TLB_GENERATION_INVALID),
 * so arch_tlbbatch_flush() leaves stale entries; 8f1d56f64f8d added the
 * guard. The explorer must find it and reduce it to a short trace.
 */
static uint64_t find_broken_within(const char *profile, const char *choices,
				   enum xfail_kind want, size_t max_len, uint64_t bound)
{
	struct xop ops[OPS_PER_SEED];

	for (uint64_t s = 1; s <= bound; s++) {
		struct xcfg cfg;
		struct xfail f;
		enum xfail_kind k;

		xpl_cfg_from_seed(&cfg, profile, choices, s);
		k = xpl_gen_run(&cfg, s, ops, OPS_PER_SEED, &f, NULL);
		if (k == XF_NONE)
			continue;
		if (k != want)
			fail_msg("%s: seed %llu failed with %s (%s), expected %s", profile,
				 (unsigned long long)s, xpl_kind_name(k), f.msg, xpl_kind_name(want));
		size_t m = xpl_minimise(&cfg, ops, OPS_PER_SEED, k);

		print_message("%s%s%s: seed %llu fails (%s at op %zu); minimised to %zu ops:\n",
			      profile, choices ? "+" : "", choices ? choices : "",
			      (unsigned long long)s, xpl_kind_name(k), f.op, m);
		xpl_print_trace(stdout, &cfg, ops, m);
		/* The minimised trace still fails, and is short: map, fill,
		 * change, batch add, batch flush. */
		assert_int_equal(xpl_run(&cfg, ops, m, &f, NULL), want);
		assert_true(m <= max_len);
		/* ...and every op in it is needed. */
		for (size_t i = 0; i < m; i++) {
			struct xop less[OPS_PER_SEED];

			memcpy(less, ops, i * sizeof(*ops));
			memcpy(less + i, ops + i + 1, (m - i - 1) * sizeof(*ops));
			assert_int_not_equal(xpl_run(&cfg, less, m - 1, &f, NULL), want);
		}
		return s;
	}
	fail_msg("%s: no violation within %llu seeds", profile, (unsigned long long)bound);
	return 0;
}

static void find_broken(const char *profile, const char *choices, enum xfail_kind want,
			size_t max_len)
{
	find_broken_within(profile, choices, want, max_len, BROKEN_BOUND);
}

/* Seeds 1..last pass under profile + choices. */
static void no_failure_until(const char *profile, const char *choices, uint64_t last)
{
	struct xop ops[OPS_PER_SEED];

	for (uint64_t s = 1; s <= last; s++) {
		struct xcfg cfg;
		struct xfail f;

		xpl_cfg_from_seed(&cfg, profile, choices, s);
		if (xpl_gen_run(&cfg, s, ops, OPS_PER_SEED, &f, NULL) != XF_NONE)
			fail_msg("%s+%s: seed %llu: %s: %s", profile, choices, (unsigned long long)s,
				 xpl_kind_name(f.kind), f.msg);
	}
}

/*
 * arm64's arch_flush_tlb_batched_pending() was a dsb(ish) until
 * 4b634918384c (v6.16): the explorer finds the stale entry under v6.14 and
 * nothing at the same seeds under v6.16 and latest.
 */
static void test_broken_arm64_batched_pending(void **state)
{
	uint64_t s;

	(void)state;
	s = find_broken_within("v6.14", "batch_arch=arm64", XF_ORACLE, 8, 4 * BROKEN_BOUND);
	no_failure_until("v6.16", "batch_arch=arm64", s);
	no_failure_until("latest", "batch_arch=arm64", s);
}

/*
 * A task preempted in csd_lock_wait() (smp_wait_preempt=on, latest) while
 * another task on its CPU flushes: with the wait mask per CPU (before
 * 9a560af15fd3) or flush_tlb_info per CPU (before ed15468787dd) the first
 * flush returns before its targets flushed, or they flush the other's
 * range; latest (task-local, stack) passes the same seeds.
 */
static void test_broken_preempted_waiter(void **state)
{
	uint64_t s;

	(void)state;
	s = find_broken_within("latest", "smp_cfd_mask=per-cpu,flush_tlb_info=per-cpu", XF_ORACLE,
			       10, 4 * BROKEN_BOUND);
	no_failure_until("latest", NULL, s);
	s = find_broken_within("latest", "smp_cfd_mask=per-cpu", XF_ORACLE, 10, 8 * BROKEN_BOUND);
	no_failure_until("latest", NULL, s);
	s = find_broken_within("latest", "flush_tlb_info=per-cpu", XF_ORACLE, 10, 8 * BROKEN_BOUND);
	no_failure_until("latest", NULL, s);
}

static void test_broken_aa44284960(void **state)
{
	(void)state;
	find_broken("v6.0-aa44284960", NULL, XF_ORACLE, 8);
	/* The same choice on top of the latest profile. */
	find_broken("latest", "early_return=unguarded", XF_ORACLE, 8);
}

/*
 * The other assertions must be able to fail too. Two deliberately wrong
 * flush decisions, registered as user profiles:
 *  - "always partial": a ranged request is flushed by range even when other
 *    generations are outstanding (new != local + 1), which the kernel only
 *    allows at new == local + 1 == mm;
 *  - "ahead": the CPU claims a generation the mm has not reached
 *    (WARN_ON_ONCE(local_tlb_gen > mm_tlb_gen) territory).
 */
static enum tlbgen_flush_verdict always_partial(const struct tlbgen_flush_req *req,
						struct tlbgen_gen_reader *r,
						uint64_t *new_local, void *priv)
{
	uint64_t mm = tlbgen_read_mm_tlb_gen(r);

	(void)priv;
	if (req->local_tlb_gen == mm)
		return TLBGEN_VERDICT_UP_TO_DATE;
	*new_local = mm;
	return req->end == TLBGEN_TLB_FLUSH_ALL ? TLBGEN_VERDICT_FULL : TLBGEN_VERDICT_PARTIAL;
}

static enum tlbgen_flush_verdict ahead(const struct tlbgen_flush_req *req,
				       struct tlbgen_gen_reader *r, uint64_t *new_local,
				       void *priv)
{
	(void)req;
	(void)priv;
	*new_local = tlbgen_read_mm_tlb_gen(r) + 1;
	return TLBGEN_VERDICT_FULL;
}

static void test_other_assertions_fire(void **state)
{
	TLBGEN_OPTS(tlbgen_policy_ops, p1, .flush_decide = always_partial);
	TLBGEN_OPTS(tlbgen_policy_ops, p2, .flush_decide = ahead);

	(void)state;
	assert_int_equal(tlbgen_policy_register("hardening-always-partial", "latest", NULL, &p1), 0);
	assert_int_equal(tlbgen_policy_register("hardening-ahead", "latest", NULL, &p2), 0);
	find_broken("hardening-always-partial", NULL, XF_PARTIAL, 12);
	find_broken("hardening-ahead", NULL, XF_GEN, 4);
	assert_int_equal(tlbgen_policy_unregister("hardening-always-partial"), 0);
	assert_int_equal(tlbgen_policy_unregister("hardening-ahead"), 0);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--broken")) {
		const struct CMUnitTest t[] = {
			cmocka_unit_test(test_replay_deterministic),
			cmocka_unit_test(test_broken_aa44284960),
			cmocka_unit_test(test_other_assertions_fire),
			cmocka_unit_test(test_broken_arm64_batched_pending),
			cmocka_unit_test(test_broken_preempted_waiter),
		};
		return cmocka_run_group_tests_name("explore-broken", t, NULL, NULL);
	}
	g_profile = argc > 1 ? argv[1] : "latest";
	const struct CMUnitTest t[] = { cmocka_unit_test(test_correct_profile) };
	return cmocka_run_group_tests_name("explore", t, NULL, NULL);
}
