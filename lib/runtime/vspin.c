// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/runtime/vspin.c - spinning on a queued lock in virtual time
 * (vspin.h). A qspinlock waiter (kernel/locking/qspinlock.c) spins on its
 * own MCS node, or as the queue's head on the lock word, which only the
 * holder's release changes: so the wait is one sleep until the release,
 * not a scheduling point per PAUSE.
 */
#include <errno.h>

#include "vspin.h"
#include "virtual.h"

int tlbgen__vt_spin_until(struct tlbgen_system *sys, unsigned int cpu,
			  bool (*done)(void *arg), void *arg)
{
	struct tlbgen_vt *vt = tlbgen__vt_valid(sys);

	if (!vt || cpu != vt->current)
		return -EINVAL;
	while (!done(arg)) {
		/* An IPI's arrival ends the sleep too: taken here only with
		 * IRQs on (spin_lock_irqsave() spins with them off). */
		tlbgen__vt_take_ipis(vt, cpu);
		if (done(arg))
			break;
		tlbgen__vt_sleep(vt, cpu, VT_NEVER, TLBGEN_VT_TIME_LINE_WAIT);
	}
	return 0;
}

void tlbgen__vt_spin_kick(struct tlbgen_system *sys, unsigned int cpu, unsigned int target)
{
	struct tlbgen_vt *vt = tlbgen__vt_valid(sys);

	if (vt && cpu == vt->current && target < sys->nr_cpus)
		tlbgen__vt_wake(vt, target, vt->v[cpu].clock);
}
