// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The workload layer on real threads: mmap_lock excludes a reader while a
 * writer holds it, and hands it over at up_write(); lru_lock's holds. The verdict does not
 * depend on timing: the reader is only checked for having not got the lock
 * while the writer provably still holds it.
 */
#include <pthread.h>

#include "tlbgen-test.h"

struct trun {
	struct tlbgen_system *sys;
	struct tlbgen_mm *mm;
	struct tlbgen_wl *wl;
	atomic_int held, trying, got, released;
	int err[2];
};

static void *writer(void *arg)
{
	struct trun *r = arg;
	int err = tlbgen_cpu__attach(r->sys, 0);

	if (!err)
		err = tlbgen_switch_mm(r->sys, 0, r->mm);
	if (!err)
		err = tlbgen_wl__mmap_write_lock(r->wl, 0, r->mm);
	atomic_store(&r->held, 1);
	while (!err && !atomic_load(&r->trying))
		tlbgen_poll(r->sys, 0);
	/* The reader asked; it cannot have got the lock: we hold it. */
	for (int i = 0; !err && i < 100000; i++)
		if (atomic_load(&r->got))
			err = -EBUSY;
	atomic_store(&r->released, 1);
	if (!err)
		err = tlbgen_wl__mmap_write_unlock(r->wl, 0, r->mm);
	while (!atomic_load(&r->got))
		tlbgen_poll(r->sys, 0);
	tlbgen_cpu__detach(r->sys, 0);
	r->err[0] = err;
	return NULL;
}

static void *reader(void *arg)
{
	struct trun *r = arg;
	int err = tlbgen_cpu__attach(r->sys, 1);

	if (!err)
		err = tlbgen_switch_mm(r->sys, 1, r->mm);
	while (!err && !atomic_load(&r->held))
		tlbgen_poll(r->sys, 1);
	atomic_store(&r->trying, 1);
	if (!err)
		err = tlbgen_wl__mmap_read_lock(r->wl, 1, r->mm);
	if (!err && !atomic_load(&r->released))
		err = -EPERM;	/* got it while the writer held it */
	atomic_store(&r->got, 1);
	if (!err)
		err = tlbgen_wl__mmap_read_unlock(r->wl, 1, r->mm);
	tlbgen_cpu__detach(r->sys, 1);
	r->err[1] = err;
	return NULL;
}

static void test_writer_excludes_reader(void **state)
{
	TLBGEN_OPTS(tlbgen_wl_opts, wo);
	uint64_t w[TLBGEN_WL_STAT_NR];
	struct trun r = { 0 };
	pthread_t t[2];

	(void)state;
	r.sys = t_sys_mode(2, TLBGEN_MODE_THREADED, "latest", NULL);
	r.mm = t_mm(r.sys, 16);
	assert_int_equal(tlbgen_wl__create(r.sys, &wo, &r.wl), 0);
	assert_int_equal(pthread_create(&t[0], NULL, writer, &r), 0);
	assert_int_equal(pthread_create(&t[1], NULL, reader, &r), 0);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	assert_int_equal(r.err[0], 0);
	assert_int_equal(r.err[1], 0);
	assert_int_equal(tlbgen_wl__stats(r.wl, 1, w, TLBGEN_WL_STAT_NR), TLBGEN_WL_STAT_NR);
	assert_int_equal(w[TLBGEN_WL_STAT_MMAP_LOCK_WAITS], 1);
	tlbgen_wl__destroy(r.wl);
	assert_int_equal(tlbgen_system__destroy(r.sys), 0);
}

/*
 * lru_lock on real threads (lib/workload/lru.c): two CPUs each put 62 new
 * anonymous folios through a 31-folio batch and zap each at once; every
 * hold burns 20 us a folio with IRQs off. The holds are counted whatever the
 * interleaving: 3 per 31 ops a CPU (the batch in, its 30 dead out, the
 * 31st's own free), and both CPUs get through the shared ticket lock
 * (a hang here is the failure). Each stays attached, taking IPIs, until
 * both are done: the other's flushes still IPI it.
 */
struct lrun {
	struct tlbgen_system *sys;
	struct tlbgen_mm *mm;
	struct tlbgen_wl *wl;
	atomic_int *finished;
	unsigned int cpu;
	int err;
};

static void *zapper(void *arg)
{
	struct lrun *l = arg;
	int err = tlbgen_cpu__attach(l->sys, l->cpu);

	if (!err)
		err = tlbgen_switch_mm(l->sys, l->cpu, l->mm);
	for (unsigned int i = 0; !err && i < 62; i++) {
		unsigned long a = PG(l->cpu * 8 + i % 8);

		err = tlbgen_wl__fault(l->wl, l->cpu, l->mm, a, TLBGEN_MAP_ANON,
				       TLBGEN_WL_FAULT_WRITE);
		if (!err)
			err = tlbgen_wl__madvise_dontneed(l->wl, l->cpu, l->mm, a, TLBGEN_PAGE_SIZE);
	}
	atomic_fetch_add(l->finished, 1);
	while (atomic_load(l->finished) < 2)
		tlbgen_poll(l->sys, l->cpu);
	tlbgen_cpu__detach(l->sys, l->cpu);
	l->err = err;
	return NULL;
}

static void test_lru_lock_threads(void **state)
{
	struct tlbgen_machine m;
	struct lrun l[2] = { { 0 } };
	atomic_int finished = 0;
	struct tlbgen_wl *wl;
	uint64_t w[TLBGEN_WL_STAT_NR];
	pthread_t t[2];

	(void)state;
	/* 20 us a folio under the lock at 1 GHz; the other events cost nothing */
	assert_int_equal(tlbgen_machine_lookup("skylake-56:mhz=1000,syscall=0,page_fault=0,"
					       "ptl=0,zap=0,user_work=0,lru_folio=20000", &m), 0);
	{
		TLBGEN_OPTS(tlbgen_wl_opts, wo, .kwork = &m);

		l[0].sys = t_sys_mode(2, TLBGEN_MODE_THREADED, "latest", NULL);
		l[0].mm = t_mm(l[0].sys, 16);
		for (unsigned int p = 0; p < 16; p++)
			assert_int_equal(tlbgen_pte_set(l[0].sys, 0, l[0].mm, PG(p), TLBGEN_PTEF_NONE), 0);
		assert_int_equal(tlbgen_wl__create(l[0].sys, &wo, &wl), 0);
	}
	l[0].wl = wl;
	l[0].finished = &finished;
	l[1] = l[0];
	l[1].cpu = 1;
	for (unsigned int c = 0; c < 2; c++)
		assert_int_equal(pthread_create(&t[c], NULL, zapper, &l[c]), 0);
	for (unsigned int c = 0; c < 2; c++) {
		pthread_join(t[c], NULL);
		assert_int_equal(l[c].err, 0);
	}
	assert_int_equal(tlbgen_wl__stats(wl, -1, w, TLBGEN_WL_STAT_NR), TLBGEN_WL_STAT_NR);
	assert_int_equal(w[TLBGEN_WL_STAT_LRU_LOCKS], 12);
	assert_int_equal(w[TLBGEN_WL_STAT_LRU_FOLIOS], 2 * (62 + 60 + 2));
	assert_int_equal(tlbgen_oracle__violations(l[0].sys), 0);
	tlbgen_wl__destroy(wl);
	assert_int_equal(tlbgen_system__destroy(l[0].sys), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_writer_excludes_reader),
		cmocka_unit_test(test_lru_lock_threads),
	};

	return cmocka_run_group_tests_name("workload-threaded", tests, NULL, NULL);
}
