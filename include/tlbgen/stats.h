/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tlbgen/stats.h - event counters, per emulated CPU and per mm.
 *
 * Each event is counted on the CPU that performs it (the initiator for
 * flushes and IPIs sent, the target for flush_tlb_func work) and, when an mm
 * is involved, also on that mm. Counters are single-writer per CPU, so the
 * counting itself adds no shared cacheline to the model.
 */
#ifndef TLBGEN_STATS_H
#define TLBGEN_STATS_H

#include <tlbgen/common.h>

#ifdef __cplusplus
extern "C" {
#endif

enum tlbgen_stat {
	TLBGEN_STAT_FLUSH_INITIATED,	/* flush_tlb_mm_range / batch / kernel-range calls */
	TLBGEN_STAT_FLUSH_MULTI,	/* ... that took the flush_tlb_multi path */
	TLBGEN_STAT_FLUSH_LOCAL_ONLY,	/* ... that flushed only locally */
	TLBGEN_STAT_FLUSH_NONE,		/* ... that flushed nowhere (mm not loaded) */
	TLBGEN_STAT_CALL_QUEUED,	/* csds enqueued on a target */
	TLBGEN_STAT_IPI_SENT,		/* queue went empty -> non-empty: IPI raised */
	TLBGEN_STAT_IPI_SKIP_LAZY,	/* condition false: target lazy */
	TLBGEN_STAT_IPI_SKIP_NOT_LOADED,/* condition false: mm not loaded, no trimming policy */
	TLBGEN_STAT_IPI_SKIP_NOT_TRIMMED,/* condition false: mm not loaded, trim not due */
	TLBGEN_STAT_IPI_RECEIVED,	/* callbacks run from the call queue */
	TLBGEN_STAT_TRIM_CPUMASK,	/* should_trim_cpumask() fired */
	TLBGEN_STAT_FLUSH_FUNC,		/* flush_tlb_func calls (local and remote) */
	TLBGEN_STAT_FLUSH_FUNC_REMOTE,	/* ... on a CPU other than the initiator */
	TLBGEN_STAT_FLUSH_FUNC_WRONG_MM,/* returned: f->mm is not the loaded mm */
	TLBGEN_STAT_FLUSH_FUNC_INIT_MM,	/* returned: loaded_mm is init_mm */
	TLBGEN_STAT_FLUSH_FUNC_LAZY,	/* lazy: switched to init_mm instead */
	TLBGEN_STAT_EARLY_SKIP,		/* aa44284960: new_tlb_gen <= local_tlb_gen */
	TLBGEN_STAT_UP_TO_DATE,		/* local_tlb_gen == mm_tlb_gen: nothing to do */
	TLBGEN_STAT_FULL_FLUSH,		/* flush_tlb_local() from flush_tlb_func */
	TLBGEN_STAT_PARTIAL_FLUSH,	/* ranged flush from flush_tlb_func */
	TLBGEN_STAT_PAGES_INVALIDATED,	/* flush_tlb_one_user() calls */
	TLBGEN_STAT_TLB_GEN_READ,	/* atomic reads of mm->context.tlb_gen: by
					 * flush_tlb_func (the policy's, also through
					 * tlbgen_gen_reader) and by switch_mm_irqs_off
					 * (the next mm's, on every switch) */
	TLBGEN_STAT_TLB_GEN_RMW,	/* inc_mm_tlb_gen() */
	TLBGEN_STAT_CPUMASK_SET,	/* cpumask_set_cpu(mm_cpumask) */
	TLBGEN_STAT_CPUMASK_CLEAR,	/* cpumask_clear_cpu(mm_cpumask) */
	TLBGEN_STAT_LAZY_ENTER,		/* enter_lazy_tlb set is_lazy */
	TLBGEN_STAT_SWITCH_MM,		/* switch_mm_irqs_off calls */
	TLBGEN_STAT_SWITCH_MM_FLUSH,	/* ... that loaded CR3 with a flush */
	TLBGEN_STAT_KERNEL_FLUSH,	/* kernel-range flushes run on a CPU */
	TLBGEN_STAT_TLB_ACCESS,		/* simulated accesses */
	TLBGEN_STAT_TLB_MISS,		/* ... that walked the page table */
	TLBGEN_STAT_TLBI,		/* arm64 broadcast TLBI instructions issued */
	TLBGEN_STAT_DSB,		/* arm64 DSB ISH waits for TLBI completion */
	TLBGEN_STAT_PV_FLUSH_DEFERRED,	/* kvm_flush_tlb_multi(): preempted target marked, no IPI */
	TLBGEN_STAT_PV_FLUSH_AT_RESUME,	/* the host's flush of a marked vCPU as it ran again */
	TLBGEN_STAT_INVLPGB,		/* x86 INVLPGB broadcasts issued (4afeb0ed1753) */
	TLBGEN_STAT_TLBSYNC,		/* TLBSYNC waits for this CPU's INVLPGBs */
	TLBGEN_STAT_IPI_AVOIDED,	/* a broadcast flush: CPUs besides the initiator in
					 * mm_cpumask, the targets flush_tlb_multi() would
					 * have been given (kernel range: every other CPU);
					 * and the other CPUs a hypervisor flushed
					 * (pv_flush_tlb_multi=hyperv or pvm) */
	TLBGEN_STAT_GLOBAL_ASID_ASSIGNED,/* use_global_asid() gave an mm a global ASID */
	TLBGEN_STAT_NR
};

/* tlbgen_stat_name - short name of a counter ("ipi_sent"), NULL if out of range. Thread-safe. */
TLBGEN_API const char *tlbgen_stat_name(enum tlbgen_stat stat);

/*
 * tlbgen_stats__cpu - copy `cpu`'s counters into out[0 .. n), n <= TLBGEN_STAT_NR.
 * Returns the number copied, or -EINVAL. Racy but tear-free in threaded mode.
 */
TLBGEN_API int tlbgen_stats__cpu(const struct tlbgen_system *sys, unsigned int cpu,
				 uint64_t *out, size_t n);

/* tlbgen_stats__system - the sum over all CPUs; same contract as tlbgen_stats__cpu(). */
TLBGEN_API int tlbgen_stats__system(const struct tlbgen_system *sys, uint64_t *out, size_t n);

/*
 * tlbgen_stats__mm - the counters of events on `mm`, summed over CPUs;
 * same contract as tlbgen_stats__cpu() (all zero on a TLBGEN_SYS_NO_STATS
 * system).
 */
TLBGEN_API int tlbgen_stats__mm(const struct tlbgen_mm *mm, uint64_t *out, size_t n);

/*
 * tlbgen_stats__reset - zero every CPU's and mm's counters. -EINVAL for NULL.
 * Thread-safe, but events counted concurrently may survive the reset: call
 * it while no CPU runs operations for exact numbers.
 */
TLBGEN_API int tlbgen_stats__reset(struct tlbgen_system *sys);

#ifdef __cplusplus
}
#endif
#endif
