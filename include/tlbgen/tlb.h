/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tlbgen/tlb.h - the x86 operations of arch/x86/mm/tlb.c, under their kernel
 * names. Each runs "on" an emulated CPU:
 *  - stepped mode: called by the host thread, for any CPU;
 *  - threaded mode: called by the thread attached as that CPU (-EPERM if not).
 *
 * Common errors, checked before any state changes:
 *  -EINVAL  NULL system, cpu >= nr_cpus, an mm of another system, bad range;
 *  -EBUSY   the CPU is waiting for acknowledgements of an earlier flush
 *           (stepped mode; deliver the IPIs first);
 *  -EPERM   threaded mode, calling thread is not attached as `cpu`;
 *  -EDEADLK called from a cross-CPU callback running on `cpu` (its IRQs are
 *           off: tlbgen/smp.h); the kernel WARNs there.
 *
 * Thread-safety: in stepped mode one host thread drives the system; in
 * threaded mode each CPU's operations run on the thread attached as it.
 *
 * Flushes return 0 once dispatched. In threaded mode they also have waited
 * for every target; in stepped mode the initiator may be left waiting
 * (tlbgen_cpu__is_waiting()) until the host delivers the IPIs.
 */
#ifndef TLBGEN_TLB_H
#define TLBGEN_TLB_H

#include <tlbgen/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * tlbgen_switch_mm - switch_mm_irqs_off(prev, next): load `next` (NULL for
 * init_mm) on `cpu`: ASID choice among the 6 dynamic ASIDs, need_flush from
 * ctxs[asid].{ctx_id,tlb_gen} against next->context, the lazy re-entry check,
 * and the profile's mm_cpumask and ordering rules.
 */
TLBGEN_API int tlbgen_switch_mm(struct tlbgen_system *sys, unsigned int cpu,
				struct tlbgen_mm *next);

/* tlbgen_enter_lazy_tlb - enter_lazy_tlb(): mark `cpu` lazy unless on init_mm. */
TLBGEN_API int tlbgen_enter_lazy_tlb(struct tlbgen_system *sys, unsigned int cpu);

/*
 * tlbgen_leave_mm - leave_mm(): a lazy CPU switches to init_mm. No-op on
 * init_mm. A CPU that is not lazy switches too, after the kernel's WARN
 * (counted in tlbgen_system__warns()).
 */
TLBGEN_API int tlbgen_leave_mm(struct tlbgen_system *sys, unsigned int cpu);

/*
 * tlbgen_flush_tlb_mm_range - flush_tlb_mm_range(): bump mm->context.tlb_gen
 * (a full barrier), apply the range ceiling where the profile puts it, and
 * flush on every CPU of mm_cpumask(mm) (flush_tlb_multi) or locally or not at
 * all. `end` may be TLBGEN_TLB_FLUSH_ALL. stride_shift is 12..30.
 */
TLBGEN_API int tlbgen_flush_tlb_mm_range(struct tlbgen_system *sys, unsigned int cpu,
					 struct tlbgen_mm *mm, unsigned long start,
					 unsigned long end, unsigned int stride_shift,
					 bool freed_tables);

/* tlbgen_flush_tlb_mm - flush_tlb_mm(mm): full range, freed_tables = true. */
TLBGEN_API int tlbgen_flush_tlb_mm(struct tlbgen_system *sys, unsigned int cpu,
				   struct tlbgen_mm *mm);

/* tlbgen_flush_tlb_page - flush_tlb_page(): one 4 KiB page, freed_tables = false. */
TLBGEN_API int tlbgen_flush_tlb_page(struct tlbgen_system *sys, unsigned int cpu,
				     struct tlbgen_mm *mm, unsigned long addr);

/*
 * tlbgen_flush_tlb_kernel_range - flush_tlb_kernel_range(): every CPU (no
 * mm_cpumask, no lazy filter), generation TLB_GENERATION_INVALID; a full
 * flush past the ceiling (bytes before 4a02ed8e1cc3, pages after). With
 * INVLPGB in use (82378c6c2f43) no IPI: INVLPGBs of invlpgb_count_max
 * pages, or one of everything, then TLBSYNC.
 */
TLBGEN_API int tlbgen_flush_tlb_kernel_range(struct tlbgen_system *sys, unsigned int cpu,
					     unsigned long start, unsigned long end);

/*
 * tlbgen_set_tlb_single_page_flush_ceiling - the debugfs file
 * tlb_single_page_flush_ceiling: -EINVAL for NULL or a negative value, 0
 * allowed. Policy state: -EBUSY while a flush is in flight (stepped) or CPUs
 * are attached (threaded). Not thread-safe against other calls on `sys`.
 */
TLBGEN_API int tlbgen_set_tlb_single_page_flush_ceiling(struct tlbgen_system *sys,
							 long pages);
/* tlbgen_get_tlb_single_page_flush_ceiling - current value, or -EINVAL. Thread-safe. */
TLBGEN_API long tlbgen_get_tlb_single_page_flush_ceiling(const struct tlbgen_system *sys);

/* CPU state, as the kernel's per-CPU variables ---------------------------- */

struct tlbgen_cpu_tlbstate {
	uint64_t loaded_mm_ctx_id;	/* ctx_id of loaded_mm (1 = init_mm) */
	bool loaded_mm_switching;	/* loaded_mm == LOADED_MM_SWITCHING */
	uint16_t loaded_mm_asid;	/* >= TLBGEN_TLB_NR_DYN_ASIDS: a global ASID */
	uint16_t next_asid;
	bool is_lazy;			/* cpu_tlbstate_shared.is_lazy */
	struct { uint64_t ctx_id, tlb_gen; } ctxs[TLBGEN_TLB_NR_DYN_ASIDS];
};

/*
 * tlbgen_cpu__tlbstate - snapshot cpu_tlbstate and cpu_tlbstate_shared of
 * `cpu`. Errors: -EINVAL. Exact in stepped mode; a racy snapshot in threaded
 * mode unless called by the CPU's own thread.
 */
TLBGEN_API int tlbgen_cpu__tlbstate(const struct tlbgen_system *sys, unsigned int cpu,
				    struct tlbgen_cpu_tlbstate *out);

/*
 * tlbgen_cpu__loaded_mm_is - 1 if `cpu` has `mm` loaded (NULL: init_mm), 0
 * if not, -EINVAL (NULL system, cpu out of range). Thread-safe.
 */
TLBGEN_API int tlbgen_cpu__loaded_mm_is(const struct tlbgen_system *sys, unsigned int cpu,
					const struct tlbgen_mm *mm);

/*
 * tlbgen_cpu__local_tlb_gen - ctxs[loaded_mm_asid].tlb_gen of `cpu`, i.e. the
 * generation of the loaded mm it has caught up to (0 on a global ASID,
 * which INVLPGB keeps current without generations). -EINVAL. Thread-safe for
 * the CPU's own thread, racy snapshot otherwise.
 */
TLBGEN_API int tlbgen_cpu__local_tlb_gen(const struct tlbgen_system *sys, unsigned int cpu,
					 uint64_t *out);

/*
 * tlbgen_vcpu__preempt - the host schedules vCPU `cpu` out: its steal_time
 * says KVM_VCPU_PREEMPTED. Until tlbgen_vcpu__resume() the CPU runs nothing
 * (its operations return -EBUSY) and takes no interrupt (IPIs stay
 * pending). Under pv_flush_tlb_multi=kvm a flusher then marks it
 * KVM_VCPU_FLUSH_TLB instead of sending it an IPI. Stepped mode only.
 * Errors: -EINVAL, -EOPNOTSUPP (threaded), -EALREADY (already preempted),
 * -EBUSY (waiting for acknowledgements). Not thread-safe.
 */
TLBGEN_API int tlbgen_vcpu__preempt(struct tlbgen_system *sys, unsigned int cpu);

/*
 * tlbgen_vcpu__resume - the host runs vCPU `cpu` again: record_steal_time()
 * clears its steal_time and, if a flusher marked it KVM_VCPU_FLUSH_TLB,
 * flushes its whole TLB first (kvm_vcpu_flush_tlb_guest(); counted as
 * TLBGEN_STAT_PV_FLUSH_AT_RESUME). Returns 1 if it flushed, 0 if not.
 * Errors: -EINVAL, -EOPNOTSUPP (threaded), -EALREADY (not preempted).
 * Not thread-safe.
 */
TLBGEN_API int tlbgen_vcpu__resume(struct tlbgen_system *sys, unsigned int cpu);

/* tlbgen_vcpu__is_preempted - 1 or 0, or -EINVAL / -EOPNOTSUPP. Not thread-safe. */
TLBGEN_API int tlbgen_vcpu__is_preempted(const struct tlbgen_system *sys, unsigned int cpu);

#ifdef __cplusplus
}
#endif
#endif
