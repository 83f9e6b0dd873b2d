// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench/workloads/reclaim-run.c - seed 002's run, once: a reclaimer on CPU 0 refaults
 * and pages out the range (MADV_PAGEOUT: try_to_unmap_one() per page with
 * TTU_BATCH_FLUSH, try_to_unmap_flush() per reclaim_pages() batch), K
 * threads of the mm on CPUs 1..K asleep (lazy) or busy. Stepped: counts,
 * the oracle on; threaded: the reclaimer's time per page, the oracle off.
 */
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>

#include "driver/common.h"
#include "reclaim-run.h"

#define PG(i) ((unsigned long)(i) << TLBGEN_PAGE_SHIFT)
#define RECLAIM_BATCH 512	/* pages per reclaim_pages() call: one PMD */

static struct tlbgen_system *rc_system(const struct rc_cfg *c, unsigned int ncpu,
				       enum tlbgen_mode mode, const char *arch, bool batched)
{
	TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = ncpu, .mode = mode, .profile = c->profile,
		    .seed = 2, .flags = mode == TLBGEN_MODE_THREADED ? TLBGEN_SYS_NO_ORACLE : 0,
		    .invlpgb = c->invlpgb, .no_pcid = c->no_pcid);
	struct tlbgen_system *sys;
	char ch[96];

	if (tlbgen_system__create(&o, &sys))
		return NULL;
	snprintf(ch, sizeof(ch), "batch_arch=%s,batched_unmap=%s", arch, batched ? "on" : "off");
	if (tlbgen_system__set_choices(sys, ch)) {
		tlbgen_system__destroy(sys);
		return NULL;
	}
	return sys;
}

/* The rest of reclaim per page (swap IO...): a busy wait. */
static void rc_work(unsigned long ns)
{
	uint64_t until;

	if (!ns)
		return;
	until = bench_now_ns() + ns;
	while (bench_now_ns() < until)
		;
}

/*
 * One round on the reclaimer (CPU 0): refault every page, then page them
 * all out. In stepped mode `drive` delivers the IPIs after each flush.
 */
static int rc_round(struct tlbgen_system *sys, struct tlbgen_mm *mm,
		    struct tlbgen_unmap_batch *u, unsigned long pages, bool dirty, bool drive,
		    unsigned long work_ns)
{
	unsigned int pf = TLBGEN_PTE_ACCESSIBLE | (dirty ? TLBGEN_PTE_DIRTY : 0);
	int r;

	/* swap-in: the read fault maps the page, the access fills the TLB */
	for (unsigned long p = 0; p < pages; p++) {
		if (tlbgen_pte_change(sys, 0, mm, PG(p)))
			return -1;
		if (drive && tlbgen_access(sys, 0, PG(p)) < 0)
			return -1;
	}
	/* MADV_PAGEOUT -> reclaim_pages() -> shrink_folio_list() */
	for (unsigned long p = 0; p < pages; p++) {
		r = tlbgen_try_to_unmap_one(sys, 0, u, mm, PG(p), TLBGEN_TTU_BATCH_FLUSH, pf);
		if (r < 0)
			return -1;
		if (drive && r == 0)
			tlbgen_run_until_idle(sys);
		rc_work(work_ns);
		/* a dirty folio is flushed before pageout() queues its IO */
		r = tlbgen_try_to_unmap_flush_dirty(sys, 0, u);
		if (r < 0)
			return -1;
		if (drive && r)
			tlbgen_run_until_idle(sys);
		if ((p + 1) % RECLAIM_BATCH == 0 || p + 1 == pages) {
			if (tlbgen_try_to_unmap_flush(sys, 0, u) < 0)
				return -1;
			if (drive)
				tlbgen_run_until_idle(sys);
		}
	}
	return 0;
}

/* The reclaimer's (CPU 0's) flushes and the system's IPIs, remote
 * flush_tlb_func()s, TLBIs and DSBs; the oracle's verdict. */
static void rc_take_counts(struct tlbgen_system *sys, struct rc_counts *out)
{
	uint64_t st[TLBGEN_STAT_NR];

	tlbgen_stats__cpu(sys, 0, st, TLBGEN_STAT_NR);
	out->flushes = st[TLBGEN_STAT_FLUSH_INITIATED];
	tlbgen_stats__system(sys, st, TLBGEN_STAT_NR);
	out->ipis = st[TLBGEN_STAT_IPI_SENT];
	out->remote = st[TLBGEN_STAT_FLUSH_FUNC_REMOTE];
	out->tlbi = st[TLBGEN_STAT_TLBI];
	out->dsb = st[TLBGEN_STAT_DSB];
	out->violations = tlbgen_oracle__violations(sys);
	out->err = 0;
}

void rc_stepped(const struct rc_cfg *c, int state, unsigned int k, const char *arch,
		       bool batched, struct rc_counts *out)
{
	struct tlbgen_system *sys = rc_system(c, k + 1, TLBGEN_MODE_STEPPED, arch, batched);
	struct tlbgen_mm *mm = NULL;
	struct tlbgen_unmap_batch *u = NULL;

	memset(out, 0, sizeof(*out));
	out->err = 1;
	if (!sys)
		return;
	if (tlbgen_mm__create(sys, c->pages, &mm) || tlbgen_unmap_batch__create(sys, &u))
		goto out;
	for (unsigned int cpu = 0; cpu <= k; cpu++)
		if (tlbgen_switch_mm(sys, cpu, mm))
			goto out;
	for (unsigned int cpu = 1; cpu <= k; cpu++)
		if (state == RC_SLEEP && tlbgen_enter_lazy_tlb(sys, cpu))
			goto out;
	tlbgen_stats__reset(sys);
	for (unsigned int r = 0; r < c->rounds; r++) {
		if (rc_round(sys, mm, u, c->pages, c->dirty, true, 0))
			goto out;
		/* busy threads use the memory too (their TLBs must be flushed) */
		if (state == RC_BUSY)
			for (unsigned int cpu = 1; cpu <= k; cpu++)
				for (unsigned long p = 0; p < c->pages; p += 8)
					tlbgen_access(sys, cpu, PG(p));
	}
	rc_take_counts(sys, out);
out:
	if (u)
		tlbgen_unmap_batch__destroy(u);
	tlbgen_system__destroy(sys);	/* frees the mm too */
}

/* ---- threaded mode --------------------------------------------------------- */

struct rc_thr {
	struct tlbgen_mm *mm;
	atomic_int *ready;
	int state;
};

/*
 * A thread of the mm on a spawned, pinned CPU. sleep: load the mm, go idle
 * (enter_lazy_tlb) and return to the runtime's idle loop, which sleeps until
 * an IPI wakes it, as the seed's sleep(1) threads do. busy: keep running the
 * mm, taking IPIs at each poll.
 */
static int rc_thread(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct rc_thr *t = arg;

	if (tlbgen_switch_mm(sys, cpu, t->mm) ||
	    (t->state == RC_SLEEP && tlbgen_enter_lazy_tlb(sys, cpu)))
		return -1;
	atomic_fetch_add(t->ready, 1);
	if (t->state == RC_SLEEP)
		return 0;
	while (!tlbgen_cpu__should_stop(sys, cpu)) {
		tlbgen_poll(sys, cpu);
		sched_yield();
	}
	return 0;
}

/* ns per paged-out page, or a negative value on error. */
double rc_threaded(const struct rc_cfg *c, int state, unsigned int k, const char *arch,
			  bool batched)
{
	struct tlbgen_system *sys = rc_system(c, k + 1, TLBGEN_MODE_THREADED, arch, batched);
	struct tlbgen_mm *mm = NULL;
	struct tlbgen_unmap_batch *u = NULL;
	atomic_int ready = 0;
	struct rc_thr thr;
	unsigned int started = 0;
	double ns = -1;
	uint64_t t0;
	int ret;

	if (!sys)
		return -1;
	if (tlbgen_mm__create(sys, c->pages, &mm) || tlbgen_unmap_batch__create(sys, &u))
		goto out;
	thr = (struct rc_thr){ mm, &ready, state };
	for (unsigned int i = 1; i <= k; i++, started++)
		if (tlbgen_cpu__spawn(sys, i, rc_thread, &thr))
			goto join;
	while ((unsigned int)atomic_load(&ready) < k)
		sched_yield();
	if (tlbgen_cpu__attach(sys, 0))
		goto join;
	if (!tlbgen_switch_mm(sys, 0, mm)) {
		t0 = bench_now_ns();
		ns = (double)c->rounds * (double)c->pages;
		for (unsigned int r = 0; r < c->rounds && ns > 0; r++)
			if (rc_round(sys, mm, u, c->pages, c->dirty, false, c->work_ns))
				ns = -1;
		if (ns > 0)
			ns = (double)(bench_now_ns() - t0) / ns;
		tlbgen_switch_mm(sys, 0, NULL);
	}
	tlbgen_cpu__detach(sys, 0);
join:
	for (unsigned int i = 1; i <= started; i++)
		if (tlbgen_cpu__join(sys, i, &ret) || ret)
			ns = -1;
out:
	if (u)
		tlbgen_unmap_batch__destroy(u);
	tlbgen_system__destroy(sys);
	return ns;
}


/* ---- virtual time ------------------------------------------------------------ */

struct rc_vrun {
	const struct rc_cfg *c;
	struct tlbgen_wl *wl;
	struct tlbgen_mm *mm;
	int state;
	unsigned int k;
	bool done;			/* the reclaimer finished: the others leave */
	uint64_t cycles;		/* the reclaimer's, over its rounds */
	int err;
};

/* The reclaimer, CPU 0: per round, refault every page (a read fault; a
 * write fault for --dirty, whose page is then dirty), then MADV_PAGEOUT one
 * reclaim_pages() batch at a time (tlbgen_wl__pageout()). --work is spent
 * per batch: the same time, not interleaved page by page. */
static int rc_vreclaimer(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct rc_vrun *v = arg;
	const struct rc_cfg *c = v->c;
	const struct tlbgen_machine *m = c->machine;
	uint64_t t0 = 0, t1 = 0;
	int err = tlbgen_switch_mm(sys, cpu, v->mm);

	if (!err)
		err = tlbgen_vtime__now(sys, cpu, &t0);
	for (unsigned int r = 0; !err && r < c->rounds; r++) {
		for (unsigned long p = 0; !err && p < c->pages; p++)
			err = tlbgen_wl__fault(v->wl, cpu, v->mm, PG(p), TLBGEN_MAP_ANON,
					       c->dirty ? TLBGEN_WL_FAULT_WRITE : 0);
		for (unsigned long p = 0; !err && p < c->pages; p += RECLAIM_BATCH) {
			unsigned long n = c->pages - p < RECLAIM_BATCH ? c->pages - p : RECLAIM_BATCH;

			err = tlbgen_wl__pageout(v->wl, cpu, v->mm, PG(p), PG(n));
			if (!err && c->work_ns)
				err = tlbgen_vtime__spend(sys, cpu, (uint64_t)((double)c->work_ns * n *
									    m->mhz / 1000));
		}
	}
	if (!err)
		err = tlbgen_vtime__now(sys, cpu, &t1);
	v->cycles = t1 - t0;
	v->err = err;
	v->done = true;
	/* The sleepers are woken to leave (their wake comes after the
	 * measurement); the busy ones see `done`. */
	for (unsigned int i = 1; i <= v->k && v->state == RC_SLEEP; i++)
		tlbgen_wl__wake(v->wl, cpu, i);
	return 0;
}

/* CPUs 1..K: a thread of the mm, asleep (the idle task borrows the mm
 * lazily) or running it: user work and a pass over every 8th page. */
static int rc_vthread(struct tlbgen_system *sys, unsigned int cpu, void *arg)
{
	struct rc_vrun *v = arg;
	int err = tlbgen_switch_mm(sys, cpu, v->mm);

	if (!err && v->state == RC_SLEEP) {
		err = tlbgen_wl__sleep(v->wl, cpu);
		return err < 0 ? err : 0;
	}
	while (!err && !v->done) {
		err = tlbgen_wl__user_work(v->wl, cpu, 1);
		/* A page paged out meanwhile is a miss on a none PTE: no error. */
		for (unsigned long p = 0; !err && p < v->c->pages && !v->done; p += 8)
			tlbgen_access(sys, cpu, PG(p));
	}
	return err;
}

double rc_virtual(const struct rc_cfg *c, int state, unsigned int k, const char *arch,
		  bool batched, struct rc_counts *out)
{
	TLBGEN_OPTS(tlbgen_system_opts, o, .nr_cpus = 0, .mode = TLBGEN_MODE_VIRTUAL,
		    .profile = c->profile, .seed = 2, .machine = c->machine, .invlpgb = c->invlpgb,
		    .no_pcid = c->no_pcid);
	TLBGEN_OPTS(tlbgen_wl_opts, wo);
	struct rc_vrun v = { .c = c, .state = state, .k = k };
	struct tlbgen_system *sys;
	char ch[96];
	int err, ret;

	memset(out, 0, sizeof(*out));
	out->err = 1;
	o.nr_cpus = c->machine->sockets * c->machine->cores_per_socket *
		    (c->machine->threads_per_core ? c->machine->threads_per_core : 1);
	if (tlbgen_system__create(&o, &sys))
		return -1;
	snprintf(ch, sizeof(ch), "batch_arch=%s,batched_unmap=%s", arch, batched ? "on" : "off");
	err = tlbgen_system__set_choices(sys, ch);
	if (!err)
		err = tlbgen_wl__create(sys, &wo, &v.wl);
	if (!err)
		err = tlbgen_mm__create(sys, c->pages, &v.mm);
	if (!err)
		err = tlbgen_cpu__spawn(sys, 0, rc_vreclaimer, &v);
	for (unsigned int i = 1; !err && i <= k; i++)
		err = tlbgen_cpu__spawn(sys, i, rc_vthread, &v);
	if (!err)
		err = tlbgen_vtime__run(sys, ~0ULL);
	for (unsigned int i = 0; i <= k; i++)
		if (!tlbgen_cpu__join(sys, i, &ret) && ret && !err)
			err = ret;
	if (!err && !v.err)
		rc_take_counts(sys, out);
	tlbgen_wl__destroy(v.wl);
	tlbgen_system__destroy(sys);
	return out->err ? -1 : (double)v.cycles * 1000.0 / c->machine->mhz /
				((double)c->rounds * (double)c->pages);
}
