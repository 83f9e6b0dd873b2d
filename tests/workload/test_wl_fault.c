// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The workload layer's faults and system calls on one CPU (stepped, no
 * concurrency): what each maps, when it flushes, and what it counts.
 */
#include "tlbgen-test.h"

#define FILE_PRIV	TLBGEN_MAP_FILE
#define FILE_SHARED	(TLBGEN_MAP_FILE | TLBGEN_MAP_SHARED)
#define W		TLBGEN_WL_FAULT_WRITE

struct fix {
	struct tlbgen_system *sys;
	struct tlbgen_mm *mm;
	struct tlbgen_wl *wl;
};

static struct fix setup(const char *profile, unsigned int nr_cpus)
{
	TLBGEN_OPTS(tlbgen_wl_opts, wo);
	struct fix f;

	f.sys = t_sys(profile, nr_cpus, 1);
	f.mm = t_mm(f.sys, 64);
	assert_int_equal(tlbgen_wl__create(f.sys, &wo, &f.wl), 0);
	for (unsigned int p = 0; p < 64; p++)
		assert_int_equal(tlbgen_pte_set(f.sys, 0, f.mm, PG(p), TLBGEN_PTEF_NONE), 0);
	t_switch_all(f.sys, 0, nr_cpus - 1, f.mm);
	assert_int_equal(tlbgen_stats__reset(f.sys), 0);
	return f;
}

static void teardown(struct fix *f)
{
	assert_int_equal(tlbgen_oracle__violations(f->sys), 0);
	tlbgen_wl__destroy(f->wl);
	assert_int_equal(tlbgen_system__destroy(f->sys), 0);
}

static uint64_t wl_stat(const struct fix *f, enum tlbgen_wl_stat s)
{
	uint64_t v[TLBGEN_WL_STAT_NR];

	assert_int_equal(tlbgen_wl__stats(f->wl, -1, v, TLBGEN_WL_STAT_NR), TLBGEN_WL_STAT_NR);
	return v[s];
}

static bool writable(const struct fix *f, unsigned int p)
{
	return tlbgen_pte__flags(f->mm, PG(p)) & TLBGEN_PTEF_WRITE;
}

static bool none(const struct fix *f, unsigned int p)
{
	return tlbgen_pte__flags(f->mm, PG(p)) & TLBGEN_PTEF_NONE;
}

/* will-it-scale tlb_flush1's pattern: write, zap, read back, next page. */
static void test_file_private(void **state)
{
	struct fix f = setup(*state, 2);

	/* A write to a none PTE: a private copy, writable, no flush. */
	assert_int_equal(tlbgen_wl__fault(f.wl, 0, f.mm, PG(16), FILE_PRIV, W), 0);
	assert_true(writable(&f, 16));
	assert_int_equal(t_sys_stat(f.sys, TLBGEN_STAT_FLUSH_INITIATED), 0);
	/* madvise(MADV_DONTNEED): zapped, one gather, one flush. */
	assert_int_equal(tlbgen_wl__madvise_dontneed(f.wl, 0, f.mm, PG(16), TLBGEN_PAGE_SIZE), 0);
	assert_true(none(&f, 16));
	assert_int_equal(t_sys_stat(f.sys, TLBGEN_STAT_FLUSH_INITIATED), 1);
	assert_int_equal(wl_stat(&f, TLBGEN_WL_STAT_GATHERS), 1);
	assert_int_equal(wl_stat(&f, TLBGEN_WL_STAT_NESTED), 0);
	/* The read back: do_fault_around() maps the block's 16 pages read-only. */
	assert_int_equal(tlbgen_wl__fault(f.wl, 0, f.mm, PG(16), FILE_PRIV, 0), 0);
	for (unsigned int p = 16; p < 32; p++)
		assert_false(none(&f, p) || writable(&f, p));
	assert_true(none(&f, 15) && none(&f, 32));
	assert_int_equal(wl_stat(&f, TLBGEN_WL_STAT_FAULT_AROUND), 15);
	/* The next page's write is a COW: wp_page_copy() flushes it. */
	assert_int_equal(tlbgen_wl__fault(f.wl, 0, f.mm, PG(17), FILE_PRIV, W), 0);
	t_idle(f.sys);
	assert_true(writable(&f, 17));
	assert_int_equal(wl_stat(&f, TLBGEN_WL_STAT_COW), 1);
	assert_int_equal(t_sys_stat(f.sys, TLBGEN_STAT_FLUSH_INITIATED), 2);
	/* The first write did not flush: faults 3 in all. */
	assert_int_equal(wl_stat(&f, TLBGEN_WL_STAT_FAULTS), 3);
	teardown(&f);
}

static void test_anon_and_shared(void **state)
{
	struct fix f = setup(*state, 1);

	/* Anonymous: a read maps the zero page; the write after it is a COW. */
	assert_int_equal(tlbgen_wl__fault(f.wl, 0, f.mm, PG(3), TLBGEN_MAP_ANON, 0), 0);
	assert_false(none(&f, 3) || writable(&f, 3));
	assert_true(none(&f, 4));	/* no fault-around for anonymous memory */
	assert_int_equal(tlbgen_wl__fault(f.wl, 0, f.mm, PG(3), TLBGEN_MAP_ANON, W), 0);
	assert_true(writable(&f, 3));
	assert_int_equal(wl_stat(&f, TLBGEN_WL_STAT_COW), 1);
	/* Shared file: a write to the read-only page makes it writable, no flush. */
	assert_int_equal(tlbgen_wl__fault(f.wl, 0, f.mm, PG(40), FILE_SHARED, 0), 0);
	assert_int_equal(tlbgen_stats__reset(f.sys), 0);
	assert_int_equal(tlbgen_wl__fault(f.wl, 0, f.mm, PG(40), FILE_SHARED, W), 0);
	assert_true(writable(&f, 40));
	assert_int_equal(t_sys_stat(f.sys, TLBGEN_STAT_FLUSH_INITIATED), 0);
	assert_int_equal(wl_stat(&f, TLBGEN_WL_STAT_COW), 1);
	/* A fault on a PTE that already allows the access changes nothing. */
	assert_int_equal(tlbgen_wl__fault(f.wl, 0, f.mm, PG(40), FILE_SHARED, W), 0);
	assert_int_equal(t_sys_stat(f.sys, TLBGEN_STAT_FLUSH_INITIATED), 0);
	teardown(&f);
}

/* munmap() flushes with freed_tables when told; mprotect() only what it changed. */
static void test_munmap_mprotect(void **state)
{
	struct fix f = setup(*state, 1);

	for (unsigned int p = 0; p < 8; p++)
		assert_int_equal(tlbgen_wl__fault(f.wl, 0, f.mm, PG(p), TLBGEN_MAP_ANON, W), 0);
	assert_int_equal(tlbgen_wl__mprotect_ro(f.wl, 0, f.mm, PG(0), PG(4)), 0);
	for (unsigned int p = 0; p < 8; p++)
		assert_int_equal(writable(&f, p), p >= 4);
	assert_int_equal(t_sys_stat(f.sys, TLBGEN_STAT_FLUSH_INITIATED), 1);
	/* Nothing writable left there: no second flush. */
	assert_int_equal(tlbgen_wl__mprotect_ro(f.wl, 0, f.mm, PG(0), PG(4)), 0);
	assert_int_equal(t_sys_stat(f.sys, TLBGEN_STAT_FLUSH_INITIATED), 1);
	assert_int_equal(tlbgen_wl__munmap(f.wl, 0, f.mm, PG(0), PG(8), true), 0);
	for (unsigned int p = 0; p < 8; p++)
		assert_true(none(&f, p));
	assert_int_equal(wl_stat(&f, TLBGEN_WL_STAT_ZAPS), 8);
	assert_int_equal(t_sys_stat(f.sys, TLBGEN_STAT_FLUSH_INITIATED), 2);
	teardown(&f);
}

/*
 * mprotect(PROT_READ), then mprotect(PROT_READ|PROT_WRITE), then a write,
 * on 8 written anonymous pages and on 8 written pages of a shared file:
 * before 64fe24a3e05e (v5.17) only the shared file's dirty PTEs come back
 * writable with the mprotect() (its flush), the anonymous ones at the write
 * fault, which reuses the page without a copy or flush; from v6.0 both
 * come back with the mprotect(), each its flush.
 */
static void mprotect_rw(void **state, bool anon_writable)
{
	struct fix f = setup(*state, 1);
	uint64_t fl;

	for (unsigned int p = 0; p < 16; p++)
		assert_int_equal(tlbgen_wl__fault(f.wl, 0, f.mm, PG(p),
						  p < 8 ? TLBGEN_MAP_ANON : FILE_SHARED, W), 0);
	assert_int_equal(tlbgen_wl__mprotect(f.wl, 0, f.mm, PG(0), PG(8), TLBGEN_PROT_READ,
					     TLBGEN_MAP_ANON), 0);
	assert_int_equal(tlbgen_wl__mprotect(f.wl, 0, f.mm, PG(8), PG(8), TLBGEN_PROT_READ,
					     FILE_SHARED), 0);
	for (unsigned int p = 0; p < 16; p++)
		assert_false(writable(&f, p));
	assert_int_equal(t_sys_stat(f.sys, TLBGEN_STAT_FLUSH_INITIATED), 2);
	assert_int_equal(tlbgen_wl__mprotect(f.wl, 0, f.mm, PG(8), PG(8),
					     TLBGEN_PROT_READ | TLBGEN_PROT_WRITE, FILE_SHARED), 0);
	assert_int_equal(tlbgen_wl__mprotect(f.wl, 0, f.mm, PG(0), PG(8),
					     TLBGEN_PROT_READ | TLBGEN_PROT_WRITE, TLBGEN_MAP_ANON), 0);
	for (unsigned int p = 0; p < 16; p++)
		assert_int_equal(writable(&f, p), p >= 8 || anon_writable);
	fl = anon_writable ? 4 : 3;
	assert_int_equal(t_sys_stat(f.sys, TLBGEN_STAT_FLUSH_INITIATED), fl);
	assert_int_equal(tlbgen_wl__fault(f.wl, 0, f.mm, PG(0), TLBGEN_MAP_ANON, W), 0);
	assert_true(writable(&f, 0));
	assert_int_equal(t_sys_stat(f.sys, TLBGEN_STAT_FLUSH_INITIATED), fl);
	assert_int_equal(wl_stat(&f, TLBGEN_WL_STAT_COW), 0);
	teardown(&f);
}

static void test_mprotect_rw_v5_17(void **state)
{
	mprotect_rw(state, false);
}

static void test_mprotect_rw_v6_0(void **state)
{
	mprotect_rw(state, true);
}

/*
 * A gather that cleared no PTE and freed no table flushes nothing
 * (tlb_flush_mmu_tlbonly() returns at once): madvise() of a none page,
 * munmap() of a range with no page mapped; freeing tables still flushes.
 */
static void test_empty_gather(void **state)
{
	struct fix f = setup(*state, 1);

	assert_int_equal(tlbgen_wl__madvise_dontneed(f.wl, 0, f.mm, PG(0), PG(4)), 0);
	assert_int_equal(tlbgen_wl__munmap(f.wl, 0, f.mm, PG(0), PG(8), false), 0);
	assert_int_equal(wl_stat(&f, TLBGEN_WL_STAT_GATHERS), 2);
	assert_int_equal(t_sys_stat(f.sys, TLBGEN_STAT_FLUSH_INITIATED), 0);
	assert_int_equal(tlbgen_wl__munmap(f.wl, 0, f.mm, PG(0), PG(8), true), 0);
	assert_int_equal(t_sys_stat(f.sys, TLBGEN_STAT_FLUSH_INITIATED), 1);
	assert_int_equal(tlbgen_wl__fault(f.wl, 0, f.mm, PG(0), TLBGEN_MAP_ANON, W), 0);
	assert_int_equal(tlbgen_wl__madvise_dontneed(f.wl, 0, f.mm, PG(0), PG(4)), 0);
	assert_int_equal(t_sys_stat(f.sys, TLBGEN_STAT_FLUSH_INITIATED), 2);
	teardown(&f);
}

/* Bad input: -EINVAL and nothing changed. */
static void test_bad_input(void **state)
{
	struct fix f = setup(*state, 2);
	struct tlbgen_mm *init_mm = NULL;
	TLBGEN_OPTS(tlbgen_wl_opts, bad, .fault_around_pages = 12);
	struct tlbgen_wl *wl2 = NULL;

	assert_int_equal(tlbgen_wl__fault(f.wl, 0, f.mm, PG(64), FILE_PRIV, W), -EINVAL);
	assert_int_equal(tlbgen_wl__fault(f.wl, 0, f.mm, PG(1), TLBGEN_MAP_SHARED, W), -EINVAL);
	assert_int_equal(tlbgen_wl__fault(f.wl, 0, f.mm, PG(1), FILE_PRIV, 0x80), -EINVAL);
	assert_int_equal(tlbgen_wl__fault(f.wl, 2, f.mm, PG(1), FILE_PRIV, W), -EINVAL);
	assert_int_equal(tlbgen_wl__fault(NULL, 0, f.mm, PG(1), FILE_PRIV, W), -EINVAL);
	assert_int_equal(tlbgen_wl__fault(f.wl, 0, init_mm, PG(1), FILE_PRIV, W), -EINVAL);
	assert_int_equal(tlbgen_wl__madvise_dontneed(f.wl, 0, f.mm, PG(63), PG(2)), -EINVAL);
	assert_int_equal(tlbgen_wl__madvise_dontneed(f.wl, 0, f.mm, 100, PG(1)), -EINVAL);
	assert_int_equal(tlbgen_wl__madvise_dontneed(f.wl, 0, f.mm, PG(1), 0), -EINVAL);
	assert_int_equal(tlbgen_wl__mprotect(f.wl, 0, f.mm, PG(1), PG(1), 0, TLBGEN_MAP_ANON), -EINVAL);
	assert_int_equal(tlbgen_wl__mprotect(f.wl, 0, f.mm, PG(1), PG(1), TLBGEN_PROT_WRITE,
					     TLBGEN_MAP_ANON), -EINVAL);
	assert_int_equal(tlbgen_wl__mprotect(f.wl, 0, f.mm, PG(1), PG(1), TLBGEN_PROT_READ, 0x80),
			 -EINVAL);
	assert_int_equal(tlbgen_wl__mprotect(f.wl, 0, f.mm, PG(63), PG(2), TLBGEN_PROT_READ,
					     TLBGEN_MAP_ANON), -EINVAL);
	assert_int_equal(tlbgen_wl__mmap_read_unlock(f.wl, 0, f.mm), -EINVAL);
	assert_int_equal(tlbgen_wl__mmap_write_unlock(f.wl, 0, f.mm), -EINVAL);
	assert_int_equal(tlbgen_wl__wake(f.wl, 0, 0), -EINVAL);
	assert_int_equal(tlbgen_wl__wake(f.wl, 0, 2), -EINVAL);
	assert_int_equal(tlbgen_wl__create(f.sys, &bad, &wl2), -EINVAL);
	assert_null(wl2);
	for (unsigned int p = 0; p < 64; p++)
		assert_true(none(&f, p));
	assert_int_equal(wl_stat(&f, TLBGEN_WL_STAT_FAULTS), 0);
	assert_int_equal(t_sys_stat(f.sys, TLBGEN_STAT_FLUSH_INITIATED), 0);
	teardown(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		T_EACH(test_file_private),
		T_PRE(test_anon_and_shared, "latest"),
		T_PRE(test_munmap_mprotect, "latest"),
		T_PRE(test_mprotect_rw_v5_17, "v5.17"),
		T_PRE(test_empty_gather, "latest"),
		T_PRE(test_mprotect_rw_v6_0, "v6.0"),
		T_PRE(test_bad_input, "latest"),
	};

	return cmocka_run_group_tests_name("workload-fault", tests, NULL, NULL);
}
