// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Bad input for the observers and the policy registry of the core headers
 * (oracle.h, stats.h, profile.h): NULL, a CPU out of range, a lazy CPU,
 * bad names and values. Each call must return a negative errno and leave
 * the observable state exactly as it was. Unknown names return -ENOENT and
 * the message lists the valid ones.
 */
#include "bad-input-fx.h"

/* ---- oracle.h --------------------------------------------------------------------- */

static void test_oracle(void **state)
{
	struct fx *f = *state;
	TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = 2, .flags = TLBGEN_SYS_NO_ORACLE);
	struct tlbgen_system *blind = t_sys_opts(&o);
	struct tlbgen_mm *bmm = t_mm(blind, 8);
	struct tlbgen_violation v;
	char buf[64];

	memset(&v, 0, sizeof(v));
	BAD(f, tlbgen_access(NULL, 1, 0), -EINVAL);
	BAD(f, tlbgen_access(f->sys, OOR, 0), -EINVAL);
	BAD(f, tlbgen_access(f->sys, 1, PG(NPAGES)), -EINVAL);
	BAD(f, tlbgen_access(f->sys, 3, 0), -ESRCH);	/* init_mm */
	BAD(f, tlbgen_oracle__violations(NULL), -EINVAL);
	BAD(f, tlbgen_oracle__violation(NULL, 0, &v), -EINVAL);
	BAD(f, tlbgen_oracle__violation(f->sys, 0, NULL), -EINVAL);
	BAD(f, tlbgen_oracle__violation(f->sys, 0, &v), -ENOENT);
	BAD(f, tlbgen_oracle__violation(f->sys, 1000, &v), -ENOENT);
	BAD(f, tlbgen_oracle__format(NULL, buf, sizeof(buf)), -EINVAL);
	BAD(f, tlbgen_oracle__format(&v, NULL, 10), -EINVAL);
	BAD(f, tlbgen_oracle__audit_cpu(NULL, 0), -EINVAL);
	BAD(f, tlbgen_oracle__audit_cpu(f->sys, OOR), -EINVAL);
	BAD(f, tlbgen_oracle__reset(NULL), -EINVAL);

	assert_int_equal(tlbgen_switch_mm(blind, 0, bmm), 0);
	assert_int_equal(tlbgen_access(blind, 0, 0), -EOPNOTSUPP);
	assert_int_equal(tlbgen_oracle__audit_cpu(blind, 0), -EOPNOTSUPP);
	assert_int_equal(tlbgen_enter_lazy_tlb(blind, 0), 0);
	assert_int_equal(tlbgen_system__destroy(blind), 0);
}

/* A lazy CPU runs no user mm: access is -ESRCH and changes nothing. */
static void test_oracle_lazy(void **state)
{
	struct fx *f = *state;

	assert_int_equal(tlbgen_enter_lazy_tlb(f->sys, 2), 0);
	BAD(f, tlbgen_access(f->sys, 2, PG(1)), -ESRCH);
	assert_int_equal(tlbgen_switch_mm(f->sys, 2, f->mm), 0);
}

/* ---- stats.h ---------------------------------------------------------------------- */

static void test_stats(void **state)
{
	struct fx *f = *state;
	uint64_t v[TLBGEN_STAT_NR];

	assert_null(tlbgen_stat_name(TLBGEN_STAT_NR));
	assert_null(tlbgen_stat_name((enum tlbgen_stat)-1));
	assert_string_equal(tlbgen_stat_name(TLBGEN_STAT_IPI_SENT), "ipi_sent");
	BAD(f, tlbgen_stats__cpu(NULL, 0, v, TLBGEN_STAT_NR), -EINVAL);
	BAD(f, tlbgen_stats__cpu(f->sys, OOR, v, TLBGEN_STAT_NR), -EINVAL);
	BAD(f, tlbgen_stats__cpu(f->sys, 0, NULL, 3), -EINVAL);
	BAD(f, tlbgen_stats__system(NULL, v, TLBGEN_STAT_NR), -EINVAL);
	BAD(f, tlbgen_stats__system(f->sys, NULL, 3), -EINVAL);
	BAD(f, tlbgen_stats__mm(NULL, v, TLBGEN_STAT_NR), -EINVAL);
	BAD(f, tlbgen_stats__mm(f->mm, NULL, 3), -EINVAL);
	BAD(f, tlbgen_stats__reset(NULL), -EINVAL);
	/* Zero-length reads are fine and copy nothing. */
	BAD(f, tlbgen_stats__cpu(f->sys, 0, NULL, 0), 0);
	BAD(f, tlbgen_stats__system(f->sys, NULL, 0), 0);
	BAD(f, tlbgen_stats__mm(f->mm, NULL, 0), 0);
	/* n beyond TLBGEN_STAT_NR is clamped. */
	{
		uint64_t big[TLBGEN_STAT_NR + 4];

		big[TLBGEN_STAT_NR] = 0xdead;
		BAD(f, tlbgen_stats__system(f->sys, big, TLBGEN_STAT_NR + 4), TLBGEN_STAT_NR);
		assert_int_equal(big[TLBGEN_STAT_NR], 0xdead);
	}
}

/* ---- profile.h -------------------------------------------------------------------- */

static void test_profile_registry(void **state)
{
	struct fx *f = *state;
	TLBGEN_OPTS(tlbgen_policy_ops, ops);
	char longname[80];
	const char *names[4], *msg;
	int nchoices;

	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = 0;
	assert_int_equal(tlbgen_read_mm_tlb_gen(NULL), 0);
	assert_int_equal(tlbgen_ipi_target__cpu(NULL), -EINVAL);
	assert_false(tlbgen_ipi_target__is_lazy(NULL));
	assert_false(tlbgen_ipi_target__loaded_mm_is_target(NULL));
	assert_false(tlbgen_ipi_target__loaded_mm_is_switching(NULL));
	assert_false(tlbgen_ipi_target__flush_has_mm(NULL));
	assert_false(tlbgen_ipi_target__trim_cpumask(NULL));
	tlbgen_ipi_target__smp_rmb(NULL);

	BAD(f, tlbgen_policy_register(NULL, "latest", NULL, NULL), -EINVAL);
	BAD(f, tlbgen_policy_register("", "latest", NULL, NULL), -EINVAL);
	BAD(f, tlbgen_policy_register(longname, "latest", NULL, NULL), -EINVAL);
	BAD(f, tlbgen_policy_register("a,b", "latest", NULL, NULL), -EINVAL);
	ops.sz = 0;
	BAD(f, tlbgen_policy_register("bad-ops", "latest", NULL, &ops), -EINVAL);
	BAD(f, tlbgen_policy_register("v6.0", "latest", NULL, NULL), -EEXIST);
	t_capture_start();
	BAD(f, tlbgen_policy_register("bad-kv", "latest", "early_return", NULL), -EINVAL);
	assert_non_null(strstr(t_capture_stop(), "key=value"));

	t_capture_start();
	BAD(f, tlbgen_policy_register("bad-base", "v4.19", NULL, NULL), -ENOENT);
	msg = t_capture_stop();
	assert_non_null(strstr(msg, "v4.19"));
	assert_non_null(strstr(msg, "v6.0-aa44284960"));
	assert_non_null(strstr(msg, "latest"));

	t_capture_start();
	BAD(f, tlbgen_policy_register("bad-key", "latest", "early_retrun=guarded", NULL), -ENOENT);
	msg = t_capture_stop();
	nchoices = tlbgen_choice_names(names, 0);
	assert_true(nchoices >= 10);
	{
		const char **all = calloc((size_t)nchoices, sizeof(*all));

		assert_non_null(all);
		assert_int_equal(tlbgen_choice_names(all, (size_t)nchoices), nchoices);
		for (int i = 0; i < nchoices; i++)
			assert_non_null(strstr(msg, all[i]));
		free(all);
	}

	t_capture_start();
	BAD(f, tlbgen_policy_register("bad-val", "latest", "early_return=maybe", NULL), -ENOENT);
	msg = t_capture_stop();
	assert_non_null(strstr(msg, "maybe"));
	assert_non_null(strstr(msg, "none|unguarded|guarded"));

	/* (None of the failures registered anything: nr_profiles is in the snapshot.) */
	assert_int_equal(tlbgen_policy_register("core-bad-input", "v6.0", "early_return=unguarded",
						NULL), 0);
	BAD(f, tlbgen_policy_register("core-bad-input", "v6.0", NULL, NULL), -EEXIST);
	assert_int_equal(tlbgen_policy_unregister("core-bad-input"), 0);
	BAD(f, tlbgen_policy_unregister("core-bad-input"), -ENOENT);
	BAD(f, tlbgen_policy_unregister(NULL), -EINVAL);
	BAD(f, tlbgen_policy_unregister("latest"), -EPERM);

	BAD(f, tlbgen_profile_names(NULL, 3), -EINVAL);
	BAD(f, tlbgen_choice_names(NULL, 3), -EINVAL);
	BAD(f, tlbgen_choice_values(NULL, names, 4), -EINVAL);
	BAD(f, tlbgen_choice_values("early_return", NULL, 3), -EINVAL);
	BAD(f, tlbgen_choice_values("bogus", names, 4), -ENOENT);
	assert_int_equal(tlbgen_choice_values("early_return", names, 4), 3);
}

static void test_profile_system(void **state)
{
	struct fx *f = *state;
	char buf[16];
	const char *msg;

	BAD(f, tlbgen_system__set_profile(NULL, "v6.0"), -EINVAL);
	BAD(f, tlbgen_system__set_profile(f->sys, NULL), -EINVAL);
	t_capture_start();
	BAD(f, tlbgen_system__set_profile(f->sys, "v6.0-rc1"), -ENOENT);
	msg = t_capture_stop();
	assert_non_null(strstr(msg, "v6.0-rc1"));
	{
		const char *names[16];
		int n = tlbgen_profile_names(names, 16);

		assert_true(n >= 5);
		for (int i = 0; i < n && i < 16; i++)
			assert_non_null(strstr(msg, names[i]));
	}

	BAD(f, tlbgen_system__set_choice(NULL, "early_return", "none"), -EINVAL);
	BAD(f, tlbgen_system__set_choice(f->sys, NULL, "none"), -EINVAL);
	BAD(f, tlbgen_system__set_choice(f->sys, "early_return", NULL), -EINVAL);
	t_capture_start();
	BAD(f, tlbgen_system__set_choice(f->sys, "ipi_condition", "tlb_is_not_lazy"), -ENOENT);
	msg = t_capture_stop();
	assert_non_null(strstr(msg, "ipi_condition"));
	assert_non_null(strstr(msg, "ipi_cond "));
	assert_non_null(strstr(msg, "mm_tlb_gen_read"));
	t_capture_start();
	BAD(f, tlbgen_system__set_choice(f->sys, "mm_tlb_gen_read", "sometimes"), -ENOENT);
	msg = t_capture_stop();
	assert_non_null(strstr(msg, "always|deferred|never"));
	t_capture_start();
	BAD(f, tlbgen_system__set_choice(f->sys, "tlb_single_page_flush_ceiling", "lots"),
	    -EINVAL);
	t_capture_stop();

	/* All or nothing: the valid first pair is not applied either. */
	BAD(f, tlbgen_system__set_choices(NULL, "early_return=guarded"), -EINVAL);
	BAD(f, tlbgen_system__set_choices(f->sys, NULL), -EINVAL);
	t_capture_start();
	BAD(f, tlbgen_system__set_choices(f->sys, "early_return=guarded,bogus=1"), -ENOENT);
	t_capture_stop();
	t_capture_start();
	BAD(f, tlbgen_system__set_choices(f->sys, "early_return=guarded,mm_cpumask"), -EINVAL);
	t_capture_stop();
	assert_string_equal(tlbgen_system__get_choice(f->sys, "early_return"), "none");

	assert_null(tlbgen_system__get_choice(NULL, "early_return"));
	assert_null(tlbgen_system__get_choice(f->sys, NULL));
	assert_null(tlbgen_system__get_choice(f->sys, "bogus"));
	assert_null(tlbgen_system__profile(NULL));
	BAD(f, tlbgen_system__describe_policy(NULL, buf, sizeof(buf)), -EINVAL);
	BAD(f, tlbgen_system__describe_policy(f->sys, NULL, 10), -EINVAL);
	/* Truncation is snprintf-like: returns the length needed. */
	assert_true(tlbgen_system__describe_policy(f->sys, buf, sizeof(buf)) > (int)sizeof(buf));
	assert_int_equal(strlen(buf), sizeof(buf) - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		FX(test_oracle, setup_busy),
		FX(test_oracle_lazy, setup_idle),
		FX(test_stats, setup_busy),
		FX(test_profile_registry, setup_busy),
		FX(test_profile_system, setup_idle),
	};

	return cmocka_run_group_tests_name("bad_input_profile", tests, NULL, NULL);
}
