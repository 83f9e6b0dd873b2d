/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tlbgen/seed.h - start a system in the middle of a run: each mm's
 * generation, next trim and mm_cpumask, and each CPU's loaded mm, lazy flag
 * and the generation it has caught up to, as a recorded kernel had them
 * when its trace began (harness/replay/replay.h seeds them from a trace).
 *
 * A CPU is seeded as initialize_tlbstate_and_flush() leaves one: the mm on
 * ASID 0 (no other ASID slot holds anything), its TLB empty. Seed the mms
 * first, then the CPUs.
 *
 * Both: -EINVAL for NULL, bad opts->sz or non-zero bytes past the last
 * field, out-of-range values; -EBUSY while a flush is in flight or threads
 * are attached (stepped and virtual mode: call them before the run). State
 * is untouched on error. Not thread-safe against other calls on the system.
 */
#ifndef TLBGEN_SEED_H
#define TLBGEN_SEED_H

#include <tlbgen/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tlbgen_mm_seed_opts {
	size_t sz;			/* sizeof(struct tlbgen_mm_seed_opts) */
	/* mm->context.tlb_gen; at least every CPU's generation of the mm
	 * (-EINVAL otherwise). */
	uint64_t tlb_gen;
	/* mm->context.next_trim_cpumask in jiffies; 0 leaves it. */
	uint64_t next_trim_cpumask;
	/* mm_cpumask as a bitmap of nr_bits CPUs (bit i of word i / 64), NULL
	 * leaves it; nr_bits must be the system's CPU count. A CPU that has
	 * the mm loaded stays set, whatever the bitmap says. */
	const uint64_t *cpumask;
	unsigned int nr_bits;
};

/* tlbgen_mm__seed - set the mm's context and mm_cpumask. */
TLBGEN_API int tlbgen_mm__seed(struct tlbgen_mm *mm, const struct tlbgen_mm_seed_opts *opts);

struct tlbgen_cpu_seed_opts {
	size_t sz;			/* sizeof(struct tlbgen_cpu_seed_opts) */
	struct tlbgen_mm *loaded_mm;	/* cpu_tlbstate.loaded_mm; NULL: init_mm */
	/* cpu_tlbstate_shared.is_lazy: a kernel thread or idle runs on the
	 * loaded mm. Ignored for init_mm (never lazy). */
	bool is_lazy;
	/* ctxs[0].tlb_gen: the generation of loaded_mm this CPU caught up
	 * to; at most loaded_mm's tlb_gen. */
	uint64_t tlb_gen;
};

/*
 * tlbgen_cpu__seed - set `cpu`'s cpu_tlbstate: loaded_mm on ASID 0 at
 * tlb_gen, next_asid 1, the other slots empty, is_lazy; set its bit in
 * loaded_mm's mm_cpumask (a CPU running an mm is in it); empty its
 * simulated TLB. Also -EINVAL for cpu out of range or an mm of another
 * system, -EOPNOTSUPP for an mm that holds a global ASID (INVLPGB).
 */
TLBGEN_API int tlbgen_cpu__seed(struct tlbgen_system *sys, unsigned int cpu,
				const struct tlbgen_cpu_seed_opts *opts);

#ifdef __cplusplus
}
#endif
#endif
