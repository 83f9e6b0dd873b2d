// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/workload/gather.c - the system calls that unmap: zap_page_range()
 * under an mmu_gather (mm/mmu_gather.c) for madvise(MADV_DONTNEED) and
 * munmap(), change_protection() for mprotect(), and MADV_PAGEOUT's reclaim
 * through try_to_unmap() and the batched unmap (mm/rmap.c, mm/vmscan.c).
 */
#include <errno.h>
#include <string.h>

#include "../base/printk.h"
#include "wl-internal.h"

/*
 * zap_pte_range() of [start, start + len) and tlb_finish_mmu(): the PTEs
 * are cleared under the PTL (a zap's work for each that maps a page of its
 * own: a dirty one), then the range is flushed - or, when another gather
 * of the mm is in flight, mm_tlb_flush_nested() makes it the whole mm with
 * freed_tables (7a30df49f63a), since that gather may have cleared PTEs it
 * has not flushed yet. Otherwise a gather that cleared no PTE (`cleared`:
 * the caller's own zap of the range did) and freed no table flushes
 * nothing: tlb_flush_mmu_tlbonly() returns at once. After the flush the
 * gather frees its folios (tlb_batch_pages_flush()): the anonymous ones
 * the cleared PTEs mapped, and `unseen_anon` more the caller zapped
 * without PTEs of the model's. tlb_gather_mmu() raised
 * mm->tlb_flush_pending before, and it drops after.
 */
int tlbgen__wl_zap_range(struct tlbgen_wl *wl, unsigned int cpu, struct tlbgen_mm *mm,
			 unsigned long start, unsigned long len, bool free_tables, bool cleared,
			 unsigned long unseen_anon)
{
	struct tlbgen_system *sys = wl->sys;
	unsigned long freed = unseen_anon;
	int err;
	bool nested;

	tlbgen__kword_add(sys, cpu, &mm->tlb_flush_pending, 1);
	err = tlbgen__wl_event(wl, cpu, TLBGEN_VT_PTL);
	for (unsigned long a = start; !err && a < start + len; a += TLBGEN_PAGE_SIZE) {
		int pte = tlbgen_pte__flags(mm, a);

		if (pte < 0 || (pte & TLBGEN_PTEF_NONE))
			continue;
		freed += tlbgen__pte_take_anon(&mm->priv.ptes[a >> TLBGEN_PAGE_SHIFT]);
		err = tlbgen_pte_set(sys, cpu, mm, a, TLBGEN_PTEF_NONE);
		cleared = true;
		tlbgen__wl_count(wl, cpu, TLBGEN_WL_STAT_ZAPS, 1);
		if (!err && (pte & TLBGEN_PTEF_DIRTY))
			err = tlbgen__wl_event(wl, cpu, TLBGEN_VT_ZAP);
	}
	if (err)
		return err;
	nested = tlbgen__kword_read(sys, cpu, &mm->tlb_flush_pending) > 1;
	tlbgen__wl_count(wl, cpu, TLBGEN_WL_STAT_GATHERS, 1);
	if (nested) {
		tlbgen__wl_count(wl, cpu, TLBGEN_WL_STAT_NESTED, 1);
		err = tlbgen__wl_flush(wl, cpu, mm, 0, TLBGEN_TLB_FLUSH_ALL, true);
	} else if (cleared || free_tables) {
		err = tlbgen__wl_flush(wl, cpu, mm, start, start + len, free_tables);
	}
	if (!err)
		err = tlbgen__wl_lru_free(wl, cpu, freed);
	tlbgen__kword_add(sys, cpu, &mm->tlb_flush_pending, -1);
	return err;
}

TLBGEN_API int tlbgen_wl__madvise_dontneed(struct tlbgen_wl *wl, unsigned int cpu,
					   struct tlbgen_mm *mm, unsigned long start,
					   unsigned long len)
{
	int err = tlbgen__wl_check_range(wl, cpu, mm, start, len);

	if (!err)
		err = tlbgen__wl_event(wl, cpu, TLBGEN_VT_SYSCALL);
	if (!err)
		err = tlbgen__wl_down_read(wl, cpu, mm);
	if (err)
		return err;	/* 1: the run ended while it slept on the lock */
	/* zap_page_range_single()'s lru_add_drain(), until 1aa43598c03b */
	err = tlbgen__wl_lru_drain(wl, cpu);
	if (!err)
		err = tlbgen__wl_zap_range(wl, cpu, mm, start, len, false, false, 0);
	return err ? err : tlbgen__wl_up_read(wl, cpu, mm);
}

/*
 * The pages the caller maps without PTEs of the model's own: their
 * zap_pte_range() work, in the same place under the lock. Dirty file pages
 * under zap_delay_rmap (5df397dec7c4) force a flush of each PTE table's
 * range before its PTL is dropped, inside the gather (tlb_flush_pending
 * raised); otherwise the gather's one flush at the end covers them.
 */
#define PMD_PAGES	512UL	/* one PTE table of 4K pages (x86-64, arm64) */

static int zap_unseen(struct tlbgen_wl *wl, unsigned int cpu, struct tlbgen_mm *mm,
		      unsigned long start, const struct tlbgen_wl_munmap_opts *o)
{
	struct tlbgen_system *sys = wl->sys;
	unsigned long a = start, left = o->unseen_pages;
	int err = 0;

	if (!o->unseen_dirty_file || !sys->profile.zap_delay_rmap)
		return tlbgen__wl_events(wl, cpu, TLBGEN_VT_ZAP_BATCHED, left);
	tlbgen__kword_add(sys, cpu, &mm->tlb_flush_pending, 1);
	while (!err && left) {
		unsigned long in_pmd = PMD_PAGES - ((a >> TLBGEN_PAGE_SHIFT) & (PMD_PAGES - 1));
		unsigned long n = left < in_pmd ? left : in_pmd;

		err = tlbgen__wl_events(wl, cpu, TLBGEN_VT_ZAP_BATCHED, n);
		if (!err)
			err = tlbgen__wl_flush(wl, cpu, mm, a, a + (n << TLBGEN_PAGE_SHIFT), false);
		a += n << TLBGEN_PAGE_SHIFT;
		left -= n;
	}
	tlbgen__kword_add(sys, cpu, &mm->tlb_flush_pending, -1);
	return err;
}

TLBGEN_API int tlbgen_wl__munmap_opts(struct tlbgen_wl *wl, unsigned int cpu,
				      struct tlbgen_mm *mm, unsigned long start, unsigned long len,
				      const struct tlbgen_wl_munmap_opts *opts)
{
	struct tlbgen_wl_munmap_opts o = { 0 };
	int err = tlbgen__wl_check_range(wl, cpu, mm, start, len);

	if (!err && (!opts || TLBGEN_OPTS_VALID(opts, tlbgen_wl_munmap_opts, unseen_anon)))
		err = -EINVAL;
	if (err)
		return err;
	TLBGEN_OPTS_COPY(&o, opts);
	if (o.unseen_pages > len >> TLBGEN_PAGE_SHIFT || (o.unseen_anon && o.unseen_dirty_file))
		return -EINVAL;
	err = tlbgen__wl_event(wl, cpu, TLBGEN_VT_SYSCALL);
	if (!err)
		err = tlbgen__wl_down_write(wl, cpu, mm);
	if (err)
		return err;
	/*
	 * The VMA's teardown (detach, unmap_region(), remove_vma()): no figure
	 * of its own, charged as one zap (an estimate, as mmap()'s setup is one
	 * fault's work), under the write lock as its detach is. Then, as the
	 * munmap() syscall has done since dd2283f2605e (v4.20; choice
	 * munmap_lock), the lock is downgraded to read before unmap_region():
	 * the PTEs' zaps, one per page it freed, and their flush run beside the
	 * mm's readers.
	 */
	bool downgrade = wl->sys->profile.munmap_downgrade;

	err = tlbgen__wl_event(wl, cpu, TLBGEN_VT_ZAP);
	if (!err && downgrade)
		err = tlbgen__wl_downgrade_write(wl, cpu, mm);
	/* unmap_region()'s lru_add_drain(), until 1aa43598c03b */
	if (!err)
		err = tlbgen__wl_lru_drain(wl, cpu);
	if (!err && o.unseen_pages)
		err = zap_unseen(wl, cpu, mm, start, &o);
	if (!err)
		err = tlbgen__wl_zap_range(wl, cpu, mm, start, len, o.free_tables,
					   o.unseen_pages > 0, o.unseen_anon ? o.unseen_pages : 0);
	if (err)
		return err;
	return downgrade ? tlbgen__wl_up_read(wl, cpu, mm) : tlbgen__wl_up_write(wl, cpu, mm);
}

TLBGEN_API int tlbgen_wl__munmap(struct tlbgen_wl *wl, unsigned int cpu, struct tlbgen_mm *mm,
				 unsigned long start, unsigned long len, bool free_tables)
{
	TLBGEN_OPTS(tlbgen_wl_munmap_opts, o, .free_tables = free_tables);

	return tlbgen_wl__munmap_opts(wl, cpu, mm, start, len, &o);
}

TLBGEN_API int tlbgen_wl__mmap(struct tlbgen_wl *wl, unsigned int cpu, struct tlbgen_mm *mm)
{
	int err = tlbgen__wl_check(wl, cpu);

	if (!err && (!tlbgen__mm_valid(wl->sys, mm) || mm == wl->sys->init_mm))
		err = -EINVAL;
	if (!err)
		err = tlbgen__wl_event(wl, cpu, TLBGEN_VT_SYSCALL);
	if (!err)
		err = tlbgen__wl_down_write(wl, cpu, mm);
	if (err)
		return err;
	/* The VMA's setup: no figure of its own, charged as a fault's work. */
	err = tlbgen__wl_event(wl, cpu, TLBGEN_VT_PAGE_FAULT);
	return err ? err : tlbgen__wl_up_write(wl, cpu, mm);
}

/*
 * change_pte_range()'s new PTE for a present `pte` under `prot`: write-
 * protected for PROT_READ; for PROT_READ|PROT_WRITE made writable where
 * the kernel does it at once (a shared file's dirty page, dirty_accountable;
 * an exclusive anonymous page under 64fe24a3e05e), else left read-only for
 * the next write's fault.
 */
static unsigned int mprotect_pte(const struct tlbgen_wl *wl, unsigned int pte, unsigned int prot,
				 unsigned int map)
{
	bool shared = (map & (TLBGEN_MAP_FILE | TLBGEN_MAP_SHARED)) ==
		      (TLBGEN_MAP_FILE | TLBGEN_MAP_SHARED);

	if (!(prot & TLBGEN_PROT_WRITE))
		return pte & ~TLBGEN_PTEF_WRITE;
	if ((pte & TLBGEN_PTEF_DIRTY) && (shared || wl->sys->profile.mprotect_anon_writable))
		return pte | TLBGEN_PTEF_WRITE;
	return pte;
}

TLBGEN_API int tlbgen_wl__mprotect(struct tlbgen_wl *wl, unsigned int cpu, struct tlbgen_mm *mm,
				   unsigned long start, unsigned long len, unsigned int prot,
				   unsigned int map)
{
	struct tlbgen_system *sys = wl->sys;
	int err = tlbgen__wl_check_range(wl, cpu, mm, start, len);
	bool changed = false;

	if (!err && (prot != TLBGEN_PROT_READ && prot != (TLBGEN_PROT_READ | TLBGEN_PROT_WRITE)))
		err = -EINVAL;
	if (!err && ((map & ~(TLBGEN_MAP_FILE | TLBGEN_MAP_SHARED)) || map == TLBGEN_MAP_SHARED))
		err = -EINVAL;
	if (!err)
		err = tlbgen__wl_event(wl, cpu, TLBGEN_VT_SYSCALL);
	if (!err)
		err = tlbgen__wl_down_write(wl, cpu, mm);
	if (err)
		return err;
	err = tlbgen__wl_event(wl, cpu, TLBGEN_VT_PTL);
	for (unsigned long a = start; !err && a < start + len; a += TLBGEN_PAGE_SIZE) {
		int pte = tlbgen_pte__flags(mm, a);
		unsigned int next;

		if (pte < 0 || (pte & TLBGEN_PTEF_NONE))
			continue;
		next = mprotect_pte(wl, (unsigned int)pte, prot, map);
		if (next == (unsigned int)pte)
			continue;
		err = tlbgen_pte_set(sys, cpu, mm, a, next);
		changed = true;
	}
	/*
	 * change_protection() flushes only when it changed a PTE: on x86 any
	 * change of _PAGE_RW needs one (pte_needs_flush(), c9fe66560bf2, as
	 * before it every change did). powerpc radix's, which skips a pure
	 * promotion, is not modelled.
	 */
	if (!err && changed)
		err = tlbgen__wl_flush(wl, cpu, mm, start, start + len, false);
	return err ? err : tlbgen__wl_up_write(wl, cpu, mm);
}

TLBGEN_API int tlbgen_wl__mprotect_ro(struct tlbgen_wl *wl, unsigned int cpu,
				      struct tlbgen_mm *mm, unsigned long start,
				      unsigned long len)
{
	return tlbgen_wl__mprotect(wl, cpu, mm, start, len, TLBGEN_PROT_READ, TLBGEN_MAP_ANON);
}

/* The simulated PTE's bits after a change the oracle already has. */
static void pte_set_none(struct tlbgen_mm *mm, unsigned long addr)
{
	struct tlbgen_pte *p = &mm->priv.ptes[addr >> TLBGEN_PAGE_SHIFT];

	tlbgen__pte_lock(p);
	tlbgen__pte_set_flags(p, TLBGEN_PTEF_NONE);
	tlbgen__pte_unlock(p);
}

TLBGEN_API int tlbgen_wl__pageout(struct tlbgen_wl *wl, unsigned int cpu, struct tlbgen_mm *mm,
				  unsigned long start, unsigned long len)
{
	struct tlbgen_system *sys = wl->sys;
	struct tlbgen_unmap_batch *ubc = NULL;
	int err = tlbgen__wl_check_range(wl, cpu, mm, start, len);

	if (!err)
		err = tlbgen__wl_event(wl, cpu, TLBGEN_VT_SYSCALL);
	if (!err)
		err = tlbgen_unmap_batch__create(sys, &ubc);
	if (!err)
		err = tlbgen__wl_down_read(wl, cpu, mm);
	if (err) {
		tlbgen_unmap_batch__destroy(ubc);
		return err;
	}
	for (unsigned long a = start; !err && a < start + len; a += TLBGEN_PAGE_SIZE) {
		int pte = tlbgen_pte__flags(mm, a);

		if (pte < 0 || (pte & TLBGEN_PTEF_NONE))
			continue;
		/* try_to_unmap_one() clears the PTE itself (the oracle's change). */
		err = tlbgen_try_to_unmap_one(sys, cpu, ubc, mm, a, TLBGEN_TTU_BATCH_FLUSH,
					      TLBGEN_PTE_ACCESSIBLE |
					      (pte & TLBGEN_PTEF_DIRTY ? TLBGEN_PTE_DIRTY : 0));
		if (err >= 0)
			pte_set_none(mm, a);
		if (err >= 0)
			err = tlbgen__wl_settle(wl, cpu) ?: err;
		tlbgen__wl_count(wl, cpu, TLBGEN_WL_STAT_ZAPS, 1);
		if (err >= 0)
			err = tlbgen__wl_event(wl, cpu, TLBGEN_VT_ZAP);
	}
	/* shrink_folio_list(): try_to_unmap_flush() before the pages go. */
	if (err >= 0)
		err = tlbgen_try_to_unmap_flush(sys, cpu, ubc);
	if (err >= 0)
		err = tlbgen__wl_settle(wl, cpu) ?: err;
	if (err >= 0)
		err = tlbgen__wl_up_read(wl, cpu, mm);
	tlbgen_unmap_batch__destroy(ubc);
	return err < 0 ? err : 0;
}
