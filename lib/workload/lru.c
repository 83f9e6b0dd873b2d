// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/workload/lru.c - the LRU lists' lock, as mm/swap.c takes it for the
 * anonymous folios a workload allocates and frees.
 *
 * A new folio (do_anonymous_page(), do_cow_fault(), wp_page_copy()) goes
 * into its CPU's lru_add folio_batch, which holds a reference to it; the
 * batch is moved to the LRU when it is full (PAGEVEC_SIZE folios, 15, or
 * 31 since 9cecde80aae0), under the lruvec's lru_lock once, IRQs off
 * (folio_batch_move_lru(): folio_lruvec_relock_irqsave(), lru_add() per
 * folio). A zapped folio is freed at the end of its mmu_gather batch
 * (free_pages_and_swap_cache()): one lru_lock hold takes a run of them off
 * the LRU (lruvec_del_folio()) - up to SWAP_CLUSTER_MAX in release_pages(),
 * one folio_batch in folios_put_refs() since 99fbb6bfc16f. Before
 * 1aa43598c03b the zap drained the CPU's lru_add batch first
 * (lru_add_drain() at the top of zap_page_range_single() and
 * unmap_region()); since, a folio zapped while still in the batch is not
 * freed by the zap (the batch's reference): it goes onto the LRU when the
 * batch moves, and the batch's folios_put() takes the lock a second time
 * to free it.
 *
 * The folios are the model's count of them, not objects: a CPU's batch is
 * its latest folios, so a zap of n folios frees the batch's folios first
 * (will-it-scale's loops zap what they just faulted). Each node has one
 * lruvec (one memcg); a CPU's folios come from its own node. The lock is a
 * queued spinlock: a ticket in one RMW of the lock's line; a waiter spins
 * with IRQs off without touching that line until the holder's release.
 * Where the machine has no lru_folio (stepped mode; a model without one)
 * the holds are counted and cost nothing.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>

#include "../core/irqflags.h"
#include "../runtime/runtime.h"
#include "../runtime/vspin.h"
#include "wl-internal.h"

#define SWAP_CLUSTER_MAX	32U	/* release_pages()'s lock_batch */

/* The lru_folio figure a mode charges, 0: the lock costs nothing. */
static uint32_t lru_folio(const struct tlbgen_wl *wl)
{
	const struct tlbgen_machine *m = NULL;

	if (wl->mode == TLBGEN_MODE_VIRTUAL)
		m = &wl->sys->machine;
	else if (wl->mode == TLBGEN_MODE_THREADED && wl->have_kwork)
		m = &wl->kwork;
	if (!m || m->sz < offsetofend(struct tlbgen_machine, lru_folio))
		return 0;
	return m->lru_folio;
}

/* The lruvec of `cpu`'s node: the machine's socket rule (virtual.c). */
static struct tlbgen_lruvec *lruvec_of(struct tlbgen_wl *wl, unsigned int cpu)
{
	const struct tlbgen_machine *m = &wl->sys->machine;

	if (wl->nr_lruvec == 1)
		return &wl->lruvec[0];
	return &wl->lruvec[cpu / m->cores_per_socket % m->sockets];
}

struct turn {
	struct tlbgen_lruvec *v;
	long ticket;
};

static bool my_turn(void *arg)
{
	struct turn *t = arg;

	return atomic_load_explicit(&t->v->serving, memory_order_acquire) == t->ticket;
}

/* spin_lock_irqsave(&lruvec->lru_lock). */
static int lru_lock(struct tlbgen_wl *wl, unsigned int cpu, struct tlbgen_lruvec *v)
{
	struct turn t = { v, 0 };
	int err = 0;

	tlbgen__local_irq_disable(wl->sys, cpu);
	t.ticket = tlbgen__kword_add(wl->sys, cpu, &v->lock, 1) - 1;
	if (my_turn(&t))
		return 0;
	tlbgen__wl_count(wl, cpu, TLBGEN_WL_STAT_LRU_WAITS, 1);
	if (wl->mode == TLBGEN_MODE_VIRTUAL) {
		/* Fails only off the running CPU, which tlbgen__wl_check()
		 * excluded: the ticket could not be given back. */
		v->waiter[t.ticket % wl->nr_cpus] = (int)cpu;
		err = tlbgen__vt_spin_until(wl->sys, cpu, my_turn, &t);
		v->waiter[t.ticket % wl->nr_cpus] = -1;
		/* The queue's head takes the word the release wrote: set_locked()
		 * (the next waiter's MCS node is another line, not charged). */
		if (!err)
			tlbgen__kword_add(wl->sys, cpu, &v->lock, 0);
	} else {
		/* Yields now and then so an oversubscribed host runs the holder. */
		for (unsigned int spins = 0; !my_turn(&t);)
			if (++spins % 64 == 0)
				sched_yield();
			else
				cpu_relax();
	}
	return err;
}

/* spin_unlock_irqrestore(): the release store, the next ticket's turn. */
static void lru_unlock(struct tlbgen_wl *wl, unsigned int cpu, struct tlbgen_lruvec *v)
{
	long next = atomic_load_explicit(&v->serving, memory_order_relaxed) + 1;

	tlbgen__kword_store(wl->sys, cpu, &v->lock);
	atomic_store_explicit(&v->serving, next, memory_order_release);
	if (wl->mode == TLBGEN_MODE_VIRTUAL && v->waiter[next % wl->nr_cpus] >= 0)
		tlbgen__vt_spin_kick(wl->sys, cpu, (unsigned int)v->waiter[next % wl->nr_cpus]);
	tlbgen__local_irq_enable(wl->sys, cpu);
}

/* One lru_lock hold over n folios added to or deleted from the LRU. */
static int lru_hold(struct tlbgen_wl *wl, unsigned int cpu, unsigned int n)
{
	struct tlbgen_lruvec *v;
	int err;

	if (!n)
		return 0;
	tlbgen__wl_count(wl, cpu, TLBGEN_WL_STAT_LRU_LOCKS, 1);
	tlbgen__wl_count(wl, cpu, TLBGEN_WL_STAT_LRU_FOLIOS, n);
	if (!lru_folio(wl))
		return 0;
	v = lruvec_of(wl, cpu);
	err = lru_lock(wl, cpu, v);
	if (err) {
		tlbgen__local_irq_enable(wl->sys, cpu);
		return err;
	}
	err = tlbgen__wl_events(wl, cpu, TLBGEN_VT_LRU_FOLIO, n);
	lru_unlock(wl, cpu, v);
	return err;
}

/*
 * folio_batch_move_lru() of the CPU's lru_add batch, and its folios_put():
 * the folios zapped while in the batch come off the LRU again at once.
 */
static int lru_add_drain(struct tlbgen_wl *wl, unsigned int cpu)
{
	struct tlbgen_wl_cpu *wc = &wl->cpu[cpu];
	unsigned int n = wc->lru_batch, dead = wc->lru_dead;
	int err;

	wc->lru_batch = 0;
	wc->lru_dead = 0;
	err = lru_hold(wl, cpu, n);
	return err ? err : lru_hold(wl, cpu, dead);
}

int tlbgen__wl_lru_add(struct tlbgen_wl *wl, unsigned int cpu)
{
	struct tlbgen_wl_cpu *wc = &wl->cpu[cpu];

	if (++wc->lru_batch < (unsigned int)wl->sys->profile.pagevec_size)
		return 0;
	return lru_add_drain(wl, cpu);
}

int tlbgen__wl_lru_drain(struct tlbgen_wl *wl, unsigned int cpu)
{
	return wl->sys->profile.zap_lru_drain ? lru_add_drain(wl, cpu) : 0;
}

/*
 * The gather's batches (mm/mmu_gather.c): its own MMU_GATHER_BUNDLE, then
 * pages of MAX_GATHER_BATCH entries, up to MAX_GATHER_BATCH_COUNT of them
 * before tlb_flush_mmu() frees them all and starts again from the first.
 * Each batch is its own free_pages_and_swap_cache() call, whose lock runs
 * start afresh.
 */
#define MMU_GATHER_BUNDLE	8UL
#define MAX_GATHER_BATCH	510UL	/* (PAGE_SIZE - 16) / sizeof(void *) */
#define MAX_GATHER_BATCH_COUNT	19UL	/* 10000UL / MAX_GATHER_BATCH */

static unsigned long gather_batch(unsigned long i)
{
	i %= 1 + MAX_GATHER_BATCH_COUNT;
	return i ? MAX_GATHER_BATCH : MMU_GATHER_BUNDLE;
}

int tlbgen__wl_lru_free(struct tlbgen_wl *wl, unsigned int cpu, unsigned long n)
{
	const struct tlbgen_profile *p = &wl->sys->profile;
	struct tlbgen_wl_cpu *wc = &wl->cpu[cpu];
	unsigned long run = p->folios_put_batch ? (unsigned long)p->pagevec_size : SWAP_CLUSTER_MAX;
	unsigned long in_batch, on_lru;
	int err = 0;

	/*
	 * The CPU's lru_add batch holds its latest folios: those the zap
	 * frees it keeps (their last reference is the batch's). They are
	 * taken as the gather's last entries; a lock run (release_pages()'s
	 * lock_batch counts the folios it looks at, folios_put_refs() takes
	 * PAGEVEC_SIZE of them) that holds only such folios takes no lock.
	 */
	in_batch = wc->lru_batch - wc->lru_dead;
	if (in_batch > n)
		in_batch = n;
	wc->lru_dead += (unsigned int)in_batch;
	on_lru = n - in_batch;
	for (unsigned long b = 0, left = n; !err && left; b++) {
		unsigned long entries = left < gather_batch(b) ? left : gather_batch(b);

		for (unsigned long r = 0; !err && r < entries; r += run) {
			unsigned long k = entries - r < run ? entries - r : run;

			if (k > on_lru)
				k = on_lru;
			on_lru -= k;
			err = lru_hold(wl, cpu, (unsigned int)k);
		}
		left -= entries;
	}
	return err;
}
