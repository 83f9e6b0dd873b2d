/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/workload/wl-vsys.h - the workload tests' virtual system: `cpus`
 * CPUs on the machine model `machine`, profile latest, seed 1, with a
 * 64-page mm and a workload on it; two CPU programs run on it.
 */
#ifndef TLBGEN_TESTS_WL_VSYS_H
#define TLBGEN_TESTS_WL_VSYS_H

#include "tlbgen-test.h"

static inline void wl_vsys_create(const char *machine, unsigned int cpus,
				  struct tlbgen_system **sys, struct tlbgen_mm **mm,
				  struct tlbgen_wl **wl)
{
	struct tlbgen_machine m;
	TLBGEN_OPTS(tlbgen_wl_opts, wo);

	assert_int_equal(tlbgen_machine_lookup(machine, &m), 0);
	{
		TLBGEN_OPTS(tlbgen_system_opts, o, .mode = TLBGEN_MODE_VIRTUAL, .nr_cpus = cpus,
			    .profile = "latest", .seed = 1, .machine = &m);
		*sys = t_sys_opts(&o);
	}
	*mm = t_mm(*sys, 64);
	assert_int_equal(tlbgen_wl__create(*sys, &wo, wl), 0);
}

/* CPU 0 runs `a`, CPU 1 `b` (both given `arg`), to the end; both return 0. */
static inline void wl_vsys_run_pair(struct tlbgen_system *sys,
				    int (*a)(struct tlbgen_system *, unsigned int, void *),
				    int (*b)(struct tlbgen_system *, unsigned int, void *), void *arg)
{
	int ret;

	assert_int_equal(tlbgen_cpu__spawn(sys, 0, a, arg), 0);
	assert_int_equal(tlbgen_cpu__spawn(sys, 1, b, arg), 0);
	assert_int_equal(tlbgen_vtime__run(sys, UINT64_MAX), 0);
	for (unsigned int c = 0; c < 2; c++) {
		assert_int_equal(tlbgen_cpu__join(sys, c, &ret), 0);
		assert_int_equal(ret, 0);
	}
}

#endif
