/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tlbgen/decision.h - each flush decision the model takes, reported with
 * the kernel's own tlb_flush tracepoint reasons (enum tlb_flush_reason of
 * include/linux/mm_types.h, printed by trace/events/tlb.h), at the places
 * the kernel's x86 code traces them. A recorded kernel trace and a model run
 * can so be compared event for event (harness/replay/replay.h does).
 *
 * Where each reason comes from (arch/x86/mm/tlb.c, as of v6.18):
 *  TLB_FLUSH_ON_TASK_SWITCH  switch_mm_irqs_off() loaded a new CR3: pages
 *                            TLB_FLUSH_ALL when the load flushed, 0 when the
 *                            ASID was current. A switch to the same mm that
 *                            needs nothing reports nothing. flush_tlb_func()
 *                            on a lazy CPU switches it to init_mm: reason 0.
 *  TLB_REMOTE_SHOOTDOWN      flush_tlb_func() on a CPU that did not initiate
 *  TLB_LOCAL_SHOOTDOWN       ... on the initiator, without an mm (a batch)
 *  TLB_LOCAL_MM_SHOOTDOWN    ... on the initiator, for an mm: pages flushed
 *                            one by one, TLB_FLUSH_ALL for a full flush, 0
 *                            when the CPU was already up to date. The early
 *                            return (f->new_tlb_gen <= local_tlb_gen), a CPU
 *                            on init_mm and one on a global ASID report
 *                            nothing, as in the kernel.
 *  TLB_REMOTE_SEND_IPI       flush_tlb_multi() entered: pages of the range
 *                            ((end - start) >> PAGE_SHIFT) or TLB_FLUSH_ALL.
 *                            The kernel traces it in native_flush_tlb_multi(),
 *                            which kvm_flush_tlb_multi() and the PVM guest's
 *                            flush reach too; Hyper-V's
 *                            hyperv_flush_tlb_multi() traces
 *                            hyperv_mmu_flush_tlb_multi instead, and the
 *                            model reports reason 4 there as well.
 *  TLB_REMOTE_WRONG_CPU      flush_tlb_func() on a CPU that runs another mm
 *                            than f->mm (it leaves mm_cpumask): pages 0.
 * INVLPGB broadcasts and flush_tlb_kernel_range() trace nothing in the kernel
 * and report nothing here.
 */
#ifndef TLBGEN_DECISION_H
#define TLBGEN_DECISION_H

#include <tlbgen/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* enum tlb_flush_reason, values as in include/linux/mm_types.h. */
enum tlbgen_tlb_flush_reason {
	TLBGEN_TLB_FLUSH_ON_TASK_SWITCH = 0,
	TLBGEN_TLB_REMOTE_SHOOTDOWN = 1,
	TLBGEN_TLB_LOCAL_SHOOTDOWN = 2,
	TLBGEN_TLB_LOCAL_MM_SHOOTDOWN = 3,
	TLBGEN_TLB_REMOTE_SEND_IPI = 4,
	TLBGEN_TLB_REMOTE_WRONG_CPU = 5,
	TLBGEN_NR_TLB_FLUSH_REASONS = 6,
};

/* One decision, as the tracepoint records it, and what it concerned. */
struct tlbgen_flush_decision {
	unsigned int cpu;			/* the CPU that took it */
	enum tlbgen_tlb_flush_reason reason;
	unsigned long pages;			/* as the tracepoint: a count, 0, or
						 * TLBGEN_TLB_FLUSH_ALL */
	const struct tlbgen_mm *mm;		/* reason 0: the mm switched to (NULL:
						 * init_mm); others: the flush's mm
						 * (NULL: a batch or kernel flush) */
	unsigned int initiator;			/* the CPU that asked for the flush
						 * (reason 0: cpu) */
};

struct tlbgen_decision_ops {
	size_t sz;	/* sizeof(struct tlbgen_decision_ops) */
	/* Called synchronously on the CPU that decided (stepped and virtual
	 * mode: the host thread; threaded: that CPU's thread), with IRQs off
	 * where the kernel has them off. Must not call back into the system. */
	void (*decision)(void *ctx, const struct tlbgen_flush_decision *d);
	void *ctx;
};

/*
 * tlbgen_system__set_decision_hook - install (or with NULL remove) the
 * decision hook; ops is copied.
 * Errors: -EINVAL (NULL sys, bad ops->sz or non-zero bytes past ctx, no
 * decision callback), -EBUSY while a flush is in flight or threads are
 * attached. Not thread-safe against other calls on `sys`.
 */
TLBGEN_API int tlbgen_system__set_decision_hook(struct tlbgen_system *sys,
						const struct tlbgen_decision_ops *ops);

/*
 * tlbgen_tlb_flush_reason_name - the kernel's name of a reason ("flush on
 * task switch", "remote shootdown", "local shootdown", "local mm shootdown",
 * "remote IPI send", "remote wrong CPU"), NULL out of range. Thread-safe.
 */
TLBGEN_API const char *tlbgen_tlb_flush_reason_name(enum tlbgen_tlb_flush_reason reason);

#ifdef __cplusplus
}
#endif
#endif
