// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/core/test_decision.c - the decision hook reports what the kernel's
 * tlb_flush tracepoint would (reasons of include/linux/mm_types.h, pages
 * as arch/x86/mm/tlb.c traces them); flush_tlb_multi() by a hypervisor
 * (pv_flush_tlb_multi=hyperv, pvm); seeding a system mid-run.
 */
#include "tlbgen-test.h"

#define MAXD 64
struct dlog {
	unsigned int n;
	struct tlbgen_flush_decision d[MAXD];
};

static void on_decision(void *ctx, const struct tlbgen_flush_decision *d)
{
	struct dlog *l = ctx;

	assert_true(l->n < MAXD);
	l->d[l->n++] = *d;
}

static void hook(struct tlbgen_system *sys, struct dlog *l)
{
	TLBGEN_OPTS(tlbgen_decision_ops, ops, .decision = on_decision, .ctx = l);

	memset(l, 0, sizeof(*l));
	assert_int_equal(tlbgen_system__set_decision_hook(sys, &ops), 0);
}

static void expect(const struct dlog *l, unsigned int i, unsigned int cpu,
		   enum tlbgen_tlb_flush_reason r, unsigned long pages)
{
	assert_true(i < l->n);
	assert_int_equal(l->d[i].cpu, cpu);
	assert_int_equal(l->d[i].reason, r);
	assert_int_equal(l->d[i].pages, pages);
}

#define ALL TLBGEN_TLB_FLUSH_ALL

/* The one decision of `cpu` at or after index `from` (IPIs arrive in any order). */
static unsigned int of_cpu(const struct dlog *l, unsigned int from, unsigned int cpu)
{
	unsigned int i, found = MAXD;

	for (i = from; i < l->n; i++)
		if (l->d[i].cpu == cpu) {
			assert_int_equal(found, MAXD);
			found = i;
		}
	assert_true(found < MAXD);
	return found;
}

/* switch_mm_irqs_off(): a new ASID flushes, a current one does not, the same mm nothing. */
static void test_switch_reasons(void **state)
{
	struct tlbgen_system *sys = t_sys("latest", 2, 1);
	struct tlbgen_mm *a = t_mm(sys, 8), *b = t_mm(sys, 8);
	struct dlog l;

	(void)state;
	hook(sys, &l);
	assert_int_equal(tlbgen_switch_mm(sys, 0, a), 0);
	assert_int_equal(tlbgen_switch_mm(sys, 0, a), 0);	/* thread to thread: nothing */
	assert_int_equal(tlbgen_switch_mm(sys, 0, b), 0);
	assert_int_equal(tlbgen_switch_mm(sys, 0, a), 0);	/* a's ASID is current */
	assert_int_equal(l.n, 3);
	expect(&l, 0, 0, TLBGEN_TLB_FLUSH_ON_TASK_SWITCH, ALL);
	assert_ptr_equal(l.d[0].mm, a);
	expect(&l, 1, 0, TLBGEN_TLB_FLUSH_ON_TASK_SWITCH, ALL);
	expect(&l, 2, 0, TLBGEN_TLB_FLUSH_ON_TASK_SWITCH, 0);
	/* Lazy while cpu 1 flushes a: back into a reloads with a flush. */
	assert_int_equal(tlbgen_switch_mm(sys, 1, a), 0);
	assert_int_equal(tlbgen_enter_lazy_tlb(sys, 0), 0);
	l.n = 0;
	assert_int_equal(tlbgen_flush_tlb_page(sys, 1, a, 0), 0);
	t_idle(sys);
	expect(&l, 0, 1, TLBGEN_TLB_REMOTE_SEND_IPI, 1);
	expect(&l, 1, 1, TLBGEN_TLB_LOCAL_MM_SHOOTDOWN, 1);
	assert_int_equal(l.n, 2);			/* no IPI to the lazy CPU */
	assert_int_equal(tlbgen_switch_mm(sys, 0, a), 0);
	expect(&l, 2, 0, TLBGEN_TLB_FLUSH_ON_TASK_SWITCH, ALL);
	assert_int_equal(tlbgen_system__set_decision_hook(sys, NULL), 0);
	assert_int_equal(tlbgen_switch_mm(sys, 0, b), 0);
	assert_int_equal(l.n, 3);			/* unhooked */
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

/* flush_tlb_func(): remote, local partial/full, up to date, wrong mm. */
static void test_flush_reasons(void **state)
{
	struct tlbgen_system *sys = t_sys("latest", 3, 1);
	struct tlbgen_mm *a = t_mm(sys, 64), *b = t_mm(sys, 8);
	struct dlog l;

	(void)state;
	t_switch_all(sys, 0, 2, a);
	assert_int_equal(tlbgen_switch_mm(sys, 2, b), 0);	/* cpu 2 left a */
	hook(sys, &l);
	assert_int_equal(tlbgen_flush_tlb_mm_range(sys, 0, a, PG(2), PG(5), TLBGEN_PAGE_SHIFT,
						   false), 0);
	t_idle(sys);
	expect(&l, 0, 0, TLBGEN_TLB_REMOTE_SEND_IPI, 3);
	expect(&l, 1, 0, TLBGEN_TLB_LOCAL_MM_SHOOTDOWN, 3);
	expect(&l, 2, 1, TLBGEN_TLB_REMOTE_SHOOTDOWN, 3);
	assert_int_equal(l.d[2].initiator, 0);
	assert_int_equal(l.n, 3);			/* cpu 2: not loaded, not trimmed */
	/* Past the ceiling (33): TLB_FLUSH_ALL everywhere. */
	l.n = 0;
	assert_int_equal(tlbgen_flush_tlb_mm_range(sys, 0, a, 0, PG(40), TLBGEN_PAGE_SHIFT,
						   false), 0);
	t_idle(sys);
	expect(&l, 0, 0, TLBGEN_TLB_REMOTE_SEND_IPI, ALL);
	expect(&l, 1, 0, TLBGEN_TLB_LOCAL_MM_SHOOTDOWN, ALL);
	expect(&l, 2, 1, TLBGEN_TLB_REMOTE_SHOOTDOWN, ALL);
	assert_int_equal(l.n, 3);
	/* Page tables freed: cpu 2, in the mask on another mm, leaves it. */
	l.n = 0;
	assert_int_equal(tlbgen_flush_tlb_mm(sys, 0, a), 0);
	t_idle(sys);
	assert_int_equal(l.n, 4);
	expect(&l, of_cpu(&l, 2, 1), 1, TLBGEN_TLB_REMOTE_SHOOTDOWN, ALL);
	expect(&l, of_cpu(&l, 2, 2), 2, TLBGEN_TLB_REMOTE_WRONG_CPU, 0);
	assert_ptr_equal(l.d[of_cpu(&l, 2, 2)].mm, a);
	assert_int_equal(tlbgen_mm__cpumask_test(a, 2), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

/* A batch (mm NULL) flushed on its only CPU: TLB_LOCAL_SHOOTDOWN. */
static void test_batch_reason(void **state)
{
	struct tlbgen_system *sys = t_sys("latest", 2, 1);
	struct tlbgen_mm *a = t_mm(sys, 8);
	struct tlbgen_tlbbatch *batch;
	struct dlog l;

	(void)state;
	assert_int_equal(tlbgen_switch_mm(sys, 0, a), 0);
	assert_int_equal(tlbgen_tlbbatch__create(sys, &batch), 0);
	hook(sys, &l);
	assert_int_equal(tlbgen_arch_tlbbatch_add_pending(sys, 0, batch, a, 0, PG(1)), 0);
	assert_int_equal(tlbgen_arch_tlbbatch_flush(sys, 0, batch), 0);
	t_idle(sys);
	assert_int_equal(l.n, 1);
	expect(&l, 0, 0, TLBGEN_TLB_LOCAL_SHOOTDOWN, ALL);
	assert_null(l.d[0].mm);
	assert_int_equal(tlbgen_tlbbatch__destroy(batch), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

/* Two CPUs on a; cpu 0 changes page 0 and flushes it under `pv`. */
static struct tlbgen_system *pv_setup(const char *pv, struct tlbgen_mm **a, struct dlog *l)
{
	char ch[48];
	struct tlbgen_system *sys;

	snprintf(ch, sizeof(ch), "pv_flush_tlb_multi=%s", pv);
	sys = t_sys_mode(2, TLBGEN_MODE_STEPPED, "latest", ch);
	*a = t_mm(sys, 8);
	t_switch_all(sys, 0, 1, *a);
	assert_int_equal(tlbgen_access(sys, 0, 0), 0);
	assert_int_equal(tlbgen_access(sys, 1, 0), 0);
	assert_int_equal(tlbgen_access(sys, 1, 0), 1);		/* a hit: cached */
	hook(sys, l);
	assert_int_equal(tlbgen_pte_change(sys, 0, *a, 0), 0);
	assert_int_equal(tlbgen_flush_tlb_page(sys, 0, *a, 0), 0);
	return sys;
}

/* The host flushed both CPUs: no IPI, no flush_tlb_func, no generation moved. */
static void test_hyperv(void **state)
{
	struct tlbgen_mm *a;
	struct dlog l;
	struct tlbgen_system *sys = pv_setup("hyperv", &a, &l);

	(void)state;
	assert_int_equal(tlbgen_cpu__is_waiting(sys, 0), 0);
	assert_int_equal(l.n, 1);
	expect(&l, 0, 0, TLBGEN_TLB_REMOTE_SEND_IPI, 1);
	assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_IPI_SENT), 0);
	assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_FLUSH_FUNC), 0);
	assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_IPI_AVOIDED), 1);
	assert_int_equal(t_local_gen(sys, 0), 0);
	assert_int_equal(t_local_gen(sys, 1), 0);
	assert_int_equal(t_mm_gen(a), 1);
	/* Both TLBs lost page 0: misses, and the oracle sees nothing stale. */
	assert_int_equal(tlbgen_access(sys, 0, 0), 0);
	assert_int_equal(tlbgen_access(sys, 1, 0), 0);
	assert_int_equal(tlbgen_oracle__violations(sys), 0);
	assert_int_equal(tlbgen_mm__cpumask_weight(a), 2);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

/*
 * PVM: the initiator's own flush_tlb_func() as native, the other CPU by the
 * host; that CPU's generation lags, so its own next flush is a full one.
 */
static void test_pvm(void **state)
{
	struct tlbgen_mm *a;
	struct dlog l;
	struct tlbgen_system *sys = pv_setup("pvm", &a, &l);

	(void)state;
	assert_int_equal(l.n, 2);
	expect(&l, 0, 0, TLBGEN_TLB_REMOTE_SEND_IPI, 1);
	expect(&l, 1, 0, TLBGEN_TLB_LOCAL_MM_SHOOTDOWN, 1);
	assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_IPI_SENT), 0);
	assert_int_equal(t_cpu_stat(sys, 1, TLBGEN_STAT_FLUSH_FUNC), 0);
	assert_int_equal(t_local_gen(sys, 0), 1);
	assert_int_equal(t_local_gen(sys, 1), 0);
	assert_int_equal(tlbgen_access(sys, 1, 0), 0);
	assert_int_equal(tlbgen_oracle__violations(sys), 0);
	l.n = 0;
	assert_int_equal(tlbgen_pte_change(sys, 1, a, PG(1)), 0);
	assert_int_equal(tlbgen_flush_tlb_page(sys, 1, a, PG(1)), 0);
	expect(&l, 0, 1, TLBGEN_TLB_REMOTE_SEND_IPI, 1);
	expect(&l, 1, 1, TLBGEN_TLB_LOCAL_MM_SHOOTDOWN, ALL);	/* 2 != 0 + 1 */
	/* Native, the same: the IPI had brought cpu 1 to generation 1. */
	assert_int_equal(tlbgen_system__destroy(sys), 0);
	sys = pv_setup("native", &a, &l);
	t_idle(sys);
	l.n = 0;
	assert_int_equal(tlbgen_pte_change(sys, 1, a, PG(1)), 0);
	assert_int_equal(tlbgen_flush_tlb_page(sys, 1, a, PG(1)), 0);
	t_idle(sys);
	expect(&l, 1, 1, TLBGEN_TLB_LOCAL_MM_SHOOTDOWN, 1);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

/* PVM: a lazy CPU is not flushed by the host, nor a freed-tables flush skipped. */
static void test_pvm_lazy(void **state)
{
	struct tlbgen_system *sys = t_sys_mode(2, TLBGEN_MODE_STEPPED, "latest",
					       "pv_flush_tlb_multi=pvm");
	struct tlbgen_mm *a = t_mm(sys, 8);

	(void)state;
	t_switch_all(sys, 0, 1, a);
	assert_int_equal(tlbgen_access(sys, 1, 0), 0);
	assert_int_equal(tlbgen_enter_lazy_tlb(sys, 1), 0);
	assert_int_equal(tlbgen_pte_change(sys, 0, a, 0), 0);
	assert_int_equal(tlbgen_flush_tlb_page(sys, 0, a, 0), 0);
	assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_IPI_AVOIDED), 0);
	assert_int_equal(tlbgen_flush_tlb_mm(sys, 0, a), 0);
	assert_int_equal(t_cpu_stat(sys, 0, TLBGEN_STAT_IPI_AVOIDED), 1);
	/* Back from lazy: the stale generation reloads with a flush. */
	assert_int_equal(tlbgen_switch_mm(sys, 1, a), 0);
	assert_int_equal(tlbgen_access(sys, 1, 0), 0);
	assert_int_equal(tlbgen_oracle__violations(sys), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

/* Seeding: the CPUs and the mm as a recorded kernel had them. */
static void test_seed(void **state)
{
	struct tlbgen_system *sys = t_sys("latest", 3, 1);
	struct tlbgen_mm *a = t_mm(sys, 8);
	uint64_t bits = 0x7;	/* cpus 0..2 */
	TLBGEN_OPTS(tlbgen_mm_seed_opts, ms, .tlb_gen = 10, .cpumask = &bits, .nr_bits = 3);
	TLBGEN_OPTS(tlbgen_cpu_seed_opts, c0, .loaded_mm = a, .tlb_gen = 10);
	TLBGEN_OPTS(tlbgen_cpu_seed_opts, c1, .loaded_mm = a, .tlb_gen = 9, .is_lazy = true);
	TLBGEN_OPTS(tlbgen_cpu_seed_opts, bad, .loaded_mm = a, .tlb_gen = 11);
	struct { struct tlbgen_cpu_seed_opts o; uint64_t junk; } big = { .o = c0, .junk = 1 };
	struct dlog l;

	(void)state;
	assert_int_equal(tlbgen_mm__seed(a, &ms), 0);
	assert_int_equal(t_mm_gen(a), 10);
	assert_int_equal(tlbgen_mm__cpumask_weight(a), 3);
	/* Bad input leaves everything as it was. */
	big.o.sz = sizeof(big);
	assert_int_equal(tlbgen_cpu__seed(sys, 0, &big.o), -EINVAL);
	assert_int_equal(tlbgen_cpu__seed(sys, 0, &bad), -EINVAL);
	assert_int_equal(tlbgen_cpu__seed(sys, 3, &c0), -EINVAL);
	assert_int_equal(tlbgen_cpu__loaded_mm_is(sys, 0, NULL), 1);
	ms.nr_bits = 2;
	assert_int_equal(tlbgen_mm__seed(a, &ms), -EINVAL);
	assert_int_equal(tlbgen_cpu__seed(sys, 0, &c0), 0);
	assert_int_equal(tlbgen_cpu__seed(sys, 1, &c1), 0);
	/* The mm's generation may not go below a CPU's. */
	ms.nr_bits = 3;
	ms.tlb_gen = 9;
	assert_int_equal(tlbgen_mm__seed(a, &ms), -EINVAL);
	assert_int_equal(t_mm_gen(a), 10);
	assert_int_equal(t_local_gen(sys, 0), 10);
	assert_true(t_state(sys, 1).is_lazy);
	hook(sys, &l);
	/* cpu 1 back from lazy, behind: reload with a flush; cpu 0: nothing. */
	assert_int_equal(tlbgen_switch_mm(sys, 1, a), 0);
	assert_int_equal(tlbgen_switch_mm(sys, 0, a), 0);
	assert_int_equal(l.n, 1);
	expect(&l, 0, 1, TLBGEN_TLB_FLUSH_ON_TASK_SWITCH, ALL);
	/* cpu 2 is in the mask but runs init_mm: a freed-tables flush makes it leave. */
	l.n = 0;
	assert_int_equal(tlbgen_flush_tlb_mm(sys, 0, a), 0);
	t_idle(sys);
	expect(&l, 0, 0, TLBGEN_TLB_REMOTE_SEND_IPI, ALL);
	expect(&l, 1, 0, TLBGEN_TLB_LOCAL_MM_SHOOTDOWN, ALL);
	assert_int_equal(l.n, 4);
	assert_int_equal(t_mm_gen(a), 11);
	assert_int_equal(tlbgen_mm__cpumask_test(a, 2), 0);
	assert_int_equal(tlbgen_system__warns(sys), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

static void test_hook_bad_input(void **state)
{
	struct tlbgen_system *sys = t_sys("latest", 2, 1);
	TLBGEN_OPTS(tlbgen_decision_ops, none, .ctx = NULL);
	struct { struct tlbgen_decision_ops o; uint64_t junk; } big = { 0 };

	(void)state;
	assert_int_equal(tlbgen_system__set_decision_hook(NULL, NULL), -EINVAL);
	assert_int_equal(tlbgen_system__set_decision_hook(sys, &none), -EINVAL);
	big.o.sz = sizeof(big);
	big.o.decision = on_decision;
	big.junk = 1;
	assert_int_equal(tlbgen_system__set_decision_hook(sys, &big.o), -EINVAL);
	assert_string_equal(tlbgen_tlb_flush_reason_name(TLBGEN_TLB_REMOTE_WRONG_CPU),
			    "remote wrong CPU");
	assert_null(tlbgen_tlb_flush_reason_name(TLBGEN_NR_TLB_FLUSH_REASONS));
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_switch_reasons),
		cmocka_unit_test(test_flush_reasons),
		cmocka_unit_test(test_batch_reason),
		cmocka_unit_test(test_hyperv),
		cmocka_unit_test(test_pvm),
		cmocka_unit_test(test_pvm_lazy),
		cmocka_unit_test(test_seed),
		cmocka_unit_test(test_hook_bad_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
