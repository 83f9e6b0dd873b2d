// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/runtime/vserial.c - virtual time: a completion the interconnect
 * serves one CPU at a time (exec->serial; arm64's DSB ISH after TLBI ...IS,
 * lib/arch/arm64/tlbflush.c). A CPU whose wait starts while another's is
 * being served queues behind it, so N CPUs broadcasting at once each wait
 * up to N times as long.
 */
#include "virtual.h"

void tlbgen__vt_serial(struct tlbgen_system *sys, unsigned int cpu, uint64_t cycles)
{
	struct tlbgen_vt *vt = sys->rt;
	struct tlbgen_vcpu *me;
	uint64_t wait = 0;

	(void)cpu;
	if (vt->current >= sys->nr_cpus)
		return;	/* the host between runs: no time passes */
	/* Start the wait at a scheduling point, so that the server takes the
	 * CPUs in the order of their clocks. */
	tlbgen__vt_sched(vt, vt->current);
	me = &vt->v[vt->current];
	if (vt->serial_busy_until > me->clock)
		wait = vt->serial_busy_until - me->clock;
	vt->serial_busy_until = me->clock + wait + cycles;
	tlbgen__vt_charge(vt, me, TLBGEN_VT_TIME_TLB, wait + cycles);
}
