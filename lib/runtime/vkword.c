// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/runtime/vkword.c - virtual time: the cost of a kernel word's line
 * (core/kword.h: mmap_lock's count, mm->tlb_flush_pending), the workload
 * layer's lines beside the policy's.
 */
#include "virtual.h"

/*
 * A kernel word's line (core/kword.h): a hit, or a transfer from the last
 * writer's socket or the other one, plus rmw for a locked RMW; the caller
 * spends it with IRQs on. A transfer holds the line: an access that finds
 * it held waits until the holder's is done. A read leaves the writer as the
 * line's last owner, so the next writer still pays a transfer. A prefetchw
 * takes ownership as a write does, without the RMW's cost or barrier; the
 * CPU waits for it (the fault's IRET, serialising, cannot retire before
 * the fetch ends). A plain store costs the same: a spinlock's release
 * takes back the line the next ticket's RMW took.
 */
uint64_t tlbgen__vt_kword_cost(struct tlbgen_system *sys, unsigned int cpu, struct tlbgen_kword *w,
			       enum tlbgen_kword_op op)
{
	bool write = op != TLBGEN_KWORD_READ, rmw = op == TLBGEN_KWORD_RMW;
	struct tlbgen_vt *vt = sys->rt;
	const struct tlbgen_machine *m = &sys->machine;
	struct tlbgen_vcpu *me;
	uint64_t wait = 0, c = m->hit;

	if (cpu >= sys->nr_cpus || cpu != vt->current)
		return 0;	/* the host between runs: no time passes */
	me = &vt->v[cpu];
	/* A locked RMW drains the store buffer before it executes. */
	if (rmw && me->sb_len)
		tlbgen__vt_sb_drain(vt, cpu, "locked RMW");
	if (w->busy_until > me->clock)
		wait = w->busy_until - me->clock;
	if (w->last >= 0 && (unsigned int)w->last != cpu) {
		c = vt->socket[w->last] == vt->socket[cpu] ? m->same_socket : m->cross_socket;
		w->busy_until = me->clock + wait + c;
	}
	if (write)
		w->last = (int)cpu;
	return wait + c + (rmw ? m->rmw : 0);
}

