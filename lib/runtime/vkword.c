// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/runtime/vkword.c - virtual time: the cost of a kernel word's line
 * (core/kword.h: mmap_lock's count, mm->tlb_flush_pending), the workload
 * layer's lines beside the policy's.
 */
#include "virtual.h"

/*
 * A kernel word's line (core/kword.h): a hit, or a transfer from the last
 * writer's socket or the other one, plus rmw for a write; the caller
 * spends it with IRQs on. A transfer holds the line: an access that finds it held waits until
 * the holder's is done. A read leaves the writer as the line's last owner,
 * so the next writer still pays a transfer.
 */
uint64_t tlbgen__vt_kword_cost(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_kword *w,
			       bool write)
{
	struct tlbgen_vt *vt = sys->rt;
	const struct tlbgen_machine *m = &sys->machine;
	struct tlbgen_vcpu *me;
	uint64_t wait = 0, c = m->hit;

	if (cpu >= sys->nr_cpus || cpu != vt->current)
		return 0;	/* the host between runs: no time passes */
	me = &vt->v[cpu];
	/* A locked RMW drains the store buffer before it executes. */
	if (write && me->sb_len)
		tlbgen__vt_sb_drain(vt, cpu, "locked RMW");
	if (w->busy_until > me->clock)
		wait = w->busy_until - me->clock;
	if (w->last >= 0 && (unsigned int)w->last != cpu) {
		c = vt->socket[w->last] == vt->socket[cpu] ? m->same_socket : m->cross_socket;
		w->busy_until = me->clock + wait + c;
	}
	if (write)
		w->last = (int)cpu;
	return wait + c + (write ? m->rmw : 0);
}

