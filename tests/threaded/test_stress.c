// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/threaded/test_stress.c - the core behaviours on real threads:
 * thousands of concurrent flushes among 2-8 emulated CPUs (switches, lazy
 * TLB, ranged and full flushes of shared mms, simulated accesses) with the
 * oracle on. Every correct profile must end with zero stale translations,
 * every mm must be destroyable after exit_mmap's final flush, and nothing
 * may deadlock (two CPUs flushing each other constantly).
 *
 * Usage: test_stress PROFILE NR_CPUS poll|signal OPS_PER_CPU [broken|invlpgb]
 * "broken" registers a profile whose IPI condition never sends: the same
 * workload must then report violations (the test can fail). "invlpgb" gives
 * the machine AMD INVLPGB with jiffies held at 0, so that CPU 0's flush in
 * the prologue (all CPUs on mm 0) hands mm 0 a global ASID: its flushes are
 * then broadcasts whose TLBSYNC edits every CPU's simulated TLB.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tlbgen-test.h"

#define NR_MM		3
#define NR_PAGES	64

static const char *profile = "latest";
static unsigned int nr_cpus = 4;
static enum tlbgen_ipi_backend backend = TLBGEN_IPI_POLL;
static unsigned int ops_per_cpu = 3000;
static bool broken;
static bool invlpgb;

static uint64_t jiffies_zero(void *ctx)
{
	(void)ctx;
	return 0;
}

struct stress {
	struct tlbgen_system *sys;
	struct tlbgen_mm *mm[NR_MM];
	struct thr_barrier bar;
	atomic_long flushes;
	atomic_long accesses;
	atomic_int errors;
};

static void note_err(struct stress *s, int err, const char *what, unsigned int cpu)
{
	if (err >= 0)
		return;
	if (atomic_fetch_add(&s->errors, 1) < 5)
		fprintf(stderr, "cpu %u: %s: %d\n", cpu, what, err);
}

static int worker(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct stress *s = arg;
	uint64_t rng = 0x9E3779B97F4A7C15ULL * (cpu + 1);
	int cur = 0;		/* index of the loaded mm, -1: init_mm */

	/*
	 * A fixed prologue first, so that both verdicts hold however the host
	 * schedules: oversubscribed, the random phase below may run the CPUs
	 * one after another and never overlap. All CPUs cache page 0 of mm 0;
	 * CPU 0 changes it and flushes (the IPI condition decides who hears);
	 * everyone uses it again: stale under a broken condition, fresh
	 * otherwise. Then a flush_tlb_mm, which IPIs every CPU of the mask.
	 */
	note_err(s, tlbgen_switch_mm(sys, cpu, s->mm[0]), "switch_mm", cpu);
	note_err(s, tlbgen_access(sys, cpu, 0), "access", cpu);
	thr_barrier_wait(&s->bar, sys, cpu);
	if (cpu == 0) {
		note_err(s, tlbgen_pte_change(sys, cpu, s->mm[0], 0), "pte_change", cpu);
		note_err(s, tlbgen_flush_tlb_page(sys, cpu, s->mm[0], 0), "flush_tlb_page", cpu);
	}
	thr_barrier_wait(&s->bar, sys, cpu);
	note_err(s, tlbgen_access(sys, cpu, 0), "access", cpu);
	thr_barrier_wait(&s->bar, sys, cpu);
	if (cpu == 0)
		note_err(s, tlbgen_flush_tlb_mm(sys, cpu, s->mm[0]), "flush_tlb_mm", cpu);
	thr_barrier_wait(&s->bar, sys, cpu);

	for (unsigned int i = 0; i < ops_per_cpu; i++) {
		uint64_t r = thr_rand(&rng);
		unsigned int op = (unsigned int)(r % 16);
		unsigned int m = (unsigned int)((r >> 8) % NR_MM);
		unsigned long page = (r >> 16) % NR_PAGES;
		int err;

		switch (op) {
		case 0: case 1: case 2: case 3: case 4:
			if (cur < 0)
				break;
			for (unsigned int k = 0; k < 4; k++) {
				err = tlbgen_access(sys, cpu,
						    ((page + k) % NR_PAGES) << TLBGEN_PAGE_SHIFT);
				if (err != -ESRCH)	/* lazy: nothing runs */
					note_err(s, err, "access", cpu);
				atomic_fetch_add_explicit(&s->accesses, 1, memory_order_relaxed);
			}
			break;
		case 5: case 6:
			err = tlbgen_switch_mm(sys, cpu, s->mm[m]);
			note_err(s, err, "switch_mm", cpu);
			cur = (int)m;
			break;
		case 7:
			note_err(s, tlbgen_enter_lazy_tlb(sys, cpu), "enter_lazy_tlb", cpu);
			break;
		case 8:
			note_err(s, tlbgen_switch_mm(sys, cpu, NULL), "switch_mm(init)", cpu);
			cur = -1;
			break;
		case 9: case 10: case 11: case 12:
			note_err(s, tlbgen_pte_change(sys, cpu, s->mm[m], page << TLBGEN_PAGE_SHIFT),
				 "pte_change", cpu);
			note_err(s, tlbgen_flush_tlb_page(sys, cpu, s->mm[m],
							  page << TLBGEN_PAGE_SHIFT),
				 "flush_tlb_page", cpu);
			atomic_fetch_add_explicit(&s->flushes, 1, memory_order_relaxed);
			break;
		case 13: {
			unsigned long n = 1 + (r >> 32) % 40;	/* across the ceiling (33) */

			for (unsigned long k = 0; k < n && page + k < NR_PAGES; k++)
				tlbgen_pte_change(sys, cpu, s->mm[m], (page + k) << TLBGEN_PAGE_SHIFT);
			if (page + n > NR_PAGES)
				n = NR_PAGES - page;
			note_err(s, tlbgen_flush_tlb_mm_range(sys, cpu, s->mm[m],
							      page << TLBGEN_PAGE_SHIFT,
							      (page + n) << TLBGEN_PAGE_SHIFT,
							      TLBGEN_PAGE_SHIFT, false),
				 "flush_tlb_mm_range", cpu);
			atomic_fetch_add_explicit(&s->flushes, 1, memory_order_relaxed);
			break;
		}
		case 14:
			note_err(s, tlbgen_pte_change(sys, cpu, s->mm[m], page << TLBGEN_PAGE_SHIFT),
				 "pte_change", cpu);
			note_err(s, tlbgen_flush_tlb_mm(sys, cpu, s->mm[m]), "flush_tlb_mm", cpu);
			atomic_fetch_add_explicit(&s->flushes, 1, memory_order_relaxed);
			break;
		default:
			tlbgen_poll(sys, cpu);
			break;
		}
	}
	/* Every CPU audits what it still caches, then leaves for init_mm. */
	if (tlbgen_oracle__audit_cpu(sys, cpu) < 0)
		atomic_fetch_add(&s->errors, 1);
	note_err(s, tlbgen_switch_mm(sys, cpu, NULL), "final switch", cpu);
	thr_barrier_wait(&s->bar, sys, cpu);
	/*
	 * exit_mmap()'s final flush: lazily-left cpumask bits clear themselves.
	 * From two CPUs in turn: an initiator alone in the mask and not
	 * running the mm flushes nowhere, so its own bit needs the other's IPI.
	 */
	for (unsigned int k = 0; k < 2 && k < nr_cpus; k++) {
		if (cpu == k)
			for (int j = 0; j < NR_MM; j++)
				note_err(s, tlbgen_flush_tlb_mm(sys, cpu, s->mm[j]), "final flush",
					 cpu);
		thr_barrier_wait(&s->bar, sys, cpu);
	}
	return 0;
}

static enum tlbgen_ipi_verdict never_send(struct tlbgen_ipi_target *t, void *priv)
{
	(void)t;
	(void)priv;
	return TLBGEN_IPI_SKIP_NOT_LOADED;
}

static void test_stress(void **state)
{
	TLBGEN_OPTS(tlbgen_runtime_opts, rt, .backend = backend, .watchdog_ms = 20000);
	TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = nr_cpus, .mode = TLBGEN_MODE_THREADED,
		    .profile = profile, .runtime = &rt);
	struct tlbgen_clock clk = { .jiffies = jiffies_zero, .hz = 1000 };
	struct stress s = { 0 };
	uint64_t st[TLBGEN_STAT_NR];
	long violations;

	(void)state;
	if (invlpgb) {
		o.invlpgb = true;
		o.clock = &clk;
	}
	if (broken) {
		TLBGEN_OPTS(tlbgen_policy_ops, ops, .ipi_cond = never_send);

		assert_int_equal(tlbgen_policy_register("thr-never-ipi", profile, NULL, &ops), 0);
		o.profile = "thr-never-ipi";
	}
	assert_int_equal(tlbgen_system__create(&o, &s.sys), 0);
	for (int k = 0; k < NR_MM; k++)
		assert_int_equal(tlbgen_mm__create(s.sys, NR_PAGES, &s.mm[k]), 0);
	thr_barrier_init(&s.bar, nr_cpus, tlbgen_runtime__oversubscribed(s.sys) ? 8 : 2000);
	for (unsigned int c = 0; c < nr_cpus; c++)
		assert_int_equal(tlbgen_cpu__spawn(s.sys, c, worker, &s), 0);
	for (unsigned int c = 0; c < nr_cpus; c++) {
		int ret = -1;

		assert_int_equal(tlbgen_cpu__join(s.sys, c, &ret), 0);
		assert_int_equal(ret, 0);
	}
	assert_int_equal(atomic_load(&s.errors), 0);
	violations = tlbgen_oracle__violations(s.sys);
	if (violations && !broken) {
		struct tlbgen_violation v;
		char buf[512];

		if (!tlbgen_oracle__violation(s.sys, 0, &v)) {
			tlbgen_oracle__format(&v, buf, sizeof(buf));
			fprintf(stderr, "first violation: %s\n", buf);
		}
	}
	assert_int_equal(tlbgen_stats__system(s.sys, st, TLBGEN_STAT_NR), TLBGEN_STAT_NR);
	fprintf(stderr, "%s, %u CPUs%s, %s: %ld flushes, %ld accesses, %llu IPIs, "
		"%llu callbacks, %ld violations\n", profile, nr_cpus,
		tlbgen_runtime__oversubscribed(s.sys) ? " (oversubscribed)" : "",
		backend == TLBGEN_IPI_SIGNAL ? "signal" : "poll", atomic_load(&s.flushes),
		atomic_load(&s.accesses), (unsigned long long)st[TLBGEN_STAT_IPI_SENT],
		(unsigned long long)st[TLBGEN_STAT_IPI_RECEIVED], violations);
	assert_true(atomic_load(&s.flushes) >= (long)(ops_per_cpu * nr_cpus / 4));
	/* The workload really crossed CPUs. */
	assert_true(st[TLBGEN_STAT_FLUSH_FUNC_REMOTE] > 0);
	if (broken)
		assert_true(violations > 0);
	else
		assert_int_equal(violations, 0);
	if (invlpgb) {
		fprintf(stderr, "invlpgb: %llu INVLPGB, %llu TLBSYNC, %llu global ASIDs\n",
			(unsigned long long)st[TLBGEN_STAT_INVLPGB],
			(unsigned long long)st[TLBGEN_STAT_TLBSYNC],
			(unsigned long long)st[TLBGEN_STAT_GLOBAL_ASID_ASSIGNED]);
		assert_true(st[TLBGEN_STAT_GLOBAL_ASID_ASSIGNED] >= 1);
		assert_true(st[TLBGEN_STAT_INVLPGB] > 0);
	}
	for (int k = 0; k < NR_MM; k++)
		assert_int_equal(tlbgen_mm__destroy(s.mm[k]), 0);
	assert_int_equal(tlbgen_system__destroy(s.sys), 0);
	if (broken)
		tlbgen_policy_unregister("thr-never-ipi");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stress),
	};

	if (argc > 1)
		profile = argv[1];
	if (argc > 2)
		nr_cpus = (unsigned int)atoi(argv[2]);
	if (argc > 3)
		backend = !strcmp(argv[3], "signal") ? TLBGEN_IPI_SIGNAL : TLBGEN_IPI_POLL;
	if (argc > 4)
		ops_per_cpu = (unsigned int)atoi(argv[4]);
	if (argc > 5)
		broken = !strcmp(argv[5], "broken");
	if (argc > 5)
		invlpgb = !strcmp(argv[5], "invlpgb");
	if (THR_UNDER_TSAN)
		ops_per_cpu = ops_per_cpu / 4 > 200 ? ops_per_cpu / 4 : 200;
	tlbgen_set_print(t_warn_print);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
