/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tlbgen/runtime.h - threaded mode: emulated CPUs on real pthreads.
 *
 * A thread attaches itself as CPU n (as a liburcu reader registers) and from
 * then on runs that CPU's operations. Incoming IPIs are serviced at
 * IRQ-enable points: tlbgen_poll(), and every wait loop inside the library.
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
	const int *cpu_list;		/* real CPUs to pin to, NULL = one per core, NUMA spread */
	unsigned int nr_cpu_list;
};

/*
 * tlbgen_cpu__attach - make the calling thread emulated CPU `cpu` of a
 * threaded system. Errors: -EINVAL (NULL, out of range, stepped system),
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

#ifdef __cplusplus
}
#endif
#endif
