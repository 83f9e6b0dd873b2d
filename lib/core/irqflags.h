/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/core/irqflags.h - local_irq_disable()/local_irq_enable() of an
 * emulated CPU. IRQs off is a flag the transport reads before it runs a
 * CPU's queue; turning them on is an IRQ-enable point, where the transport
 * takes IPIs that arrived meanwhile.
 */
#ifndef TLBGEN_CORE_IRQFLAGS_H
#define TLBGEN_CORE_IRQFLAGS_H

#include "state.h"

static inline bool tlbgen__irqs_disabled(const struct tlbgen_system *sys, unsigned int cpu)
{
	return atomic_load_explicit(&tlbgen__cpu(sys, cpu)->priv.irqs_disabled,
				    memory_order_relaxed);
}

/* Set the flag with only compiler ordering: it is read by this CPU's own
 * signal handler, never by another CPU. */
static inline void tlbgen__irqs_set(struct tlbgen_system *sys, unsigned int cpu, bool off)
{
	atomic_signal_fence(memory_order_seq_cst);
	atomic_store_explicit(&tlbgen__cpu(sys, cpu)->priv.irqs_disabled, off,
			      memory_order_relaxed);
	atomic_signal_fence(memory_order_seq_cst);
}

static inline void tlbgen__local_irq_disable(struct tlbgen_system *sys, unsigned int cpu)
{
	atomic_store_explicit(&tlbgen__cpu(sys, cpu)->priv.irqs_disabled, true,
			      memory_order_relaxed);
	atomic_signal_fence(memory_order_seq_cst);
}

/* An IRQ-enable point: an IPI that arrived with IRQs off is taken now. */
static inline void tlbgen__irq_enable_point(struct tlbgen_system *sys, unsigned int cpu)
{
	if (sys->transport->irq_enable)
		sys->transport->irq_enable(sys, cpu);
}

static inline void tlbgen__local_irq_enable(struct tlbgen_system *sys, unsigned int cpu)
{
	atomic_signal_fence(memory_order_seq_cst);
	atomic_store_explicit(&tlbgen__cpu(sys, cpu)->priv.irqs_disabled, false,
			      memory_order_relaxed);
	tlbgen__irq_enable_point(sys, cpu);
}

#endif
