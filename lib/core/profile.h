/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/core/profile.h - a profile: the named set of choices a system runs
 * (the public API calls it a profile or a policy; it is one thing).
 *
 * Each choice is a typed enum or a number. The policy code reads only
 * these fields: no kernel version number appears outside profile.c.
 */
#ifndef TLBGEN_CORE_PROFILE_H
#define TLBGEN_CORE_PROFILE_H

#include <tlbgen/tlbgen.h>

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
enum tlbgen_switching_write {	/* where LOADED_MM_SWITCHING is stored */
	SWITCHING_WRITE_LATE = 0,	/* after choose_new_asid() */
	SWITCHING_WRITE_EARLY,		/* before the tlb_gen read */
};
enum tlbgen_batch_arch {	/* whose arch_tlbbatch_*() hooks the rmap batch uses */
	BATCH_ARCH_X86 = 0,
	BATCH_ARCH_ARM64,
	BATCH_ARCH_RISCV,
	BATCH_ARCH_NR,
};
enum tlbgen_batched_pending {	/* arm64 arch_flush_tlb_batched_pending() */
	BATCHED_PENDING_FLUSH_TLB_MM = 0,	/* 4b634918384c */
	BATCHED_PENDING_DSB,			/* before it: dsb(ish) only */
};
enum tlbgen_smp_wait_mask {	/* smp_call_function_many_cond(): whom csd_lock_wait() reads */
	SMP_WAIT_ALL_TARGETS = 0,	/* targets skipped by cond_func stay in cfd->cpumask */
	SMP_WAIT_CALLED,		/* 5c3124975e15: skipped targets cleared from it */
};
enum tlbgen_smp_cfd_mask {	/* whose mask csd_lock_wait() walks in smp_call_function_many_cond() */
	SMP_CFD_MASK_PER_CPU = 0,	/* this CPU's cfd->cpumask: preemption must stay off */
	SMP_CFD_MASK_TASK_LOCAL,	/* 9a560af15fd3: the calling task's own mask */
};
enum tlbgen_flush_info_place {	/* where flush_tlb_mm_range() keeps its flush_tlb_info */
	FLUSH_INFO_PER_CPU = 0,		/* 3db6d5a5ecaf: one per CPU, preemption off while in use */
	FLUSH_INFO_STACK,		/* ed15468787dd: the caller's stack, 64-byte aligned */
};
enum tlbgen_arm64_repeat_sync {	/* how ARM64_WORKAROUND_REPEAT_TLBI repeats */
	ARM64_REPEAT_PER_TLBI = 0,	/* d9ff80f83ecb: "tlbi; dsb ish; tlbi" for every TLBI */
	ARM64_REPEAT_AT_DSB,		/* a8f78680ee6b: one extra TLBI + DSB per completing DSB */
};
enum tlbgen_fault_arch {	/* whose ptep_set_access_flags() and spurious-fault hook */
	FAULT_ARCH_X86 = 0,	/* never flushes a changed PTE; hook: the choice (x86: noop) */
	FAULT_ARCH_ARM64,	/* flush_tlb_page() of a changed dirty PTE; hook: arm64_fault_flush */
	FAULT_ARCH_GENERIC,	/* mm/pgtable-generic.c: the hook after every change too */
	FAULT_ARCH_RISCV,	/* update_mmu_cache(): an eager local sfence.vma; hook: the choice */
};
enum tlbgen_vma_lock_fault {	/* which user faults run under the VMA's lock alone */
	VMA_LOCK_FAULT_NONE = 0,	/* every fault takes mmap_lock for read */
	VMA_LOCK_FAULT_ANON,		/* 0bff0aaea03e: anonymous VMAs (lock_vma_under_rcu()) */
	VMA_LOCK_FAULT_ANON_SHARED,	/* 4ed4379881aa: and shared file faults (do_shared_fault()) */
	VMA_LOCK_FAULT_ALL,		/* v6.7: and file read, COW and write-protect faults */
};
enum tlbgen_ipi_cond_eval {	/* when native_flush_tlb_multi() evaluates the IPI condition */
	IPI_COND_AT_ENQUEUE = 0,	/* on_each_cpu_cond_mask(): per target, as it is queued */
	IPI_COND_PRE_PASS,		/* 6035152d8eeb: all targets first, into a mask */
};
enum tlbgen_pv_flush {	/* pv_ops.mmu.flush_tlb_multi */
	PV_FLUSH_NATIVE = 0,	/* native_flush_tlb_multi(): bare metal */
	PV_FLUSH_KVM,		/* kvm_flush_tlb_multi(): a KVM guest with PV TLB flush */
	PV_FLUSH_HYPERV,	/* hyperv_flush_tlb_multi(): the host flushes the targets */
	PV_FLUSH_PVM,		/* the PVM guest's: native locally, the host remotely */
};
enum tlbgen_ceiling_place {
	CEILING_IN_FLUSH_TLB_MM_RANGE = 0,	/* before 4a02ed8e1cc3 */
	CEILING_IN_GET_FLUSH_TLB_INFO,		/* 4a02ed8e1cc3 */
};

enum tlbgen_invlpgb {		/* AMD broadcast TLB flush of x86 mms with a global ASID */
	INVLPGB_OFF = 0,		/* before 4afeb0ed1753: IPIs only */
	INVLPGB_ON,			/* 4afeb0ed1753 when the machine has INVLPGB */
	INVLPGB_NO_TLBSYNC,		/* broken: no TLBSYNC waits for the INVLPGBs */
};

_Static_assert(sizeof(enum tlbgen_gen_read) == sizeof(int), "choices are int-sized");

struct tlbgen_profile {
	char name[48];
	enum tlbgen_gen_read gen_read;
	enum tlbgen_early_return early_return;
	enum tlbgen_wrong_mm wrong_mm;
	enum tlbgen_cpumask_mode cpumask_mode;
	enum tlbgen_ipi_cond_kind ipi_cond;
	enum tlbgen_trim trim;
	bool switching;		/* fea4e317f9e7: should_flush_tlb() IPIs a SWITCHING CPU */
	enum tlbgen_switching_write switching_write;
	bool switch_mm_barrier;	/* 83b0177a6c48: else no smp_mb() */
	bool same_mm_cpumask_check;	/* 7e33001b8b9a made it CONFIG_DEBUG_VM only */
	enum tlbgen_ceiling_place ceiling_place;
	long tlb_single_page_flush_ceiling;
	enum tlbgen_pv_flush pv_flush;
	enum tlbgen_ipi_cond_eval ipi_cond_eval;
	enum tlbgen_invlpgb invlpgb;
	/* User replacements (NULL: the built-in, driven by the choices above). */
	tlbgen_flush_decide_fn flush_decide;
	tlbgen_ipi_cond_fn ipi_cond_fn;
	void *priv;
	/* Batched unmap (mm/rmap.c and the arch hooks). */
	enum tlbgen_batch_arch batch_arch;
	bool no_batched_unmap;	/* !CONFIG_ARCH_WANT_BATCHED_UNMAP_TLB_FLUSH */
	bool arm64_repeat_tlbi;	/* ARM64_WORKAROUND_REPEAT_TLBI: never defer */
	enum tlbgen_batched_pending batched_pending;
	bool arm64_batched_unmap;	/* 43b3dfdd0455: arm64 selects ARCH_WANT_BATCHED_UNMAP_TLB_FLUSH */
	bool riscv_batched_unmap;	/* 54d7431af73e: riscv selects it */
	bool riscv_sbi_rfence;		/* !riscv_use_ipi_for_rfence(): remote sfence.vma by SBI */
	bool ubc_pte_accessible;	/* 4d4b6d66db63: batch only pte_accessible() PTEs */
	/* The call engine. */
	enum tlbgen_smp_wait_mask smp_wait_mask;
	enum tlbgen_smp_cfd_mask smp_cfd_mask;
	bool smp_wait_preemptible;	/* 8df8a6028309: preemption on before csd_lock_wait() */
	enum tlbgen_flush_info_place flush_info_place;
	bool flush_multi_preemptible;	/* a5a162fe1ae1: preemption on before flush_tlb_multi() */
	bool invlpgb_needs_pcid;	/* 44126343d58c: X86_FEATURE_INVLPGB depends on PCID */
	enum tlbgen_arm64_repeat_sync arm64_repeat_sync;
	/* Arch range ceilings and the spurious-fault rule. */
	long ppc_tlb_single_page_flush_ceiling;		/* radix global (tlbie): 33 */
	long ppc_tlb_local_single_page_flush_ceiling;	/* radix local (tlbiel): 256 */
	long riscv_tlb_flush_all_threshold;		/* 64 */
	long arm64_max_dvm_ops;				/* MAX_DVM_OPS = PTRS_PER_PTE: 512 */
	enum tlbgen_ceiling_cmp ppc_ceiling_cmp;	/* '>' (mainline) or '>=' (RFC) */
	enum tlbgen_spurious_hook spurious_hook;
	bool spurious_skip_tried;	/* b7333b58f358: no spurious flush on FAULT_FLAG_TRIED */
	bool fault_dirty_retry;		/* 89b15332af7c: VM_FAULT_RETRY after dirtying */
	enum tlbgen_fault_arch fault_arch;
	bool fault_prefetchw;		/* x86 exc_page_fault(): prefetchw(&mm->mmap_lock),
					 * until 1701771d3069 */
	bool arm64_fault_local;		/* cb1fa2e99955: local TLBI in the write fault */
	bool munmap_downgrade;		/* dd2283f2605e: munmap() zaps under the read lock */
	bool zap_delay_rmap;		/* 5df397dec7c4: a PTE table's dirty file pages
					 * flush before its PTL is dropped */
	int pagevec_size;		/* PAGEVEC_SIZE: 15, 31 since 9cecde80aae0 */
	bool folios_put_batch;		/* 99fbb6bfc16f: a zap's frees take lru_lock per
					 * folio_batch, not per SWAP_CLUSTER_MAX */
	bool zap_lru_drain;		/* free_pages_and_swap_cache() drains the CPU's
					 * lru_add batch first, until 1aa43598c03b */
	bool mprotect_anon_writable;	/* 64fe24a3e05e: mprotect(PROT_WRITE) makes an
					 * exclusive anonymous page's PTE writable */
	enum tlbgen_vma_lock_fault vma_lock_fault;
	bool tlbi_cmdline;		/* abe7c8b09bd7: the tlbi= boot switch */
	bool riscv_umc_asid;		/* af842aea58d8: update_mmu_cache() by the mm's ASID */
	bool riscv_umc_svinval;		/* 905be00304bd: ... with Svinval where the hart has it */
};

/* Resolve a built-in or registered profile by name (prints the valid ones). */
int tlbgen__profile_lookup(const char *name, struct tlbgen_profile *out);
/* Apply "k=v,k=v" to *p: all or nothing. */
int tlbgen__profile_apply_choices(struct tlbgen_profile *p, const char *choices);
/* One choice by name; -ENOENT/-EINVAL with a message, *p untouched then. */
int tlbgen__profile_set_one(struct tlbgen_profile *p, const char *key, size_t klen,
			    const char *val, size_t vlen);
/* The value of one choice as text, NULL if unknown. buf holds numbers. */
const char *tlbgen__profile_get(const struct tlbgen_profile *p, const char *choice,
				char *buf, size_t len);
/* Every choice as "k=v,...", snprintf-style. */
int tlbgen__profile_describe(const struct tlbgen_profile *p, char *buf, size_t len);

#endif
