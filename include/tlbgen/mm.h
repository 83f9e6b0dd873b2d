/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tlbgen/mm.h - an address space: mm->context (ctx_id, tlb_gen,
 * next_trim_cpumask), mm_cpumask, and a simulated page table whose PTEs
 * carry versions for the stale-TLB oracle.
 *
 * User addresses of an mm run from 0 to nr_pages << TLBGEN_PAGE_SHIFT.
 */
#ifndef TLBGEN_MM_H
#define TLBGEN_MM_H

#include <tlbgen/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * tlbgen_mm__create - init_new_context(): a new mm with a fresh ctx_id,
 * tlb_gen 0, next_trim_cpumask = jiffies + HZ, an empty mm_cpumask and a
 * page table of nr_pages (1 .. 1<<25) present PTEs.
 * Errors: -EINVAL (NULL, nr_pages out of range), -ENOMEM.
 * Thread-safe.
 */
TLBGEN_API int tlbgen_mm__create(struct tlbgen_system *sys, unsigned long nr_pages,
				 struct tlbgen_mm **out);

/*
 * tlbgen_mm__destroy - free an mm, as __mmdrop() frees one.
 * Errors: -EINVAL (NULL, init_mm), -EBUSY when a CPU still has it loaded
 * (lazily or not: a kernel thread or idle that ran on it keeps a
 * reference until it switches away; tlbgen_leave_mm() or a switch_mm()
 * releases it) or a flush of it is in flight.
 * Bits that linger in mm_cpumask after their CPUs switched away (under a
 * lazy mm_cpumask, mm_cpumask=lazy: v6.14, latest, until a flush trims
 * them) do not block it: the kernel frees an mm with them set. So a long
 * run that creates and destroys mms leaks none. Destruction frees the
 * global ASID (mm_free_global_asid(), reusable after the next ASID-space
 * wrap).
 * Must not race with other operations on the same mm.
 */
TLBGEN_API int tlbgen_mm__destroy(struct tlbgen_mm *mm);

/* tlbgen_mm__ctx_id - the mm's context id (init_mm has 1), 0 for NULL. Thread-safe. */
TLBGEN_API uint64_t tlbgen_mm__ctx_id(const struct tlbgen_mm *mm);

/*
 * tlbgen_mm__tlb_gen - read mm->context.tlb_gen (not counted as a policy read).
 * Returns 0 and stores it, or -EINVAL. Thread-safe.
 */
TLBGEN_API int tlbgen_mm__tlb_gen(const struct tlbgen_mm *mm, uint64_t *out);

/*
 * tlbgen_mm__next_trim_cpumask - read mm->context.next_trim_cpumask.
 * Returns 0 and stores it, or -EINVAL. Thread-safe.
 */
TLBGEN_API int tlbgen_mm__next_trim_cpumask(const struct tlbgen_mm *mm, uint64_t *out);

/*
 * tlbgen_mm__cpumask_test - 1 if `cpu` is set in mm_cpumask(mm), 0 if not,
 * -EINVAL for NULL or cpu out of range. Thread-safe.
 */
TLBGEN_API int tlbgen_mm__cpumask_test(const struct tlbgen_mm *mm, unsigned int cpu);

/*
 * tlbgen_mm__cpumask_weight - number of CPUs set in mm_cpumask, or -EINVAL.
 * Thread-safe (a racy snapshot while CPUs switch).
 */
TLBGEN_API int tlbgen_mm__cpumask_weight(const struct tlbgen_mm *mm);

/*
 * tlbgen_mm__global_asid - mm->context.global_asid: the ASID the mm uses on
 * every CPU once consider_global_asid() found it active on more than 3
 * CPUs (4afeb0ed1753), 0 while it has none (or the system has no INVLPGB).
 * When in_transition is not NULL it gets mm->context.asid_transition: some
 * CPU may still run the mm on its per-CPU dynamic ASID. Returns the ASID
 * (>= 0), or -EINVAL for NULL. Thread-safe.
 */
TLBGEN_API int tlbgen_mm__global_asid(const struct tlbgen_mm *mm, bool *in_transition);

/* tlbgen_mm__nr_pages - size of the page table, 0 for NULL. Thread-safe. */
TLBGEN_API unsigned long tlbgen_mm__nr_pages(const struct tlbgen_mm *mm);

/*
 * tlbgen_pte_change - modify the PTE mapping `addr` (a zap, a remap, a
 * permission change): its version moves on, and every TLB entry filled from
 * the old version becomes stale. As in the kernel the caller must then flush
 * (flush_tlb_mm_range() or a batch); the oracle reports any CPU that uses
 * the stale translation after a flush that covers the change has returned.
 * `cpu` is the CPU doing the change (for traces; it needs no mm loaded).
 * Errors: -EINVAL (NULL, cpu or addr out of range, mm of another system).
 * Thread-safe (a per-PTE lock stands in for the page-table lock).
 */
TLBGEN_API int tlbgen_pte_change(struct tlbgen_system *sys, unsigned int cpu,
				 struct tlbgen_mm *mm, unsigned long addr);

#ifdef __cplusplus
}
#endif
#endif
