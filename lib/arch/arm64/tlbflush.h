/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* lib/arch/arm64/tlbflush.h - the arm64 ops (tlbflush.c): batched unmap
 * with DVM broadcast, and the range rule of __flush_tlb_range(). */
#ifndef TLBGEN_ARCH_ARM64_TLBFLUSH_H
#define TLBGEN_ARCH_ARM64_TLBFLUSH_H

#include "../../asm-generic/arch-ops.h"

extern const struct tlbgen_arch_ops tlbgen__arm64_arch_ops;
void tlbgen__arm64_range_rule(unsigned long ceiling, enum tlbgen_ceiling_cmp cmp,
			      unsigned long start, unsigned long end, unsigned int shift,
			      struct tlbgen_range_flush *out);

#endif
