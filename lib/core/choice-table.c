// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/core/choice-table.c - the choices a profile is made of, as data: a
 * named knob, its named values (each with the kernel commit and release
 * that brought it), the field of struct tlbgen_profile it sets, and why.
 */
#include "../base/compiler.h"
#include "choices-internal.h"
#include "profile.h"

/* Every profile here is v5.17 or later: older values are "<= v5.17". */
#define OLD "-", "<= v5.17"
#define NOT_MAINLINE "-", "not in mainline"
#define V(n, v, ...) { n, v, __VA_ARGS__ }
#define END { NULL, 0, NULL, NULL }

static const struct tlbgen_choice_value gen_read_v[] = {
	V("always", GEN_READ_ALWAYS, OLD),
	V("deferred", GEN_READ_DEFERRED, "aa44284960d5", "v6.0"),
	V("never", GEN_READ_NEVER, NOT_MAINLINE), END };
static const struct tlbgen_choice_value early_v[] = {
	V("none", EARLY_RETURN_NONE, OLD),
	/* 8f1d56f64f8d topped the same x86/mm pull for v6.0-rc1. */
	V("unguarded", EARLY_RETURN_UNGUARDED, "aa44284960d5", "never released (tip x86/mm)"),
	V("guarded", EARLY_RETURN_GUARDED, "8f1d56f64f8d", "v6.0"), END };
static const struct tlbgen_choice_value wrong_mm_v[] = {
	V("remote", WRONG_MM_REMOTE, OLD),
	/* 953753db887f followed in the same x86/mm branch for v6.14. */
	V("remote-clear", WRONG_MM_REMOTE_CLEAR, "209954cbc7d0", "never released (tip x86/mm)"),
	V("all-clear", WRONG_MM_ALL_CLEAR, "953753db887f", "v6.14"), END };
static const struct tlbgen_choice_value cpumask_v[] = {
	V("clear-on-switch", CPUMASK_CLEAR_ON_SWITCH, OLD),
	V("lazy", CPUMASK_LAZY, "209954cbc7d0", "v6.14"), END };
static const struct tlbgen_choice_value ipi_cond_v[] = {
	/* The release v5.17 had 6035152d8eeb's pre-pass; the revert is in v5.18. */
	V("tlb_is_not_lazy", IPI_COND_TLB_IS_NOT_LAZY, "d39268ad24c0", "v5.18"),
	V("should_flush_tlb", IPI_COND_SHOULD_FLUSH_TLB, "6db2526c1d69", "v6.14"), END };
static const struct tlbgen_choice_value trim_v[] = {
	V("none", TRIM_NONE, OLD),
	V("per-hz", TRIM_PER_HZ, "6db2526c1d69", "v6.14"), END };
static const struct tlbgen_choice_value switching_v[] = {
	V("off", 0, OLD),
	V("on", 1, "fea4e317f9e7", "v6.15"), END };
static const struct tlbgen_choice_value switching_write_v[] = {
	/* Stable 6.1/6.6/6.12 kept "late" after backporting fea4e317f9e7. */
	V("late", SWITCHING_WRITE_LATE, OLD),
	V("early", SWITCHING_WRITE_EARLY, "fea4e317f9e7", "v6.15"), END };
static const struct tlbgen_choice_value barrier_v[] = {
	V("off", 0, OLD), V("on", 1, "83b0177a6c48", "v6.18"), END };
static const struct tlbgen_choice_value sm_check_v[] = {
	V("always", 1, OLD),
	V("debug_vm", 0, "7e33001b8b9a", "v6.13"), END };
static const struct tlbgen_choice_value batch_arch_v[] = {
	V("x86", BATCH_ARCH_X86, "72b252aed506", "v4.3"),
	V("arm64", BATCH_ARCH_ARM64, "43b3dfdd0455", "v6.6"),
	V("riscv", BATCH_ARCH_RISCV, "54d7431af73e", "v6.8"), END };
static const struct tlbgen_choice_value batched_unmap_v[] = {
	V("on", 0, OLD),
	V("off", 1, NOT_MAINLINE), END };
static const struct tlbgen_choice_value arm64_batched_v[] = {
	V("off", 0, OLD),
	V("on", 1, "43b3dfdd0455", "v6.6"), END };
static const struct tlbgen_choice_value riscv_batched_v[] = {
	V("off", 0, OLD), V("on", 1, "54d7431af73e", "v6.8"), END };
static const struct tlbgen_choice_value riscv_rfence_v[] = {
	V("ipi", 0, OLD), V("sbi", 1, OLD), END };
static const struct tlbgen_choice_value repeat_tlbi_v[] = {
	V("off", 0, OLD),
	V("on", 1, "d9ff80f83ecb", "v4.16 (erratum CPUs)"), END };
static const struct tlbgen_choice_value batched_pending_v[] = {
	V("dsb", BATCHED_PENDING_DSB, "db6c1f6f236d", "v6.6"),
	V("flush_tlb_mm", BATCHED_PENDING_FLUSH_TLB_MM, "4b634918384c", "v6.16"), END };
static const struct tlbgen_choice_value pte_accessible_v[] = {
	V("off", 0, OLD),
	V("on", 1, "4d4b6d66db63", "v6.4"), END };
static const struct tlbgen_choice_value wait_mask_v[] = {
	V("all-targets", SMP_WAIT_ALL_TARGETS, OLD),
	V("called", SMP_WAIT_CALLED, "5c3124975e15", "v6.4"), END };
static const struct tlbgen_choice_value place_v[] = {
	V("flush_tlb_mm_range", CEILING_IN_FLUSH_TLB_MM_RANGE, OLD),
	V("get_flush_tlb_info", CEILING_IN_GET_FLUSH_TLB_INFO, "4a02ed8e1cc3", "v6.15"), END };
static const struct tlbgen_choice_value ceiling_cmp_v[] = {
	V("gt", TLBGEN_CEILING_GT, OLD),
	V("ge", TLBGEN_CEILING_GE, NOT_MAINLINE), END };
static const struct tlbgen_choice_value spurious_hook_v[] = {
	V("generic", TLBGEN_SPURIOUS_GENERIC, OLD),
	V("noop", TLBGEN_SPURIOUS_NOOP, OLD),
	V("local", TLBGEN_SPURIOUS_LOCAL, NOT_MAINLINE), END };
static const struct tlbgen_choice_value fault_arch_v[] = {
	V("x86", FAULT_ARCH_X86, OLD),
	V("arm64", FAULT_ARCH_ARM64, OLD),
	V("generic", FAULT_ARCH_GENERIC, OLD),
	V("riscv", FAULT_ARCH_RISCV, OLD), END };
static const struct tlbgen_choice_value arm64_fault_v[] = {
	/* Will Deacon's "Remove the spurious fault flush" change of Sep 2020. */
	V("broadcast", 0, "-", "v5.10"),
	V("local", 1, "cb1fa2e99955", "v6.19"), END };
static const struct tlbgen_choice_value cond_eval_v[] = {
	/* Also the order before 6035152d8eeb. */
	V("enqueue", IPI_COND_AT_ENQUEUE, "d39268ad24c0", "v5.18"),
	V("pre-pass", IPI_COND_PRE_PASS, "6035152d8eeb", "v5.13"), END };
static const struct tlbgen_choice_value pv_flush_v[] = {
	V("native", PV_FLUSH_NATIVE, OLD),
	V("kvm", PV_FLUSH_KVM, OLD),
	V("hyperv", PV_FLUSH_HYPERV, "2ffd9e33ce4a", "v4.14"),
	V("pvm", PV_FLUSH_PVM, NOT_MAINLINE), END };
static const struct tlbgen_choice_value invlpgb_v[] = {
	V("off", INVLPGB_OFF, OLD),
	/* With 72a920eacd8a, d504d1247e36, be88a1dd6112, c9826613a9cb before it. */
	V("on-when-available", INVLPGB_ON, "4afeb0ed1753", "v6.15"),
	V("no-tlbsync", INVLPGB_NO_TLBSYNC, NOT_MAINLINE), END };
static const struct tlbgen_choice_value invlpgb_pcid_v[] = {
	/* Also in 7.0.y stable. */
	V("no", 0, OLD),
	V("yes", 1, "44126343d58c", "v7.1"), END };
static const struct tlbgen_choice_value repeat_sync_v[] = {
	V("per-tlbi", ARM64_REPEAT_PER_TLBI, "d9ff80f83ecb", "v4.16"),
	V("at-dsb", ARM64_REPEAT_AT_DSB, "a8f78680ee6b", "v7.0"), END };
/* Chuyi Zhou's series, merged by smp-core-2026-08-17 and x86_mm_for_7.3-rc1. */
static const struct tlbgen_choice_value cfd_mask_v[] = {
	V("per-cpu", SMP_CFD_MASK_PER_CPU, OLD),
	V("task-local", SMP_CFD_MASK_TASK_LOCAL, "9a560af15fd3", "v7.3-rc1"), END };
static const struct tlbgen_choice_value wait_preempt_v[] = {
	V("off", 0, OLD), V("on", 1, "8df8a6028309", "v7.3-rc1"), END };
static const struct tlbgen_choice_value info_place_v[] = { V("per-cpu", FLUSH_INFO_PER_CPU,
	"3db6d5a5ecaf", "v5.2"), V("stack", FLUSH_INFO_STACK, "ed15468787dd", "v7.3-rc1"), END };
static const struct tlbgen_choice_value multi_preempt_v[] = {
	V("off", 0, OLD), V("on", 1, "a5a162fe1ae1", "v7.3-rc1"), END };
static const struct tlbgen_choice_value skip_tried_v[] = {
	V("off", 0, OLD), V("on", 1, "b7333b58f358", "v5.9"), END };
/*
 * 5df397dec7c4 keeps a dirty file page's rmap until the TLB is flushed:
 * zap_pte_range() sets force_flush for it, so each PTE table holding one
 * is flushed before its PTL is dropped, instead of once per mmu_gather.
 */
static const struct tlbgen_choice_value delay_rmap_v[] = {
	V("off", 0, "-", "<= v6.1"), V("pmd", 1, "5df397dec7c4", "v6.2"), END };
/*
 * mprotect(PROT_READ|PROT_WRITE): change_pte_range() always made a dirty
 * PTE of a shared file mapping writable (dirty_accountable); 64fe24a3e05e
 * (v6.0) does it for an exclusive anonymous page too (can_change_pte_writable()),
 * where before the next write took a write fault that reused the page.
 */
static const struct tlbgen_choice_value mprotect_writable_v[] = {
	V("shared", 0, "-", "<= v5.19"), V("exclusive", 1, "64fe24a3e05e", "v6.0"), END };
/* munmap() held mmap_lock for write across the zap until v4.20. */
/*
 * The LRU (workload/lru.c): the per-CPU folio_batch's size (31 from
 * v6.9-rc2: mm-hotfixes, after the robot's page_fault2 report on
 * 99fbb6bfc16f); the runs a zap's free takes lru_lock for, release_pages()
 * relocking every SWAP_CLUSTER_MAX folios it looks at until the folios_put()
 * series (99fbb6bfc16f; 4907e80b76af converted free_pages_and_swap_cache());
 * and the lru_add_drain() before it, which 1aa43598c03b removed with five
 * others (zap_page_range_single(), unmap_region(), vms_clear_ptes(),
 * exit_mmap(), relocate_vma_down()).
 */
static const struct tlbgen_choice_value pagevec_size_v[] = {
	V("15", 15, OLD), V("31", 31, "9cecde80aae0", "v6.9"), END };
static const struct tlbgen_choice_value folios_put_v[] = {
	V("release_pages", 0, OLD), V("folio_batch", 1, "99fbb6bfc16f", "v6.9"), END };
static const struct tlbgen_choice_value zap_lru_drain_v[] = {
	V("on", 1, OLD), V("off", 0, "1aa43598c03b", "v6.14"), END };
static const struct tlbgen_choice_value munmap_lock_v[] = {
	V("write", 0, "-", "<= v4.19"), V("downgrade", 1, "dd2283f2605e", "v4.20"), END };
/*
 * Per-VMA locks: the arch fault handler tries lock_vma_under_rcu() first
 * (x86 0bff0aaea03e, arm64 cd7f176aea5f, powerpc 70d4cbc80c88, v6.4), for
 * anonymous VMAs only. Matthew Wilcox's v6.7 series
 * (<20231006195318.4087158-1-willy@infradead.org>) let file faults finish
 * under it where ->map_pages exists, shared faults first (4ed4379881aa);
 * before each step such a fault returned VM_FAULT_RETRY and was redone
 * under mmap_lock.
 */
static const struct tlbgen_choice_value vma_lock_fault_v[] = {
	V("none", VMA_LOCK_FAULT_NONE, "-", "<= v6.3"),
	V("anon", VMA_LOCK_FAULT_ANON, "0bff0aaea03e", "v6.4"),
	V("anon-shared", VMA_LOCK_FAULT_ANON_SHARED, "4ed4379881aa", "never released (mm-unstable)"),
	V("all", VMA_LOCK_FAULT_ALL, "12214eba1992", "v6.7"), END };
/*
 * x86's exc_page_fault() prefetched mmap_lock's line for write on entry,
 * for the down_read() to come; under per-VMA locks most faults take no
 * mmap_lock, and 1701771d3069 dropped it (x86/mm for v6.16).
 */
static const struct tlbgen_choice_value fault_prefetchw_v[] = {
	V("mmap_lock", 1, OLD), V("none", 0, "1701771d3069", "v6.16"), END };
static const struct tlbgen_choice_value dirty_retry_v[] = {
	V("off", 0, OLD), V("on", 1, "89b15332af7c", "v5.9"), END };
/* tip x86/urgent, merged on the day of v7.2 (also in 7.1.y). */
static const struct tlbgen_choice_value tlbi_cmdline_v[] = {
	V("no", 0, OLD), V("yes", 1, "abe7c8b09bd7", "v7.2"), END };
/* riscv-for-linus-7.3-mw1; the riscv tree had them under other ids before. */
static const struct tlbgen_choice_value umc_asid_v[] = {
	V("off", 0, OLD), V("on", 1, "af842aea58d8", "v7.3-rc1"), END };
static const struct tlbgen_choice_value umc_svinval_v[] = {
	V("off", 0, OLD), V("on", 1, "905be00304bd", "v7.3-rc1"), END };

#define FIELD(f) offsetof(struct tlbgen_profile, f)
#define E(n, f, vals, a, h) { n, FIELD(f), CHOICE_ENUM, vals, a, h }
#define B(n, f, vals, a, h) { n, FIELD(f), CHOICE_BOOL, vals, a, h }
#define L(n, f, a, h) { n, FIELD(f), CHOICE_LONG, NULL, a, h }
const struct tlbgen_choice tlbgen__choices[] = {
	E("mm_tlb_gen_read", gen_read, gen_read_v, "x86",
	  "when flush_tlb_func reads mm->context.tlb_gen (aa44284960 defers it)"),
	E("early_return", early_return, early_v, "x86",
	  "skip if f->new_tlb_gen <= local_tlb_gen (aa44284960; 8f1d56f64f8d guards gen 0)"),
	E("wrong_mm", wrong_mm, wrong_mm_v, "x86",
	  "f->mm != loaded_mm: remote-only return (<=6.13), clear bit (209954cbc7d0), initiator too (953753db887f)"),
	E("mm_cpumask", cpumask_mode, cpumask_v, "x86",
	  "clear the bit at switch-out (<=6.13) or leave it (209954cbc7d0)"),
	E("ipi_cond", ipi_cond, ipi_cond_v, "x86",
	  "per-target IPI condition: tlb_is_not_lazy (d39268ad24c0) or should_flush_tlb (6db2526c1d69)"),
	E("ipi_cond_eval", ipi_cond_eval, cond_eval_v, "x86",
	  "native_flush_tlb_multi() evaluates the IPI condition per target as it queues "
	  "(on_each_cpu_cond_mask) or for every target first into a mask it then IPIs "
	  "(6035152d8eeb, v5.13..v5.17; reverted by d39268ad24c0, which seed 000 ran)"),
	E("trim_cpumask", trim, trim_v, "x86",
	  "IPI CPUs that left the mm once per HZ (6db2526c1d69)"),
	B("loaded_mm_switching", switching, switching_v, "x86",
	  "should_flush_tlb() IPIs a CPU whose loaded_mm is LOADED_MM_SWITCHING, after smp_rmb() (fea4e317f9e7)"),
	E("switching_write", switching_write, switching_write_v, "x86",
	  "LOADED_MM_SWITCHING written after choose_new_asid (late) or before the tlb_gen read (early; "
	  "the order stable trees lacked, Stephen Dolan, Oct 2025)"),
	B("switch_mm_barrier", switch_mm_barrier, barrier_v, "x86",
	  "smp_mb() in switch_mm when the cpumask bit is already set (83b0177a6c48)"),
	B("same_mm_cpumask_check", same_mm_cpumask_check, sm_check_v, "x86",
	  "switch to the same mm tests (and repairs) the cpumask bit: always, or only under "
	  "CONFIG_DEBUG_VM (7e33001b8b9a), i.e. not in a production kernel"),
	E("ceiling_place", ceiling_place, place_v, "x86",
	  "where the range ceiling is applied (4a02ed8e1cc3 moved it)"),
	L("tlb_single_page_flush_ceiling", tlb_single_page_flush_ceiling, "x86",
	  "x86 range ceiling in stride units, strict >"),
	B("invlpgb_needs_pcid", invlpgb_needs_pcid, invlpgb_pcid_v, "x86",
	  "X86_FEATURE_INVLPGB cleared when PCID is (44126343d58c): with --no-pcid a kernel "
	  "without it issues INVLPGB with a non-zero PCID (#GP on hardware), one with it flushes "
	  "by IPIs"),
	E("flush_tlb_info", flush_info_place, info_place_v, "x86",
	  "flush_tlb_mm_range()'s flush_tlb_info: this CPU's, preemption off (3db6d5a5ecaf), or "
	  "the caller's stack (ed15468787dd); one line the initiator writes, each target reads. "
	  "Stepped, a task run while a waiter is preempted rewrites a per-CPU one; on the stack, its own"),
	B("flush_multi_preempt", flush_multi_preemptible, multi_preempt_v, "x86",
	  "preemption on before flush_tlb_multi() (a5a162fe1ae1): with smp_wait_preempt, "
	  "flush_tlb_mm_range()'s wait can be preempted (stepped); off, get_cpu() holds it off"),
	E("invlpgb", invlpgb, invlpgb_v, "x86",
	  "on a machine with INVLPGB (system opts): an mm active on more than 3 CPUs gets a global "
	  "ASID and flush_tlb_mm_range() flushes it by INVLPGB + TLBSYNC instead of IPIs, the "
	  "batch flush by one INVLPGB of all non-global entries (4afeb0ed1753, 0b7eb55cb706), "
	  "flush_tlb_kernel_range() by INVLPGB of every PCID with no IPI (82378c6c2f43); "
	  "no-tlbsync is a broken variant that never waits for its INVLPGBs"),
	E("pv_flush_tlb_multi", pv_flush, pv_flush_v, "x86",
	  "flush_tlb_multi on bare metal (native) or in a KVM guest (kvm_flush_tlb_multi(): a "
	  "preempted vCPU gets KVM_VCPU_FLUSH_TLB instead of an IPI, and the host flushes its "
	  "TLB when it runs it again; tlbgen_vcpu__preempt()/__resume()), a Hyper-V guest "
	  "(hyperv: one hypercall flushes every CPU of the mask, lazy ones skipped; no "
	  "flush_tlb_func() anywhere) or a PVM guest (pvm: the initiator's own flush_tlb_func() "
	  "as native, the other CPUs by hypercall); a hypervisor's flush leaves the targets' "
	  "generations and mm_cpumask bits as they were"),
	E("batch_arch", batch_arch, batch_arch_v, "all",
	  "the architecture whose batched-unmap hooks and page flush the rmap uses: x86 (tlb_gen "
	  "+ cpumask), arm64 (TLBI now, DSB at flush), riscv; its own choices below say whether "
	  "that kernel version has batching"),
	B("batched_unmap", no_batched_unmap, batched_unmap_v, "all",
	  "off = no arch batches, whatever its version (a kernel without "
	  "ARCH_WANT_BATCHED_UNMAP_TLB_FLUSH): flush every unmapped page at once"),
	B("arm64_batched_unmap", arm64_batched_unmap, arm64_batched_v, "arm64",
	  "arm64 selects ARCH_WANT_BATCHED_UNMAP_TLB_FLUSH (43b3dfdd0455); before it every "
	  "unmapped page is a TLBI+DSB at once"),
	B("riscv_batched_unmap", riscv_batched_unmap, riscv_batched_v, "riscv",
	  "riscv selects ARCH_WANT_BATCHED_UNMAP_TLB_FLUSH (54d7431af73e); before it every "
	  "unmapped page is flushed at once"),
	B("riscv_rfence", riscv_sbi_rfence, riscv_rfence_v, "riscv", "remote sfence.vma: ipi = "
	  "on_each_cpu_mask() (riscv_use_ipi_for_rfence()), sbi = sbi_remote_sfence_vma_asid(): "
	  "the firmware fences the harts, no flush callback there (IPIs by SBI, as on a CLINT board). "
	  "The board's IPI driver decides: the machine feature riscv_sbi_rfence; sbi here is the same"),
	B("arm64_repeat_tlbi", arm64_repeat_tlbi, repeat_tlbi_v, "arm64",
	  "ARM64_WORKAROUND_REPEAT_TLBI (an erratum CPU): extra TLBIs and DSBs, see "
	  "arm64_repeat_tlbi_sync. Which CPUs have it is the machine's: the machine feature "
	  "arm64_repeat_tlbi; on here is the same"),
	E("arm64_repeat_tlbi_sync", arm64_repeat_sync, repeat_sync_v, "arm64",
	  "under arm64_repeat_tlbi: every TLBI becomes tlbi; dsb ish; tlbi and nothing is "
	  "deferred (d9ff80f83ecb), or each DSB completing broadcast TLBIs is followed by one "
	  "TLBI VALE1IS, XZR and a DSB, and the batch defers again (a8f78680ee6b)"),
	E("batched_pending", batched_pending, batched_pending_v, "arm64",
	  "arm64 arch_flush_tlb_batched_pending: a DSB only (db6c1f6f236d), which completes no "
	  "other CPU's TLBIs, or flush_tlb_mm (4b634918384c)"),
	B("ubc_pte_accessible", ubc_pte_accessible, pte_accessible_v, "all",
	  "set_tlb_ubc_flush_pending() returns early for a PTE that is not pte_accessible() "
	  "(4d4b6d66db63); before it every cleared PTE is batched"),
	E("smp_wait_mask", smp_wait_mask, wait_mask_v, "all",
	  "smp_call_function_many_cond(): targets skipped by the condition stay in cfd->cpumask "
	  "and csd_lock_wait() reads their csds (all-targets), or are cleared from it (5c3124975e15)"),
	E("smp_cfd_mask", smp_cfd_mask, cfd_mask_v, "all",
	  "the mask csd_lock_wait() walks: this CPU's cfd->cpumask, or the calling task's own "
	  "(9a560af15fd3). Stepped, a task run while a waiter is preempted rewrites a per-CPU one, "
	  "and the waiter's wait ends on what it left there"),
	B("smp_wait_preempt", smp_wait_preemptible, wait_preempt_v, "all",
	  "preemption on before csd_lock_wait() (8df8a6028309): stepped, tlbgen_cpu__preempt_waiter() "
	  "runs another task on a waiting CPU; threaded and virtual time have one task per CPU"),
	L("ppc_tlb_single_page_flush_ceiling", ppc_tlb_single_page_flush_ceiling, "powerpc",
	  "powerpc radix global (tlbie) ceiling in pages: 33 (debugfs)"),
	L("ppc_tlb_local_single_page_flush_ceiling", ppc_tlb_local_single_page_flush_ceiling,
	  "powerpc",
	  "powerpc radix local (tlbiel) ceiling in pages: POWER9_TLB_SETS_RADIX * 2 = 256 (debugfs)"),
	E("ppc_ceiling_cmp", ppc_ceiling_cmp, ceiling_cmp_v, "powerpc",
	  "powerpc radix global test: gt (mainline nr_pages > ceiling) or ge (Aneesh's 2021 RFC, with 32)"),
	L("riscv_tlb_flush_all_threshold", riscv_tlb_flush_all_threshold, "riscv",
	  "riscv: a range over one stride is a full flush if DIV_ROUND_UP(size, stride) > this: 64 "
	  "since 9d4e8d5fa7db (v6.7); before it every such range was a full flush, which is 1"),
	L("arm64_max_dvm_ops", arm64_max_dvm_ops, "arm64",
	  "arm64 without FEAT_TLBIRANGE: full flush if (end - start) >= MAX_DVM_OPS * stride (512)"),
	E("flush_tlb_fix_spurious_fault", spurious_hook, spurious_hook_v, "all",
	  "generic: cross-CPU flush_tlb_page; noop: x86/arm64; local: one local page (Catalin's 2020 proposal)"),
	B("spurious_skip_tried", spurious_skip_tried, skip_tried_v, "all",
	  "skip the spurious-fault flush on FAULT_FLAG_TRIED (b7333b58f358)"),
	B("fault_dirty_retry", fault_dirty_retry, dirty_retry_v, "all", "a shared file write fault "
	  "drops mmap_lock in fault_dirty_shared_page() and returns VM_FAULT_RETRY (89b15332af7c)"),
	B("munmap_lock", munmap_downgrade, munmap_lock_v, "all", "munmap() holds mmap_lock for "
	  "write across the zap and its flush, or downgrades it to read once the VMAs are "
	  "detached, so that faults and madvise() run beside the zap (dd2283f2605e)"),
	E("pagevec_size", pagevec_size, pagevec_size_v, "all", "PAGEVEC_SIZE: the folios a "
	  "CPU's lru_add batch holds before folio_batch_move_lru() puts them on the LRU under "
	  "one lru_lock hold; a zap's free takes the lock per batch too (9cecde80aae0)"),
	B("folios_put", folios_put_batch, folios_put_v, "all", "a zap's free of its folios: "
	  "release_pages() of the gather's batch, relocking lru_lock every SWAP_CLUSTER_MAX "
	  "folios, or folios_put_refs() per folio_batch (99fbb6bfc16f)"),
	B("zap_lru_drain", zap_lru_drain, zap_lru_drain_v, "all", "free_pages_and_swap_cache() "
	  "drains the CPU's lru_add batch (lru_add_drain()) before it frees; without (1aa43598c03b) "
	  "a folio zapped in the batch is freed when the batch moves, a second lru_lock hold"),
	B("zap_delay_rmap", zap_delay_rmap, delay_rmap_v, "all", "a zap of dirty file pages: "
	  "one flush per mmu_gather (off), or one per PTE table before its PTL is dropped, "
	  "the rmaps removed after it (5df397dec7c4)"),
	B("mprotect_writable", mprotect_anon_writable, mprotect_writable_v, "all", "which read-only "
	  "PTEs mprotect(PROT_READ|PROT_WRITE) makes writable: a shared file's dirty pages; also "
	  "exclusive anonymous pages (64fe24a3e05e), a PTE change that x86 flushes"),
	E("vma_lock_fault", vma_lock_fault, vma_lock_fault_v, "all", "which user faults take "
	  "only the VMA's lock, not mmap_lock: none; anonymous VMAs (per-VMA locks); and shared "
	  "file faults (4ed4379881aa); every fault of a VMA with ->map_pages (v6.7)"),
	E("fault_arch", fault_arch, fault_arch_v, "all", "whose ptep_set_access_flags() and "
	  "flush_tlb_fix_spurious_fault() run: x86 (no flush of a changed PTE; hook noop), arm64 "
	  "(flush_tlb_page() of a changed write PTE; arm64_fault_flush sets the hook; before "
	  "v5.10 the hook is the generic broadcast), generic (the hook after every change too), "
	  "riscv (update_mmu_cache() of a new or changed PTE: riscv_umc_asid; hook: the choice)"),
	B("fault_prefetchw", fault_prefetchw, fault_prefetchw_v, "x86", "x86's "
	  "exc_page_fault() prefetches mmap_lock's line for ownership on entry, whether or not "
	  "the fault then takes the lock (fault_arch=x86 and batch_arch=x86): every fault's CPU "
	  "fetches the line the mm's faulting CPUs share; 1701771d3069 dropped it"),
	B("arm64_fault_flush", arm64_fault_local, arm64_fault_v, "arm64", "arm64 write fault that "
	  "changed the PTE: broadcast flush_tlb_page(); or local TLBI + DSB, hook too (cb1fa2e99955)"),
	B("tlbi_cmdline", tlbi_cmdline, tlbi_cmdline_v, "x86", "the tlbi= boot switch "
	  "(abe7c8b09bd7): on a machine booted with tlbi=ipi (machine feature tlbi_ipi) INVLPGB "
	  "stays unused and flush_tlb_mm_range() sends IPIs; without it the parameter is unknown"),
	B("riscv_umc_asid", riscv_umc_asid, umc_asid_v, "riscv", "update_mmu_cache()'s eager "
	  "local sfence.vma of the new PTE's page: every ASID (sfence.vma addr), or the mm's "
	  "ASID only (af842aea58d8); fault_arch=riscv"),
	B("riscv_umc_svinval", riscv_umc_svinval, umc_svinval_v, "riscv", "update_mmu_cache() "
	  "on a hart with Svinval (machine feature riscv_svinval): sfence.w.inval, sinval.vma, "
	  "sfence.inval.ir instead of sfence.vma (905be00304bd)"),
};

const size_t tlbgen__nr_choices = ARRAY_SIZE(tlbgen__choices);
