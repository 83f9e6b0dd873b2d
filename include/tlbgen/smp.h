/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tlbgen/smp.h - cross-CPU function calls (kernel/smp.c) for the user's own
 * callbacks.
 *
 * The flush code reaches remote CPUs through smp_call_function_many_cond():
 * per target a call_single_queue, per (initiator, target) a csd, an IPI
 * only when the target's queue was empty. This header lets a user send a
 * call of their own down the same path, to time the transport alone
 * (tlbgen-bench transport) or to model another IPI user (membarrier,
 * text_poke_sync) contending with the flushes on the same queues.
 */
#ifndef TLBGEN_SMP_H
#define TLBGEN_SMP_H

#include <tlbgen/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A cross-CPU callback (smp_call_func_t). It runs on `cpu` with that CPU's
 * IRQs off: from flush_smp_call_function_queue() on a target, directly on
 * the caller for target == cpu. Any operation on `cpu` from inside it (a
 * flush, a switch_mm, an access, another call) returns -EDEADLK, as the
 * kernel WARNs on irqs_disabled() there. With the TLBGEN_IPI_SIGNAL
 * backend the callback may run inside the signal handler, interrupting
 * any code of that thread: it must then be async-signal-safe (no locks,
 * no malloc, no stdio; tlbgen_oracle__violation() takes a lock).
 */
typedef void (*tlbgen_smp_call_func_t)(struct tlbgen_system *sys, unsigned int cpu,
				       void *info);

/*
 * tlbgen_smp_call_function_single - run func(sys, target, info) on `target`,
 * called from `cpu`, and wait for it (smp_call_function_single(..., wait=1)).
 *
 * target == cpu runs func at once with IRQs off (generic_exec_single()).
 * Otherwise cpu locks its csd for target, queues it on target's
 * call_single_queue and raises an IPI if the queue was empty. Threaded
 * mode: returns once func has run on target (and the csd is unlocked),
 * servicing cpu's own incoming calls while it waits; a target with no
 * thread attached runs it only once one attaches, and the csd-lock
 * watchdog reports the wait meanwhile (tlbgen/runtime.h). Stepped mode: returns
 * at once with cpu waiting (tlbgen_cpu__is_waiting()) until target's queue
 * is delivered.
 *
 * Returns 0, or -EINVAL (NULL sys or func, cpu or target out of range),
 * -EPERM (threaded: the caller is not attached as cpu), -EBUSY (stepped:
 * cpu still waits for an earlier flush or call; checked before -EDEADLK),
 * -EDEADLK (called from a callback running on cpu, i.e. with cpu's IRQs
 * off), -ENOMEM (cpu's csds could not be allocated on its first call).
 * Nothing is queued on error.
 *
 * Thread-safety: threaded mode, from the thread attached as cpu; any number
 * of CPUs may call each other concurrently. Stepped mode: the host thread.
 */
TLBGEN_API int tlbgen_smp_call_function_single(struct tlbgen_system *sys, unsigned int cpu,
					       unsigned int target, tlbgen_smp_call_func_t func,
					       void *info);

#ifdef __cplusplus
}
#endif

#endif /* TLBGEN_SMP_H */
