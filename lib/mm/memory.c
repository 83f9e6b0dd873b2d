// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/mm/memory.c - handle_pte_fault()'s tail and the spurious-fault TLB flush
 * (mm/memory.c), on the simulated page table of an mm.
 *
 * The rule that matters (b7333b58f358, "mm/memory.c: skip spurious TLB
 * flush for retried page fault"): when ptep_set_access_flags() finds nothing
 * to change, a FAULT_FLAG_TRIED fault returns without
 * flush_tlb_fix_spurious_fault(); the PTE has still been made young (and
 * dirty for a write) first. Linus NACKed the earlier version that skipped
 * the mkdirty/update too, so the two are kept apart here.
 */
#include <errno.h>

#include "../core/access.h"
#include "../core/check.h"
#include "../core/irqflags.h"
#include "../observers/simtlb.h"
#include "../arch/arch.h"
#include "../arch/arm64/tlbflush.h"
#include "../arch/riscv/tlbflush.h"
#include "../arch/x86/mm/tlb.h"

#define KNOWN_FLAGS (TLBGEN_FAULT_FLAG_WRITE | TLBGEN_FAULT_FLAG_MKWRITE | \
		     TLBGEN_FAULT_FLAG_ALLOW_RETRY | TLBGEN_FAULT_FLAG_RETRY_NOWAIT | \
		     TLBGEN_FAULT_FLAG_KILLABLE | TLBGEN_FAULT_FLAG_TRIED | \
		     TLBGEN_FAULT_FLAG_USER | TLBGEN_FAULT_MODEL_THROTTLE)
#define PTE_BITS (TLBGEN_PTEF_NONE | TLBGEN_PTEF_WRITE | TLBGEN_PTEF_DIRTY | TLBGEN_PTEF_YOUNG)

static const char *const fault_stat_names[TLBGEN_FAULT_STAT_NR] = {
	[TLBGEN_FAULT_STAT_FAULTS] = "faults",
	[TLBGEN_FAULT_STAT_WRITE] = "write",
	[TLBGEN_FAULT_STAT_TRIED] = "tried",
	[TLBGEN_FAULT_STAT_INSTALL] = "install",
	[TLBGEN_FAULT_STAT_RETURN_RETRY] = "vm_fault_retry",
	[TLBGEN_FAULT_STAT_WP] = "do_wp_page",
	[TLBGEN_FAULT_STAT_CHANGED] = "access_flags_changed",
	[TLBGEN_FAULT_STAT_UNCHANGED] = "access_flags_unchanged",
	[TLBGEN_FAULT_STAT_SKIP_TRIED] = "skip_tried",
	[TLBGEN_FAULT_STAT_SPURIOUS] = "spurious",
	[TLBGEN_FAULT_STAT_SPURIOUS_FLUSH] = "spurious_flush",
	[TLBGEN_FAULT_STAT_SPURIOUS_RETRIED] = "spurious_on_retry",
	[TLBGEN_FAULT_STAT_ACCESS_FLUSH] = "access_flags_flush",
	[TLBGEN_FAULT_STAT_UPDATE_MMU_CACHE] = "update_mmu_cache",
	[TLBGEN_FAULT_STAT_SFENCE_VMA] = "umc_sfence_vma",
	[TLBGEN_FAULT_STAT_SINVAL_VMA] = "umc_sinval_vma",
};

TLBGEN_API const char *tlbgen_fault_stat_name(enum tlbgen_fault_stat s)
{
	return (unsigned int)s < TLBGEN_FAULT_STAT_NR ? fault_stat_names[s] : NULL;
}

static void fcount(struct tlbgen_system *sys, unsigned int cpu, enum tlbgen_fault_stat s)
{
	tlbgen__stat_add(&tlbgen__cpu(sys, cpu)->cost.faults[s], 1);
}

static bool addr_valid(const struct tlbgen_mm *mm, unsigned long addr)
{
	return (addr >> TLBGEN_PAGE_SHIFT) < mm->priv.nr_pages;
}

TLBGEN_API int tlbgen_pte__flags(const struct tlbgen_mm *mm, unsigned long addr)
{
	if (!tlbgen__mm_ok(mm) || !addr_valid(mm, addr))
		return -EINVAL;
	return (int)tlbgen__pte_flags(&mm->priv.ptes[addr >> TLBGEN_PAGE_SHIFT],
				      memory_order_acquire);
}

/* A new translation for the oracle: present <-> none, or write taken away. */
static bool translation_changes(unsigned int old, unsigned int new)
{
	return ((old ^ new) & TLBGEN_PTEF_NONE) ||
	       ((old & TLBGEN_PTEF_WRITE) && !(new & TLBGEN_PTEF_WRITE));
}

TLBGEN_API int tlbgen_pte_set(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_mm *mm,
			      unsigned long addr, unsigned int flags)
{
	struct tlbgen_pte *p;
	unsigned int old;

	if (!tlbgen__sys_valid(sys) || cpu >= sys->nr_cpus || !tlbgen__mm_valid(sys, mm) ||
	    mm == sys->init_mm || !addr_valid(mm, addr) || (flags & ~PTE_BITS))
		return -EINVAL;
	if (flags & TLBGEN_PTEF_NONE)
		flags = TLBGEN_PTEF_NONE;	/* ptep_get_and_clear(): nothing else survives */
	p = &mm->priv.ptes[addr >> TLBGEN_PAGE_SHIFT];
	old = tlbgen__pte_flags(p, memory_order_relaxed);
	if (translation_changes(old, flags))
		tlbgen_pte_change(sys, cpu, mm, addr);	/* bumps the version under the lock */
	tlbgen__pte_lock(p);
	tlbgen__pte_set_flags(p, flags);
	tlbgen__pte_unlock(p);
	/* A cleared PTE maps no folio of its own any more. */
	if (flags & TLBGEN_PTEF_NONE)
		tlbgen__pte_set_anon(p, false);
	return 0;
}

/* One page of mm on this CPU only, if it runs mm. */
static void local_flush_page(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_mm *mm,
			     unsigned long addr)
{
	if (tlbgen__this_loaded_mm(sys, cpu) != mm)
		return;
	tlbgen__local_irq_disable(sys, cpu);
	tlbgen__tlb_flush_one(sys, cpu, tlbgen__this_loaded_mm_asid(sys, cpu),
			      addr & ~(TLBGEN_PAGE_SIZE - 1), TLBGEN_PAGE_SHIFT);
	tlbgen__count(sys, cpu, mm, TLBGEN_STAT_PAGES_INVALIDATED);
	tlbgen__local_irq_enable(sys, cpu);
}

/* arm64 local_flush_tlb_page(): TLBI VALE1 (not IS) + DSB NSH (cb1fa2e99955). */
static void arm64_local_flush_page(struct tlbgen_system *sys, unsigned int cpu,
				   struct tlbgen_mm *mm, unsigned long addr)
{
	tlbgen__count(sys, cpu, mm, TLBGEN_STAT_TLBI);
	tlbgen__count(sys, cpu, mm, TLBGEN_STAT_DSB);
	local_flush_page(sys, cpu, mm, addr);
}

/*
 * flush_tlb_fix_spurious_fault(vma, address, ptep) of the profile's
 * fault_arch. arm64's is a no-op from v5.10 (broadcast TLBIs leave no
 * stale entry to fix) until cb1fa2e99955 made the write fault's own flush
 * local, after which it is local_flush_tlb_page_nonotify().
 */
static void flush_tlb_fix_spurious_fault(struct tlbgen_system *sys, unsigned int cpu,
					 struct tlbgen_mm *mm, unsigned long addr, bool tried)
{
	fcount(sys, cpu, TLBGEN_FAULT_STAT_SPURIOUS);
	if (tried)
		fcount(sys, cpu, TLBGEN_FAULT_STAT_SPURIOUS_RETRIED);
	if (sys->profile.fault_arch == FAULT_ARCH_ARM64) {
		/*
		 * Before v5.10 arm64 had no hook of its own: the generic one is
		 * flush_tlb_page(), a broadcast TLBI VALE1IS + DSB ISH (no IPI);
		 * Will Deacon's "Make flush_tlb_fix_spurious_fault() a no-op"
		 * is noop here, Catalin Marinas's July 2020 proposal local.
		 */
		if (sys->profile.arm64_fault_local || sys->profile.spurious_hook == TLBGEN_SPURIOUS_LOCAL) {
			fcount(sys, cpu, TLBGEN_FAULT_STAT_SPURIOUS_FLUSH);
			arm64_local_flush_page(sys, cpu, mm, addr);
		} else if (sys->profile.spurious_hook == TLBGEN_SPURIOUS_GENERIC) {
			fcount(sys, cpu, TLBGEN_FAULT_STAT_SPURIOUS_FLUSH);
			tlbgen__arm64_arch_ops.flush_tlb_page(sys, cpu, mm, addr);
		}
		return;
	}
	switch (sys->profile.spurious_hook) {
	case TLBGEN_SPURIOUS_GENERIC:
		/* include/linux/pgtable.h: flush_tlb_page(), i.e. a cross-CPU
		 * flush_tlb_mm_range() of one page ("completely insane" - Linus). */
		fcount(sys, cpu, TLBGEN_FAULT_STAT_SPURIOUS_FLUSH);
		tlbgen_flush_tlb_page(sys, cpu, mm, addr);
		break;
	case TLBGEN_SPURIOUS_LOCAL:
		/* Catalin Marinas, July 2020: keep the flush but local only. */
		fcount(sys, cpu, TLBGEN_FAULT_STAT_SPURIOUS_FLUSH);
		local_flush_page(sys, cpu, mm, addr);
		break;
	case TLBGEN_SPURIOUS_NOOP:
	default:
		/* x86 re-walks the page table before it raises a fault. */
		break;
	}
}

/* riscv: update_mmu_cache() after a PTE was set (lib/arch/riscv/tlbflush.c). */
static void riscv_update_mmu_cache(struct tlbgen_system *sys, unsigned int cpu,
				   struct tlbgen_mm *mm, unsigned long addr)
{
	if (sys->profile.fault_arch != FAULT_ARCH_RISCV)
		return;
	fcount(sys, cpu, TLBGEN_FAULT_STAT_UPDATE_MMU_CACHE);
	fcount(sys, cpu, tlbgen__riscv_update_mmu_cache(sys, cpu, mm, addr) ?
		    TLBGEN_FAULT_STAT_SINVAL_VMA : TLBGEN_FAULT_STAT_SFENCE_VMA);
}

/*
 * The kernel runs the hook under the PTL. The model cannot hold it across
 * a flush that waits for other CPUs: in stepped mode the wait ends after
 * this call returns, and a spinning CPU here services no IPI. Only the
 * x86-style cross-CPU flush_tlb_page() waits; every other hook (none,
 * local, arm64's broadcast TLBI + DSB) runs under the lock.
 */
static bool hook_waits_for_others(const struct tlbgen_system *sys)
{
	return sys->profile.fault_arch != FAULT_ARCH_ARM64 &&
	       sys->profile.spurious_hook == TLBGEN_SPURIOUS_GENERIC;
}

/*
 * ptep_set_access_flags() changed the PTE, PTL held: what the arch does
 * after the update. x86's version flushes nothing (the CPU re-walks);
 * arm64's invalidates a stale read-only entry on a write fault, with
 * flush_tlb_page() (TLBI VALE1IS + DSB ISH: every CPU, no IPI) from v5.10,
 * locally since cb1fa2e99955; the generic one calls the hook.
 * Returns true if it dropped the PTL.
 */
static bool access_flags_changed(struct tlbgen_system *sys, unsigned int cpu,
				 struct tlbgen_mm *mm, unsigned long addr, bool write,
				 struct tlbgen_pte *p)
{
	switch (sys->profile.fault_arch) {
	case FAULT_ARCH_ARM64:
		if (!write)
			return false;
		fcount(sys, cpu, TLBGEN_FAULT_STAT_ACCESS_FLUSH);
		if (sys->profile.arm64_fault_local)
			arm64_local_flush_page(sys, cpu, mm, addr);
		else
			tlbgen__arm64_arch_ops.flush_tlb_page(sys, cpu, mm, addr);
		return false;
	case FAULT_ARCH_GENERIC:
		fcount(sys, cpu, TLBGEN_FAULT_STAT_ACCESS_FLUSH);
		if (hook_waits_for_others(sys)) {
			tlbgen__pte_unlock(p);
			flush_tlb_fix_spurious_fault(sys, cpu, mm, addr, false);
			return true;
		}
		flush_tlb_fix_spurious_fault(sys, cpu, mm, addr, false);
		return false;
	case FAULT_ARCH_RISCV:
		/* ptep_set_access_flags() flushes nothing; handle_pte_fault() then
		 * calls update_mmu_cache_range(). */
		riscv_update_mmu_cache(sys, cpu, mm, addr);
		return false;
	case FAULT_ARCH_X86:
	default:
		return false;
	}
}

TLBGEN_API int tlbgen_handle_mm_fault(struct tlbgen_system *sys, unsigned int cpu,
				      struct tlbgen_mm *mm, unsigned long addr,
				      unsigned int flags)
{
	bool write = flags & TLBGEN_FAULT_FLAG_WRITE, tried = flags & TLBGEN_FAULT_FLAG_TRIED;
	unsigned int orig, entry;
	struct tlbgen_pte *p;
	int err = tlbgen__check_initiator(sys, cpu);

	if (err)
		return err;
	if (!tlbgen__mm_valid(sys, mm) || mm == sys->init_mm || !addr_valid(mm, addr) ||
	    (flags & ~KNOWN_FLAGS))
		return -EINVAL;
	if (sys->profile.fault_arch == FAULT_ARCH_ARM64) {
		/* arm64's broadcast TLBI edits remote simulated TLBs. */
		err = tlbgen__arm64_arch_ops.supported(sys);
		if (err)
			return err;
	}
	fcount(sys, cpu, TLBGEN_FAULT_STAT_FAULTS);
	if (write)
		fcount(sys, cpu, TLBGEN_FAULT_STAT_WRITE);
	if (tried)
		fcount(sys, cpu, TLBGEN_FAULT_STAT_TRIED);
	p = &mm->priv.ptes[addr >> TLBGEN_PAGE_SHIFT];

	orig = tlbgen__pte_flags(p, memory_order_acquire);
	if (orig & TLBGEN_PTEF_NONE) {
		/* do_fault() -> do_shared_fault()/do_read_fault(): install. */
		tlbgen_pte_change(sys, cpu, mm, addr);
		tlbgen__pte_lock(p);
		if (!(tlbgen__pte_flags(p, memory_order_relaxed) & TLBGEN_PTEF_NONE)) {
			/* Lost a race: !pte_same() in finish_fault(), nothing to do. */
			tlbgen__pte_unlock(p);
			return 0;
		}
		tlbgen__pte_set_flags(p, TLBGEN_PTEF_YOUNG |
				      (write ? TLBGEN_PTEF_WRITE | TLBGEN_PTEF_DIRTY : 0));
		/* finish_fault() -> set_pte_range() -> update_mmu_cache_range() */
		riscv_update_mmu_cache(sys, cpu, mm, addr);
		tlbgen__pte_unlock(p);
		fcount(sys, cpu, TLBGEN_FAULT_STAT_INSTALL);
		/*
		 * fault_dirty_shared_page() after 89b15332af7c: with
		 * ALLOW_RETRY on the first attempt (and not RETRY_NOWAIT) the
		 * mmap lock is dropped for balance_dirty_pages() and the fault
		 * returns VM_FAULT_RETRY even though the PTE is in place.
		 */
		if (write && sys->profile.fault_dirty_retry && (flags & TLBGEN_FAULT_MODEL_THROTTLE) &&
		    (flags & TLBGEN_FAULT_FLAG_ALLOW_RETRY) && !tried &&
		    !(flags & TLBGEN_FAULT_FLAG_RETRY_NOWAIT)) {
			fcount(sys, cpu, TLBGEN_FAULT_STAT_RETURN_RETRY);
			return (int)TLBGEN_VM_FAULT_RETRY;
		}
		return 0;
	}

	/* handle_pte_fault() tail, under the PTL; pte_same() holds. */
	tlbgen__pte_lock(p);
	orig = tlbgen__pte_flags(p, memory_order_relaxed);
	entry = orig;
	if (write) {
		if (!(orig & TLBGEN_PTEF_WRITE)) {
			tlbgen__pte_unlock(p);
			fcount(sys, cpu, TLBGEN_FAULT_STAT_WP);
			return (int)TLBGEN_VM_FAULT_WP;	/* do_wp_page(): not modelled */
		}
		entry |= TLBGEN_PTEF_DIRTY;
	}
	entry |= TLBGEN_PTEF_YOUNG;
	/* ptep_set_access_flags(): did anything change? */
	if (entry != orig) {
		tlbgen__pte_set_flags(p, entry);
		fcount(sys, cpu, TLBGEN_FAULT_STAT_CHANGED);
		if (!access_flags_changed(sys, cpu, mm, addr, write, p))
			tlbgen__pte_unlock(p);
		return 0;
	}
	fcount(sys, cpu, TLBGEN_FAULT_STAT_UNCHANGED);
	/* b7333b58f358: "Skip spurious TLB flush for retried page fault". */
	if (tried && sys->profile.spurious_skip_tried) {
		tlbgen__pte_unlock(p);
		fcount(sys, cpu, TLBGEN_FAULT_STAT_SKIP_TRIED);
		return 0;
	}
	/* "This is needed only for protection faults ..." */
	if (write && hook_waits_for_others(sys)) {
		tlbgen__pte_unlock(p);
		flush_tlb_fix_spurious_fault(sys, cpu, mm, addr, tried);
		return 0;
	}
	if (write)
		flush_tlb_fix_spurious_fault(sys, cpu, mm, addr, tried);
	tlbgen__pte_unlock(p);
	return 0;
}

static int copy_stats(const struct tlbgen_system *sys, unsigned int first, unsigned int last,
		      uint64_t *out, size_t n)
{
	if (n > TLBGEN_FAULT_STAT_NR)
		n = TLBGEN_FAULT_STAT_NR;
	for (size_t i = 0; i < n; i++) {
		out[i] = 0;
		for (unsigned int c = first; c <= last; c++)
			out[i] += tlbgen__stat_read(&tlbgen__cpu(sys, c)->cost.faults[i]);
	}
	return (int)n;
}

TLBGEN_API int tlbgen_fault_stats__cpu(const struct tlbgen_system *sys, unsigned int cpu,
				       uint64_t *out, size_t n)
{
	if (!tlbgen__sys_valid(sys) || cpu >= sys->nr_cpus || (!out && n))
		return -EINVAL;
	return copy_stats(sys, cpu, cpu, out, n);
}

TLBGEN_API int tlbgen_fault_stats__system(const struct tlbgen_system *sys, uint64_t *out,
					  size_t n)
{
	if (!tlbgen__sys_valid(sys) || (!out && n))
		return -EINVAL;
	return copy_stats(sys, 0, sys->nr_cpus - 1, out, n);
}

TLBGEN_API int tlbgen_fault_stats__reset(struct tlbgen_system *sys)
{
	if (!tlbgen__sys_valid(sys))
		return -EINVAL;
	if (tlbgen__stats_busy(sys))
		return -EBUSY;
	for (unsigned int c = 0; c < sys->nr_cpus; c++)
		for (int i = 0; i < TLBGEN_FAULT_STAT_NR; i++)
			tlbgen__stat_reset(&tlbgen__cpu(sys, c)->cost.faults[i]);
	return 0;
}
