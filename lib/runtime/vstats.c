// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/runtime/vstats.c - the virtual-time mode's counters: what happened
 * (scheduling points, IPIs, transfers) and where the CPUs' time went.
 */
#include <errno.h>
#include <string.h>

#include "../observers/coherence.h"
#include "runtime.h"
#include "virtual.h"

/*
 * A timed sleep (idle until an event, a csd wait, a spend) is charged when
 * it begins, so that a run that ends mid-sleep still sums to the clocks. A
 * CPU that reads the counters mid-run sees each other CPU's sleep up to its
 * own clock, not to where the sleep will end, or a window between two such
 * reads could go negative. Other charges are a CPU's work up to its own
 * clock, which may run a little ahead of the reader's (at most to its next
 * scheduling point); a CPU that never ran counts nothing until it is woken.
 */
static void as_of_reader(const struct tlbgen_vt *vt, struct tlbgen_vtime_stats *s)
{
	uint64_t r;

	if (vt->current >= vt->sys->nr_cpus)
		return;	/* the host: between runs every charge has happened */
	r = vt->v[vt->current].clock;
	for (unsigned int i = 0; i < vt->sys->nr_cpus; i++) {
		const struct tlbgen_vcpu *v = &vt->v[i];
		uint64_t from = v->sleep_from > r ? v->sleep_from : r;

		if (i == vt->current || !v->sleeping)
			continue;
		if (v->state == VCPU_BLOCKED && r > v->clock)
			s->time[v->sleep_kind] += r - v->clock;	/* uncharged so far */
		else if (v->state == VCPU_RUNNABLE && v->clock > from)
			s->time[v->sleep_kind] -= v->clock - from;
	}
}

int tlbgen__vt_reader_clock(const struct tlbgen_system *sys, uint64_t *out)
{
	const struct tlbgen_vt *vt = tlbgen__vt_valid(sys);

	if (!vt || vt->current >= sys->nr_cpus)
		return -ENOENT;
	*out = vt->v[vt->current].clock;
	return 0;
}

TLBGEN_API int tlbgen_vtime__stats(const struct tlbgen_system *sys, struct tlbgen_vtime_stats *out)
{
	const struct tlbgen_vt *vt = tlbgen__vt_valid(sys);
	struct tlbgen_vtime_stats s;

	if (!vt || !out || out->sz < sizeof(size_t))
		return -EINVAL;
	s = vt->stats;
	as_of_reader(vt, &s);
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
