/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tlbgen/workload.h - the kernel-side operations a flush workload is made
 * of: page faults (with do_fault_around() and wp_page_copy()'s
 * ptep_clear_flush()), madvise(MADV_DONTNEED) and munmap() as a zap under
 * an mmu_gather (tlb_flush_pending and mm_tlb_flush_nested(), 7a30df49f63a),
 * mmap_lock as a rw_semaphore whose count is a line every thread RMWs,
 * mprotect(), MADV_PAGEOUT-style reclaim through the batched unmap, and
 * the scheduler's side: a switch to another task, a kernel thread or the
 * idle task (lazy TLB), sleeping on a lock and being woken.
 *
 * Each operation runs the library's policy code and does the kernel's own
 * work around it by the system's mode:
 *   stepped   it counts (tlbgen_wl_stats, tlbgen/stats.h); a program that
 *             must wait (a flush's IPIs, a lock) yields to the stepped
 *             scheduler (tlbgen/stepped.h, tlbgen_stepped__run()); called
 *             from the host instead, an operation delivers its flushes'
 *             IPIs itself (tlbgen_run_until_idle()) before it goes on, and
 *             one that would sleep on a lock fails with -EPERM;
 *   threaded  its locks and counters are real atomics on their own lines,
 *             and the kernel work of each event (a fault, a syscall's entry
 *             and exit, the PTL, a zap) is burnt as a busy-wait with IRQs
 *             on from the workload's machine model (opts.kwork);
 *   virtual   every event is charged to the CPU's clock from the system's
 *             machine model (tlbgen_vtime__event()), and mmap_lock's count
 *             and mm->tlb_flush_pending cost as lines (a transfer from the
 *             CPU that wrote it last, held while in flight).
 *
 * The mapping an operation works on is described by `map` flags: the
 * will-it-scale tests' three kinds.
 *
 * Every function here is called by the emulated CPU it names (in threaded
 * mode from its attached thread, in virtual and stepped mode from its
 * program) and returns 0 or a negative errno: -EINVAL (NULL, foreign mm,
 * init_mm, an address or CPU out of range, unknown flags), -EPERM (not the
 * CPU's thread or program), -EBUSY (stepped, called outside a program while
 * the CPU waits), -EDEADLK (from a cross-CPU callback), -ENOMEM. On an error
 * before the operation started nothing changed; an error from inside the
 * policy code (which correct callers never see) leaves the mm as it was at
 * that point. An operation that takes mmap_lock returns 1, having done
 * nothing, when the run (virtual or stepped) ended while its task slept on
 * the lock.
 */
#ifndef TLBGEN_WORKLOAD_H
#define TLBGEN_WORKLOAD_H

#include <tlbgen/common.h>
#include <tlbgen/machine.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tlbgen_wl;

/* What a mapping is (the VMA's kind), for the fault path. */
#define TLBGEN_MAP_ANON		0U		/* MAP_PRIVATE|MAP_ANONYMOUS: a write fault
						 * allocates a page; a read maps the zero
						 * page read-only */
#define TLBGEN_MAP_FILE		(1U << 0)	/* a file: read faults map its page-cache
						 * pages read-only, and do_fault_around()
						 * the rest of the aligned block */
#define TLBGEN_MAP_SHARED	(1U << 1)	/* with FILE: MAP_SHARED, a write fault maps
						 * the page-cache page writable; without:
						 * MAP_PRIVATE, a write to a read-only PTE
						 * is a COW (wp_page_copy()) */

/* Fault flags (a subset of enum fault_flag). */
#define TLBGEN_WL_FAULT_WRITE	(1U << 0)

struct tlbgen_wl_opts {
	size_t sz;			/* sizeof(struct tlbgen_wl_opts) */
	/*
	 * Threaded mode: the costs burnt per kernel event (tlbgen/machine.h;
	 * copied). NULL: none, an operation is the emulated flush path alone.
	 * Ignored in the other modes (virtual charges the system's own model).
	 */
	const struct tlbgen_machine *kwork;
	/* fault_around_bytes in pages: a power of two, 1..512; 0 = 16
	 * (64 KiB, the kernel's default). */
	unsigned int fault_around_pages;
	/* Must be false: which faults take only the VMA's lock, not mmap_lock,
	 * is the profile's vma_lock_fault choice. */
	bool per_vma_lock;
};

/*
 * tlbgen_wl__create - a workload context for `sys`: its per-CPU counters
 * and idle-state bookkeeping, and the costs of its kernel work. One per
 * system (more are allowed; each keeps its own counters).
 * Errors: -EINVAL (NULL, bad sz, fault_around_pages not a power of two in
 * range, kwork invalid, per_vma_lock set), -ENOMEM. Thread-safe.
 */
TLBGEN_API int tlbgen_wl__create(struct tlbgen_system *sys, const struct tlbgen_wl_opts *opts,
				 struct tlbgen_wl **out);

/* tlbgen_wl__destroy - free it (NULL is fine). Not against concurrent use. */
TLBGEN_API void tlbgen_wl__destroy(struct tlbgen_wl *wl);

/* ---- faults ----------------------------------------------------------------------- */

/*
 * tlbgen_wl__fault - a user access by `cpu` to `addr` of `mm` that faults,
 * and its retry: the arch handler takes mmap_lock for read (or only the
 * VMA's lock, where the profile's vma_lock_fault covers the fault: none;
 * anon, anonymous VMAs; anon-shared, also a FILE|SHARED write to a none
 * PTE; all, every fault), the fault's kernel work, then by the PTE and `map`:
 *   none, read, FILE      do_read_fault(): do_fault_around() maps the none
 *                         PTEs of the aligned fault_around block read-only;
 *   none, read, anon      the zero page, read-only;
 *   none, write           a new page (private copy, or for FILE|SHARED the
 *                         page-cache page), writable;
 *   read-only, write,     do_wp_page() -> wp_page_copy(): ptep_clear_flush()
 *   private               clears and flushes the page, then the copy is
 *                         installed writable;
 *   read-only, write,     the PTE is made writable (no flush);
 *   shared
 *   present otherwise     nothing to install (a spurious fault);
 * then mmap_lock is dropped and the retried access fills the TLB
 * (tlbgen_access(), when the oracle is on).
 * `flags`: TLBGEN_WL_FAULT_WRITE. Errors as above.
 */
TLBGEN_API int tlbgen_wl__fault(struct tlbgen_wl *wl, unsigned int cpu, struct tlbgen_mm *mm,
				unsigned long addr, unsigned int map, unsigned int flags);

/* ---- system calls ----------------------------------------------------------------- */

/*
 * tlbgen_wl__madvise_dontneed - madvise(start, len, MADV_DONTNEED): the
 * syscall's entry and exit, mmap_lock for read, and zap_page_range() of
 * [start, start + len) under an mmu_gather: tlb_gather_mmu() raises
 * mm->tlb_flush_pending, the PTEs are cleared under the PTL (a zap's work
 * for each that maps a page of its own), and tlb_finish_mmu() flushes the
 * range, or the whole mm with freed_tables when mm_tlb_flush_nested() sees
 * another gather of the mm in flight (7a30df49f63a), then drops the count.
 * A zap that cleared no PTE flushes nothing, unless nested.
 * `start` and `len` page-aligned, len > 0.
 */
TLBGEN_API int tlbgen_wl__madvise_dontneed(struct tlbgen_wl *wl, unsigned int cpu,
					   struct tlbgen_mm *mm, unsigned long start,
					   unsigned long len);

/*
 * tlbgen_wl__munmap - munmap(start, len): mmap_lock for write while the
 * VMA is detached; then, under the profile's munmap_lock=downgrade (every
 * built-in profile: dd2283f2605e, v4.20), downgraded to read, so readers
 * queued behind it share the lock, while the range is zapped as above and
 * flushed, freed_tables when `free_tables` (the VMA was the last user of
 * its page tables: free_pgtables()). munmap_lock=write holds it throughout.
 */
TLBGEN_API int tlbgen_wl__munmap(struct tlbgen_wl *wl, unsigned int cpu, struct tlbgen_mm *mm,
				 unsigned long start, unsigned long len, bool free_tables);

struct tlbgen_wl_munmap_opts {
	size_t sz;			/* sizeof(struct tlbgen_wl_munmap_opts) */
	bool free_tables;		/* as tlbgen_wl__munmap()'s */
	/* Pages of the range that are mapped in the kernel being modelled
	 * but have no PTE in the model (a workload that maps a large file
	 * through a small window): each is charged one page of a long zap
	 * (TLBGEN_VT_ZAP_BATCHED: the machine's zap_batched, else zap) where
	 * unmap_region() zaps, under the downgraded lock. */
	unsigned long unseen_pages;
	/* The unseen pages are dirty pages of a file mapping (page_fault3's
	 * written MAP_SHARED file): under the profile's zap_delay_rmap=pmd
	 * (5df397dec7c4) each PTE table's worth of them, from `start` on, is
	 * flushed before the next, as zap_pte_range()'s force_flush does. */
	bool unseen_dirty_file;
	/* Since TLBGEN_0.8: the unseen pages are anonymous folios of the
	 * mapping's own (page_fault1/2's written private pages), which the
	 * gather frees after its flush: the LRU's lru_lock holds
	 * (tlbgen_wl_stat LRU_LOCKS). Not with unseen_dirty_file. */
	bool unseen_anon;
};

/*
 * tlbgen_wl__munmap_opts - tlbgen_wl__munmap() with options: as it, and
 * the unseen pages' zap work. Errors as tlbgen_wl__munmap(), and -EINVAL
 * for NULL or bad sz opts, or more unseen pages than the range holds.
 * Thread-safety as tlbgen_wl__munmap(): CPU `cpu`'s context.
 */
TLBGEN_API int tlbgen_wl__munmap_opts(struct tlbgen_wl *wl, unsigned int cpu,
				      struct tlbgen_mm *mm, unsigned long start, unsigned long len,
				      const struct tlbgen_wl_munmap_opts *opts);

/*
 * tlbgen_wl__mmap - mmap() of a new VMA under mmap_lock for write: the
 * syscall and the VMA's setup (charged as one fault's work: an estimate).
 * It maps nothing: pages come with their faults.
 */
TLBGEN_API int tlbgen_wl__mmap(struct tlbgen_wl *wl, unsigned int cpu, struct tlbgen_mm *mm);

/*
 * tlbgen_wl__mprotect_ro - mprotect(start, len, PROT_READ) under mmap_lock
 * for write: change_protection() write-protects each writable PTE and
 * flushes the range once (flush_tlb_range(), after the PTL is dropped).
 */
TLBGEN_API int tlbgen_wl__mprotect_ro(struct tlbgen_wl *wl, unsigned int cpu,
				      struct tlbgen_mm *mm, unsigned long start,
				      unsigned long len);

/* mprotect()'s prot, as PROT_READ and PROT_WRITE. */
#define TLBGEN_PROT_READ	(1U << 0)
#define TLBGEN_PROT_WRITE	(1U << 1)

/*
 * tlbgen_wl__mprotect - mprotect(start, len, prot) of a mapping of kind
 * `map` (TLBGEN_MAP_*), under mmap_lock for write: change_protection()
 * changes each present PTE, then flushes the range once if it changed
 * one. PROT_READ write-protects. PROT_READ|PROT_WRITE makes a dirty PTE
 * writable where the kernel does so at once (a shared file mapping's; a
 * private one's, an exclusive anonymous page, under the profile's
 * mprotect_writable=exclusive, 64fe24a3e05e), and leaves the others
 * read-only: the next write faults (tlbgen_wl__fault(): a dirty private
 * page is reused without a flush). PROT_NONE is not modelled.
 * Returns 0, or -EINVAL for a bad CPU, mm, range, prot (other than
 * PROT_READ or PROT_READ|PROT_WRITE) or map, and the errors of
 * tlbgen_wl__fault(). Thread-safety: CPU `cpu`'s context, as every
 * tlbgen_wl__*() call.
 */
TLBGEN_API int tlbgen_wl__mprotect(struct tlbgen_wl *wl, unsigned int cpu, struct tlbgen_mm *mm,
				   unsigned long start, unsigned long len, unsigned int prot,
				   unsigned int map);

/*
 * tlbgen_wl__pageout - reclaim of [start, start + len) as MADV_PAGEOUT's
 * shrink_folio_list() does it: try_to_unmap() of each present page with
 * TTU_BATCH_FLUSH (set_tlb_ubc_flush_pending() where the profile's
 * architecture batches, a flush per page where it does not), then
 * try_to_unmap_flush() once; each page unmapped costs a zap. mmap_lock is
 * held for read (madvise_pageout()).
 */
TLBGEN_API int tlbgen_wl__pageout(struct tlbgen_wl *wl, unsigned int cpu, struct tlbgen_mm *mm,
				  unsigned long start, unsigned long len);

/* ---- mmap_lock ---------------------------------------------------------------------- */

/*
 * tlbgen_wl__mmap_read_lock / _read_unlock / _write_lock / _write_unlock -
 * mm->mmap_lock, a FIFO-fair rw_semaphore: every acquire and release is a
 * locked RMW of its count's line; a reader that finds a writer holding or
 * waiting, and a writer that finds any holder, sleeps as
 * tlbgen_wl__sleep() does until the lock is handed to it (readers queued
 * together are woken together, as rwsem_mark_wake() does). Unlocking a
 * lock `cpu` does not hold is -EINVAL. tlbgen_wl__mmap_read_lock returns 1
 * when the run ended while it slept.
 */
TLBGEN_API int tlbgen_wl__mmap_read_lock(struct tlbgen_wl *wl, unsigned int cpu,
					 struct tlbgen_mm *mm);
/* tlbgen_wl__mmap_read_unlock - up_read(): the last reader out hands the
 * lock to the queue's head. */
TLBGEN_API int tlbgen_wl__mmap_read_unlock(struct tlbgen_wl *wl, unsigned int cpu,
					   struct tlbgen_mm *mm);
/* tlbgen_wl__mmap_write_lock - down_write(): 1 when the run ended first. */
TLBGEN_API int tlbgen_wl__mmap_write_lock(struct tlbgen_wl *wl, unsigned int cpu,
					  struct tlbgen_mm *mm);
/* tlbgen_wl__mmap_write_unlock - up_write(): hands the lock on. */
TLBGEN_API int tlbgen_wl__mmap_write_unlock(struct tlbgen_wl *wl, unsigned int cpu,
					    struct tlbgen_mm *mm);

/* ---- the scheduler's side -------------------------------------------------------- */

/*
 * tlbgen_wl__context_switch - schedule() on `cpu` to a task of `next`:
 * switch_mm_irqs_off() to it; `next` NULL is a kernel thread or the idle
 * task, which borrows the previous mm (enter_lazy_tlb()).
 */
TLBGEN_API int tlbgen_wl__context_switch(struct tlbgen_wl *wl, unsigned int cpu,
					 struct tlbgen_mm *next);

/*
 * tlbgen_wl__sleep - the task on `cpu` sleeps until tlbgen_wl__wake()
 * (a wake sent before is kept: it does not sleep), or, in virtual and
 * stepped mode, until the run ends. Its CPU runs the idle task: lazy TLB,
 * then the idle state the governor picks (the deepest of Skylake-SP's C1,
 * C1E and C6 whose target residency the CPU's previous sleep covered);
 * before C6, which loses the TLB (CPUIDLE_FLAG_TLB_FLUSHED), leave_mm().
 * IPIs are taken meanwhile (after the state's exit latency in virtual time).
 * On waking it switches back to the mm it ran. Returns 0 when woken, 1 when
 * the run ended first.
 */
TLBGEN_API int tlbgen_wl__sleep(struct tlbgen_wl *wl, unsigned int cpu);

/*
 * tlbgen_wl__wake - `cpu` wakes the task sleeping on `target`
 * (try_to_wake_up(): a store to the target's need_resched line, no IPI to
 * an MWAIT idle CPU). -EINVAL also for target == cpu or out of range.
 */
TLBGEN_API int tlbgen_wl__wake(struct tlbgen_wl *wl, unsigned int cpu, unsigned int target);

/*
 * tlbgen_wl__user_work - user code between operations: the machine's
 * user_work (n times), burnt or charged as the kernel work is.
 */
TLBGEN_API int tlbgen_wl__user_work(struct tlbgen_wl *wl, unsigned int cpu, unsigned long n);

/* ---- counters ------------------------------------------------------------------------ */

enum tlbgen_wl_stat {
	TLBGEN_WL_STAT_FAULTS = 0,	/* tlbgen_wl__fault() calls */
	TLBGEN_WL_STAT_FAULT_AROUND,	/* PTEs do_fault_around() mapped besides the faulting one */
	TLBGEN_WL_STAT_COW,		/* wp_page_copy()s, each a ptep_clear_flush() */
	TLBGEN_WL_STAT_ZAPS,		/* PTEs cleared by madvise, munmap and pageout */
	TLBGEN_WL_STAT_GATHERS,		/* mmu_gathers finished (tlb_finish_mmu()) */
	TLBGEN_WL_STAT_NESTED,		/* ... flushed whole by mm_tlb_flush_nested() */
	TLBGEN_WL_STAT_MMAP_LOCK_WAITS,	/* mmap_lock acquisitions that slept */
	TLBGEN_WL_STAT_SLEEPS,		/* tlbgen_wl__sleep() periods */
	TLBGEN_WL_STAT_SLEEP_CYCLES,	/* virtual time asleep (virtual mode) */
	TLBGEN_WL_STAT_C6,		/* sleeps in an idle state that lost the TLB */
	/* Since TLBGEN_0.8 (a machine with lru_folio): */
	TLBGEN_WL_STAT_LRU_LOCKS,	/* lru_lock holds: a folio batch moved or put */
	TLBGEN_WL_STAT_LRU_FOLIOS,	/* folios added to or deleted from an LRU in them */
	TLBGEN_WL_STAT_LRU_WAITS,	/* ... holds that first spun behind another CPU's */
	TLBGEN_WL_STAT_NR,
};

/* tlbgen_wl_stat_name - a short name ("nested"), NULL out of range. Thread-safe. */
TLBGEN_API const char *tlbgen_wl_stat_name(enum tlbgen_wl_stat s);

/*
 * tlbgen_wl__stats - counters of `cpu` (-1: every CPU summed) into
 * out[0 .. n), n <= TLBGEN_WL_STAT_NR; returns the number copied or
 * -EINVAL. Racy but tear-free in threaded mode. In virtual time, called
 * from a CPU's program, SLEEP_CYCLES includes each sleep under way up to
 * that CPU's clock.
 */
TLBGEN_API int tlbgen_wl__stats(const struct tlbgen_wl *wl, int cpu, uint64_t *out, size_t n);

#ifdef __cplusplus
}
#endif
#endif
