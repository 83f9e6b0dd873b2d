/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/kernel/smp.h - the cross-CPU call engine of kernel/smp.c, as the
 * flush code and the transports use it.
 */
#ifndef TLBGEN_KERNEL_SMP_H
#define TLBGEN_KERNEL_SMP_H

#include "../core/state.h"

#define SCF_WAIT	(1U << 0)
#define SCF_RUN_LOCAL	(1U << 1)
typedef int (*tlbgen_smp_cond_func_t)(struct tlbgen_system *sys, unsigned int cpu, void *info);

int tlbgen__smp_init_cpu(struct tlbgen_system *sys, unsigned int cpu);
void tlbgen__smp_free_cpu(struct tlbgen_system *sys, unsigned int cpu);
/* Allocate src's csds at its first initiating call (-ENOMEM, nothing done). */
int tlbgen__smp_prepare(struct tlbgen_system *sys, unsigned int src);
/* tlbgen__check_op() for an operation that may send IPIs from `cpu`. */
int tlbgen__check_initiator(struct tlbgen_system *sys, unsigned int cpu);

/* smp_call_function_many_cond(): queue, IPI, run locally; no wait. */
void tlbgen__smp_call_function_many_cond(struct tlbgen_system *sys, unsigned int this_cpu,
					 const atomic_ulong *mask, tlbgen_smp_call_func_t func,
					 void *info, unsigned int scf_flags,
					 tlbgen_smp_cond_func_t cond_func);
/* csd_lock_wait() over cfd->cpumask, through the transport; then
 * done(sys, cpu, arg) (now, or when the last target answers). */
void tlbgen__smp_wait(struct tlbgen_system *sys, unsigned int cpu, tlbgen_done_fn done,
		      void *arg);
/* tlbgen__smp_wait(), saying whether the wait may be preempted: preemption
 * is on in csd_lock_wait() (8df8a6028309) and the caller holds none. */
void tlbgen__smp_wait_preemptible(struct tlbgen_system *sys, unsigned int cpu,
				  tlbgen_done_fn done, void *arg, bool preemptible);
/* Every csd in the running task's wait mask unlocked? Untraced. */
bool tlbgen__smp_mask_unlocked(const struct tlbgen_system *sys, unsigned int cpu);
/* For a transport whose wait saw every csd unlocked: run the done callback. */
void tlbgen__smp_wait_done(struct tlbgen_system *sys, unsigned int cpu);
/* One non-blocking csd_lock_wait() pass: every target answered? */
bool tlbgen__smp_all_acked(struct tlbgen_system *sys, unsigned int cpu);
void tlbgen__smp_wait_reads(struct tlbgen_system *sys, unsigned int cpu);
/* __flush_smp_call_function_queue(); only_src >= 0: that initiator's csd only. */
int tlbgen__flush_smp_call_function_queue(struct tlbgen_system *sys, unsigned int cpu,
					  int only_src);
int tlbgen__smp_queue_len(const struct tlbgen_system *sys, unsigned int cpu);

#endif
