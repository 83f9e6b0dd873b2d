// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/mm/mm.c - mm lifecycle: mm_alloc(), init_new_context() and the
 * simulated page table.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../arch/x86/mm/tlb.h"
#include "../base/alloc.h"
#include "../core/access.h"
#include "../core/check.h"
#include "../core/clock.h"
#include "../core/stats.h"
#include "../core/this_cpu.h"
#include "mm.h"

/* 128 GiB of user addresses: will-it-scale's 128 MiB file per task for
 * 1024 tasks sharing one mm (tlb_flush1 threads on 1024 CPUs). The PTEs
 * are calloc()ed: only the pages a run touches are resident. */
#define TLBGEN_MAX_PAGES (1UL << 25)

int tlbgen__mm_alloc(struct tlbgen_system *sys, unsigned long nr_pages, struct tlbgen_mm **out)
{
	size_t size = sizeof(struct tlbgen_mm) + sys->mask_longs * sizeof(atomic_ulong);
	struct tlbgen_mm *mm;

	/* On the NUMA node of the creating CPU (threaded mode, attached
	 * thread), else cache-aligned heap; zeroed either way. */
	int cpu = sys->mode == TLBGEN_MODE_THREADED && tlbgen__tls.sys == sys ? tlbgen__tls.cpu : -1;

	mm = tlbgen__alloc_node(cpu >= 0 ? tlbgen__cpu_node(sys, (unsigned int)cpu) : -1, size);
	if (!mm)
		return -ENOMEM;
	mm->priv.ptes = nr_pages ? calloc(nr_pages, sizeof(*mm->priv.ptes)) : NULL;
	if (!(sys->flags & TLBGEN_SYS_NO_STATS))
		mm->priv.stats = aligned_alloc(TLBGEN_CACHELINE, (size_t)sys->nr_cpus *
					       TLBGEN_MM_STAT_STRIDE * sizeof(*mm->priv.stats));
	if (mm->priv.stats)
		memset(mm->priv.stats, 0, (size_t)sys->nr_cpus * TLBGEN_MM_STAT_STRIDE *
					  sizeof(*mm->priv.stats));
	if ((nr_pages && !mm->priv.ptes) ||
	    (!(sys->flags & TLBGEN_SYS_NO_STATS) && !mm->priv.stats)) {
		free(mm->priv.ptes);
		free(mm->priv.stats);
		tlbgen__free_node(mm);
		return -ENOMEM;
	}
	/* init_new_context(): a never-reused ctx_id, tlb_gen 0. */
	mm->context.ctx_id = atomic_fetch_add(&sys->last_mm_ctx_id, 1) + 1;
	atomic_init(&mm->context.tlb_gen, 0);
	atomic_init(&mm->context.next_trim_cpumask, tlbgen__jiffies(sys) + tlbgen__hz(sys));
	mm->mmap_lock.count.last = -1;
	mm->mmap_lock.writer = -1;
	atomic_flag_clear(&mm->mmap_lock.wait_lock);
	mm->tlb_flush_pending.last = -1;
	mm->priv.magic = TLBGEN_MM_MAGIC;
	mm->priv.sys = sys;
	mm->priv.nr_pages = nr_pages;
	*out = mm;
	return 0;
}

void tlbgen__mm_free(struct tlbgen_mm *mm)
{
	struct tlbgen_system *sys = mm->priv.sys;

	/* The next mm allocated here is another object: new trace line ids. */
	if (sys)
		tlbgen__line_ids_forget(&sys->line_ids, mm, sizeof(struct tlbgen_mm) +
				       sys->mask_longs * sizeof(atomic_ulong));
	mm->priv.magic = 0;
	free(mm->mmap_lock.q);
	free(mm->mmap_lock.q_write);
	free(mm->mmap_lock.granted);
	free(mm->priv.ptes);
	free(mm->priv.stats);
	tlbgen__free_node(mm);
}

TLBGEN_API int tlbgen_mm__create(struct tlbgen_system *sys, unsigned long nr_pages,
				 struct tlbgen_mm **out)
{
	struct tlbgen_mm *mm;
	int err;

	if (!tlbgen__sys_valid(sys) || !out || !nr_pages || nr_pages > TLBGEN_MAX_PAGES)
		return -EINVAL;
	err = tlbgen__mm_alloc(sys, nr_pages, &mm);
	if (err)
		return err;
	pthread_mutex_lock(&sys->lock);
	mm->priv.next = sys->mm_list;
	if (sys->mm_list)
		sys->mm_list->priv.prev = mm;
	sys->mm_list = mm;
	pthread_mutex_unlock(&sys->lock);
	*out = mm;
	return 0;
}

TLBGEN_API int tlbgen_mm__destroy(struct tlbgen_mm *mm)
{
	struct tlbgen_system *sys;

	if (!tlbgen__mm_ok(mm))
		return -EINVAL;
	sys = mm->priv.sys;
	if (mm == sys->init_mm)
		return -EINVAL;
	if (tlbgen__peek_mm_pins(mm))
		return -EBUSY;
	/*
	 * A CPU that still has it loaded, lazily or not, holds a reference
	 * (mmdrop_lazy_tlb() when it switches away). Bits of CPUs that left
	 * it under a lazy mm_cpumask (209954cbc7d0) hold nothing: the kernel
	 * frees an mm with them set, and the ctx_id their ASID slots keep is
	 * never handed out again.
	 */
	for (unsigned int cpu = 0; cpu < sys->nr_cpus; cpu++) {
		/* A flush of mm in flight: found through the initiator's own
		 * flush_tlb_info, so flushing needs no shared counter. */
		if (tlbgen__peek_loaded_mm(sys, cpu) == mm ||
		    tlbgen__peek_flush_mm(sys, cpu) == mm)
			return -EBUSY;
	}
	pthread_mutex_lock(&sys->lock);
	if (mm->priv.prev)
		mm->priv.prev->priv.next = mm->priv.next;
	else
		sys->mm_list = mm->priv.next;
	if (mm->priv.next)
		mm->priv.next->priv.prev = mm->priv.prev;
	pthread_mutex_unlock(&sys->lock);
	/* destroy_context() -> mm_free_global_asid() (c9826613a9cb). */
	tlbgen__mm_free_global_asid(sys, mm);
	tlbgen__mm_free(mm);
	return 0;
}

TLBGEN_API int tlbgen_mm__global_asid(const struct tlbgen_mm *mm, bool *in_transition)
{
	struct tlbgen_mm *m = (struct tlbgen_mm *)mm;

	if (!tlbgen__mm_ok(mm))
		return -EINVAL;
	if (in_transition)
		*in_transition = atomic_load(&m->context.asid_transition);
	return atomic_load(&m->context.global_asid);
}

TLBGEN_API uint64_t tlbgen_mm__ctx_id(const struct tlbgen_mm *mm)
{
	return tlbgen__mm_ok(mm) ? mm->context.ctx_id : 0;
}

TLBGEN_API int tlbgen_mm__tlb_gen(const struct tlbgen_mm *mm, uint64_t *out)
{
	if (!tlbgen__mm_ok(mm) || !out)
		return -EINVAL;
	*out = atomic_load(&((struct tlbgen_mm *)mm)->context.tlb_gen);
	return 0;
}

TLBGEN_API int tlbgen_mm__next_trim_cpumask(const struct tlbgen_mm *mm, uint64_t *out)
{
	if (!tlbgen__mm_ok(mm) || !out)
		return -EINVAL;
	*out = atomic_load(&((struct tlbgen_mm *)mm)->context.next_trim_cpumask);
	return 0;
}

TLBGEN_API int tlbgen_mm__cpumask_test(const struct tlbgen_mm *mm, unsigned int cpu)
{
	if (!tlbgen__mm_ok(mm) || cpu >= mm->priv.sys->nr_cpus)
		return -EINVAL;
	return cpumask_test_cpu(cpu, mm->cpu_bitmap);
}

TLBGEN_API int tlbgen_mm__cpumask_weight(const struct tlbgen_mm *mm)
{
	int w = 0;

	if (!tlbgen__mm_ok(mm))
		return -EINVAL;
	for (unsigned int cpu = 0; cpu < mm->priv.sys->nr_cpus; cpu++)
		w += cpumask_test_cpu(cpu, mm->cpu_bitmap);
	return w;
}

TLBGEN_API unsigned long tlbgen_mm__nr_pages(const struct tlbgen_mm *mm)
{
	return tlbgen__mm_ok(mm) ? mm->priv.nr_pages : 0;
}
