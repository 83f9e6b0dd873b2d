/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tlbgen/tlbbatch.h - struct arch_tlbflush_unmap_batch and the x86 hooks
 * arch_tlbbatch_add_pending() / arch_tlbbatch_flush(): the deferred,
 * batched TLB flush of page reclaim and migration.
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
 * tlbgen_arch_tlbbatch_add_pending - x86: inc_mm_tlb_gen(mm) and OR
 * mm_cpumask(mm) into the batch. [start, end) is recorded for the oracle only
 * (x86 ignores it). Errors: the common ones of tlbgen/tlb.h.
 */
TLBGEN_API int tlbgen_arch_tlbbatch_add_pending(struct tlbgen_system *sys, unsigned int cpu,
						struct tlbgen_tlbbatch *batch,
						struct tlbgen_mm *mm,
						unsigned long start, unsigned long end);

/*
 * tlbgen_arch_tlbbatch_flush - x86: get_flush_tlb_info(NULL, 0,
 * TLB_FLUSH_ALL, 0, false, TLB_GENERATION_INVALID), flush_tlb_multi() to the
 * batch mask (lazy CPUs skipped), or a local flush_tlb_func(), then clear
 * the mask. Errors: the common ones of tlbgen/tlb.h.
 */
TLBGEN_API int tlbgen_arch_tlbbatch_flush(struct tlbgen_system *sys, unsigned int cpu,
					  struct tlbgen_tlbbatch *batch);

/* tlbgen_tlbbatch__cpumask_weight - CPUs in the batch mask, or -EINVAL. Owner thread only. */
TLBGEN_API int tlbgen_tlbbatch__cpumask_weight(const struct tlbgen_tlbbatch *batch);

#ifdef __cplusplus
}
#endif
#endif
