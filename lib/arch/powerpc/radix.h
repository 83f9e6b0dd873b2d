/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* lib/arch/powerpc/radix.h - the radix MMU range rule of powerpc
 * (radix.c): tlbie or tlbiel by ceiling. */
#ifndef TLBGEN_ARCH_POWERPC_RADIX_H
#define TLBGEN_ARCH_POWERPC_RADIX_H

#include "../../asm-generic/arch-ops.h"

void tlbgen__ppc_radix_range_rule(unsigned long ceiling, enum tlbgen_ceiling_cmp cmp,
				  unsigned long start, unsigned long end, unsigned int shift,
				  struct tlbgen_range_flush *out);

#endif
