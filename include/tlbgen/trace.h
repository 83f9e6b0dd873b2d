/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tlbgen/trace.h - hooks for simulators and the coherence account.
 *
 * Every access the model makes to a line that more than one CPU touches is
 * reported: mm->context.tlb_gen, mm_cpumask, cpu_tlbstate (loaded_mm, read
 * remotely), cpu_tlbstate_shared.is_lazy, flush_tlb_info, call_single_queue
 * and the csds. Together with IPI send/receive and flush events this is the
 * trace that drives a MESI model (no PMU needed).
 */
#ifndef TLBGEN_TRACE_H
#define TLBGEN_TRACE_H

#include <tlbgen/common.h>

#ifdef __cplusplus
extern "C" {
#endif

enum tlbgen_line {
	TLBGEN_LINE_MM_TLB_GEN = 0,	/* mm->context.tlb_gen (and ctx_id) */
	TLBGEN_LINE_MM_CPUMASK,		/* one 64-CPU word of mm_cpumask */
	TLBGEN_LINE_MM_TRIM,		/* mm->context.next_trim_cpumask */
	TLBGEN_LINE_TLBSTATE,		/* cpu_tlbstate (loaded_mm) of a CPU */
	TLBGEN_LINE_TLBSTATE_SHARED,	/* cpu_tlbstate_shared.is_lazy of a CPU */
	TLBGEN_LINE_FLUSH_TLB_INFO,	/* flush_tlb_info of an initiator */
	TLBGEN_LINE_CALL_QUEUE,		/* call_single_queue of a CPU */
	TLBGEN_LINE_CSD,		/* csd of an (initiator, target) pair */
	TLBGEN_LINE_NR
};

enum tlbgen_access_op { TLBGEN_OP_READ = 0, TLBGEN_OP_WRITE, TLBGEN_OP_RMW };

enum tlbgen_flush_kind {
	TLBGEN_FLUSH_KIND_PARTIAL = 0,	/* flush_tlb_one_user() per page */
	TLBGEN_FLUSH_KIND_FULL,		/* flush_tlb_local() */
	TLBGEN_FLUSH_KIND_SWITCH,	/* CR3 load with flush in switch_mm */
	TLBGEN_FLUSH_KIND_KERNEL,	/* kernel-range flush */
};

struct tlbgen_trace_ops {
	size_t sz;	/* sizeof(struct tlbgen_trace_ops) */
	/*
	 * `cpu` touched cacheline `id` of kind `line`. In stepped and
	 * virtual-time mode `id` is by default the line's ordinal times 64:
	 * the n-th distinct line this system traced is n * 64 (never 0), so
	 * a run's trace is identical in every process; in threaded mode it is
	 * by default the line's address. See tlbgen_system__set_line_ids().
	 * Either way an id names one line. One line may be
	 * reported under two kinds (tlb_gen and next_trim_cpumask share
	 * mm->context's line).
	 */
	void (*line_access)(void *ctx, unsigned int cpu, enum tlbgen_line line,
			    uintptr_t id, enum tlbgen_access_op op);
	/* `from` raised an IPI to `to` (queue went empty -> non-empty). */
	void (*ipi_send)(void *ctx, unsigned int from, unsigned int to);
	/* `cpu` ran a queued callback sent by `from`. */
	void (*ipi_receive)(void *ctx, unsigned int cpu, unsigned int from);
	/* `cpu` flushed: kind, pages invalidated (0 for full). */
	void (*flush)(void *ctx, unsigned int cpu, enum tlbgen_flush_kind kind,
		      unsigned long pages);
	void *ctx;
};

/*
 * tlbgen_system__set_trace - install (or with NULL remove) trace hooks.
 * The hooks are called synchronously from the CPU doing the access: from the
 * host thread in stepped mode, from any CPU thread in threaded mode.
 * Errors: -EINVAL (NULL sys, bad ops->sz), -EBUSY while a flush is in flight
 * or threads are attached.
 */
TLBGEN_API int tlbgen_system__set_trace(struct tlbgen_system *sys,
					const struct tlbgen_trace_ops *ops);

/* What the `id` of line_access() is. */
enum tlbgen_line_ids {
	/*
	 * Ordinals: the n-th distinct cacheline the system traced since it was
	 * created is n * 64. Lines of a destroyed mm are forgotten, so a new mm
	 * gets new ids even where the allocator reuses the memory. Identical
	 * across processes for the same stepped (or virtual-time) run. The
	 * default in stepped and virtual-time mode. In threaded mode the order
	 * lines are first touched follows the real interleaving, and the
	 * table behind the ordinals is shared by every CPU thread under a lock.
	 */
	TLBGEN_LINE_IDS_STABLE = 0,
	/* The line's address in this process (cacheline-aligned): the default
	 * in threaded mode (no lock on the hook path), and for studying the
	 * model's own memory layout (false sharing, cache-set strides). */
	TLBGEN_LINE_IDS_ADDRESS,
};

/*
 * tlbgen_system__set_line_ids - choose what line_access() reports as a
 * line's id (default: TLBGEN_LINE_IDS_STABLE, in threaded mode
 * TLBGEN_LINE_IDS_ADDRESS). Switching keeps the ordinals already handed out.
 * Errors: -EINVAL (NULL sys, unknown `ids`), -EBUSY while a flush is in
 * flight or threads are attached. Not thread-safe against operations on
 * `sys`: call it before the run, like tlbgen_system__set_trace().
 */
TLBGEN_API int tlbgen_system__set_line_ids(struct tlbgen_system *sys, enum tlbgen_line_ids ids);

/*
 * A flush that `initiator` started has completed: every CPU it had to
 * interrupt ran flush_tlb_func() and released its csd, and the initiator's
 * own end of the flush (the kernel's put_flush_tlb_info() and what follows)
 * is done. The initiator accepts operations again.
 */
typedef void (*tlbgen_flush_done_fn)(void *ctx, unsigned int initiator);

/*
 * tlbgen_system__set_flush_done - install (or with NULL fn remove) the
 * flush-completion callback, so an event loop learns when an initiator
 * stops waiting without polling tlbgen_cpu__is_waiting() on every CPU.
 *
 * Called exactly once per flush that goes through the cross-CPU call engine
 * (flush_tlb_mm_range(), flush_tlb_kernel_range(), arch_tlbbatch_flush() and
 * their tlbgen_* wrappers, on x86 and riscv), whether or not it sent IPIs:
 *  - stepped mode: from the tlbgen_deliver*()/tlbgen_step() call in which the
 *    last target released its csd, or, when no target was left to wait
 *    for, from within the flush call itself before it returns;
 *  - threaded and virtual-time mode: on the initiator (its thread, or its
 *    virtual CPU) after its csd_lock_wait() ends.
 * INVLPGB flushes on x86 are included (they end in the same wait). Not
 * called for tlbgen_smp_call_function_single(), nor on arm64 and powerpc,
 * whose broadcast flushes complete within the call and leave no CPU waiting.
 * The callback runs inside an operation on `sys`: an operation it starts
 * (a flush, a switch_mm, a call: any that takes a CPU) returns -EDEADLK,
 * as from a cross-CPU callback, on the initiator (and in stepped and
 * virtual-time mode on every CPU); queries (tlbgen_cpu__is_waiting(),
 * tlbgen_stats__cpu(), ...) are fine.
 * Errors: -EINVAL (NULL sys), -EBUSY while a flush is in flight or threads
 * are attached. Not thread-safe against operations on `sys`: call it before
 * the run. In threaded mode the callback runs on several threads at once.
 */
TLBGEN_API int tlbgen_system__set_flush_done(struct tlbgen_system *sys, tlbgen_flush_done_fn fn,
					     void *ctx);

/*
 * tlbgen_line_name - short name of a line kind ("tlb_gen"), NULL if out of
 * range. Thread-safe.
 */
TLBGEN_API const char *tlbgen_line_name(enum tlbgen_line line);

#ifdef __cplusplus
}
#endif
#endif
