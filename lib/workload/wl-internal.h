/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/workload/wl-internal.h - the workload layer's state (tlbgen/workload.h):
 * per-CPU counters and sleep bookkeeping, and how each mode does the
 * kernel's own work around the policy code.
 */
#ifndef TLBGEN_WORKLOAD_WL_INTERNAL_H
#define TLBGEN_WORKLOAD_WL_INTERNAL_H

#include <tlbgen/tlbgen.h>
#include <tlbgen/workload.h>

#include "../core/access.h"
#include "../core/check.h"

struct tlbgen_wl_cpu {
	_Atomic uint64_t st[TLBGEN_WL_STAT_NR];	/* single writer: the CPU */
	uint64_t last_sleep;		/* the previous sleep, cycles (virtual) or ns */
	atomic_bool woken;		/* a tlbgen_wl__wake() not consumed yet */
	bool asleep;			/* virtual: in a sleep not counted yet ... */
	uint64_t asleep_since;		/* ... that began at this clock */
	unsigned int lru_batch;		/* folios in the CPU's lru_add batch (lru.c) ... */
	unsigned int lru_dead;		/* ... of which zapped already */
} __cacheline_aligned;

/* A node's lruvec (lru.c): lru_lock as a ticket lock on one kernel word. */
struct tlbgen_lruvec {
	struct tlbgen_kword lock;	/* tickets taken */
	atomic_long serving;		/* the ticket that holds it */
	int *waiter;			/* virtual: the CPU spinning for ticket t, at
					 * t % nr_cpus, or -1 */
};

struct tlbgen_wl {
	uint32_t magic;
	struct tlbgen_system *sys;
	enum tlbgen_mode mode;
	unsigned int nr_cpus;
	struct tlbgen_wl_opts o;
	struct tlbgen_machine kwork;	/* threaded: what an event burns */
	bool have_kwork;
	struct tlbgen_wl_cpu *cpu;
	struct tlbgen_lruvec *lruvec;	/* one per node */
	unsigned int nr_lruvec;
};

#define TLBGEN_WL_MAGIC	0x776c6f64U

static inline void tlbgen__wl_count(struct tlbgen_wl *wl, unsigned int cpu,
				    enum tlbgen_wl_stat s, uint64_t n)
{
	_Atomic uint64_t *c = &wl->cpu[cpu].st[s];

	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + n,
			      memory_order_relaxed);
}

/* wl valid, cpu in range, and (sys, cpu) may run an operation now. */
int tlbgen__wl_check(const struct tlbgen_wl *wl, unsigned int cpu);
/* ... and mm is a process mm of the system, [addr, addr + len) in it. */
int tlbgen__wl_check_range(const struct tlbgen_wl *wl, unsigned int cpu,
			   const struct tlbgen_mm *mm, unsigned long addr, unsigned long len);

/* The kernel's work of one event (event.c): charged to the virtual clock,
 * burnt in threaded mode, nothing in stepped mode. */
int tlbgen__wl_event(struct tlbgen_wl *wl, unsigned int cpu, enum tlbgen_vt_event ev);
/* n of them at once (one work_jitter draw in virtual time). */
int tlbgen__wl_events(struct tlbgen_wl *wl, unsigned int cpu, enum tlbgen_vt_event ev,
		      unsigned long n);

/* flush_tlb_mm_range() from a workload path; in stepped mode called by
 * the host (not a program) its IPIs are delivered before it returns, so
 * the operation completes as a whole kernel function. */
int tlbgen__wl_flush(struct tlbgen_wl *wl, unsigned int cpu, struct tlbgen_mm *mm,
		     unsigned long start, unsigned long end, bool freed_tables);

/* ... the delivery alone, after a policy call that may leave `cpu` waiting. */
int tlbgen__wl_settle(struct tlbgen_wl *wl, unsigned int cpu);

/* rwsem.c */
int tlbgen__wl_down_read(struct tlbgen_wl *wl, unsigned int cpu, struct tlbgen_mm *mm);
int tlbgen__wl_up_read(struct tlbgen_wl *wl, unsigned int cpu, struct tlbgen_mm *mm);
int tlbgen__wl_down_write(struct tlbgen_wl *wl, unsigned int cpu, struct tlbgen_mm *mm);
int tlbgen__wl_up_write(struct tlbgen_wl *wl, unsigned int cpu, struct tlbgen_mm *mm);
/* downgrade_write(): the holder keeps the lock as a reader, and the queued
 * readers share it unless a writer heads the queue. 0, or -EINVAL if cpu
 * does not hold it for write. */
int tlbgen__wl_downgrade_write(struct tlbgen_wl *wl, unsigned int cpu, struct tlbgen_mm *mm);

/* sched.c: sleep until *cond (set by the waker before its wake): the idle
 * task and back to `mm`. 0 woken, 1 the run ended first, or -errno. */
int tlbgen__wl_sleep_on(struct tlbgen_wl *wl, unsigned int cpu, struct tlbgen_mm *mm,
			atomic_bool *cond);
int tlbgen__wl_wake(struct tlbgen_wl *wl, unsigned int cpu, unsigned int target);

/* gather.c: an mmu_gather's zap of [start, start + len) and its flush
 * (none if it cleared no PTE, `cleared` says none was before, and freed no
 * table, unless nested), then the free of its anonymous folios and of
 * `unseen_anon` more. */
int tlbgen__wl_zap_range(struct tlbgen_wl *wl, unsigned int cpu, struct tlbgen_mm *mm,
			 unsigned long start, unsigned long len, bool free_tables, bool cleared,
			 unsigned long unseen_anon);

/* lru.c: a new anonymous folio; a zap's lru_add_drain() before its gather
 * (the profile's zap_lru_drain); n folios freed by a gather's zap (the
 * lruvecs are wl.c's, with the wl). 0 or -errno. */
int tlbgen__wl_lru_add(struct tlbgen_wl *wl, unsigned int cpu);
int tlbgen__wl_lru_drain(struct tlbgen_wl *wl, unsigned int cpu);
int tlbgen__wl_lru_free(struct tlbgen_wl *wl, unsigned int cpu, unsigned long n);

#endif
