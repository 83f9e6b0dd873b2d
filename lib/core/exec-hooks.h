/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/core/exec-hooks.h - the hooks through which an execution mode that
 * runs the policy code in its own time (virtual time) sees every traced
 * shared-line access, cost, plain store, load and fence; and the fields
 * and fences its store buffers know.
 */
#ifndef TLBGEN_CORE_EXEC_HOOKS_H
#define TLBGEN_CORE_EXEC_HOOKS_H

#include <stdbool.h>
#include <stdint.h>

#include <tlbgen/tlbgen.h>

#include "kword.h"

struct tlbgen_system;

/* The shared fields whose plain stores a store buffer holds (for the notes). */
enum tlbgen_sb_field {
	TLBGEN_SB_LOADED_MM = 0,	/* cpu_tlbstate.loaded_mm */
	TLBGEN_SB_IS_LAZY,		/* cpu_tlbstate_shared.is_lazy */
	TLBGEN_SB_LOADED_MM_ASID,	/* cpu_tlbstate.loaded_mm_asid */
	TLBGEN_SB_NEXT_TRIM,		/* mm->context.next_trim_cpumask */
	TLBGEN_SB_CSD_FLAGS,		/* csd->node.u_flags: csd_lock() */
	TLBGEN_SB_CSD_UNLOCK,		/* csd->node.u_flags: csd_unlock() */
	TLBGEN_SB_GLOBAL_ASID,		/* mm->context.global_asid */
	TLBGEN_SB_ASID_TRANSITION,	/* mm->context.asid_transition */
	TLBGEN_SB_NR
};

/* The running CPU, for an accessor whose caller does not name it. */
#define TLBGEN_CPU_RUNNING	(~0u)

/* Why a store buffer drains without a traced locked RMW. */
enum tlbgen_fence_kind {
	TLBGEN_FENCE_SMP_MB = 0,	/* smp_mb(): mfence */
	TLBGEN_FENCE_CR3,		/* MOV to CR3 in switch_mm_irqs_off(): serialising */
	TLBGEN_FENCE_LOCKED,		/* an untraced locked RMW (cmpxchg, lock add) */
	TLBGEN_FENCE_PTE,		/* a PTE write or the PTL: not buffered, kept in order */
};

/*
 * Hooks of an execution mode that runs the policy code in its own time
 * (the virtual mode): every traced shared-line access and every cost the
 * observers charge pass through them. NULL in stepped and threaded mode.
 */
struct tlbgen_exec_hooks {
	/* `cpu` accesses line `id` of kind `line`: a scheduling point. */
	void (*access)(struct tlbgen_system *sys, unsigned int cpu, enum tlbgen_line line,
		       uintptr_t id, enum tlbgen_access_op op);
	/* `cpu` spends `cycles` with IRQs as they are (INVLPG, CR3 write...). */
	void (*spend)(struct tlbgen_system *sys, unsigned int cpu, uint64_t cycles);
	/* jiffies at the running CPU's clock. */
	uint64_t (*jiffies)(const struct tlbgen_system *sys);
	/*
	 * The memory model (tlbgen_vtime__set_memory_model()). store: a plain
	 * store by `cpu` (TLBGEN_CPU_RUNNING: the running one) of `size`
	 * bytes to a field other CPUs read; true when it went into the CPU's
	 * store buffer instead of memory. load: `cpu`'s own load of such a
	 * field; true and *val when its buffer forwards a newer value.
	 * fence: smp_mb() or a serialising instruction; the buffer drains.
	 */
	bool (*store)(struct tlbgen_system *sys, unsigned int cpu, enum tlbgen_sb_field f,
		      void *addr, unsigned int size, uint64_t val);
	bool (*load)(const struct tlbgen_system *sys, unsigned int cpu, const void *addr,
		     uint64_t *val);
	void (*fence)(struct tlbgen_system *sys, unsigned int cpu, enum tlbgen_fence_kind why);
	/* should_flush_tlb() on `cpu` decided not to IPI `target`. */
	void (*ipi_skipped)(struct tlbgen_system *sys, unsigned int cpu, unsigned int target);
	/* `cpu` reads, RMWs or prefetches for ownership a struct
	 * tlbgen_kword (enum tlbgen_kword_op): its cost, with IRQs on (may be
	 * NULL). */
	void (*kword)(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_kword *w,
		      enum tlbgen_kword_op op);
	/* `cpu` waits `cycles` for a completion the interconnect serves one at
	 * a time (arm64's DSB ISH), behind those already queued. */
	void (*serial)(struct tlbgen_system *sys, unsigned int cpu, uint64_t cycles);
};

#endif /* TLBGEN_CORE_EXEC_HOOKS_H */
