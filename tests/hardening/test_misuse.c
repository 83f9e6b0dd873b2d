// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/hardening/test_misuse.c - every public function against NULL, ids
 * out of range, objects of another system and calls in the wrong state (a
 * CPU waiting for acknowledgements, freeing an mm that is loaded or still in
 * a cpumask, attaching a CPU twice). Each must return a negative errno (or
 * the documented NULL/0 for functions that return a pointer or a value) and
 * leave the state unchanged: a snapshot of everything observable is taken
 * before and compared after every call.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <errno.h>
#include <tlbgen/tlbgen.h>

#include "tlbgen-test.h"

#define NCPU	4
#define PAGES	64UL
#define BAD_CPU	NCPU
#define HUGE_CPU 0xffffffffu

/* The fixture: system A (stepped, latest) in a wrong-for-everything state,
 * system B for "objects of another system". */
struct fx {
	struct tlbgen_system *a, *b;
	struct tlbgen_mm *mm1;	/* loaded on cpu 0 and 1 */
	struct tlbgen_mm *mm2;	/* cpu 3 has it loaded lazily (a kernel thread runs there) */
	struct tlbgen_mm *mmb;	/* of system B */
	struct tlbgen_tlbbatch *batch, *batchb;
	struct tlbgen_unmap_batch *ubc, *ubcb;
};

static struct fx F;

struct snap {
	struct tlbgen_cpu_tlbstate ts[NCPU];
	int waiting[NCPU], pending[NCPU], ipi[NCPU], loaded1[NCPU];
	uint64_t stats[TLBGEN_STAT_NR], mmstats[2][TLBGEN_STAT_NR];
	uint64_t fstats[TLBGEN_FAULT_STAT_NR];
	uint64_t gen[3], trim[3];
	int weight[3], bits[3][NCPU], batched[3];
	long viol, warns, ceiling, ceil[TLBGEN_ARCH_NR];
	uint64_t jiffies;
	char policy[1024], profile[64];
	int batch_w, ubc_req, ubc_wr, pteflags[4];
	struct tlbgen_cost_account cost;
	struct tlbgen_cost_model model;
};

static void take(struct snap *s)
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

static struct snap before, after;

static void check(int line, const char *expr, long ret, long want)
{
	take(&after);
	if (want ? ret != want : ret >= 0)
		fail_msg("line %d: %s returned %ld, want %s%ld", line, expr, ret,
			 want ? "" : "a negative errno, not ", want ? want : ret);
	if (memcmp(&before, &after, sizeof(before)))
		fail_msg("line %d: %s (returned %ld) changed the state", line, expr, ret);
}

/* ERR(e, call): returns exactly -e and changes nothing. NEG(call): any
 * negative errno. ZERO(call): returns 0/NULL/false (value getters). */
#define ERR(e, call)  do { take(&before); long _r = (long)(call); check(__LINE__, #call, _r, -(long)(e)); } while (0)
#define NEG(call)     do { take(&before); long _r = (long)(call); check(__LINE__, #call, _r, 0); } while (0)
#define ZERO(call)    do { take(&before); long _r = (long)(uintptr_t)(call); \
			   if (_r) fail_msg("line %d: %s returned %ld, want 0", __LINE__, #call, _r); \
			   take(&after); \
			   if (memcmp(&before, &after, sizeof(before))) \
				fail_msg("line %d: %s changed the state", __LINE__, #call); } while (0)

static int setup(void **state)
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
	return 0;
}

static int teardown(void **state)
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

/* system.h, version.h, trace.h, profile.h */
static void test_system(void **state)
{
	TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = 2);
	struct tlbgen_system_opts bad;
	struct tlbgen_system *s = (struct tlbgen_system *)&F;	/* poison */
	TLBGEN_OPTS(tlbgen_trace_ops, tr);
	uint64_t j;
	const char *names[4];
	char buf[64];

	(void)state;
	ERR(EINVAL, tlbgen_system__create(NULL, &s));
	ERR(EINVAL, tlbgen_system__create(&o, NULL));
	bad = o, bad.sz = 1;
	ERR(EINVAL, tlbgen_system__create(&bad, &s));
	bad = o, bad.nr_cpus = TLBGEN_MAX_CPUS + 1;
	ERR(EINVAL, tlbgen_system__create(&bad, &s));
	bad = o, bad.mode = (enum tlbgen_mode)7;
	ERR(EINVAL, tlbgen_system__create(&bad, &s));
	bad = o, bad.profile = "no-such-profile";
	ERR(ENOENT, tlbgen_system__create(&bad, &s));
	assert_ptr_equal(s, (struct tlbgen_system *)&F);	/* *out untouched */

	ERR(EINVAL, tlbgen_system__destroy(NULL));
	ERR(EBUSY, tlbgen_system__destroy(F.a));	/* cpu 2 waits */
	ERR(EINVAL, tlbgen_system__nr_cpus(NULL));
	ERR(EINVAL, tlbgen_system__mode(NULL));
	ERR(EINVAL, tlbgen_system__jiffies(NULL, &j));
	ERR(EINVAL, tlbgen_system__jiffies(F.a, NULL));
	ERR(EINVAL, tlbgen_system__hz(NULL));
	ERR(EINVAL, tlbgen_system__warns(NULL));
	ERR(EINVAL, tlbgen_clock_advance(NULL, 1));

	ERR(EINVAL, tlbgen_system__set_trace(NULL, &tr));
	tr.sz = 1;
	ERR(EINVAL, tlbgen_system__set_trace(F.b, &tr));
	tr.sz = sizeof(tr);
	ERR(EBUSY, tlbgen_system__set_trace(F.a, &tr));	/* flush in flight */

	/* profile.h */
	ERR(EINVAL, tlbgen_policy_register(NULL, "latest", NULL, NULL));
	ERR(EINVAL, tlbgen_policy_register("", "latest", NULL, NULL));
	ERR(EEXIST, tlbgen_policy_register("latest", "latest", NULL, NULL));
	ERR(ENOENT, tlbgen_policy_register("misuse-x", "no-such-base", NULL, NULL));
	ERR(ENOENT, tlbgen_policy_register("misuse-x", "latest", "no_such_choice=1", NULL));
	ERR(ENOENT, tlbgen_policy_register("misuse-x", "latest", "early_return=maybe", NULL));
	{
		struct tlbgen_policy_ops ops = { .sz = 1 };

		ERR(EINVAL, tlbgen_policy_register("misuse-x", "latest", NULL, &ops));
	}
	NEG(tlbgen_policy_unregister(NULL));
	ERR(ENOENT, tlbgen_policy_unregister("no-such-profile"));
	ERR(EPERM, tlbgen_policy_unregister("latest"));
	NEG(tlbgen_profile_names(NULL, 4));
	assert_true(tlbgen_profile_names(names, 0) >= 5);	/* n = 0: count only */
	NEG(tlbgen_choice_names(NULL, 4));
	ERR(ENOENT, tlbgen_choice_values("no_such_choice", names, 4));
	NEG(tlbgen_choice_values(NULL, names, 4));
	ERR(EINVAL, tlbgen_system__set_profile(NULL, "latest"));
	NEG(tlbgen_system__set_profile(F.b, NULL));
	ERR(ENOENT, tlbgen_system__set_profile(F.b, "no-such-profile"));
	ERR(EBUSY, tlbgen_system__set_profile(F.a, "v6.0"));
	ERR(EINVAL, tlbgen_system__set_choice(NULL, "early_return", "guarded"));
	NEG(tlbgen_system__set_choice(F.b, NULL, "guarded"));
	NEG(tlbgen_system__set_choice(F.b, "early_return", NULL));
	ERR(ENOENT, tlbgen_system__set_choice(F.b, "no_such_choice", "x"));
	ERR(ENOENT, tlbgen_system__set_choice(F.b, "early_return", "maybe"));
	ERR(EBUSY, tlbgen_system__set_choice(F.a, "early_return", "none"));
	ERR(EINVAL, tlbgen_system__set_choices(NULL, "early_return=none"));
	NEG(tlbgen_system__set_choices(F.b, NULL));
	/* all or nothing: the first pair is valid, the second not */
	{
		char pb[1024], pa[1024];

		tlbgen_system__describe_policy(F.b, pb, sizeof(pb));
		NEG(tlbgen_system__set_choices(F.b, "early_return=none,no_such=1"));
		tlbgen_system__describe_policy(F.b, pa, sizeof(pa));
		assert_string_equal(pa, pb);
	}
	ERR(EBUSY, tlbgen_system__set_choices(F.a, "early_return=none"));
	ZERO(tlbgen_system__get_choice(NULL, "early_return"));
	ZERO(tlbgen_system__get_choice(F.a, NULL));
	ZERO(tlbgen_system__get_choice(F.a, "no_such_choice"));
	ZERO(tlbgen_system__profile(NULL));
	ERR(EINVAL, tlbgen_system__describe_policy(NULL, buf, sizeof(buf)));
	ZERO(tlbgen_read_mm_tlb_gen(NULL));
	ZERO(tlbgen_ipi_target__is_lazy(NULL));
	ZERO(tlbgen_ipi_target__loaded_mm_is_target(NULL));
	ZERO(tlbgen_ipi_target__loaded_mm_is_switching(NULL));
	ZERO(tlbgen_ipi_target__flush_has_mm(NULL));
	ZERO(tlbgen_ipi_target__trim_cpumask(NULL));
	tlbgen_ipi_target__smp_rmb(NULL);	/* must not crash */
}

/* mm.h, tlb.h */
static void test_mm_tlb(void **state)
{
	struct tlbgen_mm *m = (struct tlbgen_mm *)&F;
	struct tlbgen_cpu_tlbstate ts;
	uint64_t v;

	(void)state;
	ERR(EINVAL, tlbgen_mm__create(NULL, PAGES, &m));
	ERR(EINVAL, tlbgen_mm__create(F.a, 0, &m));
	ERR(EINVAL, tlbgen_mm__create(F.a, (1UL << 24) + 1, &m));
	ERR(EINVAL, tlbgen_mm__create(F.a, PAGES, NULL));
	assert_ptr_equal(m, (struct tlbgen_mm *)&F);
	ERR(EINVAL, tlbgen_mm__destroy(NULL));
	ERR(EBUSY, tlbgen_mm__destroy(F.mm1));	/* loaded on cpus 0, 1, flush in flight */
	ERR(EBUSY, tlbgen_mm__destroy(F.mm2));	/* cpu 3 still has it loaded, lazily */
	ZERO(tlbgen_mm__ctx_id(NULL));
	ERR(EINVAL, tlbgen_mm__tlb_gen(NULL, &v));
	ERR(EINVAL, tlbgen_mm__tlb_gen(F.mm1, NULL));
	ERR(EINVAL, tlbgen_mm__next_trim_cpumask(NULL, &v));
	ERR(EINVAL, tlbgen_mm__next_trim_cpumask(F.mm1, NULL));
	ERR(EINVAL, tlbgen_mm__cpumask_test(NULL, 0));
	ERR(EINVAL, tlbgen_mm__cpumask_test(F.mm1, BAD_CPU));
	ERR(EINVAL, tlbgen_mm__cpumask_test(F.mm1, HUGE_CPU));
	ERR(EINVAL, tlbgen_mm__cpumask_weight(NULL));
	ZERO(tlbgen_mm__nr_pages(NULL));
	ERR(EINVAL, tlbgen_pte_change(NULL, 0, F.mm1, 0));
	ERR(EINVAL, tlbgen_pte_change(F.a, BAD_CPU, F.mm1, 0));
	ERR(EINVAL, tlbgen_pte_change(F.a, 0, NULL, 0));
	ERR(EINVAL, tlbgen_pte_change(F.a, 0, F.mmb, 0));
	ERR(EINVAL, tlbgen_pte_change(F.a, 0, F.mm1, PAGES << TLBGEN_PAGE_SHIFT));

	/* tlb.h: NULL, ids out of range, foreign mm, waiting CPU (2) */
	ERR(EINVAL, tlbgen_switch_mm(NULL, 0, F.mm1));
	ERR(EINVAL, tlbgen_switch_mm(F.a, BAD_CPU, F.mm1));
	ERR(EINVAL, tlbgen_switch_mm(F.a, HUGE_CPU, F.mm1));
	ERR(EINVAL, tlbgen_switch_mm(F.a, 3, F.mmb));
	ERR(EBUSY, tlbgen_switch_mm(F.a, 2, F.mm2));
	ERR(EINVAL, tlbgen_enter_lazy_tlb(NULL, 0));
	ERR(EINVAL, tlbgen_enter_lazy_tlb(F.a, BAD_CPU));
	ERR(EBUSY, tlbgen_enter_lazy_tlb(F.a, 2));
	ERR(EINVAL, tlbgen_leave_mm(NULL, 0));
	ERR(EINVAL, tlbgen_leave_mm(F.a, BAD_CPU));
	ERR(EBUSY, tlbgen_leave_mm(F.a, 2));
	ERR(EINVAL, tlbgen_flush_tlb_mm_range(NULL, 0, F.mm1, 0, 4096, 12, false));
	ERR(EINVAL, tlbgen_flush_tlb_mm_range(F.a, BAD_CPU, F.mm1, 0, 4096, 12, false));
	ERR(EINVAL, tlbgen_flush_tlb_mm_range(F.a, 0, NULL, 0, 4096, 12, false));
	ERR(EINVAL, tlbgen_flush_tlb_mm_range(F.a, 0, F.mmb, 0, 4096, 12, false));
	ERR(EINVAL, tlbgen_flush_tlb_mm_range(F.a, 0, F.mm1, 8192, 4096, 12, false));
	ERR(EINVAL, tlbgen_flush_tlb_mm_range(F.a, 0, F.mm1, 0, (PAGES + 1) << 12, 12, false));
	ERR(EINVAL, tlbgen_flush_tlb_mm_range(F.a, 0, F.mm1, 0, 4096, 11, false));
	ERR(EINVAL, tlbgen_flush_tlb_mm_range(F.a, 0, F.mm1, 0, 4096, 31, false));
	ERR(EINVAL, tlbgen_flush_tlb_mm_range(F.a, 0, F.mm1, 4096, TLBGEN_TLB_FLUSH_ALL, 12, false));
	ERR(EBUSY, tlbgen_flush_tlb_mm_range(F.a, 2, F.mm1, 0, 4096, 12, false));
	ERR(EINVAL, tlbgen_flush_tlb_mm(NULL, 0, F.mm1));
	ERR(EINVAL, tlbgen_flush_tlb_mm(F.a, BAD_CPU, F.mm1));
	ERR(EINVAL, tlbgen_flush_tlb_mm(F.a, 0, F.mmb));
	ERR(EBUSY, tlbgen_flush_tlb_mm(F.a, 2, F.mm1));
	ERR(EINVAL, tlbgen_flush_tlb_page(NULL, 0, F.mm1, 0));
	ERR(EINVAL, tlbgen_flush_tlb_page(F.a, BAD_CPU, F.mm1, 0));
	ERR(EINVAL, tlbgen_flush_tlb_page(F.a, 0, F.mmb, 0));
	ERR(EINVAL, tlbgen_flush_tlb_page(F.a, 0, F.mm1, PAGES << TLBGEN_PAGE_SHIFT));
	ERR(EINVAL, tlbgen_flush_tlb_page(F.a, 0, F.mm1, ~0UL));
	ERR(EBUSY, tlbgen_flush_tlb_page(F.a, 2, F.mm1, 0));
	ERR(EINVAL, tlbgen_flush_tlb_kernel_range(NULL, 0, 0, 4096));
	ERR(EINVAL, tlbgen_flush_tlb_kernel_range(F.a, BAD_CPU, 0, 4096));
	ERR(EINVAL, tlbgen_flush_tlb_kernel_range(F.a, 0, 8192, 4096));
	ERR(EBUSY, tlbgen_flush_tlb_kernel_range(F.a, 2, 0, 4096));
	ERR(EINVAL, tlbgen_set_tlb_single_page_flush_ceiling(NULL, 33));
	ERR(EINVAL, tlbgen_set_tlb_single_page_flush_ceiling(F.b, -1));
	ERR(EBUSY, tlbgen_set_tlb_single_page_flush_ceiling(F.a, 10));
	ERR(EINVAL, tlbgen_get_tlb_single_page_flush_ceiling(NULL));
	ERR(EINVAL, tlbgen_cpu__tlbstate(NULL, 0, &ts));
	ERR(EINVAL, tlbgen_cpu__tlbstate(F.a, BAD_CPU, &ts));
	ERR(EINVAL, tlbgen_cpu__tlbstate(F.a, 0, NULL));
	ERR(EINVAL, tlbgen_cpu__loaded_mm_is(NULL, 0, F.mm1));
	ERR(EINVAL, tlbgen_cpu__loaded_mm_is(F.a, BAD_CPU, F.mm1));
	ERR(EINVAL, tlbgen_cpu__loaded_mm_is(F.a, 0, F.mmb));
	ERR(EINVAL, tlbgen_cpu__local_tlb_gen(NULL, 0, &v));
	ERR(EINVAL, tlbgen_cpu__local_tlb_gen(F.a, BAD_CPU, &v));
	ERR(EINVAL, tlbgen_cpu__local_tlb_gen(F.a, 0, NULL));
}

/* tlbbatch.h, rmap.h */
static void test_batch_rmap(void **state)
{
	struct tlbgen_tlbbatch *b = (struct tlbgen_tlbbatch *)&F;
	struct tlbgen_unmap_batch *u = (struct tlbgen_unmap_batch *)&F;
	TLBGEN_OPTS(tlbgen_batched_pending_opts, bpo);
	struct tlbgen_batched_pending_opts bad_bpo = { .sz = 1 };

	(void)state;
	ERR(EINVAL, tlbgen_tlbbatch__create(NULL, &b));
	ERR(EINVAL, tlbgen_tlbbatch__create(F.a, NULL));
	assert_ptr_equal(b, (struct tlbgen_tlbbatch *)&F);
	ERR(EINVAL, tlbgen_tlbbatch__destroy(NULL));
	ERR(EINVAL, tlbgen_arch_tlbbatch_add_pending(NULL, 0, F.batch, F.mm1, 0, 4096));
	ERR(EINVAL, tlbgen_arch_tlbbatch_add_pending(F.a, BAD_CPU, F.batch, F.mm1, 0, 4096));
	ERR(EINVAL, tlbgen_arch_tlbbatch_add_pending(F.a, 0, NULL, F.mm1, 0, 4096));
	ERR(EINVAL, tlbgen_arch_tlbbatch_add_pending(F.a, 0, F.batchb, F.mm1, 0, 4096));
	ERR(EINVAL, tlbgen_arch_tlbbatch_add_pending(F.a, 0, F.batch, NULL, 0, 4096));
	ERR(EINVAL, tlbgen_arch_tlbbatch_add_pending(F.a, 0, F.batch, F.mmb, 0, 4096));
	ERR(EBUSY, tlbgen_arch_tlbbatch_add_pending(F.a, 2, F.batch, F.mm1, 0, 4096));
	ERR(EINVAL, tlbgen_arch_tlbbatch_flush(NULL, 0, F.batch));
	ERR(EINVAL, tlbgen_arch_tlbbatch_flush(F.a, BAD_CPU, F.batch));
	ERR(EINVAL, tlbgen_arch_tlbbatch_flush(F.a, 0, NULL));
	ERR(EINVAL, tlbgen_arch_tlbbatch_flush(F.a, 0, F.batchb));
	ERR(EBUSY, tlbgen_arch_tlbbatch_flush(F.a, 2, F.batch));
	ERR(EINVAL, tlbgen_tlbbatch__cpumask_weight(NULL));
	NEG(tlbgen_tlbbatch__pending_tlbi(NULL));

	ERR(EINVAL, tlbgen_unmap_batch__create(NULL, &u));
	ERR(EINVAL, tlbgen_unmap_batch__create(F.a, NULL));
	assert_ptr_equal(u, (struct tlbgen_unmap_batch *)&F);
	ERR(EINVAL, tlbgen_unmap_batch__destroy(NULL));
	ERR(EINVAL, tlbgen_unmap_batch__flush_required(NULL));
	ERR(EINVAL, tlbgen_unmap_batch__writable(NULL));
	ZERO(tlbgen_unmap_batch__arch(NULL));
	ERR(EINVAL, tlbgen_should_defer_flush(NULL, 0, F.mm1, TLBGEN_TTU_BATCH_FLUSH));
	ERR(EINVAL, tlbgen_should_defer_flush(F.a, BAD_CPU, F.mm1, TLBGEN_TTU_BATCH_FLUSH));
	ERR(EINVAL, tlbgen_should_defer_flush(F.a, 0, F.mmb, TLBGEN_TTU_BATCH_FLUSH));
	ERR(EINVAL, tlbgen_should_defer_flush(F.a, 0, F.mm1, 1U << 30));
	ERR(EBUSY, tlbgen_should_defer_flush(F.a, 2, F.mm1, TLBGEN_TTU_BATCH_FLUSH));
	ERR(EINVAL, tlbgen_set_tlb_ubc_flush_pending(NULL, 0, F.ubc, F.mm1, 0, 4096, TLBGEN_PTE_ACCESSIBLE));
	ERR(EINVAL, tlbgen_set_tlb_ubc_flush_pending(F.a, BAD_CPU, F.ubc, F.mm1, 0, 4096, TLBGEN_PTE_ACCESSIBLE));
	ERR(EINVAL, tlbgen_set_tlb_ubc_flush_pending(F.a, 0, NULL, F.mm1, 0, 4096, TLBGEN_PTE_ACCESSIBLE));
	ERR(EINVAL, tlbgen_set_tlb_ubc_flush_pending(F.a, 0, F.ubcb, F.mm1, 0, 4096, TLBGEN_PTE_ACCESSIBLE));
	ERR(EINVAL, tlbgen_set_tlb_ubc_flush_pending(F.a, 0, F.ubc, F.mmb, 0, 4096, TLBGEN_PTE_ACCESSIBLE));
	ERR(EINVAL, tlbgen_set_tlb_ubc_flush_pending(F.a, 0, F.ubc, F.mm1, 8192, 4096, TLBGEN_PTE_ACCESSIBLE));
	ERR(EINVAL, tlbgen_set_tlb_ubc_flush_pending(F.a, 0, F.ubc, F.mm1, 0, 4096, 1U << 30));
	ERR(EBUSY, tlbgen_set_tlb_ubc_flush_pending(F.a, 2, F.ubc, F.mm1, 0, 4096, TLBGEN_PTE_ACCESSIBLE));
	ERR(EINVAL, tlbgen_try_to_unmap_one(NULL, 0, F.ubc, F.mm1, 0, 0, TLBGEN_PTE_ACCESSIBLE));
	ERR(EINVAL, tlbgen_try_to_unmap_one(F.a, BAD_CPU, F.ubc, F.mm1, 0, 0, TLBGEN_PTE_ACCESSIBLE));
	ERR(EINVAL, tlbgen_try_to_unmap_one(F.a, 0, F.ubcb, F.mm1, 0, TLBGEN_TTU_BATCH_FLUSH, TLBGEN_PTE_ACCESSIBLE));
	ERR(EINVAL, tlbgen_try_to_unmap_one(F.a, 0, F.ubc, F.mmb, 0, 0, TLBGEN_PTE_ACCESSIBLE));
	ERR(EINVAL, tlbgen_try_to_unmap_one(F.a, 0, F.ubc, F.mm1, PAGES << TLBGEN_PAGE_SHIFT, 0, TLBGEN_PTE_ACCESSIBLE));
	ERR(EBUSY, tlbgen_try_to_unmap_one(F.a, 2, F.ubc, F.mm1, 0, 0, TLBGEN_PTE_ACCESSIBLE));
	ERR(EINVAL, tlbgen_try_to_unmap_flush(NULL, 0, F.ubc));
	ERR(EINVAL, tlbgen_try_to_unmap_flush(F.a, BAD_CPU, F.ubc));
	ERR(EINVAL, tlbgen_try_to_unmap_flush(F.a, 0, NULL));
	ERR(EINVAL, tlbgen_try_to_unmap_flush(F.a, 0, F.ubcb));
	ERR(EBUSY, tlbgen_try_to_unmap_flush(F.a, 2, F.ubc));
	ERR(EINVAL, tlbgen_try_to_unmap_flush_dirty(NULL, 0, F.ubc));
	ERR(EINVAL, tlbgen_try_to_unmap_flush_dirty(F.a, BAD_CPU, F.ubc));
	ERR(EINVAL, tlbgen_try_to_unmap_flush_dirty(F.a, 0, F.ubcb));
	ERR(EBUSY, tlbgen_try_to_unmap_flush_dirty(F.a, 2, F.ubc));
	ERR(EINVAL, tlbgen_flush_tlb_batched_pending(NULL, 0, F.mm1, NULL));
	ERR(EINVAL, tlbgen_flush_tlb_batched_pending(F.a, BAD_CPU, F.mm1, NULL));
	ERR(EINVAL, tlbgen_flush_tlb_batched_pending(F.a, 0, NULL, NULL));
	ERR(EINVAL, tlbgen_flush_tlb_batched_pending(F.a, 0, F.mmb, NULL));
	ERR(EINVAL, tlbgen_flush_tlb_batched_pending(F.a, 0, F.mm1, &bad_bpo));
	ERR(EBUSY, tlbgen_flush_tlb_batched_pending(F.a, 2, F.mm1, &bpo));
	ERR(EINVAL, tlbgen_mm__tlb_flush_batched(NULL));
}

/* stepped.h, oracle.h, stats.h */
static void test_stepped_oracle_stats(void **state)
{
	struct tlbgen_violation v;
	uint64_t st[TLBGEN_STAT_NR];
	char buf[64];

	(void)state;
	ERR(EINVAL, tlbgen_deliver(NULL, 0));
	ERR(EINVAL, tlbgen_deliver(F.a, BAD_CPU));
	ERR(EINVAL, tlbgen_deliver_from(NULL, 0, 2));
	ERR(EINVAL, tlbgen_deliver_from(F.a, BAD_CPU, 2));
	ERR(EINVAL, tlbgen_deliver_from(F.a, 0, BAD_CPU));
	ERR(ENOENT, tlbgen_deliver_from(F.a, 0, 3));	/* cpu 3 queued nothing */
	ERR(EINVAL, tlbgen_step(NULL));
	ERR(EINVAL, tlbgen_run_until_idle(NULL));
	ERR(EINVAL, tlbgen_cpu__is_waiting(NULL, 0));
	ERR(EINVAL, tlbgen_cpu__is_waiting(F.a, BAD_CPU));
	ERR(EINVAL, tlbgen_cpu__pending_calls(NULL, 0));
	ERR(EINVAL, tlbgen_cpu__pending_calls(F.a, BAD_CPU));
	ERR(EINVAL, tlbgen_cpu__ipi_pending(NULL, 0));
	ERR(EINVAL, tlbgen_cpu__ipi_pending(F.a, BAD_CPU));

	ERR(EINVAL, tlbgen_access(NULL, 0, 0));
	ERR(EINVAL, tlbgen_access(F.a, BAD_CPU, 0));
	ERR(EINVAL, tlbgen_access(F.a, 0, PAGES << TLBGEN_PAGE_SHIFT));
	ERR(EBUSY, tlbgen_access(F.a, 2, 0));
	ERR(ESRCH, tlbgen_access(F.a, 3, 0));	/* init_mm */
	ERR(EINVAL, tlbgen_oracle__violations(NULL));
	ERR(EINVAL, tlbgen_oracle__violation(NULL, 0, &v));
	ERR(EINVAL, tlbgen_oracle__violation(F.a, 0, NULL));
	ERR(ENOENT, tlbgen_oracle__violation(F.a, 0, &v));	/* none recorded */
	ERR(ENOENT, tlbgen_oracle__violation(F.a, 1000, &v));
	ERR(EINVAL, tlbgen_oracle__format(NULL, buf, sizeof(buf)));
	ERR(EINVAL, tlbgen_oracle__audit_cpu(NULL, 0));
	ERR(EINVAL, tlbgen_oracle__audit_cpu(F.a, BAD_CPU));
	ERR(EINVAL, tlbgen_oracle__reset(NULL));

	ZERO(tlbgen_stat_name(TLBGEN_STAT_NR));
	ZERO(tlbgen_stat_name((enum tlbgen_stat)-1));
	ERR(EINVAL, tlbgen_stats__cpu(NULL, 0, st, TLBGEN_STAT_NR));
	ERR(EINVAL, tlbgen_stats__cpu(F.a, BAD_CPU, st, TLBGEN_STAT_NR));
	ERR(EINVAL, tlbgen_stats__cpu(F.a, 0, NULL, TLBGEN_STAT_NR));
	/* n > TLBGEN_STAT_NR is clamped (a newer caller), not an error. */
	ERR(EINVAL, tlbgen_stats__system(NULL, st, TLBGEN_STAT_NR));
	ERR(EINVAL, tlbgen_stats__system(F.a, NULL, TLBGEN_STAT_NR));
	ERR(EINVAL, tlbgen_stats__mm(NULL, st, TLBGEN_STAT_NR));
	ERR(EINVAL, tlbgen_stats__mm(F.mm1, NULL, TLBGEN_STAT_NR));
	ERR(EINVAL, tlbgen_stats__reset(NULL));

	/* runtime.h on a stepped system and with NULL */
	ERR(EINVAL, tlbgen_cpu__attach(NULL, 0));
	ERR(EINVAL, tlbgen_cpu__attach(F.a, 0));	/* stepped */
	NEG(tlbgen_cpu__detach(NULL, 0));
	NEG(tlbgen_cpu__detach(F.a, 0));
	NEG(tlbgen_poll(NULL, 0));
	NEG(tlbgen_poll(F.a, 0));
	ERR(ENOENT, tlbgen_this_cpu(NULL));
	ERR(ENOENT, tlbgen_this_cpu(F.a));
	ERR(EINVAL, tlbgen_cpu__spawn(NULL, 0, NULL, NULL));
	ERR(EINVAL, tlbgen_cpu__spawn(F.a, 0, NULL, NULL));
	ERR(EINVAL, tlbgen_cpu__should_stop(NULL, 0));
	NEG(tlbgen_cpu__join(NULL, 0, NULL));
	NEG(tlbgen_cpu__join(F.a, 0, NULL));
	NEG(tlbgen_cpu__pin(NULL, 0));
	ERR(EINVAL, tlbgen_runtime__host_cpu(NULL, 0));
	ERR(EINVAL, tlbgen_runtime__oversubscribed(NULL));
	ERR(EINVAL, tlbgen_runtime__oversubscribed(F.a));
	{
		struct tlbgen_runtime_stats rs = { .sz = sizeof(rs) };

		ERR(EINVAL, tlbgen_runtime__stats(NULL, &rs));
		ERR(EINVAL, tlbgen_runtime__stats(F.a, &rs));
		ERR(EINVAL, tlbgen_runtime__stats(F.a, NULL));
	}
}

/* fault.h, cost.h, ceiling.h, coherence.h */
static void test_fault_cost_ceiling_coherence(void **state)
{
	uint64_t fs[TLBGEN_FAULT_STAT_NR];
	struct tlbgen_cost_model m, bad;
	struct tlbgen_cost_account acc;
	struct tlbgen_range_flush rf;
	struct tlbgen_coherence *co = (struct tlbgen_coherence *)&F, *c2;
	struct tlbgen_coherence_counts cc;
	TLBGEN_OPTS(tlbgen_trace_ops, tr);
	unsigned int sets, ways;

	(void)state;
	ZERO(tlbgen_fault_stat_name(TLBGEN_FAULT_STAT_NR));
	ERR(EINVAL, tlbgen_handle_mm_fault(NULL, 0, F.mm1, 0, 0));
	ERR(EINVAL, tlbgen_handle_mm_fault(F.a, BAD_CPU, F.mm1, 0, 0));
	ERR(EINVAL, tlbgen_handle_mm_fault(F.a, 0, NULL, 0, 0));
	ERR(EINVAL, tlbgen_handle_mm_fault(F.a, 0, F.mmb, 0, 0));
	ERR(EINVAL, tlbgen_handle_mm_fault(F.a, 0, F.mm1, PAGES << TLBGEN_PAGE_SHIFT, 0));
	ERR(EBUSY, tlbgen_handle_mm_fault(F.a, 2, F.mm1, 0, 0));
	ERR(EINVAL, tlbgen_pte__flags(NULL, 0));
	ERR(EINVAL, tlbgen_pte__flags(F.mm1, PAGES << TLBGEN_PAGE_SHIFT));
	ERR(EINVAL, tlbgen_pte_set(NULL, 0, F.mm1, 0, TLBGEN_PTEF_WRITE));
	ERR(EINVAL, tlbgen_pte_set(F.a, BAD_CPU, F.mm1, 0, TLBGEN_PTEF_WRITE));
	ERR(EINVAL, tlbgen_pte_set(F.a, 0, F.mmb, 0, TLBGEN_PTEF_WRITE));
	ERR(EINVAL, tlbgen_pte_set(F.a, 0, F.mm1, PAGES << TLBGEN_PAGE_SHIFT, TLBGEN_PTEF_WRITE));
	ERR(EINVAL, tlbgen_pte_set(F.a, 0, F.mm1, 0, 1U << 30));
	ERR(EINVAL, tlbgen_fault_stats__cpu(NULL, 0, fs, TLBGEN_FAULT_STAT_NR));
	ERR(EINVAL, tlbgen_fault_stats__cpu(F.a, BAD_CPU, fs, TLBGEN_FAULT_STAT_NR));
	ERR(EINVAL, tlbgen_fault_stats__cpu(F.a, 0, NULL, TLBGEN_FAULT_STAT_NR));
	ERR(EINVAL, tlbgen_fault_stats__system(NULL, fs, TLBGEN_FAULT_STAT_NR));
	ERR(EINVAL, tlbgen_fault_stats__reset(NULL));

	ERR(EINVAL, tlbgen_cost_model_default(NULL));
	assert_int_equal(tlbgen_cost_model_default(&m), 0);
	ERR(EINVAL, tlbgen_system__set_cost_model(NULL, &m));
	/* NULL means "back to the defaults": not misuse. */
	bad = m, bad.sz = 1;
	ERR(EINVAL, tlbgen_system__set_cost_model(F.b, &bad));
	bad = m, bad.mhz = 0;
	ERR(EINVAL, tlbgen_system__set_cost_model(F.b, &bad));
	bad = m, bad.spend = true;	/* busy-waits need threads */
	ERR(EINVAL, tlbgen_system__set_cost_model(F.b, &bad));
	ERR(EBUSY, tlbgen_system__set_cost_model(F.a, &m));
	ERR(EINVAL, tlbgen_system__cost_model(NULL, &m));
	ERR(EINVAL, tlbgen_system__cost_model(F.a, NULL));
	ERR(EINVAL, tlbgen_system__tlb_geometry(NULL, &sets, &ways));
	ERR(EINVAL, tlbgen_cost__cpu(NULL, 0, &acc));
	ERR(EINVAL, tlbgen_cost__cpu(F.a, BAD_CPU, &acc));
	ERR(EINVAL, tlbgen_cost__cpu(F.a, 0, NULL));
	ERR(EINVAL, tlbgen_cost__system(NULL, &acc));
	ERR(EINVAL, tlbgen_cost__system(F.a, NULL));
	ERR(EINVAL, tlbgen_cost__reset(NULL));

	ERR(EINVAL, tlbgen_range_flush_rule(TLBGEN_ARCH_NR, 33, TLBGEN_CEILING_GT, 0, 4096, 12, &rf));
	ERR(EINVAL, tlbgen_range_flush_rule(TLBGEN_ARCH_X86, 33, TLBGEN_CEILING_GT, 0, 4096, 12, NULL));
	ERR(EINVAL, tlbgen_range_flush_rule(TLBGEN_ARCH_X86, 33, TLBGEN_CEILING_GT, 8192, 4096, 12, &rf));
	ERR(EINVAL, tlbgen_range_flush_rule(TLBGEN_ARCH_X86, -1, TLBGEN_CEILING_GT, 0, 4096, 12, &rf));
	ERR(EINVAL, tlbgen_range_flush_rule(TLBGEN_ARCH_X86, 33, (enum tlbgen_ceiling_cmp)9, 0, 4096, 12, &rf));
	ERR(EINVAL, tlbgen_range_flush_decide(NULL, TLBGEN_ARCH_X86, 0, 4096, 12, &rf));
	ERR(EINVAL, tlbgen_range_flush_decide(F.a, TLBGEN_ARCH_NR, 0, 4096, 12, &rf));
	ERR(EINVAL, tlbgen_range_flush_decide(F.a, TLBGEN_ARCH_X86, 0, 4096, 12, NULL));
	ERR(EINVAL, tlbgen_ceiling__set(NULL, TLBGEN_ARCH_X86, 33));
	ERR(EINVAL, tlbgen_ceiling__set(F.b, TLBGEN_ARCH_NR, 33));
	ERR(EINVAL, tlbgen_ceiling__set(F.b, TLBGEN_ARCH_X86, -1));
	ERR(EBUSY, tlbgen_ceiling__set(F.a, TLBGEN_ARCH_X86, 10));
	ERR(EINVAL, tlbgen_ceiling__get(NULL, TLBGEN_ARCH_X86));
	ERR(EINVAL, tlbgen_ceiling__get(F.a, TLBGEN_ARCH_NR));
	ERR(EINVAL, tlbgen_ceiling__set_cmp(NULL, TLBGEN_ARCH_X86, TLBGEN_CEILING_GE));
	ERR(EINVAL, tlbgen_ceiling__set_cmp(F.b, TLBGEN_ARCH_NR, TLBGEN_CEILING_GE));
	ERR(EINVAL, tlbgen_ceiling__set_cmp(F.b, TLBGEN_ARCH_X86, (enum tlbgen_ceiling_cmp)9));
	ERR(EOPNOTSUPP, tlbgen_ceiling__set_cmp(F.b, TLBGEN_ARCH_X86, TLBGEN_CEILING_GE));
	NEG(tlbgen_ceiling__set_cmp(F.a, TLBGEN_ARCH_PPC_RADIX_GLOBAL, TLBGEN_CEILING_GE));	/* in flight */
	ERR(EINVAL, tlbgen_ceiling__get_cmp(NULL, TLBGEN_ARCH_X86));
	ERR(EINVAL, tlbgen_ceiling__get_cmp(F.a, TLBGEN_ARCH_NR));
	ERR(EINVAL, tlbgen_ppc_radix_flush_type(NULL, 0, F.mm1));
	ERR(EINVAL, tlbgen_ppc_radix_flush_type(F.a, BAD_CPU, F.mm1));
	ERR(EINVAL, tlbgen_ppc_radix_flush_type(F.a, 0, F.mmb));
	ERR(EINVAL, tlbgen_ppc_radix_flush_tlb_range(NULL, 0, F.mm1, 0, 4096, 12, &rf));
	ERR(EINVAL, tlbgen_ppc_radix_flush_tlb_range(F.a, BAD_CPU, F.mm1, 0, 4096, 12, &rf));
	ERR(EINVAL, tlbgen_ppc_radix_flush_tlb_range(F.a, 0, F.mmb, 0, 4096, 12, &rf));
	ERR(EINVAL, tlbgen_ppc_radix_flush_tlb_range(F.a, 0, F.mm1, 8192, 4096, 12, &rf));
	ERR(EBUSY, tlbgen_ppc_radix_flush_tlb_range(F.a, 2, F.mm1, 0, 4096, 12, &rf));

	ERR(EINVAL, tlbgen_coherence__create(0, &co));
	ERR(EINVAL, tlbgen_coherence__create(4, NULL));
	assert_ptr_equal(co, (struct tlbgen_coherence *)&F);
	tlbgen_coherence__destroy(NULL);	/* must not crash */
	assert_int_equal(tlbgen_coherence__create(2, &c2), 0);
	ERR(EINVAL, tlbgen_coherence__line_access(NULL, 0, TLBGEN_LINE_MM_TLB_GEN, 64, TLBGEN_OP_READ));
	ERR(EINVAL, tlbgen_coherence__line_access(c2, 2, TLBGEN_LINE_MM_TLB_GEN, 64, TLBGEN_OP_READ));
	ERR(EINVAL, tlbgen_coherence__line_access(c2, 0, TLBGEN_LINE_NR, 64, TLBGEN_OP_READ));
	ERR(EINVAL, tlbgen_coherence__line_access(c2, 0, TLBGEN_LINE_MM_TLB_GEN, 64, (enum tlbgen_access_op)9));
	ERR(EINVAL, tlbgen_coherence__trace_ops(NULL, &tr));
	ERR(EINVAL, tlbgen_coherence__trace_ops(c2, NULL));
	ERR(EINVAL, tlbgen_coherence__counts(NULL, TLBGEN_LINE_MM_TLB_GEN, -1, &cc));
	ERR(EINVAL, tlbgen_coherence__counts(c2, TLBGEN_LINE_MM_TLB_GEN, 5, &cc));
	ERR(EINVAL, tlbgen_coherence__counts(c2, TLBGEN_LINE_MM_TLB_GEN, -1, NULL));
	ZERO(tlbgen_coherence__transfers(NULL, TLBGEN_LINE_MM_TLB_GEN, -1));
	ERR(EINVAL, tlbgen_coherence__nr_lines(NULL));
	ERR(EINVAL, tlbgen_coherence__reset(NULL, true));
	ZERO(tlbgen_line_name(TLBGEN_LINE_NR));
	tlbgen_coherence__destroy(c2);
}

/* The snapshot must see a change: a successful access moves counters. */
static void test_snapshot_sensitive(void **state)
{
	(void)state;
	take(&before);
	assert_true(tlbgen_access(F.a, 0, 4096) >= 0);
	take(&after);
	assert_int_not_equal(memcmp(&before, &after, sizeof(before)), 0);
	take(&before);
	assert_int_equal(tlbgen_deliver(F.a, 0), 1);	/* cpu 2's flush reaches cpu 0 */
	take(&after);
	assert_int_not_equal(memcmp(&before, &after, sizeof(before)), 0);
}

/* Threaded: attaching the same CPU twice, from one thread or two. */
struct att {
	struct tlbgen_system *s;
	int ret_same_cpu, ret_other_cpu;
};

static void *other_thread(void *arg)
{
	struct att *a = arg;

	a->ret_same_cpu = tlbgen_cpu__attach(a->s, 0);	/* attached by the main thread */
	a->ret_other_cpu = tlbgen_poll(a->s, 0);	/* not this thread's CPU */
	return NULL;
}

static void test_threaded_attach(void **state)
{
	TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = 2, .mode = TLBGEN_MODE_THREADED);
	struct tlbgen_system *s;
	struct tlbgen_mm *mm;
	struct att a = { 0 };
	pthread_t t;

	(void)state;
	assert_int_equal(tlbgen_system__create(&o, &s), 0);
	assert_int_equal(tlbgen_mm__create(s, PAGES, &mm), 0);
	assert_int_equal(tlbgen_cpu__attach(s, 0), 0);
	assert_int_equal(tlbgen_cpu__attach(s, 0), -EBUSY);	/* twice */
	assert_int_equal(tlbgen_cpu__attach(s, 1), -EBUSY);	/* this thread already is cpu 0 */
	assert_int_equal(tlbgen_cpu__attach(s, 2), -EINVAL);
	assert_int_equal(tlbgen_this_cpu(s), 0);
	assert_int_equal(tlbgen_switch_mm(s, 1, mm), -EPERM);	/* not our CPU */
	assert_int_equal(tlbgen_access(s, 1, 0), -EPERM);
	assert_int_equal(tlbgen_cpu__detach(s, 1), -EPERM);
	assert_int_equal(tlbgen_system__destroy(s), -EBUSY);	/* a thread is attached */
	assert_int_equal(tlbgen_system__set_profile(s, "v6.0"), -EBUSY);
	assert_int_equal(tlbgen_cpu__spawn(s, 0, NULL, NULL), -EBUSY);	/* attached */
	a.s = s;
	assert_int_equal(pthread_create(&t, NULL, other_thread, &a), 0);
	pthread_join(t, NULL);
	assert_int_equal(a.ret_same_cpu, -EBUSY);
	assert_int_equal(a.ret_other_cpu, -EPERM);
	assert_int_equal(tlbgen_cpu__join(s, 1, NULL), -ESRCH);	/* never spawned */
	assert_int_equal(tlbgen_cpu__join(s, 2, NULL), -EINVAL);
	assert_int_equal(tlbgen_cpu__spawn(s, 2, NULL, NULL), -EINVAL);
	assert_int_equal(tlbgen_cpu__should_stop(s, 2), -EINVAL);
	assert_int_equal(tlbgen_cpu__pin(s, 2), -EINVAL);
	assert_int_equal(tlbgen_runtime__host_cpu(s, 2), -EINVAL);
	assert_int_equal(tlbgen_poll(s, 2), -EINVAL);
	{
		struct tlbgen_runtime_stats rs = { .sz = 1 };

		assert_int_equal(tlbgen_runtime__stats(s, &rs), -EINVAL);
	}
	/* stepped-only functions on a threaded system */
	assert_int_equal(tlbgen_deliver(s, 0), -EOPNOTSUPP);
	assert_int_equal(tlbgen_step(s), -EOPNOTSUPP);
	assert_int_equal(tlbgen_cpu__is_waiting(s, 0), -EOPNOTSUPP);
	assert_int_equal(tlbgen_clock_advance(s, 1), -EOPNOTSUPP);	/* monotonic clock */
	assert_int_equal(tlbgen_cpu__detach(s, 0), 0);
	assert_int_equal(tlbgen_cpu__detach(s, 0), -EPERM);	/* twice */
	assert_int_equal(tlbgen_this_cpu(s), -ENOENT);
	assert_int_equal(tlbgen_system__destroy(s), 0);
}

int main(void)
{
	const struct CMUnitTest t[] = {
		cmocka_unit_test(test_system),
		cmocka_unit_test(test_mm_tlb),
		cmocka_unit_test(test_batch_rmap),
		cmocka_unit_test(test_stepped_oracle_stats),
		cmocka_unit_test(test_fault_cost_ceiling_coherence),
		cmocka_unit_test(test_snapshot_sensitive),	/* last: changes state */
	};
	const struct CMUnitTest t2[] = { cmocka_unit_test(test_threaded_attach) };
	int r = cmocka_run_group_tests_name("misuse (stepped, wrong state)", t, setup, teardown);

	return r + cmocka_run_group_tests_name("misuse (threaded attach)", t2, NULL, NULL);
}
