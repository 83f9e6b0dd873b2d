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
	TLBGEN_VT_ZAP_BATCHED,	/* one page of a long zap (zap_batched, else zap) */
	TLBGEN_VT_LRU_FOLIO,	/* one folio's work under lru_lock (lru_folio; since
				 * TLBGEN_0.8) */
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
 * machine's cost of `ev`; for a syscall, page_fault, zap or zap_batched,
 * times one factor drawn from the machine's work_jitter (tlbgen/machine.h)
 * on the CPU's own seeded stream. Errors as tlbgen_vtime__spend(), and -EINVAL
 * for an unknown event.
 */
TLBGEN_API int tlbgen_vtime__event(struct tlbgen_system *sys, unsigned int cpu,
				   enum tlbgen_vt_event ev, unsigned long n);

/*
 * tlbgen_vtime__block - the program of `cpu` (the caller's CPU) blocks, as
 * a thread that sleeps on a lock: schedule() runs the idle task, which
 * waits in a hardware idle state (MWAIT). The CPU sleeps until virtual time
 * `until` (cycles; UINT64_MAX for no limit), the run's deadline
 * (tlbgen_vtime__run()'s `until`), or a tlbgen_vtime__wake() from another
 * program, whichever is first. IPIs that arrive meanwhile are taken, each
 * after `exit_latency` cycles (the idle state's exit latency, which the
 * sender's csd_lock_wait() sees); a wake also costs `exit_latency`.
 * Nothing of the TLB changes here: the program itself calls
 * tlbgen_enter_lazy_tlb() before (the switch to the idle task),
 * tlbgen_leave_mm() if the idle state loses the TLB
 * (CPUIDLE_FLAG_TLB_FLUSHED), and tlbgen_switch_mm() after (the switch back
 * to its thread). *slept (may be NULL) gets the cycles from the call to the
 * return. Returns 0 when woken, 1 at `until` or the deadline (a wake that
 * arrives later is kept for the next block). Errors: -EINVAL (not a
 * virtual system), -EPERM (not called by `cpu`'s program), -EDEADLK (from
 * a cross-CPU callback, or with IRQs off).
 */
TLBGEN_API int tlbgen_vtime__block(struct tlbgen_system *sys, unsigned int cpu, uint64_t until,
				   uint64_t exit_latency, uint64_t *slept);

/*
 * tlbgen_vtime__wake - the program of `cpu` (the caller's CPU) wakes the
 * thread blocked on `target` (try_to_wake_up()). The idle task of an MWAIT
 * idle CPU polls its need_resched flag, so no IPI is sent: the waker pays
 * one transfer of that line (same_socket or cross_socket, plus rmw) and the
 * target wakes when it is done. A wake for a CPU that is not blocked is
 * kept: its next tlbgen_vtime__block() returns at once (a task woken before
 * it slept does not sleep). A scheduling point. Errors: -EINVAL (not a
 * virtual system, target out of range or == cpu), -EPERM, -EDEADLK as
 * tlbgen_vtime__block().
 */
TLBGEN_API int tlbgen_vtime__wake(struct tlbgen_system *sys, unsigned int cpu,
				  unsigned int target);

/*
 * Where the CPUs' virtual time went (struct tlbgen_vtime_stats.time): each
 * advance of a CPU's clock is charged to one kind, so the kinds of a CPU
 * sum to its clock (tlbgen_vtime__now()).
 */
enum tlbgen_vt_time {
	TLBGEN_VT_TIME_WORK = 0,	/* tlbgen_vtime__event() and __spend(): syscalls,
					 * faults, zaps, user work */
	TLBGEN_VT_TIME_TLB,		/* the TLB's own cost: INVLPGs, full flushes,
					 * refills, INVLPGB/TLBSYNC, TLBI/DSB and
					 * the DSB ISH's wait for its turn */
	TLBGEN_VT_TIME_LINE,		/* shared-line accesses: hits and transfers */
	TLBGEN_VT_TIME_LINE_WAIT,	/* ... queued behind another transfer of the line,
					 * or spinning for a lock another CPU holds
					 * (lru_lock, since TLBGEN_0.8) */
	TLBGEN_VT_TIME_SEND,		/* sending: the ICR write of an IPI, a wake's line */
	TLBGEN_VT_TIME_IRQ,		/* interrupt entry and exit */
	TLBGEN_VT_TIME_CSD_WAIT,	/* csd_lock_wait(): asleep until the unlock, PAUSEs */
	TLBGEN_VT_TIME_IDLE,		/* idle, or blocked (tlbgen_vtime__block()), with
					 * the C-state exits */
	TLBGEN_VT_TIME_NR,
};

/*
 * tlbgen_vtime_time_name - a short name for `kind` ("work", "tlb", "line",
 * "line_wait", "send", "irq", "csd_wait", "idle"), or NULL for a kind out of
 * range. Thread-safe.
 */
TLBGEN_API const char *tlbgen_vtime_time_name(enum tlbgen_vt_time kind);

struct tlbgen_vtime_stats {
	size_t sz;			/* sizeof(struct tlbgen_vtime_stats) */
	uint64_t sched_points;		/* scheduling points passed */
	uint64_t switches;		/* coroutine switches among them */
	uint64_t ipis_taken;		/* interrupts taken */
	uint64_t wait_blocks;		/* csd waits that slept until an unlock */
	uint64_t line_waits;		/* accesses that queued behind a transfer of their line */
	uint64_t now;			/* the latest CPU clock, cycles */
	uint64_t transfers[TLBGEN_LINE_NR];	/* coherence transfers per line kind */
	/* Since TLBGEN_0.3: */
	uint64_t blocks;		/* tlbgen_vtime__block() calls */
	uint64_t wakes;			/* tlbgen_vtime__wake() calls */
	uint64_t idle_ipis;		/* interrupts taken by blocked CPUs */
	/* Since TLBGEN_0.4: */
	uint64_t time[TLBGEN_VT_TIME_NR];	/* cycles, summed over CPUs, per kind */
	uint64_t line_time[TLBGEN_LINE_NR];	/* cycles of TIME_LINE and TIME_LINE_WAIT
						 * per line kind */
	/* Since TLBGEN_0.6: */
	uint64_t lines;			/* distinct cachelines the MESI directory holds */
};

/*
 * tlbgen_vtime__stats - counters of the run so far into *out (out->sz set
 * by the caller; fields past it are not written). -EINVAL. Called from a
 * CPU's program, time[] is as of that CPU's clock: another CPU's sleep
 * counts up to it, not to where the sleep will end.
 */
TLBGEN_API int tlbgen_vtime__stats(const struct tlbgen_system *sys,
				   struct tlbgen_vtime_stats *out);

/*
 * tlbgen_vtime__machine - the system's machine model into *out. -EINVAL.
 */
TLBGEN_API int tlbgen_vtime__machine(const struct tlbgen_system *sys,
				     struct tlbgen_machine *out);

/*
 * Memory models. TLBGEN_MEMORY_SC (the default): every store reaches memory
 * when it is made. TLBGEN_MEMORY_TSO (x86-TSO): each emulated CPU has a
 * FIFO store buffer. Every plain store the kernel code makes to state other
 * CPUs read enters it: cpu_tlbstate.loaded_mm and loaded_mm_asid,
 * cpu_tlbstate_shared.is_lazy, mm->context.next_trim_cpumask, the csd
 * flags (csd_lock() and csd_unlock()), mm->context.global_asid and
 * asid_transition. The CPU's own loads forward from it, other CPUs read
 * memory; entries reach memory in order, so no store is visible before an
 * earlier one of the same CPU. It drains at smp_mb(), at every locked RMW
 * (inc_mm_tlb_gen(), mm_cpumask set/clear, llist_add() of a csd, the
 * batched-unmap and kernel-word atomics, the page-table lock), at
 * serialising points (the CR3 write of switch_mm_irqs_off(), the ICR write
 * that sends an IPI, interrupt entry and IRET), and when the CPU sleeps
 * (idle, csd_lock_wait(), user work) or its program returns. smp_rmb() and
 * smp_wmb() are compiler barriers on x86 and drain nothing. PTE writes are
 * not buffered (the oracle dates a PTE change when it is made): the buffer
 * drains before each. Otherwise an entry commits at the CPU's first
 * scheduling point at least a same-socket transfer after the store, or,
 * with a chooser, when the chooser drains it.
 */
enum tlbgen_memory_model {
	TLBGEN_MEMORY_SC = 0,
	TLBGEN_MEMORY_TSO,
};

/*
 * tlbgen_vtime__set_memory_model - the model of a virtual system; set it
 * before the first tlbgen_vtime__run(). -EINVAL (not a virtual system, an
 * unknown model), -EBUSY (called from a program).
 */
TLBGEN_API int tlbgen_vtime__set_memory_model(struct tlbgen_system *sys,
					      enum tlbgen_memory_model model);

/* One thing that may happen next at a scheduling point. */
enum tlbgen_vt_option_kind {
	TLBGEN_VT_RUN = 0,	/* CPU `cpu` runs to its next scheduling point */
	TLBGEN_VT_DRAIN,	/* the oldest store in `cpu`'s store buffer commits */
};

struct tlbgen_vt_option {
	enum tlbgen_vt_option_kind kind;
	unsigned int cpu;
};

/*
 * A chooser replaces the clock as the scheduler: at every scheduling point
 * choose() gets the options (opts[0] is the default: the running CPU goes
 * on, or, when it cannot, the CPU the clock would pick; then the other
 * runnable CPUs by number; then, under TSO, one drain per non-empty store
 * buffer by CPU number) and returns the index of the one taken (an index
 * >= n takes opts[0]). After a drain it is asked again. Virtual clocks
 * still count cycles, but no longer order the CPUs. note(), if set, gets
 * one line of kernel-level explanation per store-buffer event (a store
 * buffered, a buffer drained and why, a load that read memory while
 * another CPU's buffer held a newer value) and per IPI should_flush_tlb()
 * skipped; `cpu` is the CPU it happened on.
 */
struct tlbgen_vt_chooser {
	size_t sz;	/* sizeof(struct tlbgen_vt_chooser) */
	unsigned int (*choose)(void *ctx, unsigned int running,
			       const struct tlbgen_vt_option *opts, unsigned int n);
	void (*note)(void *ctx, unsigned int cpu, const char *what);
	void *ctx;
};

/*
 * tlbgen_vtime__set_chooser - schedule `sys` by chooser `c` (copied; NULL:
 * by the clock again) from now on. -EINVAL (not a virtual system, bad sz,
 * no choose()), -EBUSY (called from a program), -ENOMEM.
 */
TLBGEN_API int tlbgen_vtime__set_chooser(struct tlbgen_system *sys,
					 const struct tlbgen_vt_chooser *c);

/*
 * Barrier mutation, for tests of the memory model. Each call site of
 * smp_mb(), smp_rmb() and smp_wmb() in the policy code registers itself
 * (process-wide) the first time it runs, under the name "file.c:line".
 */
enum tlbgen_barrier_kind {
	TLBGEN_BARRIER_MB = 0,		/* smp_mb(): mfence on x86, drains the store buffer */
	TLBGEN_BARRIER_RMB,		/* smp_rmb(): a compiler barrier on x86 */
	TLBGEN_BARRIER_WMB,		/* smp_wmb(): a compiler barrier on x86 */
};

struct tlbgen_barrier_info {
	const char *site;		/* "file.c:line", static storage */
	enum tlbgen_barrier_kind kind;
	bool dropped;
};

/*
 * tlbgen_barrier_sites - the sites registered so far, at most n into out.
 * Returns how many are registered (more than n: some were not copied), or
 * -EINVAL (out NULL with n > 0). Thread-safe.
 */
TLBGEN_API int tlbgen_barrier_sites(struct tlbgen_barrier_info *out, size_t n);

/*
 * tlbgen_barrier_drop - drop (true) or restore (false) the barrier at
 * `site` in every system of the process: a dropped smp_mb() neither drains
 * a store buffer nor fences. A test's mutation, never a policy choice.
 * Returns 0, -EINVAL (NULL), -ENOENT (no such site registered yet: run
 * the code that reaches it first). Thread-safe; takes effect at the site's
 * next call.
 */
TLBGEN_API int tlbgen_barrier_drop(const char *site, bool drop);

#ifdef __cplusplus
}
#endif
#endif
