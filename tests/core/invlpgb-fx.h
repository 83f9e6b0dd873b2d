/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/core/invlpgb-fx.h - helpers of the AMD INVLPGB tests: an 8-CPU
 * stepped system with or without X86_FEATURE_INVLPGB, an mm's global ASID,
 * a flush that runs to completion, and an mm brought onto (or off) a
 * global ASID. The model's task on CPU n has pid n; jiffies stay at 0.
 */
#ifndef TLBGEN_TESTS_CORE_INVLPGB_FX_H
#define TLBGEN_TESTS_CORE_INVLPGB_FX_H

#include "tlbgen-test.h"

#define NCPU 8

struct tlbgen_system *inv_sys(const char *profile, bool invlpgb, unsigned int asids,
			      unsigned int count_max);
int gasid(const struct tlbgen_mm *mm, bool *tr);
void flush_page(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_mm *mm,
		unsigned long pg);
int global_mm(struct tlbgen_system *sys, struct tlbgen_mm *mm);
int assign_one(struct tlbgen_system *sys, struct tlbgen_mm *mm);
void exit_mm(struct tlbgen_system *sys, struct tlbgen_mm *mm);
void four_cpu_flush(struct tlbgen_system *sys, struct tlbgen_mm *mm, uint64_t *invlpgb,
		    uint64_t *ipis, int *asid);

#endif /* TLBGEN_TESTS_CORE_INVLPGB_FX_H */
