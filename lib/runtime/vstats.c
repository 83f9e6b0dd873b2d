// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/runtime/vstats.c - the virtual-time mode's counters: what happened
 * (scheduling points, IPIs, transfers) and where the CPUs' time went.
 */
#include <errno.h>
#include <string.h>

#include "../observers/coherence.h"
#include "virtual.h"

TLBGEN_API int tlbgen_vtime__stats(const struct tlbgen_system *sys, struct tlbgen_vtime_stats *out)
{
	const struct tlbgen_vt *vt = tlbgen__vt_valid(sys);
	struct tlbgen_vtime_stats s;

	if (!vt || !out || out->sz < sizeof(size_t))
		return -EINVAL;
	s = vt->stats;
	s.lines = (uint64_t)tlbgen_coherence__nr_lines(vt->dir);
	s.sz = out->sz < sizeof(s) ? out->sz : sizeof(s);
	memcpy(out, &s, s.sz);
	return 0;
}

TLBGEN_API const char *tlbgen_vtime_time_name(enum tlbgen_vt_time kind)
{
	static const char *const names[TLBGEN_VT_TIME_NR] = {
		[TLBGEN_VT_TIME_WORK] = "work",
		[TLBGEN_VT_TIME_TLB] = "tlb",
		[TLBGEN_VT_TIME_LINE] = "line",
		[TLBGEN_VT_TIME_LINE_WAIT] = "line_wait",
		[TLBGEN_VT_TIME_SEND] = "send",
		[TLBGEN_VT_TIME_IRQ] = "irq",
		[TLBGEN_VT_TIME_CSD_WAIT] = "csd_wait",
		[TLBGEN_VT_TIME_IDLE] = "idle",
	};

	return (unsigned int)kind < TLBGEN_VT_TIME_NR ? names[kind] : NULL;
}

TLBGEN_API int tlbgen_vtime__now(const struct tlbgen_system *sys, unsigned int cpu, uint64_t *out)
{
	const struct tlbgen_vt *vt = tlbgen__vt_valid(sys);

	if (!vt || cpu >= sys->nr_cpus || !out)
		return -EINVAL;
	*out = vt->v[cpu].clock;
	return 0;
}
