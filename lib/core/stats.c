// SPDX-License-Identifier: LGPL-2.1-or-later
/* lib/core/stats.c - counter names, read-out and reset. */
#include <errno.h>
#include <string.h>

#include "check.h"
#include "stats.h"

static const char *const stat_names[TLBGEN_STAT_NR] = {
	[TLBGEN_STAT_FLUSH_INITIATED] = "flush_initiated",
	[TLBGEN_STAT_FLUSH_MULTI] = "flush_multi",
	[TLBGEN_STAT_FLUSH_LOCAL_ONLY] = "flush_local_only",
	[TLBGEN_STAT_FLUSH_NONE] = "flush_none",
	[TLBGEN_STAT_CALL_QUEUED] = "call_queued",
	[TLBGEN_STAT_IPI_SENT] = "ipi_sent",
	[TLBGEN_STAT_IPI_SKIP_LAZY] = "ipi_skip_lazy",
	[TLBGEN_STAT_IPI_SKIP_NOT_LOADED] = "ipi_skip_not_loaded",
	[TLBGEN_STAT_IPI_SKIP_NOT_TRIMMED] = "ipi_skip_not_trimmed",
	[TLBGEN_STAT_IPI_RECEIVED] = "ipi_received",
	[TLBGEN_STAT_TRIM_CPUMASK] = "trim_cpumask",
	[TLBGEN_STAT_FLUSH_FUNC] = "flush_tlb_func",
	[TLBGEN_STAT_FLUSH_FUNC_REMOTE] = "flush_tlb_func_remote",
	[TLBGEN_STAT_FLUSH_FUNC_WRONG_MM] = "flush_func_wrong_mm",
	[TLBGEN_STAT_FLUSH_FUNC_INIT_MM] = "flush_func_init_mm",
	[TLBGEN_STAT_FLUSH_FUNC_LAZY] = "flush_func_lazy",
	[TLBGEN_STAT_EARLY_SKIP] = "early_skip",
	[TLBGEN_STAT_UP_TO_DATE] = "up_to_date",
	[TLBGEN_STAT_FULL_FLUSH] = "full_flush",
	[TLBGEN_STAT_PARTIAL_FLUSH] = "partial_flush",
	[TLBGEN_STAT_PAGES_INVALIDATED] = "pages_invalidated",
	[TLBGEN_STAT_TLB_GEN_READ] = "tlb_gen_read",
	[TLBGEN_STAT_TLB_GEN_RMW] = "tlb_gen_rmw",
	[TLBGEN_STAT_CPUMASK_SET] = "cpumask_set",
	[TLBGEN_STAT_CPUMASK_CLEAR] = "cpumask_clear",
	[TLBGEN_STAT_LAZY_ENTER] = "lazy_enter",
	[TLBGEN_STAT_SWITCH_MM] = "switch_mm",
	[TLBGEN_STAT_SWITCH_MM_FLUSH] = "switch_mm_flush",
	[TLBGEN_STAT_KERNEL_FLUSH] = "kernel_flush",
	[TLBGEN_STAT_TLB_ACCESS] = "tlb_access",
	[TLBGEN_STAT_TLB_MISS] = "tlb_miss",
	[TLBGEN_STAT_TLBI] = "tlbi",
	[TLBGEN_STAT_DSB] = "dsb",
	[TLBGEN_STAT_PV_FLUSH_DEFERRED] = "pv_flush_deferred",
	[TLBGEN_STAT_PV_FLUSH_AT_RESUME] = "pv_flush_at_resume",
	[TLBGEN_STAT_INVLPGB] = "invlpgb",
	[TLBGEN_STAT_TLBSYNC] = "tlbsync",
	[TLBGEN_STAT_IPI_AVOIDED] = "ipi_avoided",
	[TLBGEN_STAT_GLOBAL_ASID_ASSIGNED] = "global_asid_assigned",
};

TLBGEN_API const char *tlbgen_stat_name(enum tlbgen_stat stat)
{
	return (unsigned int)stat < TLBGEN_STAT_NR ? stat_names[stat] : NULL;
}

static size_t clamp_n(size_t n)
{
	return n > TLBGEN_STAT_NR ? TLBGEN_STAT_NR : n;
}

TLBGEN_API int tlbgen_stats__cpu(const struct tlbgen_system *sys, unsigned int cpu,
				 uint64_t *out, size_t n)
{
	if (!tlbgen__sys_valid(sys) || cpu >= sys->nr_cpus || (!out && n))
		return -EINVAL;
	n = clamp_n(n);
	for (size_t i = 0; i < n; i++)
		out[i] = tlbgen__stat_read(&sys->cpus[cpu]->stats[tlbgen__stat_slot(i)]);
	return (int)n;
}

TLBGEN_API int tlbgen_stats__system(const struct tlbgen_system *sys, uint64_t *out, size_t n)
{
	if (!tlbgen__sys_valid(sys) || (!out && n))
		return -EINVAL;
	n = clamp_n(n);
	if (n)	/* out may be NULL for n == 0: memset(NULL, ...) is UB */
		memset(out, 0, n * sizeof(*out));
	for (unsigned int cpu = 0; cpu < sys->nr_cpus; cpu++)
		for (size_t i = 0; i < n; i++)
			out[i] += tlbgen__stat_read(&sys->cpus[cpu]->stats[tlbgen__stat_slot(i)]);
	return (int)n;
}

TLBGEN_API int tlbgen_stats__mm(const struct tlbgen_mm *mm, uint64_t *out, size_t n)
{
	if (!tlbgen__mm_ok(mm) || (!out && n))
		return -EINVAL;
	n = clamp_n(n);
	if (n)	/* out may be NULL for n == 0: memset(NULL, ...) is UB */
		memset(out, 0, n * sizeof(*out));
	if (!mm->priv.stats)
		return (int)n;
	for (unsigned int cpu = 0; cpu < mm->priv.sys->nr_cpus; cpu++)
		for (size_t i = 0; i < n; i++)
			out[i] += tlbgen__stat_read(
				&mm->priv.stats[(size_t)cpu * TLBGEN_MM_STAT_STRIDE +
						 tlbgen__mm_stat_slot(i)]);
	return (int)n;
}

TLBGEN_API int tlbgen_stats__reset(struct tlbgen_system *sys)
{
	if (!tlbgen__sys_valid(sys))
		return -EINVAL;
	if (tlbgen__stats_busy(sys))
		return -EBUSY;
	for (unsigned int cpu = 0; cpu < sys->nr_cpus; cpu++)
		for (size_t i = 0; i < TLBGEN_STAT_NR; i++)
			tlbgen__stat_reset(&sys->cpus[cpu]->stats[tlbgen__stat_slot(i)]);
	pthread_mutex_lock(&sys->lock);
	for (struct tlbgen_mm *mm = sys->mm_list; mm; mm = mm->priv.next)
		if (mm->priv.stats)
			for (size_t i = 0; i < (size_t)sys->nr_cpus * TLBGEN_MM_STAT_STRIDE; i++)
				tlbgen__stat_reset(&mm->priv.stats[i]);
	pthread_mutex_unlock(&sys->lock);
	return 0;
}
