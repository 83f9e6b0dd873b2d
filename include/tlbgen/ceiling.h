/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tlbgen/ceiling.h - range-flush ceilings per architecture: when a ranged
 * TLB flush becomes a flush of the whole ASID/PID, and how many invalidation
 * instructions the ranged form issues. Each rule is counted in the kernel's
 * own units:
 *  - x86          tlb_single_page_flush_ceiling = 33, full if
 *                 (end - start) >> stride_shift > ceiling (arch/x86/mm/tlb.c);
 *  - powerpc radix global (tlbie) 33, local (tlbiel) 256 =
 *                 POWER9_TLB_SETS_RADIX * 2, full if nr_pages > ceiling
 *                 (radix_tlb.c); the global test may be switched to the
 *                 2021 RFC's ">=" (Aneesh Kumar, with 32);
 *  - riscv        tlb_flush_all_threshold = 64: size <= stride is always one
 *                 page flush; otherwise full if DIV_ROUND_UP(size, stride) > 64;
 *  - arm64        MAX_DVM_OPS = PTRS_PER_PTE = 512 (no FEAT_TLBIRANGE):
 *                 full if (end - start) >= MAX_DVM_OPS * stride, after
 *                 rounding start down and end up to the stride.
 * In the kernel only the x86 and the two powerpc values are debugfs files;
 * here every value is settable the same way: negative -> -EINVAL, 0 allowed
 * with the kernel's edge behaviour (see tlbgen_range_flush_rule()).
 */
#ifndef TLBGEN_CEILING_H
#define TLBGEN_CEILING_H

#include <tlbgen/common.h>

#ifdef __cplusplus
extern "C" {
#endif

enum tlbgen_ceiling_arch {
	TLBGEN_ARCH_X86 = 0,		/* tlb_single_page_flush_ceiling (the core's) */
	TLBGEN_ARCH_PPC_RADIX_GLOBAL,	/* tlb_single_page_flush_ceiling (tlbie) */
	TLBGEN_ARCH_PPC_RADIX_LOCAL,	/* tlb_local_single_page_flush_ceiling (tlbiel) */
	TLBGEN_ARCH_RISCV,		/* tlb_flush_all_threshold */
	TLBGEN_ARCH_ARM64,		/* MAX_DVM_OPS */
	TLBGEN_ARCH_NR
};

enum tlbgen_ceiling_cmp {
	TLBGEN_CEILING_GT = 0,		/* units >  ceiling -> full */
	TLBGEN_CEILING_GE,		/* units >= ceiling -> full */
};

/* The verdict on one range. */
struct tlbgen_range_flush {
	bool full;		/* flush the whole ASID/PID/mm */
	unsigned long units;	/* range length in the rule's units */
	unsigned long ops;	/* invalidations issued: 1 when full, else per-unit count */
	bool pwc;		/* powerpc: ranged and >= PMD_SIZE: also a PWC flush (not in ops) */
};

/*
 * tlbgen_range_flush_rule - the pure rule of `arch` with an explicit
 * `ceiling` and comparison (the arch's own comparison is TLBGEN_CEILING_GT
 * except arm64, TLBGEN_CEILING_GE). `end` may be TLBGEN_TLB_FLUSH_ALL
 * (always full). stride_shift is 12..30: the stride (x86, riscv, arm64) or
 * the page size (powerpc: nr_pages = (end - start) >> page_shift).
 * Edge behaviour with ceiling 0: x86/powerpc ">" make every non-empty range
 * full and an empty one "ranged" with 0 ops; ">=" (arm64, the RFC) makes
 * even an empty range full; riscv flushes size <= stride as one page
 * whatever the threshold.
 * Errors: -EINVAL (NULL out, unknown arch or cmp, ceiling < 0, start > end,
 * bad stride_shift). Thread-safe (pure).
 */
TLBGEN_API int tlbgen_range_flush_rule(enum tlbgen_ceiling_arch arch, long ceiling,
				       enum tlbgen_ceiling_cmp cmp, unsigned long start,
				       unsigned long end, unsigned int stride_shift,
				       struct tlbgen_range_flush *out);

/*
 * tlbgen_range_flush_decide - the same with the system's current ceiling
 * and comparison for `arch`. For TLBGEN_ARCH_X86 this is exactly the test
 * flush_tlb_mm_range() applies (the core calls the same code).
 * Errors: as above. Thread-safe against flushes; not against setters.
 */
TLBGEN_API int tlbgen_range_flush_decide(const struct tlbgen_system *sys,
					 enum tlbgen_ceiling_arch arch, unsigned long start,
					 unsigned long end, unsigned int stride_shift,
					 struct tlbgen_range_flush *out);

/*
 * tlbgen_ceiling__set - write the ceiling of `arch`, as echo > debugfs does.
 * TLBGEN_ARCH_X86 is the same value as tlbgen_set_tlb_single_page_flush_ceiling().
 * Errors: -EINVAL (NULL, unknown arch, value < 0: nothing changes), -EBUSY
 * while a flush is in flight (stepped) or CPUs are attached (threaded).
 * Not thread-safe against other setters.
 */
TLBGEN_API int tlbgen_ceiling__set(struct tlbgen_system *sys, enum tlbgen_ceiling_arch arch,
				   long value);

/* tlbgen_ceiling__get - the current ceiling of `arch`, or -EINVAL. Thread-safe. */
TLBGEN_API long tlbgen_ceiling__get(const struct tlbgen_system *sys, enum tlbgen_ceiling_arch arch);

/*
 * tlbgen_ceiling__set_cmp - the comparison of the powerpc radix global test
 * (the only one a patch proposed to change). Errors: -EINVAL (NULL, bad
 * cmp), -EOPNOTSUPP (any other arch: its comparison is fixed), -EBUSY as above.
 * Not thread-safe against other setters.
 */
TLBGEN_API int tlbgen_ceiling__set_cmp(struct tlbgen_system *sys, enum tlbgen_ceiling_arch arch,
				       enum tlbgen_ceiling_cmp cmp);

/* tlbgen_ceiling__get_cmp - the comparison `arch` uses now, or -EINVAL. Thread-safe. */
TLBGEN_API int tlbgen_ceiling__get_cmp(const struct tlbgen_system *sys,
				       enum tlbgen_ceiling_arch arch);

/* powerpc radix ---------------------------------------------------------- */

enum tlbgen_ppc_flush_type {
	TLBGEN_PPC_FLUSH_NONE = 0,	/* nobody runs the mm */
	TLBGEN_PPC_FLUSH_LOCAL,		/* only this CPU: tlbiel, local ceiling */
	TLBGEN_PPC_FLUSH_GLOBAL,	/* other CPUs involved: tlbie, global ceiling */
};

/*
 * tlbgen_ppc_radix_flush_type - flush_type_needed(), simplified to the
 * mm_cpumask: empty -> NONE, only `cpu` -> LOCAL, any other CPU -> GLOBAL.
 * Returns the type or -EINVAL. Thread-safe (a racy snapshot, as in the kernel).
 */
TLBGEN_API int tlbgen_ppc_radix_flush_type(const struct tlbgen_system *sys, unsigned int cpu,
					   const struct tlbgen_mm *mm);

/*
 * tlbgen_ppc_radix_flush_tlb_range - __radix__flush_tlb_range() on the
 * simulated TLBs: type from tlbgen_ppc_radix_flush_type(), the local or
 * global ceiling, then either a PID flush or per-page invalidations
 * (page_shift 12..30, in the model's pages). tlbie is a hardware broadcast:
 * every CPU's TLB is invalidated at once, no IPIs, no tlb_gen; only the
 * initiator is charged by the cost model (ops x inv_page or one full
 * flush). The oracle covers the range when the call returns. Fills *out
 * when not NULL. Returns the flush type.
 * Errors: -EINVAL (NULL, range outside the mm, bad page_shift),
 * -EOPNOTSUPP on a threaded system (remote TLBs are only touched in
 * stepped and virtual mode, where one host thread runs every CPU; in
 * virtual time the initiator's charge is spent on its clock), -EBUSY if `cpu` is waiting, -EDEADLK from a cross-CPU
 * callback on `cpu`. Not thread-safe.
 */
TLBGEN_API int tlbgen_ppc_radix_flush_tlb_range(struct tlbgen_system *sys, unsigned int cpu,
						struct tlbgen_mm *mm, unsigned long start,
						unsigned long end, unsigned int page_shift,
						struct tlbgen_range_flush *out);

#ifdef __cplusplus
}
#endif
#endif
