// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/virtual/test_virtual.c - the virtual-time mode: same seed, same
 * execution; a CPU never sees a message before it was sent; a fill of a
 * Shared copy waits for the owner's copy still on its way, and with a
 * machine's fill_hold for the fills before it; one CPU's
 * operations count as in stepped mode; the oracle stays quiet under correct
 * profiles and catches aa44284960's batch-flush skip. The machine model's
 * work_jitter and bad machine specs: test_virtual_machine.c.
 */
#include <stdlib.h>

#include "virtual-fx.h"

/* ---- a will-it-scale tlb_flush1 thread ------------------------------------------------ */

struct wis {
	struct tlbgen_mm *mm;
	unsigned long ops[64];
	uint64_t end[64];
};

static int wis_thread(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct wis *w = arg;
	unsigned long addr = PG(cpu);
	int err = tlbgen_switch_mm(sys, cpu, w->mm);

	while (!err && !tlbgen_cpu__should_stop(sys, cpu)) {
		err = t_vt_tlb_flush1_op(sys, cpu, w->mm, addr);
		w->ops[cpu]++;
	}
	tlbgen_vtime__now(sys, cpu, &w->end[cpu]);
	return err;
}

struct wis_result {
	unsigned long ops[64];
	uint64_t end[64];
	struct tlbgen_vtime_stats st;
	uint64_t stats[TLBGEN_STAT_NR];
	long violations;
};

static void run_wis(const char *profile, unsigned int n, uint64_t seed, double ms,
		    struct wis_result *r)
{
	struct tlbgen_system *sys = vsys(n, profile, seed, NULL);
	struct wis w = { 0 };
	int ret;

	w.mm = t_mm(sys, n);
	for (unsigned int c = 0; c < n; c++)
		assert_int_equal(tlbgen_cpu__spawn(sys, c, wis_thread, &w), 0);
	assert_int_equal(tlbgen_vtime__run(sys, (uint64_t)(ms * 2500 * 1000)), 0);
	for (unsigned int c = 0; c < n; c++) {
		assert_int_equal(tlbgen_cpu__join(sys, c, &ret), 0);
		assert_int_equal(ret, 0);
	}
	memset(r, 0, sizeof(*r));
	memcpy(r->ops, w.ops, sizeof(r->ops));
	memcpy(r->end, w.end, sizeof(r->end));
	r->st.sz = sizeof(r->st);
	assert_int_equal(tlbgen_vtime__stats(sys, &r->st), 0);
	assert_int_equal(tlbgen_stats__system(sys, r->stats, TLBGEN_STAT_NR), TLBGEN_STAT_NR);
	r->violations = tlbgen_oracle__violations(sys);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

/* Same seed, same execution, bit for bit; another seed breaks ties otherwise. */
static void test_determinism(void **state)
{
	struct wis_result *a = calloc(3, sizeof(*a));

	(void)state;
	run_wis("v6.0", 12, 7, 0.5, &a[0]);
	run_wis("v6.0", 12, 7, 0.5, &a[1]);
	assert_memory_equal(a[0].ops, a[1].ops, sizeof(a[0].ops));
	assert_memory_equal(a[0].end, a[1].end, sizeof(a[0].end));
	assert_memory_equal(a[0].stats, a[1].stats, sizeof(a[0].stats));
	assert_int_equal(a[0].st.sched_points, a[1].st.sched_points);
	assert_int_equal(a[0].st.switches, a[1].st.switches);
	assert_true(a[0].st.sched_points > 10000);
	/* The directory's lines: every CPU's cpu_tlbstate and csds at least. */
	assert_int_equal(a[0].st.lines, a[1].st.lines);
	assert_true(a[0].st.lines >= 12);
	assert_true(a[0].stats[TLBGEN_STAT_IPI_SENT] > 100);
	run_wis("v6.0", 12, 8, 0.5, &a[2]);
	assert_true(memcmp(a[0].end, a[2].end, sizeof(a[0].end)) ||
		    a[0].st.switches != a[2].st.switches);
	free(a);
}

/* Correct profiles: IPIs flow, every flush is complete, the oracle is quiet;
 * the mm's tlb_gen line moves less once aa44284960 skips its read. */
static void test_oracle_quiet(void **state)
{
	struct wis_result *r = calloc(2, sizeof(*r));

	(void)state;
	run_wis("v5.17", 16, 1, 0.5, &r[0]);
	run_wis("latest", 16, 1, 0.5, &r[1]);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(r[i].violations, 0);
		assert_true(r[i].stats[TLBGEN_STAT_FLUSH_FUNC_REMOTE] > 1000);
		assert_true(r[i].stats[TLBGEN_STAT_TLB_ACCESS] > 100);
	}
	assert_true(r[0].stats[TLBGEN_STAT_TLB_GEN_READ] > 2 * r[1].stats[TLBGEN_STAT_TLB_GEN_READ]);
	free(r);
}

/* ---- causality: a call runs no earlier than its IPI can arrive ------------------------- */

struct pingpong {
	struct tlbgen_machine m;
	uint64_t sent[16], ran[16], back[16];
	unsigned int rounds;
};

static void record_ran(struct tlbgen_system *sys, unsigned int cpu, void *info)
{
	struct pingpong *p = info;

	tlbgen_vtime__now(sys, cpu, &p->ran[p->rounds]);
}

static int caller(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct pingpong *p = arg;

	for (p->rounds = 0; p->rounds < 16; p->rounds++) {
		tlbgen_vtime__spend(sys, cpu, 1000 + 997 * p->rounds % 5000);
		tlbgen_vtime__now(sys, cpu, &p->sent[p->rounds]);
		if (tlbgen_smp_call_function_single(sys, cpu, 1 + p->rounds % 3, record_ran, p))
			return -1;
		tlbgen_vtime__now(sys, cpu, &p->back[p->rounds]);
	}
	return 0;
}

static int busy(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	(void)arg;
	while (!tlbgen_cpu__should_stop(sys, cpu))
		tlbgen_vtime__spend(sys, cpu, 333);
	return 0;
}

static void test_causality(void **state)
{
	struct tlbgen_system *sys = vsys(4, "latest", 3, NULL);
	struct pingpong p = { 0 };
	int ret;

	(void)state;
	assert_int_equal(tlbgen_vtime__machine(sys, &p.m), 0);
	assert_int_equal(tlbgen_cpu__spawn(sys, 0, caller, &p), 0);
	assert_int_equal(tlbgen_cpu__spawn(sys, 1, busy, NULL), 0);	/* IRQs on: interrupted */
	assert_int_equal(tlbgen_vtime__run(sys, 2500000), 0);		/* 2 and 3 idle */
	assert_int_equal(tlbgen_cpu__join(sys, 0, &ret), 0);
	assert_int_equal(ret, 0);
	for (unsigned int i = 0; i < 16; i++) {
		/* The callback ran after the IPI arrived, the caller saw the
		 * unlock after the callback ran. */
		assert_true(p.ran[i] >= p.sent[i] + p.m.ipi_latency);
		assert_true(p.back[i] > p.ran[i]);
		if (i)
			assert_true(p.sent[i] > p.back[i - 1]);
	}
	assert_int_equal(tlbgen_cpu__join(sys, 1, &ret), 0);
	assert_int_equal(tlbgen_system__destroy(sys), 0);
}

/* ---- a fill waits for the owner's copy on its way to the first reader ----------------------- */

/*
 * CPU 0 takes mm's tlb_gen line (its switch_mm reads it), then each other
 * CPU switches to mm at its start time and so reads the line too: CPU 1
 * from CPU 0, a transfer of same_socket cycles, and the later ones as
 * fills of a Shared copy. CPUs 0, 513 and 1025 each have an mm_cpumask
 * line of their own. same_socket or fill_hold is made large so that a wait
 * dwarfs every other cost.
 */
#define FILL_XFER	100000ULL
#define FILL_XFER_S	"100000"	/* the same, for machine specs */

struct fill {
	struct tlbgen_mm *mm;
	const unsigned int *cpus;	/* cpus[0] is CPU 0 */
	const uint64_t *start;		/* when each switches */
	unsigned int n;
	uint64_t took;			/* the last one's switch_mm */
};

static int fill_prog(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct fill *f = arg;
	unsigned int i = 0;
	uint64_t t0, t1;

	while (f->cpus[i] != cpu)
		i++;
	if (tlbgen_vtime__spend(sys, cpu, f->start[i]))
		return -1;
	tlbgen_vtime__now(sys, cpu, &t0);
	if (tlbgen_switch_mm(sys, cpu, f->mm))
		return -1;
	tlbgen_vtime__now(sys, cpu, &t1);
	if (i == f->n - 1)
		f->took = t1 - t0;
	return 0;
}

static uint64_t fill_took(const char *machine, const unsigned int *cpus, const uint64_t *start,
			  unsigned int n)
{
	struct tlbgen_system *sys = vsys(2048, "v6.0", 1, machine);
	struct fill f = { .cpus = cpus, .start = start, .n = n };
	int ret;

	f.mm = t_mm(sys, 1);
	for (unsigned int i = 0; i < n; i++)
		assert_int_equal(tlbgen_cpu__spawn(sys, cpus[i], fill_prog, &f), 0);
	assert_int_equal(tlbgen_vtime__run(sys, 10 * FILL_XFER), 0);
	for (unsigned int i = 0; i < n; i++) {
		assert_int_equal(tlbgen_cpu__join(sys, cpus[i], &ret), 0);
		assert_int_equal(ret, 0);
	}
	assert_int_equal(tlbgen_system__destroy(sys), 0);
	return f.took;
}

/* Asked for while CPU 1's copy is on its way, CPU 513's fill waits for it;
 * asked for after, it does not. */
static void test_fill_waits_for_transfer(void **state)
{
	static const char slow[] = "skylake-56:sockets=1,cores_per_socket=2048,same_socket=" FILL_XFER_S;
	static const unsigned int cpus[] = { 0, 1, 513 };
	/* CPU 1 reads tlb_gen about FILL_XFER after 1000 (its mm_cpumask line
	 * comes from CPU 0 first), and its copy arrives FILL_XFER later. */
	static const uint64_t during_at[] = { 0, 1000, 1000 + FILL_XFER + 2000 };
	static const uint64_t after_at[] = { 0, 1000, 1000 + 4 * FILL_XFER };
	uint64_t during = fill_took(slow, cpus, during_at, 3);
	uint64_t after = fill_took(slow, cpus, after_at, 3);

	(void)state;
	print_message("CPU 513's switch_mm: %llu cycles during CPU 1's transfer, %llu after\n",
		      (unsigned long long)during, (unsigned long long)after);
	assert_true(after >= FILL_XFER);		/* the fill itself */
	assert_true(during >= after + FILL_XFER / 2);	/* ... behind CPU 1's copy */
}

/* With a machine's fill_hold, fills asked for together queue at the home:
 * once CPU 1 has its copy, CPU 513 and CPU 1025 fill theirs 1000 cycles
 * apart, and the second waits for the first. */
static void test_fill_hold_queues_fills(void **state)
{
	static const unsigned int cpus[] = { 0, 1, 513, 1025 };
	static const uint64_t at[] = { 0, 1000, 10000, 11000 };
	uint64_t apart = fill_took("skylake-56:sockets=1,cores_per_socket=2048", cpus, at, 4);
	uint64_t queued = fill_took("skylake-56:sockets=1,cores_per_socket=2048,fill_hold=" FILL_XFER_S,
				    cpus, at, 4);

	(void)state;
	print_message("CPU 1025's switch_mm: %llu cycles with fill_hold 0, %llu with " FILL_XFER_S "\n",
		      (unsigned long long)apart, (unsigned long long)queued);
	assert_true(apart < FILL_XFER / 10);		/* side by side */
	assert_true(queued >= apart + FILL_XFER / 2);	/* behind CPU 513's fill */
}

/* skylake-56 numbers its CPUs as Linux does a 2 x 14 x 2 box: CPU 14 is on
 * the other socket, CPU 28 is CPU 0's SMT sibling on socket 0. CPU 0's
 * lines reach the second by a same-socket transfer, the first across. */
static void test_topology_smt_numbering(void **state)
{
	static const char far[] = "skylake-56:cross_socket=" FILL_XFER_S;
	static const unsigned int sibling[] = { 0, 28 }, other[] = { 0, 14 };
	static const uint64_t at[] = { 0, 1000 };
	uint64_t near = fill_took(far, sibling, at, 2), across = fill_took(far, other, at, 2);

	(void)state;
	print_message("switch_mm after CPU 0's: CPU 28 %llu cycles, CPU 14 %llu\n",
		      (unsigned long long)near, (unsigned long long)across);
	assert_true(near < FILL_XFER / 10);
	assert_true(across >= FILL_XFER);
}

/* ---- no concurrency: the counters of stepped mode ----------------------------------------- */

static void sequence(struct tlbgen_system *sys, struct tlbgen_mm *mm, unsigned int cpu)
{
	assert_int_equal(tlbgen_switch_mm(sys, cpu, mm), 0);
	for (unsigned int i = 0; i < 20; i++) {
		assert_int_equal(tlbgen_pte_change(sys, cpu, mm, PG(i % 4)), 0);
		assert_true(tlbgen_access(sys, cpu, PG(i % 4)) >= 0);
		assert_int_equal(tlbgen_flush_tlb_page(sys, cpu, mm, PG(i % 4)), 0);
		if (i % 5 == 0)
			assert_int_equal(tlbgen_flush_tlb_mm_range(sys, cpu, mm, 0, PG(4),
								   TLBGEN_PAGE_SHIFT, false), 0);
	}
	assert_int_equal(tlbgen_enter_lazy_tlb(sys, cpu), 0);
	assert_int_equal(tlbgen_switch_mm(sys, cpu, mm), 0);
	assert_int_equal(tlbgen_flush_tlb_mm(sys, cpu, mm), 0);
}

struct seq_arg {
	struct tlbgen_mm *mm;
};

static int seq_prog(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	sequence(sys, ((struct seq_arg *)arg)->mm, cpu);
	return 0;
}

static void test_single_cpu_matches_stepped(void **state)
{
	const char *profile = *state;
	struct tlbgen_system *v = vsys(2, profile, 1, NULL), *s = t_sys(profile, 2, 1);
	struct seq_arg a = { t_mm(v, 8) };
	uint64_t sv[TLBGEN_STAT_NR], ss[TLBGEN_STAT_NR];
	int ret;

	sequence(s, t_mm(s, 8), 0);
	assert_int_equal(tlbgen_cpu__spawn(v, 0, seq_prog, &a), 0);
	assert_int_equal(tlbgen_vtime__run(v, ~0ULL), 0);
	assert_int_equal(tlbgen_cpu__join(v, 0, &ret), 0);
	tlbgen_stats__system(v, sv, TLBGEN_STAT_NR);
	tlbgen_stats__system(s, ss, TLBGEN_STAT_NR);
	for (int i = 0; i < TLBGEN_STAT_NR; i++)
		if (sv[i] != ss[i])
			fail_msg("%s: %s: virtual %llu, stepped %llu", profile,
				 tlbgen_stat_name(i), (unsigned long long)sv[i],
				 (unsigned long long)ss[i]);
	assert_true(sv[TLBGEN_STAT_FLUSH_FUNC] >= 25);
	tlbgen_system__destroy(v);
	tlbgen_system__destroy(s);
}

/* ---- aa44284960 as first merged: a batch flush (generation 0) skipped ----------------------- */

struct batch_bug {
	struct tlbgen_mm *mm;
	int used_after;		/* tlbgen_access() of the victim after the flush */
};

static int victim(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct batch_bug *b = arg;

	assert_int_equal(tlbgen_switch_mm(sys, cpu, b->mm), 0);
	assert_true(tlbgen_access(sys, cpu, PG(1)) >= 0);	/* cache the translation */
	tlbgen_vtime__spend(sys, cpu, 2500000);			/* the reclaim runs meanwhile */
	b->used_after = tlbgen_access(sys, cpu, PG(1));
	return 0;
}

static int reclaimer(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct batch_bug *b = arg;
	struct tlbgen_tlbbatch *batch;

	assert_int_equal(tlbgen_switch_mm(sys, cpu, b->mm), 0);
	tlbgen_vtime__spend(sys, cpu, 10000);
	/* Catch the victim up to the current generation first. */
	assert_int_equal(tlbgen_flush_tlb_page(sys, cpu, b->mm, PG(2)), 0);
	assert_int_equal(tlbgen_tlbbatch__create(sys, &batch), 0);
	assert_int_equal(tlbgen_pte_change(sys, cpu, b->mm, PG(1)), 0);
	assert_int_equal(tlbgen_arch_tlbbatch_add_pending(sys, cpu, batch, b->mm, PG(1), PG(2)), 0);
	assert_int_equal(tlbgen_arch_tlbbatch_flush(sys, cpu, batch), 0);
	assert_int_equal(tlbgen_tlbbatch__destroy(batch), 0);
	return 0;
}

static void test_broken_profile_caught(void **state)
{
	const char *profile = *state;
	bool broken = !strcmp(profile, "v6.0-aa44284960");
	struct tlbgen_system *sys = vsys(2, profile, 5, NULL);
	struct batch_bug b = { t_mm(sys, 4), 0 };

	assert_int_equal(tlbgen_cpu__spawn(sys, 0, reclaimer, &b), 0);
	assert_int_equal(tlbgen_cpu__spawn(sys, 1, victim, &b), 0);
	assert_int_equal(tlbgen_vtime__run(sys, ~0ULL), 0);
	assert_int_equal(tlbgen_oracle__violations(sys), broken ? 1 : 0);
	tlbgen_system__destroy(sys);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_oracle_quiet),
		cmocka_unit_test(test_causality),
		cmocka_unit_test(test_fill_waits_for_transfer),
		cmocka_unit_test(test_fill_hold_queues_fills),
		cmocka_unit_test(test_topology_smt_numbering),
		T_EACH(test_single_cpu_matches_stepped),
		T_PRE(test_broken_profile_caught, "v6.0-aa44284960"),
		T_PRE(test_broken_profile_caught, "v6.0"),
		T_PRE(test_broken_profile_caught, "latest"),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
