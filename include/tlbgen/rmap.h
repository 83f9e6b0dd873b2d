/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tlbgen/rmap.h - the generic batched-unmap state machine of mm/rmap.c:
 * the per-task struct tlbflush_unmap_batch (the arch batch, flush_required,
 * writable), set_tlb_ubc_flush_pending(), should_defer_flush(),
 * try_to_unmap_flush(), try_to_unmap_flush_dirty(), the mm's
 * pending/flushed word mm->tlb_flush_batched and flush_tlb_batched_pending().
 *
 * The arch hooks under it are chosen by the profile choice batch_arch
 * (x86 | arm64 | riscv, tlbgen/tlbbatch.h); batched_unmap=off is the
 * "no batching" baseline (should_defer_flush() is always false, so every
 * unmap flushes at once through the arch's flush_tlb_page()).
 *
 * Common errors, checked before any state changes: those of tlbgen/tlb.h
 * (-EINVAL, -EBUSY for a waiting stepped CPU, -EPERM for a foreign thread,
 * -EDEADLK from a cross-CPU callback on the CPU),
 * -EINVAL for a batch of another system or an address outside the mm, and
 * -EOPNOTSUPP for batch_arch=arm64 on a threaded system with the oracle on.
 */
#ifndef TLBGEN_RMAP_H
#define TLBGEN_RMAP_H

#include <tlbgen/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tlbgen_unmap_batch;
struct tlbgen_tlbbatch;

/* enum ttu_flags */
#define TLBGEN_TTU_BATCH_FLUSH	(1U << 0)	/* batch TLB flushes where possible */

/* The PTE being cleared, as set_tlb_ubc_flush_pending() looks at it. */
#define TLBGEN_PTE_ACCESSIBLE	(1U << 0)	/* pte_accessible(): may be cached in a TLB */
#define TLBGEN_PTE_DIRTY	(1U << 1)	/* pte_dirty(): a writable TLB entry may exist */

/* Bits 0-14 of mm->tlb_flush_batched: pending; bits 16-30: flushed. */
#define TLBGEN_TLB_FLUSH_BATCH_FLUSHED_SHIFT	16
#define TLBGEN_TLB_FLUSH_BATCH_PENDING_MASK	0x7fff
#define TLBGEN_TLB_FLUSH_BATCH_PENDING_LARGE	16383

/*
 * tlbgen_unmap_batch__create - current->tlb_ubc of a new task: an empty arch
 * batch, flush_required = writable = false. Errors: -EINVAL, -ENOMEM.
 * Thread-safe. The batch belongs to one task: use it from one CPU at a time.
 */
TLBGEN_API int tlbgen_unmap_batch__create(struct tlbgen_system *sys,
					  struct tlbgen_unmap_batch **out);

/*
 * tlbgen_unmap_batch__destroy - free it; a pending flush is dropped (call
 * tlbgen_try_to_unmap_flush() first). Errors: -EINVAL, -EBUSY while its
 * flush is in flight (stepped). Not thread-safe against users of the batch.
 */
TLBGEN_API int tlbgen_unmap_batch__destroy(struct tlbgen_unmap_batch *ubc);

/*
 * tlbgen_unmap_batch__flush_required, tlbgen_unmap_batch__writable - the two
 * flags: 1 or 0, -EINVAL for NULL. Owner's thread.
 */
TLBGEN_API int tlbgen_unmap_batch__flush_required(const struct tlbgen_unmap_batch *ubc);
TLBGEN_API int tlbgen_unmap_batch__writable(const struct tlbgen_unmap_batch *ubc);

/* tlbgen_unmap_batch__arch - the embedded arch batch (tlbgen/tlbbatch.h queries), NULL for NULL. */
TLBGEN_API struct tlbgen_tlbbatch *tlbgen_unmap_batch__arch(struct tlbgen_unmap_batch *ubc);

/*
 * tlbgen_should_defer_flush - should_defer_flush(mm, flags) run on `cpu`:
 * false without TLBGEN_TTU_BATCH_FLUSH or with batched_unmap=off, else the
 * arch rule (x86: another CPU in mm_cpumask; arm64: unless
 * ARM64_WORKAROUND_REPEAT_TLBI; riscv: always). Returns 1, 0, or the common
 * errors (-EINVAL also for unknown flags). Thread-safe as tlbgen/tlb.h.
 */
TLBGEN_API int tlbgen_should_defer_flush(struct tlbgen_system *sys, unsigned int cpu,
					 struct tlbgen_mm *mm, unsigned int ttu_flags);

/*
 * tlbgen_set_tlb_ubc_flush_pending - set_tlb_ubc_flush_pending(mm, pteval,
 * start, end) for a PTE the caller has already cleared: nothing when the PTE
 * was not accessible; else the arch add_pending, flush_required = true, the
 * pending count of mm->tlb_flush_batched + 1 (the whole word reset to 1 by
 * cmpxchg once pending exceeds 16383), writable |= dirty.
 * Returns 1 if added, 0 if not accessible, or the common errors (-EINVAL
 * also for a bad range or unknown pte_flags; -ENOMEM). Batch: owner's
 * thread; the mm word is atomic.
 */
TLBGEN_API int tlbgen_set_tlb_ubc_flush_pending(struct tlbgen_system *sys, unsigned int cpu,
						struct tlbgen_unmap_batch *ubc,
						struct tlbgen_mm *mm, unsigned long start,
						unsigned long end, unsigned int pte_flags);

/*
 * tlbgen_try_to_unmap_one - the PTE step of try_to_unmap_one() for the page
 * at `addr`: if should_defer_flush(), ptep_get_and_clear() (a
 * tlbgen_pte_change) + set_tlb_ubc_flush_pending(); else ptep_clear_flush():
 * the change and, for an accessible PTE, the arch's flush_tlb_page()
 * (x86: flush_tlb_mm_range of one page; arm64: TLBI + DSB; riscv: a ranged
 * flush to mm_cpumask through the IPI engine). Returns 1 if deferred, 0 if
 * flushed (or nothing to flush), or the common errors. In stepped mode an
 * unbatched flush may leave `cpu` waiting for its IPIs.
 */
TLBGEN_API int tlbgen_try_to_unmap_one(struct tlbgen_system *sys, unsigned int cpu,
				       struct tlbgen_unmap_batch *ubc, struct tlbgen_mm *mm,
				       unsigned long addr, unsigned int ttu_flags,
				       unsigned int pte_flags);

/*
 * tlbgen_try_to_unmap_flush - try_to_unmap_flush(): if flush_required, the
 * arch flush (tlbgen_arch_tlbbatch_flush), then flush_required = writable =
 * false. Returns 1 if it flushed, 0 if nothing was pending, or the common
 * errors. The arch promise: once the flush has returned (stepped: once the
 * CPU stops waiting), no CPU holds a translation the batch covered.
 */
TLBGEN_API int tlbgen_try_to_unmap_flush(struct tlbgen_system *sys, unsigned int cpu,
					 struct tlbgen_unmap_batch *ubc);

/*
 * tlbgen_try_to_unmap_flush_dirty - try_to_unmap_flush_dirty(): flush only if
 * a dirty (possibly writable) PTE was batched, as reclaim does before
 * queueing a page for IO. Returns as tlbgen_try_to_unmap_flush.
 */
TLBGEN_API int tlbgen_try_to_unmap_flush_dirty(struct tlbgen_system *sys, unsigned int cpu,
					       struct tlbgen_unmap_batch *ubc);

/*
 * Test hook of tlbgen_flush_tlb_batched_pending: `before_cmpxchg` runs on
 * the calling thread after the flush was issued and before the cmpxchg of
 * mm->tlb_flush_batched, so a concurrent set_tlb_ubc_flush_pending() can be
 * injected deterministically.
 */
struct tlbgen_batched_pending_opts {
	size_t sz;	/* sizeof(struct tlbgen_batched_pending_opts) */
	void (*before_cmpxchg)(struct tlbgen_system *sys, unsigned int cpu,
			       struct tlbgen_mm *mm, void *ctx);
	void *ctx;
};

/*
 * tlbgen_flush_tlb_batched_pending - flush_tlb_batched_pending(mm), as
 * mprotect/munmap/madvise call it under the PTE lock: if pending != flushed
 * in mm->tlb_flush_batched, arch_flush_tlb_batched_pending(mm) (x86/riscv:
 * flush_tlb_mm; arm64: flush_tlb_mm, or a DSB only with
 * batched_pending=dsb, the bug 4b634918384c fixed), then cmpxchg the word
 * from the value read to pending | pending << 16; it fails, leaving the
 * word, when an add raced with the flush, so the next call flushes again.
 * `opts` may be NULL. Returns 1 if it flushed, 0 if nothing was pending, or
 * the common errors (-EINVAL also for bad opts). In stepped mode the flush
 * is complete only once its IPIs are delivered.
 */
TLBGEN_API int tlbgen_flush_tlb_batched_pending(struct tlbgen_system *sys, unsigned int cpu,
						struct tlbgen_mm *mm,
						const struct tlbgen_batched_pending_opts *opts);

/*
 * tlbgen_mm__tlb_flush_batched - atomic_read(&mm->tlb_flush_batched): the
 * word itself (>= 0), or -EINVAL for NULL. Thread-safe.
 */
TLBGEN_API int tlbgen_mm__tlb_flush_batched(const struct tlbgen_mm *mm);

#ifdef __cplusplus
}
#endif
#endif
