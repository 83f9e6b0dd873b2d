// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/workload/wl.c - the workload context: its counters, its checks, and
 * the flush a workload path ends in.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../base/alloc.h"
#include "../base/printk.h"
#include "../core/machine.h"
#include "../runtime/runtime.h"
#include "../runtime/sprog.h"
#include "wl-internal.h"

static const char *const stat_names[TLBGEN_WL_STAT_NR] = {
	[TLBGEN_WL_STAT_FAULTS] = "faults",
	[TLBGEN_WL_STAT_FAULT_AROUND] = "fault_around",
	[TLBGEN_WL_STAT_COW] = "cow",
	[TLBGEN_WL_STAT_ZAPS] = "zaps",
	[TLBGEN_WL_STAT_GATHERS] = "gathers",
	[TLBGEN_WL_STAT_NESTED] = "nested",
	[TLBGEN_WL_STAT_MMAP_LOCK_WAITS] = "mmap_lock_waits",
	[TLBGEN_WL_STAT_SLEEPS] = "sleeps",
	[TLBGEN_WL_STAT_SLEEP_CYCLES] = "sleep_cycles",
	[TLBGEN_WL_STAT_C6] = "c6",
	[TLBGEN_WL_STAT_LRU_LOCKS] = "lru_locks",
	[TLBGEN_WL_STAT_LRU_FOLIOS] = "lru_folios",
	[TLBGEN_WL_STAT_LRU_WAITS] = "lru_waits",
};

TLBGEN_API const char *tlbgen_wl_stat_name(enum tlbgen_wl_stat s)
{
	return (unsigned int)s < TLBGEN_WL_STAT_NR ? stat_names[s] : NULL;
}

static void lru_fini(struct tlbgen_wl *wl)
{
	for (unsigned int i = 0; wl->lruvec && i < wl->nr_lruvec; i++)
		free(wl->lruvec[i].waiter);
	free(wl->lruvec);
	wl->lruvec = NULL;
}

/* The lruvecs lru.c locks: one per node of a virtual machine (one memcg),
 * else one. */
static int lru_init(struct tlbgen_wl *wl)
{
	const struct tlbgen_machine *m = &wl->sys->machine;

	wl->nr_lruvec = 1;
	if (wl->mode == TLBGEN_MODE_VIRTUAL && m->sockets > 1)
		wl->nr_lruvec = m->sockets;
	wl->lruvec = calloc(wl->nr_lruvec, sizeof(*wl->lruvec));
	if (!wl->lruvec)
		return -ENOMEM;
	for (unsigned int i = 0; i < wl->nr_lruvec; i++) {
		wl->lruvec[i].lock.last = -1;
		wl->lruvec[i].waiter = malloc(sizeof(int) * wl->nr_cpus);
		if (!wl->lruvec[i].waiter) {
			lru_fini(wl);
			return -ENOMEM;
		}
		for (unsigned int c = 0; c < wl->nr_cpus; c++)
			wl->lruvec[i].waiter[c] = -1;
	}
	return 0;
}

TLBGEN_API int tlbgen_wl__create(struct tlbgen_system *sys, const struct tlbgen_wl_opts *opts,
				 struct tlbgen_wl **out)
{
	struct tlbgen_wl_opts o = { 0 };
	struct tlbgen_wl *wl;

	if (!tlbgen__sys_valid(sys) || !opts || !out ||
	    TLBGEN_OPTS_VALID(opts, tlbgen_wl_opts, per_vma_lock))
		return -EINVAL;
	TLBGEN_OPTS_COPY(&o, opts);
	if (o.per_vma_lock) {
		tlbgen__pr(TLBGEN_WARN, "tlbgen: workload opts: per_vma_lock is no longer read; "
			   "set the profile's vma_lock_fault choice instead\n");
		return -EINVAL;
	}
	if (!o.fault_around_pages)
		o.fault_around_pages = 16;
	if (o.fault_around_pages > 512 || (o.fault_around_pages & (o.fault_around_pages - 1))) {
		tlbgen__pr(TLBGEN_WARN, "tlbgen: workload opts: fault_around_pages = %u: need a "
			   "power of two in 1..512\n", o.fault_around_pages);
		return -EINVAL;
	}
	if (o.kwork && tlbgen__machine_valid(o.kwork))
		return -EINVAL;
	wl = calloc(1, sizeof(*wl));
	if (!wl)
		return -ENOMEM;
	wl->cpu = aligned_alloc(TLBGEN_CACHELINE, sizeof(*wl->cpu) * sys->nr_cpus);
	if (!wl->cpu) {
		free(wl);
		return -ENOMEM;
	}
	memset(wl->cpu, 0, sizeof(*wl->cpu) * sys->nr_cpus);
	wl->magic = TLBGEN_WL_MAGIC;
	wl->sys = sys;
	wl->mode = sys->mode;
	wl->nr_cpus = sys->nr_cpus;
	wl->o = o;
	wl->o.kwork = NULL;
	if (o.kwork) {
		memcpy(&wl->kwork, o.kwork, o.kwork->sz < sizeof(wl->kwork) ? o.kwork->sz
									 : sizeof(wl->kwork));
		wl->have_kwork = true;
	}
	if (lru_init(wl)) {
		free(wl->cpu);
		free(wl);
		return -ENOMEM;
	}
	*out = wl;
	return 0;
}

TLBGEN_API void tlbgen_wl__destroy(struct tlbgen_wl *wl)
{
	if (!wl || wl->magic != TLBGEN_WL_MAGIC)
		return;
	wl->magic = 0;
	lru_fini(wl);
	free(wl->cpu);
	free(wl);
}

int tlbgen__wl_check(const struct tlbgen_wl *wl, unsigned int cpu)
{
	if (!wl || wl->magic != TLBGEN_WL_MAGIC || cpu >= wl->nr_cpus)
		return -EINVAL;
	return tlbgen__check_op(wl->sys, cpu);
}

int tlbgen__wl_check_range(const struct tlbgen_wl *wl, unsigned int cpu,
			   const struct tlbgen_mm *mm, unsigned long addr, unsigned long len)
{
	int err = tlbgen__wl_check(wl, cpu);

	if (err)
		return err;
	if (!tlbgen__mm_valid(wl->sys, mm) || mm == wl->sys->init_mm ||
	    (addr | len) & (TLBGEN_PAGE_SIZE - 1) || !len ||
	    addr >> TLBGEN_PAGE_SHIFT >= mm->priv.nr_pages ||
	    len >> TLBGEN_PAGE_SHIFT > mm->priv.nr_pages - (addr >> TLBGEN_PAGE_SHIFT))
		return -EINVAL;
	return 0;
}

int tlbgen__wl_flush(struct tlbgen_wl *wl, unsigned int cpu, struct tlbgen_mm *mm,
		     unsigned long start, unsigned long end, bool freed_tables)
{
	int err = tlbgen_flush_tlb_mm_range(wl->sys, cpu, mm, start, end, TLBGEN_PAGE_SHIFT,
					    freed_tables);

	return err ? err : tlbgen__wl_settle(wl, cpu);
}

int tlbgen__wl_settle(struct tlbgen_wl *wl, unsigned int cpu)
{
	int err = 0;

	if (wl->mode == TLBGEN_MODE_STEPPED && !tlbgen__sprog_running(wl->sys, cpu))
		while (!err && tlbgen_cpu__is_waiting(wl->sys, cpu) > 0)
			err = tlbgen_run_until_idle(wl->sys) < 0 ? -EDEADLK : 0;
	return err;
}

TLBGEN_API int tlbgen_wl__user_work(struct tlbgen_wl *wl, unsigned int cpu, unsigned long n)
{
	int err = tlbgen__wl_check(wl, cpu);

	for (unsigned long i = 0; !err && i < n; i++)
		err = tlbgen__wl_event(wl, cpu, TLBGEN_VT_USER_WORK);
	return err;
}

TLBGEN_API int tlbgen_wl__stats(const struct tlbgen_wl *wl, int cpu, uint64_t *out, size_t n)
{
	uint64_t now;

	if (!wl || wl->magic != TLBGEN_WL_MAGIC || !out || n > TLBGEN_WL_STAT_NR ||
	    cpu < -1 || (cpu >= 0 && (unsigned int)cpu >= wl->nr_cpus))
		return -EINVAL;
	memset(out, 0, n * sizeof(*out));
	if (wl->mode != TLBGEN_MODE_VIRTUAL || tlbgen__vt_reader_clock(wl->sys, &now))
		now = 0;
	for (unsigned int c = 0; c < wl->nr_cpus; c++) {
		const struct tlbgen_wl_cpu *wc = &wl->cpu[c];

		if (cpu >= 0 && c != (unsigned int)cpu)
			continue;
		for (size_t s = 0; s < n; s++)
			out[s] += atomic_load_explicit(&wc->st[s], memory_order_relaxed);
		/* Read from a CPU's program, a sleep under way counts up to the
		 * reader's clock, as tlbgen_vtime__stats() counts its time. */
		if (n > TLBGEN_WL_STAT_SLEEP_CYCLES && wc->asleep && now > wc->asleep_since)
			out[TLBGEN_WL_STAT_SLEEP_CYCLES] += now - wc->asleep_since;
	}
	return (int)n;
}
