/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tlbgen/stepped.h - deterministic, single-thread execution.
 *
 * In stepped mode every cross-CPU call is queued on its target's
 * call_single_queue and nothing runs until the host asks. An initiator that
 * sent IPIs stays "waiting" until every target has run its callback and
 * unlocked the csd; then it completes the flush (put_flush_tlb_info()).
 * The same seed gives the same event order and the same counters.
 *
 * All functions here: -EINVAL for NULL or cpu out of range, -EOPNOTSUPP on a
 * threaded system. Not thread-safe: one host thread drives a stepped system.
 */
#ifndef TLBGEN_STEPPED_H
#define TLBGEN_STEPPED_H

#include <tlbgen/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * tlbgen_deliver - an IRQ-enable point on `cpu`: drain its call queue
 * (flush_smp_call_function_queue()), SYNC callbacks first in FIFO order.
 * Returns the number of callbacks run (0 if the queue was empty).
 */
TLBGEN_API int tlbgen_deliver(struct tlbgen_system *sys, unsigned int cpu);

/*
 * tlbgen_deliver_from - run only the call that `src` queued on `cpu`, out of
 * queue order. This models the kernel window between inc_mm_tlb_gen() and
 * llist_add(), in which a later generation's IPI can overtake an earlier
 * one. Returns 1, or -ENOENT if `src` has no call queued on `cpu`.
 */
TLBGEN_API int tlbgen_deliver_from(struct tlbgen_system *sys, unsigned int cpu,
				   unsigned int src);

/*
 * tlbgen_step - let the seeded scheduler pick one CPU with pending IPIs and
 * deliver them. Returns the CPU chosen, or -ENOENT when no IPI is pending.
 */
TLBGEN_API int tlbgen_step(struct tlbgen_system *sys);

/*
 * tlbgen_run_until_idle - tlbgen_step() until no IPI is pending.
 * Returns the number of deliveries made.
 */
TLBGEN_API int tlbgen_run_until_idle(struct tlbgen_system *sys);

/*
 * tlbgen_stepped__run - run the programs of a stepped system
 * (tlbgen_cpu__spawn() gives CPU n a program: a coroutine on this thread)
 * for `steps` steps, then let them finish. Each step the seeded scheduler
 * picks uniformly among the CPUs with an IPI pending (delivered as
 * tlbgen_deliver() does) and the programs that can run, and resumes the
 * one picked until it yields: at tlbgen_cpu__should_stop() (the top of
 * its loop), in csd_lock_wait() until its targets answered (a flush
 * returns when it is complete, as in the kernel), or asleep
 * (tlbgen/workload.h). Once `steps` are taken tlbgen_cpu__should_stop()
 * returns 1 and sleepers wake; the run goes on until every program
 * returned and nothing is pending. Same seed, same programs: same run.
 * Returns 0, or -EINVAL (not a stepped system), -EBUSY (called from a
 * program), -EDEADLK (programs left that can neither run nor be
 * answered), -ENOMEM. Not thread-safe against other calls on the system.
 */
TLBGEN_API int tlbgen_stepped__run(struct tlbgen_system *sys, uint64_t steps);

/* tlbgen_cpu__is_waiting - 1 if `cpu` waits for acknowledgements, else 0. */
TLBGEN_API int tlbgen_cpu__is_waiting(const struct tlbgen_system *sys, unsigned int cpu);

/*
 * tlbgen_cpu__preempt_waiter - the task of `cpu`, waiting in csd_lock_wait()
 * for its targets (tlbgen_cpu__is_waiting() == 1), is preempted: another
 * task runs on `cpu`, which takes operations again, its own flushes and
 * calls included, while the first task's csds stay outstanding. Possible
 * where the profile enables preemption before the wait (smp_wait_preempt=on,
 * 8df8a6028309) and the waiting operation holds none: flush_tlb_mm_range()
 * needs flush_multi_preempt=on too (a5a162fe1ae1); smp_call_function_single(),
 * the kernel-range and the batch flush are not preemptible in the model.
 * The waiter keeps its done/waiting state, its wait mask only under
 * smp_cfd_mask=task-local and its flush_tlb_info only under
 * flush_tlb_info=stack: with per-cpu ones the task that runs reuses them,
 * the race those commits close. A csd the new task needs that the waiter
 * still holds is taken by its target first (csd_lock() blocks until then).
 * One waiter per CPU. Until it resumed and its wait ended it is in
 * flight: tlbgen_system__destroy() and set_choices refuse with -EBUSY.
 * Returns 0; -EINVAL (bad arguments, not stepped);
 * -EOPNOTSUPP (the profile keeps preemption off in the wait); -ENOENT
 * (nothing waits on `cpu`); -EPERM (this wait holds preemption off);
 * -EBUSY (a waiter is already preempted on `cpu`, or a program runs it);
 * -ENOMEM. On error nothing changes. Not thread-safe (stepped mode).
 */
TLBGEN_API int tlbgen_cpu__preempt_waiter(struct tlbgen_system *sys, unsigned int cpu);

/*
 * tlbgen_cpu__resume_waiter - the task tlbgen_cpu__preempt_waiter() put
 * aside runs again, in csd_lock_wait() over the mask it walks: the wait
 * ends now if every csd in that mask is unlocked (with a per-cpu mask,
 * whatever the other task left there), else when the last one is. Returns
 * 0; -EINVAL; -ENOENT (no waiter preempted on `cpu`); -EBUSY (the task
 * running on `cpu` waits itself). On error nothing changes.
 */
TLBGEN_API int tlbgen_cpu__resume_waiter(struct tlbgen_system *sys, unsigned int cpu);

/* tlbgen_cpu__preempted_waiter - 1 if a waiter is preempted on `cpu`, else
 * 0; -EINVAL (bad arguments, not stepped). */
TLBGEN_API int tlbgen_cpu__preempted_waiter(const struct tlbgen_system *sys, unsigned int cpu);

/* tlbgen_cpu__pending_calls - number of calls queued on `cpu`. */
TLBGEN_API int tlbgen_cpu__pending_calls(const struct tlbgen_system *sys, unsigned int cpu);

/*
 * tlbgen_cpu__ipi_pending - 1 if an IPI was raised to `cpu` (its queue went
 * from empty to non-empty) and not yet serviced, else 0.
 */
TLBGEN_API int tlbgen_cpu__ipi_pending(const struct tlbgen_system *sys, unsigned int cpu);

#ifdef __cplusplus
}
#endif
#endif
