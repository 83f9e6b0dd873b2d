// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Bad input for every public function of the core headers (system.h, mm.h,
 * tlb.h, tlbbatch.h, stepped.h, oracle.h, stats.h, profile.h): NULL, a CPU
 * out of range, an object of another system, an operation on a CPU waiting
 * for acknowledgements. Each call must return a negative errno and leave the
 * observable state (counters, generations, masks, CPU state, queues, policy,
 * oracle) exactly as it was. Unknown names return -ENOENT and the message
 * lists the valid ones.
 */
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

static void snap_take(const struct fx *f, struct snap *s)
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

static void snap_check(const struct fx *f, const struct snap *before, const char *what)
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

static int setup_busy(void **state)
{
	return fx_setup(state, "latest", true);
}

static int setup_idle(void **state)
{
	return fx_setup(state, "v5.17", false);
}

static int fx_teardown(void **state)
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

/* ---- system.h ------------------------------------------------------------------ */

struct padded_opts {
	struct tlbgen_system_opts o;
	uint64_t future;
};

static void test_system(void **state)
{
	struct fx *f = *state;
	struct tlbgen_system *out = (struct tlbgen_system *)f;	/* sentinel */
	struct tlbgen_clock bad_clock = { .hz = 0 };
	TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = 2);
	struct padded_opts po = { .o = o, .future = 1 };
	uint64_t j;
	const char *msg;

	BAD(f, tlbgen_system__create(NULL, &out), -EINVAL);
	BAD(f, tlbgen_system__create(&o, NULL), -EINVAL);
	o.sz = 0;
	BAD(f, tlbgen_system__create(&o, &out), -EINVAL);
	o.sz = sizeof(o);
	po.o.sz = sizeof(po);
	BAD(f, tlbgen_system__create(&po.o, &out), -EINVAL);	/* unknown non-zero field */
	o.nr_cpus = TLBGEN_MAX_CPUS + 1;
	BAD(f, tlbgen_system__create(&o, &out), -EINVAL);
	o.nr_cpus = 2;
	o.mode = (enum tlbgen_mode)7;
	BAD(f, tlbgen_system__create(&o, &out), -EINVAL);
	o.mode = TLBGEN_MODE_STEPPED;
	o.flags = 1U << 9;
	BAD(f, tlbgen_system__create(&o, &out), -EINVAL);
	o.flags = 0;
	o.clock = &bad_clock;
	BAD(f, tlbgen_system__create(&o, &out), -EINVAL);
	o.clock = NULL;
	o.profile = "v9.99";
	t_capture_start();
	BAD(f, tlbgen_system__create(&o, &out), -ENOENT);
	msg = t_capture_stop();
	assert_non_null(strstr(msg, "v9.99"));
	assert_non_null(strstr(msg, "v5.17"));
	assert_non_null(strstr(msg, "v6.0-aa44284960"));
	assert_non_null(strstr(msg, "v6.14"));
	assert_non_null(strstr(msg, "latest"));
	assert_ptr_equal(out, (struct tlbgen_system *)f);	/* *out untouched */

	BAD(f, tlbgen_system__destroy(NULL), -EINVAL);
	BAD(f, tlbgen_system__nr_cpus(NULL), -EINVAL);
	BAD(f, tlbgen_system__mode(NULL), -EINVAL);
	BAD(f, tlbgen_system__jiffies(NULL, &j), -EINVAL);
	BAD(f, tlbgen_system__jiffies(f->sys, NULL), -EINVAL);
	BAD(f, tlbgen_system__hz(NULL), -EINVAL);
	BAD(f, tlbgen_clock_advance(NULL, 1), -EINVAL);
	BAD(f, tlbgen_system__set_trace(NULL, NULL), -EINVAL);
	{
		struct tlbgen_trace_ops ops = { .sz = 1 };

		BAD(f, tlbgen_system__set_trace(f->sys, &ops), -EINVAL);
	}
}

/* A CPU waiting for acknowledgements: everything on it, and policy changes, are -EBUSY. */
static void test_waiting_cpu(void **state)
{
	struct fx *f = *state;
	TLBGEN_OPTS(tlbgen_trace_ops, ops);

	BAD(f, tlbgen_system__destroy(f->sys), -EBUSY);
	BAD(f, tlbgen_mm__destroy(f->mm), -EBUSY);
	BAD(f, tlbgen_switch_mm(f->sys, 0, NULL), -EBUSY);
	BAD(f, tlbgen_switch_mm(f->sys, 0, f->mm), -EBUSY);
	BAD(f, tlbgen_enter_lazy_tlb(f->sys, 0), -EBUSY);
	BAD(f, tlbgen_leave_mm(f->sys, 0), -EBUSY);
	BAD(f, tlbgen_flush_tlb_mm_range(f->sys, 0, f->mm, 0, PG(1), 12, false), -EBUSY);
	BAD(f, tlbgen_flush_tlb_mm(f->sys, 0, f->mm), -EBUSY);
	BAD(f, tlbgen_flush_tlb_page(f->sys, 0, f->mm, PG(1)), -EBUSY);
	BAD(f, tlbgen_flush_tlb_kernel_range(f->sys, 0, 0, PG(1)), -EBUSY);
	BAD(f, tlbgen_set_tlb_single_page_flush_ceiling(f->sys, 5), -EBUSY);
	BAD(f, tlbgen_arch_tlbbatch_add_pending(f->sys, 0, f->batch, f->mm, PG(4), PG(5)),
	    -EBUSY);
	BAD(f, tlbgen_arch_tlbbatch_flush(f->sys, 0, f->batch), -EBUSY);
	BAD(f, tlbgen_access(f->sys, 0, PG(1)), -EBUSY);
	BAD(f, tlbgen_system__set_profile(f->sys, "v6.0"), -EBUSY);
	BAD(f, tlbgen_system__set_choice(f->sys, "early_return", "none"), -EBUSY);
	BAD(f, tlbgen_system__set_choices(f->sys, "early_return=none"), -EBUSY);
	BAD(f, tlbgen_system__set_trace(f->sys, &ops), -EBUSY);
	/* Other CPUs are not blocked. */
	assert_int_equal(tlbgen_access(f->sys, 1, PG(1)), 1);
}

/* ---- mm.h ------------------------------------------------------------------------ */

static void test_mm(void **state)
{
	struct fx *f = *state;
	struct tlbgen_mm *out = (struct tlbgen_mm *)f;
	uint64_t g;

	BAD(f, tlbgen_mm__create(NULL, 8, &out), -EINVAL);
	BAD(f, tlbgen_mm__create(f->sys, 0, &out), -EINVAL);
	BAD(f, tlbgen_mm__create(f->sys, (1UL << 24) + 1, &out), -EINVAL);
	BAD(f, tlbgen_mm__create(f->sys, 8, NULL), -EINVAL);
	assert_ptr_equal(out, (struct tlbgen_mm *)f);
	BAD(f, tlbgen_mm__destroy(NULL), -EINVAL);
	BAD(f, tlbgen_mm__destroy(f->mm), -EBUSY);	/* loaded on CPUs 0-2 */
	assert_int_equal(tlbgen_mm__ctx_id(NULL), 0);
	BAD(f, tlbgen_mm__tlb_gen(NULL, &g), -EINVAL);
	BAD(f, tlbgen_mm__tlb_gen(f->mm, NULL), -EINVAL);
	BAD(f, tlbgen_mm__next_trim_cpumask(NULL, &g), -EINVAL);
	BAD(f, tlbgen_mm__next_trim_cpumask(f->mm, NULL), -EINVAL);
	BAD(f, tlbgen_mm__cpumask_test(NULL, 0), -EINVAL);
	BAD(f, tlbgen_mm__cpumask_test(f->mm, OOR), -EINVAL);
	BAD(f, tlbgen_mm__cpumask_test(f->mm, 100000), -EINVAL);
	BAD(f, tlbgen_mm__cpumask_weight(NULL), -EINVAL);
	assert_int_equal(tlbgen_mm__nr_pages(NULL), 0);
	BAD(f, tlbgen_pte_change(NULL, 3, f->mm, 0), -EINVAL);
	BAD(f, tlbgen_pte_change(f->sys, OOR, f->mm, 0), -EINVAL);
	BAD(f, tlbgen_pte_change(f->sys, 3, NULL, 0), -EINVAL);
	BAD(f, tlbgen_pte_change(f->sys, 3, f->mm_other, 0), -EINVAL);
	BAD(f, tlbgen_pte_change(f->sys, 3, f->mm, PG(NPAGES)), -EINVAL);
	BAD(f, tlbgen_pte_change(f->sys, 3, f->mm, ~0UL), -EINVAL);
}

/* ---- tlb.h ------------------------------------------------------------------------ */

static void test_tlb(void **state)
{
	struct fx *f = *state;
	struct tlbgen_cpu_tlbstate st;
	uint64_t g;

	BAD(f, tlbgen_switch_mm(NULL, 3, f->mm), -EINVAL);
	BAD(f, tlbgen_switch_mm(f->sys, OOR, f->mm), -EINVAL);
	BAD(f, tlbgen_switch_mm(f->sys, 3, f->mm_other), -EINVAL);
	BAD(f, tlbgen_enter_lazy_tlb(NULL, 3), -EINVAL);
	BAD(f, tlbgen_enter_lazy_tlb(f->sys, OOR), -EINVAL);
	BAD(f, tlbgen_leave_mm(NULL, 3), -EINVAL);
	BAD(f, tlbgen_leave_mm(f->sys, OOR), -EINVAL);

	BAD(f, tlbgen_flush_tlb_mm_range(NULL, 3, f->mm, 0, PG(1), 12, false), -EINVAL);
	BAD(f, tlbgen_flush_tlb_mm_range(f->sys, OOR, f->mm, 0, PG(1), 12, false), -EINVAL);
	BAD(f, tlbgen_flush_tlb_mm_range(f->sys, 3, NULL, 0, PG(1), 12, false), -EINVAL);
	BAD(f, tlbgen_flush_tlb_mm_range(f->sys, 3, f->mm_other, 0, PG(1), 12, false), -EINVAL);
	BAD(f, tlbgen_flush_tlb_mm_range(f->sys, 3, f->mm, PG(2), PG(1), 12, false), -EINVAL);
	BAD(f, tlbgen_flush_tlb_mm_range(f->sys, 3, f->mm, 0, PG(NPAGES + 1), 12, false),
	    -EINVAL);
	BAD(f, tlbgen_flush_tlb_mm_range(f->sys, 3, f->mm, 0, PG(1), 11, false), -EINVAL);
	BAD(f, tlbgen_flush_tlb_mm_range(f->sys, 3, f->mm, 0, PG(1), 31, false), -EINVAL);
	BAD(f, tlbgen_flush_tlb_mm_range(f->sys, 3, f->mm, PG(1), TLBGEN_TLB_FLUSH_ALL, 12,
					 false), -EINVAL);
	BAD(f, tlbgen_flush_tlb_mm(NULL, 3, f->mm), -EINVAL);
	BAD(f, tlbgen_flush_tlb_mm(f->sys, OOR, f->mm), -EINVAL);
	BAD(f, tlbgen_flush_tlb_mm(f->sys, 3, NULL), -EINVAL);
	BAD(f, tlbgen_flush_tlb_mm(f->sys, 3, f->mm_other), -EINVAL);
	BAD(f, tlbgen_flush_tlb_page(NULL, 3, f->mm, 0), -EINVAL);
	BAD(f, tlbgen_flush_tlb_page(f->sys, OOR, f->mm, 0), -EINVAL);
	BAD(f, tlbgen_flush_tlb_page(f->sys, 3, NULL, 0), -EINVAL);
	BAD(f, tlbgen_flush_tlb_page(f->sys, 3, f->mm_other, 0), -EINVAL);
	BAD(f, tlbgen_flush_tlb_page(f->sys, 3, f->mm, PG(NPAGES)), -EINVAL);
	BAD(f, tlbgen_flush_tlb_page(f->sys, 3, f->mm, ~0UL), -EINVAL);
	BAD(f, tlbgen_flush_tlb_kernel_range(NULL, 3, 0, PG(1)), -EINVAL);
	BAD(f, tlbgen_flush_tlb_kernel_range(f->sys, OOR, 0, PG(1)), -EINVAL);
	BAD(f, tlbgen_flush_tlb_kernel_range(f->sys, 3, PG(2), PG(1)), -EINVAL);

	BAD(f, tlbgen_set_tlb_single_page_flush_ceiling(NULL, 5), -EINVAL);
	BAD(f, tlbgen_set_tlb_single_page_flush_ceiling(f->sys, -1), -EINVAL);
	BAD(f, tlbgen_get_tlb_single_page_flush_ceiling(NULL), -EINVAL);
	BAD(f, tlbgen_cpu__tlbstate(NULL, 0, &st), -EINVAL);
	BAD(f, tlbgen_cpu__tlbstate(f->sys, OOR, &st), -EINVAL);
	BAD(f, tlbgen_cpu__tlbstate(f->sys, 0, NULL), -EINVAL);
	BAD(f, tlbgen_cpu__loaded_mm_is(NULL, 0, f->mm), -EINVAL);
	BAD(f, tlbgen_cpu__loaded_mm_is(f->sys, OOR, f->mm), -EINVAL);
	BAD(f, tlbgen_cpu__loaded_mm_is(f->sys, 0, f->mm_other), -EINVAL);
	BAD(f, tlbgen_cpu__local_tlb_gen(NULL, 0, &g), -EINVAL);
	BAD(f, tlbgen_cpu__local_tlb_gen(f->sys, OOR, &g), -EINVAL);
	BAD(f, tlbgen_cpu__local_tlb_gen(f->sys, 0, NULL), -EINVAL);
}

/* ---- tlbbatch.h ------------------------------------------------------------------- */

static void test_tlbbatch(void **state)
{
	struct fx *f = *state;
	struct tlbgen_tlbbatch *out = (struct tlbgen_tlbbatch *)f;

	BAD(f, tlbgen_tlbbatch__create(NULL, &out), -EINVAL);
	BAD(f, tlbgen_tlbbatch__create(f->sys, NULL), -EINVAL);
	assert_ptr_equal(out, (struct tlbgen_tlbbatch *)f);
	BAD(f, tlbgen_tlbbatch__destroy(NULL), -EINVAL);
	BAD(f, tlbgen_tlbbatch__cpumask_weight(NULL), -EINVAL);
	BAD(f, tlbgen_arch_tlbbatch_add_pending(NULL, 3, f->batch, f->mm, 0, PG(1)), -EINVAL);
	BAD(f, tlbgen_arch_tlbbatch_add_pending(f->sys, OOR, f->batch, f->mm, 0, PG(1)),
	    -EINVAL);
	BAD(f, tlbgen_arch_tlbbatch_add_pending(f->sys, 3, NULL, f->mm, 0, PG(1)), -EINVAL);
	BAD(f, tlbgen_arch_tlbbatch_add_pending(f->sys, 3, f->batch_other, f->mm, 0, PG(1)),
	    -EINVAL);
	BAD(f, tlbgen_arch_tlbbatch_add_pending(f->sys, 3, f->batch, NULL, 0, PG(1)), -EINVAL);
	BAD(f, tlbgen_arch_tlbbatch_add_pending(f->sys, 3, f->batch, f->mm_other, 0, PG(1)),
	    -EINVAL);
	BAD(f, tlbgen_arch_tlbbatch_add_pending(f->sys, 3, f->batch, f->mm, PG(1), PG(1)),
	    -EINVAL);
	BAD(f, tlbgen_arch_tlbbatch_add_pending(f->sys, 3, f->batch, f->mm, 0, PG(NPAGES + 1)),
	    -EINVAL);
	BAD(f, tlbgen_arch_tlbbatch_flush(NULL, 3, f->batch), -EINVAL);
	BAD(f, tlbgen_arch_tlbbatch_flush(f->sys, OOR, f->batch), -EINVAL);
	BAD(f, tlbgen_arch_tlbbatch_flush(f->sys, 3, NULL), -EINVAL);
	BAD(f, tlbgen_arch_tlbbatch_flush(f->sys, 3, f->batch_other), -EINVAL);
}

/* A batch whose flush is in flight: destroy, add and flush are refused. */
static void test_tlbbatch_inflight(void **state)
{
	struct fx *f = *state;

	assert_int_equal(tlbgen_arch_tlbbatch_flush(f->sys, 3, f->batch), 0);
	assert_int_equal(tlbgen_cpu__is_waiting(f->sys, 3), 1);
	BAD(f, tlbgen_tlbbatch__destroy(f->batch), -EBUSY);
	BAD(f, tlbgen_arch_tlbbatch_add_pending(f->sys, 3, f->batch, f->mm, 0, PG(1)), -EBUSY);
	BAD(f, tlbgen_arch_tlbbatch_flush(f->sys, 3, f->batch), -EBUSY);
	/* Another CPU may not flush a batch that is in flight either. */
	BAD(f, tlbgen_arch_tlbbatch_flush(f->sys, 1, f->batch), -EBUSY);
	BAD(f, tlbgen_mm__destroy(f->mm), -EBUSY);
	t_idle(f->sys);
	assert_int_equal(tlbgen_cpu__is_waiting(f->sys, 3), 0);
}

/* ---- stepped.h -------------------------------------------------------------------- */

static void test_stepped(void **state)
{
	struct fx *f = *state;
	TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = 2, .mode = TLBGEN_MODE_THREADED);
	struct tlbgen_system *thr = t_sys_opts(&o);

	BAD(f, tlbgen_deliver(NULL, 1), -EINVAL);
	BAD(f, tlbgen_deliver(f->sys, OOR), -EINVAL);
	BAD(f, tlbgen_deliver_from(NULL, 1, 0), -EINVAL);
	BAD(f, tlbgen_deliver_from(f->sys, OOR, 0), -EINVAL);
	BAD(f, tlbgen_deliver_from(f->sys, 1, OOR), -EINVAL);
	/* CPU 1 has CPU 0's call queued, not CPU 3's: nothing runs, queue intact. */
	BAD(f, tlbgen_deliver_from(f->sys, 1, 3), -ENOENT);
	BAD(f, tlbgen_deliver_from(f->sys, 3, 0), -ENOENT);
	BAD(f, tlbgen_step(NULL), -EINVAL);
	BAD(f, tlbgen_run_until_idle(NULL), -EINVAL);
	BAD(f, tlbgen_cpu__is_waiting(NULL, 0), -EINVAL);
	BAD(f, tlbgen_cpu__is_waiting(f->sys, OOR), -EINVAL);
	BAD(f, tlbgen_cpu__pending_calls(NULL, 0), -EINVAL);
	BAD(f, tlbgen_cpu__pending_calls(f->sys, OOR), -EINVAL);
	BAD(f, tlbgen_cpu__ipi_pending(NULL, 0), -EINVAL);
	BAD(f, tlbgen_cpu__ipi_pending(f->sys, OOR), -EINVAL);

	/* A threaded system has no host-driven delivery. */
	assert_int_equal(tlbgen_deliver(thr, 0), -EOPNOTSUPP);
	assert_int_equal(tlbgen_deliver_from(thr, 0, 1), -EOPNOTSUPP);
	assert_int_equal(tlbgen_step(thr), -EOPNOTSUPP);
	assert_int_equal(tlbgen_run_until_idle(thr), -EOPNOTSUPP);
	assert_int_equal(tlbgen_cpu__is_waiting(thr, 0), -EOPNOTSUPP);
	assert_int_equal(tlbgen_cpu__pending_calls(thr, 0), -EOPNOTSUPP);
	assert_int_equal(tlbgen_cpu__ipi_pending(thr, 0), -EOPNOTSUPP);
	assert_int_equal(tlbgen_clock_advance(thr, 1), -EOPNOTSUPP);
	/* ... and its CPUs belong to attached threads only. */
	assert_int_equal(tlbgen_switch_mm(thr, 0, NULL), -EPERM);
	assert_int_equal(tlbgen_enter_lazy_tlb(thr, 0), -EPERM);
	assert_int_equal(tlbgen_flush_tlb_kernel_range(thr, 0, 0, PG(1)), -EPERM);
	assert_int_equal(tlbgen_system__destroy(thr), 0);
}

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

#define FX(fn, setup) { #fn, fn, setup, fx_teardown, NULL }

int main(void)
{
	const struct CMUnitTest tests[] = {
		FX(test_system, setup_busy),
		FX(test_waiting_cpu, setup_busy),
		FX(test_mm, setup_busy),
		FX(test_tlb, setup_busy),
		FX(test_tlbbatch, setup_busy),
		FX(test_tlbbatch_inflight, setup_idle),
		FX(test_stepped, setup_busy),
		FX(test_oracle, setup_busy),
		FX(test_oracle_lazy, setup_idle),
		FX(test_stats, setup_busy),
		FX(test_profile_registry, setup_busy),
		FX(test_profile_system, setup_idle),
	};

	return cmocka_run_group_tests_name("bad_input", tests, NULL, NULL);
}
