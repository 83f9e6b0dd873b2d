// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/core/profile.c - kernel profiles as data: each built-in profile is a
 * base profile plus the choices that changed, with the commits that changed
 * them; user profiles add function overrides (tlbgen_policy_register()).
 * Nothing outside this file knows kernel version numbers.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../base/printk.h"
#include "check.h"
#include "profile.h"

struct tlbgen_profile_def {
	const char *name;
	const char *base;
	const char *choices;
	const char *note;	/* what else the release changed, and what was read */
};

static const struct tlbgen_profile_def builtin[] = {
	/* Nadav Amit's baseline "v5.17+": with the d39268ad24c0 revert. */
	{ "v5.17", NULL,
	  "ppc_tlb_single_page_flush_ceiling=33,ppc_tlb_local_single_page_flush_ceiling=256,"
	  "ppc_ceiling_cmp=gt,riscv_tlb_flush_all_threshold=1,arm64_max_dvm_ops=512,"
	  "flush_tlb_fix_spurious_fault=noop,spurious_skip_tried=on,fault_dirty_retry=on,"
	  "fault_arch=x86,fault_prefetchw=mmap_lock,"
	  "munmap_lock=downgrade,vma_lock_fault=none,zap_delay_rmap=off,mprotect_writable=shared,"
	  "pagevec_size=15,folios_put=release_pages,zap_lru_drain=on,"
	  "arm64_fault_flush=broadcast,"
	  "mm_tlb_gen_read=always,early_return=none,wrong_mm=remote,mm_cpumask=clear-on-switch,"
	  "ipi_cond=tlb_is_not_lazy,trim_cpumask=none,loaded_mm_switching=off,switching_write=late,"
	  "switch_mm_barrier=off,same_mm_cpumask_check=always,ceiling_place=flush_tlb_mm_range,"
	  "tlb_single_page_flush_ceiling=33,"
	  "batch_arch=x86,batched_unmap=on,arm64_batched_unmap=off,riscv_batched_unmap=off,"
	  "riscv_rfence=ipi,arm64_repeat_tlbi=off,batched_pending=dsb,ubc_pte_accessible=off,"
	  "smp_wait_mask=all-targets,pv_flush_tlb_multi=native,ipi_cond_eval=enqueue,"
	  "invlpgb=off,invlpgb_needs_pcid=no,arm64_repeat_tlbi_sync=per-tlbi,smp_cfd_mask=per-cpu,"
	  "smp_wait_preempt=off,flush_tlb_info=per-cpu,flush_multi_preempt=off,"
	  "tlbi_cmdline=no,riscv_umc_asid=off,riscv_umc_svinval=off", NULL },
	/* aa44284960 exactly as first merged: the batch-flush skip (Hugh Dickins' segfaults). */
	{ "v6.0-aa44284960", "v5.17", "mm_tlb_gen_read=deferred,early_return=unguarded", NULL },
	/* 64fe24a3e05e: mprotect() makes exclusive anonymous pages writable. */
	{ "v6.0", "v5.17", "mm_tlb_gen_read=deferred,early_return=guarded,mprotect_writable=exclusive",
	  NULL },
	/* 4d4b6d66db63 (the pte_accessible() filter), 5c3124975e15 (the wait mask). */
	/* 0bff0aaea03e: anonymous faults under the VMA's lock. */
	/* 5df397dec7c4 (v6.2): dirty file pages' rmaps wait for the flush. */
	{ "v6.4", "v6.0", "ubc_pte_accessible=on,smp_wait_mask=called,vma_lock_fault=anon,"
	  "zap_delay_rmap=pmd", NULL },
	/* 43b3dfdd0455: arm64 batches, with db6c1f6f236d's dsb-only batched_pending. */
	{ "v6.6", "v6.4", "arm64_batched_unmap=on", NULL },
	/*
	 * 9d4e8d5fa7db: riscv flushes a range page by page up to 64 entries;
	 * before it, anything over one stride was a full flush (threshold 1).
	 * File faults under the VMA's lock (4ed4379881aa and its series).
	 */
	{ "v6.7", "v6.6", "riscv_tlb_flush_all_threshold=64,vma_lock_fault=all", NULL },
	/* 54d7431af73e: riscv batches. */
	{ "v6.8", "v6.7", "riscv_batched_unmap=on", NULL },
	/*
	 * Lazy mm_cpumask series; still has the two 2025 ordering windows.
	 * v6.9's folio batches (99fbb6bfc16f, 9cecde80aae0) and 1aa43598c03b
	 * (v6.14): the LRU's lock per folio_batch, no drain before a free.
	 */
	{ "v6.14", "v6.8",
	  "wrong_mm=all-clear,mm_cpumask=lazy,ipi_cond=should_flush_tlb,trim_cpumask=per-hz,"
	  "same_mm_cpumask_check=debug_vm,pagevec_size=31,folios_put=folio_batch,zap_lru_drain=off",
	  NULL },
	/*
	 * fea4e317f9e7, 4a02ed8e1cc3 and AMD INVLPGB (4afeb0ed1753, used only
	 * where the machine has it) in v6.15; 4b634918384c and 1701771d3069
	 * (v6.16).
	 */
	{ "v6.16", "v6.14",
	  "loaded_mm_switching=on,switching_write=early,ceiling_place=get_flush_tlb_info,"
	  "batched_pending=flush_tlb_mm,invlpgb=on-when-available,fault_prefetchw=none", NULL },
	/* 83b0177a6c48 (v6.18-rc2). */
	{ "v6.18", "v6.16", "switch_mm_barrier=on", NULL },
	/* cb1fa2e99955: arm64 write faults flush locally. */
	{ "v6.19", "v6.18", "arm64_fault_flush=local", NULL },
	/* a8f78680ee6b (arm64, during the v7.0 rcs; stable trees have it too). */
	{ "v7.0", "v6.19", "arm64_repeat_tlbi_sync=at-dsb",
	  "a8f78680ee6b (with bfd9c931d19a, TLBI ops take XZR): the repeat of "
	  "ARM64_WORKAROUND_REPEAT_TLBI moves into __tlbi_sync_s1ish(); body read in the "
	  "6.1.y backport. A search of LKML postings and kernel.org push logs found no "
	  "v7.0 change to arch/x86/mm/tlb.c, kernel/smp.c, mm/rmap.c, include/asm-generic/tlb.h "
	  "or arch/riscv/mm/tlbflush.c" },
	/* 44126343d58c (x86/urgent during the v7.1 rcs; 7.0.y has it too). */
	{ "v7.1", "v7.0", "invlpgb_needs_pcid=yes",
	  "44126343d58c: X86_FEATURE_INVLPGB depends on X86_FEATURE_PCID (cpuid-deps), body "
	  "read in the 7.0.y backport. Not modelled: the arm64 C1-Pro SME DVMSync erratum "
	  "(6bfbf574a391 __tlbi_sync_s1ish_{kernel,batch}(), d9fb08ba946a the mm passed to "
	  "__tlbi_sync_s1ish(), 0baba94a9779 the erratum's IPIs to the CPUs running with SME). "
	  "0baba94a9779's body, read in its 6.18.y backport: on C1-Pro r0p0..r1p2 with SME "
	  "(ARM64_WORKAROUND_4193714, a machine's), mm_cpumask() holds the CPUs that run the mm "
	  "at EL0 with SME; each TLBI sync of a user mm ends with a waiting IPI to them, and each "
	  "batched unmap add issues a DSB ISH and ORs the mm's mask into the batch, which the "
	  "flush IPIs. The model has no SME state; the first two only prepare the helpers it uses" },
	/* abe7c8b09bd7 (tip x86/urgent, merged on the day of v7.2); cfd391e74134 widens
	 * which CPUs have the erratum: a machine's, no choice. */
	{ "v7.2", "v7.1", "tlbi_cmdline=yes",
	  "abe7c8b09bd7 \"x86/CPU: Add a tlbi= cmdline switch\": tlbi=ipi keeps a machine with "
	  "INVLPGB on IPI flushes, after TLBSYNC problems on AMD (body not read: the title, the "
	  "tip push logs and the release reports). "
	  "cfd391e74134 (CVE-2025-10263) and ec7216f92e4e add Arm and NVIDIA Olympus CPUs to "
	  "ARM64_WORKAROUND_REPEAT_TLBI: which CPUs have the erratum, a machine's property "
	  "(machine feature arm64_repeat_tlbi), no choice changes. Bodies not read beyond the "
	  "first lines. Not modelled: 534eb6940a89 \"arm64: Avoid eager DVMSync reclaim batches "
	  "with C1-Pro SME erratum\" (arm64 for-next/fixes, 2026-06-29): its body was not found; "
	  "the model has no SME state" },
	/* Chuyi Zhou's series: smp-core-2026-08-17 and x86_mm_for_7.3-rc1. */
	{ "v7.3-rc", "v7.2",
	  "smp_cfd_mask=task-local,smp_wait_preempt=on,flush_tlb_info=stack,"
	  "flush_multi_preempt=on,"
	  "riscv_umc_asid=on,riscv_umc_svinval=on",
	  "Chuyi Zhou's series (v9 posted 2026-06-30), merged by 0dd1a54f4434 (smp-core-2026-08-17) "
	  "and b126f6f5940f (x86_mm_for_7.3-rc1). The merged bodies were not read, only their "
	  "subjects in the tip and mainline push logs; the v9 postings of 02/14 and 06/14 and the "
	  "v7 posting of 12/14 were. Also in it, no choice: preemption off explicitly in "
	  "__csd_lock_wait(), smp_call_function_single() re-enabling preemption before its "
	  "wait, 0485235b6e0d, 9f483e5b2f12, 66344732b058, 947c397f5991, 33c179b50205, "
	  "c86f522bb57b (flush_tlb_info aligned to at most 64 bytes) and ae397bb32d2a "
	  "(kvm_flush_tlb_multi() keeps preemption off for its per-CPU mask). "
	  "af842aea58d8 and 905be00304bd (riscv-for-linus-7.3-mw1): update_mmu_cache() "
	  "flushes by the mm's ASID, with Svinval where the hart has it (read in Xu Lu's "
	  "2025 posting, which did both in one patch). No v7.3 release was found, hence -rc" },
	{ "latest", "v7.3-rc", "", NULL },
};

/* Registered profiles: process-wide, as the kernel's profiles are built in. */
#define TLBGEN_MAX_USER_PROFILES 64
static struct tlbgen_profile user_profiles[TLBGEN_MAX_USER_PROFILES];
static unsigned int nr_user_profiles;
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;

static void list_profiles(void)
{
	char buf[1024];
	size_t off = 0;

	for (size_t i = 0; i < ARRAY_SIZE(builtin); i++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s", i ? ", " : "",
					builtin[i].name);
	for (unsigned int i = 0; i < nr_user_profiles && off < sizeof(buf); i++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, ", %s",
					user_profiles[i].name);
	tlbgen__pr(TLBGEN_WARN, "tlbgen: valid profiles: %s\n", buf);
}

static int builtin_lookup(const char *name, struct tlbgen_profile *out, int depth)
{
	for (size_t i = 0; i < ARRAY_SIZE(builtin); i++) {
		if (strcmp(builtin[i].name, name))
			continue;
		memset(out, 0, sizeof(*out));
		if (builtin[i].base) {
			/* A chain longer than the table has a cycle. */
			int err = depth < (int)ARRAY_SIZE(builtin) ?
				  builtin_lookup(builtin[i].base, out, depth + 1) : -ELOOP;

			if (err)
				return err;
		}
		snprintf(out->name, sizeof(out->name), "%s", name);
		return tlbgen__profile_apply_choices(out, builtin[i].choices);
	}
	return -ENOENT;
}

/* Resolve a profile name without printing. */
static int lookup_quiet(const char *name, struct tlbgen_profile *out)
{
	int err = builtin_lookup(name, out, 0);

	if (err != -ENOENT)
		return err;
	pthread_mutex_lock(&registry_lock);
	for (unsigned int i = 0; i < nr_user_profiles; i++) {
		if (!strcmp(user_profiles[i].name, name)) {
			*out = user_profiles[i];
			err = 0;
			break;
		}
	}
	pthread_mutex_unlock(&registry_lock);
	return err;
}

int tlbgen__profile_lookup(const char *name, struct tlbgen_profile *out)
{
	int err;

	if (!name)
		return -EINVAL;
	err = lookup_quiet(name, out);
	if (err == -ENOENT) {
		tlbgen__pr(TLBGEN_WARN, "tlbgen: unknown profile '%s'\n", name);
		pthread_mutex_lock(&registry_lock);
		list_profiles();
		pthread_mutex_unlock(&registry_lock);
	}
	return err;
}

static bool name_taken(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(builtin); i++)
		if (!strcmp(builtin[i].name, name))
			return true;
	for (unsigned int i = 0; i < nr_user_profiles; i++)
		if (!strcmp(user_profiles[i].name, name))
			return true;
	return false;
}

TLBGEN_API int tlbgen_policy_register(const char *name, const char *base, const char *choices_s,
				      const struct tlbgen_policy_ops *ops)
{
	struct tlbgen_profile p;
	struct tlbgen_policy_ops o = { 0 };
	int err;

	if (!name || !*name || strlen(name) >= sizeof(p.name) || strchr(name, ','))
		return -EINVAL;
	if (ops) {
		if (ops->sz < offsetof(struct tlbgen_policy_ops, flush_decide) ||
		    TLBGEN_OPTS_VALID(ops, tlbgen_policy_ops, priv))
			return -EINVAL;
		TLBGEN_OPTS_COPY(&o, ops);
	}
	err = tlbgen__profile_lookup(base ? base : "latest", &p);
	if (err)
		return err;
	err = tlbgen__profile_apply_choices(&p, choices_s);
	if (err)
		return err;
	snprintf(p.name, sizeof(p.name), "%s", name);
	if (o.flush_decide)
		p.flush_decide = o.flush_decide;
	if (o.ipi_cond)
		p.ipi_cond_fn = o.ipi_cond;
	if (o.flush_decide || o.ipi_cond)
		p.priv = o.priv;

	pthread_mutex_lock(&registry_lock);
	err = 0;
	if (name_taken(name))
		err = -EEXIST;
	else if (nr_user_profiles == TLBGEN_MAX_USER_PROFILES)
		err = -ENOSPC;
	else
		user_profiles[nr_user_profiles++] = p;
	pthread_mutex_unlock(&registry_lock);
	return err;
}

TLBGEN_API int tlbgen_policy_unregister(const char *name)
{
	int err = -ENOENT;

	if (!name)
		return -EINVAL;
	for (size_t i = 0; i < ARRAY_SIZE(builtin); i++)
		if (!strcmp(builtin[i].name, name))
			return -EPERM;
	pthread_mutex_lock(&registry_lock);
	for (unsigned int i = 0; i < nr_user_profiles; i++) {
		if (!strcmp(user_profiles[i].name, name)) {
			user_profiles[i] = user_profiles[--nr_user_profiles];
			err = 0;
			break;
		}
	}
	pthread_mutex_unlock(&registry_lock);
	return err;
}

TLBGEN_API int tlbgen_profile_origin(const char *name, const char **base, const char **note)
{
	if (!name)
		return -EINVAL;
	for (size_t i = 0; i < ARRAY_SIZE(builtin); i++) {
		if (strcmp(builtin[i].name, name))
			continue;
		if (base)
			*base = builtin[i].base;
		if (note)
			*note = builtin[i].note;
		return 0;
	}
	return -ENOENT;
}

TLBGEN_API int tlbgen_profile_names(const char **names, size_t n)
{
	size_t k = 0;

	if (!names && n)
		return -EINVAL;
	for (size_t i = 0; i < ARRAY_SIZE(builtin); i++, k++)
		if (k < n)
			names[k] = builtin[i].name;
	pthread_mutex_lock(&registry_lock);
	for (unsigned int i = 0; i < nr_user_profiles; i++, k++)
		if (k < n)
			names[k] = user_profiles[i].name;
	pthread_mutex_unlock(&registry_lock);
	return (int)k;
}

/*
 * X86_FEATURE_INVLPGB is fixed at boot in the kernel: while a global ASID
 * is handed out, a profile must not turn its use on or off, or CPUs on it
 * would miss IPI flushes.
 */
static int invlpgb_switch_check(const struct tlbgen_system *sys, const struct tlbgen_profile *p)
{
	bool now = tlbgen__invlpgb_on(sys);
	bool next = tlbgen__invlpgb_usable(sys, p);

	if (now != next && tlbgen__global_asids_in_use(sys)) {
		tlbgen__pr(TLBGEN_WARN, "tlbgen: invlpgb: global ASIDs in use, cannot turn it %s\n",
			   next ? "on" : "off");
		return -EBUSY;
	}
	return 0;
}

TLBGEN_API int tlbgen_system__set_profile(struct tlbgen_system *sys, const char *name)
{
	struct tlbgen_profile p;
	int err = tlbgen__check_quiescent(sys);

	if (err)
		return err;
	if (!name)
		return -EINVAL;
	err = tlbgen__profile_lookup(name, &p);
	if (!err)
		err = invlpgb_switch_check(sys, &p);
	if (!err)
		sys->profile = p;
	return err;
}

TLBGEN_API int tlbgen_system__set_choices(struct tlbgen_system *sys, const char *s)
{
	struct tlbgen_profile tmp;
	int err = tlbgen__check_quiescent(sys);

	if (err)
		return err;
	if (!s)
		return -EINVAL;
	tmp = sys->profile;
	err = tlbgen__profile_apply_choices(&tmp, s);
	if (!err)
		err = invlpgb_switch_check(sys, &tmp);
	if (!err)
		sys->profile = tmp;
	return err;
}

TLBGEN_API int tlbgen_system__set_choice(struct tlbgen_system *sys, const char *choice,
					 const char *value)
{
	struct tlbgen_profile tmp;
	int err = tlbgen__check_quiescent(sys);

	if (err)
		return err;
	if (!choice || !value)
		return -EINVAL;
	tmp = sys->profile;
	err = tlbgen__profile_set_one(&tmp, choice, strlen(choice), value, strlen(value));
	if (!err)
		err = invlpgb_switch_check(sys, &tmp);
	if (!err)
		sys->profile = tmp;
	return err;
}

TLBGEN_API const char *tlbgen_system__get_choice(const struct tlbgen_system *sys,
						 const char *choice)
{
	static _Thread_local char num[32];

	if (!tlbgen__sys_valid(sys) || !choice)
		return NULL;
	return tlbgen__profile_get(&sys->profile, choice, num, sizeof(num));
}

TLBGEN_API const char *tlbgen_system__profile(const struct tlbgen_system *sys)
{
	return tlbgen__sys_valid(sys) ? sys->profile.name : NULL;
}

TLBGEN_API int tlbgen_system__describe_policy(const struct tlbgen_system *sys, char *buf,
					      size_t len)
{
	if (!tlbgen__sys_valid(sys) || (!buf && len))
		return -EINVAL;
	return tlbgen__profile_describe(&sys->profile, buf, len);
}
