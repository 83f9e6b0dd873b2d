// SPDX-License-Identifier: LGPL-2.1-or-later
/* lib/core/check.c - checks every public entry point shares. */
#include <errno.h>

#include "check.h"
#include "irqflags.h"

int tlbgen__check_op(const struct tlbgen_system *sys, unsigned int cpu)
{
	int err;

	if (!tlbgen__sys_valid(sys) || cpu >= sys->nr_cpus)
		return -EINVAL;
	err = sys->transport->check_cpu(sys, cpu);
	if (err)
		return err;
	/*
	 * From a cross-CPU callback (IRQs off on cpu): a nested flush would
	 * reuse this CPU's cfd mask, csds and flush_tlb_info under the one in
	 * flight, and its IRQ-enable would re-enter the queue drain. The
	 * kernel WARNs (smp_call_function_many_cond: irqs_disabled()).
	 */
	if (tlbgen__irqs_disabled(sys, cpu))
		return -EDEADLK;
	/*
	 * From the flush-done callback: it runs inside the operation that
	 * ended the flush (stepped: a deliver on the host thread, for any
	 * CPU; threaded and virtual time: the initiator's end of its wait).
	 * A flush started there would end in the callback again, and again.
	 */
	if (tlbgen__cpu(sys, cpu)->priv.in_flush_done ||
	    (sys->user_done.running && sys->mode != TLBGEN_MODE_THREADED))
		return -EDEADLK;
	return 0;
}

int tlbgen__check_quiescent(const struct tlbgen_system *sys)
{
	if (!tlbgen__sys_valid(sys))
		return -EINVAL;
	if (atomic_load(&((struct tlbgen_system *)sys)->waiting_cpus) ||
	    atomic_load(&((struct tlbgen_system *)sys)->attached_cpus))
		return -EBUSY;
	return 0;
}
