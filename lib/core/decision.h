/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/core/decision.h - report a flush decision to the user's hook
 * (tlbgen/decision.h) where the kernel calls trace_tlb_flush().
 */
#ifndef TLBGEN_CORE_DECISION_H
#define TLBGEN_CORE_DECISION_H

#include "state.h"

/* TLB_FLUSH_ALL as the tracepoint's page count. */
#define TLBGEN_DECISION_ALL	TLBGEN_TLB_FLUSH_ALL

void tlbgen__decision_report(struct tlbgen_system *sys, unsigned int cpu,
			     enum tlbgen_tlb_flush_reason reason, unsigned long pages,
			     const struct tlbgen_mm *mm, unsigned int initiator);

/* trace_tlb_flush(reason, pages) on `cpu`; init_mm is reported as NULL. */
static inline void tlbgen__decision(struct tlbgen_system *sys, unsigned int cpu,
				    enum tlbgen_tlb_flush_reason reason, unsigned long pages,
				    const struct tlbgen_mm *mm, unsigned int initiator)
{
	if (unlikely(sys->deciding))
		tlbgen__decision_report(sys, cpu, reason, pages, mm, initiator);
}

#endif
