// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The workload layer on real threads: mmap_lock excludes a reader while a
 * writer holds it, and hands it over at up_write(). The verdict does not
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_writer_excludes_reader),
	};

	return cmocka_run_group_tests_name("workload-threaded", tests, NULL, NULL);
}
