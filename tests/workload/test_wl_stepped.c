// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Programs on a stepped system (tlbgen_stepped__run()) running the
 * workload layer: whole kernel functions, interleaved at waits and at the
 * top of each loop, replayed exactly by a seed.
 */
#include "tlbgen-test.h"

#define NCPU	4

struct run {
	struct tlbgen_system *sys;
	struct tlbgen_mm *mm;
	struct tlbgen_wl *wl;
	unsigned long ops[NCPU];
	char log[16];
	unsigned int nlog;
	bool held;
	int waiting_after_flush;
};

/* tlb_flush1's op on the CPU's own 16-page block of a private file. */
static int flush1_prog(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct run *r = arg;
	int err = tlbgen_switch_mm(sys, cpu, r->mm);

	while (!err && !tlbgen_cpu__should_stop(sys, cpu)) {
		unsigned long a = PG(cpu * 16 + r->ops[cpu] % 16);

		err = tlbgen_wl__fault(r->wl, cpu, r->mm, a, TLBGEN_MAP_FILE, TLBGEN_WL_FAULT_WRITE);
		if (!err)
			err = tlbgen_wl__madvise_dontneed(r->wl, cpu, r->mm, a, TLBGEN_PAGE_SIZE);
		if (!err)
			err = tlbgen_wl__fault(r->wl, cpu, r->mm, a, TLBGEN_MAP_FILE, 0);
		if (!err)
			r->ops[cpu]++;
	}
	return err;
}

static void setup(struct run *r, uint64_t seed)
{
	TLBGEN_OPTS(tlbgen_wl_opts, wo);

	memset(r, 0, sizeof(*r));
	r->sys = t_sys("v6.0", NCPU, seed);
	r->mm = t_mm(r->sys, NCPU * 16);
	assert_int_equal(tlbgen_wl__create(r->sys, &wo, &r->wl), 0);
}

static void teardown(struct run *r)
{
	for (unsigned int c = 0; c < NCPU; c++)
		assert_int_equal(tlbgen_cpu__is_waiting(r->sys, c), 0);
	assert_int_equal(tlbgen_oracle__violations(r->sys), 0);
	tlbgen_wl__destroy(r->wl);
	assert_int_equal(tlbgen_system__destroy(r->sys), 0);
}

static void run_flush1(struct run *r, uint64_t seed, uint64_t *st, uint64_t *wst)
{
	int ret;

	setup(r, seed);
	for (unsigned int c = 0; c < NCPU; c++)
		assert_int_equal(tlbgen_cpu__spawn(r->sys, c, flush1_prog, r), 0);
	assert_int_equal(tlbgen_stepped__run(r->sys, 3000), 0);
	for (unsigned int c = 0; c < NCPU; c++) {
		assert_int_equal(tlbgen_cpu__join(r->sys, c, &ret), 0);
		assert_int_equal(ret, 0);
		assert_true(r->ops[c] > 20);
	}
	tlbgen_stats__system(r->sys, st, TLBGEN_STAT_NR);
	assert_int_equal(tlbgen_wl__stats(r->wl, -1, wst, TLBGEN_WL_STAT_NR), TLBGEN_WL_STAT_NR);
	teardown(r);
}

/* Same seed, same run; gathers overlap, so mm_tlb_flush_nested() fires. */
static void test_flush1_replays(void **state)
{
	uint64_t a[TLBGEN_STAT_NR], b[TLBGEN_STAT_NR], wa[TLBGEN_WL_STAT_NR], wb[TLBGEN_WL_STAT_NR];
	struct run r;

	(void)state;
	run_flush1(&r, 7, a, wa);
	run_flush1(&r, 7, b, wb);
	assert_memory_equal(a, b, sizeof(a));
	assert_memory_equal(wa, wb, sizeof(wa));
	assert_true(wa[TLBGEN_WL_STAT_NESTED] > 0);
	assert_true(wa[TLBGEN_WL_STAT_NESTED] < wa[TLBGEN_WL_STAT_GATHERS]);
	assert_true(wa[TLBGEN_WL_STAT_COW] > 0);
	assert_true(a[TLBGEN_STAT_IPI_RECEIVED] > 0);
}

/* A program's flush returns complete: its target has answered. */
static int flusher(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct run *r = arg;
	int err = tlbgen_switch_mm(sys, cpu, r->mm);

	if (!err)
		err = tlbgen_flush_tlb_page(sys, cpu, r->mm, PG(1));
	r->waiting_after_flush = tlbgen_cpu__is_waiting(sys, cpu);
	return err;
}

static void test_flush_returns_complete(void **state)
{
	struct run r;
	int ret;

	(void)state;
	setup(&r, 3);
	assert_int_equal(tlbgen_switch_mm(r.sys, 1, r.mm), 0);
	assert_int_equal(tlbgen_cpu__spawn(r.sys, 0, flusher, &r), 0);
	assert_int_equal(tlbgen_stepped__run(r.sys, 100), 0);
	assert_int_equal(tlbgen_cpu__join(r.sys, 0, &ret), 0);
	assert_int_equal(ret, 0);
	assert_int_equal(r.waiting_after_flush, 0);
	assert_int_equal(t_cpu_stat(r.sys, 1, TLBGEN_STAT_IPI_RECEIVED), 1);
	teardown(&r);
}

/* mmap_lock: a reader that finds the writer sleeps until up_write(). */
static int writer(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct run *r = arg;
	int err = tlbgen_switch_mm(sys, cpu, r->mm);

	if (!err)
		err = tlbgen_wl__mmap_write_lock(r->wl, cpu, r->mm);
	r->held = true;
	r->log[r->nlog++] = 'W';
	for (int i = 0; !err && i < 20; i++)
		tlbgen_cpu__should_stop(sys, cpu);
	r->log[r->nlog++] = 'w';
	return err ? err : tlbgen_wl__mmap_write_unlock(r->wl, cpu, r->mm);
}

static int reader(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct run *r = arg;
	int err = tlbgen_switch_mm(sys, cpu, r->mm);

	while (!err && !r->held)
		tlbgen_cpu__should_stop(sys, cpu);
	if (!err)
		err = tlbgen_wl__mmap_read_lock(r->wl, cpu, r->mm);
	r->log[r->nlog++] = 'R';
	if (!err)
		err = tlbgen_cpu__loaded_mm_is(sys, cpu, r->mm) == 1 ? 0 : -ESRCH;
	return err ? err : tlbgen_wl__mmap_read_unlock(r->wl, cpu, r->mm);
}

static void test_mmap_lock_sleeps(void **state)
{
	uint64_t w[TLBGEN_WL_STAT_NR];
	struct run r;
	int ret;

	(void)state;
	setup(&r, 5);
	assert_int_equal(tlbgen_cpu__spawn(r.sys, 0, writer, &r), 0);
	assert_int_equal(tlbgen_cpu__spawn(r.sys, 1, reader, &r), 0);
	assert_int_equal(tlbgen_stepped__run(r.sys, 1000), 0);
	for (unsigned int c = 0; c < 2; c++) {
		assert_int_equal(tlbgen_cpu__join(r.sys, c, &ret), 0);
		assert_int_equal(ret, 0);
	}
	assert_string_equal(r.log, "WwR");
	assert_int_equal(tlbgen_wl__stats(r.wl, 1, w, TLBGEN_WL_STAT_NR), TLBGEN_WL_STAT_NR);
	assert_int_equal(w[TLBGEN_WL_STAT_MMAP_LOCK_WAITS], 1);
	assert_true(w[TLBGEN_WL_STAT_SLEEPS] >= 1);
	teardown(&r);
}

/* Outside a program a stepped system cannot sleep; spawn needs a function. */
static void test_errors(void **state)
{
	struct run r;

	(void)state;
	setup(&r, 1);
	assert_int_equal(tlbgen_cpu__spawn(r.sys, 0, NULL, NULL), -EINVAL);
	assert_int_equal(tlbgen_cpu__join(r.sys, 0, NULL), -ESRCH);
	assert_int_equal(tlbgen_stepped__run(NULL, 1), -EINVAL);
	assert_int_equal(tlbgen_switch_mm(r.sys, 0, r.mm), 0);
	assert_int_equal(tlbgen_wl__sleep(r.wl, 0), -EPERM);
	teardown(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flush1_replays),
		cmocka_unit_test(test_flush_returns_complete),
		cmocka_unit_test(test_mmap_lock_sleeps),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests_name("workload-stepped", tests, NULL, NULL);
}
