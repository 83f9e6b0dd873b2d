// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/core/scheduler-fx.c - helpers of the stepped-scheduler tests
 * (scheduler-fx.h).
 */
#include "scheduler-fx.h"

struct tlbgen_system *sched_sys_n(unsigned int nr, uint64_t seed, struct tlbgen_mm **mm)
{
	TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = nr, .mode = TLBGEN_MODE_STEPPED,
		    .profile = "v6.0", .seed = seed, .flags = TLBGEN_SYS_NO_ORACLE);
	struct tlbgen_system *sys = t_sys_opts(&o);

	*mm = t_mm(sys, 4);
	for (unsigned int cpu = 0; cpu < nr; cpu++)
		if (LOADED(cpu))
			assert_int_equal(tlbgen_switch_mm(sys, cpu, *mm), 0);
	return sys;
}

struct tlbgen_system *sched_sys(uint64_t seed, struct tlbgen_mm **mm)
{
	return sched_sys_n(NR, seed, mm);
}

unsigned int record_steps(struct tlbgen_system *sys, int *seq, unsigned int max)
{
	unsigned int n = 0;
	int cpu;

	while ((cpu = tlbgen_step(sys)) >= 0) {
		assert_true(n < max);
		seq[n++] = cpu;
	}
	assert_int_equal(cpu, -ENOENT);
	return n;
}
