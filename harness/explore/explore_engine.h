/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * harness/explore/explore_engine.h - a randomized schedule explorer over
 * stepped mode, shared by the CMocka test, the libFuzzer target and
 * `tlbgen-bench explore`.
 *
 * A run is a sequence of operations (struct xop) executed on a fresh stepped
 * system. After every operation the engine checks:
 *  - the oracle: no CPU used a translation that a completed flush covered;
 *  - the kernel's WARNs, as counted by the library (tlbgen_system__warns);
 *  - local_tlb_gen <= mm_tlb_gen for every ASID slot of every CPU;
 *  - a partial flush only when local + 1 == mm_tlb_gen (checked from the
 *    trace hook, before the CPU updates its generation).
 * At the end every IPI is delivered and every CPU's TLB audited.
 *
 * Execution is tolerant: an operation that is not valid in the current state
 * (a CPU waiting for acknowledgements, an access with no user mm running) is
 * checked to fail with its documented errno and changes nothing. So any
 * subsequence of a run is itself a run, which the minimiser relies on.
 */
#ifndef TLBGEN_EXPLORE_ENGINE_H
#define TLBGEN_EXPLORE_ENGINE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define XPL_MAX_CPUS	8
#define XPL_MAX_MMS	4
#define XPL_NR_PAGES	1024UL	/* 4 MiB: two 2 MiB strides */

enum xop_kind {
	XOP_SWITCH_MM = 0,	/* cpu, mm (0 = init_mm) */
	XOP_ENTER_LAZY,		/* cpu */
	XOP_LEAVE_MM,		/* cpu */
	XOP_FLUSH_RANGE,	/* cpu, mm, a = first page, b = pages (0 = FLUSH_ALL), flags */
	XOP_FLUSH_MM,		/* cpu, mm: flush_tlb_mm (full, freed_tables) */
	XOP_KERNEL_FLUSH,	/* cpu, a = first page, b = pages (0 = FLUSH_ALL) */
	XOP_BATCH_ADD,		/* cpu, mm, a, b: the CPU's own batch */
	XOP_BATCH_FLUSH,	/* cpu */
	XOP_ACCESS,		/* cpu, a = page */
	XOP_PTE_CHANGE,		/* cpu, mm, a = page */
	XOP_DELIVER,		/* cpu */
	XOP_DELIVER_FROM,	/* cpu, b = src */
	XOP_STEP,		/* seeded scheduler */
	XOP_CLOCK,		/* a = jiffies */
	/* mm/rmap.c batched unmap, with the CPU's own tlb_ubc: */
	XOP_UNMAP_ONE,		/* cpu, mm, a = page; flags: BATCH (defer), DIRTY */
	XOP_UNMAP_FLUSH,	/* cpu; flags: DIRTY -> try_to_unmap_flush_dirty */
	XOP_BATCHED_PENDING,	/* cpu, mm: flush_tlb_batched_pending */
	XOP_PREEMPT,		/* cpu: preempt its waiting task, or resume it (explore_preempt.h) */
	XOP_NR
};

#define XOP_F_STRIDE21	0x1u	/* stride_shift 21 instead of 12 */
#define XOP_F_FREED	0x2u	/* freed_tables */
#define XOP_F_BATCH	0x1u	/* unmap: TTU_BATCH_FLUSH */
#define XOP_F_DIRTY	0x2u	/* unmap: the PTE was dirty */

struct xop {
	uint8_t kind, cpu, mm, flags;
	uint32_t a, b;
};

struct xcfg {
	const char *profile;		/* built-in or registered profile name */
	const char *choices;		/* extra "k=v,..." or NULL */
	unsigned int nr_cpus;		/* 2 .. XPL_MAX_CPUS */
	unsigned int nr_mms;		/* 1 .. XPL_MAX_MMS (besides init_mm) */
	unsigned int tlb_sets, tlb_ways;	/* 0: library default */
	uint64_t sys_seed;		/* stepped scheduler seed */
};

enum xfail_kind { XF_NONE = 0, XF_ORACLE, XF_WARN, XF_GEN, XF_PARTIAL, XF_ERRNO, XF_SETUP };

struct xfail {
	enum xfail_kind kind;
	size_t op;			/* index of the op after which it was seen (n: final audit) */
	char msg[512];
};

/* Counters, summed over the runs a caller makes. */
struct xstats {
	uint64_t runs, ops, ebusy, partial_checks, violations_found;
};

/* Derive a configuration from a seed (cpus, mms, TLB geometry vary). */
void xpl_cfg_from_seed(struct xcfg *cfg, const char *profile, const char *choices,
		       uint64_t seed);

/*
 * Generate `n` operations from `seed` while executing them (the generator
 * looks at the state: it prefers CPUs that are not waiting, follows PTE
 * changes with covering flushes). Stores them in ops[0..n). Returns the
 * failure kind (XF_NONE when the run passed), details in *f.
 */
enum xfail_kind xpl_gen_run(const struct xcfg *cfg, uint64_t seed, struct xop *ops, size_t n,
			    struct xfail *f, struct xstats *st);

/* Replay ops[0..n) on a fresh system from cfg. Same return as above. */
enum xfail_kind xpl_run(const struct xcfg *cfg, const struct xop *ops, size_t n,
			struct xfail *f, struct xstats *st);

/*
 * Delta debugging: shrink ops[0..n) in place to a shorter sequence that
 * still fails with the same kind. Returns the new length.
 */
size_t xpl_minimise(const struct xcfg *cfg, struct xop *ops, size_t n, enum xfail_kind kind);

/* Print ops[0..n) one per line, replayed, with each op's result. */
void xpl_print_trace(FILE *out, const struct xcfg *cfg, const struct xop *ops, size_t n);

/* Decode a byte string into at most `max` ops (the fuzzer's language);
 * the first two bytes pick the profile index and CPU count. */
size_t xpl_decode(const uint8_t *data, size_t len, struct xcfg *cfg,
		  const char *const *profiles, unsigned int nr_profiles,
		  struct xop *ops, size_t max);

/* Print each generated op to stderr before running it (debugging hangs). */
extern int xpl_verbose;

const char *xpl_kind_name(enum xfail_kind k);
const char *xop_name(unsigned int kind);

/* splitmix64 stream shared by the explorer and the soak: a value, and one below n. */
uint64_t explore_rnd(uint64_t *s);
unsigned int explore_rn(uint64_t *s, unsigned int n);

#endif
