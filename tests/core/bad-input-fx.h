/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/core/bad-input-fx.h - the fixture of the bad-input tests: a system
 * with an mm loaded, a pending batch and objects of a second system; a
 * snapshot of all observable state; BAD(), which checks that a call fails
 * with the errno given and changes nothing.
 */
#ifndef TLBGEN_TESTS_CORE_BAD_INPUT_FX_H
#define TLBGEN_TESTS_CORE_BAD_INPUT_FX_H

#include <stdlib.h>

#include "tlbgen-test.h"

#define NCPU 4
#define NPAGES 64
#define OOR NCPU		/* first CPU id out of range */

struct fx {
	struct tlbgen_system *sys, *other;
	struct tlbgen_mm *mm, *mm_other;
	struct tlbgen_tlbbatch *batch, *batch_other;
};

struct snap {
	uint64_t stats[NCPU][TLBGEN_STAT_NR];
	uint64_t mm_stats[TLBGEN_STAT_NR];
	uint64_t gen, next_trim, other_gen, jiffies;
	int weight, batch_weight, nr_profiles;
	struct tlbgen_cpu_tlbstate st[NCPU];
	int waiting[NCPU], pending[NCPU], ipi[NCPU];
	long violations, ceiling;
	char policy[1024];
	char profile[64];
};

void snap_take(const struct fx *f, struct snap *s);
void snap_check(const struct fx *f, const struct snap *before, const char *what);

/* `call` must return `err` (a negative errno) and change nothing. */
#define BAD(f, call, err) do {							\
		struct snap *b_ = malloc(sizeof(*b_));				\
		long rc_;							\
		assert_non_null(b_);						\
		snap_take((f), b_);						\
		rc_ = (long)(call);						\
		if (rc_ != (long)(err)) {					\
			print_error("%s: got %ld, want %ld\n", #call, rc_, (long)(err)); \
			fail();							\
		}								\
		snap_check((f), b_, #call);					\
		free(b_);							\
	} while (0)

/* The fixtures (sys: "latest" with a flush in flight, or "v5.17" idle). */
int setup_busy(void **state);
int setup_idle(void **state);
int fx_teardown(void **state);

#define FX(fn, setup) { #fn, fn, setup, fx_teardown, NULL }

#endif /* TLBGEN_TESTS_CORE_BAD_INPUT_FX_H */
