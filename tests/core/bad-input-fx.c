// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/core/bad-input-fx.c - the fixture and state snapshot of the
 * bad-input tests (bad-input-fx.h).
 */
#include "bad-input-fx.h"

void snap_take(const struct fx *f, struct snap *s)
{
	memset(s, 0, sizeof(*s));
	for (unsigned int c = 0; c < NCPU; c++) {
		assert_int_equal(tlbgen_stats__cpu(f->sys, c, s->stats[c], TLBGEN_STAT_NR),
				 TLBGEN_STAT_NR);
		assert_int_equal(tlbgen_cpu__tlbstate(f->sys, c, &s->st[c]), 0);
		s->waiting[c] = tlbgen_cpu__is_waiting(f->sys, c);
		s->pending[c] = tlbgen_cpu__pending_calls(f->sys, c);
		s->ipi[c] = tlbgen_cpu__ipi_pending(f->sys, c);
	}
	assert_int_equal(tlbgen_stats__mm(f->mm, s->mm_stats, TLBGEN_STAT_NR), TLBGEN_STAT_NR);
	s->gen = t_mm_gen(f->mm);
	assert_int_equal(tlbgen_mm__next_trim_cpumask(f->mm, &s->next_trim), 0);
	s->other_gen = t_mm_gen(f->mm_other);
	assert_int_equal(tlbgen_system__jiffies(f->sys, &s->jiffies), 0);
	s->weight = tlbgen_mm__cpumask_weight(f->mm);
	s->batch_weight = tlbgen_tlbbatch__cpumask_weight(f->batch);
	s->nr_profiles = tlbgen_profile_names(NULL, 0);
	s->violations = tlbgen_oracle__violations(f->sys);
	s->ceiling = tlbgen_get_tlb_single_page_flush_ceiling(f->sys);
	assert_true(tlbgen_system__describe_policy(f->sys, s->policy, sizeof(s->policy)) > 0);
	snprintf(s->profile, sizeof(s->profile), "%s", tlbgen_system__profile(f->sys));
}

void snap_check(const struct fx *f, const struct snap *before, const char *what)
{
	struct snap *now = malloc(sizeof(*now));

	assert_non_null(now);
	snap_take(f, now);
	if (memcmp(before, now, sizeof(*now))) {
		print_error("state changed by a failing call: %s\n", what);
		fail();
	}
	free(now);
}

/*
 * sys: 4 CPUs on "latest"; CPUs 0-2 run mm (and cache page 1), CPU 3 is on
 * init_mm; batch holds a pending unmap of mm. A second system owns
 * mm_other and batch_other. With `busy`, CPU 0 has a flush in flight,
 * waiting for CPUs 1 and 2.
 */
static int fx_setup(void **state, const char *profile, bool busy)
{
	struct fx *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->sys = t_sys(profile, NCPU, 1);
	f->mm = t_mm(f->sys, NPAGES);
	t_switch_all(f->sys, 0, 2, f->mm);
	for (unsigned int c = 0; c < 3; c++)
		assert_int_equal(tlbgen_access(f->sys, c, PG(1)), 0);
	assert_int_equal(tlbgen_tlbbatch__create(f->sys, &f->batch), 0);
	assert_int_equal(tlbgen_arch_tlbbatch_add_pending(f->sys, 3, f->batch, f->mm, PG(2),
							  PG(3)), 0);
	f->other = t_sys("latest", 2, 1);
	f->mm_other = t_mm(f->other, NPAGES);
	assert_int_equal(tlbgen_switch_mm(f->other, 0, f->mm_other), 0);
	assert_int_equal(tlbgen_tlbbatch__create(f->other, &f->batch_other), 0);
	if (busy) {
		assert_int_equal(tlbgen_flush_tlb_page(f->sys, 0, f->mm, PG(1)), 0);
		assert_int_equal(tlbgen_cpu__is_waiting(f->sys, 0), 1);
	}
	*state = f;
	return 0;
}

int setup_busy(void **state)
{
	return fx_setup(state, "latest", true);
}

int setup_idle(void **state)
{
	return fx_setup(state, "v5.17", false);
}

int fx_teardown(void **state)
{
	struct fx *f = *state;

	t_idle(f->sys);
	assert_int_equal(tlbgen_arch_tlbbatch_flush(f->sys, 3, f->batch), 0);
	t_idle(f->sys);
	assert_int_equal(tlbgen_tlbbatch__destroy(f->batch), 0);
	assert_int_equal(tlbgen_tlbbatch__destroy(f->batch_other), 0);
	assert_int_equal(tlbgen_oracle__violations(f->sys), 0);
	assert_int_equal(tlbgen_system__destroy(f->sys), 0);
	assert_int_equal(tlbgen_system__destroy(f->other), 0);
	free(f);
	return 0;
}
