/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/asm-generic/tlbbatch.h - struct arch_tlbflush_unmap_batch, as every
 * architecture's batched-unmap hooks use it, and what they share.
 */
#ifndef TLBGEN_ASM_GENERIC_TLBBATCH_H
#define TLBGEN_ASM_GENERIC_TLBBATCH_H

#include "tlbflush.h"

struct tlbgen_batch_cover {
	struct tlbgen_mm *mm;
	uint64_t seq;		/* oracle: the mm's change seq when the page was added */
};

/* arm64: a TLBI issued by this batch's task, not yet completed by a DSB. */
struct tlbgen_arm64_inval {
	struct tlbgen_mm *mm;
	unsigned long vpn;
	uint64_t seq;
};

struct tlbgen_tlbbatch {
	uint32_t magic;
	struct tlbgen_system *sys;
	bool unmapped_pages;
	bool inflight;
	unsigned int nr_cover, cap_cover;
	struct tlbgen_batch_cover *cover;
	unsigned int nr_inval, cap_inval;
	struct tlbgen_arm64_inval *inval;
	atomic_ulong cpumask[];	/* private to the owning task; atomic for the call engine */
};

/*
 * arch_tlbbatch_flush() of an architecture that flushes by IPI (x86,
 * riscv): one full flush, mm == NULL and no generation, to the batch's
 * cpumask through `multi` (func here when only this CPU is in it), then
 * the mask is cleared. The batch's mms count as flushed when it returns.
 */
void tlbgen__tlbbatch_flush_ipi(struct tlbgen_system *sys, unsigned int cpu,
				struct tlbgen_tlbbatch *b, tlbgen_flush_multi_fn multi,
				tlbgen_smp_call_func_t func);

/*
 * The same flush done by a hardware broadcast that reaches every CPU,
 * whatever the batch's cpumask: `broadcast` runs on this CPU and returns
 * once it completed everywhere; then the mask is cleared.
 */
void tlbgen__tlbbatch_flush_broadcast(struct tlbgen_system *sys, unsigned int cpu,
				      struct tlbgen_tlbbatch *b,
				      void (*broadcast)(struct tlbgen_system *sys, unsigned int cpu));

#endif
