// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/runtime/vblock.c - threads that block in virtual time: a program's
 * CPU idles in an MWAIT state until another program wakes it, taking the
 * IPIs that arrive after the state's exit latency.
 */
#include <errno.h>

#include "../core/check.h"
#include "../core/irqflags.h"
#include "../core/this_cpu.h"
#include "virtual.h"

/*
 * The calling program's thread blocks (schedule() to the idle task): its CPU
 * idles in an MWAIT C-state until `until`, the run's deadline or a
 * tlbgen_vtime__wake(). An interrupt that arrives is taken after the
 * state's exit latency (the sender's csd wait includes it); the CPU then
 * idles again. A wake costs the exit latency once more.
 */
TLBGEN_API int tlbgen_vtime__block(struct tlbgen_system *sys, unsigned int cpu, uint64_t until,
				   uint64_t exit_latency, uint64_t *slept)
{
	struct tlbgen_vt *vt = tlbgen__vt_valid(sys);
	struct tlbgen_vcpu *me;
	uint64_t t0;
	int err, ret;

	if (!vt)
		return -EINVAL;
	err = tlbgen__check_op(sys, cpu);
	if (err)
		return err;
	if (tlbgen__irqs_disabled(sys, cpu))
		return -EDEADLK;	/* nothing could wake it */
	me = &vt->v[cpu];
	if (until > vt->stop_at)
		until = vt->stop_at;
	t0 = me->clock;
	me->blocked = true;
	vt->stats.blocks++;
	for (;;) {
		uint64_t next = until;

		if (me->wake_pending && me->wake_at <= me->clock) {
			me->wake_pending = false;
			tlbgen__vt_charge(vt, me, TLBGEN_VT_TIME_IDLE, exit_latency);
			ret = 0;
			break;
		}
		if (me->ipi_at <= me->clock) {
			tlbgen__vt_charge(vt, me, TLBGEN_VT_TIME_IDLE, exit_latency);
			vt->stats.idle_ipis++;
			tlbgen__vt_take_ipis(vt, cpu);
			continue;
		}
		if (me->clock >= until) {
			ret = 1;
			break;
		}
		if (me->ipi_at < next)
			next = me->ipi_at;
		if (me->wake_pending && me->wake_at < next)
			next = me->wake_at;
		tlbgen__vt_sleep(vt, cpu, next, TLBGEN_VT_TIME_IDLE);
	}
	me->blocked = false;
	if (slept)
		*slept = me->clock - t0;
	return ret;
}

/*
 * try_to_wake_up() of a task blocked on `target`: the idle task there polls
 * TIF_NEED_RESCHED under MWAIT's monitor, so the waker writes that line and
 * sends no IPI (set_nr_if_polling()): one line transfer, as a locked RMW.
 * A wake of a CPU not blocked yet is kept for its next block.
 */
TLBGEN_API int tlbgen_vtime__wake(struct tlbgen_system *sys, unsigned int cpu, unsigned int target)
{
	struct tlbgen_vt *vt = tlbgen__vt_valid(sys);
	const struct tlbgen_machine *m;
	struct tlbgen_vcpu *src, *t;
	int err;

	if (!vt || target >= sys->nr_cpus || target == cpu)
		return -EINVAL;
	err = tlbgen__check_op(sys, cpu);
	if (err)
		return err;
	m = &sys->machine;
	src = &vt->v[cpu];
	t = &vt->v[target];
	tlbgen__vt_charge(vt, src, TLBGEN_VT_TIME_SEND,
			  (vt->socket[cpu] == vt->socket[target] ? m->same_socket : m->cross_socket) +
				  m->rmw);
	if (!t->wake_pending || t->wake_at > src->clock) {
		t->wake_pending = true;
		t->wake_at = src->clock;
	}
	if (t->blocked)
		tlbgen__vt_wake(vt, target, t->wake_at);
	vt->stats.wakes++;
	tlbgen__vt_sched(vt, cpu);
	return 0;
}
