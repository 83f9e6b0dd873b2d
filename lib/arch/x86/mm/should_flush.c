// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/arch/x86/mm/should_flush.c - which CPUs of mm_cpumask a flush IPIs:
 * tlb_is_not_lazy() (d39268ad24c0 .. v6.13) or should_flush_tlb()
 * (6db2526c1d69) with fea4e317f9e7's LOADED_MM_SWITCHING check, and
 * should_trim_cpumask(); the tlbgen_ipi_target API a user condition reads.
 */
#include <errno.h>

#include "../../../core/access.h"
#include "../../../core/clock.h"
#include "tlb.h"

struct tlbgen_ipi_target {
	struct tlbgen_system *sys;
	unsigned int initiator;
	unsigned int cpu;
	const struct tlbgen_flush_tlb_info *info;
	bool have_loaded;
	struct tlbgen_mm *loaded;
};

static struct tlbgen_mm *ipi_target_loaded(struct tlbgen_ipi_target *t)
{
	if (!t->have_loaded) {
		t->loaded = tlbgen__remote_loaded_mm(t->sys, t->initiator, t->cpu);
		t->have_loaded = true;
	}
	return t->loaded;
}

TLBGEN_API int tlbgen_ipi_target__cpu(const struct tlbgen_ipi_target *t)
{
	return t ? (int)t->cpu : -EINVAL;
}

TLBGEN_API bool tlbgen_ipi_target__is_lazy(struct tlbgen_ipi_target *t)
{
	if (!t)
		return false;
	return tlbgen__remote_is_lazy(t->sys, t->initiator, t->cpu);
}

TLBGEN_API bool tlbgen_ipi_target__loaded_mm_is_target(struct tlbgen_ipi_target *t)
{
	return t && t->info->mm && ipi_target_loaded(t) == t->info->mm;
}

TLBGEN_API bool tlbgen_ipi_target__loaded_mm_is_switching(struct tlbgen_ipi_target *t)
{
	return t && ipi_target_loaded(t) == LOADED_MM_SWITCHING;
}

TLBGEN_API bool tlbgen_ipi_target__flush_has_mm(struct tlbgen_ipi_target *t)
{
	return t && t->info->mm != NULL;
}

TLBGEN_API bool tlbgen_ipi_target__trim_cpumask(struct tlbgen_ipi_target *t)
{
	return t && t->info->trim_cpumask;
}

TLBGEN_API void tlbgen_ipi_target__smp_rmb(struct tlbgen_ipi_target *t)
{
	if (t)
		tlbgen__smp_rmb(t->sys, t->initiator);
}

/*
 * The built-in condition. tlb_is_not_lazy() (d39268ad24c0 .. v6.13), or
 * should_flush_tlb() (6db2526c1d69) with fea4e317f9e7's SWITCHING check:
 * read loaded_mm, smp_rmb(), then is_lazy, so is_lazy is at least as new as
 * loaded_mm (pairs with the store order in switch_mm_irqs_off()).
 */
static enum tlbgen_ipi_verdict builtin_ipi_cond(struct tlbgen_ipi_target *t, void *priv)
{
	const struct tlbgen_profile *p = &t->sys->profile;

	(void)priv;
	if (p->ipi_cond == IPI_COND_TLB_IS_NOT_LAZY)
		return tlbgen_ipi_target__is_lazy(t) ? TLBGEN_IPI_SKIP_LAZY : TLBGEN_IPI_SEND;

	if (p->switching) {
		(void)ipi_target_loaded(t);
		tlbgen_ipi_target__smp_rmb(t);
	}
	/* Lazy TLB will get flushed at the next context switch. */
	if (tlbgen_ipi_target__is_lazy(t))
		return TLBGEN_IPI_SKIP_LAZY;
	/* No mm means kernel memory or a batch flush. */
	if (!tlbgen_ipi_target__flush_has_mm(t))
		return TLBGEN_IPI_SEND;
	/* While switching the CPU could hold state of either mm. */
	if (p->switching && tlbgen_ipi_target__loaded_mm_is_switching(t))
		return TLBGEN_IPI_SEND;
	if (tlbgen_ipi_target__loaded_mm_is_target(t))
		return TLBGEN_IPI_SEND;
	/* In mm_cpumask but running something else: trim now and then. */
	if (tlbgen_ipi_target__trim_cpumask(t))
		return TLBGEN_IPI_SEND;
	return p->trim == TRIM_NONE ? TLBGEN_IPI_SKIP_NOT_LOADED : TLBGEN_IPI_SKIP_NOT_TRIMMED;
}

/* The smp_cond_func_t handed to the call engine; counts skips by reason. */
int tlbgen__should_flush_tlb(struct tlbgen_system *sys, unsigned int cpu, void *info)
{
	const struct tlbgen_flush_tlb_info *f = info;
	struct tlbgen_ipi_target t = {
		.sys = sys, .initiator = f->initiating_cpu, .cpu = cpu, .info = f,
	};
	const struct tlbgen_profile *p = &sys->profile;
	enum tlbgen_ipi_verdict v = p->ipi_cond_fn ? p->ipi_cond_fn(&t, p->priv)
						   : builtin_ipi_cond(&t, p->priv);
	static const enum tlbgen_stat reason[] = {
		[TLBGEN_IPI_SKIP_LAZY] = TLBGEN_STAT_IPI_SKIP_LAZY,
		[TLBGEN_IPI_SKIP_NOT_LOADED] = TLBGEN_STAT_IPI_SKIP_NOT_LOADED,
		[TLBGEN_IPI_SKIP_NOT_TRIMMED] = TLBGEN_STAT_IPI_SKIP_NOT_TRIMMED,
	};

	if (v == TLBGEN_IPI_SEND)
		return 1;
	tlbgen__note_ipi_skipped(sys, f->initiating_cpu, cpu);
	if ((unsigned int)v < ARRAY_SIZE(reason))
		tlbgen__count(sys, f->initiating_cpu, f->mm, reason[v]);
	return 0;
}

/*
 * should_trim_cpumask() (6db2526c1d69): decided once per flush by the
 * initiator; racy by design (two initiators may both trim).
 */
bool tlbgen__should_trim_cpumask(struct tlbgen_system *sys, unsigned int cpu,
				 struct tlbgen_mm *mm)
{
	uint64_t now, next;

	if (sys->profile.trim == TRIM_NONE)
		return false;
	now = tlbgen__jiffies(sys);
	next = tlbgen__mm_next_trim_read(sys, cpu, mm);
	/* time_after(jiffies, next): wrap-safe. */
	if ((int64_t)(next - now) < 0) {
		tlbgen__mm_next_trim_write(sys, cpu, mm, now + tlbgen__hz(sys));
		tlbgen__count(sys, cpu, mm, TLBGEN_STAT_TRIM_CPUMASK);
		return true;
	}
	return false;
}

