/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/arch/x86/mm/tlb.h - arch/x86/mm/tlb.c, split by what it holds:
 *   tlb_gen.c      inc_mm_tlb_gen(), flush_tlb_func() and its decision
 *   switch_mm.c    switch_mm_irqs_off(), enter_lazy_tlb(), leave_mm()
 *   should_flush.c the per-target IPI condition and cpumask trimming
 *   flush.c        get_flush_tlb_info(), flush_tlb_mm_range(),
 *                  native_flush_tlb_multi(), flush_tlb_kernel_range()
 *   tlbbatch.c     the x86 batched-unmap hooks (arch_tlbbatch_*)
 *   global_asid.c  AMD INVLPGB: the global ASID space, INVLPGB, TLBSYNC
 */
#ifndef TLBGEN_ARCH_X86_MM_TLB_H
#define TLBGEN_ARCH_X86_MM_TLB_H

#include "../../../asm-generic/arch-ops.h"
#include "../../../asm-generic/tlbflush.h"

/* switch_mm.c; the caller has IRQs off. */
void tlbgen__switch_mm_irqs_off(struct tlbgen_system *sys, unsigned int cpu,
				struct tlbgen_mm *next);

/* tlb_gen.c: the smp_call_func_t every x86 flush runs on its targets. */
void tlbgen__flush_tlb_func(struct tlbgen_system *sys, unsigned int cpu, void *info);

/* should_flush.c */
int tlbgen__should_flush_tlb(struct tlbgen_system *sys, unsigned int cpu, void *info);
bool tlbgen__should_trim_cpumask(struct tlbgen_system *sys, unsigned int cpu,
				 struct tlbgen_mm *mm);

/* flush.c */
bool tlbgen__x86_over_ceiling(const struct tlbgen_system *sys, unsigned long start,
			      unsigned long end, unsigned int stride_shift);
void tlbgen__x86_range_rule(unsigned long ceiling, enum tlbgen_ceiling_cmp cmp,
			    unsigned long start, unsigned long end, unsigned int shift,
			    struct tlbgen_range_flush *out);
struct tlbgen_flush_tlb_info *tlbgen__get_flush_tlb_info(struct tlbgen_system *sys,
							 unsigned int cpu, struct tlbgen_mm *mm,
							 unsigned long start, unsigned long end,
							 unsigned int stride_shift,
							 bool freed_tables, uint64_t new_tlb_gen);
void tlbgen__flush_tlb_multi(struct tlbgen_system *sys, unsigned int cpu,
			     const atomic_ulong *cpumask, struct tlbgen_flush_tlb_info *info);

/* ../hyperv/mmu.c: flush_tlb_multi() by hypercall (pv_flush_tlb_multi=hyperv|pvm). */
void tlbgen__hv_flush_tlb_multi(struct tlbgen_system *sys, unsigned int cpu,
				const atomic_ulong *cpumask, struct tlbgen_flush_tlb_info *info);

/* tlbbatch.c: the x86 arch ops (batched unmap since 72b252aed506). */
extern const struct tlbgen_arch_ops tlbgen__x86_arch_ops;

/* global_asid.c (4afeb0ed1753 and its series). */
int tlbgen__global_asid_init(struct tlbgen_system *sys, unsigned int nr, unsigned int count_max);
void tlbgen__global_asid_destroy(struct tlbgen_system *sys);
void tlbgen__mm_free_global_asid(struct tlbgen_system *sys, struct tlbgen_mm *mm);
void tlbgen__consider_global_asid(struct tlbgen_system *sys, unsigned int cpu,
				  struct tlbgen_mm *mm);
bool tlbgen__mm_needs_global_asid(struct tlbgen_system *sys, struct tlbgen_mm *mm,
				  uint16_t asid);
/* __invlpgb() (posted: complete at this CPU's TLBSYNC) and __tlbsync(). */
void tlbgen__invlpgb_post(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_mm *mm,
			  uint16_t asid, unsigned long first_vpn, unsigned long last_vpn, bool all);
void tlbgen__tlbsync(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_mm *mm);
void tlbgen__invlpgb_flush_all_nonglobals(struct tlbgen_system *sys, unsigned int cpu);

#endif
