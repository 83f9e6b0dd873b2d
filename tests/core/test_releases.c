// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/core/test_releases.c - each built-in profile from v7.0 on is its
 * predecessor plus exactly the choices its release's commits changed, each
 * new value credited to that commit; `latest` is the newest. The expected
 * commits are the ones read in the posted patches and merge mails.
 */
#include "tlbgen-test.h"

#define MAX_NAMES 128

struct change {
	const char *choice, *value, *commit;
};

static const struct release {
	const char *profile, *predecessor;
	struct change changes[6];	/* up to the first NULL choice */
} releases[] = {
	{ "v7.0", "v6.19", { { "arm64_repeat_tlbi_sync", "at-dsb", "a8f78680ee6b" } } },
	{ "v7.1", "v7.0", { { "invlpgb_needs_pcid", "yes", "44126343d58c" } } },
	/* cfd391e74134 only adds CPUs to the erratum list: no choice. */
	{ "v7.2", "v7.1", { { "tlbi_cmdline", "yes", "abe7c8b09bd7" } } },
	{ "v7.3-rc", "v7.2", {
		{ "smp_cfd_mask", "task-local", "9a560af15fd3" },
		{ "smp_wait_preempt", "on", "8df8a6028309" },
		{ "flush_tlb_info", "stack", "ed15468787dd" },
		{ "flush_multi_preempt", "on", "a5a162fe1ae1" },
		{ "riscv_umc_asid", "on", "af842aea58d8" },
		{ "riscv_umc_svinval", "on", "905be00304bd" } } },
	{ "latest", "v7.3-rc", { { NULL } } },
};

static struct tlbgen_system *sys_for(const char *profile)
{
	return t_sys_mode(2, TLBGEN_MODE_STEPPED, profile, NULL);
}

static const struct change *expected(const struct release *r, const char *choice)
{
	for (const struct change *c = r->changes; c < r->changes + 6 && c->choice; c++)
		if (!strcmp(c->choice, choice))
			return c;
	return NULL;
}

static void test_each_release(void **state)
{
	const char *choices[MAX_NAMES];
	int nc = tlbgen_choice_names(choices, MAX_NAMES);

	(void)state;
	assert_true(nc > 0 && nc <= MAX_NAMES);
	for (size_t i = 0; i < sizeof(releases) / sizeof(releases[0]); i++) {
		const struct release *r = &releases[i];
		struct tlbgen_system *now = sys_for(r->profile), *before = sys_for(r->predecessor);
		const char *base = NULL;
		int changed = 0, want = 0;

		assert_int_equal(tlbgen_profile_origin(r->profile, &base, NULL), 0);
		assert_non_null(base);
		assert_string_equal(base, r->predecessor);

		while (want < 6 && r->changes[want].choice)
			want++;
		for (int c = 0; c < nc; c++) {
			const struct change *e = expected(r, choices[c]);
			char v[64], p[64];
			const char *commit = NULL;

			snprintf(v, sizeof(v), "%s", tlbgen_system__get_choice(now, choices[c]));
			snprintf(p, sizeof(p), "%s", tlbgen_system__get_choice(before, choices[c]));
			if (!e) {
				/* Everything else is the predecessor's. */
				if (strcmp(v, p))
					fail_msg("%s: %s=%s, %s has %s", r->profile, choices[c], v,
						 r->predecessor, p);
				continue;
			}
			assert_string_equal(v, e->value);
			assert_string_not_equal(p, e->value);
			assert_int_equal(tlbgen_choice_value_origin(choices[c], v, &commit, NULL), 0);
			assert_string_equal(commit, e->commit);
			changed++;
		}
		assert_int_equal(changed, want);
		assert_int_equal(tlbgen_system__destroy(now), 0);
		assert_int_equal(tlbgen_system__destroy(before), 0);
	}
}

/* The list names every release in order, `latest` last. */
static void test_order(void **state)
{
	const char *names[MAX_NAMES];
	int n = tlbgen_profile_names(names, MAX_NAMES);
	int at[sizeof(releases) / sizeof(releases[0])];

	(void)state;
	assert_true(n > 0 && n <= MAX_NAMES);
	for (size_t i = 0; i < sizeof(releases) / sizeof(releases[0]); i++) {
		at[i] = -1;
		for (int k = 0; k < n; k++)
			if (!strcmp(names[k], releases[i].profile))
				at[i] = k;
		assert_true(at[i] >= 0);
		assert_true(i == 0 || at[i] == at[i - 1] + 1);
	}
	assert_string_equal(names[n - 1], "latest");
}

static void test_origin_errors(void **state)
{
	const char *base = "untouched";

	(void)state;
	assert_int_equal(tlbgen_profile_origin(NULL, &base, NULL), -EINVAL);
	assert_int_equal(tlbgen_profile_origin("v7.9", &base, NULL), -ENOENT);
	assert_string_equal(base, "untouched");
	assert_int_equal(tlbgen_profile_origin("v5.17", &base, NULL), 0);
	assert_null(base);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each_release),
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_origin_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
