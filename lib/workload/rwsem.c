// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/workload/rwsem.c - mm->mmap_lock as kernel/locking/rwsem.c keeps it:
 * every down and up is a locked RMW of the count's line; a reader that
 * finds a writer holding it or waiting, and a writer that finds any holder
 * or waiter, queue FIFO and sleep until the lock is handed to them. The
 * last reader out, or the writer, hands it to the head of the queue: one
 * writer, or every waiting reader at once (rwsem_mark_wake() has woken all
 * queued readers since 4f23dbc1e657).
 */
#include <errno.h>
#include <stdlib.h>

#include "../runtime/sprog.h"
#include "wl-internal.h"

/* raw_spin_lock_irq(&sem->wait_lock): only threaded mode has two CPUs
 * running at once; the holder never waits for another CPU inside. */
static void wait_lock(struct tlbgen_rwsem *s)
{
	while (atomic_flag_test_and_set_explicit(&s->wait_lock, memory_order_acquire))
		;
}

static void wait_unlock(struct tlbgen_rwsem *s)
{
	atomic_flag_clear_explicit(&s->wait_lock, memory_order_release);
}

/* The wait queue's arrays, on first contention (under wait_lock). */
static int queue_alloc(struct tlbgen_rwsem *s, unsigned int nr_cpus)
{
	if (s->q)
		return 0;
	s->q = calloc(nr_cpus, sizeof(*s->q));
	s->q_write = calloc(nr_cpus, sizeof(*s->q_write));
	s->granted = calloc(nr_cpus, sizeof(*s->granted));
	if (s->q && s->q_write && s->granted)
		return 0;
	free(s->q);
	free(s->q_write);
	free(s->granted);
	s->q = NULL;
	s->q_write = NULL;
	s->granted = NULL;
	return -ENOMEM;
}

static void enqueue(struct tlbgen_rwsem *s, unsigned int nr_cpus, unsigned int cpu, bool write)
{
	unsigned int slot = (s->head + s->n++) % nr_cpus;

	s->q[slot] = cpu;
	s->q_write[slot] = write;
	atomic_store(&s->granted[cpu], false);
}

/* Take it at once if `ok`, else queue and sleep until it is handed over. */
static int down(struct tlbgen_wl *wl, unsigned int cpu, struct tlbgen_mm *mm, bool write)
{
	struct tlbgen_rwsem *s = &mm->mmap_lock;
	int err;

	tlbgen__kword_add(wl->sys, cpu, &s->count, write ? 1L << 8 : 1);
	wait_lock(s);
	if (write ? s->writer < 0 && !s->readers && !s->n : s->writer < 0 && !s->n) {
		if (write)
			s->writer = (int)cpu;
		else
			s->readers++;
		wait_unlock(s);
		return 0;
	}
	/* Only a program can sleep on a stepped system (runtime/sprog.c). */
	err = wl->mode == TLBGEN_MODE_STEPPED && !tlbgen__sprog_running(wl->sys, cpu)
		      ? -EPERM : queue_alloc(s, wl->nr_cpus);
	if (!err)
		enqueue(s, wl->nr_cpus, cpu, write);
	wait_unlock(s);
	if (err) {
		atomic_fetch_sub(&s->count.val, write ? 1L << 8 : 1);
		return err;
	}
	tlbgen__wl_count(wl, cpu, TLBGEN_WL_STAT_MMAP_LOCK_WAITS, 1);
	err = tlbgen__wl_sleep_on(wl, cpu, mm, &s->granted[cpu]);
	return err;
}

/* Hand the lock to the head of the queue (under wait_lock); the CPUs to
 * wake go into woken[] (woken after wait_lock is dropped). */
static unsigned int handoff(struct tlbgen_rwsem *s, unsigned int nr_cpus, unsigned int *woken)
{
	unsigned int keep = 0, n = s->n, nw = 0;

	if (!n)
		return 0;
	if (s->q_write[s->head]) {
		unsigned int w = s->q[s->head];

		s->head = (s->head + 1) % nr_cpus;
		s->n--;
		s->writer = (int)w;
		atomic_store(&s->granted[w], true);
		woken[0] = w;
		return 1;
	}
	/* Readers leave the ring; writers keep their order. */
	for (unsigned int i = 0; i < n; i++) {
		unsigned int slot = (s->head + i) % nr_cpus, c = s->q[slot];

		if (s->q_write[slot]) {
			unsigned int to = (s->head + keep++) % nr_cpus;

			s->q[to] = c;
			s->q_write[to] = true;
			continue;
		}
		s->readers++;
		atomic_store(&s->granted[c], true);
		woken[nw++] = c;
	}
	s->n = keep;
	return nw;
}

/* Under wait_lock: hand the lock over if `hand`, drop wait_lock, then wake
 * the CPUs it went to. */
static int hand_and_unlock(struct tlbgen_wl *wl, unsigned int cpu, struct tlbgen_rwsem *s,
			   bool hand)
{
	unsigned int nw = 0, *woken = NULL;
	int err = 0;

	if (hand) {
		woken = malloc(sizeof(*woken) * s->n);
		if (woken)
			nw = handoff(s, wl->nr_cpus, woken);
		else
			err = -ENOMEM;
	}
	wait_unlock(s);
	for (unsigned int i = 0; !err && i < nw; i++)
		err = tlbgen__wl_wake(wl, cpu, woken[i]);
	free(woken);
	return err;
}

static int up(struct tlbgen_wl *wl, unsigned int cpu, struct tlbgen_mm *mm, bool write)
{
	struct tlbgen_rwsem *s = &mm->mmap_lock;

	wait_lock(s);
	if (write ? s->writer != (int)cpu : !s->readers) {
		wait_unlock(s);
		return -EINVAL;
	}
	wait_unlock(s);
	tlbgen__kword_add(wl->sys, cpu, &s->count, write ? -(1L << 8) : -1);
	wait_lock(s);
	if (write)
		s->writer = -1;
	else
		s->readers--;
	/* Readers only wait behind a writer: the last reader out hands over. */
	return hand_and_unlock(wl, cpu, s, s->n && (write || !s->readers));
}

/*
 * downgrade_write(): the writer becomes a reader in one RMW of the count.
 * If a reader heads the queue, every queued reader is woken to share it,
 * as the last writer out would (rwsem_downgrade_wake()); RWSEM_WAKE_READ_OWNED
 * wakes no writer, so with a writer at the head nobody is woken.
 */
int tlbgen__wl_downgrade_write(struct tlbgen_wl *wl, unsigned int cpu, struct tlbgen_mm *mm)
{
	struct tlbgen_rwsem *s = &mm->mmap_lock;

	wait_lock(s);
	if (s->writer != (int)cpu) {
		wait_unlock(s);
		return -EINVAL;
	}
	wait_unlock(s);
	tlbgen__kword_add(wl->sys, cpu, &s->count, 1 - (1L << 8));
	wait_lock(s);
	s->writer = -1;
	s->readers++;
	return hand_and_unlock(wl, cpu, s, s->n && !s->q_write[s->head]);
}

int tlbgen__wl_down_read(struct tlbgen_wl *wl, unsigned int cpu, struct tlbgen_mm *mm)
{
	return down(wl, cpu, mm, false);
}

int tlbgen__wl_up_read(struct tlbgen_wl *wl, unsigned int cpu, struct tlbgen_mm *mm)
{
	return up(wl, cpu, mm, false);
}

int tlbgen__wl_down_write(struct tlbgen_wl *wl, unsigned int cpu, struct tlbgen_mm *mm)
{
	return down(wl, cpu, mm, true);
}

int tlbgen__wl_up_write(struct tlbgen_wl *wl, unsigned int cpu, struct tlbgen_mm *mm)
{
	return up(wl, cpu, mm, true);
}

static int check_mm(struct tlbgen_wl *wl, unsigned int cpu, const struct tlbgen_mm *mm)
{
	int err = tlbgen__wl_check(wl, cpu);

	if (!err && (!tlbgen__mm_valid(wl->sys, mm) || mm == wl->sys->init_mm))
		err = -EINVAL;
	return err;
}

TLBGEN_API int tlbgen_wl__mmap_read_lock(struct tlbgen_wl *wl, unsigned int cpu,
					 struct tlbgen_mm *mm)
{
	int err = check_mm(wl, cpu, mm);

	return err ? err : down(wl, cpu, mm, false);
}

TLBGEN_API int tlbgen_wl__mmap_read_unlock(struct tlbgen_wl *wl, unsigned int cpu,
					   struct tlbgen_mm *mm)
{
	int err = check_mm(wl, cpu, mm);

	return err ? err : up(wl, cpu, mm, false);
}

TLBGEN_API int tlbgen_wl__mmap_write_lock(struct tlbgen_wl *wl, unsigned int cpu,
					  struct tlbgen_mm *mm)
{
	int err = check_mm(wl, cpu, mm);

	return err ? err : down(wl, cpu, mm, true);
}

TLBGEN_API int tlbgen_wl__mmap_write_unlock(struct tlbgen_wl *wl, unsigned int cpu,
					    struct tlbgen_mm *mm)
{
	int err = check_mm(wl, cpu, mm);

	return err ? err : up(wl, cpu, mm, true);
}
