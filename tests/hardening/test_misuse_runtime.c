// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/hardening/test_misuse_runtime.c - stepped.h, oracle.h, stats.h,
 * runtime.h, fault.h, cost.h, ceiling.h and coherence.h against NULL, ids
 * out of range, objects of another system and calls in the wrong state,
 * each leaving the state unchanged (misuse-fx.h); the snapshot sees a
 * change; and attaching a CPU twice, from one thread or two.
 */
#include <pthread.h>

#include "misuse-fx.h"

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
		cmocka_unit_test(test_stepped_oracle_stats),
		cmocka_unit_test(test_fault_cost_ceiling_coherence),
		cmocka_unit_test(test_state_as_set_up),
		cmocka_unit_test(test_snapshot_sensitive),	/* last: changes state */
	};
	const struct CMUnitTest t2[] = { cmocka_unit_test(test_threaded_attach) };
	int r = cmocka_run_group_tests_name("misuse (stepped, wrong state)", t, setup, teardown);

	return r + cmocka_run_group_tests_name("misuse (threaded attach)", t2, NULL, NULL);
}
