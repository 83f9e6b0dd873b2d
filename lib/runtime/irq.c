// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/runtime/irq.c - a threaded CPU taking its IPIs: the queue is drained
 * at IRQ-enable points, in the idle loop and in the signal handler.
 */
#include "../core/irqflags.h"
#include "../kernel/smp.h"
#include "runtime.h"

/* Run the queue until it stays empty (an IPI that arrived during the drain
 * is taken right after, as at local_irq_restore()). */
int tlbgen__rt_take_ipis(struct tlbgen_system *sys, unsigned int cpu)
{
	struct tlbgen_cpu *c = tlbgen__cpu(sys, cpu);
	int ran = 0;

	/* No pending flag is written here: initiators would then miss on this
	 * line on every send. The queue itself is the IPI. */
	while (tlbgen__rt_queue_nonempty(c))
		ran += tlbgen__flush_smp_call_function_queue(sys, cpu, -1);
	return ran;
}

/* An IRQ-enable point: take pending IPIs unless IRQs are off. */
void tlbgen__rt_irq_enable(struct tlbgen_system *sys, unsigned int cpu)
{
	if (tlbgen__irqs_disabled(sys, cpu))
		return;
	/* The polling backend needs no flag: a non-empty queue is the IPI. */
	if (likely(!tlbgen__rt_queue_nonempty(tlbgen__cpu(sys, cpu))))
		return;
	tlbgen__rt_take_ipis(sys, cpu);
}
