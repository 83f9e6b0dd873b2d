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
	/* `cpu` touched cacheline `id` (stable, unique per line) of kind `line`. */
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

#ifdef __cplusplus
}
#endif
#endif
