// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/mm/rmap.c - the generic side of the batched unmap (mm/rmap.c): the
 * per-task struct tlbflush_unmap_batch, the mm's pending/flushed word, and
 * flush_tlb_batched_pending(). The arch hooks are behind arch/arch.h.
 *
 * mm->tlb_flush_batched was a bool until Huang Ying's 2021 fix: reclaim
 * setting it between another CPU's flush_tlb_mm() and its clearing lost a
 * pending flush. Counting adds (pending) and flushes (flushed) instead makes
 * the flusher's cmpxchg fail when an add raced with it, so the next caller
 * flushes again.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../base/printk.h"
#include "../core/access.h"
#include "../core/check.h"
#include "../arch/arch.h"

#define TLBGEN_UBC_MAGIC	0x544c4255u	/* "TLBU" */

#define FLUSHED_SHIFT	TLBGEN_TLB_FLUSH_BATCH_FLUSHED_SHIFT
#define PENDING_MASK	TLBGEN_TLB_FLUSH_BATCH_PENDING_MASK
#define PENDING_LARGE	TLBGEN_TLB_FLUSH_BATCH_PENDING_LARGE

_Static_assert(PENDING_MASK == (1 << (FLUSHED_SHIFT - 1)) - 1, "bits 0-14");
_Static_assert(PENDING_LARGE == PENDING_MASK / 2, "reset threshold");

/* struct tlbflush_unmap_batch (current->tlb_ubc) */
struct tlbgen_unmap_batch {
	uint32_t magic;
	struct tlbgen_system *sys;
	struct tlbgen_tlbbatch *arch;
	bool flush_required;	/* a flush is needed */
	bool writable;		/* a PTE was dirty: flush before IO */
};

TLBGEN_API int tlbgen_unmap_batch__create(struct tlbgen_system *sys,
					  struct tlbgen_unmap_batch **out)
{
	struct tlbgen_unmap_batch *u;
	int err;

	if (!tlbgen__sys_valid(sys) || !out)
		return -EINVAL;
	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	err = tlbgen_tlbbatch__create(sys, &u->arch);
	if (err) {
		free(u);
		return err;
	}
	u->magic = TLBGEN_UBC_MAGIC;
	u->sys = sys;
	*out = u;
	return 0;
}

static bool ubc_valid(const struct tlbgen_unmap_batch *u)
{
	return u && u->magic == TLBGEN_UBC_MAGIC;
}

TLBGEN_API int tlbgen_unmap_batch__destroy(struct tlbgen_unmap_batch *u)
{
	int err;

	if (!ubc_valid(u))
		return -EINVAL;
	err = tlbgen_tlbbatch__destroy(u->arch);
	if (err)
		return err;
	u->magic = 0;
	free(u);
	return 0;
}

TLBGEN_API int tlbgen_unmap_batch__flush_required(const struct tlbgen_unmap_batch *u)
{
	return ubc_valid(u) ? u->flush_required : -EINVAL;
}

TLBGEN_API int tlbgen_unmap_batch__writable(const struct tlbgen_unmap_batch *u)
{
	return ubc_valid(u) ? u->writable : -EINVAL;
}

TLBGEN_API struct tlbgen_tlbbatch *tlbgen_unmap_batch__arch(struct tlbgen_unmap_batch *u)
{
	return ubc_valid(u) ? u->arch : NULL;
}

static int check_mm_op(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_mm *mm)
{
	int err = tlbgen__check_initiator(sys, cpu);

	if (err)
		return err;
	if (!tlbgen__mm_valid(sys, mm) || mm == sys->init_mm)
		return -EINVAL;
	return tlbgen__arch_supported(sys);
}

static int check_ubc_op(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_unmap_batch *u)
{
	int err = tlbgen__check_initiator(sys, cpu);

	if (err)
		return err;
	if (!ubc_valid(u) || u->sys != sys)
		return -EINVAL;
	return tlbgen__arch_supported(sys);
}

/* should_defer_flush(): TTU_BATCH_FLUSH and the arch's rule. */
static bool should_defer_flush(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_mm *mm,
			       unsigned int flags)
{
	if (!(flags & TLBGEN_TTU_BATCH_FLUSH) || !tlbgen__arch_batching(sys))
		return false;
	return tlbgen__arch_ops(sys)->tlbbatch_should_defer(sys, cpu, mm);
}

TLBGEN_API int tlbgen_should_defer_flush(struct tlbgen_system *sys, unsigned int cpu,
					 struct tlbgen_mm *mm, unsigned int ttu_flags)
{
	int err = check_mm_op(sys, cpu, mm);

	if (err)
		return err;
	if (ttu_flags & ~TLBGEN_TTU_BATCH_FLUSH)
		return -EINVAL;
	return should_defer_flush(sys, cpu, mm, ttu_flags);
}

static int set_tlb_ubc_flush_pending(struct tlbgen_system *sys, unsigned int cpu,
				     struct tlbgen_unmap_batch *u, struct tlbgen_mm *mm,
				     unsigned long start, unsigned long end,
				     unsigned int pte_flags)
{
	int batch, err;

	/*
	 * 4d4b6d66db63: a PTE no TLB can hold needs no flush. Before it every
	 * cleared PTE was batched: the arch add (x86: a tlb_gen bump and the
	 * cpumask OR), flush_required and the pending count.
	 */
	if (sys->profile.ubc_pte_accessible && !(pte_flags & TLBGEN_PTE_ACCESSIBLE))
		return 0;
	err = tlbgen_arch_tlbbatch_add_pending(sys, cpu, u->arch, mm, start, end);
	if (err)
		return err;
	u->flush_required = true;
	/* Do not let the compiler move the counter update before the PTE clear. */
	barrier();
	batch = tlbgen__mm_batched_read(mm);
	for (;;) {
		if ((batch & PENDING_MASK) > PENDING_LARGE) {
			/* Keep pending from catching up with flushed through
			 * overflow: restart both at pending 1, flushed 0. */
			if (tlbgen__mm_batched_cmpxchg(mm, &batch, 1, true))
				break;
		} else {
			tlbgen__mm_batched_inc(mm);
			break;
		}
	}
	/* A dirty PTE may have a writable TLB entry: flush before IO. */
	if (pte_flags & TLBGEN_PTE_DIRTY)
		u->writable = true;
	return 1;
}

static int check_range(const struct tlbgen_mm *mm, unsigned long start, unsigned long end)
{
	if (start >= end || end > (mm->priv.nr_pages << TLBGEN_PAGE_SHIFT))
		return -EINVAL;
	return 0;
}

TLBGEN_API int tlbgen_set_tlb_ubc_flush_pending(struct tlbgen_system *sys, unsigned int cpu,
						struct tlbgen_unmap_batch *u,
						struct tlbgen_mm *mm, unsigned long start,
						unsigned long end, unsigned int pte_flags)
{
	int err = check_ubc_op(sys, cpu, u);

	if (!err)
		err = check_mm_op(sys, cpu, mm);
	if (err)
		return err;
	if (check_range(mm, start, end) ||
	    (pte_flags & ~(TLBGEN_PTE_ACCESSIBLE | TLBGEN_PTE_DIRTY)))
		return -EINVAL;
	return set_tlb_ubc_flush_pending(sys, cpu, u, mm, start, end, pte_flags);
}

TLBGEN_API int tlbgen_try_to_unmap_one(struct tlbgen_system *sys, unsigned int cpu,
				       struct tlbgen_unmap_batch *u, struct tlbgen_mm *mm,
				       unsigned long addr, unsigned int ttu_flags,
				       unsigned int pte_flags)
{
	unsigned long start = addr & ~(TLBGEN_PAGE_SIZE - 1);
	int err = check_ubc_op(sys, cpu, u);

	if (!err)
		err = check_mm_op(sys, cpu, mm);
	if (err)
		return err;
	if (addr > TLBGEN_TLB_FLUSH_ALL - TLBGEN_PAGE_SIZE ||
	    check_range(mm, start, start + TLBGEN_PAGE_SIZE) ||
	    (ttu_flags & ~TLBGEN_TTU_BATCH_FLUSH) ||
	    (pte_flags & ~(TLBGEN_PTE_ACCESSIBLE | TLBGEN_PTE_DIRTY)))
		return -EINVAL;

	if (should_defer_flush(sys, cpu, mm, ttu_flags)) {
		/* pteval = ptep_get_and_clear(); set_tlb_ubc_flush_pending() */
		tlbgen_pte_change(sys, cpu, mm, start);
		err = set_tlb_ubc_flush_pending(sys, cpu, u, mm, start, start + TLBGEN_PAGE_SIZE,
						pte_flags);
		return err < 0 ? err : 1;
	}
	/* ptep_clear_flush(): flush_tlb_page() only if the PTE was accessible. */
	tlbgen_pte_change(sys, cpu, mm, start);
	if (!(pte_flags & TLBGEN_PTE_ACCESSIBLE))
		return 0;
	err = tlbgen__arch_ops(sys)->flush_tlb_page(sys, cpu, mm, start);
	return err < 0 ? err : 0;
}

static int try_to_unmap_flush(struct tlbgen_system *sys, unsigned int cpu,
			      struct tlbgen_unmap_batch *u)
{
	int err;

	if (!u->flush_required)
		return 0;
	err = tlbgen_arch_tlbbatch_flush(sys, cpu, u->arch);
	if (err)
		return err;
	u->flush_required = false;
	u->writable = false;
	return 1;
}

TLBGEN_API int tlbgen_try_to_unmap_flush(struct tlbgen_system *sys, unsigned int cpu,
					 struct tlbgen_unmap_batch *u)
{
	int err = check_ubc_op(sys, cpu, u);

	return err ? err : try_to_unmap_flush(sys, cpu, u);
}

TLBGEN_API int tlbgen_try_to_unmap_flush_dirty(struct tlbgen_system *sys, unsigned int cpu,
					       struct tlbgen_unmap_batch *u)
{
	int err = check_ubc_op(sys, cpu, u);

	if (err)
		return err;
	return u->writable ? try_to_unmap_flush(sys, cpu, u) : 0;
}

TLBGEN_API int tlbgen_flush_tlb_batched_pending(struct tlbgen_system *sys, unsigned int cpu,
						struct tlbgen_mm *mm,
						const struct tlbgen_batched_pending_opts *opts)
{
	struct tlbgen_batched_pending_opts o = { 0 };
	int batch, pending, flushed, err = check_mm_op(sys, cpu, mm);

	if (err)
		return err;
	if (opts) {
		if (TLBGEN_OPTS_VALID(opts, tlbgen_batched_pending_opts, ctx))
			return -EINVAL;
		TLBGEN_OPTS_COPY(&o, opts);
	}
	batch = tlbgen__mm_batched_read(mm);
	pending = batch & PENDING_MASK;
	flushed = batch >> FLUSHED_SHIFT;
	if (pending == flushed)
		return 0;
	err = tlbgen__arch_ops(sys)->flush_tlb_batched_pending(sys, cpu, mm);
	if (err)
		return err;
	if (o.before_cmpxchg)
		o.before_cmpxchg(sys, cpu, mm, o.ctx);
	/* An add during the flush makes this fail: leave the word as is so
	 * that the next caller flushes again. */
	tlbgen__mm_batched_cmpxchg(mm, &batch, pending | (pending << FLUSHED_SHIFT), false);
	return 1;
}

TLBGEN_API int tlbgen_mm__tlb_flush_batched(const struct tlbgen_mm *mm)
{
	if (!tlbgen__mm_ok(mm))
		return -EINVAL;
	return tlbgen__mm_batched_read((struct tlbgen_mm *)mm);
}
