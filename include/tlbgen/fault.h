/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tlbgen/fault.h - the tail of handle_pte_fault() and the spurious-fault
 * TLB flush rule (mm/memory.c), on the simulated page table.
 *
 * After a fault on a present PTE that pte_same() still matches:
 *   write fault on a read-only PTE     -> do_wp_page() (reported, not modelled)
 *   entry = pte_mkyoung(write ? pte_mkdirty(pte) : pte)
 *   ptep_set_access_flags() changed it -> the PTE is updated, then per the
 *                                         choice fault_arch: x86 nothing;
 *                                         arm64 on a write flush_tlb_page()
 *                                         (TLBI+DSB, no IPI; local from
 *                                         cb1fa2e99955, arm64_fault_flush);
 *                                         generic: the hook below;
 *                                         riscv update_mmu_cache()
 *   unchanged and FAULT_FLAG_TRIED     -> nothing (b7333b58f358; choice
 *                                         spurious_skip_tried)
 *   unchanged and FAULT_FLAG_WRITE     -> flush_tlb_fix_spurious_fault()
 *   unchanged read fault               -> nothing
 * The PTE is made dirty and young on a retry too: only the flush is skipped.
 * flush_tlb_fix_spurious_fault() is a choice (flush_tlb_fix_spurious_fault)
 * for fault_arch x86, generic and riscv:
 *   generic  flush_tlb_page(): the core's cross-CPU flush_tlb_mm_range();
 *   noop     x86;
 *   local    one page on this CPU only (Catalin Marinas, July 2020).
 * arm64's is a no-op from v5.10, and a local TLBI+DSB from cb1fa2e99955.
 * The page-table lock is held across it and across the changed-PTE flush,
 * except around a cross-CPU flush_tlb_page(), which the model cannot wait
 * for with a spinlock held (stepped mode completes it later).
 * A fault on a none PTE models do_fault() of a shared file mapping: the PTE
 * is installed (young; writable and dirty for a write; riscv then runs
 * update_mmu_cache() on it too), and when the caller
 * says balance_dirty_pages() would throttle (TLBGEN_FAULT_MODEL_THROTTLE)
 * a first attempt with FAULT_FLAG_ALLOW_RETRY drops the lock and returns
 * VM_FAULT_RETRY (89b15332af7c): the arch handler retries with
 * FAULT_FLAG_TRIED and then finds the PTE unchanged.
 */
#ifndef TLBGEN_FAULT_H
#define TLBGEN_FAULT_H

#include <tlbgen/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* enum fault_flag (include/linux/mm_types.h). */
#define TLBGEN_FAULT_FLAG_WRITE		(1U << 0)
#define TLBGEN_FAULT_FLAG_MKWRITE	(1U << 1)
#define TLBGEN_FAULT_FLAG_ALLOW_RETRY	(1U << 2)
#define TLBGEN_FAULT_FLAG_RETRY_NOWAIT	(1U << 3)
#define TLBGEN_FAULT_FLAG_KILLABLE	(1U << 4)
#define TLBGEN_FAULT_FLAG_TRIED		(1U << 5)
#define TLBGEN_FAULT_FLAG_USER		(1U << 6)
/* Model input, not a kernel flag: balance_dirty_pages() wants to throttle. */
#define TLBGEN_FAULT_MODEL_THROTTLE	(1U << 31)

/* vm_fault_t bits returned. */
#define TLBGEN_VM_FAULT_RETRY		0x000400U
#define TLBGEN_VM_FAULT_WP		0x100000U	/* model: went to do_wp_page() */

/* Simulated PTE bits (pte_none / pte_write / pte_dirty / pte_young).
 * tlbgen_mm__create() makes present, read-only, clean, old PTEs. */
#define TLBGEN_PTEF_NONE		(1U << 0)
#define TLBGEN_PTEF_WRITE	(1U << 1)
#define TLBGEN_PTEF_DIRTY	(1U << 2)
#define TLBGEN_PTEF_YOUNG	(1U << 3)

enum tlbgen_spurious_hook {
	TLBGEN_SPURIOUS_GENERIC = 0,	/* flush_tlb_page(): cross-CPU */
	TLBGEN_SPURIOUS_NOOP,		/* x86, arm64 (Will Deacon, Sep 2020) */
	TLBGEN_SPURIOUS_LOCAL,		/* local flush of one page */
};

enum tlbgen_fault_stat {
	TLBGEN_FAULT_STAT_FAULTS = 0,	/* handle_pte_fault() calls */
	TLBGEN_FAULT_STAT_WRITE,	/* ... with FAULT_FLAG_WRITE */
	TLBGEN_FAULT_STAT_TRIED,	/* ... with FAULT_FLAG_TRIED (retries) */
	TLBGEN_FAULT_STAT_INSTALL,	/* do_fault(): a none PTE installed */
	TLBGEN_FAULT_STAT_RETURN_RETRY,	/* returned VM_FAULT_RETRY */
	TLBGEN_FAULT_STAT_WP,		/* went to do_wp_page() */
	TLBGEN_FAULT_STAT_CHANGED,	/* ptep_set_access_flags() changed the PTE */
	TLBGEN_FAULT_STAT_UNCHANGED,	/* ... found nothing to change */
	TLBGEN_FAULT_STAT_SKIP_TRIED,	/* unchanged, TRIED: flush skipped (b7333b58f358) */
	TLBGEN_FAULT_STAT_SPURIOUS,	/* flush_tlb_fix_spurious_fault() called */
	TLBGEN_FAULT_STAT_SPURIOUS_FLUSH,	/* ... and it flushed (generic or local) */
	TLBGEN_FAULT_STAT_SPURIOUS_RETRIED,	/* spurious calls on a TRIED fault */
	TLBGEN_FAULT_STAT_ACCESS_FLUSH,	/* changed PTE flushed by ptep_set_access_flags() */
	TLBGEN_FAULT_STAT_UPDATE_MMU_CACHE,	/* riscv update_mmu_cache() of a set PTE */
	TLBGEN_FAULT_STAT_SFENCE_VMA,	/* ... fenced by one local sfence.vma */
	TLBGEN_FAULT_STAT_SINVAL_VMA,	/* ... by sfence.w.inval, sinval.vma, sfence.inval.ir */
	TLBGEN_FAULT_STAT_NR
};

/* tlbgen_fault_stat_name - short name ("spurious"), NULL if out of range. Thread-safe. */
TLBGEN_API const char *tlbgen_fault_stat_name(enum tlbgen_fault_stat s);

/*
 * tlbgen_handle_mm_fault - a fault by `cpu` at `addr` of `mm` with
 * `flags` (TLBGEN_FAULT_FLAG_* and TLBGEN_FAULT_MODEL_THROTTLE). Runs
 * handle_pte_fault() as described above, under the PTE's lock. The generic
 * hook dispatches a flush_tlb_page(): in stepped mode the caller delivers
 * its IPIs (the CPU may be left waiting).
 * Returns the vm_fault_t bits (0, TLBGEN_VM_FAULT_RETRY, TLBGEN_VM_FAULT_WP)
 * or: -EINVAL (NULL, init_mm, addr out of range, unknown flag bits),
 * -EBUSY (stepped, the CPU is waiting), -EPERM (threaded, not the CPU's
 * thread), -EDEADLK (from a cross-CPU callback on the CPU). Thread-safe for
 * distinct CPUs.
 */
TLBGEN_API int tlbgen_handle_mm_fault(struct tlbgen_system *sys, unsigned int cpu,
				      struct tlbgen_mm *mm, unsigned long addr,
				      unsigned int flags);

/*
 * tlbgen_pte__flags - the TLBGEN_PTE_* bits of the PTE mapping `addr`, or
 * -EINVAL. Thread-safe (one atomic load).
 */
TLBGEN_API int tlbgen_pte__flags(const struct tlbgen_mm *mm, unsigned long addr);

/*
 * tlbgen_pte_set - set_pte_at() / ptep_get_and_clear(): give the PTE mapping
 * `addr` the bits `flags` (TLBGEN_PTEF_NONE for a zap). A change of the
 * translation (present <-> none, or write permission removed) is a
 * tlbgen_pte_change() for the oracle: the caller must flush, as in the
 * kernel. Errors: -EINVAL (NULL, range, unknown bits). Thread-safe.
 */
TLBGEN_API int tlbgen_pte_set(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_mm *mm,
			      unsigned long addr, unsigned int flags);

/*
 * tlbgen_fault_stats__cpu - copy `cpu`'s fault counters into out[0 .. n);
 * tlbgen_fault_stats__system sums every CPU. Returns the number copied, or
 * -EINVAL. Racy but tear-free in threaded mode. tlbgen_stats__reset() does
 * not clear them; tlbgen_fault_stats__reset() does (-EBUSY while attached).
 */
TLBGEN_API int tlbgen_fault_stats__cpu(const struct tlbgen_system *sys, unsigned int cpu,
				       uint64_t *out, size_t n);
TLBGEN_API int tlbgen_fault_stats__system(const struct tlbgen_system *sys, uint64_t *out,
					  size_t n);
TLBGEN_API int tlbgen_fault_stats__reset(struct tlbgen_system *sys);

#ifdef __cplusplus
}
#endif
#endif
