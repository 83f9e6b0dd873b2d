/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/asm-generic/arch-ops.h - the one interface every architecture
 * implements, each in its own directory (arch/x86/mm/tlbbatch.c,
 * arch/arm64/, arch/riscv/): the arch_tlbbatch_*() hooks of
 * ARCH_WANT_BATCHED_UNMAP_TLB_FLUSH and flush_tlb_page(), and the shape of
 * a range-flush rule. lib/arch/arch.c picks one by the profile's batch_arch.
 */
#ifndef TLBGEN_ASM_GENERIC_ARCH_OPS_H
#define TLBGEN_ASM_GENERIC_ARCH_OPS_H

#include "tlbbatch.h"

struct tlbgen_arch_ops {
	const char *name;
	/* Can this system run the arch's hooks? 0 or -EOPNOTSUPP (may be NULL). */
	int (*supported)(const struct tlbgen_system *sys);
	/*
	 * Does the arch select ARCH_WANT_BATCHED_UNMAP_TLB_FLUSH in the
	 * profile's kernel version? NULL: always (x86 since 72b252aed506).
	 * Without it the arch_tlbbatch_*() hooks do not exist.
	 */
	bool (*batching)(const struct tlbgen_system *sys);
	/* arch_tlbbatch_should_defer(mm) */
	bool (*tlbbatch_should_defer)(struct tlbgen_system *sys, unsigned int cpu,
				      struct tlbgen_mm *mm);
	/* arch_tlbbatch_add_pending() for [start, end) of mm (oracle seq given) */
	int (*tlbbatch_add_pending)(struct tlbgen_system *sys, unsigned int cpu,
				    struct tlbgen_tlbbatch *b, struct tlbgen_mm *mm,
				    unsigned long start, unsigned long end, uint64_t seq);
	/* arch_tlbbatch_flush() */
	void (*tlbbatch_flush)(struct tlbgen_system *sys, unsigned int cpu,
			       struct tlbgen_tlbbatch *b);
	/* arch_flush_tlb_batched_pending(mm) */
	int (*flush_tlb_batched_pending)(struct tlbgen_system *sys, unsigned int cpu,
					 struct tlbgen_mm *mm);
	/* flush_tlb_page(): the unbatched path of ptep_clear_flush() */
	int (*flush_tlb_page)(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_mm *mm,
			      unsigned long addr);
};

/* Range-flush rules: full flush or not, and how many invalidations. */
typedef void (*tlbgen_range_rule_fn)(unsigned long ceiling, enum tlbgen_ceiling_cmp cmp,
				     unsigned long start, unsigned long end, unsigned int shift,
				     struct tlbgen_range_flush *out);
#endif
