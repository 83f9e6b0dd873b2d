/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* tests/batch/batch_common.h - helpers of the batched-unmap tests. */
#ifndef BATCH_COMMON_H
#define BATCH_COMMON_H

#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <tlbgen/tlbgen.h>

static inline int quiet_print(enum tlbgen_print_level l, const char *f, va_list ap)
{
	(void)l;
	(void)f;
	(void)ap;
	return 0;
}

/* A system of `n` CPUs in `mode` under `profile` plus extra choices (may be NULL). */
static inline struct tlbgen_system *mk_sys(unsigned int n, enum tlbgen_mode mode,
					   const char *profile, const char *choices)
{
	TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = n, .mode = mode, .profile = profile,
		    .seed = 42);
	struct tlbgen_system *sys = NULL;

	assert_int_equal(tlbgen_system__create(&o, &sys), 0);
	if (choices)
		assert_int_equal(tlbgen_system__set_choices(sys, choices), 0);
	return sys;
}

static inline uint64_t stat_cpu(struct tlbgen_system *sys, unsigned int cpu, enum tlbgen_stat s)
{
	uint64_t v[TLBGEN_STAT_NR];

	assert_int_equal(tlbgen_stats__cpu(sys, cpu, v, TLBGEN_STAT_NR), TLBGEN_STAT_NR);
	return v[s];
}

static inline uint64_t stat_sys(struct tlbgen_system *sys, enum tlbgen_stat s)
{
	uint64_t v[TLBGEN_STAT_NR];

	assert_int_equal(tlbgen_stats__system(sys, v, TLBGEN_STAT_NR), TLBGEN_STAT_NR);
	return v[s];
}

static inline uint64_t stat_mm(struct tlbgen_mm *mm, enum tlbgen_stat s)
{
	uint64_t v[TLBGEN_STAT_NR];

	assert_int_equal(tlbgen_stats__mm(mm, v, TLBGEN_STAT_NR), TLBGEN_STAT_NR);
	return v[s];
}

#define PG(i) ((unsigned long)(i) << TLBGEN_PAGE_SHIFT)

#endif
