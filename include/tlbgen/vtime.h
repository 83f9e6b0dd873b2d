/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tlbgen/vtime.h - the virtual-time mode (TLBGEN_MODE_VIRTUAL).
 *
 * Every emulated CPU runs as a coroutine on the calling thread, each with a
 * virtual clock in cycles of the system's machine model (tlbgen/machine.h).
 * Every access to a line other CPUs share (the tlb_gen line, mm_cpumask,
 * cpu_tlbstate, is_lazy, flush_tlb_info, csds, call queues) is a scheduling
 * point costed by a MESI directory; so are IRQ-enable points and waits. The
 * scheduler always resumes the CPU with the lowest clock, ties broken by the
 * system's seed: the same seed gives the same execution, bit for bit.
 *
 * An IPI arrives ipi_latency cycles after it was sent and is taken at the
 * target's next moment with IRQs on: an access, an IRQ-enable point, user
 * work (tlbgen_vtime__spend()), a wait or the idle loop. csd_lock_wait()
 * waits in virtual time; idle CPUs sleep until an IPI arrives.
 *
 * Programs: tlbgen_cpu__spawn(sys, cpu, fn, arg) gives CPU `cpu` a program;
 * tlbgen_vtime__run() runs every program (and the IPIs they cause) until
 * the virtual deadline; CPUs without a program idle. The library's entry
 * points are called from inside programs, as the CPU they run on.
 */
#ifndef TLBGEN_VTIME_H
#define TLBGEN_VTIME_H

#include <tlbgen/common.h>
#include <tlbgen/trace.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Kernel events a program charges to its CPU's clock (struct tlbgen_machine). */
enum tlbgen_vt_event {
	TLBGEN_VT_SYSCALL = 0,	/* entry and exit of a system call */
	TLBGEN_VT_PAGE_FAULT,	/* a minor fault */
	TLBGEN_VT_PTL,		/* taking the page-table lock */
	TLBGEN_VT_ZAP,		/* zapping one PTE */
	TLBGEN_VT_USER_WORK,	/* the machine's user work between operations */
	TLBGEN_VT_EVENT_NR,
};

/*
 * tlbgen_vtime__run - run the programs of a virtual system until every CPU
 * with a program has returned and nothing is in flight, or until virtual
 * time `until` (cycles; programs see tlbgen_cpu__should_stop() then and
 * are expected to return). Can be called again to continue.
 * Errors: -EINVAL (not a virtual system), -EBUSY (called from a program or
 * from a thread attached to a system), -EDEADLK (CPUs still wait on csds
 * nobody will unlock: a program returned inside a flush), -ENOMEM.
 * Not thread-safe against other calls on the same system.
 */
TLBGEN_API int tlbgen_vtime__run(struct tlbgen_system *sys, uint64_t until);

/*
 * tlbgen_vtime__now - `cpu`'s virtual clock in cycles into *out.
 * -EINVAL for a bad system, cpu or NULL out.
 */
TLBGEN_API int tlbgen_vtime__now(const struct tlbgen_system *sys, unsigned int cpu,
				 uint64_t *out);

/*
 * tlbgen_vtime__spend - `cpu` (the caller's CPU) works `cycles` with IRQs
 * on: IPIs that arrive meanwhile are taken, and lengthen it by their
 * handling time. Errors: -EINVAL, -EPERM (not called by `cpu`'s program),
 * -EDEADLK (from a cross-CPU callback).
 */
TLBGEN_API int tlbgen_vtime__spend(struct tlbgen_system *sys, unsigned int cpu,
				   uint64_t cycles);

/*
 * tlbgen_vtime__event - as tlbgen_vtime__spend() for `n` times the
 * machine's cost of `ev`. Errors as tlbgen_vtime__spend(), and -EINVAL for
 * an unknown event.
 */
TLBGEN_API int tlbgen_vtime__event(struct tlbgen_system *sys, unsigned int cpu,
				   enum tlbgen_vt_event ev, unsigned long n);

struct tlbgen_vtime_stats {
	size_t sz;			/* sizeof(struct tlbgen_vtime_stats) */
	uint64_t sched_points;		/* scheduling points passed */
	uint64_t switches;		/* coroutine switches among them */
	uint64_t ipis_taken;		/* interrupts taken */
	uint64_t wait_blocks;		/* csd waits that slept until an unlock */
	uint64_t line_waits;		/* accesses that queued behind a transfer of their line */
	uint64_t now;			/* the latest CPU clock, cycles */
	uint64_t transfers[TLBGEN_LINE_NR];	/* coherence transfers per line kind */
};

/*
 * tlbgen_vtime__stats - counters of the run so far into *out (out->sz set
 * by the caller; fields past it are not written). -EINVAL.
 */
TLBGEN_API int tlbgen_vtime__stats(const struct tlbgen_system *sys,
				   struct tlbgen_vtime_stats *out);

/*
 * tlbgen_vtime__machine - the system's machine model into *out. -EINVAL.
 */
TLBGEN_API int tlbgen_vtime__machine(const struct tlbgen_system *sys,
				     struct tlbgen_machine *out);

#ifdef __cplusplus
}
#endif
#endif
