// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tests/virtual/test_vtime_time.c - where virtual time goes
 * (struct tlbgen_vtime_stats.time and .line_time):
 *  - every CPU's clock is charged to exactly one kind: the kinds sum to the
 *    clocks, line_time sums to the two line kinds, and interrupts, IPI sends
 *    and the TLB's cost are the machine model's figures times their counts;
 *  - one flush between two CPUs, charged kind by kind;
 *  - v5.17 spends more on the tlb_gen line and on full flushes than v6.0
 *    in the same storm (aa44284960's two savings);
 *  - arm64: the DSB ISH of two CPUs flushing at once is served one at a
 *    time, so one of them waits for the other's; alone, nobody waits;
 *  - the names of the kinds, and a caller's short struct left untouched.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "tlbgen-test.h"

static struct tlbgen_system *vsys(unsigned int n, const char *profile, struct tlbgen_machine *m)
{
	struct tlbgen_system *sys;

	assert_int_equal(tlbgen_machine_lookup("skylake-56", m), 0);
	TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = n, .mode = TLBGEN_MODE_VIRTUAL,
		    .profile = profile, .seed = 3, .machine = m);
	assert_int_equal(tlbgen_system__create(&o, &sys), 0);
	return sys;
}

static uint64_t sum(const uint64_t *v, unsigned int n)
{
	uint64_t s = 0;

	for (unsigned int i = 0; i < n; i++)
		s += v[i];
	return s;
}

static uint64_t clocks(const struct tlbgen_system *sys, unsigned int n)
{
	uint64_t s = 0, c;

	for (unsigned int cpu = 0; cpu < n; cpu++) {
		assert_int_equal(tlbgen_vtime__now(sys, cpu, &c), 0);
		s += c;
	}
	return s;
}

/* ---- a storm: will-it-scale tlb_flush1 on 40 of 48 CPUs (both sockets) ------------------------------ */

struct storm {
	struct tlbgen_mm *mm;
	unsigned long ops;
};

static int storm_thread(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct storm *s = arg;
	unsigned long addr = PG(cpu);
	int err = tlbgen_switch_mm(sys, cpu, s->mm);

	while (!err && !tlbgen_cpu__should_stop(sys, cpu)) {
		err = t_vt_tlb_flush1_op(sys, cpu, s->mm, addr);
		s->ops++;
	}
	return err;
}

#define STORM_CPUS	48
#define STORM_PROGS	40

static void run_storm(const char *profile, struct tlbgen_vtime_stats *st)
{
	struct tlbgen_machine m;
	struct tlbgen_system *sys = vsys(STORM_CPUS, profile, &m);
	struct tlbgen_cost_account cost;
	uint64_t stats[TLBGEN_STAT_NR], per_op = m.page_fault + m.syscall;
	struct storm s = { 0 };
	int ret;

	s.mm = t_mm(sys, STORM_PROGS);
	for (unsigned int c = 0; c < STORM_PROGS; c++)
		assert_int_equal(tlbgen_cpu__spawn(sys, c, storm_thread, &s), 0);
	assert_int_equal(tlbgen_vtime__run(sys, 750000), 0);	/* 0.3 ms at 2.5 GHz */
	for (unsigned int c = 0; c < STORM_PROGS; c++) {
		assert_int_equal(tlbgen_cpu__join(sys, c, &ret), 0);
		assert_int_equal(ret, 0);
	}
	memset(st, 0, sizeof(*st));
	st->sz = sizeof(*st);
	assert_int_equal(tlbgen_vtime__stats(sys, st), 0);
	assert_int_equal(tlbgen_stats__system(sys, stats, TLBGEN_STAT_NR), TLBGEN_STAT_NR);
	assert_int_equal(tlbgen_cost__system(sys, &cost), 0);

	assert_true(s.ops > 100);
	assert_true(stats[TLBGEN_STAT_IPI_SENT] > 100);
	/* One kind per cycle: the kinds sum to the CPUs' clocks. */
	assert_int_equal(sum(st->time, TLBGEN_VT_TIME_NR), clocks(sys, STORM_CPUS));
	assert_int_equal(sum(st->line_time, TLBGEN_LINE_NR),
			 st->time[TLBGEN_VT_TIME_LINE] + st->time[TLBGEN_VT_TIME_LINE_WAIT]);
	/* The model's figures times their counts. */
	assert_int_equal(st->time[TLBGEN_VT_TIME_IRQ],
			 st->ipis_taken * (m.irq_entry + m.irq_exit));
	assert_int_equal(st->time[TLBGEN_VT_TIME_SEND],
			 stats[TLBGEN_STAT_IPI_SENT] * m.ipi_send);
	assert_int_equal(st->time[TLBGEN_VT_TIME_TLB], cost.cycles);
	/* Each finished op charged its fault and syscall; each CPU may be in
	 * one more when the run stops. */
	assert_true(st->time[TLBGEN_VT_TIME_WORK] >= s.ops * per_op);
	assert_true(st->time[TLBGEN_VT_TIME_WORK] <= (s.ops + STORM_PROGS) * per_op);
	assert_true(st->time[TLBGEN_VT_TIME_CSD_WAIT] > 0);
	assert_true(st->time[TLBGEN_VT_TIME_LINE_WAIT] > 0);
	assert_true(st->line_time[TLBGEN_LINE_CSD] > 0);
	tlbgen_system__destroy(sys);
}

static void test_storm_sums(void **state)
{
	struct tlbgen_vtime_stats *st = calloc(2, sizeof(*st));

	(void)state;
	run_storm("v5.17", &st[0]);
	run_storm("v6.0", &st[1]);
	/* aa44284960: fewer reads of the tlb_gen line and fewer full flushes
	 * (the early return skips flushes a later one already covered). */
	assert_true(st[0].line_time[TLBGEN_LINE_MM_TLB_GEN] >
		    2 * st[1].line_time[TLBGEN_LINE_MM_TLB_GEN]);
	assert_true(st[0].time[TLBGEN_VT_TIME_TLB] > 2 * st[1].time[TLBGEN_VT_TIME_TLB]);
	free(st);
}

/* ---- one flush, kind by kind ------------------------------------------------------------- */

struct one {
	struct tlbgen_mm *mm;
	uint64_t end0;
};

static int target(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct one *o = arg;

	/* Loads the mm and returns: the CPU idles with it loaded. */
	return tlbgen_switch_mm(sys, cpu, o->mm);
}

static int initiator(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct one *o = arg;
	int err = tlbgen_switch_mm(sys, cpu, o->mm);

	err = err ?: tlbgen_vtime__spend(sys, cpu, 100000);
	err = err ?: tlbgen_flush_tlb_page(sys, cpu, o->mm, PG(0));
	tlbgen_vtime__now(sys, cpu, &o->end0);
	return err;
}

static void test_one_flush(void **state)
{
	struct tlbgen_machine m;
	struct tlbgen_system *sys = vsys(2, "v6.0", &m);
	struct tlbgen_vtime_stats st = { .sz = sizeof(st) };
	struct one o = { 0 };
	int ret;

	(void)state;
	o.mm = t_mm(sys, 2);
	assert_int_equal(tlbgen_cpu__spawn(sys, 0, initiator, &o), 0);
	assert_int_equal(tlbgen_cpu__spawn(sys, 1, target, &o), 0);
	assert_int_equal(tlbgen_vtime__run(sys, UINT64_MAX / 2), 0);
	for (unsigned int c = 0; c < 2; c++) {
		assert_int_equal(tlbgen_cpu__join(sys, c, &ret), 0);
		assert_int_equal(ret, 0);
	}
	assert_int_equal(tlbgen_vtime__stats(sys, &st), 0);
	assert_int_equal(st.ipis_taken, 1);
	assert_int_equal(st.time[TLBGEN_VT_TIME_WORK], 100000);
	assert_int_equal(st.time[TLBGEN_VT_TIME_SEND], m.ipi_send);
	assert_int_equal(st.time[TLBGEN_VT_TIME_IRQ], m.irq_entry + m.irq_exit);
	/* The initiator waits at least until the IPI arrives and is taken. */
	assert_true(st.time[TLBGEN_VT_TIME_CSD_WAIT] >= m.ipi_latency + m.irq_entry);
	/* The target idled from its return until the IPI arrived. */
	assert_true(st.time[TLBGEN_VT_TIME_IDLE] > 100000);
	assert_int_equal(sum(st.time, TLBGEN_VT_TIME_NR), clocks(sys, 2));
	assert_true(o.end0 > 100000 + m.ipi_send + m.ipi_latency);
	tlbgen_system__destroy(sys);
}

/* ---- the API ----------------------------------------------------------------------------- */

static void test_names_and_short_struct(void **state)
{
	struct tlbgen_machine m;
	struct tlbgen_system *sys = vsys(2, "v6.0", &m);
	struct tlbgen_vtime_stats st;

	(void)state;
	for (unsigned int k = 0; k < TLBGEN_VT_TIME_NR; k++) {
		const char *name = tlbgen_vtime_time_name(k);

		assert_non_null(name);
		for (unsigned int j = 0; j < k; j++)
			assert_string_not_equal(name, tlbgen_vtime_time_name(j));
	}
	assert_string_equal(tlbgen_vtime_time_name(TLBGEN_VT_TIME_LINE_WAIT), "line_wait");
	assert_null(tlbgen_vtime_time_name(TLBGEN_VT_TIME_NR));
	assert_null(tlbgen_vtime_time_name((enum tlbgen_vt_time)-1));

	/* A caller built before TLBGEN_0.4: nothing past its struct is written. */
	memset(&st, 0xa5, sizeof(st));
	st.sz = offsetof(struct tlbgen_vtime_stats, time);
	assert_int_equal(tlbgen_vtime__stats(sys, &st), 0);
	assert_int_equal(st.sz, offsetof(struct tlbgen_vtime_stats, time));
	assert_int_equal(st.time[0], 0xa5a5a5a5a5a5a5a5ULL);
	assert_int_equal(st.line_time[TLBGEN_LINE_NR - 1], 0xa5a5a5a5a5a5a5a5ULL);
	tlbgen_system__destroy(sys);
}

/* ---- arm64: DSB ISH waits served one at a time ------------------------------------------------- */

struct bflush {
	struct tlbgen_mm *mm[2];
	struct tlbgen_unmap_batch *u[2];
};

/* Unmap one page of its own mm under a batch, then try_to_unmap_flush():
 * one TLBI VALE1IS and the DSB ISH that completes it. */
static int bflush_thread(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct bflush *b = arg;
	int err = tlbgen_switch_mm(sys, cpu, b->mm[cpu]);

	if (!err)
		err = tlbgen_access(sys, cpu, PG(0)) < 0;
	if (!err)
		err = tlbgen_try_to_unmap_one(sys, cpu, b->u[cpu], b->mm[cpu], PG(0),
					      TLBGEN_TTU_BATCH_FLUSH, TLBGEN_PTE_ACCESSIBLE) != 1;
	if (!err)
		err = tlbgen_try_to_unmap_flush(sys, cpu, b->u[cpu]) != 1;
	return err;
}

/* The TLB's virtual time beyond its cycles (the DSB ISH queueing) with
 * `n` CPUs flushing from time 0; *sync: one DSB ISH's cycles. */
static uint64_t dsb_queueing(unsigned int n, uint64_t *sync)
{
	struct tlbgen_system *sys = t_sys_mode(2, TLBGEN_MODE_VIRTUAL, "latest", "batch_arch=arm64");
	struct tlbgen_vtime_stats st = { .sz = sizeof(st) };
	struct tlbgen_cost_model cm = { .sz = sizeof(cm) };
	struct tlbgen_cost_account cost;
	struct bflush b;
	int ret;

	for (unsigned int c = 0; c < 2; c++) {
		b.mm[c] = t_mm(sys, 4);
		assert_int_equal(tlbgen_unmap_batch__create(sys, &b.u[c]), 0);
	}
	for (unsigned int c = 0; c < n; c++)
		assert_int_equal(tlbgen_cpu__spawn(sys, c, bflush_thread, &b), 0);
	assert_int_equal(tlbgen_vtime__run(sys, 1000000), 0);
	for (unsigned int c = 0; c < n; c++) {
		assert_int_equal(tlbgen_cpu__join(sys, c, &ret), 0);
		assert_int_equal(ret, 0);
	}
	assert_int_equal(t_sys_stat(sys, TLBGEN_STAT_DSB), n);
	assert_int_equal(tlbgen_vtime__stats(sys, &st), 0);
	assert_int_equal(tlbgen_cost__system(sys, &cost), 0);
	assert_int_equal(tlbgen_system__cost_model(sys, &cm), 0);
	*sync = cm.tlbsync_cycles;
	for (unsigned int c = 0; c < 2; c++)
		assert_int_equal(tlbgen_unmap_batch__destroy(b.u[c]), 0);
	tlbgen_system__destroy(sys);
	return st.time[TLBGEN_VT_TIME_TLB] - cost.cycles;
}

static void test_arm64_dsb_serial(void **state)
{
	uint64_t sync, q;

	(void)state;
	/* Alone: the TLB's time is its cycles. */
	assert_int_equal(dsb_queueing(1, &sync), 0);
	assert_true(sync > 0);
	/* Two at once, the same work before: the later one waits for the
	 * earlier's completion, at most a whole DSB ISH. */
	q = dsb_queueing(2, &sync);
	assert_true(q > 0);
	assert_true(q <= sync);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_storm_sums),
		cmocka_unit_test(test_one_flush),
		cmocka_unit_test(test_names_and_short_struct),
		cmocka_unit_test(test_arm64_dsb_serial),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
