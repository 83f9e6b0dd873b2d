// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The workload layer in virtual time: mmap_lock's sleepers and their idle
 * states, what a kernel word's line costs, munmap()'s downgrade, and which
 * faults wait for mmap_lock.
 */
#include "wl-vsys.h"

struct vrun {
	struct tlbgen_system *sys;
	struct tlbgen_mm *mm;
	struct tlbgen_wl *wl;
	uint64_t acquired_at;
	/* the munmap test: when munmap() began and ended, the writer's grant */
	bool in_munmap;
	uint64_t munmap_start, munmap_done, writer_at;
	unsigned long unseen;		/* munmap()'s pages without PTEs of the model's */
	bool dirty;			/* ... and they are dirty file pages */
	int bad[3];			/* munmap_opts() with bad opts: what each returned */
};

static void setup(struct vrun *r, unsigned int cpus, const char *machine)
{
	memset(r, 0, sizeof(*r));
	wl_vsys_create(machine, cpus, &r->sys, &r->mm, &r->wl);
}

static void teardown(struct vrun *r)
{
	assert_int_equal(tlbgen_oracle__violations(r->sys), 0);
	tlbgen_wl__destroy(r->wl);
	assert_int_equal(tlbgen_system__destroy(r->sys), 0);
}

#define HOLD	100000

static int writer(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct vrun *r = arg;
	int err = tlbgen_switch_mm(sys, cpu, r->mm);

	if (!err)
		err = tlbgen_wl__mmap_write_lock(r->wl, cpu, r->mm);
	if (!err)
		err = tlbgen_vtime__spend(sys, cpu, HOLD);
	return err ? err : tlbgen_wl__mmap_write_unlock(r->wl, cpu, r->mm);
}

static int reader(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct vrun *r = arg;
	int err = tlbgen_switch_mm(sys, cpu, r->mm);

	if (!err)
		err = tlbgen_vtime__spend(sys, cpu, 1000);	/* the writer goes first */
	if (!err)
		err = tlbgen_wl__mmap_read_lock(r->wl, cpu, r->mm);
	if (!err)
		err = tlbgen_vtime__now(sys, cpu, &r->acquired_at);
	if (!err)
		err = tlbgen_cpu__loaded_mm_is(sys, cpu, r->mm) == 1 ? 0 : -ESRCH;
	return err ? err : tlbgen_wl__mmap_read_unlock(r->wl, cpu, r->mm);
}

/* CPU 0 runs `a`, CPU 1 `b`, to the end; both must return 0. */
static void run_pair(struct vrun *r, int (*a)(struct tlbgen_system *, unsigned int, void *),
		     int (*b)(struct tlbgen_system *, unsigned int, void *))
{
	wl_vsys_run_pair(r->sys, a, b, r);
}

/* The reader sleeps while the writer holds the lock, idle in virtual time. */
static void test_reader_sleeps(void **state)
{
	uint64_t w[TLBGEN_WL_STAT_NR];
	struct vrun r;

	(void)state;
	setup(&r, 2, "skylake-56");
	run_pair(&r, writer, reader);
	assert_true(r.acquired_at > HOLD);
	assert_int_equal(tlbgen_wl__stats(r.wl, 1, w, TLBGEN_WL_STAT_NR), TLBGEN_WL_STAT_NR);
	assert_int_equal(w[TLBGEN_WL_STAT_MMAP_LOCK_WAITS], 1);
	assert_int_equal(w[TLBGEN_WL_STAT_SLEEPS], 1);
	assert_true(w[TLBGEN_WL_STAT_SLEEP_CYCLES] > HOLD - 2000);
	assert_int_equal(w[TLBGEN_WL_STAT_C6], 0);	/* no previous sleep: C1 */
	teardown(&r);
}

/* One CPU alone: every RMW of mmap_lock's count is a hit plus the RMW. */
#define ROUNDS	10

static int locker(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct vrun *r = arg;
	int err = tlbgen_switch_mm(sys, cpu, r->mm);

	for (int i = 0; !err && i < ROUNDS; i++) {
		err = tlbgen_wl__mmap_read_lock(r->wl, cpu, r->mm);
		if (!err)
			err = tlbgen_wl__mmap_read_unlock(r->wl, cpu, r->mm);
	}
	return err;
}

static void test_count_line_cost(void **state)
{
	struct tlbgen_vtime_stats st = { .sz = sizeof(st) };
	struct tlbgen_machine m;
	struct vrun r;
	int ret;

	(void)state;
	setup(&r, 2, "skylake-56");
	assert_int_equal(tlbgen_vtime__machine(r.sys, &m), 0);
	assert_int_equal(tlbgen_cpu__spawn(r.sys, 0, locker, &r), 0);
	assert_int_equal(tlbgen_vtime__run(r.sys, UINT64_MAX), 0);
	assert_int_equal(tlbgen_cpu__join(r.sys, 0, &ret), 0);
	assert_int_equal(ret, 0);
	assert_int_equal(tlbgen_vtime__stats(r.sys, &st), 0);
	/* The first RMW finds no owner: a hit too (the line starts here). */
	assert_int_equal(st.time[TLBGEN_VT_TIME_WORK], 2 * ROUNDS * (m.hit + m.rmw));
	teardown(&r);
}

/*
 * munmap() downgrades mmap_lock before zapping (dd2283f2605e): a reader that
 * queues while the zap runs gets the lock before munmap() returns. A writer
 * queued first keeps its turn: the downgrade wakes no writer, and the
 * reader behind it waits for it.
 */
#define MUNMAP_PAGES	32

static int munmapper(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct vrun *r = arg;
	int err = tlbgen_switch_mm(sys, cpu, r->mm);

	for (unsigned long p = 0; !err && p < MUNMAP_PAGES; p++)
		err = tlbgen_wl__fault(r->wl, cpu, r->mm, p << TLBGEN_PAGE_SHIFT, TLBGEN_MAP_ANON,
				       TLBGEN_WL_FAULT_WRITE);
	r->in_munmap = true;
	if (!err)
		err = tlbgen_vtime__now(sys, cpu, &r->munmap_start);
	if (!err) {
		TLBGEN_OPTS(tlbgen_wl_munmap_opts, o, .unseen_pages = r->unseen);

		err = tlbgen_wl__munmap_opts(r->wl, cpu, r->mm, 0,
					     (unsigned long)MUNMAP_PAGES << TLBGEN_PAGE_SHIFT, &o);
	}
	return err ? err : tlbgen_vtime__now(sys, cpu, &r->munmap_done);
}

/* Wait in virtual time until munmap() has begun and holds the lock. */
static int wait_for_munmap(struct tlbgen_system *sys, unsigned int cpu, struct vrun *r,
			   uint64_t after)
{
	struct tlbgen_machine m;
	int err = tlbgen_vtime__machine(sys, &m);

	while (!err && !r->in_munmap)
		err = tlbgen_vtime__spend(sys, cpu, 100);
	return err ? err : tlbgen_vtime__spend(sys, cpu, m.syscall + after * m.zap);
}

static int late_reader(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct vrun *r = arg;
	int err = tlbgen_switch_mm(sys, cpu, r->mm);

	if (!err)
		err = wait_for_munmap(sys, cpu, r, 3);
	if (!err)
		err = tlbgen_wl__mmap_read_lock(r->wl, cpu, r->mm);
	if (!err)
		err = tlbgen_vtime__now(sys, cpu, &r->acquired_at);
	return err ? err : tlbgen_wl__mmap_read_unlock(r->wl, cpu, r->mm);
}

static int queued_writer(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct vrun *r = arg;
	int err = tlbgen_switch_mm(sys, cpu, r->mm);

	if (!err)
		err = wait_for_munmap(sys, cpu, r, 0);
	if (!err)
		err = tlbgen_wl__mmap_write_lock(r->wl, cpu, r->mm);
	if (!err)
		err = tlbgen_vtime__now(sys, cpu, &r->writer_at);
	if (!err)
		err = tlbgen_vtime__spend(sys, cpu, 1000);
	return err ? err : tlbgen_wl__mmap_write_unlock(r->wl, cpu, r->mm);
}

static void run_munmap(struct vrun *r, bool writer_first, const char *choices)
{
	unsigned int n = writer_first ? 3 : 2;
	int ret;

	setup(r, 3, "skylake-56");
	if (choices)
		assert_int_equal(tlbgen_system__set_choices(r->sys, choices), 0);
	assert_int_equal(tlbgen_cpu__spawn(r->sys, 0, munmapper, r), 0);
	assert_int_equal(tlbgen_cpu__spawn(r->sys, 1, late_reader, r), 0);
	if (writer_first)
		assert_int_equal(tlbgen_cpu__spawn(r->sys, 2, queued_writer, r), 0);
	assert_int_equal(tlbgen_vtime__run(r->sys, UINT64_MAX), 0);
	for (unsigned int c = 0; c < n; c++) {
		assert_int_equal(tlbgen_cpu__join(r->sys, c, &ret), 0);
		assert_int_equal(ret, 0);
	}
}

static void test_munmap_downgrades(void **state)
{
	struct tlbgen_machine m;
	struct vrun r;

	(void)state;
	run_munmap(&r, false, NULL);
	assert_true(r.acquired_at > 0);
	assert_true(r.acquired_at < r.munmap_done);
	teardown(&r);
	run_munmap(&r, true, NULL);
	/* the writer waited out every page's zap, and the reader the writer */
	assert_int_equal(tlbgen_vtime__machine(r.sys, &m), 0);
	assert_true(r.writer_at >= r.munmap_start + MUNMAP_PAGES * (uint64_t)m.zap);
	assert_true(r.acquired_at > r.writer_at);
	teardown(&r);
	/* Before dd2283f2605e (munmap_lock=write) the reader waits out the zap. */
	run_munmap(&r, false, "munmap_lock=write");
	assert_true(r.acquired_at >= r.munmap_start + MUNMAP_PAGES * (uint64_t)m.zap);
	teardown(&r);
}

/*
 * The pages a workload maps without PTEs of the model's (page_fault3's
 * file beyond its window) cost one zap_batched each where unmap_region()
 * zaps, under the downgraded lock: a writer queued behind munmap() waits
 * them out. Bad opts change nothing: no time passes, no lock is held.
 */
#define UNSEEN	MUNMAP_PAGES	/* at most the range's pages */

static int bad_munmaps(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct vrun *r = arg;
	unsigned long len = (unsigned long)MUNMAP_PAGES << TLBGEN_PAGE_SHIFT;
	TLBGEN_OPTS(tlbgen_wl_munmap_opts, many, .unseen_pages = MUNMAP_PAGES + 1);
	struct tlbgen_wl_munmap_opts tiny = { .sz = 1 };
	uint64_t t0, t1;
	int err = tlbgen_switch_mm(sys, cpu, r->mm);

	if (!err)
		err = tlbgen_vtime__now(sys, cpu, &t0);
	if (err)
		return err;
	r->bad[0] = tlbgen_wl__munmap_opts(r->wl, cpu, r->mm, 0, len, &many);
	r->bad[1] = tlbgen_wl__munmap_opts(r->wl, cpu, r->mm, 0, len, &tiny);
	r->bad[2] = tlbgen_wl__munmap_opts(r->wl, cpu, r->mm, 0, len, NULL);
	err = tlbgen_vtime__now(sys, cpu, &t1);
	if (!err && t1 != t0)
		err = -EBUSY;
	/* the lock is free: a write lock is granted at once */
	if (!err)
		err = tlbgen_wl__mmap_write_lock(r->wl, cpu, r->mm);
	return err ? err : tlbgen_wl__mmap_write_unlock(r->wl, cpu, r->mm);
}

/* munmap() alone on one CPU: how long it took with r->unseen. */
static uint64_t munmap_took(const char *machine, unsigned long unseen, struct tlbgen_machine *m)
{
	struct vrun r;
	uint64_t took;
	int ret;

	setup(&r, 1, machine);
	r.unseen = unseen;
	assert_int_equal(tlbgen_cpu__spawn(r.sys, 0, munmapper, &r), 0);
	assert_int_equal(tlbgen_vtime__run(r.sys, UINT64_MAX), 0);
	assert_int_equal(tlbgen_cpu__join(r.sys, 0, &ret), 0);
	assert_int_equal(ret, 0);
	assert_int_equal(tlbgen_vtime__machine(r.sys, m), 0);
	took = r.munmap_done - r.munmap_start;
	teardown(&r);
	return took;
}

static void test_munmap_unseen_pages(void **state)
{
	struct tlbgen_machine m, m0;
	struct vrun r;
	int ret;
	uint64_t with, without;

	(void)state;
	/* exactly one zap_batched a page, and zap where a model has none */
	with = munmap_took("skylake-56", UNSEEN, &m);
	without = munmap_took("skylake-56", 0, &m);
	assert_true(m.zap_batched > 0 && m.zap_batched != m.zap);
	assert_int_equal(with - without, UNSEEN * (uint64_t)m.zap_batched);
	with = munmap_took("skylake-56:zap_batched=0", UNSEEN, &m0);
	without = munmap_took("skylake-56:zap_batched=0", 0, &m0);
	assert_int_equal(m0.zap_batched, 0);
	assert_int_equal(with - without, UNSEEN * (uint64_t)m0.zap);
	/* a writer queued behind munmap() waits out the pages' zaps, the
	 * model's and the unseen */
	setup(&r, 3, "skylake-56");
	r.unseen = UNSEEN;
	assert_int_equal(tlbgen_cpu__spawn(r.sys, 0, munmapper, &r), 0);
	assert_int_equal(tlbgen_cpu__spawn(r.sys, 2, queued_writer, &r), 0);
	assert_int_equal(tlbgen_vtime__run(r.sys, UINT64_MAX), 0);
	for (unsigned int c = 0; c < 3; c += 2) {
		assert_int_equal(tlbgen_cpu__join(r.sys, c, &ret), 0);
		assert_int_equal(ret, 0);
	}
	assert_true(r.writer_at >= r.munmap_start + MUNMAP_PAGES * (uint64_t)m.zap +
				   UNSEEN * (uint64_t)m.zap_batched);
	teardown(&r);
	/* bad opts: -EINVAL, and nothing happened */
	setup(&r, 1, "skylake-56");
	assert_int_equal(tlbgen_cpu__spawn(r.sys, 0, bad_munmaps, &r), 0);
	assert_int_equal(tlbgen_vtime__run(r.sys, UINT64_MAX), 0);
	assert_int_equal(tlbgen_cpu__join(r.sys, 0, &ret), 0);
	assert_int_equal(ret, 0);
	for (unsigned int i = 0; i < 3; i++)
		assert_int_equal(r.bad[i], -EINVAL);
	teardown(&r);
}

/*
 * 5df397dec7c4 (zap_delay_rmap=pmd): munmap() of dirty file pages flushes
 * each PTE table's range before the next; before it the gather's one flush
 * at the end covers them. Clean pages never force a flush.
 */
#define BIG_PAGES	2048
#define DIRTY_UNSEEN	(2 * 512 + 8)	/* three PTE tables' worth from 0 */

static int big_munmapper(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct vrun *r = arg;
	TLBGEN_OPTS(tlbgen_wl_munmap_opts, o, .unseen_pages = DIRTY_UNSEEN,
					   .unseen_dirty_file = r->dirty);
	int err = tlbgen_switch_mm(sys, cpu, r->mm);

	return err ? err : tlbgen_wl__munmap_opts(r->wl, cpu, r->mm, 0,
						  (unsigned long)BIG_PAGES << TLBGEN_PAGE_SHIFT, &o);
}

static uint64_t delay_rmap_flushes(const char *choice, bool dirty)
{
	struct vrun r;
	uint64_t n;
	int ret;

	setup(&r, 1, "skylake-56");
	assert_int_equal(tlbgen_system__set_choices(r.sys, choice), 0);
	r.mm = t_mm(r.sys, BIG_PAGES);
	r.dirty = dirty;
	assert_int_equal(tlbgen_cpu__spawn(r.sys, 0, big_munmapper, &r), 0);
	assert_int_equal(tlbgen_vtime__run(r.sys, UINT64_MAX), 0);
	assert_int_equal(tlbgen_cpu__join(r.sys, 0, &ret), 0);
	assert_int_equal(ret, 0);
	n = t_sys_stat(r.sys, TLBGEN_STAT_FLUSH_INITIATED);
	teardown(&r);
	return n;
}

static void test_munmap_delay_rmap(void **state)
{
	(void)state;
	/* the gather's own flush, and one per PTE table before it */
	assert_int_equal(delay_rmap_flushes("zap_delay_rmap=off", true), 1);
	assert_int_equal(delay_rmap_flushes("zap_delay_rmap=pmd", true), 1 + 3);
	assert_int_equal(delay_rmap_flushes("zap_delay_rmap=pmd", false), 1);
}

/*
 * A fault while another CPU holds mmap_lock for write: it waits out the
 * holder unless the profile's vma_lock_fault lets it finish under the VMA's
 * lock alone (0bff0aaea03e anonymous; 4ed4379881aa shared file writes;
 * v6.7 every fault).
 */
struct fault_case {
	const char *choice;
	unsigned int map, flags;
	bool waits;
};

static const struct fault_case *fault_case;

static int faulter(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct vrun *r = arg;
	int err = tlbgen_switch_mm(sys, cpu, r->mm);

	if (!err)	/* a new mm's PTEs are present: make page 0 never-faulted */
		err = tlbgen_pte_set(sys, cpu, r->mm, 0, TLBGEN_PTEF_NONE);
	if (!err)
		err = tlbgen_vtime__spend(sys, cpu, 1000);	/* the writer goes first */
	if (!err)
		err = tlbgen_wl__fault(r->wl, cpu, r->mm, 0, fault_case->map, fault_case->flags);
	return err ? err : tlbgen_vtime__now(sys, cpu, &r->acquired_at);
}

static void test_vma_lock_fault(void **state)
{
	static const struct fault_case cases[] = {
		{ "vma_lock_fault=none", TLBGEN_MAP_ANON, TLBGEN_WL_FAULT_WRITE, true },
		{ "vma_lock_fault=anon", TLBGEN_MAP_ANON, TLBGEN_WL_FAULT_WRITE, false },
		{ "vma_lock_fault=anon", TLBGEN_MAP_FILE | TLBGEN_MAP_SHARED,
		  TLBGEN_WL_FAULT_WRITE, true },
		{ "vma_lock_fault=anon-shared", TLBGEN_MAP_FILE | TLBGEN_MAP_SHARED,
		  TLBGEN_WL_FAULT_WRITE, false },
		{ "vma_lock_fault=anon-shared", TLBGEN_MAP_FILE, 0, true },
		{ "vma_lock_fault=anon-shared", TLBGEN_MAP_FILE | TLBGEN_MAP_SHARED, 0, true },
		{ "vma_lock_fault=all", TLBGEN_MAP_FILE, 0, false },
		{ "vma_lock_fault=all", TLBGEN_MAP_FILE, TLBGEN_WL_FAULT_WRITE, false },
	};
	uint64_t w[TLBGEN_WL_STAT_NR];
	struct vrun r;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fault_case = &cases[i];
		setup(&r, 2, "skylake-56");
		assert_int_equal(tlbgen_system__set_choices(r.sys, fault_case->choice), 0);
		run_pair(&r, writer, faulter);
		assert_int_equal(tlbgen_wl__stats(r.wl, 1, w, TLBGEN_WL_STAT_NR),
				 TLBGEN_WL_STAT_NR);
		assert_int_equal(w[TLBGEN_WL_STAT_FAULTS], 1);
		assert_int_equal(w[TLBGEN_WL_STAT_MMAP_LOCK_WAITS], cases[i].waits);
		if (cases[i].waits)
			assert_true(r.acquired_at > HOLD);
		else
			assert_true(r.acquired_at < HOLD);
		teardown(&r);
	}
}

/* The workload's old per_vma_lock switch is refused, not ignored. */
static void test_per_vma_lock_refused(void **state)
{
	TLBGEN_OPTS(tlbgen_wl_opts, wo, .per_vma_lock = true);
	struct tlbgen_wl *wl = NULL;
	struct vrun r;

	(void)state;
	setup(&r, 2, "skylake-56");
	assert_int_equal(tlbgen_wl__create(r.sys, &wo, &wl), -EINVAL);
	assert_null(wl);
	teardown(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reader_sleeps),
		cmocka_unit_test(test_count_line_cost),
		cmocka_unit_test(test_munmap_downgrades),
		cmocka_unit_test(test_munmap_unseen_pages),
		cmocka_unit_test(test_munmap_delay_rmap),
		cmocka_unit_test(test_vma_lock_fault),
		cmocka_unit_test(test_per_vma_lock_refused),
	};

	return cmocka_run_group_tests_name("workload-virtual", tests, NULL, NULL);
}
