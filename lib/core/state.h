/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/core/state.h - the model's state, laid out as the kernel lays it out:
 * per-CPU blocks (cpu_tlbstate, cpu_tlbstate_shared, flush_tlb_info,
 * call_single_queue), the mm (mm_context_t, mm_cpumask), the system.
 *
 * Fields other CPUs touch are reached only through core/access.h.
 */
#ifndef TLBGEN_CORE_STATE_H
#define TLBGEN_CORE_STATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <time.h>

#include <urcu/lfstack.h>

#include <tlbgen/tlbgen.h>

#include "../base/arena.h"
#include "../base/compiler.h"
#include "../base/cpumask.h"
#include "../base/rankmap.h"
#include "exec-hooks.h"
#include "kword.h"
#include "lineid.h"
#include "profile.h"

#define TLBGEN_SYS_MAGIC	0x544c4253u	/* "TLBS" */
#define TLBGEN_MM_MAGIC		0x544c424du	/* "TLBM" */
#define TLBGEN_BATCH_MAGIC	0x544c4242u	/* "TLBB" */
#define TLBGEN_ASID_KERNEL	0xffffu		/* simulated TLB: global entries */

struct tlbgen_mm;
struct tlbgen_simtlb;

/* Slots of a CPU's stats[]: enum tlbgen_stat, and two cost counters. */
#define TLBGEN_STAT_SLOTS	(TLBGEN_STAT_NR + 2)

/* Per-CPU cost account and fault counters: written only by the CPU itself. */
struct tlbgen_cpu_cost {
	/* enum tlbgen_cost_item; INV_PAGES, INV_CYCLES in stats[] (tlbgen__cost_acct()) */
	_Atomic uint64_t acct[TLBGEN_COST_NR];
	_Atomic uint64_t faults[TLBGEN_FAULT_STAT_NR];	/* enum tlbgen_fault_stat */
};

/* struct tlb_context / struct tlb_state: private, but loaded_mm is read
 * remotely by should_flush_tlb() (6.14+). Two cachelines, as the kernel's
 * "struct tlb_state will fit in two cache lines". */
struct tlbgen_tlb_context {
	uint64_t ctx_id;
	uint64_t tlb_gen;
};

struct tlbgen_tlb_state {
	_Atomic(struct tlbgen_mm *) loaded_mm;
	/* Read remotely by finish_asid_transition() (4afeb0ed1753). A global
	 * ASID (>= TLB_NR_DYN_ASIDS) has no ctxs[] slot. */
	_Atomic uint16_t loaded_mm_asid;
	uint16_t next_asid;
	bool invalidate_other;
	uint8_t lam;
	uint16_t user_pcid_flush_mask;
	/* flush_tlb_func() reads loaded_mm, loaded_mm_asid and ctxs[asid]:
	 * with the first ASIDs handed out (1, 2) that is one line. */
	struct tlbgen_tlb_context ctxs[TLBGEN_TLB_NR_DYN_ASIDS];
	struct tlbgen_mm *last_user_mm;
	unsigned long cr4;
} __cacheline_aligned;

/* struct tlb_state_shared (2f4305b19fe6): the only remotely read part. */
struct tlbgen_tlb_state_shared {
	atomic_bool is_lazy;
} __cacheline_aligned;

/* What the oracle needs to judge one flush: the mm's change seq when the
 * flush started and the flush's record id (0: not recorded). */
struct tlbgen_oracle_flush {
	uint64_t seq;
	uint64_t id;
};

/* struct flush_tlb_info (6.14+ field order), one per initiating CPU. */
struct tlbgen_flush_tlb_info {
	struct tlbgen_mm *mm;
	unsigned long start;
	unsigned long end;
	uint64_t new_tlb_gen;
	unsigned int initiating_cpu;
	uint8_t stride_shift;
	uint8_t freed_tables;
	uint8_t trim_cpumask;
	struct tlbgen_oracle_flush oracle;	/* model only */
} __cacheline_aligned;

#define CSD_FLAG_LOCK		0x01u
#define CSD_TYPE_ASYNC		0x00u
#define CSD_TYPE_SYNC		0x10u
#define CSD_FLAG_TYPE_MASK	0xF0u

/* call_single_data_t, aligned to its size as in the kernel. */
struct tlbgen_csd {
	struct cds_lfs_node node;	/* its llist_node */
	atomic_uint u_flags;
	uint16_t src;
	uint16_t dst;
	tlbgen_smp_call_func_t func;
	void *info;
} __attribute__((aligned(32)));

/*
 * call_single_queue: an llist_head in the kernel, a lock-free stack whose
 * consumer takes everything at once (llist_del_all) and reverses it. The
 * liburcu lfstack is the same structure: push is a cmpxchg loop that says
 * whether the stack was empty, pop_all one xchg. Only its CPU pops.
 */
struct tlbgen_call_queue {
	struct __cds_lfs_stack llist;
} __cacheline_aligned;

typedef void (*tlbgen_done_fn)(struct tlbgen_system *sys, unsigned int cpu, void *arg);

/* kvm_steal_time.preempted bits (arch/x86/include/uapi/asm/kvm_para.h). */
#define TLBGEN_KVM_VCPU_PREEMPTED	(1U << 0)
#define TLBGEN_KVM_VCPU_FLUSH_TLB	(1U << 1)

struct tlbgen_preempted;	/* core/preempted.h */

struct tlbgen_cpu {
	struct tlbgen_tlb_state tlbstate;		/* cpu_tlbstate */
	struct tlbgen_tlb_state_shared shared;		/* cpu_tlbstate_shared */
	struct tlbgen_flush_tlb_info info;		/* flush_tlb_info */
	struct tlbgen_call_queue queue;			/* call_single_queue */

	/* Initiator-private bookkeeping (cfd_data and the model's own). */
	struct {
		unsigned int id;
		atomic_bool irqs_disabled;
		bool info_in_use;	/* the kernel's flush_tlb_info_idx check */
		struct tlbgen_simtlb *tlb;	/* beside irqs_disabled: both read per IPI */
		uint64_t nr_flush_recs;	/* oracle: flushes this CPU has numbered */
		_Atomic(struct tlbgen_mm *) flush_mm;	/* mm of the flush in flight, for mm__destroy */
		bool waiting;		/* stepped: waiting for acknowledgements */
		bool run_remote, in_flush_done;	/* in_flush_done: in its flush-done callback */
		bool wait_preemptible;	/* stepped: that wait may be preempted */
		unsigned int outstanding;	/* stepped: csds not yet unlocked */
		tlbgen_done_fn done;
		void *done_arg;
		unsigned long *cfd_mask;	/* cfd->cpumask */
		unsigned long *cfd_mask_ipi;	/* cfd->cpumask_ipi */
		atomic_ulong *pv_mask;		/* __pv_cpu_mask (kvm_flush_tlb_multi) */
		atomic_ulong *cond_mask;	/* flush_tlb_mask (6035152d8eeb's pre-pass) */
		struct tlbgen_csd *csds;	/* csd per target, lazily allocated */
		struct tlbgen_invlpgb_ring *invlpgb;	/* INVLPGBs issued, before their TLBSYNC */
		struct tlbgen_preempted *preempted;	/* stepped: a task preempted in its wait */
		atomic_int attached;		/* threaded: a thread is this CPU */
		void *rt;			/* the transport's per-CPU data */
	} __cacheline_aligned priv;

	/*
	 * struct kvm_steal_time.preempted of this vCPU: the host sets
	 * KVM_VCPU_PREEMPTED when it schedules the vCPU out and xchg()s it
	 * to 0 when it runs it again; other vCPUs read and cmpxchg it in
	 * kvm_flush_tlb_multi().
	 */
	struct {
		_Atomic uint8_t preempted;
	} __cacheline_aligned steal_time;

	/* enum tlbgen_stat by tlbgen__stat_slot(), with the two cost counters
	 * a flush_tlb_one_user() charges on the same first line. */
	_Atomic uint64_t stats[TLBGEN_STAT_SLOTS] __cacheline_aligned;

	/* Cost model virtual time and fault counters. */
	struct tlbgen_cpu_cost cost __cacheline_aligned;
};

_Static_assert(sizeof(struct tlbgen_tlb_state) == 2 * TLBGEN_CACHELINE,
	       "struct tlb_state must fit in two cache lines");
_Static_assert(offsetof(struct tlbgen_tlb_state, ctxs[3]) <= TLBGEN_CACHELINE,
	       "loaded_mm and ctxs[0 .. 2] share the first line");
_Static_assert(sizeof(struct tlbgen_tlb_state_shared) == TLBGEN_CACHELINE,
	       "cpu_tlbstate_shared must sit alone on its cacheline");
_Static_assert(sizeof(struct tlbgen_flush_tlb_info) == TLBGEN_CACHELINE,
	       "flush_tlb_info must be one cacheline");
_Static_assert(sizeof(struct tlbgen_csd) == 32, "csd aligned to its own size");
_Static_assert(sizeof(struct tlbgen_call_queue) == TLBGEN_CACHELINE,
	       "call_single_queue is SHARED_ALIGNED");
_Static_assert(offsetof(struct tlbgen_cpu, shared) % TLBGEN_CACHELINE == 0, "layout");
_Static_assert(offsetof(struct tlbgen_cpu, info) % TLBGEN_CACHELINE == 0, "layout");
_Static_assert(offsetof(struct tlbgen_cpu, queue) % TLBGEN_CACHELINE == 0, "layout");

/* A PTE of the simulated page table, with the oracle's history of it. */
struct tlbgen_pte {
	_Atomic uint64_t version;	/* seq of the latest change (0: initial) */
	atomic_uint lock;		/* the page-table lock (split PTL, one per PTE) */
	uint32_t ring_pos;
	uint64_t ring[4];		/* seqs of the latest changes */
	_Atomic uint64_t covered;	/* start seq of latest completed covering ranged flush */
	_Atomic uint64_t covered_id;
	atomic_uint flags;		/* TLBGEN_PTEF_{NONE,WRITE,DIRTY,YOUNG} */
	atomic_bool anon_folio;		/* the workload layer: it maps an anonymous
					 * folio of its own, which a zap frees */
};

/* mm_context_t's first fields share one line, as in the kernel. */
struct tlbgen_mm_context {
	uint64_t ctx_id;
	_Atomic uint64_t tlb_gen;
	_Atomic uint64_t next_trim_cpumask;	/* 6db2526c1d69 */
	/* d504d1247e36: 0, or the ASID the mm has on every CPU; set with
	 * release after asid_transition, freed at mm destruction. */
	_Atomic uint16_t global_asid;
	/* Some CPU may still run the mm on its dynamic ASID. */
	atomic_bool asid_transition;
} __cacheline_aligned;

struct tlbgen_mm {
	struct tlbgen_mm_context context;

	struct {
		uint32_t magic;
		struct tlbgen_system *sys;
		unsigned long nr_pages;
		struct tlbgen_pte *ptes;
		struct tlbgen_mm *next, *prev;	/* sys->mm_list */
		_Atomic uint64_t *stats;	/* [nr_cpus][TLBGEN_MM_STAT_STRIDE] */
	} __cacheline_aligned priv;

	/* Oracle bookkeeping, away from the model's lines. */
	struct {
		_Atomic uint64_t seq;		/* PTE change sequence */
		_Atomic uint64_t full_covered;	/* start seq of latest completed full flush */
		_Atomic uint64_t full_covered_id;
	} __cacheline_aligned oracle;

	/* mm->tlb_flush_batched (mm/rmap.c): pending bits 0-14, flushed 16-30 */
	atomic_int tlb_flush_batched __cacheline_aligned;
	/* unflushed batches holding this mm: written on the same batch-add
	 * events as tlb_flush_batched, so it dirties no other line */
	atomic_int inflight;

	/* mm->mmap_lock and mm->tlb_flush_pending (the workload layer's,
	 * lib/workload/): lines every thread of the mm RMWs */
	struct tlbgen_rwsem mmap_lock;
	struct tlbgen_kword tlb_flush_pending;

	/* mm_cpumask: the cpu_bitmap[] at the end of mm_struct */
	atomic_ulong cpu_bitmap[] __cacheline_aligned;
};

extern struct tlbgen_mm *const LOADED_MM_SWITCHING;

/*
 * How IPIs travel and initiators wait: stepped (runtime/stepped.c) or
 * threaded (runtime/threaded.c). kernel/smp.c calls down through this.
 */
struct tlbgen_transport {
	/* Set up / tear down the transport's per-system and per-CPU state. */
	int (*create)(struct tlbgen_system *sys);
	void (*destroy)(struct tlbgen_system *sys);
	/* NUMA node for cpu's per-CPU memory, -1 for anywhere (may be NULL). */
	int (*cpu_node)(struct tlbgen_system *sys, unsigned int cpu);
	/* Raise an IPI on `target` (its queue went empty -> non-empty). */
	void (*send_ipi)(struct tlbgen_system *sys, unsigned int from, unsigned int target);
	/* The initiator's wait: threaded spins (servicing its own queue) and
	 * then calls done; stepped calls done now or when the last csd unlocks. */
	void (*wait)(struct tlbgen_system *sys, unsigned int cpu);
	/* `src` queued a csd it will wait for (may be NULL). */
	void (*csd_queued)(struct tlbgen_system *sys, unsigned int src);
	/* A csd sent by `src` was unlocked by its target (may be NULL). */
	void (*csd_unlocked)(struct tlbgen_system *sys, unsigned int src);
	/* IRQs went on at `cpu`: take IPIs that arrived meanwhile (may be NULL). */
	void (*irq_enable)(struct tlbgen_system *sys, unsigned int cpu);
	/* csd_lock() by `src` found its csd for `dst` locked: progress (NULL: spin). */
	void (*csd_lock_wait)(struct tlbgen_system *sys, unsigned int src, unsigned int dst);
	/* An operation is about to run on `cpu`: 0 or -EPERM/-EBUSY. */
	int (*check_cpu)(const struct tlbgen_system *sys, unsigned int cpu);
};

/* INVLPGBs a CPU issued and its TLBSYNC has not yet waited for: until then
 * another CPU may still use what they invalidate (the model takes the
 * latest legal completion, as for arm64's TLBI before its DSB). */
#define TLBGEN_INVLPGB_PENDING	16
#define TLBGEN_ASID_ALL_USER	0xfffeu	/* invlpgb_flush_all_nonglobals() */
#define TLBGEN_ASID_ALL		0xfffdu	/* invlpgb_flush_all(): globals too */
struct tlbgen_invlpgb_op {
	uint16_t asid;
	bool all;
	unsigned long first_vpn, last_vpn;
};
struct tlbgen_invlpgb_ring {
	unsigned int head, nr;
	struct tlbgen_invlpgb_op op[TLBGEN_INVLPGB_PENDING];
};

/*
 * The global ASID space of arch/x86/mm/tlb.c (d504d1247e36): a bitmap of
 * [0, max) of which [TLB_NR_DYN_ASIDS, max) are global, and the ASIDs freed
 * since the last reset_global_asid_space(), reusable only after it flushed.
 */
struct tlbgen_global_asids {
	pthread_mutex_t lock;			/* global_asid_lock */
	unsigned long *used, *freed;		/* global_asid_used, global_asid_freed */
	unsigned int max;			/* MAX_ASID_AVAILABLE */
	unsigned int last;			/* last_global_asid */
	int available;				/* global_asid_available */
	unsigned int count_max;			/* invlpgb_count_max */
};

struct tlbgen_flush_rec {
	uint64_t id;
	uint64_t start_seq;
	uint64_t new_tlb_gen;
	unsigned long start, end;
	unsigned int cpu;
	bool full;
};

/* Flush records live in a small ring per initiator: ids are per CPU, so
 * numbering a flush adds no shared cacheline to the flush path. */
#define TLBGEN_FLUSH_REC_PER_CPU	16
#define TLBGEN_FLUSH_ID_SHIFT		40
#define TLBGEN_VIOLATIONS_KEPT	64

struct tlbgen_system {
	uint32_t magic;
	unsigned int nr_cpus;
	enum tlbgen_mode mode;
	unsigned int flags;
	unsigned int tlb_sets, tlb_ways;
	struct tlbgen_profile profile;
	const struct tlbgen_transport *transport;
	const struct tlbgen_exec_hooks *exec;	/* virtual mode */
	struct tlbgen_cpu **cpus;
	struct tlbgen_mm *init_mm;
	unsigned long mask_longs;		/* longs in a cpumask */
	atomic_ulong *all_cpus_mask;		/* cpu_online_mask */

	struct tlbgen_clock clock;
	_Atomic uint64_t virt_jiffies;
	struct timespec clock_base;

	uint64_t rng;				/* stepped scheduler (xorshift64*) */
	struct tlbgen_rankmap ipi_pending;	/* stepped: CPUs with queued calls */
	unsigned int nr_preempted;		/* stepped: vCPUs the host preempted */
	unsigned int last_src;			/* stepped: initiator of the last csd queued */
	bool prefetch_next;			/* stepped: tlbgen_deliver() prefetches cpu + 1 */

	struct tlbgen_trace_ops trace;
	bool tracing;
	struct tlbgen_line_idmap line_ids;	/* the ids trace hooks see */
	tlbgen_flush_done_fn flush_done;	/* the guard of user_done (lib/system.c), or NULL */
	void *flush_done_ctx;
	struct { tlbgen_flush_done_fn fn; void *ctx; bool running; } user_done;	/* set_flush_done() */
	atomic_int waiting_cpus;		/* initiators in flight */
	atomic_int attached_cpus;		/* threaded: attached threads */

	_Atomic uint64_t last_mm_ctx_id;	/* init_mm has 1 */
	pthread_mutex_t lock;			/* mm list, violations */
	struct tlbgen_mm *mm_list;

	/* oracle */
	struct tlbgen_flush_rec *flush_recs;	/* [nr_cpus][TLBGEN_FLUSH_REC_PER_CPU] */
	atomic_long nr_violations;
	atomic_long nr_warns;			/* kernel WARN conditions hit */
	struct tlbgen_violation violations[TLBGEN_VIOLATIONS_KEPT];

	void *rt;				/* the transport's per-system data */
	struct tlbgen_runtime_opts rt_opts;
	struct tlbgen_arena arena;		/* per-CPU blocks, by node */
	struct tlbgen_cost_model cost_model;	/* sz == 0: the defaults */
	struct tlbgen_machine machine;		/* virtual mode */
	bool invlpgb, no_pcid, arm64_repeat_tlbi, riscv_sbi_rfence, tlbi_ipi,
	     riscv_svinval;	/* machine and boot features (system opts, tlbgen/system.h) */
	struct tlbgen_global_asids gasid;	/* with invlpgb */
	struct tlbgen_decision_ops decision;	/* tlbgen/decision.h */
	bool deciding;				/* decision.decision is set */
};

static inline struct tlbgen_cpu *tlbgen__cpu(const struct tlbgen_system *sys, unsigned int cpu)
{
	return sys->cpus[cpu];
}

/*
 * cpu_feature_enabled(X86_FEATURE_INVLPGB) under profile p: the machine
 * has it and p's kernel uses it (v6.15+), unless PCID is off and INVLPGB
 * depends on it (44126343d58c; before, INVLPGB with a PCID: a #GP) or the
 * kernel has tlbi= (abe7c8b09bd7) and was booted with tlbi=ipi.
 */
static inline bool tlbgen__invlpgb_usable(const struct tlbgen_system *sys,
					  const struct tlbgen_profile *p)
{
	return sys->invlpgb && p->invlpgb != INVLPGB_OFF && !(sys->no_pcid && p->invlpgb_needs_pcid) &&
	       !(sys->tlbi_ipi && p->tlbi_cmdline);
}

static inline bool tlbgen__invlpgb_on(const struct tlbgen_system *sys)
{
	return tlbgen__invlpgb_usable(sys, &sys->profile);
}

/*
 * Any global ASID held by an mm: handed out and not yet given back by
 * mm_free_global_asid(). One freed but not yet reclaimed by a wrap stays
 * set in global_asid_used, yet no CPU depends on INVLPGB for it. Counted
 * by global_asid_available, which (unlike the bitmaps) also covers the
 * MAX_ASID_AVAILABLE that allocate_global_asid() can hand out.
 */
static inline bool tlbgen__global_asids_in_use(const struct tlbgen_system *sys)
{
	const struct tlbgen_global_asids *g = &sys->gasid;

	return g->max && g->available < (int)(g->max - TLBGEN_TLB_NR_DYN_ASIDS - 1);
}

static inline bool tlbgen__is_global_asid(uint16_t asid)
{
	return asid >= TLBGEN_TLB_NR_DYN_ASIDS;
}

static inline bool tlbgen__oracle_on(const struct tlbgen_system *sys)
{
	return !(sys->flags & TLBGEN_SYS_NO_ORACLE);
}

/* Per-CPU memory of `cpu`, on the node its transport places it. */
static inline int tlbgen__cpu_node(struct tlbgen_system *sys, unsigned int cpu)
{
	return sys->transport->cpu_node ? sys->transport->cpu_node(sys, cpu) : -1;
}

/* A zeroed, cacheline-aligned block of `cpu`'s own on its node, from the
 * system's arena: it lives until the system is destroyed. NULL on failure. */
static inline void *tlbgen__cpu_alloc(struct tlbgen_system *sys, unsigned int cpu, size_t size)
{
	return tlbgen__arena_alloc(&sys->arena, tlbgen__cpu_node(sys, cpu), size);
}

#endif
