/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tlbgen/tlbbatch.h - struct arch_tlbflush_unmap_batch and the arch hooks
 * arch_tlbbatch_add_pending() / arch_tlbbatch_flush() (x86, arm64 or riscv,
 * by the profile choice batch_arch): the deferred, batched TLB flush of page
 * reclaim and migration. The generic state machine around them (mm/rmap.c)
 * is in tlbgen/rmap.h.
 */
#ifndef TLBGEN_TLBBATCH_H
#define TLBGEN_TLBBATCH_H

#include <tlbgen/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tlbgen_tlbbatch;

/*
 * tlbgen_tlbbatch__create - an empty batch (cpumask clear) of system `sys`.
 * Errors: -EINVAL, -ENOMEM. Thread-safe. A batch belongs to one task: use it
 * from one emulated CPU at a time.
 */
TLBGEN_API int tlbgen_tlbbatch__create(struct tlbgen_system *sys,
				       struct tlbgen_tlbbatch **out);

/*
 * tlbgen_tlbbatch__destroy - free a batch; pending (unflushed) entries are
 * dropped. -EINVAL for NULL, -EBUSY if its flush is in flight. Not
 * thread-safe against other uses of the batch.
 */
TLBGEN_API int tlbgen_tlbbatch__destroy(struct tlbgen_tlbbatch *batch);

/*
 * tlbgen_arch_tlbbatch_add_pending - arch_tlbbatch_add_pending() of the
 * profile's batch_arch, for the pages [start, end) of `mm` whose PTEs the
 * caller has already changed (tlbgen_pte_change):
 *  x86:   inc_mm_tlb_gen(mm) and OR mm_cpumask(mm) into the batch (the range
 *         is recorded for the oracle only);
 *  arm64: one broadcast TLBI per page, not completed until the batch's
 *         flush (the DSB). The model takes the latest legal completion:
 *         every CPU's simulated TLB keeps the entry until that DSB, which
 *         removes it everywhere; the oracle judges uses after the DSB
 *         returned, and a use between TLBI and DSB is legal;
 *  riscv: OR mm_cpumask(mm) into the batch (54d7431af73e).
 * Errors: the common ones of tlbgen/tlb.h; -EINVAL for a bad range or
 * init_mm; -EBUSY while the batch's flush is in flight; -ENOMEM;
 * -EOPNOTSUPP for arm64 on a threaded system with the oracle on (its DSB
 * edits every CPU's simulated TLB). Thread-safety: the batch belongs to one
 * task (one emulated CPU at a time); the mm may be shared.
 */
TLBGEN_API int tlbgen_arch_tlbbatch_add_pending(struct tlbgen_system *sys, unsigned int cpu,
						struct tlbgen_tlbbatch *batch,
						struct tlbgen_mm *mm,
						unsigned long start, unsigned long end);

/*
 * tlbgen_arch_tlbbatch_flush - arch_tlbbatch_flush() of the profile's
 * batch_arch:
 *  x86:   get_flush_tlb_info(NULL, 0, TLB_FLUSH_ALL, 0, false,
 *         TLB_GENERATION_INVALID), flush_tlb_multi() to the batch mask (lazy
 *         CPUs skipped), or a local flush_tlb_func(), then clear the mask;
 *  arm64: one DSB completing the TLBIs this batch issued (no IPI);
 *  riscv: one full flush without ASID on every CPU of the batch mask
 *         through the call engine (lazy CPUs included), then clear the mask.
 * Errors and thread-safety as tlbgen_arch_tlbbatch_add_pending. In stepped
 * mode the CPU may be left waiting until the IPIs are delivered.
 */
TLBGEN_API int tlbgen_arch_tlbbatch_flush(struct tlbgen_system *sys, unsigned int cpu,
					  struct tlbgen_tlbbatch *batch);

/* tlbgen_tlbbatch__cpumask_weight - CPUs in the batch mask, or -EINVAL. Owner's thread. */
TLBGEN_API int tlbgen_tlbbatch__cpumask_weight(const struct tlbgen_tlbbatch *batch);

/*
 * tlbgen_tlbbatch__pending_tlbi - arm64: TLBIs issued by this batch and not
 * yet completed by its DSB (0 on x86 and riscv), or -EINVAL. Owner's thread.
 */
TLBGEN_API int tlbgen_tlbbatch__pending_tlbi(const struct tlbgen_tlbbatch *batch);

#ifdef __cplusplus
}
#endif
#endif
