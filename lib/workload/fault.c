// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/workload/fault.c - a user page fault, from the arch handler to the
 * retried access: do_user_addr_fault() takes mmap_lock (or, where the
 * profile's vma_lock_fault lets this kind of fault finish under it, only
 * the VMA's lock: lock_vma_under_rcu(), 0bff0aaea03e), and
 * handle_mm_fault() maps the page as mm/memory.c does for the VMA's kind:
 * do_read_fault() with do_fault_around(), do_anonymous_page(), and
 * do_wp_page() -> wp_page_copy(), whose ptep_clear_flush() is the flush
 * will-it-scale's private file tests pay on every write but a block's first.
 */
#include <errno.h>

#include "wl-internal.h"

#define PTE_PRESENT_RO	TLBGEN_PTEF_YOUNG
#define PTE_WRITABLE	(TLBGEN_PTEF_WRITE | TLBGEN_PTEF_DIRTY | TLBGEN_PTEF_YOUNG)

static struct tlbgen_pte *pte_of(struct tlbgen_mm *mm, unsigned long addr)
{
	return &mm->priv.ptes[addr >> TLBGEN_PAGE_SHIFT];
}

/* A new anonymous folio mapped writable (do_anonymous_page(),
 * do_cow_fault(), wp_page_copy()): folio_add_lru_vma() puts it in the
 * CPU's lru_add batch. Every other mapping here is of a none PTE, whose
 * mark tlbgen_pte_set() cleared. */
static int map_new_anon(struct tlbgen_wl *wl, unsigned int cpu, struct tlbgen_mm *mm,
			unsigned long addr)
{
	int err = tlbgen_pte_set(wl->sys, cpu, mm, addr, PTE_WRITABLE);

	if (err)
		return err;
	tlbgen__pte_set_anon(pte_of(mm, addr), true);
	return tlbgen__wl_lru_add(wl, cpu);
}

/*
 * do_fault_around(): the page-cache pages of the aligned block around
 * `addr` whose PTEs are none, mapped read-only (filemap_map_pages()); the
 * faulting page is among them.
 */
static int fault_around(struct tlbgen_wl *wl, unsigned int cpu, struct tlbgen_mm *mm,
			unsigned long addr)
{
	unsigned long block = wl->o.fault_around_pages;
	unsigned long vpn = addr >> TLBGEN_PAGE_SHIFT, first = vpn & ~(block - 1);
	int err = 0;

	for (unsigned long p = first; !err && p < first + block && p < mm->priv.nr_pages; p++) {
		unsigned long a = p << TLBGEN_PAGE_SHIFT;

		if (!(tlbgen_pte__flags(mm, a) & TLBGEN_PTEF_NONE))
			continue;
		err = tlbgen_pte_set(wl->sys, cpu, mm, a, PTE_PRESENT_RO);
		if (!err && p != vpn)
			tlbgen__wl_count(wl, cpu, TLBGEN_WL_STAT_FAULT_AROUND, 1);
	}
	return err;
}

/* wp_page_copy(): ptep_clear_flush() of the read-only PTE, then the copy. */
static int wp_page_copy(struct tlbgen_wl *wl, unsigned int cpu, struct tlbgen_mm *mm,
			unsigned long addr)
{
	int err = tlbgen_pte_set(wl->sys, cpu, mm, addr, TLBGEN_PTEF_NONE);

	tlbgen__wl_count(wl, cpu, TLBGEN_WL_STAT_COW, 1);
	if (!err)
		err = tlbgen__wl_flush(wl, cpu, mm, addr, addr + TLBGEN_PAGE_SIZE, false);
	return err ? err : map_new_anon(wl, cpu, mm, addr);
}

/* handle_mm_fault() for the PTE as it is now. */
static int handle_fault(struct tlbgen_wl *wl, unsigned int cpu, struct tlbgen_mm *mm,
			unsigned long addr, unsigned int map, bool write)
{
	int pte = tlbgen_pte__flags(mm, addr);

	if (pte < 0)
		return pte;
	if (pte & TLBGEN_PTEF_NONE) {
		if (write && (map & TLBGEN_MAP_SHARED))	/* do_shared_fault() */
			return tlbgen_pte_set(wl->sys, cpu, mm, addr, PTE_WRITABLE);
		if (write)	/* do_anonymous_page(), do_cow_fault() */
			return map_new_anon(wl, cpu, mm, addr);
		if (map & TLBGEN_MAP_FILE)
			return fault_around(wl, cpu, mm, addr);
		return tlbgen_pte_set(wl->sys, cpu, mm, addr, PTE_PRESENT_RO);	/* zero page */
	}
	if (!write || (pte & TLBGEN_PTEF_WRITE))
		return 0;	/* present and sufficient: a spurious fault */
	if ((map & (TLBGEN_MAP_FILE | TLBGEN_MAP_SHARED)) == (TLBGEN_MAP_FILE | TLBGEN_MAP_SHARED))
		return tlbgen_pte_set(wl->sys, cpu, mm, addr, (unsigned int)pte | PTE_WRITABLE);
	/*
	 * do_wp_page() reuses an exclusive anonymous page (wp_page_reuse():
	 * the PTE made writable, no flush on x86). A dirty read-only private
	 * PTE is one: the page was written, then write-protected by
	 * mprotect() (the model has no fork() to share it).
	 */
	if (pte & TLBGEN_PTEF_DIRTY)
		return tlbgen_pte_set(wl->sys, cpu, mm, addr, (unsigned int)pte | PTE_WRITABLE);
	return wp_page_copy(wl, cpu, mm, addr);
}

/*
 * Whether the fault finishes under the VMA's lock alone. Where it may not,
 * the kernel returns VM_FAULT_RETRY from under the VMA lock and redoes the
 * fault under mmap_lock; the VMA lock of a VMA no other CPU touches costs
 * the model nothing, so only mmap_lock is charged.
 */
static bool fault_vma_locked(struct tlbgen_wl *wl, struct tlbgen_mm *mm, unsigned long addr,
			     unsigned int map, bool write)
{
	enum tlbgen_vma_lock_fault v = wl->sys->profile.vma_lock_fault;
	int pte;

	if (v == VMA_LOCK_FAULT_NONE)
		return false;
	if (!(map & TLBGEN_MAP_FILE) || v == VMA_LOCK_FAULT_ALL)
		return true;
	/* 4ed4379881aa: do_shared_fault(), a write to a none PTE of a shared file */
	pte = tlbgen_pte__flags(mm, addr);
	return v == VMA_LOCK_FAULT_ANON_SHARED && (map & TLBGEN_MAP_SHARED) && write && pte >= 0 &&
	       (pte & TLBGEN_PTEF_NONE);
}

TLBGEN_API int tlbgen_wl__fault(struct tlbgen_wl *wl, unsigned int cpu, struct tlbgen_mm *mm,
				unsigned long addr, unsigned int map, unsigned int flags)
{
	int err = tlbgen__wl_check_range(wl, cpu, mm, addr & ~(TLBGEN_PAGE_SIZE - 1),
					 TLBGEN_PAGE_SIZE);
	bool vma_lock;

	if (err)
		return err;
	if ((map & ~(TLBGEN_MAP_FILE | TLBGEN_MAP_SHARED)) || map == TLBGEN_MAP_SHARED ||
	    (flags & ~TLBGEN_WL_FAULT_WRITE))
		return -EINVAL;
	vma_lock = fault_vma_locked(wl, mm, addr, map, flags & TLBGEN_WL_FAULT_WRITE);
	tlbgen__wl_count(wl, cpu, TLBGEN_WL_STAT_FAULTS, 1);
	/* x86's exc_page_fault() prefetchw(&current->mm->mmap_lock), until
	 * 1701771d3069: under the VMA lock too, every faulting CPU of the mm
	 * pulls the line from the last. */
	if (wl->sys->profile.fault_prefetchw && wl->sys->profile.fault_arch == FAULT_ARCH_X86 &&
	    wl->sys->profile.batch_arch == BATCH_ARCH_X86)
		tlbgen__kword_prefetchw(wl->sys, cpu, &mm->mmap_lock.count);
	if (!vma_lock)
		err = tlbgen__wl_down_read(wl, cpu, mm);
	if (!err)
		err = tlbgen__wl_event(wl, cpu, TLBGEN_VT_PAGE_FAULT);
	if (!err)
		err = handle_fault(wl, cpu, mm, addr, map, flags & TLBGEN_WL_FAULT_WRITE);
	if (!err && !vma_lock)
		err = tlbgen__wl_up_read(wl, cpu, mm);
	if (!err) {
		/* The retried access walks the page table and fills the TLB; no
		 * simulated TLB without the oracle. */
		err = tlbgen_access(wl->sys, cpu, addr);
		err = err == -EOPNOTSUPP || err > 0 ? 0 : err;
	}
	return err;
}
