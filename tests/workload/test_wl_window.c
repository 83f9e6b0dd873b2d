// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A window read mid-run in virtual time: the counters a CPU's program reads
 * (tlbgen_vtime__stats(), tlbgen_wl__stats()) are as of its own clock, so
 * another CPU's sleep under way counts up to that clock, not to where it
 * will end, and not only once it has ended.
 */
#include "wl-vsys.h"

#define LEAD	1000		/* CPU 0 waits this long, so CPU 1 sleeps first */
#define SPAN	2000000		/* CPU 0's work between its two reads */
#define LONG	50000000	/* CPU 1's timed spend, past both reads */

struct snap {
	uint64_t clock, time_sum, time_work, sleep_cycles;
};

struct wrun {
	struct tlbgen_system *sys;
	struct tlbgen_mm *mm;
	struct tlbgen_wl *wl;
	bool spend;		/* CPU 1 spends LONG, where it sleeps until woken */
	struct snap snap[2];
};

static int read_snap(struct wrun *r, unsigned int cpu, struct snap *s)
{
	struct tlbgen_vtime_stats st = { .sz = sizeof(st) };
	uint64_t wl[TLBGEN_WL_STAT_NR];
	int err = tlbgen_vtime__now(r->sys, cpu, &s->clock);

	if (!err)
		err = tlbgen_vtime__stats(r->sys, &st);
	if (!err && tlbgen_wl__stats(r->wl, 1, wl, TLBGEN_WL_STAT_NR) != TLBGEN_WL_STAT_NR)
		err = -EIO;
	if (err)
		return err;
	s->time_sum = 0;
	for (unsigned int k = 0; k < TLBGEN_VT_TIME_NR; k++)
		s->time_sum += st.time[k];
	s->time_work = st.time[TLBGEN_VT_TIME_WORK];
	s->sleep_cycles = wl[TLBGEN_WL_STAT_SLEEP_CYCLES];
	return 0;
}

static int reader(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct wrun *r = arg;
	int err = tlbgen_switch_mm(sys, cpu, r->mm);

	if (!err)
		err = tlbgen_vtime__spend(sys, cpu, LEAD);
	if (!err)
		err = tlbgen_vtime__spend(sys, cpu, SPAN);
	if (!err)
		err = read_snap(r, cpu, &r->snap[0]);
	if (!err)
		err = tlbgen_vtime__spend(sys, cpu, SPAN);
	if (!err)
		err = read_snap(r, cpu, &r->snap[1]);
	if (!err && !r->spend)
		err = tlbgen_wl__wake(r->wl, cpu, 1);
	return err;
}

static int sleeper(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct wrun *r = arg;
	int err = tlbgen_switch_mm(sys, cpu, r->mm);

	if (err)
		return err;
	return r->spend ? tlbgen_vtime__spend(sys, cpu, LONG) : tlbgen_wl__sleep(r->wl, cpu);
}

static void run(struct wrun *r, bool spend)
{
	memset(r, 0, sizeof(*r));
	r->spend = spend;
	wl_vsys_create("skylake-56", 2, &r->sys, &r->mm, &r->wl);
	wl_vsys_run_pair(r->sys, reader, sleeper, r);
	assert_int_equal(tlbgen_oracle__violations(r->sys), 0);
	tlbgen_wl__destroy(r->wl);
	assert_int_equal(tlbgen_system__destroy(r->sys), 0);
}

/* CPU 1 sleeps until woken through both reads: each CPU adds exactly the
 * window's length to the time summed over kinds, and CPU 1's sleep counts
 * the window in SLEEP_CYCLES before the sleep has ended. */
static void test_window_sleep_under_way(void **state)
{
	struct wrun r;
	uint64_t len;

	(void)state;
	run(&r, false);
	len = r.snap[1].clock - r.snap[0].clock;
	assert_int_equal(len, SPAN);
	assert_int_equal(r.snap[1].time_sum - r.snap[0].time_sum, 2 * len);
	assert_int_equal(r.snap[1].sleep_cycles - r.snap[0].sleep_cycles, len);
	/* as of the first read: asleep since shortly after LEAD at most */
	assert_true(r.snap[0].sleep_cycles <= r.snap[0].clock);
	assert_true(r.snap[0].sleep_cycles + LEAD + 100000 >= r.snap[0].clock);
}

/* CPU 1's spend of LONG is charged when it begins; read at CPU 0's clock,
 * only the part up to that clock counts, so the work time summed over both
 * CPUs is never more than twice the reader's clock. */
static void test_window_timed_spend(void **state)
{
	struct wrun r;

	(void)state;
	run(&r, true);
	for (unsigned int i = 0; i < 2; i++) {
		assert_true(r.snap[i].time_work <= 2 * r.snap[i].clock);
		assert_int_equal(r.snap[i].time_sum, 2 * r.snap[i].clock);
	}
	assert_int_equal(r.snap[1].time_work - r.snap[0].time_work, 2 * SPAN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_window_sleep_under_way),
		cmocka_unit_test(test_window_timed_spend),
	};

	return cmocka_run_group_tests_name("workload-window", tests, NULL, NULL);
}
