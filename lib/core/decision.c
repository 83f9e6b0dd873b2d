// SPDX-License-Identifier: LGPL-2.1-or-later
/* lib/core/decision.c - the decision hook (tlbgen/decision.h). */
#include <errno.h>

#include "../base/printk.h"
#include "check.h"
#include "decision.h"

void tlbgen__decision_report(struct tlbgen_system *sys, unsigned int cpu,
			     enum tlbgen_tlb_flush_reason reason, unsigned long pages,
			     const struct tlbgen_mm *mm, unsigned int initiator)
{
	struct tlbgen_flush_decision d = {
		.cpu = cpu,
		.reason = reason,
		.pages = pages,
		.mm = mm == sys->init_mm ? NULL : mm,
		.initiator = initiator,
	};

	sys->decision.decision(sys->decision.ctx, &d);
}

TLBGEN_API int tlbgen_system__set_decision_hook(struct tlbgen_system *sys,
						const struct tlbgen_decision_ops *ops)
{
	struct tlbgen_decision_ops o = { 0 };

	if (!tlbgen__sys_valid(sys))
		return -EINVAL;
	if (ops && (ops->sz < sizeof(size_t) ||
		    TLBGEN_OPTS_VALID(ops, tlbgen_decision_ops, ctx) || !ops->decision))
		return -EINVAL;
	if (tlbgen__check_quiescent(sys))
		return -EBUSY;
	if (ops)
		TLBGEN_OPTS_COPY(&o, ops);
	sys->decision = o;
	sys->deciding = ops != NULL;
	return 0;
}

TLBGEN_API const char *tlbgen_tlb_flush_reason_name(enum tlbgen_tlb_flush_reason reason)
{
	/* trace/events/tlb.h's TLB_FLUSH_REASON strings. */
	static const char *const names[TLBGEN_NR_TLB_FLUSH_REASONS] = {
		"flush on task switch", "remote shootdown", "local shootdown",
		"local mm shootdown", "remote IPI send", "remote wrong CPU",
	};

	return (unsigned int)reason < TLBGEN_NR_TLB_FLUSH_REASONS ? names[reason] : NULL;
}
