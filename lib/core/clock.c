// SPDX-License-Identifier: LGPL-2.1-or-later
/* lib/core/clock.c - jiffies. */
#include <errno.h>

#include "check.h"
#include "clock.h"

uint64_t tlbgen__jiffies(const struct tlbgen_system *sys)
{
	struct timespec ts;

	if (sys->clock.jiffies)
		return sys->clock.jiffies(sys->clock.ctx);
	if (sys->exec)
		return sys->exec->jiffies(sys);
	if (sys->mode == TLBGEN_MODE_STEPPED)
		return atomic_load_explicit(&((struct tlbgen_system *)sys)->virt_jiffies,
					    memory_order_relaxed);
	/* Tick-granular like the kernel's jiffies, and a vDSO read of a few ns
	 * rather than ~35 ns on every should_trim_cpumask(). */
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)(ts.tv_sec - sys->clock_base.tv_sec) * sys->clock.hz +
	       (uint64_t)((ts.tv_nsec - sys->clock_base.tv_nsec) / (1000000000L / sys->clock.hz));
}

TLBGEN_API int tlbgen_system__jiffies(const struct tlbgen_system *sys, uint64_t *out)
{
	if (!tlbgen__sys_valid(sys) || !out)
		return -EINVAL;
	*out = tlbgen__jiffies(sys);
	return 0;
}

TLBGEN_API int tlbgen_system__hz(const struct tlbgen_system *sys)
{
	return tlbgen__sys_valid(sys) ? (int)sys->clock.hz : -EINVAL;
}

TLBGEN_API int tlbgen_clock_advance(struct tlbgen_system *sys, uint64_t jiffies)
{
	if (!tlbgen__sys_valid(sys))
		return -EINVAL;
	if (sys->clock.jiffies || sys->mode != TLBGEN_MODE_STEPPED)
		return -EOPNOTSUPP;
	atomic_fetch_add_explicit(&sys->virt_jiffies, jiffies, memory_order_relaxed);
	return 0;
}
