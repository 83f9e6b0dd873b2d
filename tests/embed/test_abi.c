// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/embed/test_abi.c - symbol versions keep old binaries' structs
 * whole: struct tlbgen_machine grew work_jitter in TLBGEN_0.5 and
 * zap_batched in TLBGEN_0.7, and the older versions of the two functions
 * that fill one write only the struct as it was (TLBGEN_0.2: up to
 * threads_per_core; TLBGEN_0.5: up to tlbsync_per_cpu), with sz saying
 * so; the default versions write all of it.
 */
#include <dlfcn.h>
#include <stddef.h>
#include <string.h>

#include "tlbgen-test.h"

#define OLD_SZ	(offsetof(struct tlbgen_machine, threads_per_core) + sizeof(uint32_t))
#define SZ_0_5	(offsetof(struct tlbgen_machine, tlbsync_per_cpu) + sizeof(uint32_t))

typedef int (*lookup_fn)(const char *, struct tlbgen_machine *);
typedef int (*vt_machine_fn)(const struct tlbgen_system *, struct tlbgen_machine *);

/* A struct with guard bytes past it, all 0xa5 before the call. */
struct guarded {
	struct tlbgen_machine m;
	unsigned char guard[64];
};

static void assert_filled(const struct guarded *g, size_t sz)
{
	const unsigned char *p = (const unsigned char *)g;

	assert_int_equal(g->m.sz, sz);
	assert_int_equal(g->m.sockets, 2);		/* skylake-56's */
	for (size_t i = sz; i < sizeof(*g); i++)
		if (p[i] != 0xa5)
			fail_msg("byte %zu past sz %zu written", i, sz);
}

static void test_machine_lookup_versions(void **state)
{
	int (*old)(const char *, struct tlbgen_machine *) =
		(int (*)(const char *, struct tlbgen_machine *))dlvsym(RTLD_DEFAULT,
			"tlbgen_machine_lookup", "TLBGEN_0.2");
	struct guarded g;

	(void)state;
	assert_non_null(old);
	memset(&g, 0xa5, sizeof(g));
	assert_int_equal(old("skylake-56", &g.m), 0);
	assert_filled(&g, OLD_SZ);
	memset(&g, 0xa5, sizeof(g));
	assert_int_equal(tlbgen_machine_lookup("skylake-56", &g.m), 0);
	assert_filled(&g, sizeof(g.m));
	assert_int_equal(g.m.work_jitter, 0);
	assert_int_equal(g.m.zap_batched, 290);
	{
		lookup_fn v05 = (lookup_fn)dlvsym(RTLD_DEFAULT, "tlbgen_machine_lookup",
						  "TLBGEN_0.5");

		assert_non_null(v05);
		memset(&g, 0xa5, sizeof(g));
		assert_int_equal(v05("skylake-56:work_jitter=3", &g.m), 0);
		assert_filled(&g, SZ_0_5);
		assert_int_equal(g.m.work_jitter, 3);
	}
}

static void test_vtime_machine_versions(void **state)
{
	int (*old)(const struct tlbgen_system *, struct tlbgen_machine *) =
		(int (*)(const struct tlbgen_system *, struct tlbgen_machine *))dlvsym(RTLD_DEFAULT,
			"tlbgen_vtime__machine", "TLBGEN_0.2");
	struct tlbgen_machine m;
	struct tlbgen_system *sys;
	struct guarded g;

	(void)state;
	assert_non_null(old);
	assert_int_equal(tlbgen_machine_lookup("skylake-56:work_jitter=7", &m), 0);
	{
		TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = 2, .mode = TLBGEN_MODE_VIRTUAL,
			    .machine = &m);

		assert_int_equal(tlbgen_system__create(&o, &sys), 0);
	}
	memset(&g, 0xa5, sizeof(g));
	assert_int_equal(old(sys, &g.m), 0);
	assert_filled(&g, OLD_SZ);
	memset(&g, 0xa5, sizeof(g));
	assert_int_equal(tlbgen_vtime__machine(sys, &g.m), 0);
	assert_filled(&g, sizeof(g.m));
	assert_int_equal(g.m.work_jitter, 7);
	{
		vt_machine_fn v05 = (vt_machine_fn)dlvsym(RTLD_DEFAULT, "tlbgen_vtime__machine",
							  "TLBGEN_0.5");

		assert_non_null(v05);
		memset(&g, 0xa5, sizeof(g));
		assert_int_equal(v05(sys, &g.m), 0);
		assert_filled(&g, SZ_0_5);
		assert_int_equal(g.m.work_jitter, 7);
	}
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_machine_lookup_versions),
		cmocka_unit_test(test_vtime_machine_versions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
