/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/internal.h - the model's state, laid out as the kernel lays it out.
 *
 * Private to the library: nothing here is exported (see libtlbgen.map).
 * One concern per file:
 *   tlb_gen.c   generation logic: inc_mm_tlb_gen, flush_tlb_func
 *   lazy.c      lazy TLB and mm_cpumask policy: switch_mm_irqs_off,
 *               enter_lazy_tlb, leave_mm, should_flush_tlb, trimming
 *   flush.c     initiators: flush_tlb_mm_range, flush_tlb_multi,
 *               flush_tlb_kernel_range, get/put_flush_tlb_info
 *   tlbbatch.c  arch_tlbbatch_add_pending / arch_tlbbatch_flush
 *   smp.c       call-function transport (kernel/smp.c)
 *   stepped.c   stepped transport and seeded scheduler
 *   runtime.c   threaded transport
 *   simtlb.c    simulated TLB;  oracle.c  stale-translation oracle
 *   profile.c   profiles and choices;  stats.c  counters
 */
#ifndef TLBGEN_INTERNAL_H
#define TLBGEN_INTERNAL_H

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <urcu/lfstack.h>

#include <tlbgen/tlbgen.h>
#include "cpumask.h"

#define TLBGEN_CACHELINE	64
#define __cacheline_aligned	__attribute__((aligned(TLBGEN_CACHELINE)))
#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

#define TLBGEN_SYS_MAGIC	0x544c4253u	/* "TLBS" */
#define TLBGEN_MM_MAGIC		0x544c424du	/* "TLBM" */
#define TLBGEN_BATCH_MAGIC	0x544c4242u	/* "TLBB" */

/* Kernel memory-model primitives on C11 atomics. */
#define smp_mb()	atomic_thread_fence(memory_order_seq_cst)
#define smp_rmb()	atomic_thread_fence(memory_order_acquire)
#define smp_wmb()	atomic_thread_fence(memory_order_release)
#define barrier()	atomic_signal_fence(memory_order_seq_cst)
#define READ_ONCE(x)	atomic_load_explicit(&(x), memory_order_relaxed)
#define WRITE_ONCE(x, v) atomic_store_explicit(&(x), (v), memory_order_relaxed)

/*
 * ThreadSanitizer cannot see liburcu's inline-asm atomics: an lfstack
 * push/pop_all is a release/acquire pair it must be told about (as
 * liburcu's own TSan support does). Compiled only under TSan.
 */
#if defined(__SANITIZE_THREAD__)
#define TLBGEN_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TLBGEN_TSAN 1
#endif
#endif
#ifdef TLBGEN_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
#define tlbgen_tsan_acquire(p)	__tsan_acquire((void *)(p))
#define tlbgen_tsan_release(p)	__tsan_release((void *)(p))
#else
#define tlbgen_tsan_acquire(p)	do { } while (0)
#define tlbgen_tsan_release(p)	do { } while (0)
#endif

/* ---- policy (profile.c) -------------------------------------------------- */

enum tlbgen_gen_read {		/* when flush_tlb_func reads mm->context.tlb_gen */
	GEN_READ_ALWAYS = 0,	/* first thing, unconditionally (<= v5.19) */
	GEN_READ_DEFERRED,	/* after the early return (aa44284960) */
	GEN_READ_NEVER,		/* use f->new_tlb_gen instead (Luto's "evil hack") */
};
enum tlbgen_early_return {
	EARLY_RETURN_NONE = 0,	/* <= v5.19 */
	EARLY_RETURN_UNGUARDED,	/* aa44284960 as first merged: new <= local */
	EARLY_RETURN_GUARDED,	/* 8f1d56f64f8d: new != INVALID && new <= local */
};
enum tlbgen_wrong_mm {
	WRONG_MM_REMOTE = 0,	/* remote only, no cpumask change (<= v6.13) */
	WRONG_MM_REMOTE_CLEAR,	/* remote only, clear own bit (209954cbc7d0) */
	WRONG_MM_ALL_CLEAR,	/* initiator too (953753db887f) */
};
enum tlbgen_cpumask_mode {
	CPUMASK_CLEAR_ON_SWITCH = 0,	/* <= v6.13 */
	CPUMASK_LAZY,			/* 209954cbc7d0 */
};
enum tlbgen_ipi_cond_kind {
	IPI_COND_TLB_IS_NOT_LAZY = 0,	/* d39268ad24c0 .. v6.13 */
	IPI_COND_SHOULD_FLUSH_TLB,	/* 6db2526c1d69 */
};
enum tlbgen_trim {
	TRIM_NONE = 0,
	TRIM_PER_HZ,		/* 6db2526c1d69: next_trim_cpumask */
};
enum tlbgen_batch_arch {	/* whose arch_tlbbatch_*() hooks the rmap batch uses */
	BATCH_ARCH_X86 = 0,
	BATCH_ARCH_ARM64,
	BATCH_ARCH_RISCV,
};
enum tlbgen_ceiling_place {
	CEILING_IN_FLUSH_TLB_MM_RANGE = 0,	/* before 4a02ed8e1cc3 */
	CEILING_IN_GET_FLUSH_TLB_INFO,		/* 4a02ed8e1cc3 */
};

struct tlbgen_policy {
	char name[48];
	int gen_read;
	int early_return;
	int wrong_mm;
	int cpumask_mode;
	int ipi_cond;
	int trim;
	int switching;		/* fea4e317f9e7: should_flush_tlb() IPIs a SWITCHING CPU */
	int switching_early;	/* LOADED_MM_SWITCHING written before the tlb_gen read */
	int switch_mm_barrier;	/* 83b0177a6c48: else smp_mb() */
	int same_mm_cpumask_check;	/* 7e33001b8b9a made it CONFIG_DEBUG_VM only */
	int ceiling_place;
	long tlb_single_page_flush_ceiling;
	/* User replacements (NULL: built-in driven by the choices above). */
	tlbgen_flush_decide_fn flush_decide;
	tlbgen_ipi_cond_fn ipi_cond_fn;
	void *priv;
	/* Batched unmap (mm/rmap.c + arch hooks, lib/rmap.c, lib/tlbbatch.c). */
	int batch_arch;		/* enum tlbgen_batch_arch */
	int no_batched_unmap;	/* !CONFIG_ARCH_WANT_BATCHED_UNMAP_TLB_FLUSH */
	int arm64_repeat_tlbi;	/* ARM64_WORKAROUND_REPEAT_TLBI: never defer */
	int batched_pending_dsb;/* arm64 before 4b634918384c: a DSB only */
	/* Arch range ceilings and the spurious-fault rule (lib/ceiling.c, lib/fault.c). */
	long ppc_tlb_single_page_flush_ceiling;		/* radix global (tlbie): 33 */
	long ppc_tlb_local_single_page_flush_ceiling;	/* radix local (tlbiel): 256 */
	long riscv_tlb_flush_all_threshold;		/* 64 */
	long arm64_max_dvm_ops;				/* MAX_DVM_OPS = PTRS_PER_PTE: 512 */
	int ppc_ceiling_cmp;		/* enum tlbgen_ceiling_cmp: '>' (mainline) or '>=' (RFC) */
	int spurious_hook;		/* enum tlbgen_spurious_hook */
	int spurious_skip_tried;	/* b7333b58f358: no spurious flush on FAULT_FLAG_TRIED */
};

int tlbgen__policy_lookup(const char *name, struct tlbgen_policy *out);
int tlbgen__policy_apply_choices(struct tlbgen_policy *p, const char *choices);

/* ---- per-CPU state --------------------------------------------------------- */

/* lib/cost.c: per-CPU virtual time and lib/fault.c: per-CPU fault counters. */
#include <tlbgen/cost.h>
#include <tlbgen/fault.h>
struct tlbgen_cpu_cost {
	_Atomic uint64_t acct[TLBGEN_COST_NR];		/* enum tlbgen_cost_item */
	_Atomic uint64_t faults[TLBGEN_FAULT_STAT_NR];	/* enum tlbgen_fault_stat */
};

struct tlbgen_mm;

/* struct tlb_context / struct tlb_state: private, but loaded_mm is read
 * remotely by should_flush_tlb() (6.14+). Two cachelines, as the kernel's
 * "struct tlb_state will fit in two cache lines". */
struct tlbgen_tlb_context {
	uint64_t ctx_id;
	uint64_t tlb_gen;
};

struct tlbgen_tlb_state {
	_Atomic(struct tlbgen_mm *) loaded_mm;
	struct tlbgen_mm *last_user_mm;
	uint16_t loaded_mm_asid;
	uint16_t next_asid;
	bool invalidate_other;
	uint8_t lam;
	uint16_t user_pcid_flush_mask;
	unsigned long cr4;
	struct tlbgen_tlb_context ctxs[TLBGEN_TLB_NR_DYN_ASIDS];
} __cacheline_aligned;

/* struct tlb_state_shared (2f4305b19fe6): the only remotely read part. */
struct tlbgen_tlb_state_shared {
	atomic_bool is_lazy;
} __cacheline_aligned;

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
	/* model only: which oracle flush record this is */
	uint64_t flush_id;
	uint64_t oracle_seq;
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

static inline bool tlbgen__queue_empty(struct tlbgen_call_queue *q)
{
	return cds_lfs_empty(&q->llist);
}

typedef void (*tlbgen_done_fn)(struct tlbgen_system *sys, unsigned int cpu, void *arg);

struct tlbgen_simtlb;

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
		uint64_t nr_flush_recs;	/* oracle: flushes this CPU has numbered */
		_Atomic(struct tlbgen_mm *) flush_mm;	/* mm of the flush in flight, for mm__destroy */
		bool waiting;		/* stepped: waiting for acknowledgements */
		unsigned int outstanding;	/* stepped: csds not yet unlocked */
		bool run_remote;
		tlbgen_done_fn done;
		void *done_arg;
		unsigned long *cfd_mask;	/* cfd->cpumask */
		unsigned long *cfd_mask_ipi;	/* cfd->cpumask_ipi */
		struct tlbgen_csd *csds;	/* csd per target, lazily allocated */
		struct tlbgen_csd **drain;	/* scratch for the queue drain */
		struct tlbgen_simtlb *tlb;
		/* threaded runtime */
		atomic_int attached;
		atomic_uint ipi_pending;	/* IPI raised, not yet serviced */
		atomic_uint irq_deferred;	/* signal arrived with IRQs off */
		void *rt;			/* runtime.c per-CPU data */
	} __cacheline_aligned priv;

	_Atomic uint64_t stats[TLBGEN_STAT_NR] __cacheline_aligned;

	/* Cost model virtual time and fault counters (lib/cost.c, lib/fault.c):
	 * written only by the CPU itself. */
	struct tlbgen_cpu_cost cost __cacheline_aligned;
};

_Static_assert(sizeof(struct tlbgen_tlb_state) == 2 * TLBGEN_CACHELINE,
	       "struct tlb_state must fit in two cache lines");
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

/* ---- mm -------------------------------------------------------------------- */

struct tlbgen_pte;

/* mm_context_t's first fields share one line, as in the kernel. */
struct tlbgen_mm_context {
	uint64_t ctx_id;
	_Atomic uint64_t tlb_gen;
	_Atomic uint64_t next_trim_cpumask;	/* 6db2526c1d69 */
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

	/* mm_cpumask: the cpu_bitmap[] at the end of mm_struct */
	atomic_ulong cpu_bitmap[] __cacheline_aligned;
};

extern struct tlbgen_mm *const LOADED_MM_SWITCHING;

/* ---- transport (smp.c / stepped.c / runtime.c) --------------------------- */

struct tlbgen_transport {
	/* Raise an IPI on `target` (its queue went empty -> non-empty). */
	void (*send_ipi)(struct tlbgen_system *sys, unsigned int from, unsigned int target);
	/* The initiator's wait: threaded spins (servicing its own queue) and
	 * then calls done; stepped calls done now or when the last csd unlocks. */
	void (*wait)(struct tlbgen_system *sys, unsigned int cpu);
	/* `src` queued a csd it will wait for (may be NULL). */
	void (*csd_queued)(struct tlbgen_system *sys, unsigned int src);
	/* A csd sent by `src` was unlocked by its target (may be NULL). */
	void (*csd_unlocked)(struct tlbgen_system *sys, unsigned int src);
	/* An operation is about to run on `cpu`: 0 or -EPERM/-EBUSY. */
	int (*check_cpu)(const struct tlbgen_system *sys, unsigned int cpu);
};

extern const struct tlbgen_transport tlbgen_stepped_transport;
extern const struct tlbgen_transport tlbgen_threaded_transport;

/* ---- oracle records ------------------------------------------------------ */

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

/* ---- the system ---------------------------------------------------------- */

struct tlbgen_system {
	uint32_t magic;
	unsigned int nr_cpus;
	enum tlbgen_mode mode;
	unsigned int flags;
	unsigned int tlb_sets, tlb_ways;
	struct tlbgen_policy policy;
	const struct tlbgen_transport *transport;
	struct tlbgen_cpu **cpus;
	struct tlbgen_mm *init_mm;
	unsigned long mask_longs;		/* longs in a cpumask */
	atomic_ulong *all_cpus_mask;		/* cpu_online_mask */

	struct tlbgen_clock clock;
	bool own_clock;
	_Atomic uint64_t virt_jiffies;
	struct timespec clock_base;

	uint64_t rng;				/* stepped scheduler (xorshift64*) */
	unsigned long *ipi_pending_mask;	/* stepped: CPUs with queued calls */

	struct tlbgen_trace_ops trace;
	bool tracing;

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

	void *rt;				/* runtime.c */
	struct tlbgen_runtime_opts rt_opts;
	struct tlbgen_cost_model cost_model;	/* lib/cost.c; sz == 0: the defaults */
};

/* ---- helpers ------------------------------------------------------------- */

static inline struct tlbgen_cpu *tlbgen_cpu(const struct tlbgen_system *sys, unsigned int cpu)
{
	return sys->cpus[cpu];
}

static inline bool tlbgen_sys_valid(const struct tlbgen_system *sys)
{
	return sys && sys->magic == TLBGEN_SYS_MAGIC;
}

static inline bool tlbgen_mm_valid(const struct tlbgen_system *sys, const struct tlbgen_mm *mm)
{
	return mm && mm->priv.magic == TLBGEN_MM_MAGIC && mm->priv.sys == sys;
}

/* Validate (sys, cpu) for an operation run on `cpu`. */
int tlbgen__check_op(const struct tlbgen_system *sys, unsigned int cpu);
/* ... for an operation that may send IPIs from `cpu` (allocates its csds). */
int tlbgen__check_initiator(struct tlbgen_system *sys, unsigned int cpu);

/* Per-CPU slots of an mm's counters, padded to whole cachelines so that
 * counting adds no false sharing between CPUs to the model. */
#define TLBGEN_MM_STAT_STRIDE \
	((TLBGEN_STAT_NR * 8 + TLBGEN_CACHELINE - 1) / TLBGEN_CACHELINE * (TLBGEN_CACHELINE / 8))

/* Counters: single writer per CPU, so a relaxed load+store is enough. */
static inline void tlbgen__count_n(struct tlbgen_system *sys, unsigned int cpu,
				   const struct tlbgen_mm *mm, enum tlbgen_stat s, uint64_t n)
{
	if (unlikely(sys->flags & TLBGEN_SYS_NO_STATS))
		return;
	_Atomic uint64_t *c = &sys->cpus[cpu]->stats[s];
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + n,
			      memory_order_relaxed);
	if (mm && mm->priv.stats) {
		_Atomic uint64_t *m = &mm->priv.stats[(size_t)cpu * TLBGEN_MM_STAT_STRIDE + s];
		atomic_store_explicit(m, atomic_load_explicit(m, memory_order_relaxed) + n,
				      memory_order_relaxed);
	}
}
#define tlbgen__count(sys, cpu, mm, s) tlbgen__count_n(sys, cpu, mm, s, 1)

static inline void tlbgen__trace_line(struct tlbgen_system *sys, unsigned int cpu,
				      enum tlbgen_line line, const void *addr,
				      enum tlbgen_access_op op)
{
	if (unlikely(sys->tracing) && sys->trace.line_access)
		sys->trace.line_access(sys->trace.ctx, cpu, line,
				       (uintptr_t)addr & ~(uintptr_t)(TLBGEN_CACHELINE - 1), op);
}

static inline void tlbgen__trace_flush(struct tlbgen_system *sys, unsigned int cpu,
				       enum tlbgen_flush_kind kind, unsigned long pages)
{
	if (unlikely(sys->tracing) && sys->trace.flush)
		sys->trace.flush(sys->trace.ctx, cpu, kind, pages);
}

uint64_t tlbgen__jiffies(const struct tlbgen_system *sys);
unsigned int tlbgen__hz(const struct tlbgen_system *sys);
void tlbgen__pr(enum tlbgen_print_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int tlbgen__opts_valid(const void *opts, size_t user_sz, size_t known_sz);

/* tlb_gen.c */
uint64_t tlbgen_inc_mm_tlb_gen(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_mm *mm);
uint64_t tlbgen__read_mm_tlb_gen(struct tlbgen_system *sys, unsigned int cpu,
				 struct tlbgen_mm *mm);
void tlbgen_flush_tlb_func(struct tlbgen_system *sys, unsigned int cpu, void *info);
enum tlbgen_flush_verdict tlbgen__builtin_flush_decide(const struct tlbgen_flush_req *req,
							struct tlbgen_gen_reader *r,
							uint64_t *new_local, void *priv);

/* lazy.c */
void tlbgen_switch_mm_irqs_off(struct tlbgen_system *sys, unsigned int cpu,
			       struct tlbgen_mm *next);
int tlbgen__should_flush_tlb(struct tlbgen_system *sys, unsigned int cpu, void *info);
bool tlbgen__should_trim_cpumask(struct tlbgen_system *sys, unsigned int cpu,
				 struct tlbgen_mm *mm);
void tlbgen__cpumask_set_cpu(struct tlbgen_system *sys, unsigned int cpu,
			     struct tlbgen_mm *mm);
void tlbgen__cpumask_clear_cpu(struct tlbgen_system *sys, unsigned int cpu,
			       struct tlbgen_mm *mm);
enum tlbgen_ipi_verdict tlbgen__builtin_ipi_cond(struct tlbgen_ipi_target *t, void *priv);

/* flush.c */
struct tlbgen_flush_tlb_info *tlbgen_get_flush_tlb_info(struct tlbgen_system *sys,
							unsigned int cpu,
							struct tlbgen_mm *mm,
							unsigned long start,
							unsigned long end,
							unsigned int stride_shift,
							bool freed_tables,
							uint64_t new_tlb_gen);
void tlbgen_flush_tlb_multi(struct tlbgen_system *sys, unsigned int cpu,
			    const atomic_ulong *cpumask, struct tlbgen_flush_tlb_info *info);
void tlbgen__flush_local(struct tlbgen_system *sys, unsigned int cpu,
			 struct tlbgen_flush_tlb_info *info);
void tlbgen__finish_flush(struct tlbgen_system *sys, unsigned int cpu, void *arg);
void tlbgen__begin_wait(struct tlbgen_system *sys, unsigned int cpu, tlbgen_done_fn done,
			void *arg);

/* tlbbatch.c: the arch side of the batched unmap (rmap.c is the generic side) */
int tlbgen__arch_batch_supported(const struct tlbgen_system *sys);
bool tlbgen__arch_tlbbatch_should_defer(struct tlbgen_system *sys, unsigned int cpu,
					struct tlbgen_mm *mm);
int tlbgen__arch_flush_tlb_page(struct tlbgen_system *sys, unsigned int cpu,
				struct tlbgen_mm *mm, unsigned long addr);
int tlbgen__arch_flush_tlb_batched_pending(struct tlbgen_system *sys, unsigned int cpu,
					   struct tlbgen_mm *mm);

/* smp.c */
#define SCF_WAIT	(1U << 0)
#define SCF_RUN_LOCAL	(1U << 1)
typedef int (*tlbgen_smp_cond_func_t)(struct tlbgen_system *sys, unsigned int cpu, void *info);
int tlbgen__smp_init_cpu(struct tlbgen_system *sys, unsigned int cpu);
int tlbgen__smp_prepare(struct tlbgen_system *sys, unsigned int src);
void tlbgen__smp_free_cpu(struct tlbgen_system *sys, unsigned int cpu);
void tlbgen_smp_call_function_many_cond(struct tlbgen_system *sys, unsigned int this_cpu,
					const atomic_ulong *mask, tlbgen_smp_call_func_t func,
					void *info, unsigned int scf_flags,
					tlbgen_smp_cond_func_t cond_func);
int tlbgen_flush_smp_call_function_queue(struct tlbgen_system *sys, unsigned int cpu,
					 int only_src);
bool tlbgen__smp_all_acked(struct tlbgen_system *sys, unsigned int cpu);
int tlbgen__smp_queue_len(const struct tlbgen_system *sys, unsigned int cpu);
void tlbgen__local_irq_disable(struct tlbgen_system *sys, unsigned int cpu);
void tlbgen__local_irq_enable(struct tlbgen_system *sys, unsigned int cpu);

/* simtlb.c */
#define TLBGEN_ASID_KERNEL	0xffffu
int tlbgen__simtlb_init(struct tlbgen_system *sys, unsigned int cpu);
void tlbgen__simtlb_free(struct tlbgen_system *sys, unsigned int cpu);
void tlbgen__tlb_flush_asid(struct tlbgen_system *sys, unsigned int cpu, uint16_t asid);
void tlbgen__tlb_flush_one(struct tlbgen_system *sys, unsigned int cpu, uint16_t asid,
			   unsigned long addr, unsigned int shift);
void tlbgen__tlb_flush_kernel(struct tlbgen_system *sys, unsigned int cpu,
			      unsigned long start, unsigned long end);

/* oracle.c */
struct tlbgen_pte {
	_Atomic uint64_t version;	/* seq of the latest change (0: initial) */
	atomic_uint lock;		/* stands in for the page-table lock */
	uint32_t ring_pos;
	uint64_t ring[4];		/* seqs of the latest changes */
	_Atomic uint64_t covered;	/* start seq of latest completed covering ranged flush */
	_Atomic uint64_t covered_id;
	atomic_uint flags;		/* fault.c: TLBGEN_PTEF_{NONE,WRITE,DIRTY,YOUNG} */
};
void tlbgen__oracle_flush_end(struct tlbgen_system *sys, struct tlbgen_flush_tlb_info *info);
void tlbgen__oracle_cover_full(struct tlbgen_system *sys, struct tlbgen_mm *mm,
			       uint64_t seq, uint64_t flush_id);
uint64_t tlbgen__oracle_new_flush(struct tlbgen_system *sys, unsigned int cpu,
				  uint64_t new_tlb_gen, unsigned long start,
				  unsigned long end, bool full, uint64_t seq);
bool tlbgen__oracle_check(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_mm *mm,
			  unsigned long vpn, uint64_t entry_version, bool record);
uint64_t tlbgen__oracle_walk(struct tlbgen_mm *mm, unsigned long vpn);
bool tlbgen__oracle_foreign(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_mm *mm,
			    unsigned long vpn, uint64_t ctx_id, uint64_t entry_version);

static inline bool tlbgen_oracle_on(const struct tlbgen_system *sys)
{
	return !(sys->flags & TLBGEN_SYS_NO_ORACLE);
}

/* runtime.c */
int tlbgen__rt_create(struct tlbgen_system *sys);
void tlbgen__rt_destroy(struct tlbgen_system *sys);
void tlbgen__rt_irq_enabled(struct tlbgen_system *sys, unsigned int cpu);
int tlbgen__rt_cpu_node(struct tlbgen_system *sys, unsigned int cpu);

/* alloc helpers (NUMA placement is the runtime's business) */
void *tlbgen__alloc_cpu(struct tlbgen_system *sys, unsigned int cpu, size_t size);
void tlbgen__free_cpu(void *p, size_t size);

/* ceiling.c */
bool tlbgen__x86_over_ceiling(const struct tlbgen_system *sys, unsigned long start,
			      unsigned long end, unsigned int stride_shift);

/* cost.c: charge `n` items of `what` to `cpu` (virtual time; busy-wait if asked). */
void tlbgen__cost_charge(struct tlbgen_system *sys, unsigned int cpu,
			 enum tlbgen_cost_item what, uint64_t n);

/* simtlb.c: invalidate without charging the cost model (hardware broadcast). */
void tlbgen__tlb_invalidate_nocost(struct tlbgen_system *sys, unsigned int cpu, uint16_t asid,
				   unsigned long first_vpn, unsigned long last_vpn, bool all);

#endif
