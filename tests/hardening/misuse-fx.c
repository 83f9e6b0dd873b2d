// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/hardening/misuse-fx.c - the fixture of the API misuse tests (misuse-fx.h).
 */
#include <stdio.h>

#include "misuse-fx.h"

struct fx F;

void take(struct snap *s)
{
	struct tlbgen_mm *mms[3] = { F.mm1, F.mm2, F.mmb };
	const char *p;

	memset(s, 0, sizeof(*s));
	for (unsigned int c = 0; c < NCPU; c++) {
		tlbgen_cpu__tlbstate(F.a, c, &s->ts[c]);
		s->waiting[c] = tlbgen_cpu__is_waiting(F.a, c);
		s->pending[c] = tlbgen_cpu__pending_calls(F.a, c);
		s->ipi[c] = tlbgen_cpu__ipi_pending(F.a, c);
		s->loaded1[c] = tlbgen_cpu__loaded_mm_is(F.a, c, F.mm1);
	}
	tlbgen_stats__system(F.a, s->stats, TLBGEN_STAT_NR);
	tlbgen_stats__mm(F.mm1, s->mmstats[0], TLBGEN_STAT_NR);
	tlbgen_stats__mm(F.mm2, s->mmstats[1], TLBGEN_STAT_NR);
	tlbgen_fault_stats__system(F.a, s->fstats, TLBGEN_FAULT_STAT_NR);
	for (int i = 0; i < 3; i++) {
		tlbgen_mm__tlb_gen(mms[i], &s->gen[i]);
		tlbgen_mm__next_trim_cpumask(mms[i], &s->trim[i]);
		s->weight[i] = tlbgen_mm__cpumask_weight(mms[i]);
		s->batched[i] = tlbgen_mm__tlb_flush_batched(mms[i]);
		for (unsigned int c = 0; c < NCPU; c++)
			s->bits[i][c] = tlbgen_mm__cpumask_test(mms[i], c);
	}
	s->viol = tlbgen_oracle__violations(F.a);
	s->warns = tlbgen_system__warns(F.a);
	s->ceiling = tlbgen_get_tlb_single_page_flush_ceiling(F.a);
	for (int i = 0; i < TLBGEN_ARCH_NR; i++)
		s->ceil[i] = tlbgen_ceiling__get(F.a, (enum tlbgen_ceiling_arch)i);
	tlbgen_system__jiffies(F.a, &s->jiffies);
	tlbgen_system__describe_policy(F.a, s->policy, sizeof(s->policy));
	p = tlbgen_system__profile(F.a);
	snprintf(s->profile, sizeof(s->profile), "%s", p ? p : "");
	s->batch_w = tlbgen_tlbbatch__cpumask_weight(F.batch);
	s->ubc_req = tlbgen_unmap_batch__flush_required(F.ubc);
	s->ubc_wr = tlbgen_unmap_batch__writable(F.ubc);
	for (int i = 0; i < 4; i++)
		s->pteflags[i] = tlbgen_pte__flags(F.mm1, (unsigned long)i << TLBGEN_PAGE_SHIFT);
	tlbgen_cost__system(F.a, &s->cost);
	s->model.sz = sizeof(s->model);
	tlbgen_system__cost_model(F.a, &s->model);
}

struct snap before, after;
static struct snap at_setup;

void check(int line, const char *expr, long ret, long want)
{
	take(&after);
	if (want ? ret != want : ret >= 0)
		fail_msg("line %d: %s returned %ld, want %s%ld", line, expr, ret,
			 want ? "" : "a negative errno, not ", want ? want : ret);
	if (memcmp(&before, &after, sizeof(before)))
		fail_msg("line %d: %s (returned %ld) changed the state", line, expr, ret);
}

int setup(void **state)
{
	TLBGEN_OPTS(tlbgen_system_opts, oa, .nr_cpus = NCPU, .profile = "latest", .seed = 7);
	TLBGEN_OPTS(tlbgen_system_opts, ob, .nr_cpus = 2, .profile = "latest", .seed = 8);

	(void)state;
	tlbgen_set_print(t_quiet_print);
	memset(&F, 0, sizeof(F));
	assert_int_equal(tlbgen_system__create(&oa, &F.a), 0);
	assert_int_equal(tlbgen_system__create(&ob, &F.b), 0);
	assert_int_equal(tlbgen_mm__create(F.a, PAGES, &F.mm1), 0);
	assert_int_equal(tlbgen_mm__create(F.a, PAGES, &F.mm2), 0);
	assert_int_equal(tlbgen_mm__create(F.b, PAGES, &F.mmb), 0);
	assert_int_equal(tlbgen_tlbbatch__create(F.a, &F.batch), 0);
	assert_int_equal(tlbgen_tlbbatch__create(F.b, &F.batchb), 0);
	assert_int_equal(tlbgen_unmap_batch__create(F.a, &F.ubc), 0);
	assert_int_equal(tlbgen_unmap_batch__create(F.b, &F.ubcb), 0);
	/* mm2: cpu 3 runs it, then a kernel thread, on it lazily. */
	assert_int_equal(tlbgen_switch_mm(F.a, 3, F.mm2), 0);
	assert_int_equal(tlbgen_enter_lazy_tlb(F.a, 3), 0);
	assert_int_equal(tlbgen_mm__cpumask_test(F.mm2, 3), 1);
	/* mm1 on cpus 0, 1 (and 2, which then flushes it). */
	assert_int_equal(tlbgen_switch_mm(F.a, 0, F.mm1), 0);
	assert_int_equal(tlbgen_switch_mm(F.a, 1, F.mm1), 0);
	assert_int_equal(tlbgen_switch_mm(F.a, 2, F.mm1), 0);
	assert_int_equal(tlbgen_access(F.a, 0, 0), 0);
	assert_int_equal(tlbgen_pte_change(F.a, 2, F.mm1, 0), 0);
	/* cpu 2 flushes mm1 and is left waiting for cpus 0 and 1. */
	assert_int_equal(tlbgen_flush_tlb_page(F.a, 2, F.mm1, 0), 0);
	assert_int_equal(tlbgen_cpu__is_waiting(F.a, 2), 1);
	take(&at_setup);
	return 0;
}

void test_state_as_set_up(void **state)
{
	(void)state;
	take(&after);
	if (memcmp(&at_setup, &after, sizeof(after)))
		fail_msg("the misuse calls of this group changed the fixture, taken together");
}

int teardown(void **state)
{
	(void)state;
	tlbgen_run_until_idle(F.a);
	tlbgen_unmap_batch__destroy(F.ubc);
	tlbgen_unmap_batch__destroy(F.ubcb);
	tlbgen_tlbbatch__destroy(F.batch);
	tlbgen_tlbbatch__destroy(F.batchb);
	tlbgen_system__destroy(F.a);
	tlbgen_system__destroy(F.b);
	tlbgen_set_print(NULL);
	return 0;
}
