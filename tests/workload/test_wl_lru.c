// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The LRU's lock (lib/workload/lru.c): how many lru_lock holds a
 * workload's new and freed anonymous folios take under each profile's
 * choices (stepped: counted, no cost), what one hold costs in virtual
 * time, and a second CPU spinning behind it.
 */
#include "tlbgen-test.h"
#include "wl-vsys.h"

#define W	TLBGEN_WL_FAULT_WRITE
#define OLD_LRU	"pagevec_size=15,folios_put=release_pages,zap_lru_drain=on"
#define NEW_LRU	"pagevec_size=31,folios_put=folio_batch,zap_lru_drain=off"

static uint64_t wl_stat(struct tlbgen_wl *wl, int cpu, enum tlbgen_wl_stat s)
{
	uint64_t v[TLBGEN_WL_STAT_NR];

	assert_int_equal(tlbgen_wl__stats(wl, cpu, v, TLBGEN_WL_STAT_NR), TLBGEN_WL_STAT_NR);
	return v[s];
}

struct fix {
	struct tlbgen_system *sys;
	struct tlbgen_mm *mm;
	struct tlbgen_wl *wl;
};

static struct fix stepped(const char *choices)
{
	TLBGEN_OPTS(tlbgen_wl_opts, wo);
	struct fix f;

	f.sys = t_sys("latest", 1, 1);
	assert_int_equal(tlbgen_system__set_choices(f.sys, choices), 0);
	f.mm = t_mm(f.sys, 64);
	assert_int_equal(tlbgen_wl__create(f.sys, &wo, &f.wl), 0);
	for (unsigned int p = 0; p < 64; p++)
		assert_int_equal(tlbgen_pte_set(f.sys, 0, f.mm, PG(p), TLBGEN_PTEF_NONE), 0);
	t_switch_all(f.sys, 0, 0, f.mm);
	return f;
}

static void done(struct fix *f)
{
	assert_int_equal(tlbgen_oracle__violations(f->sys), 0);
	tlbgen_wl__destroy(f->wl);
	assert_int_equal(tlbgen_system__destroy(f->sys), 0);
}

/* tlb_flush2's op: a new anonymous page, madvise(MADV_DONTNEED) of it. */
static void write_zap(struct fix *f, unsigned int p)
{
	assert_int_equal(tlbgen_wl__fault(f->wl, 0, f->mm, PG(p), TLBGEN_MAP_ANON, W), 0);
	assert_int_equal(tlbgen_wl__madvise_dontneed(f->wl, 0, f->mm, PG(p), TLBGEN_PAGE_SIZE), 0);
}

/*
 * Before 1aa43598c03b every free drained the CPU's lru_add batch first:
 * each op puts its one folio on the LRU and takes it off again, two holds.
 */
static void test_drain_before_free(void **state)
{
	struct fix f = stepped(OLD_LRU);

	(void)state;
	for (unsigned int i = 0; i < 20; i++)
		write_zap(&f, i);
	assert_int_equal(wl_stat(f.wl, -1, TLBGEN_WL_STAT_LRU_LOCKS), 40);
	assert_int_equal(wl_stat(f.wl, -1, TLBGEN_WL_STAT_LRU_FOLIOS), 40);
	done(&f);
}

/*
 * Since: a folio zapped in the batch waits there. The 31st new folio fills
 * the batch: one hold puts the 31 on the LRU, one takes the 30 dead ones
 * off; the 31st's own zap then finds it on the LRU: a third.
 */
static void test_freed_in_batch(void **state)
{
	struct fix f = stepped(NEW_LRU);

	(void)state;
	for (unsigned int i = 0; i < 30; i++)
		write_zap(&f, i);
	assert_int_equal(wl_stat(f.wl, -1, TLBGEN_WL_STAT_LRU_LOCKS), 0);
	write_zap(&f, 30);
	assert_int_equal(wl_stat(f.wl, -1, TLBGEN_WL_STAT_LRU_LOCKS), 3);
	assert_int_equal(wl_stat(f.wl, -1, TLBGEN_WL_STAT_LRU_FOLIOS), 31 + 30 + 1);
	done(&f);
}

/*
 * munmap() of 1000 anonymous pages the model has no PTEs for, after 40
 * new folios. The gather frees them batch by batch (8 in its bundle, then
 * 510 a page: 8, 510, 482), each batch's lock runs afresh: release_pages()
 * relocks every 32 folios, folios_put_refs() per folio_batch of
 * PAGEVEC_SIZE.
 */
static void munmap_anon(const char *choices, uint64_t want_locks, uint64_t want_folios)
{
	TLBGEN_OPTS(tlbgen_wl_munmap_opts, o, .unseen_pages = 1000 - 40, .unseen_anon = true);
	struct fix f = stepped(choices);
	struct tlbgen_mm *big = t_mm(f.sys, 1000);

	for (unsigned int p = 0; p < 1000; p++)
		assert_int_equal(tlbgen_pte_set(f.sys, 0, big, PG(p), TLBGEN_PTEF_NONE), 0);
	t_switch_all(f.sys, 0, 0, big);
	for (unsigned int p = 0; p < 40; p++)
		assert_int_equal(tlbgen_wl__fault(f.wl, 0, big, PG(p), TLBGEN_MAP_ANON, W), 0);
	assert_int_equal(tlbgen_wl__munmap_opts(f.wl, 0, big, 0, PG(1000), &o), 0);
	assert_int_equal(wl_stat(f.wl, -1, TLBGEN_WL_STAT_LRU_LOCKS), want_locks);
	assert_int_equal(wl_stat(f.wl, -1, TLBGEN_WL_STAT_LRU_FOLIOS), want_folios);
	done(&f);
}

static void test_munmap_runs(void **state)
{
	(void)state;
	/* 15: 2 batches moved at the faults; unmap_region()'s drain moves
	 * the other 10, then runs of 32: 1 + 16 + 16 */
	munmap_anon(OLD_LRU, 2 + 1 + 33, 40 + 1000);
	/* 31: one batch moved at the faults; 9 wait in the batch, dead; the
	 * other 991 in runs of 31: 1 + 17 + 16 (the last run has freed folios
	 * beside the 9); the 9 stay for the batch's next move */
	munmap_anon(NEW_LRU, 1 + 34, 31 + 991);
}

static void test_munmap_bad_opts(void **state)
{
	TLBGEN_OPTS(tlbgen_wl_munmap_opts, o, .unseen_pages = 8, .unseen_anon = true,
		    .unseen_dirty_file = true);
	struct fix f = stepped(NEW_LRU);

	(void)state;
	assert_int_equal(tlbgen_wl__munmap_opts(f.wl, 0, f.mm, 0, PG(16), &o), -EINVAL);
	assert_int_equal(wl_stat(f.wl, -1, TLBGEN_WL_STAT_GATHERS), 0);
	done(&f);
}

/* ---- virtual time --------------------------------------------------------------------- */

struct vrun {
	struct tlbgen_system *sys;
	struct tlbgen_mm *mm;
	struct tlbgen_wl *wl;
	uint64_t t[2][16];	/* each CPU's clock after each of its faults */
};

/* 15 new anonymous pages: the 15th fills a PAGEVEC_SIZE 15 batch. */
static int fifteen(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct vrun *r = arg;

	if (tlbgen_switch_mm(sys, cpu, r->mm))
		return -1;
	for (unsigned int p = 0; p < 15; p++) {
		int err = tlbgen_wl__fault(r->wl, cpu, r->mm, PG(cpu * 32 + p), TLBGEN_MAP_ANON, W);

		if (err || tlbgen_vtime__now(sys, cpu, &r->t[cpu][p]))
			return -1;
	}
	return 0;
}

static int idle(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	(void)sys;
	(void)cpu;
	(void)arg;
	return 0;
}

static void vrun(struct vrun *r, const char *machine, bool both)
{
	wl_vsys_create(machine, 2, &r->sys, &r->mm, &r->wl);
	assert_int_equal(tlbgen_system__set_choices(r->sys, OLD_LRU), 0);
	for (unsigned int p = 0; p < 64; p++)
		assert_int_equal(tlbgen_pte_set(r->sys, 0, r->mm, PG(p), TLBGEN_PTEF_NONE), 0);
	wl_vsys_run_pair(r->sys, fifteen, both ? fifteen : idle, r);
}

static void vdone(struct vrun *r)
{
	tlbgen_wl__destroy(r->wl);
	assert_int_equal(tlbgen_system__destroy(r->sys), 0);
}

/*
 * One hold on a line nobody else touched: the ticket's RMW (a hit, plus
 * rmw), 15 folios' lru_folio, the release store (a hit). The same run on a
 * model without lru_folio takes no lock: the 15th fault is that much
 * shorter, and no other fault differs.
 */
static void test_hold_cost(void **state)
{
	struct tlbgen_machine m;
	struct vrun with, without;

	(void)state;
	vrun(&with, "skylake-56", false);
	vrun(&without, "skylake-56:lru_folio=0", false);
	assert_int_equal(tlbgen_machine_lookup("skylake-56", &m), 0);
	assert_true(m.lru_folio > 0);
	for (unsigned int p = 0; p < 14; p++)
		assert_int_equal(with.t[0][p], without.t[0][p]);
	assert_int_equal(with.t[0][14] - without.t[0][14],
			 m.hit + m.rmw + 15 * (uint64_t)m.lru_folio + m.hit);
	assert_int_equal(wl_stat(with.wl, 0, TLBGEN_WL_STAT_LRU_LOCKS), 1);
	assert_int_equal(wl_stat(without.wl, 0, TLBGEN_WL_STAT_LRU_LOCKS), 1);
	assert_int_equal(wl_stat(with.wl, -1, TLBGEN_WL_STAT_LRU_WAITS), 0);
	vdone(&with);
	vdone(&without);
}

/*
 * Two CPUs of one socket fill their batches at the same virtual time: one
 * takes the lock, the other spins (IRQs off, charged as a line wait) for
 * at least the holder's 15 folios, then does its own.
 */
static void test_second_cpu_spins(void **state)
{
	struct tlbgen_machine m;
	struct tlbgen_vtime_stats st = { .sz = sizeof(st) };
	struct vrun r;
	uint64_t first, second;

	(void)state;
	vrun(&r, "skylake-56", true);
	assert_int_equal(tlbgen_vtime__machine(r.sys, &m), 0);
	assert_int_equal(wl_stat(r.wl, -1, TLBGEN_WL_STAT_LRU_LOCKS), 2);
	assert_int_equal(wl_stat(r.wl, -1, TLBGEN_WL_STAT_LRU_WAITS), 1);
	first = r.t[0][14] < r.t[1][14] ? r.t[0][14] : r.t[1][14];
	second = r.t[0][14] < r.t[1][14] ? r.t[1][14] : r.t[0][14];
	assert_true(second - first >= 15 * (uint64_t)m.lru_folio);
	assert_int_equal(tlbgen_vtime__stats(r.sys, &st), 0);
	assert_true(st.time[TLBGEN_VT_TIME_LINE_WAIT] >= 15 * (uint64_t)m.lru_folio);
	vdone(&r);
}

/*
 * An IPI that reaches a CPU in its hold (IRQs off: spin_lock_irqsave())
 * waits for the release: the hold keeps its whole length, and the
 * sender's flush ends after it. CPU 1 faults its own page, waits into
 * CPU 0's 15th fault, and madvise()s the page: its flush IPIs CPU 0.
 * Without the drain CPU 1's own folio stays in its batch: CPU 1 takes no
 * lru_lock on the way to its flush.
 */
#define BIG_FOLIO	100000ULL

static int flusher(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct vrun *r = arg;
	int err = tlbgen_switch_mm(sys, cpu, r->mm);

	if (!err)
		err = tlbgen_wl__fault(r->wl, cpu, r->mm, PG(40), TLBGEN_MAP_ANON, W);
	if (!err)
		err = tlbgen_vtime__spend(sys, cpu, 15 * 5000 + 15 * BIG_FOLIO / 2);
	if (!err)
		err = tlbgen_wl__madvise_dontneed(r->wl, cpu, r->mm, PG(40), TLBGEN_PAGE_SIZE);
	if (!err)
		err = tlbgen_vtime__now(sys, cpu, &r->t[1][0]);
	return err ? -1 : 0;
}

static void test_ipi_waits_for_release(void **state)
{
	struct vrun r;
	char spec[64];
	uint64_t hold_end;

	(void)state;
	snprintf(spec, sizeof(spec), "skylake-56:lru_folio=%llu", BIG_FOLIO);
	wl_vsys_create(spec, 2, &r.sys, &r.mm, &r.wl);
	assert_int_equal(tlbgen_system__set_choices(r.sys, "pagevec_size=15,folios_put=folio_batch,"
								    "zap_lru_drain=off"), 0);
	for (unsigned int p = 0; p < 64; p++)
		assert_int_equal(tlbgen_pte_set(r.sys, 0, r.mm, PG(p), TLBGEN_PTEF_NONE), 0);
	wl_vsys_run_pair(r.sys, fifteen, flusher, &r);
	assert_int_equal(wl_stat(r.wl, 1, TLBGEN_WL_STAT_LRU_LOCKS), 0);
	/* the IPI arrived inside the hold, which was not cut short */
	assert_true(r.t[1][0] > r.t[0][13]);
	assert_true(r.t[0][14] - r.t[0][13] >= 15 * BIG_FOLIO);
	hold_end = r.t[0][13] + 15 * BIG_FOLIO;
	assert_true(r.t[1][0] >= hold_end);
	vdone(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_drain_before_free),
		cmocka_unit_test(test_freed_in_batch),
		cmocka_unit_test(test_munmap_runs),
		cmocka_unit_test(test_munmap_bad_opts),
		cmocka_unit_test(test_hold_cost),
		cmocka_unit_test(test_second_cpu_spins),
		cmocka_unit_test(test_ipi_waits_for_release),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
