// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/embed/test_plugin.c - bench/driver/plugin.c, the loader behind
 * `tlbgen-bench --plugin PATH`: a plugin's tlbgen_bench_plugin_init()
 * registers its policy, the name becomes usable as a profile and runs the
 * plugin's code; failures are reported as negative errnos.
 * argv[1]: path of examples' port_patch_plugin.so.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <tlbgen/tlbgen.h>

int bench_plugin_load(const char *path);

static const char *plugin_path;

static void test_load_registers_policy(void **state)
{
	const char *names[128];
	int n, found = 0;

	(void)state;
	assert_int_equal(bench_plugin_load(plugin_path), 0);
	n = tlbgen_profile_names(names, 128);
	assert_true(n > 0 && n <= 128);
	for (int i = 0; i < n; i++)
		found += !strcmp(names[i], "port-8f1d56f64f8d");
	assert_int_equal(found, 1);
}

static void test_policy_usable_by_name(void **state)
{
	TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = 3, .profile = "port-8f1d56f64f8d");
	struct tlbgen_system *sys;
	struct tlbgen_mm *mm;
	uint64_t st[TLBGEN_STAT_NR];
	char desc[2048];	/* every choice, then user_ops */

	(void)state;
	assert_int_equal(tlbgen_system__create(&o, &sys), 0);
	assert_true(tlbgen_system__describe_policy(sys, desc, sizeof(desc)) > 0);
	assert_non_null(strstr(desc, "user_ops=flush_decide"));
	assert_int_equal(tlbgen_mm__create(sys, 8, &mm), 0);
	for (unsigned int c = 0; c < 3; c++)
		assert_int_equal(tlbgen_switch_mm(sys, c, mm), 0);
	/* Generations 1 (from CPU 0) and 2 (from CPU 2) queue up on CPU 1. */
	assert_int_equal(tlbgen_flush_tlb_page(sys, 0, mm, 0), 0);
	assert_int_equal(tlbgen_flush_tlb_page(sys, 2, mm, TLBGEN_PAGE_SIZE), 0);
	assert_int_equal(tlbgen_deliver(sys, 1), 2);
	/*
	 * The first request brings CPU 1 to mm_tlb_gen 2, so the second finds
	 * new_tlb_gen <= local_tlb_gen. Base v5.17 has no early return: only
	 * the plugin's decision (aa44284960) counts an early skip here.
	 */
	assert_int_equal(tlbgen_stats__cpu(sys, 1, st, TLBGEN_STAT_NR), TLBGEN_STAT_NR);
	assert_int_equal(st[TLBGEN_STAT_FULL_FLUSH], 1);
	assert_int_equal(st[TLBGEN_STAT_EARLY_SKIP], 1);
	assert_true(tlbgen_run_until_idle(sys) >= 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

static void test_second_load_fails_cleanly(void **state)
{
	tlbgen_print_fn_t old = tlbgen_set_print(NULL);

	(void)state;
	/* Same name again: the plugin's init returns -EEXIST, the load fails. */
	assert_int_equal(bench_plugin_load(plugin_path), -EEXIST);
	tlbgen_set_print(old);
}

static void test_bad_paths(void **state)
{
	(void)state;
	assert_int_equal(bench_plugin_load("/nonexistent/plugin.so"), -ENOENT);
	assert_int_equal(bench_plugin_load(""), -EINVAL);
	assert_int_equal(bench_plugin_load(NULL), -EINVAL);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_load_registers_policy),
		cmocka_unit_test(test_policy_usable_by_name),
		cmocka_unit_test(test_second_load_fails_cleanly),
		cmocka_unit_test(test_bad_paths),
	};

	if (argc < 2) {
		fprintf(stderr, "usage: test_plugin PLUGIN.so\n");
		return 2;
	}
	plugin_path = argv[1];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
