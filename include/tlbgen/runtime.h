/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tlbgen/runtime.h - threaded mode: emulated CPUs on real pthreads.
 *
 * A thread attaches itself as CPU n (as a liburcu reader registers) and from
 * then on runs that CPU's operations; or the library spawns a pinned thread
 * for CPU n (tlbgen_cpu__spawn) that runs a callback and then idles,
 * servicing IPIs, until joined.
 *
 * IPI delivery is chosen per system (struct tlbgen_runtime_opts.backend):
 *  - TLBGEN_IPI_POLL: IPIs are taken at IRQ-enable points only: tlbgen_poll(),
 *    the idle loop of spawned CPUs, and every wait loop inside the library;
 *  - TLBGEN_IPI_SIGNAL: additionally pthread_kill() interrupts the target,
 *    whose handler runs the queued callbacks unless the CPU has "IRQs off"
 *    (inside switch_mm, a flush callback, a simulated TLB access); the IPI
 *    is then taken when IRQs are enabled again. The signal is SIGRTMIN+5;
 *    its handler is installed process-wide by the first such system and
 *    stays. A callback run from the handler may lose a per-CPU counter
 *    increment it interrupts (counters are single-writer, not atomic RMWs),
 *    and a user's callback (tlbgen/smp.h) must be async-signal-safe.
 *
 * A CPU that detaches (or whose spawned thread is joined) while it is still
 * in an mm's cpumask cannot answer that mm's flushes: its initiators wait,
 * and the csd-lock watchdog (watchdog_ms) reports the CPU, the function and
 * since when (tlbgen_runtime__stats().watchdog_reports counts the reports).
 * Each report (one every watchdog_ms while the wait lasts, with a WARN line)
 * also sends the IPI again, signal and futex wake, to an attached CPU whose
 * queue still holds work, as csd_lock_wait_toolong() does: a signal that
 * never reached its handler is not a wait for ever.
 *
 * Wait loops spin briefly, then sched_yield(), then sleep on a futex, so
 * more emulated CPUs than real cores work (the library says so once).
 */
#ifndef TLBGEN_RUNTIME_H
#define TLBGEN_RUNTIME_H

#include <tlbgen/common.h>

#ifdef __cplusplus
extern "C" {
#endif

enum tlbgen_ipi_backend {
	TLBGEN_IPI_POLL = 0,	/* IPIs handled at explicit IRQ-enable points */
	TLBGEN_IPI_SIGNAL,	/* pthread_kill() interrupts the target thread */
};

struct tlbgen_runtime_opts {
	size_t sz;			/* sizeof(struct tlbgen_runtime_opts) */
	enum tlbgen_ipi_backend backend;
	unsigned int watchdog_ms;	/* csd-lock timeout report; 0 = 5000 */
	unsigned int spin_before_yield;	/* wait-loop spins before sched_yield; 0 = default */
	/* Real CPUs to pin emulated CPU i to (cpu_list[i % nr_cpu_list]); NULL =
	 * one per real core of the creating thread's affinity, spread across
	 * NUMA nodes. Entries may repeat (oversubscription on purpose). */
	const int *cpu_list;
	unsigned int nr_cpu_list;
	unsigned int yields_before_sleep; /* sched_yield()s before a futex sleep; 0 = default */
};

/*
 * tlbgen_cpu__attach - make the calling thread emulated CPU `cpu` of a
 * threaded system. The thread is not pinned (see tlbgen_cpu__pin).
 * Errors: -EINVAL (NULL, out of range, stepped system),
 * -EBUSY (CPU already attached, or this thread already is another CPU).
 * Thread-safe.
 */
TLBGEN_API int tlbgen_cpu__attach(struct tlbgen_system *sys, unsigned int cpu);

/*
 * tlbgen_cpu__detach - the calling thread stops being `cpu`. Pending IPIs are
 * serviced first. Errors: -EINVAL, -EPERM (not this thread's CPU).
 * Called by the attached thread itself.
 */
TLBGEN_API int tlbgen_cpu__detach(struct tlbgen_system *sys, unsigned int cpu);

/*
 * tlbgen_poll - an IRQ-enable point: service the calling CPU's incoming
 * IPIs. Returns the number of callbacks run. Errors: -EINVAL, -EPERM (the
 * caller is not the thread attached as `cpu`). Called by that thread.
 */
TLBGEN_API int tlbgen_poll(struct tlbgen_system *sys, unsigned int cpu);

/*
 * tlbgen_this_cpu - the CPU id the calling thread is attached as in `sys`,
 * or -ENOENT (not attached, or NULL sys). Thread-safe (reads thread-local
 * state).
 */
TLBGEN_API int tlbgen_this_cpu(const struct tlbgen_system *sys);

/* The body of a spawned CPU: runs attached as `cpu`; its return value is
 * handed to tlbgen_cpu__join(). */
typedef int (*tlbgen_cpu_fn)(struct tlbgen_system *sys, unsigned int cpu, void *arg);

/*
 * tlbgen_cpu__spawn - start a thread, pinned by the system's placement
 * (tlbgen_runtime__host_cpu), that attaches as `cpu`, runs fn(sys, cpu, arg)
 * and then the idle loop (servicing IPIs, sleeping when there are none)
 * until tlbgen_cpu__join(). fn == NULL: just the idle loop, e.g. a CPU that
 * is in an mm's cpumask but runs something else.
 * In virtual mode (tlbgen/vtime.h) and stepped mode (tlbgen/stepped.h,
 * tlbgen_stepped__run(); fn must not be NULL) no thread is created: fn
 * runs as a coroutine of the calling thread when the system is run.
 * Errors: -EINVAL (NULL sys, cpu out of range, stepped with fn NULL),
 * -EBUSY (the CPU is attached or already has a program), -EAGAIN (no
 * thread could be created), -ENOMEM. Thread-safe.
 */
TLBGEN_API int tlbgen_cpu__spawn(struct tlbgen_system *sys, unsigned int cpu,
				 tlbgen_cpu_fn fn, void *arg);

/*
 * tlbgen_cpu__should_stop - 1 once tlbgen_cpu__join() has been called for
 * `cpu`, else 0; for loops in a spawned callback. In virtual mode 1 once
 * the CPU's clock reached the run's deadline; in stepped mode a point
 * where the scheduler may run another CPU first, then 1 once the run's
 * steps are taken. -EINVAL. Thread-safe.
 */
TLBGEN_API int tlbgen_cpu__should_stop(const struct tlbgen_system *sys, unsigned int cpu);

/*
 * tlbgen_cpu__join - ask the spawned thread of `cpu` to stop (its idle loop
 * ends; its callback sees tlbgen_cpu__should_stop()), wait for it to detach
 * and exit, and store its callback's return value in *ret (may be NULL;
 * 0 for an idle CPU, a negative errno if it could not attach).
 * A joined CPU no longer answers IPIs, but it stays in the mm_cpumasks it
 * was in (there is no CPU hot-unplug here): a later flush that targets it
 * waits, and the watchdog names it. So stop the loops of every CPU that may
 * still flush before joining any of them, as tlbgen-bench soak does.
 * Errors: -EINVAL, -ESRCH (not spawned), -EDEADLK (called by that thread).
 * Thread-safe against calls for other CPUs.
 */
TLBGEN_API int tlbgen_cpu__join(struct tlbgen_system *sys, unsigned int cpu, int *ret);

/*
 * tlbgen_cpu__pin - pin the calling thread to the real CPU that the
 * placement gives `cpu` (what a spawned thread does itself).
 * Errors: -EINVAL, or the negative errno of pthread_setaffinity_np().
 */
TLBGEN_API int tlbgen_cpu__pin(struct tlbgen_system *sys, unsigned int cpu);

/* tlbgen_runtime__host_cpu - the real CPU `cpu` is placed on, or -EINVAL. Thread-safe. */
TLBGEN_API int tlbgen_runtime__host_cpu(const struct tlbgen_system *sys, unsigned int cpu);

/*
 * tlbgen_runtime__oversubscribed - 1 when the system has more emulated CPUs
 * than distinct real CPUs to place them on, 0 if not, -EINVAL (NULL or a
 * stepped system). Thread-safe.
 */
TLBGEN_API int tlbgen_runtime__oversubscribed(const struct tlbgen_system *sys);

struct tlbgen_runtime_stats {
	size_t sz;			/* sizeof(struct tlbgen_runtime_stats) */
	uint64_t watchdog_reports;	/* csd-lock timeouts reported */
	uint64_t signals_sent;		/* pthread_kill() IPIs (signal backend) */
	uint64_t signals_handled;	/* handler ran the queue */
	uint64_t signals_deferred;	/* handler found IRQs off: taken at irq-enable */
	uint64_t yields;		/* sched_yield() in wait loops */
	uint64_t futex_sleeps;		/* futex waits in wait and idle loops */
	uint64_t ipis_resent;		/* watchdog re-sends, either backend */
};

/*
 * tlbgen_runtime__stats - copy the runtime's counters (fields up to
 * out->sz; out->sz is set to the bytes filled, which is less when this
 * library's struct is shorter). Errors: -EINVAL (NULL, bad sz, stepped
 * system). Thread-safe, racy snapshot.
 */
TLBGEN_API int tlbgen_runtime__stats(const struct tlbgen_system *sys,
				     struct tlbgen_runtime_stats *out);

#ifdef __cplusplus
}
#endif
#endif
