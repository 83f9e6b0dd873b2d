// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/virtual/test_tso.c - the memory-model explorer (harness/tso/tso_explore.c)
 * on the switch_mm_irqs_off() / flush_tlb_mm_range() race:
 *  - 83b0177a6c48 (CVE-2025-40174): latest without its smp_mb() fails under
 *    tso and is clean under sc, exhaustively for the same bound;
 *  - fea4e317f9e7: latest without it fails under sc and tso;
 *  - latest is clean under tso, the bound exhausted;
 *  - v6.14 fails under tso from the random search, minimised, replayable,
 *    the same for the same seed;
 * and the API's refusals.
 */
#include <stdlib.h>

#include "tlbgen-test.h"
#include "tso_explore.h"

/* One bound for both models: what separates them is the store buffer. */
#define BOUND	3

static struct txresult *exhaustive(const char *profile, const char *choices,
				   enum tlbgen_memory_model model, unsigned int bound)
{
	struct txcfg cfg = { .profile = profile, .choices = choices, .model = model, .seed = 1 };
	struct txresult *res = calloc(1, sizeof(*res));

	assert_non_null(res);
	assert_int_equal(tx_exhaustive(&cfg, bound, res), 0);
	assert_true(res->executions > 0);
	return res;
}

/* The failing deviations replay to a failure; minimised, they still do. */
static void check_replays(const char *profile, const char *choices,
			  enum tlbgen_memory_model model, struct txresult *res)
{
	struct txcfg cfg = { .profile = profile, .choices = choices, .model = model, .seed = 1 };
	struct txresult again;
	size_t n;

	assert_int_equal(tx_replay(&cfg, res->devs, res->ndevs, &again), 0);
	assert_true(again.failed);
	n = tx_minimise(&cfg, res->devs, res->ndevs);
	assert_true(n >= 1 && n <= res->ndevs);
	assert_int_equal(tx_replay(&cfg, res->devs, n, &again), 0);
	assert_true(again.failed);
	assert_non_null(strstr(again.msg, "stale TLB"));
}

static void test_cve_2025_40174_window(void **state)
{
	const char *c = "switch_mm_barrier=off";
	struct txresult *tso = exhaustive("latest", c, TLBGEN_MEMORY_TSO, BOUND);
	struct txresult *sc = exhaustive("latest", c, TLBGEN_MEMORY_SC, BOUND);

	(void)state;
	assert_true(tso->failed);
	check_replays("latest", c, TLBGEN_MEMORY_TSO, tso);
	/* Without a store buffer the missing barrier is harmless. */
	assert_false(sc->failed);
	assert_true(sc->exhausted);
	free(tso);
	free(sc);
}

static void test_fea4e317f9e7_window(void **state)
{
	static const char *const reverts[] = { "loaded_mm_switching=off", "switching_write=late" };

	(void)state;
	for (unsigned int i = 0; i < 2; i++) {
		struct txresult *sc = exhaustive("latest", reverts[i], TLBGEN_MEMORY_SC, BOUND);
		struct txresult *tso = exhaustive("latest", reverts[i], TLBGEN_MEMORY_TSO, BOUND);

		assert_true(sc->failed);
		assert_true(tso->failed);
		check_replays("latest", reverts[i], TLBGEN_MEMORY_SC, sc);
		free(sc);
		free(tso);
	}
}

static void test_latest_exhausted_clean(void **state)
{
	struct txresult *tso = exhaustive("latest", NULL, TLBGEN_MEMORY_TSO, BOUND);
	struct txresult *sc = exhaustive("latest", NULL, TLBGEN_MEMORY_SC, BOUND);

	(void)state;
	assert_false(tso->failed);
	assert_true(tso->exhausted);
	assert_true(tso->executions > 1000);
	assert_false(sc->failed);
	assert_true(sc->exhausted);
	/* The store buffer's drains are choices too: more executions. */
	assert_true(tso->executions > sc->executions);
	free(tso);
	free(sc);
}

/* The random search finds v6.14's window; same seed, same schedule; the
 * printed trace is short and names both missing fixes. */
static void test_v614_random(void **state)
{
	struct txcfg cfg = { .profile = "v6.14", .model = TLBGEN_MEMORY_TSO };
	struct txresult *a = calloc(2, sizeof(*a));
	char *text = NULL;
	size_t len = 0, n;
	unsigned int steps;
	FILE *f;

	(void)state;
	assert_non_null(a);
	assert_int_equal(tx_random(&cfg, 1, 2000, 0, &a[0]), 0);
	assert_int_equal(tx_random(&cfg, 1, 2000, 0, &a[1]), 0);
	assert_true(a[0].failed);
	assert_int_equal(a[0].seed, a[1].seed);
	assert_int_equal(a[0].ndevs, a[1].ndevs);
	assert_memory_equal(a[0].devs, a[1].devs, a[0].ndevs * sizeof(a[0].devs[0]));
	cfg.seed = a[0].seed;
	n = tx_minimise(&cfg, a[0].devs, a[0].ndevs);
	assert_true(n <= 3);
	f = open_memstream(&text, &len);
	assert_non_null(f);
	steps = tx_print_trace(f, &cfg, a[0].devs, n);
	fclose(f);
	assert_true(steps > 0 && steps <= 12);
	assert_non_null(strstr(text, "83b0177a6c48"));
	assert_non_null(strstr(text, "fea4e317f9e7"));
	assert_non_null(strstr(text, "sends CPU1 no IPI"));
	free(text);
	free(a);
}

/* ---- the API --------------------------------------------------------------------------------- */

static unsigned int first_option(void *ctx, unsigned int running,
				 const struct tlbgen_vt_option *opts, unsigned int n)
{
	(void)ctx;
	(void)running;
	(void)opts;
	(void)n;
	return 0;
}

struct churn {
	struct tlbgen_mm *mm;
};

static int churn(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct churn *c = arg;
	int err = 0;

	for (unsigned int i = 0; !err && i < 40; i++) {
		err = tlbgen_switch_mm(sys, cpu, i % 3 ? c->mm : NULL);
		err = err ?: tlbgen_pte_change(sys, cpu, c->mm, PG(cpu));
		err = err ?: tlbgen_flush_tlb_page(sys, cpu, c->mm, PG(cpu));
		if (!err && i % 3)
			err = tlbgen_access(sys, cpu, PG(cpu)) < 0;
		err = err ?: tlbgen_enter_lazy_tlb(sys, cpu);
	}
	return err;
}

/* The clock scheduler under tso: buffers commit by time; latest stays clean. */
static void test_clock_tso_quiet(void **state)
{
	TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = 4, .mode = TLBGEN_MODE_VIRTUAL,
		    .profile = "latest", .seed = 5);
	struct tlbgen_system *sys;
	struct churn c;
	int ret;

	(void)state;
	assert_int_equal(tlbgen_system__create(&o, &sys), 0);
	assert_int_equal(tlbgen_vtime__set_memory_model(sys, TLBGEN_MEMORY_TSO), 0);
	c.mm = t_mm(sys, 8);
	for (unsigned int i = 0; i < 4; i++)
		assert_int_equal(tlbgen_cpu__spawn(sys, i, churn, &c), 0);
	assert_int_equal(tlbgen_vtime__run(sys, UINT64_MAX), 0);
	for (unsigned int i = 0; i < 4; i++) {
		assert_int_equal(tlbgen_cpu__join(sys, i, &ret), 0);
		assert_int_equal(ret, 0);
	}
	assert_int_equal(tlbgen_oracle__violations(sys), 0);
	assert_int_equal(tlbgen_system__warns(sys), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

static void test_api_errors(void **state)
{
	TLBGEN_OPTS(tlbgen_system_opts, so, .nr_cpus = 2, .mode = TLBGEN_MODE_STEPPED);
	TLBGEN_OPTS(tlbgen_system_opts, vo, .nr_cpus = 2, .mode = TLBGEN_MODE_VIRTUAL);
	struct tlbgen_vt_chooser ch = { .sz = sizeof(ch), .choose = first_option };
	struct tlbgen_system *st, *v;
	struct txdev d[4];
	size_t n;

	(void)state;
	assert_int_equal(tlbgen_system__create(&so, &st), 0);
	assert_int_equal(tlbgen_system__create(&vo, &v), 0);
	assert_int_equal(tlbgen_vtime__set_memory_model(NULL, TLBGEN_MEMORY_TSO), -EINVAL);
	assert_int_equal(tlbgen_vtime__set_memory_model(st, TLBGEN_MEMORY_TSO), -EINVAL);
	assert_int_equal(tlbgen_vtime__set_memory_model(v, (enum tlbgen_memory_model)7), -EINVAL);
	assert_int_equal(tlbgen_vtime__set_memory_model(v, TLBGEN_MEMORY_TSO), 0);
	assert_int_equal(tlbgen_vtime__set_chooser(st, &ch), -EINVAL);
	ch.sz = 1;
	assert_int_equal(tlbgen_vtime__set_chooser(v, &ch), -EINVAL);
	ch.sz = sizeof(ch);
	ch.choose = NULL;
	assert_int_equal(tlbgen_vtime__set_chooser(v, &ch), -EINVAL);
	ch.choose = first_option;
	assert_int_equal(tlbgen_vtime__set_chooser(v, &ch), 0);
	assert_int_equal(tlbgen_vtime__set_chooser(v, NULL), 0);
	assert_int_equal(tx_parse_devs("3:1,10:2", d, 4, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(d[1].point, 10);
	assert_int_equal(d[1].pick, 2);
	assert_int_equal(tx_parse_devs("3:0", d, 4, &n), -EINVAL);
	assert_int_equal(tx_parse_devs("3-1", d, 4, &n), -EINVAL);
	assert_int_equal(tx_parse_devs("1:1,2:1,3:1,4:1,5:1", d, 4, &n), -EINVAL);
	assert_int_equal(tlbgen_system__destroy(v), 0);
	assert_int_equal(tlbgen_system__destroy(st), 0);
}

/* argv[1]: a cmocka test-name filter (meson runs each window as its own test). */
int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cve_2025_40174_window),
		cmocka_unit_test(test_fea4e317f9e7_window),
		cmocka_unit_test(test_latest_exhausted_clean),
		cmocka_unit_test(test_v614_random),
		cmocka_unit_test(test_clock_tso_quiet),
		cmocka_unit_test(test_api_errors),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
