// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Bad input for the operations of the core headers (system.h, mm.h, tlb.h,
 * tlbbatch.h, stepped.h): NULL, a CPU out of range, an object of another
 * system, an operation on a CPU waiting for acknowledgements or on a batch
 * in flight. Each call must return a negative errno and leave the
 * observable state (counters, generations, masks, CPU state, queues,
 * policy, oracle) exactly as it was.
 */
#include "bad-input-fx.h"

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
	BAD(f, tlbgen_mm__create(f->sys, (1UL << 25) + 1, &out), -EINVAL);
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
	};

	return cmocka_run_group_tests_name("bad_input", tests, NULL, NULL);
}
