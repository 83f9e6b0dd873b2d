/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* lib/arch/riscv/tlbflush.h - the riscv ops (tlbflush.c): batched unmap
 * by SBI or IPI, and the range rule of tlb_flush_all_threshold. */
#ifndef TLBGEN_ARCH_RISCV_TLBFLUSH_H
#define TLBGEN_ARCH_RISCV_TLBFLUSH_H

#include "../../asm-generic/arch-ops.h"

extern const struct tlbgen_arch_ops tlbgen__riscv_arch_ops;
void tlbgen__riscv_range_rule(unsigned long ceiling, enum tlbgen_ceiling_cmp cmp,
			      unsigned long start, unsigned long end, unsigned int shift,
			      struct tlbgen_range_flush *out);
/* update_mmu_cache() of one page in the faulting task; true: by Svinval. */
bool tlbgen__riscv_update_mmu_cache(struct tlbgen_system *sys, unsigned int cpu,
				    struct tlbgen_mm *mm, unsigned long addr);

#endif
