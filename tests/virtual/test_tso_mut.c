// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/virtual/test_tso_mut.c - barrier mutation under x86-TSO: every
 * smp_mb() site the x86 code reaches is dropped in turn, and some scenario
 * of the memory-model explorer must then fail under tso (the barrier is
 * needed); every smp_rmb() and smp_wmb() site is dropped in turn, and no
 * scenario may fail (on x86 they are compiler barriers only). The sites
 * come from the library's registry, so a new barrier is tested without
 * editing this file.
 */
#include <stdlib.h>

#include "tlbgen-test.h"
#include "tso_explore.h"

#define MAX_SCEN	16
#define MAX_SITES	32

static const char *names[MAX_SCEN];
static unsigned int nr_names;

/* The mutation runs: bound 2 for 2-CPU scenarios, 1 beyond (a test's
 * budget; the unmutated search runs at each scenario's own bound). */
static unsigned int bound_of(const char *scen)
{
	unsigned int b = tx_default_bound(scen);

	if (!strcmp(scen, "csd") || !strcmp(scen, "kernel_range") || !strcmp(scen, "invlpgb") ||
	    !strcmp(scen, "trim"))
		return 1;
	return b < 2 ? b : 2;
}

/* The first scenario that fails under tso, or NULL. */
static const char *failing_scenario(void)
{
	for (unsigned int i = 0; i < nr_names; i++) {
		struct txcfg cfg = { .scenario = names[i], .profile = "latest",
				     .model = TLBGEN_MEMORY_TSO, .seed = 1 };
		struct txresult *res = calloc(1, sizeof(*res));
		bool failed;

		assert_non_null(res);
		assert_int_equal(tx_exhaustive(&cfg, bound_of(names[i]), res), 0);
		failed = res->failed;
		assert_true(failed || res->exhausted);
		free(res);
		if (failed)
			return names[i];
	}
	return NULL;
}

static void test_barrier_mutation(void **state)
{
	struct tlbgen_barrier_info sites[MAX_SITES];
	unsigned int full = 0, light = 0;
	int n;

	(void)state;
	nr_names = (unsigned int)tx_scenario_names(names, MAX_SCEN);
	assert_true(nr_names >= 7 && nr_names <= MAX_SCEN);
	/* Unmutated: every scenario clean (and every site they reach registered). */
	assert_null(failing_scenario());
	n = tlbgen_barrier_sites(sites, MAX_SITES);
	assert_true(n > 0 && n <= MAX_SITES);
	for (int i = 0; i < n; i++) {
		const char *bad;

		assert_false(sites[i].dropped);
		assert_int_equal(tlbgen_barrier_drop(sites[i].site, true), 0);
		bad = failing_scenario();
		assert_int_equal(tlbgen_barrier_drop(sites[i].site, false), 0);
		if (sites[i].kind == TLBGEN_BARRIER_MB) {
			print_message("smp_mb() at %s dropped: %s fails\n", sites[i].site,
				      bad ? bad : "NOTHING");
			assert_non_null(bad);
			full++;
		} else {
			print_message("smp_%cmb() at %s dropped: %s\n", sites[i].kind ==
				      TLBGEN_BARRIER_RMB ? 'r' : 'w', sites[i].site,
				      bad ? bad : "nothing fails");
			assert_null(bad);
			light++;
		}
	}
	/* switch_mm_irqs_off()'s two smp_mb()s (lazy return, 83b0177a6c48), the
	 * smp_rmb() of should_flush_tlb(), the smp_wmb() of csd_lock(). */
	assert_true(full >= 2);
	assert_true(light >= 2);
	assert_int_equal(tlbgen_barrier_drop("no-such.c:1", true), -ENOENT);
	assert_int_equal(tlbgen_barrier_drop(NULL, true), -EINVAL);
	assert_int_equal(tlbgen_barrier_sites(NULL, 1), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_barrier_mutation),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
