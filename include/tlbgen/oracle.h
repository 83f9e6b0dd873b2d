/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tlbgen/oracle.h - simulated TLBs and the stale-translation oracle.
 *
 * Each emulated CPU has a set-associative TLB of (ASID, page) entries that
 * remember the PTE version they were filled from. An access hits its TLB or
 * walks the page table. A PTE change (tlbgen_pte_change) and a later flush
 * that covers it define the point after which any CPU still using the old
 * translation is a violation: once that flush has *returned* to its
 * initiator, no access may hit an entry older than the PTE was when the flush
 * started. The check does not look at generations, so it catches a policy
 * that skips a flush for any reason.
 */
#ifndef TLBGEN_ORACLE_H
#define TLBGEN_ORACLE_H

#include <tlbgen/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * tlbgen_access - `cpu` touches user address `addr` of its loaded mm.
 * Returns 1 on a TLB hit, 0 on a miss (page walk and fill), or:
 *  -EINVAL (NULL, cpu/addr out of range), -ESRCH (init_mm or lazy: no user
 *  mm is running), -EBUSY (the CPU is waiting), -EPERM (threaded, not the
 *  CPU's thread), -EDEADLK (from a cross-CPU callback on the CPU),
 *  -EOPNOTSUPP (system created with TLBGEN_SYS_NO_ORACLE).
 * A hit on a stale, covered entry is recorded as a violation (still returns 1).
 */
TLBGEN_API int tlbgen_access(struct tlbgen_system *sys, unsigned int cpu, unsigned long addr);

struct tlbgen_violation {
	unsigned int cpu;		/* CPU that used the stale translation */
	uint64_t ctx_id;		/* mm of the translation */
	unsigned long addr;
	uint64_t entry_version;		/* PTE version cached in the TLB */
	uint64_t pte_version;		/* PTE version in the page table */
	uint64_t local_tlb_gen;		/* ctxs[asid].tlb_gen on that CPU */
	uint64_t mm_tlb_gen;		/* mm->context.tlb_gen at detection */
	/* The completed flush that should have removed the entry. */
	uint64_t flush_id;		/* (cpu + 1) << 40 | that CPU's flush number */
	unsigned int flush_cpu;		/* its initiator */
	uint64_t flush_new_tlb_gen;	/* its f->new_tlb_gen (0: batch/kernel) */
	unsigned long flush_start, flush_end;
	bool flush_full;
};

/* tlbgen_oracle__violations - number of violations recorded, or -EINVAL. Thread-safe. */
TLBGEN_API long tlbgen_oracle__violations(const struct tlbgen_system *sys);

/*
 * tlbgen_oracle__violation - copy the i-th recorded violation (the first 64
 * are kept). Errors: -EINVAL, -ENOENT if i is not kept. Thread-safe.
 */
TLBGEN_API int tlbgen_oracle__violation(const struct tlbgen_system *sys, unsigned int i,
					struct tlbgen_violation *out);

/*
 * tlbgen_oracle__format - write a readable trace of violation `v` into buf
 * (snprintf semantics). Returns the length it needed, or -EINVAL (NULL v,
 * NULL buf with len > 0). Thread-safe (touches only its arguments).
 */
TLBGEN_API int tlbgen_oracle__format(const struct tlbgen_violation *v, char *buf, size_t len);

/*
 * tlbgen_oracle__audit_cpu - check every TLB entry of `cpu` for its loaded,
 * non-lazy mm as if it were accessed now; records and returns the number of
 * violations found. For threaded tests: call it from the CPU's own thread
 * after a barrier with the flushers. Errors: -EINVAL, -EOPNOTSUPP.
 */
TLBGEN_API int tlbgen_oracle__audit_cpu(struct tlbgen_system *sys, unsigned int cpu);

/*
 * tlbgen_oracle__reset - forget recorded violations. -EINVAL for NULL.
 * Thread-safe, but a violation recorded concurrently may survive the reset.
 */
TLBGEN_API int tlbgen_oracle__reset(struct tlbgen_system *sys);

#ifdef __cplusplus
}
#endif
#endif
